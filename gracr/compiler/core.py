"""The core IR: what the compiler writes into weights.

Node level, the core of Eq. 1 (`CTop`, `CBottom`, `CColor`, `CNot`, `CAnd`,
`CAtLeast`) plus the gates the paper adds to it: the flat n-ary conjunction and
disjunction of Eq. 7 (`CAnd` with any number of arguments, `COr`) and the direct
comparative of Eq. 8 (`CMore`). `CAll` is our own flat gate for `[] f` (see
`gracr.compiler.desugar`). Graph level, the readout: `CNodeCount` (at least `k`
nodes satisfy a node formula) combined with the same Boolean gates.

Like the surface IR these are frozen dataclasses, so equal subformulas compare
equal and get one hidden column.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Union

from gracr.dsl.ir import Relations, frozen_node, postorder
from gracr.dsl.show import decimal


@frozen_node
class CTop:
    pass


@frozen_node
class CBottom:
    pass


@frozen_node
class CColor:
    name: str


@frozen_node
class CAttribute:
    """`family=value`: one column of the family's one-hot block of `x`."""

    family: str
    value: str


@frozen_node
class CThreshold:
    """`Σ_i a_i · x_{f_i} > bound` (`strict`) or `≥ bound` over the node's numeric features:
    `features[i]` named, `coefficients[i]` = a_i. `<` and `<=` arrive negated. Compiled
    into the input map as σ((a·x − b)/δ) (`gracr.compiler.weights.input_map`)."""

    features: tuple[str, ...]
    coefficients: tuple[Fraction, ...]
    strict: bool
    bound: Fraction


@frozen_node
class CPresent:
    """The presence bit: 1 at every node of the graph, 0 at a node whose features are
    zeroed (compile option `presence`)."""


@frozen_node
class CNot:
    arg: Core


@frozen_node
class CAnd:
    """Conjunction: binary (Table 1) or flat n-ary (Eq. 7)."""

    args: tuple[Core, ...]


@frozen_node
class COr:
    """The flat n-ary disjunction gate of Eq. 7."""

    args: tuple[Core, ...]


@frozen_node
class CAtLeast:
    """At least `count` in-neighbours satisfy `arg` (Table 1, third row), counting the
    in-edges of `relations` only when it is not `None`."""

    count: int
    arg: Core
    relations: Relations = None


@frozen_node
class CMore:
    """Strictly more in-neighbours satisfy `left` than `right` (Eq. 8)."""

    left: Core
    right: Core
    relations: Relations = None


@frozen_node
class CAll:
    """Every in-neighbour satisfies `arg`: count(arg) - count(unit) + 1 > 0 (our flat `[]`).

    `unit` is the column that holds at every node that counts: `true`, or the presence
    bit under the compile option `presence` (so a deleted neighbour is not waited for).
    """

    arg: Core
    relations: Relations = None
    unit: Core = CTop()


@frozen_node
class CNodeCount:
    """Readout atom: at least `count` nodes of the graph satisfy the node formula `arg`."""

    count: int
    arg: Core


@frozen_node
class CLinear:
    """Readout atom: `Σ_i k_i · count(args_i) + bias ≥ 1`, integer `k_i` and `bias` (a
    linear count sentence scaled by its common denominator, so that integer counts meet
    the truncated ReLU exactly: the unit is σ(Σ k_i m_i + bias))."""

    weights: tuple[int, ...]
    args: tuple[Core, ...]
    bias: int


Core = Union[CTop, CBottom, CColor, CAttribute, CThreshold, CPresent, CNot, CAnd, COr,
             CAtLeast, CMore, CAll, CNodeCount, CLinear]

ATOMS = (CTop, CBottom, CColor, CAttribute, CThreshold, CPresent)
# The readout's atoms: what it computes from the pooled node counts.
COUNTS = (CNodeCount, CLinear)
AGGREGATIONS = (CAtLeast, CMore, CAll)


def core_children(formula: Core) -> tuple[Core, ...]:
    match formula:
        case CTop() | CBottom() | CColor() | CAttribute() | CThreshold() | CPresent():
            return ()
        case CNot(arg) | CAtLeast(_, arg) | CNodeCount(_, arg):
            return (arg,)
        case CLinear(_, args):
            return args
        case CAll(arg, _, unit):
            # The flat box reads the in-degree off the neighbours' `true` (or presence) column.
            return (arg, unit)
        case CAnd(args) | COr(args):
            return args
        case CMore(a, b):
            return (a, b)
    raise TypeError(f"not a core formula: {formula!r}")


def core_depth(formula: Core, memo: dict[Core, int] | None = None) -> int:
    """The number of nested connectives: atoms 0, so a column of depth ℓ is settled at layer ℓ.

    For the readout, `CNodeCount` and `CLinear` are atoms of the readout circuit (depth 0
    there).
    """
    memo = {} if memo is None else memo

    def below(sub: Core) -> tuple[Core, ...]:
        return () if sub in memo or isinstance(sub, COUNTS) else core_children(sub)

    for sub in postorder([formula], below):
        if sub not in memo:
            memo[sub] = 0 if isinstance(sub, ATOMS + COUNTS) else \
                1 + max((memo[c] for c in core_children(sub)), default=0)
    return memo[formula]


def show_core(formula: Core, child_text: Callable[[Core], str] | None = None) -> str:
    """Readable text of a core formula, for column meanings and `gracrc inspect`.

    `child_text` renders the arguments (by default: in full, recursively); the
    compiler passes one that names long arguments by their column.
    """

    def _wrapped(argument: Core) -> str:
        text = show(argument)
        # A name or a column reference is one token and needs no parentheses.
        if isinstance(argument, (CAnd, COr)) and len(argument.args) > 1 and " " in text:
            return f"({text})"
        return text

    def show(argument: Core) -> str:
        return child_text(argument) if child_text is not None else show_core(argument)

    def filtered(relations: Relations) -> str:
        return "" if relations is None else "{" + ", ".join(relations) + "}"

    match formula:
        case CTop():
            return "true"
        case CBottom():
            return "false"
        case CColor(name):
            return name
        case CAttribute(family, value):
            return f"{family}={value}"
        case CThreshold(features, coefficients, strict, bound):
            terms = " + ".join(f"{decimal(c)}*{f}" for c, f in zip(coefficients, features))
            return f"{terms} {'>' if strict else '>='} {decimal(bound)}"
        case CPresent():
            return "present"
        case CNot(arg):
            return "!" + _wrapped(arg)
        case CAnd(args):
            return " & ".join(_wrapped(a) for a in args) if args else "true"
        case COr(args):
            return " | ".join(_wrapped(a) for a in args) if args else "false"
        case CAtLeast(k, arg, relations):
            return f"<{k}>{filtered(relations)} {_wrapped(arg)}"
        case CMore(a, b, relations):
            return f"more{filtered(relations)}({show(a)}, {show(b)})"
        case CAll(arg, relations, unit):
            suffix = "" if unit == CTop() else f" (over {show(unit)})"
            return f"[]{filtered(relations)} {_wrapped(arg)}{suffix}"
        case CNodeCount(k, arg):
            return f"exists[{k}, inf] {_wrapped(arg)}"
        case CLinear(weights, args, bias):
            terms = " + ".join(f"{k}*count({show(a)})" for k, a in zip(weights, args))
            return f"{terms} + {bias} >= 1"
    raise TypeError(f"not a core formula: {formula!r}")

