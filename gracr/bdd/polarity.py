"""How a formula's value moves when parts of the graph are added: a cheap syntactic check of monotonicity.

Read a node formula at a fixed node, or a sentence, as a function of the subgraph
`R`, with the variables `over` chooses (`gracr.bdd.build`): its edges, its nodes, or
both. It is

- `CONSTANT` when it does not depend on `R` at all,
- `INCREASING` when `R <= R'` implies `f(R) <= f(R')` (monotone),
- `DECREASING` when `R <= R'` implies `f(R) >= f(R')` (antitone),
- `MIXED` when this analysis cannot tell (it may still be monotone).

The rules only ever claim what holds on every graph, at every node. The central
one: `atleast N f` counts the present in-edges whose source satisfies `f`; adding an
edge never lowers that count when `f` is constant or increasing, so the modality is
increasing. `exists[lo, inf]` over an increasing predicate is increasing, and
`exists[0, hi]` over a decreasing one is increasing too (fewer nodes satisfy it as
edges are added): this is why the edge-cover classifier `exists[0, 0] !<1> true`
of App. D.4 is found monotone over edges.

Over nodes (or both) the same rules hold for node formulas: an in-edge `(u, v)` is
present iff `x_e & y_u & y_v`, which only grows as nodes or edges are added, and a
node formula at a present node is its edge-set function of the present edges; a
monotone function of a monotone one keeps its direction. Atoms at a node stay
constant. `exists` differs: it counts `f_v & y_v`, and adding a node adds it to the
count. That term is increasing when `f` is constant or increasing, and nothing can
be said otherwise, so `exists[0, 0] red` is constant over edges but decreasing over
nodes, and `exists[0, 0] !<1> true` (a decreasing predicate) is `MIXED`.

Why it matters (Algorithm 1): when the instance function `f` (or `!f` for a
negative instance) is increasing, Extend (Algorithm 2) returns `f` unchanged, since
every conjunct `f|x=1` is implied by `f`. When it is decreasing and true at `G`,
it is true on every subgraph of `G`, so it is the constant 1 and Extend again
returns it unchanged.
"""

from __future__ import annotations

import enum

from gracr.bdd.build import Over
from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.dsl.operators import CONNECTIVES, Connective, Operators, sign


class Polarity(enum.Enum):
    CONSTANT = "constant"
    INCREASING = "increasing"
    DECREASING = "decreasing"
    MIXED = "mixed"

    @property
    def flipped(self) -> Polarity:
        """The polarity of the negation."""
        return _FLIP[self]

    @property
    def is_monotone(self) -> bool:
        """Increasing, decreasing or constant: Extend leaves the function as it is."""
        return self is not Polarity.MIXED

    def join(self, other: Polarity) -> Polarity:
        """The polarity of a conjunction or disjunction of the two."""
        if self is other or other is Polarity.CONSTANT:
            return self
        if self is Polarity.CONSTANT:
            return other
        return Polarity.MIXED


_FLIP = {
    Polarity.CONSTANT: Polarity.CONSTANT,
    Polarity.INCREASING: Polarity.DECREASING,
    Polarity.DECREASING: Polarity.INCREASING,
    Polarity.MIXED: Polarity.MIXED,
}

_CONSTANT = Polarity.CONSTANT
_UP = Polarity.INCREASING
_DOWN = Polarity.DECREASING
_MIXED = Polarity.MIXED


def _at_least(count: int, arg: Polarity) -> Polarity:
    """`atleast count f` from the polarity of `f`."""
    if count == 0:
        return _CONSTANT
    return _UP if arg in (_CONSTANT, _UP) else _MIXED


def _connective(connective: Connective, kids: list[Polarity]) -> Polarity:
    """A connective's polarity from its arguments': each moves it as its `sign` says
    (an argument it reads both ways leaves it mixed unless that argument is constant)."""
    result = _CONSTANT
    for position, kid in enumerate(kids):
        direction = sign(connective, position)
        if direction == 1:
            result = result.join(kid)
        elif direction == -1:
            result = result.join(kid.flipped)
        elif direction is None and kid is not _CONSTANT:
            result = _MIXED
    return result


def polarity(formula: Formula, over: Over = "edges",
             memo: dict[Formula, Polarity] | None = None,
             operators: Operators = CONNECTIVES) -> Polarity:
    """The polarity of `formula` in the variables `over` chooses (see the module docstring)."""
    memo = {} if memo is None else memo
    known = memo.get(formula)
    if known is None:
        kids = [polarity(child, over, memo, operators) for child in ir.children(formula)]
        connective = operators.get(type(formula))
        known = memo[formula] = _connective(connective, kids) if connective is not None \
            else _polarity(formula, kids, over)
    return known


def _polarity(formula: Formula, kids: list[Polarity], over: Over) -> Polarity:
    match formula:
        case ir.Top() | ir.Bottom() | ir.Color() | ir.Attribute() | ir.Threshold():
            return _CONSTANT
        case ir.CountCompare(coefficients, _, op):
            # Each node's term moves the sum with its coefficient's sign; `<` and `<=`
            # hold as the sum falls, `=` either way.
            direction = _CONSTANT
            for c, kid in zip(coefficients, kids):
                term = kid if over == "edges" else (_UP if kid in (_CONSTANT, _UP) else _MIXED)
                direction = direction.join(term if c > 0 else term.flipped)
            if op == "=":
                return _CONSTANT if direction is _CONSTANT else _MIXED
            return direction.flipped if op in ("<", "<=") else direction
        case ir.AtLeast(count):
            return _at_least(count, kids[0])
        case ir.AtMost(count):
            return _at_least(count + 1, kids[0]).flipped
        case ir.Exactly(count):
            # `exactly 0 f` = `atmost 0 f`; with a positive count it can go either way
            return _at_least(1, kids[0]).flipped if count == 0 else _MIXED
        case ir.Between(low, high):
            # `between 0 hi f` = `atmost hi f`
            return _at_least(high + 1, kids[0]).flipped if low == 0 else _MIXED
        case ir.Box():
            # `[] f` = `!<1> !f`
            return _at_least(1, kids[0].flipped).flipped
        case ir.More() | ir.Same():
            return _MIXED
        case ir.Exists(low, high):
            if high is None and low == 0:
                return _CONSTANT  # "at least no node" always holds
            # The polarity of each node's term in the count: `f_v` over edges,
            # `f_v & y_v` once nodes can be deleted.
            if over == "edges":
                term = kids[0]
            else:
                term = _UP if kids[0] in (_CONSTANT, _UP) else _MIXED
            if term is _CONSTANT:
                return _CONSTANT
            if high is None:  # "at least low nodes": moves with the terms
                return term
            if low == 0:  # "at most high nodes": moves against them
                return term.flipped
            return _MIXED
    raise TypeError(f"not a formula: {formula!r}")

