"""The typed surface IR of a `.gml` program.

Every node is a frozen dataclass that keeps the source span it came from. Spans
are excluded from equality and hashing, so two occurrences of the same subformula
compare equal: this is what lets later stages share (deduplicate) subformulas.

The surface IR keeps every derived operator of the language (`|`, `->`, `exactly`,
`more`, ...) so that the reference evaluator can interpret each one by its own
meaning; desugaring into the core of Eq. 1 happens later, in
`gracr.compiler.desugar`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar, Union, dataclass_transform

from gracr.errors import Span

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def frozen_node(cls: type[_T]) -> type[_T]:
    """A frozen dataclass whose hash is computed once.

    IR trees are hashed constantly (deduplication, memo tables) and can be deep (the
    expansion of Eq. 6 nests 50 clauses under every comparison): the default
    dataclass hash walks the whole tree each time.
    """
    built = dataclass(frozen=True)(cls)
    field_hash: Callable[[Any], int] = built.__hash__

    def cached_hash(self: Any) -> int:
        try:
            value: int = self.__dict__["_hash"]
        except KeyError:
            value = field_hash(self)
            object.__setattr__(self, "_hash", value)
        return value

    built.__hash__ = cached_hash  # type: ignore[method-assign]
    return built


NO_SPAN = Span("<generated>", 0, 0, 0, 0)


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, hash=False, repr=False)


# ---------------------------------------------------------------- node formulas

# A modality's relation filter: the relations of the edges it counts, in declaration
# order, or `None` for every edge (no filter written).
Relations = tuple[str, ...] | None


@frozen_node
class Top:
    span: Span = _span()


@frozen_node
class Bottom:
    span: Span = _span()


@frozen_node
class Color:
    name: str
    span: Span = _span()


@frozen_node
class Attribute:
    """`family=value`: the node's value in the one-hot attribute family `family`."""

    family: str
    value: str
    span: Span = _span()


@frozen_node
class Not:
    arg: Formula
    span: Span = _span()


@frozen_node
class And:
    left: Formula
    right: Formula
    span: Span = _span()


@frozen_node
class Or:
    left: Formula
    right: Formula
    span: Span = _span()


@frozen_node
class Implies:
    left: Formula
    right: Formula
    span: Span = _span()


@frozen_node
class Iff:
    left: Formula
    right: Formula
    span: Span = _span()


@frozen_node
class AtLeast:
    """`<N> f`, `atleast N f`, `<> f`: at least `count` in-neighbours satisfy `arg`."""

    count: int
    arg: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class AtMost:
    count: int
    arg: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class Exactly:
    count: int
    arg: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class Between:
    """Between `low` and `high` in-neighbours (inclusive) satisfy `arg`."""

    low: int
    high: int
    arg: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class Box:
    """`[] f`: every in-neighbour satisfies `arg` (true at a node without any)."""

    arg: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class More:
    """`more(f, g)`: strictly more in-neighbours satisfy `left` than `right`."""

    left: Formula
    right: Formula
    relations: Relations = None
    span: Span = _span()


@frozen_node
class Same:
    """`same(f, g)`: as many in-neighbours satisfy `left` as `right`."""

    left: Formula
    right: Formula
    relations: Relations = None
    span: Span = _span()


# ---------------------------------------------------------------- graph sentences


@frozen_node
class Exists:
    """`exists[low, high] f`: between `low` and `high` nodes satisfy `arg`.

    `high is None` stands for `inf`.
    """

    low: int
    high: int | None
    arg: Formula
    span: Span = _span()


Formula = Union[
    Top, Bottom, Color, Attribute, Not, And, Or, Implies, Iff,
    AtLeast, AtMost, Exactly, Between, Box, More, Same, Exists,
]

BINARY_BOOLEAN = (And, Or, Implies, Iff)
COUNTING_MODALITIES = (AtLeast, AtMost, Exactly, Between, Box)
COMPARATIVE_MODALITIES = (More, Same)


class Kind(enum.Enum):
    """Whether a formula is evaluated at a node or on the whole graph."""

    NODE = "node"
    GRAPH = "graph"


def children(formula: Formula) -> tuple[Formula, ...]:
    """The direct subformulas of `formula`, left to right."""
    match formula:
        case Top() | Bottom() | Color() | Attribute():
            return ()
        case Not(arg) | AtLeast(_, arg) | AtMost(_, arg) | Exactly(_, arg):
            return (arg,)
        case Between(_, _, arg) | Box(arg) | Exists(_, _, arg):
            return (arg,)
        case And(a, b) | Or(a, b) | Implies(a, b) | Iff(a, b) | More(a, b) | Same(a, b):
            return (a, b)
    raise TypeError(f"not a formula: {formula!r}")


def modal_depth(formula: Formula) -> int:
    """The deepest nesting of modalities: the number of hops the formula looks at."""
    below = max((modal_depth(child) for child in children(formula)), default=0)
    is_modal = isinstance(formula, COUNTING_MODALITIES + COMPARATIVE_MODALITIES)
    return below + 1 if is_modal else below


def colors_used(formula: Formula) -> frozenset[str]:
    """The colour atoms occurring in `formula`."""
    if isinstance(formula, Color):
        return frozenset({formula.name})
    used: frozenset[str] = frozenset()
    for child in children(formula):
        used |= colors_used(child)
    return used


def subformulas(formula: Formula) -> frozenset[Formula]:
    """Every subformula of `formula`, itself included."""
    found: set[Formula] = set()
    stack = [formula]
    while stack:
        current = stack.pop()
        if current not in found:
            found.add(current)
            stack.extend(children(current))
    return frozenset(found)
