"""Surface IR -> core IR: every derived connective rewritten into the core (App. C.2).

Two independent switches (`CompileOptions`):

`disjunction`
    `"demorgan"` (the paper's main setting): `f | g` is `!(!f & !g)`, binary and
    left-nested as parsed, every double negation kept; `f -> g` is `!(f & !g)`;
    `f <-> g` is `(f -> g) & (g -> f)`; `[] f` is `!<1> !f`. Conjunctions stay binary.
    `"flat"`: the n-ary gates of Eq. 7. Nested conjunctions (and disjunctions) are
    flattened into one gate each, with repeated arguments dropped; `f -> g` is the
    gate `!f | g`; `f <-> g` is `(!f | g) & (!g | f)`. `[] f` is our own flat gate
    `CAll` (weights `A[f] = 1, A[true] = -1, b = 1`: count(f) - degree + 1 > 0), so
    that, like the flat disjunction, it puts no negation on any path. This gate is
    an extension: the paper only gives the De Morgan form of `[]`.

`comparison`
    `"expanded"` (the paper's main setting): `more(f, g)` is Eq. 6 with the bound
    `max_degree`, its disjunction always one flat gate, so it costs 4 layers
    whatever the bound; `same(f, g)` is the variant of App. C.2 (clauses
    `=m f & =m g`, from m = 0). Both are exact when `max_degree` is at least the
    largest in-degree of the graph.
    `"direct"`: `more(f, g)` is the single aggregation of Eq. 8; `same(f, g)` is
    `!more(f, g) & !more(g, f)`.

The counting modalities follow App. C.2 in both settings: `atmost n f` is
`!<n+1> f`; `exactly n f` is `<n> f & !<n+1> f` (`!<1> f` for n = 0);
`between n m f` is `<n> f & !<m+1> f` (`!<m+1> f` for n = 0); `<0> f` is `true`.

Relation filters ride along: a filtered modality becomes the same core gate with the
same `relations`, and each clause of a derived one (`exactly{r} 2 f`, Eq. 6 for
`more{r}`) keeps the filter, so every count it compares is over the same edges.

`presence` (off by default): every node formula φ becomes `present ∧ φ'`, applied to
every subformula (`present_everywhere`), with `true` read as `present` and the flat
box counting present neighbours. A node whose features are zeroed then computes 0 in
every column, so it sends no message and leaves every `exists` count: it behaves as a
deleted node. This costs a layer per modal level; without it the paper's shapes hold.

`readout` (graph classifiers): how the nodes' values of a counted formula f are pooled
into the graph vector — `"threshold"` (ours, the default) sums them, `"max"` takes
their maximum (WOMBAT's r1, Eq. 3), `"soft-or"` takes 1 − Π_v (1 − h_v) (WOMBAT's r2,
Eq. 4, the continuous De Morgan OR); the weights are the same under all three
(`gracr.compiler.weights.readout_layers`, `gracr.executor`). The last two decide "some
node satisfies f", so they need every count of the sentence to be `CNodeCount(1, f)`:
`exists f`, `exists[0, 0] f` and Boolean combinations of them.

Graph sentences: `exists[lo, hi] f` is `CNodeCount(lo, f) & !CNodeCount(hi+1, f)`
(Algorithm 5's `C_lo & !C_{hi+1}`), a side dropped when `lo = 0` or `hi = inf`;
Boolean combinations of sentences follow the `disjunction` switch like node ones.

Extensions of the paper (ours):

- A linear count sentence `Σ c_i · count(f_i) op b` is scaled by the common
  denominator D of its rationals to integers `k_i = D c_i`, `K = D b`, and becomes one
  readout unit `CLinear` that fires when `Σ k_i m_i + bias ≥ 1`: `>` is bias `−K`,
  `>=` is `1 − K`, `<` and `<=` negate the weights (bias `K`, `K + 1`), `=` is the
  conjunction of `>=` and `<=`. Integer counts make σ of it exactly 0 or 1.
- A threshold atom `a·x op b` over numeric features is `CThreshold` (`<` and `<=` as
  `−a·x > −b` and `−a·x ≥ −b`), compiled into the input map as σ((a·x − b)/δ)
  (`≥`: σ((a·x − b)/δ + 1)), exact on every node whose `a·x` lies outside the margin
  `(b, b + δ)` (`(b − δ, b)` for `≥`); `delta` is the compile option δ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Literal

from gracr.compiler.core import (
    CAll, CAnd, CAtLeast, CAttribute, CBottom, CColor, CLinear, CMore, CNodeCount, CNot, COr,
    Core, CPresent, CThreshold, CTop, core_children,
)
from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.dsl.operators import CONNECTIVES, Algebra, Operators
from gracr.errors import GracrError

Disjunction = Literal["demorgan", "flat"]
Comparison = Literal["expanded", "direct"]
Readout = Literal["threshold", "max", "soft-or"]
READOUTS: tuple[Readout, ...] = ("threshold", "max", "soft-or")
# δ of the threshold atoms' σ((a·x − b)/δ): the compile option `delta`'s default.
DEFAULT_DELTA = 1e-3


@dataclass(frozen=True)
class CompileOptions:
    """How derived connectives are compiled. `max_degree` bounds Eq. 6 (`expanded`)."""

    disjunction: Disjunction = "demorgan"
    comparison: Comparison = "expanded"
    max_degree: int | None = None
    presence: bool = False
    readout: Readout = "threshold"
    delta: float = DEFAULT_DELTA

    def __post_init__(self) -> None:
        if self.disjunction not in ("demorgan", "flat"):
            raise GracrError(f"disjunction must be 'demorgan' or 'flat', got {self.disjunction!r}")
        if self.comparison not in ("expanded", "direct"):
            raise GracrError(f"comparison must be 'expanded' or 'direct', got {self.comparison!r}")
        if self.max_degree is not None and self.max_degree < 0:
            raise GracrError(f"max_degree must not be negative, got {self.max_degree}")
        if not isinstance(self.presence, bool):
            raise GracrError(f"presence must be True or False, got {self.presence!r}")
        if self.readout not in READOUTS:
            raise GracrError(f"readout must be 'threshold', 'max' or 'soft-or', got "
                             f"{self.readout!r}")
        if isinstance(self.delta, bool) or not isinstance(self.delta, (int, float)) or \
                not math.isfinite(self.delta) or self.delta <= 0:
            raise GracrError(f"delta (the margin of threshold atoms) must be a positive "
                             f"number, got {self.delta!r}")


def uses_comparison(formula: Formula) -> bool:
    """Whether `formula` contains `more` or `same` (so `expanded` needs `max_degree`)."""
    return any(isinstance(sub, (ir.More, ir.Same)) for sub in ir.postorder([formula], ir.children))


@dataclass(frozen=True)
class Desugarer:
    """Rewrites surface formulas into the core under `options` (see the module doc).

    One instance per compilation: its memo makes equal subformulas one object.
    """

    options: CompileOptions
    # One core object per distinct surface subformula: equal subformulas become the
    # identical object, so later equality tests stop at `is`.
    memo: dict[Formula, Core] = field(default_factory=dict)
    present_memo: dict[Core, Core] = field(default_factory=dict)
    sentence_memo: dict[Formula, Core] = field(default_factory=dict)
    operators: Operators = field(default_factory=lambda: CONNECTIVES)

    @property
    def flat(self) -> bool:
        return self.options.disjunction == "flat"

    def conj(self, *args: Core) -> Core:
        """A conjunction: binary as given, or one flat gate with nested gates spliced."""
        if not self.flat:
            return CAnd(args)
        spliced: list[Core] = []
        for arg in args:
            for part in (arg.args if isinstance(arg, CAnd) else (arg,)):
                if part not in spliced:
                    spliced.append(part)
        return CAnd(tuple(spliced))

    def disj(self, *args: Core) -> Core:
        """A disjunction: De Morgan (binary, left-nested) or one flat gate (Eq. 7)."""
        if not self.flat:
            result = args[0]
            for arg in args[1:]:
                result = CNot(CAnd((CNot(result), CNot(arg))))
            return result
        spliced: list[Core] = []
        for arg in args:
            for part in (arg.args if isinstance(arg, COr) else (arg,)):
                if part not in spliced:
                    spliced.append(part)
        return COr(tuple(spliced))

    def implies(self, a: Core, b: Core) -> Core:
        if self.flat:
            return self.disj(CNot(a), b)
        return CNot(CAnd((a, CNot(b))))

    def at_least(self, count: int, arg: Core, relations: ir.Relations = None) -> Core:
        return CTop() if count == 0 else CAtLeast(count, arg, relations)

    def exactly(self, count: int, arg: Core, relations: ir.Relations = None) -> Core:
        if count == 0:
            return CNot(CAtLeast(1, arg, relations))
        return self.conj(CAtLeast(count, arg, relations),
                         CNot(CAtLeast(count + 1, arg, relations)))

    def bound(self) -> int:
        if self.options.max_degree is None:
            raise GracrError(
                "comparison='expanded' needs max_degree (the bound n of Eq. 6, exact when it is "
                "at least the largest in-degree); pass max_degree=N (CLI: --max-degree N), "
                "or use comparison='direct'")
        return self.options.max_degree

    def more(self, a: Core, b: Core, relations: ir.Relations = None) -> Core:
        if self.options.comparison == "direct":
            return CMore(a, b, relations)
        # Eq. 6: some threshold m is met by the a-neighbours and missed by the b-ones;
        # the disjunction is always one flat gate (App. C.2), whatever the switch.
        clauses = tuple(CAnd((CAtLeast(m, a, relations), CNot(CAtLeast(m, b, relations))))
                        for m in range(1, self.bound() + 1))
        return COr(clauses)

    def same(self, a: Core, b: Core, relations: ir.Relations = None) -> Core:
        if self.options.comparison == "direct":
            return self.conj(CNot(CMore(a, b, relations)), CNot(CMore(b, a, relations)))
        clauses = tuple(self.conj(self.exactly(m, a, relations), self.exactly(m, b, relations))
                        for m in range(0, self.bound() + 1))
        return COr(clauses)

    def node(self, formula: Formula) -> Core:
        """The core of a node formula (under `presence`, conjoined with the presence bit
        at every subformula)."""
        core = self.plain(formula)
        return self.present_everywhere(core) if self.options.presence else core

    def plain(self, formula: Formula) -> Core:
        if formula not in self.memo:
            self.memo[formula] = self._node(formula)
        return self.memo[formula]

    def present_everywhere(self, formula: Core) -> Core:
        """`present ∧ φ` at every subformula φ (see the module docstring), `true` as `present`."""
        for sub in ir.postorder([formula], core_children):
            if sub not in self.present_memo:
                self.present_memo[sub] = self._present(sub)
        return self.present_memo[formula]

    def _present(self, formula: Core) -> Core:
        """`present_everywhere` of `formula`, its children's already made."""
        p = self.present_memo.__getitem__
        present = CPresent()
        match formula:
            case CTop():
                return present
            case CBottom():
                return formula
            case CColor() | CAttribute() | CThreshold():
                return CAnd((present, formula))
            case CNot(arg):
                return CAnd((present, CNot(p(arg))))
            case CAnd(args):
                return CAnd(tuple(p(a) for a in args))
            case COr(args):
                return COr(tuple(p(a) for a in args))
            case CAtLeast(count, arg, relations):
                return CAnd((present, CAtLeast(count, p(arg), relations)))
            case CMore(a, b, relations):
                return CAnd((present, CMore(p(a), p(b), relations)))
            case CAll(arg, relations):
                return CAnd((present, CAll(p(arg), relations, present)))
        raise TypeError(f"not a node formula: {formula!r}")

    def _node(self, formula: Formula) -> Core:
        match formula:
            case ir.Top():
                return CTop()
            case ir.Bottom():
                return CBottom()
            case ir.Color(name):
                return CColor(name)
            case ir.Attribute(family, value):
                return CAttribute(family, value)
            case ir.Threshold(features, _, coefficients, op, bound):
                if op in ("<", "<="):
                    coefficients, bound = tuple(-c for c in coefficients), -bound
                return CThreshold(features, coefficients, op in (">", "<"), bound)
            case connective if type(connective) in self.operators:
                return self._connective(formula, self.plain)
            case ir.AtLeast(k, arg, relations):
                return self.at_least(k, self.plain(arg), relations)
            case ir.AtMost(k, arg, relations):
                return CNot(CAtLeast(k + 1, self.plain(arg), relations))
            case ir.Exactly(k, arg, relations):
                return self.exactly(k, self.plain(arg), relations)
            case ir.Between(low, high, arg, relations):
                inner = self.plain(arg)
                if low == 0:
                    return CNot(CAtLeast(high + 1, inner, relations))
                return self.conj(CAtLeast(low, inner, relations),
                                 CNot(CAtLeast(high + 1, inner, relations)))
            case ir.Box(arg, relations):
                inner = self.plain(arg)
                if self.flat:
                    return CAll(inner, relations)
                return CNot(CAtLeast(1, CNot(inner), relations))
            case ir.More(a, b, relations):
                return self.more(self.plain(a), self.plain(b), relations)
            case ir.Same(a, b, relations):
                return self.same(self.plain(a), self.plain(b), relations)
        raise TypeError(f"not a node formula: {formula!r}")

    def sentence(self, formula: Formula) -> Core:
        """A graph sentence as a readout circuit over `CNodeCount` atoms."""
        if formula not in self.sentence_memo:
            self.sentence_memo[formula] = self._sentence(formula)
        return self.sentence_memo[formula]

    def _sentence(self, formula: Formula) -> Core:
        match formula:
            case ir.Exists(low, high, arg):
                predicate = self.node(arg)
                parts: list[Core] = []
                if low > 0:
                    parts.append(CNodeCount(low, predicate))
                if high is not None:
                    parts.append(CNot(CNodeCount(high + 1, predicate)))
                if not parts:
                    return CTop()
                return parts[0] if len(parts) == 1 else self.conj(*parts)
            case ir.CountCompare(coefficients, args, op, bound):
                return self.linear(coefficients, args, op, bound)
            case connective if type(connective) in self.operators:
                return self._connective(formula, self.sentence)
        raise TypeError(f"not a graph sentence: {formula!r}")

    def _connective(self, formula: Formula, argument: Callable[[Formula], Core]) -> Core:
        """A connective's compile rule: its meaning over core circuits (`neg`, `conj`,
        `disj`, `implies`, `iff` below), its arguments desugared by `argument`."""
        meaning = self.operators[type(formula)].meaning
        algebra: Algebra[Core] = self
        core: Core = meaning(algebra, *map(argument, ir.children(formula)))
        return core

    def neg(self, a: Core) -> Core:
        return CNot(a)

    def iff(self, a: Core, b: Core) -> Core:
        return self.conj(self.implies(a, b), self.implies(b, a))


    def linear(self, coefficients: tuple[Fraction, ...], args: tuple[Formula, ...], op: str,
               bound: Fraction) -> Core:
        """`Σ c_i count(args_i) op bound` as `CLinear` units (see the module docstring)."""
        scale = math.lcm(*(c.denominator for c in (*coefficients, bound)))
        weights: dict[Core, int] = {}
        for c, arg in zip(coefficients, args):
            predicate = self.node(arg)
            weights[predicate] = weights.get(predicate, 0) + int(c * scale)
        terms = {p: k for p, k in weights.items() if k}
        target = int(bound * scale)

        def unit(sign: int, bias: int) -> Core:
            if not terms:
                return CTop() if bias >= 1 else CBottom()
            return CLinear(tuple(sign * k for k in terms.values()), tuple(terms), bias)

        at_least = unit(1, 1 - target)      # Σ k m ≥ K
        at_most = unit(-1, target + 1)      # Σ k m ≤ K
        match op:
            case ">":
                return unit(1, -target)
            case ">=":
                return at_least
            case "<":
                return unit(-1, target)
            case "<=":
                return at_most
            case "=":
                return self.conj(at_least, at_most)
        raise TypeError(f"unknown comparison {op!r}")


def desugar(formula: Formula, kind: ir.Kind, options: CompileOptions) -> Core:
    """The core formula computing the same classifier as `formula` under `options`."""
    desugarer = Desugarer(options)
    if kind is ir.Kind.GRAPH:
        return desugarer.sentence(formula)
    return desugarer.node(formula)
