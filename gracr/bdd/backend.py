"""ROBDD engines: the operations Algorithms 1–5 need, as one `Protocol`, and two adapters.

`BDDBackend` names every operation the build (Algorithms 4 and 5) and the
extraction (Algorithms 1–3) perform on diagrams. Two adapters satisfy it, both
over the `dd` package: `CuddBackend` (the Cython binding of CUDD, the default)
and `AutorefBackend` (dd's pure-Python engine, the fallback and cross-check).

A variable (`Var`) says whether one part of the graph is kept in a subgraph: `x_e`
for the directed edge at position `e` of the edge list (named `e0`, `e1`, ...) and
`y_v` for node `v` (named `n0`, `n1`, ...), when the explanation is over nodes.
Variables are declared in the order they are given, which is the static variable
order (§4.3: "variables are ordered by edge index"). With `reorder=True` the engine
may permute levels at any time (dynamic sifting), so nothing here keeps a
variable<->level map: variables are only ever addressed by name.

Every manager has a node budget (`max_nodes`; `MAX_BDD_NODES` by default), so that
an instance whose diagram explodes stops with `DiagramTooLarge` instead of exhausting
the machine's memory. CUDD enforces it while it computes, as a hard memory limit of
`BYTES_PER_NODE` per budgeted node above a floor for its tables (it refuses the
operation that would pass it), and `check_budget` counts the live nodes exactly
after each stage (Build, Extend) of Algorithm 1: CUDD's count walks every variable's
table (17 ms with 6400 variables), too slow to take after each operation. The
pure-Python engine counts after every operation (its count is a dictionary's length).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Mapping, Protocol, TypeVar

from gracr.errors import GracrError

F = TypeVar("F")

BackendName = Literal["cudd", "autoref"]
BACKENDS: tuple[BackendName, ...] = ("cudd", "autoref")

MAX_BDD_NODES = 5 * 10**7   # the default node budget of one manager (`--max-bdd-nodes`)
# CUDD's hard memory limit per budgeted node: a node is 32 bytes, plus its share of the
# unique table and the computed table.
BYTES_PER_NODE = 96
MEMORY_FLOOR = 2**26        # CUDD's tables for the variables and the computed table


class DiagramTooLarge(GracrError):
    """A diagram outgrew the manager's node budget."""

    def __init__(self, max_nodes: int) -> None:
        super().__init__(f"the ROBDD outgrew its budget of {max_nodes:,} nodes "
                         "(--max-bdd-nodes); raise the budget if the machine has the memory, "
                         "or shrink the instance")
        self.max_nodes = max_nodes


EDGE_PREFIX, NODE_PREFIX = "e", "n"   # the engines' names of x_e and y_v: e3, n3


@dataclass(frozen=True, order=True)
class Var:
    """One Boolean variable: `x_e` (`kind="edge"`, edge `e` kept) or `y_v` (`kind="node"`).

    Edge variables sort before node variables, each kind by index.
    """

    kind: Literal["edge", "node"]
    index: int

    @classmethod
    def edge(cls, edge: int) -> Var:
        return cls("edge", int(edge))

    @classmethod
    def node(cls, node: int) -> Var:
        return cls("node", int(node))

    @property
    def name(self) -> str:
        """The name the engines know it by: `e3` for edge 3, `n3` for node 3."""
        return (EDGE_PREFIX if self.kind == "edge" else NODE_PREFIX) + str(self.index)

    @classmethod
    def named(cls, name: str) -> Var:
        """The inverse of `name`."""
        return cls("edge" if name[0] == EDGE_PREFIX else "node", int(name[1:]))


class BDDBackend(Protocol[F]):
    """A manager of ROBDDs over edge and node variables; `F` is its function handle type."""

    @property
    def name(self) -> str:
        """`"cudd"` or `"autoref"`."""
        ...

    @property
    def true(self) -> F: ...

    @property
    def false(self) -> F: ...

    def declare(self, variables: Iterable[Var]) -> None:
        """Declare the variables, in the order given (the static order)."""
        ...

    def declare_edges(self, edges: Iterable[int]) -> None:
        """Declare one variable per edge, in the order given."""
        ...

    def var(self, variable: Var) -> F:
        """The diagram of one declared variable."""
        ...

    def edge_var(self, edge: int) -> F:
        """The variable `x_e`: 1 when edge `e` is kept in the subgraph."""
        ...

    def node_var(self, node: int) -> F:
        """The variable `y_v`: 1 when node `v` is kept in the subgraph."""
        ...

    def conj(self, a: F, b: F) -> F: ...

    def disj(self, a: F, b: F) -> F: ...

    def neg(self, a: F) -> F: ...

    def iff(self, a: F, b: F) -> F: ...

    def restrict(self, f: F, values: Mapping[Var, bool]) -> F:
        """`f|v=b` for every `v: b` in `values` (Bryant's Restrict)."""
        ...

    def value_all_true(self, f: F) -> bool:
        """`f(1, ..., 1)`: the value of `f` with every variable set to 1."""
        ...

    def is_false(self, f: F) -> bool: ...

    def is_true(self, f: F) -> bool: ...

    def support(self, f: F) -> frozenset[Var]:
        """The variables `f` depends on."""
        ...

    def dag_size(self, f: F) -> int:
        """Nodes of the diagram of `f`, terminal included."""
        ...

    def top_level(self, f: F) -> int:
        """The level of the first variable `f` reads (0: the top of the order); a
        constant's lies below every variable's."""
        ...

    def live_nodes(self) -> int:
        """Nodes the manager currently holds for referenced functions."""
        ...

    def check_budget(self) -> None:
        """Raise `DiagramTooLarge` if the manager holds more nodes than its budget."""
        ...


class _DdBackend:
    """The operations shared by both `dd` engines, which expose the same interface."""

    _manager: Any
    _name: str

    def __init__(self, manager: Any, name: str, reorder: bool,
                 max_nodes: int | None = MAX_BDD_NODES) -> None:
        self._manager = manager
        self._name = name
        self._max_nodes = max_nodes
        # Every declared variable by its name: `support` reads them back from the
        # engine's names (the edge cover at N = 100 has 10 000 in its UPI).
        self._declared: dict[str, Var] = {}
        # CUDD turns dynamic reordering on by default: the static order of §4.3
        # needs it off explicitly.
        manager.configure(reordering=reorder)

    def _checked(self, f: Any) -> Any:
        """`f`, after the budget checks the engine does not make itself."""
        return f

    def check_budget(self) -> None:
        """Raise `DiagramTooLarge` if the manager holds more live nodes than its budget."""
        if self._max_nodes is not None and len(self._manager) > self._max_nodes:
            raise DiagramTooLarge(self._max_nodes)

    def _failed(self, error: ValueError) -> DiagramTooLarge | ValueError:
        """dd's error for an operation CUDD refused (its memory limit reached)."""
        if self._max_nodes is not None and "NULL" in str(error):
            return DiagramTooLarge(self._max_nodes)
        return error

    @property
    def name(self) -> str:
        return self._name

    @property
    def manager(self) -> Any:
        """The underlying `dd` manager (for diagnostics and tests; not part of the protocol)."""
        return self._manager

    @property
    def true(self) -> Any:
        return self._manager.true

    @property
    def false(self) -> Any:
        return self._manager.false

    def _names(self, variables: Iterable[Var]) -> list[str]:
        """The engine's names of `variables`, each remembered for `support`."""
        named = {v.name: v for v in variables}
        self._declared.update(named)
        return list(named)

    def declare(self, variables: Iterable[Var]) -> None:
        names = self._names(variables)
        if names:
            self._manager.declare(*names)

    def declare_edges(self, edges: Iterable[int]) -> None:
        self.declare(Var.edge(e) for e in edges)

    def var(self, variable: Var) -> Any:
        return self._manager.var(variable.name)

    def edge_var(self, edge: int) -> Any:
        return self._manager.var(EDGE_PREFIX + str(edge))  # `Var.edge(edge).name`, unbuilt

    def node_var(self, node: int) -> Any:
        return self._manager.var(NODE_PREFIX + str(node))

    def conj(self, a: Any, b: Any) -> Any:
        try:
            return self._checked(a & b)
        except ValueError as error:
            raise self._failed(error) from None

    def disj(self, a: Any, b: Any) -> Any:
        try:
            return self._checked(a | b)
        except ValueError as error:
            raise self._failed(error) from None

    def neg(self, a: Any) -> Any:
        return ~a  # complement edges in CUDD; a copy of the diagram's size in autoref at most

    def iff(self, a: Any, b: Any) -> Any:
        try:
            return self._checked(self._manager.apply("<=>", a, b))
        except ValueError as error:
            raise self._failed(error) from None

    def restrict(self, f: Any, values: Mapping[Var, bool]) -> Any:
        if not values:
            return f
        try:
            return self._checked(self._manager.let({v.name: bool(b) for v, b in values.items()},
                                                   f))
        except ValueError as error:
            raise self._failed(error) from None

    def value_all_true(self, f: Any) -> bool:
        # Down the 1-branches from the root: one path, where `restrict` to every
        # variable set to 1 would name each declared variable (10 000 on the edge cover
        # at N = 100). A branch read from a complemented edge is complemented too, so
        # the value is the terminal's, flipped once per complemented edge above it.
        flipped = False
        while f.var is not None:
            flipped ^= bool(f.negated)
            f = f.high
        return bool(f == self._manager.true) != flipped

    def is_false(self, f: Any) -> bool:
        return bool(f == self._manager.false)

    def is_true(self, f: Any) -> bool:
        return bool(f == self._manager.true)

    def support(self, f: Any) -> frozenset[Var]:
        declared = self._declared
        return frozenset(declared[name] for name in self._manager.support(f))

    def dag_size(self, f: Any) -> int:
        return int(f.dag_size)

    def top_level(self, f: Any) -> int:
        return int(f.level)  # both engines give a constant a level below every variable

    def live_nodes(self) -> int:
        return len(self._manager)


# What CUDD derives from a 1 GiB memory estimate (`dd.cudd.BDD(2**30).configure()`).
_LOOSE_UP_TO = 6710886


class CuddBackend(_DdBackend):
    """`dd.cudd`: CUDD through Cython. Static order unless `reorder=True` (CUDD sifting)."""

    def __init__(self, reorder: bool = False, max_nodes: int | None = MAX_BDD_NODES) -> None:
        import dd.cudd

        # A manager is created once per explained instance, so its creation must be
        # cheap. CUDD's set-up time grows with the memory estimate (1.6 ms at 1 GiB,
        # 0.02 ms at 4 MiB); the estimate's one lasting effect that matters here, the
        # node count up to which the unique table grows without collecting garbage
        # first (`loose_up_to`), is set back to what a 1 GiB estimate gives. A small
        # initial computed table: CUDD grows it on demand.
        manager = dd.cudd.BDD(memory_estimate=2**22, initial_cache_size=2**12)
        manager.configure(loose_up_to=_LOOSE_UP_TO)
        if max_nodes is not None:
            manager.configure(max_memory=MEMORY_FLOOR + max_nodes * BYTES_PER_NODE)
        super().__init__(manager, "cudd", reorder, max_nodes)

    def declare(self, variables: Iterable[Var]) -> None:
        # CUDD grows its tables once per new variable index; asking for the highest
        # index first creates all of them in one growth (a few times faster for the
        # hundred or so variables of an instance). Indices, hence levels, follow the
        # order given.
        names = self._names(variables)
        if not names:
            return
        first = len(self._manager.vars)
        self._manager.add_var(names[-1], first + len(names) - 1)
        for offset, name in enumerate(names[:-1]):
            self._manager.add_var(name, first + offset)


class AutorefBackend(_DdBackend):
    """`dd.autoref`: dd's pure-Python engine. Static order unless `reorder=True`.

    Its operations recurse once per level, so declaring variables raises Python's
    recursion limit (never lowers it) to leave room for diagrams as deep as the
    number of variables.
    """

    def __init__(self, reorder: bool = False, max_nodes: int | None = MAX_BDD_NODES) -> None:
        import dd.autoref

        super().__init__(dd.autoref.BDD(), "autoref", reorder, max_nodes)

    def _checked(self, f: Any) -> Any:
        self.check_budget()  # counting is cheap here: the engine keeps a dict of nodes
        return f

    def declare(self, variables: Iterable[Var]) -> None:
        super().declare(variables)
        needed = 4 * len(self._manager.vars) + 1000
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)


def make_backend(name: str, reorder: bool = False, max_nodes: int | None = MAX_BDD_NODES
                 ) -> CuddBackend | AutorefBackend:
    """A fresh manager of the named engine (`"cudd"` or `"autoref"`) with a node budget
    (`None`: none)."""
    if name == "cudd":
        return CuddBackend(reorder, max_nodes)
    if name == "autoref":
        return AutorefBackend(reorder, max_nodes)
    raise GracrError(f"unknown BDD backend {name!r}: use one of {', '.join(BACKENDS)}")
