"""The numba backend of the executor: compiled classifiers, one or several at once,
with only their non-zero weights.

Two callers need it fast. The dataset builder evaluates a formula on thousands of
candidate graphs during rejection sampling; a molecule screen runs every pattern on
each chunk of molecules (`gracr.domains.chem.stream`). The kernel runs a `FusedPlan`
(`gracr.executor.plan.fused_plan`; one network is a plan of one): each settled block
writes its new fused columns in place, reading only columns settled before it. It
computes exactly what the numpy backend computes (float64); property tests check it
against the reference evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import numpy.typing as npt

from gracr.compiler.network import Network
from gracr.data.graph import IntArray
from gracr.data.kernels import kernel
from gracr.executor.plan import EdgeTypes, FusedPlan, fused_plan

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SparseProgram:
    """The non-zero weights of a `FusedPlan`, flattened for the kernel.

    Fused column `g` of the state holds one function of the graph; `columns[k][i]` is the
    fused column of column `i` of network `k`. The input map settles `[0, settled_at_input)`
    from the features `input_features`. Block `l` writes columns `[starts[l], ends[l])`;
    its combine entries are `c_*[c_ptr[l]:c_ptr[l+1]]` (row read, column written, weight),
    its aggregate entries `a_*[a_ptr[l]:a_ptr[l+1]]`. The neighbour sums the block reads
    are slots `s_ptr[l]:s_ptr[l+1]`: slot j sums column `summed_rows[j]` over the in-edges
    whose relation r has bit r set in `summed_masks[j]` (-1: every in-edge), each sum
    computed once per node; aggregate entry e of block l reads slot `s_ptr[l] + a_slots[e]`.
    `bias[g]` is
    column g's bias in the block that writes it.
    """

    width: int
    columns: tuple[IntArray, ...]
    input_features: IntArray
    input_matrix: Floats
    input_bias: Floats
    starts: IntArray
    ends: IntArray
    c_ptr: IntArray
    c_rows: IntArray
    c_cols: IntArray
    c_weights: Floats
    a_ptr: IntArray
    a_cols: IntArray
    a_weights: Floats
    a_slots: IntArray
    s_ptr: IntArray
    summed_rows: IntArray
    summed_masks: IntArray
    bias: Floats

    @property
    def settled_at_input(self) -> int:
        return int(self.input_bias.shape[0])


def sparse_program(networks: Network | Sequence[Network]) -> SparseProgram:
    """The kernel's program of one network or of several over one input layout (those
    `fused_plan` accepts: the compiled layout)."""
    return program_of_plan(fused_plan([networks] if isinstance(networks, Network)
                                      else list(networks)))


def _relation_mask(relations: EdgeTypes) -> int:
    if relations is None:
        return -1
    if max(relations) >= 63:
        raise ValueError("the numba executor reads at most 63 relations")
    return sum(1 << r for r in set(relations))


def program_of_plan(plan: FusedPlan) -> SparseProgram:
    """Flatten `plan`'s blocks into the arrays the kernel reads."""
    starts: list[int] = []
    ends: list[int] = []
    c_ptr, a_ptr, s_ptr = [0], [0], [0]
    c_rows: list[int] = []
    c_cols: list[int] = []
    c_weights: list[float] = []
    a_cols: list[int] = []
    a_weights: list[float] = []
    a_slots: list[int] = []
    summed_rows: list[int] = []
    summed_masks: list[int] = []
    bias = np.zeros(plan.width)
    for block in plan.layers:
        starts.append(block.start)
        ends.append(block.end)
        rows, cols = np.nonzero(block.C)
        c_rows += block.c_rows[rows].tolist()
        c_cols += (cols + block.start).tolist()
        c_weights += block.C[rows, cols].tolist()
        c_ptr.append(len(c_rows))
        slots: dict[tuple[int, int], int] = {}
        for relations, a_rows, A in block.channels:
            mask = _relation_mask(relations)
            rows, cols = np.nonzero(A)
            for row, col, weight in zip(a_rows[rows].tolist(), cols.tolist(),
                                        A[rows, cols].tolist()):
                a_slots.append(slots.setdefault((mask, row), len(slots)))
                a_cols.append(col + block.start)
                a_weights.append(weight)
        a_ptr.append(len(a_cols))
        summed_masks += [mask for mask, _ in slots]
        summed_rows += [row for _, row in slots]
        s_ptr.append(len(summed_rows))
        bias[block.start:block.end] = block.b
    return SparseProgram(
        plan.width, plan.columns, plan.input_features, plan.input_matrix.astype(np.float64),
        plan.input_bias.astype(np.float64), _ints(starts), _ints(ends), _ints(c_ptr),
        _ints(c_rows), _ints(c_cols), np.asarray(c_weights, dtype=np.float64), _ints(a_ptr),
        _ints(a_cols), np.asarray(a_weights, dtype=np.float64), _ints(a_slots), _ints(s_ptr),
        _ints(summed_rows), _ints(summed_masks), bias)


def _ints(values: list[int]) -> IntArray:
    return np.asarray(values, dtype=np.int64)


def in_neighbour_csr(edge_index: IntArray, num_nodes: int, edge_type: IntArray | None = None
                     ) -> tuple[IntArray, IntArray, IntArray]:
    """`(indptr, sources, types)` of the edges `edge_index` (`[2, E]`) between `num_nodes`
    nodes: the sources of the edges into node t are `sources[indptr[t]:indptr[t+1]]` (one
    entry per edge), their relations `types[...]` (`edge_type` in the same order; zeros
    when it is not given)."""
    edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    order = np.argsort(edges[1], kind="stable")
    counts = np.bincount(edges[1], minlength=num_nodes)
    indptr = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    types = (np.zeros(edges.shape[1], dtype=np.int64) if edge_type is None
             else np.asarray(edge_type, dtype=np.int64)[order])
    return indptr, np.ascontiguousarray(edges[0][order]), np.ascontiguousarray(types)


@kernel
def _run_blocks(state: Floats, indptr: IntArray, sources: IntArray, types: IntArray,
                starts: IntArray, ends: IntArray, c_ptr: IntArray, c_rows: IntArray,
                c_cols: IntArray, c_weights: Floats, a_ptr: IntArray, a_cols: IntArray,
                a_weights: Floats, a_slots: IntArray, s_ptr: IntArray, summed_rows: IntArray,
                summed_masks: IntArray, bias: Floats) -> None:
    num_nodes = state.shape[1]
    sums = np.empty((max(1, int(np.max(np.diff(s_ptr)))), num_nodes))
    for level in range(starts.shape[0]):
        start, end = starts[level], ends[level]
        first_slot = s_ptr[level]
        for i in range(start, end):
            state[i, :] = bias[i]
        for e in range(c_ptr[level], c_ptr[level + 1]):
            written, read, weight = state[c_cols[e]], state[c_rows[e]], c_weights[e]
            for t in range(num_nodes):
                written[t] += weight * read[t]
        for j in range(first_slot, s_ptr[level + 1]):
            mask, read, total = summed_masks[j], state[summed_rows[j]], sums[j - first_slot]
            for t in range(num_nodes):
                value = 0.0
                for p in range(indptr[t], indptr[t + 1]):
                    if (mask >> types[p]) & 1:
                        value += read[sources[p]]
                total[t] = value
        for e in range(a_ptr[level], a_ptr[level + 1]):
            written, total, weight = state[a_cols[e]], sums[a_slots[e]], a_weights[e]
            for t in range(num_nodes):
                written[t] += weight * total[t]
        for i in range(start, end):
            written = state[i]
            for t in range(num_nodes):
                value = written[t]
                written[t] = 0.0 if value < 0.0 else (1.0 if value > 1.0 else value)


def evaluate_columns(program: SparseProgram, features: Floats, indptr: IntArray,
                     sources: IntArray, types: IntArray | None = None) -> Floats:
    """The fused state after the last block, `[N, program.width]` (network k's column i
    at `program.columns[k][i]`; 0/1 on Boolean features). It is the transpose of the
    kernel's state, a view: the kernel keeps each column contiguous, so that a weight
    entry is one pass over a run of memory for all the nodes (the nodes are its inner
    loop, which the compiler vectorises) and a block touches only the columns it reads
    and writes."""
    state = np.empty((program.width, features.shape[0]))
    state[:program.settled_at_input] = np.clip(
        features[:, program.input_features] @ program.input_matrix + program.input_bias,
        0.0, 1.0).T
    if program.starts.shape[0] > 0:
        edge_types = np.zeros_like(sources) if types is None else types
        _run_blocks(state, indptr, sources, edge_types, program.starts, program.ends,
                    program.c_ptr, program.c_rows, program.c_cols, program.c_weights,
                    program.a_ptr, program.a_cols, program.a_weights, program.a_slots,
                    program.s_ptr, program.summed_rows, program.summed_masks, program.bias)
    transposed: Floats = state.T
    return transposed
