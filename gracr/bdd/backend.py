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
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Mapping, Protocol, TypeVar

from gracr.errors import GracrError

F = TypeVar("F")

BackendName = Literal["cudd", "autoref"]
BACKENDS: tuple[BackendName, ...] = ("cudd", "autoref")


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
        return ("e" if self.kind == "edge" else "n") + str(self.index)

    @classmethod
    def named(cls, name: str) -> Var:
        """The inverse of `name`."""
        return cls("edge" if name[0] == "e" else "node", int(name[1:]))


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

    def is_false(self, f: F) -> bool: ...

    def is_true(self, f: F) -> bool: ...

    def support(self, f: F) -> frozenset[Var]:
        """The variables `f` depends on."""
        ...

    def dag_size(self, f: F) -> int:
        """Nodes of the diagram of `f`, terminal included."""
        ...

    def live_nodes(self) -> int:
        """Nodes the manager currently holds for referenced functions."""
        ...


class _DdBackend:
    """The operations shared by both `dd` engines, which expose the same interface."""

    _manager: Any
    _name: str

    def __init__(self, manager: Any, name: str, reorder: bool) -> None:
        self._manager = manager
        self._name = name
        # CUDD turns dynamic reordering on by default: the static order of §4.3
        # needs it off explicitly.
        manager.configure(reordering=reorder)

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

    def declare(self, variables: Iterable[Var]) -> None:
        names = [v.name for v in variables]
        if names:
            self._manager.declare(*names)

    def declare_edges(self, edges: Iterable[int]) -> None:
        self.declare(Var.edge(e) for e in edges)

    def var(self, variable: Var) -> Any:
        return self._manager.var(variable.name)

    def edge_var(self, edge: int) -> Any:
        return self.var(Var.edge(edge))

    def node_var(self, node: int) -> Any:
        return self.var(Var.node(node))

    def conj(self, a: Any, b: Any) -> Any:
        return a & b

    def disj(self, a: Any, b: Any) -> Any:
        return a | b

    def neg(self, a: Any) -> Any:
        return ~a

    def iff(self, a: Any, b: Any) -> Any:
        return self._manager.apply("<=>", a, b)

    def restrict(self, f: Any, values: Mapping[Var, bool]) -> Any:
        if not values:
            return f
        return self._manager.let({v.name: bool(b) for v, b in values.items()}, f)

    def is_false(self, f: Any) -> bool:
        return bool(f == self._manager.false)

    def is_true(self, f: Any) -> bool:
        return bool(f == self._manager.true)

    def support(self, f: Any) -> frozenset[Var]:
        return frozenset(Var.named(name) for name in self._manager.support(f))

    def dag_size(self, f: Any) -> int:
        return int(f.dag_size)

    def live_nodes(self) -> int:
        return len(self._manager)


class CuddBackend(_DdBackend):
    """`dd.cudd`: CUDD through Cython. Static order unless `reorder=True` (CUDD sifting)."""

    def __init__(self, reorder: bool = False) -> None:
        import dd.cudd

        # A small initial computed-table (CUDD grows it on demand) keeps creating a
        # manager, which happens once per explained instance, well under a millisecond.
        super().__init__(dd.cudd.BDD(memory_estimate=2**30, initial_cache_size=2**12),
                         "cudd", reorder)


class AutorefBackend(_DdBackend):
    """`dd.autoref`: dd's pure-Python engine. Static order unless `reorder=True`.

    Its operations recurse once per level, so declaring variables raises Python's
    recursion limit (never lowers it) to leave room for diagrams as deep as the
    number of variables.
    """

    def __init__(self, reorder: bool = False) -> None:
        import dd.autoref

        super().__init__(dd.autoref.BDD(), "autoref", reorder)

    def declare(self, variables: Iterable[Var]) -> None:
        super().declare(variables)
        needed = 4 * len(self._manager.vars) + 1000
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)


def make_backend(name: str, reorder: bool = False) -> CuddBackend | AutorefBackend:
    """A fresh manager of the named engine (`"cudd"` or `"autoref"`)."""
    if name == "cudd":
        return CuddBackend(reorder)
    if name == "autoref":
        return AutorefBackend(reorder)
    raise GracrError(f"unknown BDD backend {name!r}: use one of {', '.join(BACKENDS)}")
