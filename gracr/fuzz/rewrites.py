"""Semantics-preserving rewrites: equivalent models of one classifier (App. C.3–C.5).

The paper's implementation-invariance experiments (App. C.3: the comparative of
Eq. 6 vs Eq. 8; App. C.5: De Morgan's `|` vs the flat gate of Eq. 7, and a second
formula for RedBlueLeaf) compare explainers on *logically equivalent* compiled
GNNs. This module generalises them into a library of rewrites, grouped in the
families that `gracrc fuzz --rewrites` names:

`disjunction`
    the compile option `flat` (Eq. 7) instead of `demorgan` (App. C.2): label
    `flat`, offered only when the De Morgan core really has a gate to change.
`comparison`
    the compile option `direct` (Eq. 8) instead of `expanded` (Eq. 6), offered only
    when the formula uses `more`/`same` (label `direct`); and, at IR level, the
    counting expansions of App. C.2 (label `expand-counting`):
    `exactly n f -> <n> f & !<n+1> f` (`!<1> f` for n = 0),
    `between l h f -> <l> f & !<h+1> f` (`!<h+1> f` for l = 0),
    `atmost n f -> !<n+1> f`, `[] f -> !<1> !f`, and for graph sentences
    `exists[l, h] f -> exists[l, inf] f & !exists[h+1, inf] f`.
    The issue names only five families, so we file the counting expansions
    under `comparison`: they, too, trade a counting construct for thresholds.
`negation`
    insert a double negation around a subformula (`double-negation`), remove an
    existing one (`remove-double-negation`), and the surface De Morgan laws
    (`de-morgan`: `!(a & b) <-> !a | !b`, `!(a | b) <-> !a & !b`,
    `a & b <-> !(!a | !b)`, `a | b <-> !(!a & !b)`).
`association`
    re-associate `(a & b) & c <-> a & (b & c)` (same for `|`; `reassociate`) and
    swap the operands of `&`, `|`, `<->`, `same` (`swap`).
`padding`
    identity message-passing layers (C = I, A = 0, b = 0: every value in {0, 1} is
    a fixed point of σ = clamp(·, 0, 1)) at the end (`pad-end-1`) and at the start
    (`pad-start-2`): the depth changes, the function does not.

User-given alternative formulas (`alt:FILE`, family `alternative`, e.g. the φ∧ and
φ∨ of Eq. 10 and Eq. 11) are not derived but checked: `equivalent_on`.

Two models count as equivalent on a graph only if their classifiers agree on
*every* subgraph of it (every subset of its edges): their ROBDDs over the edge
variables (§4.3) are the same function, which also makes their UPI equal.

Each positional rewrite picks its position with `random.Random` seeded by the run
seed and the rewrite's label, so a run is reproducible and the same rewrite can be
re-derived on a smaller formula while shrinking (`rederive`).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from gracr.bdd.backend import make_backend
from gracr.bdd.build import Builder
from gracr.executor.model import compile_program
from gracr.compiler.desugar import (
    CompileOptions, Comparison, Desugarer, Disjunction, uses_comparison,
)
from gracr.compiler.network import Column
from gracr.executor.model import CompiledGNN
from gracr.compiler.weights import Aggregation, Layer
from gracr.dsl import ir
from gracr.dsl.ir import Formula, Kind
from gracr.dsl.operators import CONNECTIVES, symmetric
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph

FAMILIES: tuple[str, ...] = ("disjunction", "comparison", "negation", "association", "padding")

Path = tuple[int, ...]


# ---------------------------------------------------------------- implementations


@dataclass(frozen=True)
class Implementation:
    """One model of a classifier: a formula, compile options and identity padding.

    `padding` identity layers are appended after the compiled stack and
    `padding_before` are inserted before it (both change the depth only).
    `program` keeps the base program's palette and kind.
    """

    label: str
    family: str
    program: Program
    disjunction: Disjunction = "demorgan"
    comparison: Comparison = "expanded"
    padding: int = 0
    padding_before: int = 0

    def compile(self, max_degree: int | None) -> CompiledGNN:
        """Compile with these options (Eq. 6's bound `max_degree` when it is needed),
        then pad."""
        needs_bound = self.comparison == "expanded" and uses_comparison(self.program.classifier)
        model = compile_program(self.program, disjunction=self.disjunction,
                                comparison=self.comparison,
                                max_degree=max_degree if needs_bound else None)
        return pad_layers(model, before=self.padding_before, after=self.padding)

    @property
    def identity(self) -> tuple[Formula, str, str, int, int]:
        """What makes two implementations the same model: (classifier, options, padding)."""
        return (self.program.classifier, self.disjunction, self.comparison, self.padding,
                self.padding_before)


def _identity_layer(model: CompiledGNN) -> Layer:
    """C = I, every aggregation of the model's layers present and zero, b = 0."""
    width = model.width
    relations = [a.relation for a in model.layers[0].aggregations] if model.layers else [None]
    zeros = tuple(Aggregation(relation, np.zeros((width, width), dtype=np.float32))
                  for relation in relations)
    return Layer(np.eye(width, dtype=np.float32), zeros, np.zeros(width, dtype=np.float32))


def pad_layers(model: CompiledGNN, before: int, after: int) -> CompiledGNN:
    """`model` with `before` identity layers in front of its stack and `after` behind it.

    An identity layer (C = I, A = 0, b = 0) maps h to σ(h) = h, since every coordinate
    of a compiled network is Boolean (Eq. 3) and σ fixes 0 and 1. In front, the
    columns not yet settled are 0 and stay 0, so every computed column is settled
    `before` layers later: its `depth` moves by `before` (atoms, depth 0, stay).
    Behind, every column is already settled and is carried unchanged.

    The forward pass is unchanged; the backward pass of Eq. 9 is not always: an
    identity unit has z = h, so a layer in front passes gradient only where an atom
    is 1, while the unpadded first layer reads every atom linearly. That is exactly
    the kind of implementation detail the fuzzer is meant to expose.
    """
    if before < 0 or after < 0:
        raise GracrError(f"padding must not be negative, got before={before}, after={after}")
    if before == 0 and after == 0:
        return model
    identity = _identity_layer(model)
    columns = tuple(column if column.depth == 0 else
                    Column(column.meaning, column.depth + before, column.name)
                    for column in model.columns)
    layers = (identity,) * before + model.layers + (identity,) * after
    return dataclasses.replace(model, layers=layers, columns=columns)


def same_weights(a: CompiledGNN, b: CompiledGNN) -> bool:
    """Whether two compiled models are the same network (same arrays, same output)."""
    if (a.kind, a.schema, a.presence, a.output_column, a.num_layers, len(a.readout)) != \
            (b.kind, b.schema, b.presence, b.output_column, b.num_layers, len(b.readout)):
        return False
    if [[g.relation for g in x.aggregations] for x in a.layers] != \
            [[g.relation for g in y.aggregations] for y in b.layers]:
        return False
    pairs = [(a.input_matrix, b.input_matrix), (a.input_bias, b.input_bias)]
    pairs += [(x.C, y.C) for x, y in zip(a.layers, b.layers)]
    pairs += [(g.A, k.A) for x, y in zip(a.layers, b.layers)
              for g, k in zip(x.aggregations, y.aggregations)]
    pairs += [(x.b, y.b) for x, y in zip(a.layers, b.layers)]
    pairs += [(x.W, y.W) for x, y in zip(a.readout, b.readout)]
    pairs += [(x.b, y.b) for x, y in zip(a.readout, b.readout)]
    return all(x.shape == y.shape and np.array_equal(x, y) for x, y in pairs)


# ---------------------------------------------------------------- positions in a formula


def with_children(formula: Formula, kids: Sequence[Formula]) -> Formula:
    """`formula` with its direct subformulas replaced by `kids` (same order as `children`)."""
    names = [f.name for f in dataclasses.fields(formula) if f.name in ("arg", "left", "right")]
    if len(names) != len(kids):
        raise TypeError(f"{type(formula).__name__} has {len(names)} children, not {len(kids)}")
    return dataclasses.replace(formula, **dict(zip(names, kids)))  # type: ignore[arg-type]


def positions(formula: Formula, kind: Kind) -> list[tuple[Path, Formula, Kind]]:
    """Every subformula with its path (child indices from the root) and its kind
    (a node formula, or a graph sentence), in pre-order."""
    found: list[tuple[Path, Formula, Kind]] = []

    def visit(path: Path, sub: Formula, here: Kind) -> None:
        found.append((path, sub, here))
        below = Kind.NODE if isinstance(sub, ir.Exists) else here
        for index, child in enumerate(ir.children(sub)):
            visit(path + (index,), child, below)

    visit((), formula, kind)
    return found


def replace_at(formula: Formula, path: Path, new: Formula) -> Formula:
    """`formula` with the subformula at `path` replaced by `new`."""
    if not path:
        return new
    kids = list(ir.children(formula))
    kids[path[0]] = replace_at(kids[path[0]], path[1:], new)
    return with_children(formula, kids)


Transform = Callable[[Formula, Kind], "Formula | None"]


def _rewrite_somewhere(formula: Formula, kind: Kind, rng: random.Random,
                       transform: Transform) -> Formula | None:
    """Apply `transform` at one position where it applies, chosen by `rng`."""
    candidates = []
    for path, sub, here in positions(formula, kind):
        new = transform(sub, here)
        if new is not None:
            candidates.append((path, new))
    if not candidates:
        return None
    path, new = rng.choice(candidates)
    return replace_at(formula, path, new)


# ---------------------------------------------------------------- the IR rewrites


def _double_negation(sub: Formula, kind: Kind) -> Formula | None:
    return ir.Not(ir.Not(sub))


def _remove_double_negation(sub: Formula, kind: Kind) -> Formula | None:
    if isinstance(sub, ir.Not) and isinstance(sub.arg, ir.Not):
        return sub.arg.arg
    return None


def _de_morgan(sub: Formula, kind: Kind) -> Formula | None:
    match sub:
        case ir.Not(ir.And(a, b)):
            return ir.Or(ir.Not(a), ir.Not(b))
        case ir.Not(ir.Or(a, b)):
            return ir.And(ir.Not(a), ir.Not(b))
        case ir.And(a, b):
            return ir.Not(ir.Or(ir.Not(a), ir.Not(b)))
        case ir.Or(a, b):
            return ir.Not(ir.And(ir.Not(a), ir.Not(b)))
    return None


def _reassociate(sub: Formula, kind: Kind) -> Formula | None:
    # (a ∘ b) ∘ c -> a ∘ (b ∘ c) first; a ∘ (b ∘ c) -> (a ∘ b) ∘ c otherwise.
    for gate in (ir.And, ir.Or):
        if isinstance(sub, gate):
            left, right = sub.left, sub.right
            if isinstance(left, gate):
                return gate(left.left, gate(left.right, right))
            if isinstance(right, gate):
                return gate(gate(left, right.left), right.right)
    return None


def _swap(sub: Formula, kind: Kind) -> Formula | None:
    connective = CONNECTIVES.get(type(sub))
    if connective is not None and symmetric(connective):
        a, b = ir.children(sub)
        return connective.build(b, a) if a != b else None
    match sub:
        case ir.Same(a, b) if a != b:
            return ir.Same(b, a)
    return None


def _expand_counting(sub: Formula, kind: Kind) -> Formula | None:
    """App. C.2's counting desugaring, written back into the surface IR."""
    match sub:
        case ir.AtMost(n, f):
            return ir.Not(ir.AtLeast(n + 1, f))
        case ir.Exactly(0, f):
            return ir.Not(ir.AtLeast(1, f))
        case ir.Exactly(n, f):
            return ir.And(ir.AtLeast(n, f), ir.Not(ir.AtLeast(n + 1, f)))
        case ir.Between(0, high, f):
            return ir.Not(ir.AtLeast(high + 1, f))
        case ir.Between(low, high, f):
            return ir.And(ir.AtLeast(low, f), ir.Not(ir.AtLeast(high + 1, f)))
        case ir.Box(f):
            return ir.Not(ir.AtLeast(1, ir.Not(f)))
        case ir.Exists(0, int(high), f):
            return ir.Not(ir.Exists(high + 1, None, f))
        case ir.Exists(low, int(high), f):
            return ir.And(ir.Exists(low, None, f), ir.Not(ir.Exists(high + 1, None, f)))
    return None


# label -> (family, transform)
FORMULA_REWRITES: dict[str, tuple[str, Transform]] = {
    "expand-counting": ("comparison", _expand_counting),
    "double-negation": ("negation", _double_negation),
    "remove-double-negation": ("negation", _remove_double_negation),
    "de-morgan": ("negation", _de_morgan),
    "reassociate": ("association", _reassociate),
    "swap": ("association", _swap),
}


def rewrite_rng(seed: int, label: str) -> random.Random:
    """The position chooser of rewrite `label` under run seed `seed` (str seeds are
    hashed deterministically by `random`)."""
    return random.Random(f"{seed}/{label}")


def _disjunction_matters(program: Program) -> bool:
    """Whether `flat` compiles a different core than `demorgan` (an OR/NOT-AND to change)."""
    def core(disjunction: Disjunction) -> object:
        desugarer = Desugarer(CompileOptions(disjunction, "expanded", 2))
        if program.kind is Kind.GRAPH:
            return desugarer.sentence(program.classifier)
        return desugarer.node(program.classifier)

    return core("demorgan") != core("flat")


def _base_label(label: str) -> str:
    return label.split("#", 1)[0]


def derive(label: str, program: Program, seed: int) -> Implementation | None:
    """The implementation called `label` of `program` under `seed`, or None when the
    rewrite does not apply to it. Labels `X#k` are the k-th draw of rewrite `X`."""
    base = _base_label(label)
    if base == "flat":
        if not _disjunction_matters(program):
            return None
        return Implementation(label, "disjunction", program, disjunction="flat")
    if base == "direct":
        if not uses_comparison(program.classifier):
            return None
        return Implementation(label, "comparison", program, comparison="direct")
    if base.startswith("pad-end-"):
        return Implementation(label, "padding", program, padding=int(base[len("pad-end-"):]))
    if base.startswith("pad-start-"):
        return Implementation(label, "padding", program,
                              padding_before=int(base[len("pad-start-"):]))
    if base in FORMULA_REWRITES:
        family, transform = FORMULA_REWRITES[base]
        rewritten = _rewrite_somewhere(program.classifier, program.kind,
                                       rewrite_rng(seed, label), transform)
        if rewritten is None or rewritten == program.classifier:
            return None
        return Implementation(label, family, dataclasses.replace(program, classifier=rewritten))
    raise GracrError(f"unknown rewrite '{label}'")


# The rewrites of each family, in the order implementations are listed.
FAMILY_REWRITES: dict[str, tuple[str, ...]] = {
    "disjunction": ("flat",),
    "comparison": ("direct", "expand-counting"),
    "negation": ("double-negation", "remove-double-negation", "de-morgan"),
    "association": ("reassociate", "swap"),
    "padding": ("pad-end-1", "pad-start-2"),
}
# Rewrites whose result depends on a drawn position: drawn `per_family` times.
POSITIONAL = frozenset(FORMULA_REWRITES)


def parse_families(text: str) -> tuple[str, ...]:
    """`all` or a comma list of families, in the order given."""
    if text.strip() == "all":
        return FAMILIES
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in FAMILIES]
    if unknown or not names:
        raise GracrError(f"unknown rewrite family '{', '.join(unknown) or text}'; choose from "
                         f"{', '.join(FAMILIES)} or 'all'")
    return names


def implementations(program: Program, families: Sequence[str], seed: int,
                    per_family: int = 1,
                    alternatives: Sequence[Implementation] = ()) -> tuple[Implementation, ...]:
    """The base implementation first, then each applicable rewrite of `families`
    (positional ones drawn `per_family` times: labels `X`, `X#2`, ...), then the
    `alternatives`, without two that are the same (classifier, options, padding)."""
    for family in families:
        if family not in FAMILIES:
            raise GracrError(f"unknown rewrite family '{family}'; choose from "
                             f"{', '.join(FAMILIES)}")
    result = [Implementation("base", "base", program)]
    seen = {result[0].identity}
    labels: list[str] = []
    for family in families:
        for label in FAMILY_REWRITES[family]:
            draws = per_family if label in POSITIONAL else 1
            labels += [label if k == 1 else f"{label}#{k}" for k in range(1, draws + 1)]
    candidates = [derive(label, program, seed) for label in labels] + list(alternatives)
    for candidate in candidates:
        if candidate is not None and candidate.identity not in seen:
            seen.add(candidate.identity)
            result.append(candidate)
    return tuple(result)


def rederive(implementation: Implementation, program: Program, seed: int) -> Implementation | None:
    """`implementation`'s rewrite applied to another (smaller) base `program`."""
    if implementation.family == "base":
        return Implementation("base", "base", program)
    if implementation.family == "alternative":
        return None  # a user's formula is fixed: it cannot follow the base
    return derive(implementation.label, program, seed)


def alternative(path: str, base: Program) -> Implementation:
    """The user's alternative formula in `path`, as an implementation of `base`."""
    import pathlib

    from gracr.dsl.parse import parse

    other = parse(pathlib.Path(path), filename=path)
    if other.kind is not base.kind:
        raise GracrError(f"{path}: a {other.kind.value} classifier cannot be an alternative to "
                         f"the {base.kind.value} classifier {base.filename}")
    return Implementation(f"alt:{path}", "alternative", other)


# ---------------------------------------------------------------- equivalence


def equivalent_on(a: Program, b: Program, graph: Graph, target: int | None) -> bool:
    """Whether `a` and `b` agree on every subgraph of `graph` (all nodes, any edges):
    their ROBDDs over the edge variables (BuildNode / BuildGraph, Algorithms 4–5),
    built in one manager, are the same function. Node classifiers are compared at
    `target`. Equal functions have equal UPI (Algorithm 1 reads only the function).
    """
    if a.kind is not b.kind:
        return False
    backend = make_backend("cudd")
    backend.declare_edges(range(graph.num_edges))
    diagrams = []
    for program in (a, b):
        builder = Builder(backend, graph)
        if program.kind is Kind.GRAPH:
            diagrams.append(builder.build_graph(program.classifier))
        else:
            if target is None:
                raise GracrError("a node classifier is compared at a target node")
            diagrams.append(builder.build_node(program.classifier, target))
    return backend.is_true(backend.iff(diagrams[0], diagrams[1]))
