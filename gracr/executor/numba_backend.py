"""The numba backend of the executor: compiled classifiers over graphs in CSR form.

The dataset builder evaluates a formula on thousands of candidate graphs during
rejection sampling. This kernel runs the compiled network's layers with only their
non-zero weights, node by node over in-neighbour lists, writing each layer's new
columns in place (layer ℓ reads only columns of depth < ℓ, see
`gracr.executor.plan`). It computes exactly what the numpy backend computes; a
property test checks it against the reference evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.compiler.network import Network
from gracr.data.graph import IntArray
from gracr.data.kernels import kernel
from gracr.executor.plan import layer_plans

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SparseProgram:
    """The non-zero weights of a compiled model's message-passing layers, flattened.

    Layer `l` writes columns `[starts[l], ends[l])`; its combine entries are
    `c_*[c_ptr[l]:c_ptr[l+1]]` (row, column, weight), its aggregate entries
    `a_*[a_ptr[l]:a_ptr[l+1]]`. The distinct rows the layer aggregates are
    `summed_rows[s_ptr[l]:s_ptr[l+1]]`, and aggregate entry `e` reads the neighbour
    sum of slot `a_slots[e]` among them: each sum is computed once per node. Slot j
    sums the in-edges of relation `summed_relations[j]` (−1: every in-edge).
    """

    width: int
    input_matrix: Floats
    input_bias: Floats
    starts: IntArray
    ends: IntArray
    c_ptr: IntArray
    c_rows: IntArray
    c_cols: IntArray
    c_weights: Floats
    a_ptr: IntArray
    a_rows: IntArray
    a_cols: IntArray
    a_weights: Floats
    a_slots: IntArray
    s_ptr: IntArray
    summed_rows: IntArray
    summed_relations: IntArray
    bias: Floats  # [layers, width]


def sparse_program(model: Network) -> SparseProgram:
    """Flatten `model`'s layer plans into the arrays `evaluate_columns` reads."""
    starts, ends = [], []
    c_ptr, a_ptr = [0], [0]
    c_rows: list[int] = []
    c_cols: list[int] = []
    c_weights: list[float] = []
    a_rows: list[int] = []
    a_cols: list[int] = []
    a_weights: list[float] = []
    a_slots: list[int] = []
    s_ptr = [0]
    summed_rows: list[int] = []
    summed_relations: list[int] = []
    plans = [plan for plan in layer_plans(model) if plan.settles is not None]
    bias = np.zeros((max(1, len(plans)), model.width))
    for number, plan in enumerate(plans):
        assert plan.settles is not None
        start, end = plan.settles
        starts.append(start)
        ends.append(end)
        block_rows, block_cols = np.nonzero(plan.C[:, start:end])
        c_rows.extend(int(r) for r in block_rows)
        c_cols.extend(int(c) + start for c in block_cols)
        c_weights.extend(float(plan.C[r, c + start]) for r, c in zip(block_rows, block_cols))
        c_ptr.append(len(c_rows))
        slots: list[tuple[int, int]] = []
        for channel in plan.channels:
            relation = -1 if channel.relation is None else channel.relation
            block_rows, block_cols = np.nonzero(channel.A[:, start:end])
            for r, c in zip(block_rows, block_cols):
                a_rows.append(int(r))
                a_cols.append(int(c) + start)
                a_weights.append(float(channel.A[r, c + start]))
                if (relation, int(r)) not in slots:
                    slots.append((relation, int(r)))
                a_slots.append(slots.index((relation, int(r))))
        a_ptr.append(len(a_rows))
        summed_relations.extend(relation for relation, _ in slots)
        summed_rows.extend(row for _, row in slots)
        s_ptr.append(len(summed_rows))
        bias[number] = plan.b
    return SparseProgram(
        model.width, model.input_matrix.astype(np.float64), model.input_bias.astype(np.float64),
        _as_int(starts), _as_int(ends), _as_int(c_ptr), _as_int(c_rows), _as_int(c_cols),
        np.asarray(c_weights), _as_int(a_ptr), _as_int(a_rows), _as_int(a_cols),
        np.asarray(a_weights), _as_int(a_slots), _as_int(s_ptr), _as_int(summed_rows),
        _as_int(summed_relations), bias)


def _as_int(values: list[int]) -> IntArray:
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
def _run_layers(H: Floats, indptr: IntArray, sources: IntArray, types: IntArray,
                starts: IntArray,
                ends: IntArray, c_ptr: IntArray, c_rows: IntArray, c_cols: IntArray,
                c_weights: Floats, a_ptr: IntArray, a_cols: IntArray, a_weights: Floats,
                a_slots: IntArray, s_ptr: IntArray, summed_rows: IntArray,
                summed_relations: IntArray, bias: Floats) -> None:
    num_nodes = H.shape[0]
    for level in range(starts.shape[0]):
        start, end = starts[level], ends[level]
        first_row, last_row = s_ptr[level], s_ptr[level + 1]
        z = np.empty(end - start)
        sums = np.empty(last_row - first_row)
        for t in range(num_nodes):
            for i in range(start, end):
                z[i - start] = bias[level, i]
            for e in range(c_ptr[level], c_ptr[level + 1]):
                z[c_cols[e] - start] += c_weights[e] * H[t, c_rows[e]]
            for j in range(first_row, last_row):
                total = 0.0
                relation = summed_relations[j]
                for p in range(indptr[t], indptr[t + 1]):
                    if relation < 0 or types[p] == relation:
                        total += H[sources[p], summed_rows[j]]
                sums[j - first_row] = total
            for e in range(a_ptr[level], a_ptr[level + 1]):
                z[a_cols[e] - start] += a_weights[e] * sums[a_slots[e]]
            for i in range(start, end):
                value = z[i - start]
                H[t, i] = 0.0 if value < 0.0 else (1.0 if value > 1.0 else value)


def evaluate_columns(program: SparseProgram, features: Floats, indptr: IntArray,
                     sources: IntArray, types: IntArray | None = None) -> Floats:
    """Every hidden column of the last layer, `[N, width]` (0/1 on Boolean features)."""
    h0 = np.clip(features @ program.input_matrix + program.input_bias, 0.0, 1.0)
    if program.starts.shape[0] == 0:
        return h0
    H = h0.copy()
    depth0 = int(program.starts[0])
    H[:, depth0:] = 0.0
    edge_types = np.zeros_like(sources) if types is None else types
    _run_layers(H, indptr, sources, edge_types, program.starts, program.ends, program.c_ptr,
                program.c_rows, program.c_cols, program.c_weights, program.a_ptr,
                program.a_cols, program.a_weights, program.a_slots, program.s_ptr,
                program.summed_rows, program.summed_relations, program.bias)
    return H
