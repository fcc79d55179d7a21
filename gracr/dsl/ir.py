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
from fractions import Fraction
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterable, Iterator, TypeVar, Union, dataclass_transform

from gracr.errors import Span

_T = TypeVar("_T")
_N = TypeVar("_N")


@dataclass_transform(frozen_default=True)
def frozen_node(cls: type[_T]) -> type[_T]:
    """A frozen dataclass whose hash is computed once, when the node is built.

    IR trees are hashed constantly (deduplication, memo tables) and can be deep (the
    expansion of Eq. 6 nests 50 clauses under every comparison). A node is built after
    its children, so its hash is a hash of the children's stored hashes: never a walk
    of the tree, whatever its depth. Equality looks at the stored hashes first, and a
    node pickles as its constructor call, so the hash is recomputed in the process that
    unpickles it (string hashes differ between processes).
    """
    def __post_init__(self: Any) -> None:
        object.__setattr__(self, "_hash", field_hash(self))

    cls.__post_init__ = __post_init__  # type: ignore[attr-defined]
    built = dataclass(frozen=True)(cls)
    field_hash: Callable[[Any], int] = built.__hash__
    field_eq: Callable[[Any, Any], bool] = built.__eq__
    names = tuple(f.name for f in fields(built))  # type: ignore[arg-type]

    def __hash__(self: Any) -> int:
        value: int = self._hash
        return value

    def __eq__(self: Any, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return False
        if self._hash != other._hash:  # type: ignore[attr-defined]
            return False
        return field_eq(self, other)

    def __reduce__(self: Any) -> tuple[Any, tuple[Any, ...]]:
        return type(self), tuple(getattr(self, name) for name in names)

    built.__hash__ = __hash__  # type: ignore[method-assign]
    built.__eq__ = __eq__  # type: ignore[method-assign]
    built.__reduce__ = __reduce__  # type: ignore[method-assign]
    # Its subformulas, for `children`: the fields declared `Formula` (one) or
    # `tuple[Formula, ...]` (several), in declaration order; so a node class added
    # elsewhere (a connective of `gracr.dsl.operators`) walks like the built-in ones.
    built._subformula_fields = tuple(  # type: ignore[attr-defined]
        (f.name, f.type == "tuple[Formula, ...]") for f in fields(built)  # type: ignore[arg-type]
        if f.type in ("Formula", "tuple[Formula, ...]"))
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


# The comparison operators of threshold atoms (all but `=`) and linear count sentences.
COMPARISONS = (">", ">=", "<", "<=", "=")


@frozen_node
class Threshold:
    """A threshold atom over a node's numeric features: `Σ_i a_i · x_{f_i}  op  bound`.

    `features[i]` is the name of feature f_i and `columns[i]` its position in the
    program's `features` line (where a graph's `"features"` lists hold it);
    `coefficients[i]` is a_i, exact rationals (the decimals as written), none zero.
    `op` is one of `>`, `>=`, `<`, `<=`. A feature value is a fixed property of its
    node, like a colour: removing nodes or edges never changes it.
    """

    features: tuple[str, ...]
    columns: tuple[int, ...]
    coefficients: tuple[Fraction, ...]
    op: str
    bound: Fraction
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


@frozen_node
class CountCompare:
    """A linear count sentence: `Σ_i c_i · count(f_i)  op  bound`, `count(f)` being the
    number of nodes of the graph that satisfy the node formula f.

    `coefficients[i]` is c_i and `bound` the constant, exact rationals (decimals as
    written: `0.3` is 3/10), no coefficient zero; `op` is one of `COMPARISONS`.
    `count(engaged) > 0.3 * count(tumour)` is `((1, -3/10), (engaged, tumour), ">", 0)`.
    """

    coefficients: tuple[Fraction, ...]
    args: tuple[Formula, ...]
    op: str
    bound: Fraction
    span: Span = _span()


def compares(op: str, value: Fraction | int, bound: Fraction | int) -> bool:
    """`value op bound` for one of `COMPARISONS`, exactly."""
    match op:
        case ">":
            return value > bound
        case ">=":
            return value >= bound
        case "<":
            return value < bound
        case "<=":
            return value <= bound
        case "=":
            return value == bound
    raise ValueError(f"unknown comparison {op!r}")


Formula = Union[
    Top, Bottom, Color, Attribute, Threshold, Not, And, Or, Implies, Iff,
    AtLeast, AtMost, Exactly, Between, Box, More, Same, Exists, CountCompare,
]

COUNTING_MODALITIES = (AtLeast, AtMost, Exactly, Between, Box)
COMPARATIVE_MODALITIES = (More, Same)


class Kind(enum.Enum):
    """Whether a formula is evaluated at a node or on the whole graph."""

    NODE = "node"
    GRAPH = "graph"


def children(formula: Formula) -> tuple[Formula, ...]:
    """The direct subformulas of `formula`, left to right."""
    try:
        spec: tuple[tuple[str, bool], ...] = formula._subformula_fields  # type: ignore[union-attr]
    except AttributeError:
        raise TypeError(f"not a formula: {formula!r}") from None
    if len(spec) == 1 and not spec[0][1]:
        return (getattr(formula, spec[0][0]),)
    kids: list[Formula] = []
    for name, several in spec:
        value = getattr(formula, name)
        if several:
            kids.extend(value)
        else:
            kids.append(value)
    return tuple(kids)


def postorder(roots: Iterable[_N], children_of: Callable[[_N], Iterable[_N]]) -> list[_N]:
    """The distinct nodes under `roots`, each after its children: the order of a
    recursive depth-first walk that visits children left to right and skips what it
    has seen, walked with an explicit stack (no recursion, whatever the depth).

    One walk for every pass over a formula DAG: a subformula shared through `let` is
    visited once, so no pass is exponential in the nesting of shared names."""
    order: list[_N] = []
    seen: set[_N] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[_N, Iterator[_N]]] = [(root, iter(children_of(root)))]
        while stack:
            node, pending = stack[-1]
            for child in pending:
                if child not in seen:
                    seen.add(child)
                    stack.append((child, iter(children_of(child))))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


def modal_depth(formula: Formula) -> int:
    """The deepest nesting of modalities: the number of hops the formula looks at."""
    depth: dict[Formula, int] = {}
    for sub in postorder([formula], children):
        below = max((depth[child] for child in children(sub)), default=0)
        depth[sub] = below + 1 if isinstance(sub, COUNTING_MODALITIES + COMPARATIVE_MODALITIES) \
            else below
    return depth[formula]


def nesting(formula: Formula) -> int:
    """The deepest nesting of operators (atoms 0): what `gracr.limits.MAX_NESTING` bounds."""
    depth: dict[Formula, int] = {}
    for sub in postorder([formula], children):
        kids = children(sub)
        depth[sub] = 1 + max(depth[child] for child in kids) if kids else 0
    return depth[formula]


def colors_used(formula: Formula) -> frozenset[str]:
    """The colour atoms occurring in `formula`."""
    return frozenset(sub.name for sub in postorder([formula], children) if isinstance(sub, Color))


def subformulas(formula: Formula) -> frozenset[Formula]:
    """Every subformula of `formula`, itself included."""
    return frozenset(postorder([formula], children))
