"""Typed IR x graph -> ROBDD over edge variables: BuildNode (Algorithm 4), BuildGraph (Algorithm 5).

A subgraph `R` of `G` (all nodes, some edges) is the assignment `x_e = 1` iff
`e` is in `R` (§4.3). `build_node(phi, v)` is the diagram of
`R -> 1{(R, v) |= phi}` and `build_graph(Phi)` the diagram of `R -> 1{R |= Phi}`.

Edge `(s, t)` carries a message from `s` to `t`, so a modality at `v` counts the
in-edges `(u, v)` of `v` (each list entry separately; self-loops included): where
Algorithm 4 writes `e = (v, u)` for a neighbour `u`, we take the in-edge
`e = (u, v)`.

Every operator of the surface IR is built by its own meaning; derived operators are
built directly where that is smaller than their desugaring, always as the same
Boolean function (the property tests check each against the reference evaluator):

- `atleast N f` is Algorithm 4's threshold counter `C_N`; `atmost N f` is `!C_{N+1}`;
  `exactly N f` is `C_N & !C_{N+1}`; `between lo hi f` is `C_lo & !C_{hi+1}`, each
  from one counter run up to the largest threshold it needs.
- `[] f` is the conjunction over in-edges of `x_e -> f(u)`, which is `!<1> !f`
  without a counter.
- `more(f, g)` and `same(f, g)` run one counter of the difference
  `#f - #g` over the in-edges (App. C.2's `more` compares the two counts), with a
  state dropped or settled as soon as the remaining edges cannot change its verdict.
- `exists[lo, hi] f` is Algorithm 5's `C_lo & !C_{hi+1}`, its counter run only
  up to the largest threshold it needs.

A memo table keyed by (subformula, node) means no pair is built twice (App. D.2).
"""

from __future__ import annotations

from typing import Generic

import numpy as np

from gracr.bdd.backend import BDDBackend, F
from gracr.dsl import ir
from gracr.dsl.ir import Formula
from gracr.data.graph import Graph


class Builder(Generic[F]):
    """BuildNode and BuildGraph over one graph, sharing one memo table.

    The variables of every edge the formula reads must already be declared in
    `backend` (`build_classifier` does it).
    """

    def __init__(self, backend: BDDBackend[F], graph: Graph) -> None:
        self.backend = backend
        self.graph = graph
        # Subformulas are numbered once, so that the memo table hashes small
        # integers rather than (recursively) whole formulas.
        self._ids: dict[Formula, int] = {}
        self._formulas: list[Formula] = []
        self._kids: list[tuple[int, ...]] = []
        self._memo: dict[tuple[int, int], F] = {}
        order = np.argsort(graph.targets, kind="stable")
        bounds = np.searchsorted(graph.targets[order], np.arange(graph.num_nodes + 1))
        # in_edges[v]: the (edge, source) pairs of the edges (u, v), in edge-list order.
        self._in_edges: list[list[tuple[int, int]]] = [
            [(int(e), int(graph.sources[e])) for e in order[bounds[v]:bounds[v + 1]]]
            for v in range(graph.num_nodes)
        ]
        self._vars: dict[int, F] = {}

    # ------------------------------------------------------------ bookkeeping

    def _intern(self, formula: Formula) -> int:
        known = self._ids.get(formula)
        if known is not None:
            return known
        kids = tuple(self._intern(child) for child in ir.children(formula))
        self._ids[formula] = len(self._formulas)
        self._formulas.append(formula)
        self._kids.append(kids)
        return len(self._formulas) - 1

    def _x(self, edge: int) -> F:
        var = self._vars.get(edge)
        if var is None:
            var = self.backend.edge_var(edge)
            self._vars[edge] = var
        return var

    @property
    def memo_size(self) -> int:
        """How many (subformula, node) pairs have been built."""
        return len(self._memo)

    # ------------------------------------------------------------ Algorithm 4

    def build_node(self, formula: Formula, node: int) -> F:
        """BuildNode(phi, v, G) (Algorithm 4): the diagram of `R -> 1{(R, v) |= phi}`."""
        if isinstance(formula, ir.Exists):
            raise TypeError("a graph sentence has no value at a node")
        return self._node(self._intern(formula), node)

    def _node(self, fid: int, v: int) -> F:
        key = (fid, v)
        known = self._memo.get(key)
        if known is not None:
            return known
        b = self.backend
        kids = self._kids[fid]
        f: F
        match self._formulas[fid]:
            case ir.Top():  # line 4
                f = b.true
            case ir.Bottom():  # line 6
                f = b.false
            case ir.Color(name):  # line 8: node colours are constants, not variables
                f = b.true if name in self.graph.colors[v] else b.false
            case ir.Not():  # line 10
                f = b.neg(self._node(kids[0], v))
            case ir.And():  # line 12; the right side is not needed when the left is 0
                left = self._node(kids[0], v)
                f = left if b.is_false(left) else b.conj(left, self._node(kids[1], v))
            case ir.Or():  # line 14; likewise when the left side is 1
                left = self._node(kids[0], v)
                f = left if b.is_true(left) else b.disj(left, self._node(kids[1], v))
            case ir.Implies():
                left = self._node(kids[0], v)
                f = (b.true if b.is_false(left)
                     else b.disj(b.neg(left), self._node(kids[1], v)))
            case ir.Iff():
                f = b.iff(self._node(kids[0], v), self._node(kids[1], v))
            case ir.AtLeast(count):  # lines 16-26
                f = self._thresholds(kids[0], v, count)[count]
            case ir.AtMost(count):
                f = b.neg(self._thresholds(kids[0], v, count + 1)[count + 1])
            case ir.Exactly(count):
                c = self._thresholds(kids[0], v, count + 1)
                f = b.conj(c[count], b.neg(c[count + 1]))
            case ir.Between(low, high):
                c = self._thresholds(kids[0], v, high + 1)
                f = b.conj(c[low], b.neg(c[high + 1]))
            case ir.Box():
                f = self._box(kids[0], v)
            case ir.More():
                f = self._compare(kids[0], kids[1], v, strict=True)
            case ir.Same():
                f = self._compare(kids[0], kids[1], v, strict=False)
            case other:
                raise TypeError(f"not a node formula: {other!r}")
        self._memo[key] = f
        return f

    def _thresholds(self, fid: int, v: int, top: int) -> list[F]:
        """Algorithm 4, lines 17-25: `C_k` = "at least k in-edges (u, v) kept with phi(u)".

        Returns `[C_0, ..., C_top]`.
        """
        b = self.backend
        counters = [b.true] + [b.false] * top
        if top == 0:
            return counters  # `<0> phi` holds everywhere: no edge needs to be read
        for edge, source in self._in_edges[v]:
            phi_u = self._node(fid, source)
            if b.is_false(phi_u):
                continue  # this edge can never be counted
            t = b.conj(self._x(edge), phi_u)  # line 21
            for k in range(top, 0, -1):  # line 22-23, downwards so C_{k-1} is the old one
                counters[k] = b.disj(counters[k], b.conj(counters[k - 1], t))
        return counters

    def _box(self, fid: int, v: int) -> F:
        """`[] phi` at v: every kept in-edge (u, v) has phi(u), i.e. AND_e (x_e -> phi(u))."""
        b = self.backend
        f = b.true
        for edge, source in self._in_edges[v]:
            phi_u = self._node(fid, source)
            if not b.is_true(phi_u):
                f = b.conj(f, b.disj(b.neg(self._x(edge)), phi_u))
        return f

    def _compare(self, left: int, right: int, v: int, strict: bool) -> F:
        """`more(f, g)` (strict) or `same(f, g)` at v, from a counter of `#f - #g`.

        `states[d]` is "the kept in-edges read so far give `#f - #g = d`". An edge
        moves the difference up (its source has f but not g), down (g but not f),
        or not at all. A state whose verdict the remaining edges can no longer
        change is settled: added to `settled` when the comparison must hold,
        dropped when it cannot.
        """
        b = self.backend
        steps: list[tuple[F, F]] = []
        for edge, source in self._in_edges[v]:
            f_u = self._node(left, source)
            g_u = self._node(right, source)
            x = self._x(edge)
            up = b.conj(x, b.conj(f_u, b.neg(g_u)))
            down = b.conj(x, b.conj(g_u, b.neg(f_u)))
            if not (b.is_false(up) and b.is_false(down)):
                steps.append((up, down))
        settled = b.false
        states: dict[int, F] = {0: b.true}
        for index, (up, down) in enumerate(steps):
            stay = b.neg(b.disj(up, down))
            moved: dict[int, F] = {}
            for d, reach in states.items():
                for shift, cond in ((0, stay), (1, up), (-1, down)):
                    part = b.conj(reach, cond)
                    if not b.is_false(part):
                        previous = moved.get(d + shift)
                        moved[d + shift] = part if previous is None else b.disj(previous, part)
            remaining = len(steps) - index - 1
            states = {}
            for d, reach in moved.items():
                if strict and d - remaining > 0:
                    settled = b.disj(settled, reach)
                elif (strict and d + remaining <= 0) or (not strict and abs(d) > remaining):
                    continue
                else:
                    states[d] = reach
        final = [reach for d, reach in states.items() if (d > 0 if strict else d == 0)]
        for reach in final:
            settled = b.disj(settled, reach)
        return settled

    # ------------------------------------------------------------ Algorithm 5

    def build_graph(self, sentence: Formula) -> F:
        """BuildGraph(Phi, G) (Algorithm 5), for `exists[lo, hi]` and Boolean combinations."""
        b = self.backend
        match sentence:
            case ir.Exists(low, high, arg):
                return self._exists(low, high, self._intern(arg))
            case ir.Not(arg):
                return b.neg(self.build_graph(arg))
            case ir.And(left, right):
                first = self.build_graph(left)
                return first if b.is_false(first) else b.conj(first, self.build_graph(right))
            case ir.Or(left, right):
                first = self.build_graph(left)
                return first if b.is_true(first) else b.disj(first, self.build_graph(right))
            case ir.Implies(left, right):
                first = self.build_graph(left)
                return (b.true if b.is_false(first)
                        else b.disj(b.neg(first), self.build_graph(right)))
            case ir.Iff(left, right):
                return b.iff(self.build_graph(left), self.build_graph(right))
        raise TypeError(f"not a graph sentence: {sentence!r}")

    def _exists(self, low: int, high: int | None, fid: int) -> F:
        """Algorithm 5: `C_lo & !C_{hi+1}` over the node diagrams `f_v`.

        The counter runs up to the largest threshold needed, capped at |V| (no more
        than |V| nodes can satisfy anything), rather than always up to |V|.
        """
        b = self.backend
        n = self.graph.num_nodes
        if low > n:
            return b.false
        upper = None if high is None or high + 1 > n else high + 1  # line 12
        top = low if upper is None else upper
        counters = [b.true] + [b.false] * top  # lines 3-4
        if top > 0:
            for v in range(n):  # lines 5-10
                f_v = self._node(fid, v)
                if b.is_false(f_v):
                    continue
                for k in range(top, 0, -1):
                    counters[k] = b.disj(counters[k], b.conj(counters[k - 1], f_v))
        f = counters[low]  # line 11
        if upper is not None:  # lines 12-14
            f = b.conj(f, b.neg(counters[upper]))
        return f


def build_node(backend: BDDBackend[F], formula: Formula, graph: Graph, node: int) -> F:
    """BuildNode(phi, v, G) (Algorithm 4) with a fresh memo table."""
    return Builder(backend, graph).build_node(formula, node)


def build_graph(backend: BDDBackend[F], sentence: Formula, graph: Graph) -> F:
    """BuildGraph(Phi, G) (Algorithm 5) with a fresh memo table."""
    return Builder(backend, graph).build_graph(sentence)
