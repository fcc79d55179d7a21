"""The exact ground truth: UnionPI (Algorithm 1), Extend (Algorithm 2), Extract (Algorithm 3).

`upi(prog, graph, target)` returns the prediction and the mask of the parts of the
graph in the union of all prime implicants (§4.2) of that prediction: for a graph
classifier, of the graph's label; for a node classifier, of the target node's
label. A negative instance is explained through `!f` (Algorithm 1, line 5; App. I),
and when the empty subgraph is already sufficient the mask is empty (Corollary 1).

What a subgraph removes is `over` (see `gracr.bdd.build`): edges (`"edges"`, §4.3,
one variable `x_e` per edge), nodes with their incident edges (`"nodes"`, one
variable `y_v` per node but a node classifier's target, which is never removed), or
both (`"both"`). A prime implicant is a minimal set of those variables, and the UPI
the union of them, over the chosen variables only.

`shortcuts=False` runs Algorithm 1 exactly as written: one variable per edge and/or
node of the graph, Extend over every variable, Extract over every variable.
`shortcuts=True` (the default) computes the same mask with less work, each step exact:

1. A node target depends only on its receptive field (`receptive_field`,
   `node_receptive_field`): only those edges and nodes get a variable. BuildNode
   never reads another edge, nor another node's `y` (it reads `y_u` and `y_v` only
   in the presence of an edge `(u, v)` it reads), and a variable no diagram depends
   on is in no prime implicant.
2. Extend runs only over the support of `f`: for a variable `f` does not depend
   on, `f|x=1` is `f` and the step is a no-op. It is skipped altogether when
   `gracr.bdd.polarity` finds the instance function monotone or antitone in the
   chosen variables (then `f` is already upward-closed).
3. Extract reads the support of `f^` instead of testing each variable: `f^` is
   upward-closed, so `f^|x=0 <= f^|x=1`, and `f^ & x & !f^|x=0` is satisfiable iff
   the two cofactors differ, i.e. iff `f^` depends on `x`.

Each shortcut is checked against the brute-force definition (`gracr.bdd.brute`)
by the property tests.

The paper's static variable order is the edge-list order (`order="edges"`, §4.3),
each node's variable just before the first edge it ends. The size of a diagram
depends on it, the mask never does. Our default is `order="computation"` (below):
on the paper's Table 12 edge cover (N = 12) it takes a few milliseconds where the
edge-list order takes a few tenths of a second with the shortcuts (and far longer
without them); `order="edges"` with `shortcuts=False` is Algorithm 1 as written.
With the in-edge reading of Algorithm 4, the edge list of a graph with hubs can make
a two-hop classifier's diagram blow up (a Majority2Hop hub: millions of nodes),
because the per-neighbour counts are read interleaved. `order="computation"`
declares the variables in the order BuildNode first reaches them, depth first: each
neighbour's own in-edges just before the edge that carries its value, so the
counters never wait on one another. `reorder=True` (CUDD sifting) is the dynamic
alternative.

Its size (600–700 lines) is Algorithms 1-3 with their exact shortcuts, the receptive
fields and the variable orders they need, the one instance build (`build_instance`),
and the API.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Generic, Iterable, Literal, Sequence, overload

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import MAX_BDD_NODES, BDDBackend, F, Var, make_backend
from gracr.bdd.build import MAX_COUNTER_STEPS, OVER, Builder, Over, top_down_nodes
from gracr.bdd.polarity import polarity
from gracr.dsl import ir
from gracr.dsl.ir import Formula, Kind
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph

BoolArray = npt.NDArray[np.bool_]
VariableOrder = Literal["edges", "computation"]
# Relations admitted at one nesting depth: a set of relation names, or `None` for every edge.
Admitted = frozenset[str] | None


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


def admitted_by_depth(formula: Formula) -> list[Admitted]:
    """For each nesting depth d = 1..k of the modalities of `formula` (k its modal depth),
    the relations of the edges some modality at depth d counts (`None`: every edge).

    A modality is at depth d when d modalities, itself included, lie on its path from
    the root. A subformula shared between depths is counted at each of them.
    """
    levels: list[Admitted] = []
    seen: set[tuple[Formula, int]] = set()
    stack: list[tuple[Formula, int]] = [(formula, 0)]
    while stack:
        current, above = stack.pop()
        if (current, above) in seen:
            continue
        seen.add((current, above))
        below = above
        if isinstance(current, ir.COUNTING_MODALITIES + ir.COMPARATIVE_MODALITIES):
            below = above + 1
            if len(levels) < below:
                levels.append(frozenset())
            level = levels[above]
            levels[above] = (None if current.relations is None or level is None
                             else level | frozenset(current.relations))
        stack.extend((child, below) for child in ir.children(current))
    return levels


def _admitted_mask(graph: Graph, admitted: Admitted) -> BoolArray:
    return graph.relation_mask(None if admitted is None else sorted(admitted))


def _edge_field(graph: Graph, node: int | None, levels: list[Admitted]) -> BoolArray:
    """The edges BuildNode can read, walking from the explained node(s) one depth a step.

    `at` holds the nodes where modalities at depth d are evaluated: the target (every
    node for a graph classifier) at d = 1, then the sources of the edges read at
    depth d - 1. At depth d only the in-edges of `at` that `levels[d - 1]` admits are
    read.
    """
    graph.require_budget("the receptive field", 2, 2)
    field = np.zeros(graph.num_edges, dtype=np.bool_)
    at = np.zeros(graph.num_nodes, dtype=np.bool_)
    if node is None:
        at[:] = True
    else:
        at[node] = True
    for admitted in levels:
        read = at[graph.targets] & _admitted_mask(graph, admitted)
        if not read.any():
            break  # nothing read here, so nothing deeper either
        field |= read
        at = np.zeros(graph.num_nodes, dtype=np.bool_)
        at[graph.sources[read]] = True
    return field


def _node_field(graph: Graph, node: int | None, edge_field: BoolArray) -> BoolArray:
    """The nodes whose deletion can change the value, given the edge field.

    A node classifier reads `y` only in the presence of an edge it reads: the ends of
    the field's edges, less the target (never removed). A graph classifier's `exists`
    reads `y_v` at every node.
    """
    if node is None:
        return np.ones(graph.num_nodes, dtype=np.bool_)
    field = np.zeros(graph.num_nodes, dtype=np.bool_)
    field[graph.sources[edge_field]] = True
    field[graph.targets[edge_field]] = True
    field[node] = False
    return field


def receptive_field(prog: Program, graph: Graph, target: int | None = None) -> BoolArray:
    """The edges whose removal can change the explained value: a bool per edge.

    With `levels = admitted_by_depth(classifier)`: for a node classifier at target
    v, the edges read by a walk back from v that at step d follows only edges of
    `levels[d - 1]`, for d = 1..k (k the modal depth); without relation filters, the
    edges (s, t) with a directed path of length <= k-1 from t to v. For a graph
    classifier the walk starts at every node: without filters, every edge when
    k >= 1 and none when k = 0. BuildNode reads no other edge, so the UPI over
    edges always lies inside it (and over both, its edge part).
    """
    node = resolve_target(prog, graph, target)
    return _edge_field(graph, node, admitted_by_depth(prog.classifier))


def node_receptive_field(prog: Program, graph: Graph, target: int | None = None) -> BoolArray:
    """The nodes whose deletion can change the explained value: a bool per node.

    For a node classifier, the ends of the `receptive_field` edges but the target
    itself (never deleted); for a graph classifier, every node (`exists` counts
    each). The UPI over nodes always lies inside it (and over both, its node part).
    """
    node = resolve_target(prog, graph, target)
    return _node_field(graph, node, _edge_field(graph, node, admitted_by_depth(prog.classifier)))


def layers_receptive_field(graph: Graph, target: int | None, layers: int) -> BoolArray:
    """The edges a message-passing network of `layers` layers that reads every edge can
    depend on at `target` (`None`: a graph classifier, every node): the `receptive_field`
    of a formula of modal depth `layers` with no relation filter. A trained model's
    dependence is bounded by it, as a compiled one's is by its formula's."""
    if target is not None and not 0 <= target < graph.num_nodes:
        raise GracrError(f"target node {target} is out of range for a graph with "
                         f"{graph.num_nodes} nodes")
    return _edge_field(graph, target, [None] * layers)


def _variables(graph: Graph, over: Over, edges: BoolArray, nodes: BoolArray) -> list[Var]:
    """The variables of the kinds `over` chooses on the given edges and nodes, in the
    edge-list order: edge by edge, each end's `y` (target, then source) just before
    the first edge it ends, then the nodes no edge ends.

    Keeping `y_v` next to the edges at v keeps the diagrams small: with every node
    after every edge, a counter over the presences `x_e & y_u & y_v` must remember
    which edges it has counted until it reads their ends (on a graph of 10 nodes and
    24 edges, millions of nodes instead of thousands).
    """
    edge_vars = np.flatnonzero(edges) if over != "nodes" else np.zeros(0, dtype=np.int64)
    if over == "edges":
        return [Var.edge(int(e)) for e in edge_vars]
    # Positions in the walk over the edge list: the ends of edge e at 3e (target) and
    # 3e + 1 (source), its own variable at 3e + 2; a node at its first end.
    ends = np.stack([graph.targets, graph.sources], axis=1).ravel()
    seen, first = np.unique(ends, return_index=True)
    position = np.full(graph.num_nodes, np.iinfo(np.int64).max, dtype=np.int64)
    position[seen] = 3 * (first // 2) + first % 2
    wanted = np.flatnonzero(nodes)
    keys = np.concatenate([3 * edge_vars + 2, position[wanted]])
    kinds = np.concatenate([np.zeros(len(edge_vars), dtype=np.int64),
                            np.ones(len(wanted), dtype=np.int64)])
    indices = np.concatenate([edge_vars, wanted])
    # Nodes no edge ends come last, in node order (a stable sort keeps it).
    walk = np.argsort(keys, kind="stable")
    return [Var.edge(int(indices[i])) if kinds[i] == 0 else Var.node(int(indices[i]))
            for i in walk]


def bandwidth_order(graph: Graph) -> list[int]:
    """The nodes in reverse Cuthill–McKee order of the undirected graph (scipy): nodes
    close in the graph close in the order. A graph classifier's walk starts from every
    node in this order, so that a sentence counting over all nodes (`exists`, a linear
    count) meets each neighbourhood's variables together; in node-index order a large
    spatial graph (a tissue sample, whose indices say nothing about place) gave a
    diagram 13 times larger."""
    if graph.num_nodes == 0:
        return []
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    # The undirected adjacency's structure in canonical CSR form (rows and, within a row,
    # columns sorted, no duplicates), made directly: what scipy makes of the edge list
    # as `A + A.T` (the ordering reads only the structure), without its conversions.
    n = graph.num_nodes
    keys = np.unique(np.concatenate([graph.sources * n + graph.targets,
                                     graph.targets * n + graph.sources]))
    rows, columns = np.divmod(keys, n)
    indptr = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    adjacency = csr_matrix((np.ones(len(keys)), columns.astype(np.int32), indptr), shape=(n, n))
    return [int(v) for v in reverse_cuthill_mckee(adjacency, symmetric_mode=True)]


def computation_order(prog: Program, graph: Graph, target: int | None = None,
                      over: Over = "edges", edges: BoolArray | None = None,
                      nodes: BoolArray | None = None) -> list[Var]:
    """The variables in the order BuildNode first reaches them, each edge after its source's inputs.

    Depth first from the explained node (every node, in `bandwidth_order`, for a graph
    classifier), up to the modal depth k: for each in-edge (u, v) of v that the
    modalities at that depth admit (`admitted_by_depth`), first the edges u itself
    reads, then the variables of the presence of (u, v) not placed yet: `y_v`,
    `y_u`, `x_e` (of the kinds `over` chooses). A graph classifier's root `y_v`
    follows its in-edges (`exists` reads it last). Variables nothing reads come
    last, in the edge-list order. Only the variables of the `edges` and `nodes` masks
    are listed (default: all).
    """
    edges = np.ones(graph.num_edges, dtype=np.bool_) if edges is None else edges
    nodes = np.ones(graph.num_nodes, dtype=np.bool_) if nodes is None else nodes
    node = resolve_target(prog, graph, target)
    depth = len(levels := admitted_by_depth(prog.classifier))
    # Python lists, not arrays: the walk reads them one element at a time (a numpy
    # scalar read costs several list reads; the edge cover at N = 100 walks 10 000 edges).
    admitted = [_admitted_mask(graph, level).tolist() for level in levels]
    by_target_array = np.argsort(graph.targets, kind="stable")
    bounds = np.searchsorted(graph.targets[by_target_array],
                             np.arange(graph.num_nodes + 1)).tolist()
    by_target = by_target_array.tolist()
    sources = graph.sources.tolist()
    wanted_edge = edges.tolist() if over != "nodes" else [False] * graph.num_edges
    wanted_node = nodes.tolist() if over != "edges" else [False] * graph.num_nodes
    order: list[Var] = []
    placed_edge = [False] * graph.num_edges
    placed_node = [False] * graph.num_nodes
    if node is not None:
        placed_node[node] = True  # the target is never removed: it has no variable

    def place_node(v: int) -> None:
        if wanted_node[v] and not placed_node[v]:
            placed_node[v] = True
            order.append(Var.node(v))

    visited: set[tuple[int, int]] = set()
    roots = bandwidth_order(graph) if node is None else [node]
    for root in roots:
        # An explicit stack, not recursion: (node, remaining depth, next in-edge index).
        stack = [(root, depth, bounds[root])] if (root, depth) not in visited else []
        visited.add((root, depth))
        while stack:
            v, d, i = stack.pop()
            if d == 0:
                continue
            reads = admitted[depth - d]  # the in-edges of v are read at depth k - d + 1
            end = bounds[v + 1]
            while i < end:
                edge = by_target[i]
                if not reads[edge]:
                    i += 1
                    continue
                source = sources[edge]
                if d > 1 and (source, d - 1) not in visited:
                    visited.add((source, d - 1))
                    stack.append((v, d, i))  # come back to this edge once the source is done
                    stack.append((source, d - 1, bounds[source]))
                    break
                if over != "edges":
                    place_node(v)
                    place_node(source)
                if wanted_edge[edge] and not placed_edge[edge]:
                    placed_edge[edge] = True
                    order.append(Var.edge(edge))
                i += 1
        if node is None and over != "edges":
            place_node(root)
    return order + _variables(graph, over, edges & ~np.array(placed_edge, dtype=np.bool_),
                              nodes & ~np.array(placed_node, dtype=np.bool_))


# ---------------------------------------------------------------- Algorithms 1-3


def extend(backend: BDDBackend[F], f: F, variables: Iterable[Var]) -> F:
    """Extend (Algorithm 2): `f^(R) = AND over R <= R' <= G of f(R')`, sufficiency of R.

    Lines 4-6: for each variable in turn, `f^ <- f^ & f^|x=1`.
    """
    extended = f
    for variable in variables:
        extended = backend.conj(extended, backend.restrict(extended, {variable: True}))
    return extended


def extract(backend: BDDBackend[F], extended: F, variables: Sequence[Var]) -> BoolArray:
    """Extract (Algorithm 3): `mask[i] = 1{f^ & x & !f^|x=0 != 0}` for `x = variables[i]`.

    `extended` must be the output of `extend` (Theorem 4.3).
    """
    mask = np.zeros(len(variables), dtype=np.bool_)
    for i, variable in enumerate(variables):
        kappa = backend.conj(
            backend.conj(extended, backend.var(variable)),
            backend.neg(backend.restrict(extended, {variable: False})))  # line 4
        mask[i] = not backend.is_false(kappa)  # line 5
    return mask


def value_at_full_graph(backend: BDDBackend[F], f: F) -> bool:
    """`f(G)`: `f` with every variable set to 1 (Algorithm 1, line 4)."""
    return backend.value_all_true(f)


def union_pi(backend: BDDBackend[F], f: F, variables: Sequence[Var]) -> tuple[int, BoolArray]:
    """UnionPI (Algorithm 1, lines 4-8) on an already built diagram `f` over `variables`.

    Returns the label `f(G)` and the UPI mask over `variables` (position i is
    `variables[i]`).
    """
    label = value_at_full_graph(backend, f)  # line 4
    instance = f if label else backend.neg(f)  # line 5
    return int(label), extract(backend, extend(backend, instance, variables), variables)  # 6-7


# ---------------------------------------------------------------- the API


@dataclass(frozen=True)
class UpiReport:
    """The result of Algorithm 1 on one instance, with its cost.

    `mask` has one bool per edge of the graph and `node_mask` one per node: the
    edges and nodes in the UPI over the variables `over` chooses. Over nodes no edge
    is a variable, so `mask` is all false; over edges `node_mask` is. A node
    classifier's target is never in `node_mask` (it is never removed).
    `nodes_built` and `nodes_extended` are the sizes (nodes, terminal included) of
    the diagrams of the instance function `f` (or `!f`) and of `f^`;
    `manager_nodes` is what the manager holds at the end of Build: every memoised
    sub-diagram and the variables included. Times are wall-clock seconds;
    `build_seconds` includes creating the manager and declaring the variables.
    `extend` says how Algorithm 2 ran: `"all variables"`, `"support"` or
    `"skipped (monotone)"`.
    """

    label: int
    mask: BoolArray
    node_mask: BoolArray
    over: Over
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


@dataclass(frozen=True)
class Diagram(Generic[F]):
    """One instance's ROBDD, as `build_instance` made it: the manager holding it, the
    diagram `f` of the classifier's value on each subgraph, the declared `variables`
    (the static order), and what the build cost (memo entries, live nodes)."""

    manager: BDDBackend[F]
    f: F
    variables: list[Var]
    memo_entries: int
    manager_nodes: int


def _instance_builder(prog: Program, graph: Graph, node: int | None, over: Over,
                      backend: str, reorder: bool, shortcuts: bool, order: VariableOrder,
                      max_nodes: int | None, max_counter_steps: int
                      ) -> tuple[BDDBackend[Any], list[Var], Builder[Any]]:
    """The manager, its declared variables and the builder of one instance (see
    `build_instance`)."""
    # BuildNode keeps each node's in-edge list, and its memo a diagram per
    # (subformula, node) pair: Python objects, a few hundred bytes each.
    graph.require_budget("the ROBDD build", 256, 256)
    graph.check_schema(prog.schema)
    if over not in OVER:
        raise GracrError(f"unknown removal {over!r}: explain over {', '.join(OVER)}")
    if order not in ("edges", "computation"):
        raise GracrError(f"unknown variable order {order!r}: use 'edges' or 'computation'")
    manager = make_backend(backend, reorder, max_nodes)
    if shortcuts:
        edge_field = _edge_field(graph, node, admitted_by_depth(prog.classifier))
        node_field = _node_field(graph, node, edge_field)
    else:
        edge_field = np.ones(graph.num_edges, dtype=np.bool_)
        node_field = np.ones(graph.num_nodes, dtype=np.bool_)
        if node is not None:
            node_field[node] = False  # the target is never removed
    if order == "computation":
        variables = computation_order(prog, graph, node, over, edge_field, node_field)
    else:
        variables = _variables(graph, over, edge_field, node_field)
    manager.declare(variables)
    builder = Builder(manager, graph, over, kept=node,
                      counting_order=top_down_nodes(variables, graph.num_nodes),
                      max_counter_steps=max_counter_steps)
    return manager, variables, builder


def build_instance(prog: Program, graph: Graph, node: int | None, over: Over = "edges",
                   backend: str = "cudd", reorder: bool = False, shortcuts: bool = True,
                   order: VariableOrder = "computation",
                   max_nodes: int | None = MAX_BDD_NODES,
                   max_counter_steps: int = MAX_COUNTER_STEPS) -> Diagram[Any]:
    """BuildNode / BuildGraph (Algorithms 4, 5) on one instance: the variables chosen (the
    receptive field with `shortcuts`, else all) and declared in `order`, then the
    diagram; `node` is a node classifier's target (resolved) or None. The one build
    behind the UPI (`upi_report`) and the signed ground truth (`gracr.bdd.relevance`)."""
    manager, variables, builder = _instance_builder(prog, graph, node, over, backend, reorder,
                                                    shortcuts, order, max_nodes,
                                                    max_counter_steps)
    f = (builder.build_graph(prog.classifier) if node is None
         else builder.build_node(prog.classifier, node))
    memo_entries = builder.memo_size
    manager_nodes = manager.live_nodes()
    del builder  # release the memo table's diagrams
    manager.check_budget()
    return Diagram(manager, f, variables, memo_entries, manager_nodes)


def graph_term_players(prog: Program, graph: Graph, backend: str = "cudd",
                       max_nodes: int | None = MAX_BDD_NODES) -> BoolArray:
    """The nodes a graph classifier's value can depend on under node removal, bounded
    through its terms without running its counters (`Builder.term_support`): a bool per
    node, every other node a null player."""
    if prog.kind is not Kind.GRAPH:
        raise GracrError("graph_term_players bounds a graph classifier's players; a node "
                         "classifier's are its node receptive field")
    manager, _, builder = _instance_builder(prog, graph, None, "nodes", backend, False, True,
                                            "computation", max_nodes, MAX_COUNTER_STEPS)
    players = np.zeros(graph.num_nodes, dtype=np.bool_)
    players[sorted(builder.term_support(prog.classifier))] = True
    del builder
    manager.check_budget()
    return players


def upi_report(prog: Program, graph: Graph, target: int | None = None, over: Over = "edges",
               backend: str = "cudd", reorder: bool = False, shortcuts: bool = True,
               order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES,
               max_counter_steps: int = MAX_COUNTER_STEPS) -> UpiReport:
    """UnionPI (Algorithm 1) on one instance, with node counts and per-stage times.

    `over` is `"edges"`, `"nodes"` or `"both"`; `backend` is `"cudd"` or
    `"autoref"`; the static variable order is the edge list, each node just before
    the first edge it ends (`order="edges"`), or `computation_order`
    (`"computation"`), and `reorder` lets the engine change it dynamically. See the
    module docstring for `shortcuts`.
    """
    node = resolve_target(prog, graph, target)
    start = time.perf_counter()
    built_diagram = build_instance(prog, graph, node, over, backend, reorder, shortcuts, order,
                                   max_nodes, max_counter_steps)
    manager, f, variables = built_diagram.manager, built_diagram.f, built_diagram.variables
    memo_entries, manager_nodes = built_diagram.memo_entries, built_diagram.manager_nodes
    del built_diagram
    label = value_at_full_graph(manager, f)  # Algorithm 1, line 4
    instance = f if label else manager.neg(f)  # line 5
    del f
    built = time.perf_counter()

    if not shortcuts:
        extended = extend(manager, instance, variables)
        how = "all variables"
    else:
        direction = polarity(prog.classifier, over)
        if not label:
            direction = direction.flipped
        if direction.is_monotone:
            extended = instance
            how = "skipped (monotone)"
        else:
            extended = extend(manager, instance, sorted(manager.support(instance)))
            how = "support"
    if extended is not instance:
        # Only Extend can have grown the diagrams since Build's count (the value at the
        # full graph reads one path, and a negation is a complemented edge), and a count
        # with CUDD walks every variable's table.
        manager.check_budget()
    extended_at = time.perf_counter()

    in_upi = (manager.support(extended) if shortcuts
              else {v for v, member in zip(variables, extract(manager, extended, variables))
                    if member})
    mask = np.zeros(graph.num_edges, dtype=np.bool_)
    node_mask = np.zeros(graph.num_nodes, dtype=np.bool_)
    mask[[v.index for v in in_upi if v.kind == "edge"]] = True
    node_mask[[v.index for v in in_upi if v.kind == "node"]] = True
    done = time.perf_counter()

    return UpiReport(
        label=int(label), mask=mask, node_mask=node_mask, over=over, backend=manager.name,
        reorder=reorder, order=order, shortcuts=shortcuts,
        num_variables=len(variables), nodes_built=manager.dag_size(instance),
        nodes_extended=manager.dag_size(extended), manager_nodes=manager_nodes,
        memo_entries=memo_entries, build_seconds=built - start,
        extend_seconds=extended_at - built, extract_seconds=done - extended_at, extend=how)


def shaped(label: int, mask: BoolArray, node_mask: BoolArray,
           over: Over) -> tuple[int, BoolArray] | tuple[int, BoolArray, BoolArray]:
    """`(label, mask)` over edges, `(label, node_mask)` over nodes, all three over both."""
    if over == "edges":
        return label, mask
    if over == "nodes":
        return label, node_mask
    return label, mask, node_mask


@overload
def upi(prog: Program, graph: Graph, target: int | None = None,
        over: Literal["edges", "nodes"] = "edges", backend: str = "cudd",
        reorder: bool = False, shortcuts: bool = True,
        order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES
        ) -> tuple[int, BoolArray]: ...


@overload
def upi(prog: Program, graph: Graph, target: int | None = None, *, over: Literal["both"],
        backend: str = "cudd", reorder: bool = False, shortcuts: bool = True,
        order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES
        ) -> tuple[int, BoolArray, BoolArray]: ...


@overload
def upi(prog: Program, graph: Graph, target: int | None = None, over: Over = "edges",
        backend: str = "cudd", reorder: bool = False, shortcuts: bool = True,
        order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES
        ) -> tuple[int, BoolArray] | tuple[int, BoolArray, BoolArray]: ...


def upi(prog: Program, graph: Graph, target: int | None = None, over: Over = "edges",
        backend: str = "cudd", reorder: bool = False, shortcuts: bool = True,
        order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES
        ) -> tuple[int, BoolArray] | tuple[int, BoolArray, BoolArray]:
    """The exact ground-truth explanation.

    Over edges `(label, mask)`, `mask[e] = 1{e in UPI}`; over nodes
    `(label, node_mask)`, `node_mask[v] = 1{v in UPI}`; over both
    `(label, mask, node_mask)`. `label` is the classifier's value on the whole
    graph (a graph classifier) or at the target node (a node classifier: `target`,
    else `graph.target`). `max_nodes` is the ROBDD's node budget (`None`: none); a
    diagram that outgrows it raises `DiagramTooLarge`.
    """
    report = upi_report(prog, graph, target, over, backend=backend, reorder=reorder,
                        shortcuts=shortcuts, order=order, max_nodes=max_nodes)
    return shaped(report.label, report.mask, report.node_mask, over)


def upi_json(prog: Program, graph: Graph, target: int | None = None, over: Over = "edges",
             backend: str = "cudd", reorder: bool = False,
             order: VariableOrder = "computation", max_nodes: int | None = MAX_BDD_NODES,
             max_counter_steps: int = MAX_COUNTER_STEPS) -> dict[str, int | list[int]]:
    """The `gracrc upi` output for one graph: `{"label": 0|1, "mask": [0|1 per edge]}`
    over edges, `{"label", "node_mask": [0|1 per node]}` over nodes, all three over both."""
    report = upi_report(prog, graph, target, over, backend=backend, reorder=reorder, order=order,
                        max_nodes=max_nodes, max_counter_steps=max_counter_steps)
    record: dict[str, int | list[int]] = {"label": report.label}
    if over != "nodes":
        record["mask"] = [int(m) for m in report.mask]
    if over != "edges":
        record["node_mask"] = [int(m) for m in report.node_mask]
    return record
