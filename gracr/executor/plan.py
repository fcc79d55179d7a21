"""Layer plans: what each layer of a compiled network reads, sums and writes.

Every backend runs Eq. 2 with typed edges from these plans,

    h' = σ(h C + Σ_c Agg_c(h) A_c + b),   Agg_c(h)_t = Σ_{(s,t) ∈ E_c} h_s,

one `Channel` c per aggregation of the layer: `E_c` is every edge (`relation is None`)
or the edges whose `edge_type` is `relation`. Columns are ordered by depth, so layer ℓ
settles exactly the columns `[start, end)` of depth ℓ and carries the earlier ones
(`settles`); the fused and numba backends skip everything else.

`target_cone` is the one receptive-field walk of the executors: the nodes and columns
the output at one target reads, layer by layer; `cone_subgraph` the subgraph its nodes
induce, on which the target's output and every state it reads are the whole graph's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import numpy.typing as npt

from gracr.compiler.network import Network
from gracr.compiler.weights import Layer

Matrix = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Channel:
    """One aggregation of a layer: the edges it sums over and its weight matrix."""

    relation: int | None  # the `edge_type` it sums over; None: every edge
    A: Matrix             # [width_in, width_out]

    @property
    def rows(self) -> IntArray:
        """The input columns this channel reads (non-zero rows of A)."""
        return np.flatnonzero(np.abs(self.A).sum(axis=1)).astype(np.int64)

    @property
    def columns(self) -> IntArray:
        """The output columns this channel writes (non-zero columns of A)."""
        return np.flatnonzero(np.abs(self.A).sum(axis=0)).astype(np.int64)

    def admits(self, edge_type: IntArray | None, num_edges: int) -> BoolArray:
        """Which edges this channel sums over."""
        if self.relation is None:
            return np.ones(num_edges, dtype=np.bool_)
        if edge_type is None:
            raise ValueError("this model sums over typed edges: pass edge_type")
        admitted: BoolArray = np.asarray(edge_type) == self.relation
        return admitted


@dataclass(frozen=True, eq=False)
class LayerPlan:
    """One layer: `C`, `b`, its channels, and the columns `[start, end)` it settles
    (`None` for a layer that only carries columns on, e.g. `gracr.fuzz.pad_layers`)."""

    C: Matrix
    b: Matrix
    channels: tuple[Channel, ...]
    settles: tuple[int, int] | None

    @property
    def sends_messages(self) -> bool:
        return any(channel.A.any() for channel in self.channels)

    def restricted(self, inputs: IntArray, outputs: IntArray) -> LayerPlan:
        """The same layer on the input columns `inputs` and output columns `outputs`."""
        return LayerPlan(self.C[np.ix_(inputs, outputs)], self.b[outputs],
                         tuple(Channel(c.relation, c.A[np.ix_(inputs, outputs)])
                               for c in self.channels), None)

    def admitted(self, edge_type: IntArray | None, num_edges: int) -> BoolArray:
        """The edges some channel with non-zero weights sums over."""
        admitted = np.zeros(num_edges, dtype=np.bool_)
        for channel in self.channels:
            if channel.A.any():
                admitted |= channel.admits(edge_type, num_edges)
        return admitted


def _settled_columns(depths: list[int], level: int) -> tuple[int, int] | None:
    if level not in depths:
        return None
    return depths.index(level), len(depths) - depths[::-1].index(level)


def layer_plan(network: Network, level: int, layer: Layer) -> LayerPlan:
    """The plan of layer `level` (1-based) of `network`."""
    depths = [column.depth for column in network.columns]
    channels = tuple(Channel(None if a.relation is None else network.relations.index(a.relation),
                             a.A) for a in layer.aggregations)
    return LayerPlan(layer.C, layer.b, channels, _settled_columns(depths, level))


def layer_plans(network: Network) -> tuple[LayerPlan, ...]:
    """Every message-passing layer of `network` as a plan."""
    return tuple(layer_plan(network, level, layer)
                 for level, layer in enumerate(network.layers, start=1))


def keeps_compiled_layout(network: Network) -> bool:
    """Whether `network` has the layout that the fused and numba backends rely on when
    they run only the columns each layer settles: h⁽⁰⁾ is 0 in every column of depth
    > 0, and each layer ℓ, on the columns of depth < ℓ (the only ones not 0 in its
    input), carries those columns unchanged (`C_ii = 1`, nothing else into them, bias 0)
    and sends nothing into the columns of depth > ℓ (bias ≤ 0: they stay 0).

    Every compiled network has it (and `gracr.fuzz.pad_layers` keeps it); a network
    whose weights were replaced after compiling, such as a randomisation control
    (`gracr.explainers.randomisation`), has not, and only the full layers compute it."""
    depths = np.array([column.depth for column in network.columns], dtype=np.int64)
    deeper = depths > 0
    if np.any(np.diff(depths) < 0) or np.any(network.input_matrix[:, deeper]) or np.any(network.input_bias[deeper] > 0):
        return False
    # The depths ascend, so at each level the settled columns are a prefix and the later
    # ones a suffix: slices (views), where index arrays would copy every block.
    for level, layer in enumerate(network.layers, start=1):
        settled = int(np.searchsorted(depths, level, side="left"))
        later = int(np.searchsorted(depths, level, side="right"))
        carried = layer.C[:settled, :settled]
        if np.any(carried != np.eye(settled, dtype=carried.dtype)) \
                or np.any(layer.C[:settled, later:]) \
                or any(np.any(a.A[:settled, :settled]) or np.any(a.A[:settled, later:])
                       for a in layer.aggregations) \
                or np.any(layer.b[:settled]) or np.any(layer.b[later:] > 0):
            return False
    return True


def message_layers(network: Network) -> IntArray:
    """The (0-based) layers that pass messages: the ones an edge can matter in."""
    return np.array([index for index, plan in enumerate(layer_plans(network))
                     if plan.sends_messages], dtype=np.int64)


def target_cone(network: Network, edge_index: npt.ArrayLike, target: int,
                edge_type: npt.ArrayLike | None = None
                ) -> tuple[list[IntArray], list[IntArray]]:
    """What the output at node `target` reads, at every layer boundary ℓ = 0 … L:
    `rows[ℓ]`, the nodes (ascending) whose layer-ℓ state it depends on, and
    `columns[ℓ]`, the columns of that state it reads. `rows[L]` is the target and
    `columns[L]` the output column; going down, a layer that passes messages adds
    the sources of the edges into its rows that one of its non-zero channels sums
    over (whether or not the needed columns read that channel: a superset, which the
    cone module handles exactly), and
    every layer needs the input columns its needed output columns read through C or
    an A (a carried column reads itself)."""
    sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)
    rows = [np.array([target], dtype=np.int64)]
    columns = [np.array([network.output_column], dtype=np.int64)]
    for plan in reversed(layer_plans(network)):
        heard = rows[0]
        wanted = columns[0]
        admitted = plan.admitted(types, sources.shape[0])
        if admitted.any():
            heard = np.union1d(heard, sources[admitted & np.isin(targets, heard)])
        reads = np.any(plan.C[:, wanted] != 0, axis=1)
        for channel in plan.channels:
            reads |= np.any(channel.A[:, wanted] != 0, axis=1)
        rows.insert(0, heard)
        columns.insert(0, np.flatnonzero(reads).astype(np.int64))
    return rows, columns



@dataclass(frozen=True)
class ConeSubgraph:
    """The subgraph that the nodes of a target's cone induce (`cone_subgraph`).

    `nodes` are its nodes (ascending, whole-graph ids), `edge_index` its `[2, E']` edges
    in local ids, `edges` the whole-graph positions of those edges (ascending, so the
    edge order is kept), `target` the target's local id.
    """

    nodes: IntArray
    edge_index: IntArray
    edges: IntArray
    target: int


def cone_subgraph(network: Network, edge_index: npt.ArrayLike, target: int,
                  edge_type: npt.ArrayLike | None = None) -> ConeSubgraph:
    """The subgraph induced by `rows[0]` of `target_cone`: the target's output on it is
    its output on the whole graph, and so is every state of the cone (each one's
    in-edges that a channel sums over come from the cone's previous rows)."""
    sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    nodes = target_cone(network, edge_index, target, edge_type)[0][0]
    inside = np.isin(sources, nodes) & np.isin(targets, nodes)
    local = np.searchsorted(nodes, np.stack([sources[inside], targets[inside]]))
    return ConeSubgraph(nodes, local.astype(np.int64), np.flatnonzero(inside).astype(np.int64),
                        int(np.searchsorted(nodes, target)))


# ---------------------------------------------------------------- several networks at once


Entries = tuple[tuple[int, float], ...]
"""A weight column's non-zero entries as (fused column read, weight), ascending."""


EdgeTypes = tuple[int, ...] | None
"""The edges a fused channel sums over: those whose `edge_type` is one of these (None:
every edge)."""


@dataclass(frozen=True, eq=False)
class SettledBlock:
    """What one fused layer computes: the fused columns `[start, end)`, each the truncated
    ReLU of `H[:, c_rows] C + Σ_c Agg_c(H[:, a_rows_c]) A_c + b` over the columns settled
    before it. `channels` holds `(relations, a_rows, A)`, `Agg_c` summing over the edges
    of those relations (`EdgeTypes`)."""

    start: int
    end: int
    c_rows: IntArray
    C: Matrix
    b: Matrix
    channels: tuple[tuple[EdgeTypes, IntArray, Matrix], ...]


@dataclass(frozen=True, eq=False)
class FusedPlan:
    """Several compiled networks over one input layout, run as one (`fused_plan`).

    Fused column `g` holds one function of the graph; `columns[k][i]` is the fused
    column that holds column `i` of network `k`. The columns settled at the input are
    `[0, len(input_bias))`: σ(x[:, input_features] input_matrix + input_bias); each
    `SettledBlock` then settles the next run of columns, in order."""

    width: int
    input_features: IntArray
    input_matrix: Matrix
    input_bias: Matrix
    layers: tuple[SettledBlock, ...]
    columns: tuple[IntArray, ...]


_ColumnKey = tuple[Entries, tuple[tuple[EdgeTypes, Entries], ...], float]


def _entries(weights: Matrix, rows: IntArray, fused: IntArray) -> Entries:
    """The non-zero entries of one weight column among `rows`, by the fused column each
    row is held in (entries landing on one fused column add up: it holds one value)."""
    summed: dict[int, float] = {}
    for row in rows[weights[rows] != 0]:
        summed[int(fused[row])] = summed.get(int(fused[row]), 0.0) + float(weights[row])
    return tuple(sorted((g, w) for g, w in summed.items() if w != 0.0))


def fused_plan(networks: Sequence[Network]) -> FusedPlan:
    """One run of several networks: each layer's work done once for all of them.

    Why it is exact. In a network with the compiled layout (`keeps_compiled_layout`)
    column i of depth d is 0 before layer d, is written by layer d alone, as the truncated
    ReLU of a function of the columns of depth < d, and is carried unchanged by every
    later layer (C_ii = 1, nothing else into it, bias 0: σ(v) = v on its value v ∈ [0, 1]).
    So column i holds, from layer d on, one function of the graph, fixed by its weights
    at layer d (its input-map column and bias at d = 0) and by the functions of the
    columns they read. Columns are merged bottom-up by that key: two columns (of one
    network or of two) whose weights read the same fused columns with the same
    coefficients hold the same values, and are given one fused column. Every network's
    columns of depth d are settled by fused layer d, and a network with fewer layers
    simply has none in the later ones: its columns are carried as its own layers would
    carry them, so no padding layer is needed (the fused state never rewrites a settled
    column). The output of network k is then read at `columns[k]`.

    Its cost is one aggregation per relation and layer for all the networks, over the
    union of the columns they read, each shared column computed once (the 14 WOMBAT
    patterns: 911 columns in 274 layers alone, 622 in 50 together). The networks must
    share their input layout (schema and presence bit) and have the compiled layout."""
    if not networks:
        raise ValueError("fused_plan: no network")
    first = networks[0]
    for network in networks:
        if not keeps_compiled_layout(network):
            raise ValueError("the fused run computes only the columns each layer settles, "
                             "and a network's layers write others (it is not laid out as "
                             "compiled, e.g. a randomisation control): use CompiledModule")
        if network.schema != first.schema or network.presence != first.presence:
            raise ValueError("networks run as one must read one input layout (the same "
                             "schema and presence bit)")
    depths = [np.array([column.depth for column in n.columns], dtype=np.int64) for n in networks]
    fused = [np.full(n.width, -1, dtype=np.int64) for n in networks]
    plans = [layer_plans(n) for n in networks]
    levels = max(n.num_layers for n in networks)
    keys: dict[object, int] = {}
    # Level 0: the input map's columns, keyed by the features they read and their bias.
    features: dict[int, None] = {}
    input_keys: list[tuple[Entries, float]] = []
    identity = np.arange(first.input_matrix.shape[0], dtype=np.int64)
    for k, network in enumerate(networks):
        for i in np.flatnonzero(depths[k] == 0):
            column = network.input_matrix[:, i]
            input_key = (_entries(column, identity, identity), float(network.input_bias[i]))
            if input_key not in keys:
                keys[input_key] = len(input_keys)
                input_keys.append(input_key)
                features.update((f, None) for f, _ in input_key[0])
            fused[k][i] = keys[input_key]
    read = np.array(sorted(features), dtype=np.int64)
    position = {int(f): n for n, f in enumerate(read)}
    input_matrix = np.zeros((len(read), len(input_keys)), dtype=np.float32)
    input_bias = np.zeros(len(input_keys), dtype=np.float32)
    for g, (entries, bias) in enumerate(input_keys):
        for f, w in entries:
            input_matrix[position[f], g] = w
        input_bias[g] = bias
    width = len(input_keys)
    blocks: list[SettledBlock] = []
    for level in range(1, levels + 1):
        new: list[_ColumnKey] = []
        for k, network in enumerate(networks):
            if level > network.num_layers:
                continue
            plan = plans[k][level - 1]
            settled = np.flatnonzero(depths[k] < level)
            for i in np.flatnonzero(depths[k] == level):
                key: _ColumnKey = (
                    _entries(plan.C[:, i], settled, fused[k]),
                    _channels([(channel.relation, _entries(channel.A[:, i], settled, fused[k]))
                               for channel in plan.channels]),
                    float(plan.b[i]))
                if key not in keys:
                    keys[key] = width + len(new)
                    new.append(key)
                fused[k][i] = keys[key]
        if new:
            blocks.append(_settled_block(width, new))
            width += len(new)
    return FusedPlan(width, read, input_matrix, input_bias, tuple(blocks), tuple(fused))


def _channels(parts: list[tuple[int | None, Entries]]) -> tuple[tuple[EdgeTypes, Entries], ...]:
    """A column's aggregations, those of typed relations with the same weights merged:
    Σ_r Agg_r(h) A = Agg_{r1, r2, …}(h) A, the relations' edges being disjoint (one type
    per edge). A relation filter `{single, aromatic}` then costs one aggregation, not two.
    The aggregation over every edge (None) stays apart: it holds the typed edges too."""
    merged: dict[Entries, list[int]] = {}
    result: list[tuple[EdgeTypes, Entries]] = []
    for relation, entries in parts:
        if not entries:
            continue
        if relation is None:
            result.append((None, entries))
        else:
            merged.setdefault(entries, []).append(relation)
    result += [(tuple(sorted(relations)), entries) for entries, relations in merged.items()]
    return tuple(sorted(result, key=lambda part: (part[0] is not None, part[0] or (), part[1])))


def _settled_block(start: int, columns: list[_ColumnKey]) -> SettledBlock:
    """The block settling the fused columns `start, start + 1, …` of these keys."""
    c_rows = np.array(sorted({g for c, _, _ in columns for g, _ in c}), dtype=np.int64)
    C = np.zeros((len(c_rows), len(columns)), dtype=np.float32)
    b = np.zeros(len(columns), dtype=np.float32)
    relations = list(dict.fromkeys(r for _, channels, _ in columns for r, _ in channels))
    a_rows = {r: np.array(sorted({g for _, channels, _ in columns for s, e in channels
                                  if s == r for g, _ in e}), dtype=np.int64) for r in relations}
    A = {r: np.zeros((len(a_rows[r]), len(columns)), dtype=np.float32) for r in relations}
    for j, (c_entries, channels, bias) in enumerate(columns):
        for g, w in c_entries:
            C[np.searchsorted(c_rows, g), j] = w
        for r, entries in channels:
            for g, w in entries:
                A[r][np.searchsorted(a_rows[r], g), j] = w
        b[j] = bias
    return SettledBlock(start, start + len(columns), c_rows, C, b,
                        tuple((r, a_rows[r], A[r]) for r in relations))
