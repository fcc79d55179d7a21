"""A fast evaluator of compiled classifiers over graphs in CSR form (numba).

The dataset builder evaluates a formula on thousands of candidate graphs during
rejection sampling. This kernel runs the compiled network's layers with only their
non-zero weights, node by node over in-neighbour lists, writing each layer's new
columns in place (layer ℓ reads only columns of depth < ℓ, see
`gracr.runtime.torch_module._FusedLayer`). It computes exactly what
`CompiledGNN.forward` computes; a property test checks it against the reference
evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import numpy.typing as npt

from gracr.compiler.model import CompiledGNN
from gracr.data.graph import Graph, IntArray

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SparseProgram:
    """The non-zero weights of a compiled model's message-passing layers, flattened.

    Layer `l` writes columns `[starts[l], ends[l])`; its combine entries are
    `c_*[c_ptr[l]:c_ptr[l+1]]` (row, column, weight), its aggregate entries
    `a_*[a_ptr[l]:a_ptr[l+1]]`. The distinct rows the layer aggregates are
    `summed_rows[s_ptr[l]:s_ptr[l+1]]`, and aggregate entry `e` reads the neighbour
    sum of slot `a_slots[e]` among them: each sum is computed once per node.
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
    bias: Floats  # [layers, width]


def sparse_program(model: CompiledGNN) -> SparseProgram:
    """Flatten `model`'s layers into the arrays `evaluate_columns` reads."""
    depths = [column.depth for column in model.columns]
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
    bias = np.zeros((max(1, model.num_layers), model.width))
    for level, layer in enumerate(model.layers, start=1):
        start, end = depths.index(level), len(depths) - depths[::-1].index(level)
        starts.append(start)
        ends.append(end)
        for matrix, rows, cols, weights, ptr in ((layer.C, c_rows, c_cols, c_weights, c_ptr),
                                                 (layer.A, a_rows, a_cols, a_weights, a_ptr)):
            block_rows, block_cols = np.nonzero(matrix[:, start:end])
            rows.extend(int(r) for r in block_rows)
            cols.extend(int(c) + start for c in block_cols)
            weights.extend(float(matrix[r, c + start]) for r, c in zip(block_rows, block_cols))
            ptr.append(len(rows))
        layer_rows = sorted(set(a_rows[a_ptr[-2]:]))
        a_slots.extend(layer_rows.index(r) for r in a_rows[a_ptr[-2]:])
        summed_rows.extend(layer_rows)
        s_ptr.append(len(summed_rows))
        bias[level - 1] = layer.b
    return SparseProgram(
        model.width, model.input_matrix.astype(np.float64), model.input_bias.astype(np.float64),
        _as_int(starts), _as_int(ends), _as_int(c_ptr), _as_int(c_rows), _as_int(c_cols),
        np.asarray(c_weights), _as_int(a_ptr), _as_int(a_rows), _as_int(a_cols),
        np.asarray(a_weights), _as_int(a_slots), _as_int(s_ptr), _as_int(summed_rows), bias)


def _as_int(values: list[int]) -> IntArray:
    return np.asarray(values, dtype=np.int64)


def in_neighbour_csr(graph: Graph) -> tuple[IntArray, IntArray]:
    """`(indptr, sources)`: the sources of the edges into node t are
    `sources[indptr[t]:indptr[t+1]]` (one entry per edge)."""
    order = np.argsort(graph.targets, kind="stable")
    counts = np.bincount(graph.targets, minlength=graph.num_nodes)
    indptr = np.zeros(graph.num_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return indptr, np.ascontiguousarray(graph.sources[order])


@numba.njit(cache=True)
def _run_layers(H: Floats, indptr: IntArray, sources: IntArray, starts: IntArray,
                ends: IntArray, c_ptr: IntArray, c_rows: IntArray, c_cols: IntArray,
                c_weights: Floats, a_ptr: IntArray, a_cols: IntArray, a_weights: Floats,
                a_slots: IntArray, s_ptr: IntArray, summed_rows: IntArray,
                bias: Floats) -> None:
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
                for p in range(indptr[t], indptr[t + 1]):
                    total += H[sources[p], summed_rows[j]]
                sums[j - first_row] = total
            for e in range(a_ptr[level], a_ptr[level + 1]):
                z[a_cols[e] - start] += a_weights[e] * sums[a_slots[e]]
            for i in range(start, end):
                value = z[i - start]
                H[t, i] = 0.0 if value < 0.0 else (1.0 if value > 1.0 else value)


def evaluate_columns(program: SparseProgram, features: Floats, indptr: IntArray,
                     sources: IntArray) -> Floats:
    """Every hidden column of the last layer, `[N, width]` (0/1 on Boolean features)."""
    h0 = features @ program.input_matrix + program.input_bias
    if program.starts.shape[0] == 0:
        return h0
    H = np.clip(h0, 0.0, 1.0)
    depth0 = int(program.starts[0])
    H[:, depth0:] = 0.0
    _run_layers(H, indptr, sources, program.starts, program.ends, program.c_ptr,
                program.c_rows, program.c_cols, program.c_weights, program.a_ptr,
                program.a_cols, program.a_weights, program.a_slots, program.s_ptr,
                program.summed_rows, program.bias)
    return H
