"""Core IR -> column schedule -> the weights of Eq. 2 (numpy).

One hidden column per distinct subformula, in canonical order: by depth, then by
first appearance left to right (post-order, so arguments come before the
formulas that contain them). Colours get a column only when the formula uses
them, `true` only when used. Layer ℓ carries forward every column of depth < ℓ
(`C_ii = 1`) and evaluates the columns of depth ℓ by Table 1 / Eq. 7 / Eq. 8; the
columns of depth > ℓ stay 0 until their layer.

A graph classifier adds a readout, not counted as a layer: sum-pool the hidden
columns, threshold the counts (`CNodeCount`), then evaluate the Boolean
combination of sentences with the same gates, one dense layer per depth.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.compiler.core import (
    AGGREGATIONS, COUNTS, CAll, CAnd, CAtLeast, CAttribute, CBottom, CColor, CLinear, CMore,
    CNodeCount, CNot, COr, Core, CPresent, CThreshold, CTop, core_children, core_depth,
)
from gracr.data.schema import Schema
from gracr.dsl.ir import Relations, postorder

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Schedule:
    """The hidden columns: `columns[i]` is the subformula column `i` computes."""

    columns: tuple[Core, ...]
    depths: tuple[int, ...]

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def num_layers(self) -> int:
        return max(self.depths, default=0)

    def index(self, formula: Core) -> int:
        return self.columns.index(formula)


def schedule(roots: tuple[Core, ...], *, stop_at_node_count: bool = False) -> Schedule:
    """Distinct subformulas of `roots`, ordered by depth, then first post-order appearance.

    With `stop_at_node_count`, `CNodeCount` and `CLinear` are leaves (the readout's atoms)
    and their node formulas are not part of this schedule.
    """
    def below(formula: Core) -> tuple[Core, ...]:
        if stop_at_node_count and isinstance(formula, COUNTS):
            return ()
        return core_children(formula)

    order = postorder(roots, below)
    depth_memo: dict[Core, int] = {}
    depths = {f: core_depth(f, depth_memo) for f in order}
    ranked = sorted(range(len(order)), key=lambda i: (depths[order[i]], i))
    columns = tuple(order[i] for i in ranked)
    return Schedule(columns, tuple(depths[f] for f in columns))


@dataclass(frozen=True)
class Aggregation:
    """One aggregation of a layer: `Agg_r(h) A`, summing `h_s` over the edges (s, t) of
    relation `relation` (`None`: every edge)."""

    relation: str | None
    A: Matrix


@dataclass(frozen=True)
class Layer:
    """One message-passing layer of Eq. 2 with typed edges:
    h' = σ(h C + Σ_r Agg_r(h) A_r + b), one `Aggregation` per relation its columns
    filter on, plus the unfiltered one (`relation=None`). A column filtered by a set of
    relations {r1, r2} writes its weights into A_r1 and A_r2: Agg_{r1,r2} = Agg_r1 + Agg_r2.
    An untyped program has just the unfiltered aggregation, as in the paper."""

    C: Matrix
    aggregations: tuple[Aggregation, ...]
    b: Vector


@dataclass(frozen=True)
class DenseLayer:
    """One readout layer: r' = σ(r W + b), on the pooled graph vector."""

    W: Matrix
    b: Vector


def input_map(schedule_: Schedule, schema: Schema, presence: bool = False,
              delta: float = 1e-3) -> tuple[Matrix, Vector]:
    """h⁽⁰⁾ = σ(x P + p): copies each used colour, attribute value and the presence bit
    to its column; `true` is the constant 1; a threshold atom `a·x > b` (`CThreshold`)
    is σ((a·x − b)/δ), `a·x ≥ b` is σ((a·x − b)/δ + 1), with δ = `delta`.

    Realises the initialisation of §4.1: coordinate i is 1 exactly when φ_i is an
    atom satisfied at the node (for a threshold atom: on every node outside its margin).
    The paper's map is linear, h⁽⁰⁾ = x P + p; σ changes nothing on its Boolean inputs
    and is what makes a threshold of real-valued features a unit (ours). The rows of P
    follow `x`'s layout (`gracr.data.schema`).
    """
    P = np.zeros((schema.num_features + (1 if presence else 0), schedule_.width),
                 dtype=np.float32)
    p = np.zeros(schedule_.width, dtype=np.float32)
    for i, formula in enumerate(schedule_.columns):
        if isinstance(formula, CColor):
            P[schema.palette.index(formula.name), i] = 1.0
        elif isinstance(formula, CAttribute):
            P[schema.attribute_column(formula.family, formula.value), i] = 1.0
        elif isinstance(formula, CPresent):
            P[schema.num_features, i] = 1.0
        elif isinstance(formula, CThreshold):
            for coefficient, feature in zip(formula.coefficients, formula.features):
                P[schema.feature_column(feature), i] = float(coefficient) / delta
            p[i] = -float(formula.bound) / delta + (0.0 if formula.strict else 1.0)
        elif isinstance(formula, CTop):
            p[i] = 1.0
    return P, p


def _emit_gate(formula: Core, i: int, index: dict[Core, int],
               C: Matrix, b: Vector) -> None:
    """The combine-side weights of column i (Table 1 rows 1–2, Eq. 7).

    ¬φ_k: C_ki = −1, b_i = 1.  φ_j ∧ φ_k (and the flat n-ary ∧ of Eq. 7): C_ki = 1 for
    every argument, b_i = −(n − 1).  Flat n-ary ∨ (Eq. 7): C_ki = 1, b_i = 0.
    Repeated arguments add up, which keeps each gate exact on Boolean inputs.
    """
    match formula:
        case CNot(arg):
            C[index[arg], i] -= 1.0
            b[i] = 1.0
        case CAnd(args):
            for arg in args:
                C[index[arg], i] += 1.0
            b[i] = -(len(args) - 1)
        case COr(args):
            for arg in args:
                C[index[arg], i] += 1.0
            b[i] = 0.0
        case _:
            raise TypeError(f"no gate for {formula!r}")


def _emit_aggregation(formula: Core, i: int, index: dict[Core, int],
                      A: Matrix, b: Vector) -> None:
    """The aggregate-side weights of column i (Table 1 row 3, Eq. 8, our flat box), into
    the aggregation matrix `A` of each relation the modality counts.

    ◇≥N φ_k: A_ki = 1, b_i = 1 − N.  ◇>(φ_j, φ_k) (Eq. 8): A_ji = 1, A_ki = −1, b_i = 0.
    □φ_k (flat, ours): A_ki = 1, A_ui = −1, b_i = 1, i.e. count(φ_k) − count(u) + 1 with u
    the column of `true` (the in-degree) or of the presence bit.
    """
    match formula:
        case CAtLeast(count, arg):
            A[index[arg], i] += 1.0
            b[i] = 1.0 - count
        case CMore(left, right):
            A[index[left], i] += 1.0
            A[index[right], i] -= 1.0
            b[i] = 0.0
        case CAll(arg, _, unit):
            A[index[arg], i] += 1.0
            A[index[unit], i] -= 1.0
            b[i] = 1.0
        case _:
            raise TypeError(f"no aggregation for {formula!r}")


def layer_relations(schedule_: Schedule, relations: tuple[str, ...]) -> tuple[str | None, ...]:
    """The aggregations every layer holds: the unfiltered one if any modality is
    unfiltered, then each relation some filter names, in declaration order."""
    filters: set[Relations] = {f.relations for f in schedule_.columns
                               if isinstance(f, AGGREGATIONS)}
    named = {r for f in filters if f is not None for r in f}
    unfiltered: tuple[str | None, ...] = (None,) if None in filters or not filters else ()
    return unfiltered + tuple(r for r in relations if r in named)


def weights_bytes(hidden: Schedule, aggregations: int, features: int,
                  readout: Schedule | None = None) -> int:
    """The bytes of float32 weights a network of these schedules holds, known before any
    is allocated: the input map (`features` × width), each layer's C, its
    `aggregations` A matrices and b, and the readout's dense layers."""
    width = hidden.width
    total = features * width + width
    total += hidden.num_layers * ((1 + aggregations) * width * width + width)
    if readout is not None:
        total += width * readout.width + readout.width
        total += readout.num_layers * (readout.width * readout.width + readout.width)
    return 4 * total


def message_passing_layers(schedule_: Schedule, relations: tuple[str, ...] = ()
                           ) -> tuple[Layer, ...]:
    """Layers 1..L of Eq. 2: carry-forward (C_ii = 1 for depth < ℓ), then Table 1 at depth ℓ.

    Every layer holds the same aggregations (`layer_relations`), most of them zero
    outside the layers whose modalities use them.
    """
    d = schedule_.width
    index = {f: i for i, f in enumerate(schedule_.columns)}
    kinds = layer_relations(schedule_, relations)
    layers: list[Layer] = []
    for level in range(1, schedule_.num_layers + 1):
        C = np.zeros((d, d), dtype=np.float32)
        A = {kind: np.zeros((d, d), dtype=np.float32) for kind in kinds}
        b = np.zeros(d, dtype=np.float32)
        for i, (formula, depth) in enumerate(zip(schedule_.columns, schedule_.depths)):
            if depth < level:
                C[i, i] = 1.0
            elif depth == level:
                if isinstance(formula, AGGREGATIONS):
                    for kind in (formula.relations or (None,)):
                        _emit_aggregation(formula, i, index, A[kind], b)
                else:
                    _emit_gate(formula, i, index, C, b)
        layers.append(Layer(C, tuple(Aggregation(kind, A[kind]) for kind in kinds), b))
    return tuple(layers)


def readout_layers(readout: Schedule, hidden: Schedule) -> tuple[DenseLayer, ...]:
    """The graph readout: thresholds of the pooled counts, then the sentence gates.

    First layer: for `CNodeCount(k, φ)`, W_{φ,i} = 1 and b_i = 1 − k, so the unit is
    σ(m − k + 1) with m the number of nodes satisfying φ (§4.1's σ(m − N + 1) for
    ∃^[N,∞]); for `CLinear` (ours), W_{φ_j,i} = k_j and b_i = its bias, σ(Σ k_j m_j + bias);
    a constant `true` gets b_i = 1. Later layers: carry-forward and the
    gates of Table 1 / Eq. 7 on the pooled vector (no aggregation).
    """
    r = readout.width
    index = {f: i for i, f in enumerate(readout.columns)}
    first_W = np.zeros((hidden.width, r), dtype=np.float32)
    first_b = np.zeros(r, dtype=np.float32)
    for i, formula in enumerate(readout.columns):
        if isinstance(formula, CNodeCount):
            first_W[hidden.index(formula.arg), i] = 1.0
            first_b[i] = 1.0 - formula.count
        elif isinstance(formula, CLinear):
            for weight, arg in zip(formula.weights, formula.args):
                first_W[hidden.index(arg), i] += float(weight)
            first_b[i] = float(formula.bias)
        elif isinstance(formula, CTop):
            first_b[i] = 1.0
        elif isinstance(formula, CBottom):
            first_b[i] = 0.0
    layers = [DenseLayer(first_W, first_b)]
    for level in range(1, readout.num_layers + 1):
        W = np.zeros((r, r), dtype=np.float32)
        b = np.zeros(r, dtype=np.float32)
        for i, (formula, depth) in enumerate(zip(readout.columns, readout.depths)):
            if depth < level:
                W[i, i] = 1.0
            elif depth == level:
                _emit_gate(formula, i, index, W, b)
        layers.append(DenseLayer(W, b))
    return tuple(layers)


def node_count_predicates(readout: Schedule) -> tuple[Core, ...]:
    """The node formulas the readout counts, in readout column order (no repeats)."""
    predicates: list[Core] = []
    for formula in readout.columns:
        counted = (formula.arg,) if isinstance(formula, CNodeCount) else \
            formula.args if isinstance(formula, CLinear) else ()
        predicates.extend(arg for arg in counted if arg not in predicates)
    return tuple(predicates)
