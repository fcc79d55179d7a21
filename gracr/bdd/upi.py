"""The exact ground truth: UnionPI (Algorithm 1), Extend (Algorithm 2), Extract (Algorithm 3).

`upi(prog, graph, target)` returns the prediction and the mask of the edges in the
union of all prime implicants (§4.2) of that prediction: for a graph classifier,
of the graph's label; for a node classifier, of the target node's label. A
negative instance is explained through `!f` (Algorithm 1, line 5; App. I), and
when the empty subgraph is already sufficient the mask is empty (Corollary 1).

`shortcuts=False` runs Algorithm 1 exactly as written: one variable per edge of
the graph, Extend over every edge, Extract over every edge. `shortcuts=True`
(the default) computes the same mask with less work, each step exact:

1. A node target depends only on its receptive field (`receptive_field`): only
   those edges get a variable. BuildNode never reads another edge, and an edge no
   diagram depends on is in no prime implicant.
2. Extend runs only over the support of `f`: for an edge `f` does not depend on,
   `f|x_e=1` is `f` and the step is a no-op. It is skipped altogether when
   `gracr.bdd.polarity` finds the instance function monotone or antitone (then
   `f` is already upward-closed).
3. Extract reads the support of `f^` instead of testing each edge: `f^` is
   upward-closed, so `f^|x_e=0 <= f^|x_e=1`, and `f^ & x_e & !f^|x_e=0` is
   satisfiable iff the two cofactors differ, i.e. iff `f^` depends on `x_e`.

Each shortcut is checked against the brute-force definition (`gracr.bdd.brute`)
by the property tests.

The static variable order is the edge-list order (`order="edges"`, §4.3). The size
of a diagram depends on it, the mask never does. With the in-edge reading of
Algorithm 4, the edge list of a graph with hubs can make a two-hop classifier's
diagram blow up (a Majority2Hop hub: millions of nodes), because the per-neighbour
counts are read interleaved. `order="computation"` declares the variables in the
order BuildNode first reaches them, depth first: each neighbour's own in-edges just
before the edge that carries its value, so the counters never wait on one another.
`reorder=True` (CUDD sifting) is the dynamic alternative.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import BDDBackend, F, make_backend
from gracr.bdd.build import Builder
from gracr.bdd.polarity import polarity
from gracr.dsl.ir import Kind
from gracr.dsl.parse import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]
VariableOrder = Literal["edges", "computation"]


# ---------------------------------------------------------------- targets and fields


def resolve_target(prog: Program, graph: Graph, target: int | None = None) -> int | None:
    """The node a classifier explains: `None` for a graph classifier, else a valid node.

    A node classifier takes `target`, or else `graph.target`; without either, or
    with a node out of range, it raises `GracrError`. A graph classifier explains
    the whole graph, so an explicit `target` is an error (`graph.target` is ignored).
    """
    if prog.kind is Kind.GRAPH:
        if target is not None:
            raise GracrError(f"the classifier is a graph classifier: it explains the whole graph "
                             f"and takes no target node (got target {target})")
        return None
    node = graph.target if target is None else target
    if node is None:
        raise GracrError("the classifier is a node classifier: it needs a target node to "
                         "explain; pass target=V (CLI: --node V) or give the graph a 'target'")
    if isinstance(node, bool) or not isinstance(node, (int, np.integer)):
        raise GracrError(f"target must be a node index, got {node!r}")
    if not 0 <= int(node) < graph.num_nodes:
        nodes = f"0..{graph.num_nodes - 1}" if graph.num_nodes else "none"
        raise GracrError(f"target node {int(node)} is out of range for a graph with "
                         f"{graph.num_nodes} nodes (nodes are {nodes})")
    return int(node)


def _node_receptive_field(graph: Graph, node: int, depth: int) -> BoolArray:
    """Edges (s, t) with a directed path of length <= depth-1 from t to `node`."""
    if depth < 1:
        return np.zeros(graph.num_edges, dtype=np.bool_)
    reached = np.zeros(graph.num_nodes, dtype=np.bool_)  # nodes within distance d of `node`
    reached[node] = True
    for _ in range(depth - 1):
        grown = reached.copy()
        grown[graph.sources[reached[graph.targets]]] = True
        if np.array_equal(grown, reached):
            break
        reached = grown
    return reached[graph.targets]


def _field(graph: Graph, node: int | None, depth: int) -> BoolArray:
    if node is None:
        return np.full(graph.num_edges, depth >= 1, dtype=np.bool_)
    return _node_receptive_field(graph, node, depth)


def receptive_field(prog: Program, graph: Graph, target: int | None = None) -> BoolArray:
    """The edges whose removal can change the explained value: a bool per edge.

    For a node classifier of modal depth k at target v: the edges (s, t) with a
    directed path of length <= k-1 from t to v (BuildNode reads no other edge).
    For a graph classifier (no target): every edge when k >= 1, none when k = 0.
    The UPI always lies inside it.
    """
    return _field(graph, resolve_target(prog, graph, target), prog.modal_depth)


def computation_order(prog: Program, graph: Graph, target: int | None = None) -> list[int]:
    """The edges in the order BuildNode first reaches them, each after its source's inputs.

    Depth first from the explained node (every node, in order, for a graph
    classifier), up to the modal depth k: for each in-edge (u, v) of v, first the
    edges u itself reads, then (u, v). Edges nothing reads come last, in edge order.
    """
    node = resolve_target(prog, graph, target)
    depth = prog.modal_depth
    by_target = np.argsort(graph.targets, kind="stable")
    bounds = np.searchsorted(graph.targets[by_target], np.arange(graph.num_nodes + 1))
    order: list[int] = []
    placed = np.zeros(graph.num_edges, dtype=np.bool_)
    visited: set[tuple[int, int]] = set()
    roots = range(graph.num_nodes) if node is None else (node,)
    for root in roots:
        # An explicit stack, not recursion: (node, remaining depth, next in-edge index).
        stack = [(root, depth, int(bounds[root]))] if (root, depth) not in visited else []
        visited.add((root, depth))
        while stack:
            v, d, i = stack.pop()
            if d == 0 or i == bounds[v + 1]:
                continue
            edge = int(by_target[i])
            source = int(graph.sources[edge])
            if (source, d - 1) not in visited and d > 1:
                visited.add((source, d - 1))
                stack.append((v, d, i))  # come back to this edge once the source is done
                stack.append((source, d - 1, int(bounds[source])))
                continue
            if not placed[edge]:
                placed[edge] = True
                order.append(edge)
            stack.append((v, d, i + 1))
    order.extend(int(e) for e in np.flatnonzero(~placed))
    return order


# ---------------------------------------------------------------- Algorithms 1-3


def extend(backend: BDDBackend[F], f: F, edges: Iterable[int]) -> F:
    """Extend (Algorithm 2): `f^(R) = AND over R <= R' <= G of f(R')`, sufficiency of R.

    Lines 4-6: for each edge in turn, `f^ <- f^ & f^|x_e=1`.
    """
    extended = f
    for edge in edges:
        extended = backend.conj(extended, backend.restrict(extended, {edge: True}))
    return extended


def extract(backend: BDDBackend[F], extended: F, edges: Sequence[int]) -> BoolArray:
    """Extract (Algorithm 3): `mask[i] = 1{f^ & x_e & !f^|x_e=0 != 0}` for `e = edges[i]`.

    `extended` must be the output of `extend` (Theorem 4.3).
    """
    mask = np.zeros(len(edges), dtype=np.bool_)
    for i, edge in enumerate(edges):
        kappa = backend.conj(
            backend.conj(extended, backend.edge_var(edge)),
            backend.neg(backend.restrict(extended, {edge: False})))  # line 4
        mask[i] = not backend.is_false(kappa)  # line 5
    return mask


def value_at_full_graph(backend: BDDBackend[F], f: F, edges: Iterable[int]) -> bool:
    """`f(G)`: `f` with every edge variable set to 1 (Algorithm 1, line 4)."""
    return backend.is_true(backend.restrict(f, {edge: True for edge in edges}))


def union_pi(backend: BDDBackend[F], f: F, edges: Sequence[int]) -> tuple[int, BoolArray]:
    """UnionPI (Algorithm 1, lines 4-8) on an already built diagram `f` over `edges`.

    Returns the label `f(G)` and the UPI mask over `edges` (position i is `edges[i]`).
    """
    label = value_at_full_graph(backend, f, edges)  # line 4
    instance = f if label else backend.neg(f)  # line 5
    return int(label), extract(backend, extend(backend, instance, edges), edges)  # lines 6-7


# ---------------------------------------------------------------- the API


@dataclass(frozen=True)
class UpiReport:
    """The result of Algorithm 1 on one instance, with its cost.

    `mask` has one bool per edge of the graph. `nodes_built` and `nodes_extended`
    are the sizes (nodes, terminal included) of the diagrams of the instance
    function `f` (or `!f`) and of `f^`; `manager_nodes` is what the manager holds
    at the end of Build: every memoised sub-diagram and the variables included. Times are wall-clock seconds; `build_seconds` includes creating the
    manager and declaring the variables. `extend` says how Algorithm 2 ran:
    `"all edges"`, `"support"` or `"skipped (monotone)"`.
    """

    label: int
    mask: BoolArray
    backend: str
    reorder: bool
    order: str
    shortcuts: bool
    num_variables: int
    nodes_built: int
    nodes_extended: int
    manager_nodes: int
    memo_entries: int
    build_seconds: float
    extend_seconds: float
    extract_seconds: float
    extend: str

    @property
    def total_seconds(self) -> float:
        return self.build_seconds + self.extend_seconds + self.extract_seconds

    @property
    def nodes(self) -> int:
        """The larger of the two diagrams Algorithm 1 works on."""
        return max(self.nodes_built, self.nodes_extended)


def upi_report(prog: Program, graph: Graph, target: int | None = None, backend: str = "cudd",
               reorder: bool = False, shortcuts: bool = True,
               order: VariableOrder = "edges") -> UpiReport:
    """UnionPI (Algorithm 1) on one instance, with node counts and per-stage times.

    `backend` is `"cudd"` or `"autoref"`; the static variable order is the edge
    list (`order="edges"`) or `computation_order` (`"computation"`), and `reorder`
    lets the engine change it dynamically. See the module docstring for `shortcuts`.
    """
    node = resolve_target(prog, graph, target)
    graph.check_palette(prog.palette)
    if order not in ("edges", "computation"):
        raise GracrError(f"unknown variable order {order!r}: use 'edges' or 'computation'")

    start = time.perf_counter()
    manager = make_backend(backend, reorder)
    if shortcuts:
        edges = [int(e) for e in np.flatnonzero(_field(graph, node, prog.modal_depth))]
    else:
        edges = list(range(graph.num_edges))
    if order == "computation":
        kept = set(edges)
        manager.declare_edges(e for e in computation_order(prog, graph, node) if e in kept)
    else:
        manager.declare_edges(edges)
    builder = Builder(manager, graph)
    f = (builder.build_graph(prog.classifier) if node is None
         else builder.build_node(prog.classifier, node))
    memo_entries = builder.memo_size
    manager_nodes = manager.live_nodes()
    del builder  # release the memo table's diagrams
    label = value_at_full_graph(manager, f, edges)  # Algorithm 1, line 4
    instance = f if label else manager.neg(f)  # line 5
    del f
    built = time.perf_counter()

    if not shortcuts:
        extended = extend(manager, instance, edges)
        how = "all edges"
    else:
        direction = polarity(prog.classifier)
        if not label:
            direction = direction.flipped
        if direction.is_monotone:
            extended = instance
            how = "skipped (monotone)"
        else:
            extended = extend(manager, instance, sorted(manager.support(instance)))
            how = "support"
    extended_at = time.perf_counter()

    mask = np.zeros(graph.num_edges, dtype=np.bool_)
    if shortcuts:
        mask[sorted(manager.support(extended))] = True
    else:
        mask[edges] = extract(manager, extended, edges)
    done = time.perf_counter()

    return UpiReport(
        label=int(label), mask=mask, backend=manager.name, reorder=reorder, order=order,
        shortcuts=shortcuts,
        num_variables=len(edges), nodes_built=manager.dag_size(instance),
        nodes_extended=manager.dag_size(extended), manager_nodes=manager_nodes,
        memo_entries=memo_entries, build_seconds=built - start,
        extend_seconds=extended_at - built, extract_seconds=done - extended_at, extend=how)


def upi(prog: Program, graph: Graph, target: int | None = None, backend: str = "cudd",
        reorder: bool = False, shortcuts: bool = True,
        order: VariableOrder = "edges") -> tuple[int, BoolArray]:
    """The exact ground-truth explanation: `(label, mask)`, `mask[e] = 1{e in UPI}`.

    `label` is the classifier's value on the whole graph (a graph classifier) or at
    the target node (a node classifier: `target`, else `graph.target`).
    """
    report = upi_report(prog, graph, target, backend=backend, reorder=reorder,
                        shortcuts=shortcuts, order=order)
    return report.label, report.mask


def upi_json(prog: Program, graph: Graph, target: int | None = None, backend: str = "cudd",
             reorder: bool = False, order: VariableOrder = "edges") -> dict[str, int | list[int]]:
    """The `gracrc upi` output for one graph: `{"label": 0|1, "mask": [0|1 per edge]}`."""
    label, mask = upi(prog, graph, target, backend=backend, reorder=reorder, order=order)
    return {"label": label, "mask": [int(m) for m in mask]}
