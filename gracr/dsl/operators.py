"""The language's connectives, one entry each: arity, printing and meaning.

Every stage that meets a connective (the evaluator, the printer, the BDD builder,
polarity, the compiler's desugarer, the rewrites) looks it up here instead of naming
it, so a new connective is one `Connective` in a table. Its meaning is written once,
over an `Algebra`: the Boolean operations of whatever values a stage computes with
(NumPy arrays of node values, Python bools, BDDs, compiler circuits). What each stage
needs beyond the meaning (is it monotone in an argument? does its first argument alone
decide it? is it symmetric?) is read off its truth table (`truth`), so it cannot
disagree with the meaning.

The atoms, modalities and graph sentences are not connectives: each has a rule of its
own in every stage.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable, Mapping, Protocol, TypeVar

from gracr.dsl import ir
from gracr.dsl.ir import Formula

T = TypeVar("T")

# Binding strength, loosest first, as in the grammar (`gracr/grammars/gml.lark`).
IFF, IMPLIES, OR, AND, COMPARE, PREFIX = 1, 2, 3, 4, 5, 6


class Algebra(Protocol[T]):
    """The Boolean operations over one stage's values."""

    def neg(self, a: T) -> T: ...
    def conj(self, a: T, b: T) -> T: ...
    def disj(self, a: T, b: T) -> T: ...
    def implies(self, a: T, b: T) -> T: ...
    def iff(self, a: T, b: T) -> T: ...


@dataclass(frozen=True)
class Connective:
    """One connective. `node` is its IR class, built as `node(*arguments)`; its
    arguments are the node's children (`ir.children`), `arity` of them.

    Printing: a unary connective is `symbol` before its argument (at `PREFIX`), a
    binary one `symbol` between its arguments; `level` is its binding strength, and
    `sides[i]` the strength below which argument i is parenthesised.

    `meaning(algebra, *arguments)` is its value over `algebra`'s values."""

    name: str
    node: type
    arity: int
    symbol: str
    level: int
    sides: tuple[int, ...]
    meaning: Callable[..., Any]

    def build(self, *arguments: Formula) -> Formula:
        node: Formula = self.node(*arguments)
        return node


Operators = Mapping[type, Connective]


class BoolAlgebra:
    """Python bools: a graph sentence's value."""

    def neg(self, a: bool) -> bool:
        return not a

    def conj(self, a: bool, b: bool) -> bool:
        return a and b

    def disj(self, a: bool, b: bool) -> bool:
        return a or b

    def implies(self, a: bool, b: bool) -> bool:
        return (not a) or b

    def iff(self, a: bool, b: bool) -> bool:
        return a == b


BOOLS: Algebra[bool] = BoolAlgebra()


def truth(connective: Connective, *arguments: bool) -> bool:
    """The connective's value on Boolean arguments."""
    return bool(connective.meaning(BOOLS, *arguments))


@cache
def decided_by_first(connective: Connective, first: bool) -> bool | None:
    """The connective's value when its first argument is `first`, whatever the others
    (`False & _` is False), or None when the others matter: lets a stage skip building
    the other arguments."""
    values = {truth(connective, first, *rest)
              for rest in itertools.product((False, True), repeat=connective.arity - 1)}
    return values.pop() if len(values) == 1 else None


@cache
def sign(connective: Connective, position: int) -> int | None:
    """How the value moves as argument `position` goes from false to true, the others
    fixed: 1 never down, -1 never up, 0 never at all, None either way."""
    ups = downs = False
    for rest in itertools.product((False, True), repeat=connective.arity - 1):
        low = truth(connective, *rest[:position], False, *rest[position:])
        high = truth(connective, *rest[:position], True, *rest[position:])
        ups, downs = ups or (high and not low), downs or (low and not high)
    return None if ups and downs else 1 if ups else -1 if downs else 0


@cache
def symmetric(connective: Connective) -> bool:
    """Whether swapping the two arguments of a binary connective keeps its value."""
    return connective.arity == 2 and all(
        truth(connective, a, b) == truth(connective, b, a)
        for a, b in itertools.product((False, True), repeat=2))


CONNECTIVES: Operators = {
    connective.node: connective for connective in (
        Connective("not", ir.Not, 1, "!", PREFIX, (PREFIX,),
                   lambda algebra, a: algebra.neg(a)),
        Connective("and", ir.And, 2, " & ", AND, (AND, COMPARE),
                   lambda algebra, a, b: algebra.conj(a, b)),
        Connective("or", ir.Or, 2, " | ", OR, (OR, AND),
                   lambda algebra, a, b: algebra.disj(a, b)),
        Connective("implies", ir.Implies, 2, " -> ", IMPLIES, (OR, IMPLIES),
                   lambda algebra, a, b: algebra.implies(a, b)),
        Connective("iff", ir.Iff, 2, " <-> ", IFF, (IFF, IMPLIES),
                   lambda algebra, a, b: algebra.iff(a, b)),
    )
}
