"""Typed IR x graph -> ROBDD over edge and node variables: BuildNode (Algorithm 4), BuildGraph (Algorithm 5).

A subgraph `R` of `G` is an assignment of the variables of `gracr.bdd.backend.Var`,
one of three kinds of removal (`over`):

- `"edges"` (§4.3): all nodes, some edges; `x_e = 1` iff edge `e` is in `R`;
- `"nodes"`: the subgraph induced by some nodes; `y_v = 1` iff node `v` is in `R`.
  Deleting a node deletes every edge incident to it and the node itself, so it is
  no longer counted by `exists`;
- `"both"`: some nodes and some edges; an edge is in `R` iff it is kept and both
  its ends are.

`build_node(phi, v)` is the diagram of `R -> 1{(R, v) |= phi}` and
`build_graph(Phi)` the diagram of `R -> 1{R |= Phi}`. A node classifier's target is
never removed (`kept`): its `y` is the constant 1 and gets no variable.

Edge `(s, t)` carries a message from `s` to `t`, so a modality at `v` counts the
in-edges `(u, v)` of `v` (each list entry separately; self-loops included): where
Algorithm 4 writes `e = (v, u)` for a neighbour `u`, we take the in-edge
`e = (u, v)`. Line 21's term `x_e & phi(u)` becomes `p_e & phi(u)` with the
presence `p_e = x_e & y_u & y_v` of the edge, each factor dropped where it is the
constant 1 (`x_e` over nodes only, `y` over edges only and for the kept node).
Over nodes the diagram is thus the edge diagram with `x_e` replaced by `y_u & y_v`,
which is what deleting the ends of an edge does to it. A modality with a relation
filter (`<1>{double} f`) never reads an in-edge of another relation: that edge is
not counted, so the modality does not depend on its variables at all.

Every operator of the surface IR is built by its own meaning; derived operators are
built directly where that is smaller than their desugaring, always as the same
Boolean function (the property tests check each against the reference evaluator):

- `atleast N f` is Algorithm 4's threshold counter `C_N`; `atmost N f` is `!C_{N+1}`;
  `exactly N f` is `C_N & !C_{N+1}`; `between lo hi f` is `C_lo & !C_{hi+1}`, each
  from one counter run up to the largest threshold it needs.
- `[] f` is the conjunction over in-edges of `p_e -> f(u)`, which is `!<1> !f`
  without a counter.
- `more(f, g)` and `same(f, g)` run one counter of the difference
  `#f - #g` over the in-edges (App. C.2's `more` compares the two counts), with a
  state dropped or settled as soon as the remaining edges cannot change its verdict.
- `exists[lo, hi] f` is Algorithm 5's `C_lo & !C_{hi+1}`, its counter run only
  up to the largest threshold it needs, over the terms `f_v & y_v` (over edges,
  `f_v`): a deleted node is not counted.
- A linear count sentence `Σ c_i count(f_i) op b` (ours) is a pseudo-Boolean
  constraint over the same terms, scaled to integers `k_i`: a counter of the partial
  sum `Σ k_i [t_i(v)]` over the nodes in turn, one state per reachable sum, a state
  settled (true) or dropped (false) as soon as the remaining nodes' least and largest
  contributions cannot change its verdict; the states are found on integers first
  (the step budget is checked there), the diagrams built backward from the last step. Each node contributes the sum of the `k_i`
  of the terms it satisfies, one branch per feasible combination; no subset of nodes
  is ever enumerated.

Colours, attribute values and threshold atoms over numeric features are constants at
each node, never variables (removing nodes or edges does not change a node's features). A memo
table keyed by (subformula, node) means no pair is built twice (App. D.2).

Its size (500–600 lines) is one `Builder`: Algorithms 4 and 5 and a counter per derived
operator share its memo table, presence terms and counting order, which a split would
have to pass around.
"""

from __future__ import annotations

from typing import Callable, Generic, Literal, Sequence

import math
from fractions import Fraction
from functools import partial

import numpy as np

from gracr.bdd.backend import BDDBackend, F, Var
from gracr.dsl import ir
from gracr.dsl.evaluate import sentence_terms, threshold_values
from gracr.errors import GracrError
from gracr.dsl.ir import Formula
from gracr.dsl.operators import (
    CONNECTIVES, Algebra, Connective, Operators, decided_by_first,
)
from gracr.data.graph import BoolArray, Graph

# The most (state, branch) steps one linear count's counter may take, counted on the
# integer partial sums before any diagram is built (`Builder._sum_at_least`): a tissue
# sample of 300 cells takes ~25 000 to ~155 000 (0.03 to 5 s to build backward, 12 s at a
# graph radius ratio of 3), one of 1 000 cells ~120 000 to ~150 000 (1 to 30 s: its diagram
# is 0.3 to 8 million nodes). Each step is at most three diagram operations, so the budget
# bounds the operations; the manager's node budget bounds their memory.
MAX_COUNTER_STEPS = 200_000


class CounterTooLarge(GracrError):
    """A linear count's pseudo-Boolean counter outgrew its step budget
    (`MAX_COUNTER_STEPS` by default, `--max-counter-steps`)."""

    def __init__(self, steps: int) -> None:
        super().__init__(f"the ROBDD of the linear count outgrew {steps:,} counter steps "
                         "(--max-counter-steps): the instance is too large for the exact "
                         "diagram (its Shapley and Banzhaf values can still be sampled: "
                         "gracrc relevance does it)")


Over = Literal["edges", "nodes", "both"]
OVER: tuple[Over, ...] = ("edges", "nodes", "both")


class Builder(Generic[F]):
    """BuildNode and BuildGraph over one graph, sharing one memo table.

    `over` names the variables (see the module docstring) and `kept` the node that
    is never removed (a node classifier's target), if any. `counting_order` is the
    order in which a linear count's counter takes the nodes (default: node order);
    the diagram's node variables top-down (`top_down_nodes`) let it build backward,
    each step's variables above the diagrams of the later steps (a 300-cell tissue
    sample of 95 783 nodes: 0.35 s, against 5 s for a forward counter bottom-up).
    `max_counter_steps` bounds each linear count's counter (`CounterTooLarge`). The
    variables of every edge and node the formula reads must already be declared in
    `backend` (`gracr.bdd.upi.upi_report` does it).
    """

    def __init__(self, backend: BDDBackend[F], graph: Graph, over: Over = "edges",
                 kept: int | None = None, counting_order: Sequence[int] | None = None,
                 max_counter_steps: int = MAX_COUNTER_STEPS,
                 operators: Operators = CONNECTIVES) -> None:
        if over not in OVER:
            raise ValueError(f"unknown removal {over!r}: use one of {', '.join(OVER)}")
        self.backend = backend
        self.graph = graph
        self.over = over
        self.kept = kept
        # Subformulas are numbered once, so that the memo table hashes small
        # integers rather than (recursively) whole formulas.
        self._ids: dict[Formula, int] = {}
        self._formulas: list[Formula] = []
        self._kids: list[tuple[int, ...]] = []
        self._memo: dict[tuple[int, int], F] = {}
        self._sentences: dict[Formula, F] = {}
        self._by_target = np.argsort(graph.targets, kind="stable")
        self._sorted_targets = graph.targets[self._by_target]
        # in_edges[v]: the (edge, source) pairs of the edges (u, v), in edge-list order,
        # listed when v is first read: a node classifier reads its receptive field only.
        self._in_edges: dict[int, list[tuple[int, int]]] = {}
        self._presence: dict[int, F] = {}
        self._admitted: dict[ir.Relations, BoolArray] = {}
        self._thresholds_met: dict[int, BoolArray] = {}
        self._counting_order = list(range(graph.num_nodes)) if counting_order is None \
            else list(counting_order)
        self.max_counter_steps = max_counter_steps
        self.operators = operators
        self._algebra: Algebra[F] = _BackendAlgebra(backend)

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

    def _always_kept(self, node: int) -> bool:
        """`y_v` is the constant 1: nodes are never removed, or `v` is the kept node."""
        return self.over == "edges" or node == self.kept

    def _kept_term(self, f: F, node: int) -> F:
        """`f & y_v`: `f` itself when `y_v` is the constant 1 (no engine call: building
        an edge cover of 10 000 edges makes tens of thousands of them)."""
        return f if self._always_kept(node) else self.backend.conj(f, self.backend.node_var(node))

    def _present(self, edge: int, source: int, node: int) -> F:
        """`p_e = x_e & y_u & y_v` for the edge `e = (u, v)`: it is in the subgraph."""
        known = self._presence.get(edge)
        if known is None:
            b = self.backend
            known = b.true if self.over == "nodes" else b.edge_var(edge)
            known = self._kept_term(known, source)
            if node != source:
                known = self._kept_term(known, node)
            self._presence[edge] = known
        return known

    def _read(self, v: int, relations: ir.Relations) -> list[tuple[int, int]]:
        """The in-edges `(edge, source)` of `v` that a modality with filter `relations` counts."""
        edges = self._in_edges.get(v)
        if edges is None:
            start, end = np.searchsorted(self._sorted_targets, (v, v + 1))
            edges = self._in_edges[v] = [(int(e), int(self.graph.sources[e]))
                                         for e in self._by_target[start:end]]
        if relations is None:
            return edges
        admitted = self._admitted.get(relations)
        if admitted is None:
            admitted = self._admitted[relations] = self.graph.relation_mask(relations)
        return [(edge, source) for edge, source in edges if admitted[edge]]

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
                f = b.true if name in self.graph.node_colors(v) else b.false
            case ir.Attribute(family, value):  # so are attribute values
                values = self.graph.attributes.get(family)
                f = b.true if values is not None and values[v] == value else b.false
            case ir.Threshold() as atom:  # and threshold atoms over numeric features
                met = self._thresholds_met.get(fid)
                if met is None:
                    met = self._thresholds_met[fid] = threshold_values(atom, self.graph)
                f = b.true if met[v] else b.false
            case connective if type(connective) in self.operators:  # lines 10-14
                f = self._connective(self.operators[type(connective)],
                                     [partial(self._node, kid, v) for kid in kids])
            case ir.AtLeast(count, _, relations):  # lines 16-26
                f = self._at(self._thresholds(kids[0], v, count, relations), count)
            case ir.AtMost(count, _, relations):
                c = self._thresholds(kids[0], v, count + 1, relations)
                f = b.neg(self._at(c, count + 1))
            case ir.Exactly(count, _, relations):
                c = self._thresholds(kids[0], v, count + 1, relations)
                f = b.conj(self._at(c, count), b.neg(self._at(c, count + 1)))
            case ir.Between(low, high, _, relations):
                c = self._thresholds(kids[0], v, high + 1, relations)
                f = b.conj(self._at(c, low), b.neg(self._at(c, high + 1)))
            case ir.Box(_, relations):
                f = self._box(kids[0], v, relations)
            case ir.More(_, _, relations):
                f = self._compare(kids[0], kids[1], v, relations, strict=True)
            case ir.Same(_, _, relations):
                f = self._compare(kids[0], kids[1], v, relations, strict=False)
            case other:
                raise TypeError(f"not a node formula: {other!r}")
        self._memo[key] = f
        return f

    def _thresholds(self, fid: int, v: int, top: int, relations: ir.Relations) -> list[F]:
        """Algorithm 4, lines 17-25: `C_k` = "at least k in-edges (u, v) present with phi(u)",
        counting only the in-edges of `relations`.

        Returns `[C_0, ..., C_m]` for m = min(top, number of in-edges read): `C_k` for
        a larger k is the constant 0 (fewer edges than k can be counted), which `_at`
        reads, so a count far above every degree costs nothing.
        """
        b = self.backend
        edges = self._read(v, relations)
        counting = min(top, len(edges))
        if top == 0:
            return [b.true]  # `<0> phi` holds everywhere: no edge needs to be read
        terms: list[F] = []
        for edge, source in edges:
            phi_u = self._node(fid, source)
            if b.is_false(phi_u):
                continue  # this edge can never be counted
            present = self._present(edge, source, v)
            terms.append(present if b.is_true(phi_u) else b.conj(present, phi_u))  # line 21
        return self._count(terms, counting)

    def _count(self, terms: list[F], top: int) -> list[F]:
        """`[C_0, ..., C_top]`, `C_k` = "at least k of `terms` hold" (Algorithm 4, lines
        22-23).

        A count does not depend on the order its terms are taken in, so they are taken
        bottom-up, the one whose first variable lies lowest in the order first: each
        step then puts its term's variables above the counters built so far, which
        CUDD does in a few steps, where top-down it walks the counters anew each time
        (the edge cover at N = 100: 10 000 disjunctions, 30 ms against 2 ms).
        """
        counters = [self.backend.true] + [self.backend.false] * top
        for t in sorted(terms, key=self.backend.top_level, reverse=True):
            self._add_to_count(counters, t)
        return counters

    def _add_to_count(self, counters: list[F], t: F) -> None:
        """One more term of the counters `[C_0, ..., C_top]`: `C_k |= C_{k-1} & t`."""
        b = self.backend
        for k in range(len(counters) - 1, 0, -1):  # downwards: C_{k-1} is still the old one
            # C_0 is the constant 1, so C_0 & t is t.
            counters[k] = b.disj(counters[k], t if k == 1 else b.conj(counters[k - 1], t))

    def _at(self, counters: list[F], k: int) -> F:
        """`C_k` of `_thresholds`' counters (0 past their end)."""
        return counters[k] if k < len(counters) else self.backend.false

    def _box(self, fid: int, v: int, relations: ir.Relations) -> F:
        """`[] phi` at v: every present in-edge (u, v) of `relations` has phi(u), i.e.
        AND_e (p_e -> phi(u))."""
        b = self.backend
        f = b.true
        for edge, source in self._read(v, relations):
            phi_u = self._node(fid, source)
            if not b.is_true(phi_u):
                f = b.conj(f, b.disj(b.neg(self._present(edge, source, v)), phi_u))
        return f

    def _compare(self, left: int, right: int, v: int, relations: ir.Relations,
                 strict: bool) -> F:
        """`more(f, g)` (strict) or `same(f, g)` at v, from a counter of `#f - #g`.

        `states[d]` is "the present in-edges read so far give `#f - #g = d`". An edge
        moves the difference up (its source has f but not g), down (g but not f),
        or not at all. A state whose verdict the remaining edges can no longer
        change is settled: added to `settled` when the comparison must hold,
        dropped when it cannot.
        """
        b = self.backend
        steps: list[tuple[F, F]] = []
        for edge, source in self._read(v, relations):
            f_u = self._node(left, source)
            g_u = self._node(right, source)
            present = self._present(edge, source, v)
            up = b.conj(present, b.conj(f_u, b.neg(g_u)))
            down = b.conj(present, b.conj(g_u, b.neg(f_u)))
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

    def term_support(self, sentence: Formula) -> set[int]:
        """The nodes a graph sentence can depend on, without running its counters: the
        union, over its `exists` and `count` terms `f` and the nodes v where `f_v` is not
        constantly false, of v and the nodes of supp(`f_v`). Exact as a bound: the
        sentence is a function of the term values `f_v & y_v`, so a node outside is a
        null player. Cheap where the counter is not (a tissue sample of 3 000 cells:
        its ~300 tumour cells and their tcells), so the sampled relevance of an instance
        whose counter is refused samples only these players."""
        nodes: set[int] = set()
        for term in sentence_terms(sentence):
            fid = self._intern(term)
            for v in range(self.graph.num_nodes):
                f_v = self._node(fid, v)
                if self.backend.is_false(f_v):
                    continue
                nodes.add(v)
                nodes.update(var.index for var in self.backend.support(f_v)
                             if var.kind == "node")
        return nodes

    def build_graph(self, sentence: Formula) -> F:
        """BuildGraph(Phi, G) (Algorithm 5), for `exists[lo, hi]` and Boolean combinations.

        A sentence shared through `let` is built once (`_sentences`)."""
        known = self._sentences.get(sentence)
        if known is None:
            known = self._sentences[sentence] = self._graph(sentence)
        return known

    def _graph(self, sentence: Formula) -> F:
        b = self.backend
        match sentence:
            case ir.Exists(low, high, arg):
                return self._exists(low, high, self._intern(arg))
            case ir.CountCompare(coefficients, args, op, bound):
                return self._linear(coefficients, args, op, bound)
            case connective if type(connective) in self.operators:
                return self._connective(
                    self.operators[type(connective)],
                    [partial(self.build_graph, kid) for kid in ir.children(sentence)])
        raise TypeError(f"not a graph sentence: {sentence!r}")

    def _connective(self, connective: Connective, arguments: list[Callable[[], F]]) -> F:
        """A connective over its arguments' diagrams, built in order; the others are not
        built when the first one's constant value decides (`false & _`, `true | _`)."""
        b = self.backend
        first = arguments[0]()
        constant = True if b.is_true(first) else False if b.is_false(first) else None
        if constant is not None and connective.arity > 1:
            decided = decided_by_first(connective, constant)
            if decided is not None:
                return b.true if decided else b.false
        built: F = connective.meaning(self._algebra, first,
                                      *(argument() for argument in arguments[1:]))
        return built

    def _exists(self, low: int, high: int | None, fid: int) -> F:
        """Algorithm 5: `C_lo & !C_{hi+1}` over the node terms `f_v & y_v`.

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
            # Each node's term is counted as soon as it is built, in node order (not all
            # built first and counted bottom-up as `_count` does): with CUDD's dynamic
            # reordering, a manager holding every term at once is sifted far longer (the
            # edge cover at N = 48: over 40 s against 3 s).
            for v in range(n):  # lines 5-10
                f_v = self._node(fid, v)
                if not b.is_false(f_v):  # a deleted node is not counted: f_v & y_v
                    self._add_to_count(counters, self._kept_term(f_v, v))
        f = counters[low]  # line 11
        if upper is not None:  # lines 12-14
            f = b.conj(f, b.neg(counters[upper]))
        return f


    def _linear(self, coefficients: tuple[Fraction, ...], args: tuple[Formula, ...], op: str,
                bound: Fraction) -> F:
        """`Σ c_i count(f_i) op bound`, scaled to integers (see the module docstring)."""
        scale = math.lcm(*(c.denominator for c in (*coefficients, bound)))
        weights = [int(c * scale) for c in coefficients]
        target = int(bound * scale)
        fids = [self._intern(arg) for arg in args]
        negated = [-w for w in weights]
        match op:
            case ">":
                return self._sum_at_least(weights, fids, target + 1)
            case ">=":
                return self._sum_at_least(weights, fids, target)
            case "<":
                return self._sum_at_least(negated, fids, 1 - target)
            case "<=":
                return self._sum_at_least(negated, fids, -target)
            case "=":
                at_least = self._sum_at_least(weights, fids, target)
                if self.backend.is_false(at_least):
                    return at_least
                return self.backend.conj(at_least, self._sum_at_least(negated, fids, -target))
        raise TypeError(f"unknown comparison {op!r}")

    def _contributions(self, weights: list[int], fids: list[int], v: int) -> list[tuple[int, F]]:
        """What node v adds to `Σ_i k_i [t_i(v)]`, `t_i(v) = f_i(v) & y_v`: each possible
        amount with the diagram of when v adds it (amounts distinct, conditions disjoint,
        their disjunction true)."""
        b = self.backend
        options: dict[int, F] = {0: b.true}
        for weight, fid in zip(weights, fids):
            term = self._node(fid, v)
            if b.is_false(term):
                continue
            term = self._kept_term(term, v)
            grown: dict[int, F] = {}
            for amount, condition in options.items():
                for shift, part in ((weight, b.conj(condition, term)),
                                    (0, b.conj(condition, b.neg(term)))):
                    if b.is_false(part):
                        continue
                    known = grown.get(amount + shift)
                    grown[amount + shift] = part if known is None else b.disj(known, part)
            options = grown
        return list(options.items())

    def _sum_at_least(self, weights: list[int], fids: list[int], need: int) -> F:
        """`Σ_v Σ_i k_i [t_i(v)] ≥ need`: the pseudo-Boolean counter over the nodes.

        Two passes. Forward, over integers only: the partial sums each step can reach
        (no diagram yet), a sum dropped or settled as soon as the remaining nodes' least
        and largest contributions decide it. Their `states × options` is the counter's
        work, checked against `max_counter_steps` before any diagram is built, so a
        counter that will not fit is refused at once, never left running (an upper
        bound of the diagrams' work: a sum whose conditions contradict is counted too).
        Backward: `rest[s]`, the diagram of "the remaining steps bring sum `s` to
        `need`", from the last step up, `rest_j[s] = OR_o (condition_o & rest_{j+1}[s +
        amount_o])`. The steps follow the variable order top-down (`counting_order`), so
        each conjunction puts a step's few variables above diagrams over the later
        steps' and costs about their size, where a forward counter disjoins whole
        diagrams over every variable read so far (one 1 000-cell tissue sample: minutes).
        """
        b = self.backend
        steps = [options for v in self._counting_order
                 if (options := self._contributions(weights, fids, v)) != [(0, b.true)]]
        least = [min(amount for amount, _ in options) for options in steps]
        most = [max(amount for amount, _ in options) for options in steps]
        # What the nodes from step j on can still add, at least and at most.
        rest_least = np.concatenate([np.cumsum(least[::-1])[::-1], [0]]).astype(np.int64)
        rest_most = np.concatenate([np.cumsum(most[::-1])[::-1], [0]]).astype(np.int64)
        if rest_least[0] >= need:
            return b.true
        if rest_most[0] < need:
            return b.false
        # open_sums[j]: the undecided partial sums before step j.
        open_sums: list[list[int]] = [[0]]
        work = 0
        for j, options in enumerate(steps):
            work += len(open_sums[-1]) * len(options)
            if work > self.max_counter_steps:
                raise CounterTooLarge(self.max_counter_steps)
            reached = {total + amount for total in open_sums[-1] for amount, _ in options}
            open_sums.append(sorted(
                total for total in reached
                if total + rest_least[j + 1] < need <= total + rest_most[j + 1]))
        later: dict[int, F] = {}
        for j in range(len(steps) - 1, -1, -1):
            def after(total: int, j: int = j) -> F:
                if total + rest_least[j + 1] >= need:
                    return b.true
                if total + rest_most[j + 1] < need:
                    return b.false
                return later[total]
            current: dict[int, F] = {}
            for total in open_sums[j]:
                f = b.false
                for amount, condition in steps[j]:
                    f = b.disj(f, b.conj(condition, after(total + amount)))
                current[total] = f
            later = current
        return later[0]


class _BackendAlgebra(Generic[F]):
    """A backend's diagrams as the values of `gracr.dsl.operators` meanings."""

    def __init__(self, backend: BDDBackend[F]) -> None:
        self.backend = backend

    def neg(self, a: F) -> F:
        return self.backend.neg(a)

    def conj(self, a: F, b: F) -> F:
        return self.backend.conj(a, b)

    def disj(self, a: F, b: F) -> F:
        return self.backend.disj(a, b)

    def implies(self, a: F, b: F) -> F:
        return self.backend.disj(self.backend.neg(a), b)

    def iff(self, a: F, b: F) -> F:
        return self.backend.iff(a, b)


def top_down_nodes(variables: Sequence[Var], num_nodes: int) -> list[int]:
    """The nodes in their variables' order in `variables` (the static order), then the
    nodes without a variable: `Builder`'s cheap `counting_order`."""
    with_variable = [v.index for v in variables if v.kind == "node"]
    seen = set(with_variable)
    return with_variable + [v for v in range(num_nodes) if v not in seen]


def build_node(backend: BDDBackend[F], formula: Formula, graph: Graph, node: int,
               over: Over = "edges") -> F:
    """BuildNode(phi, v, G) (Algorithm 4) with a fresh memo table; `v` is never removed."""
    return Builder(backend, graph, over, kept=node).build_node(formula, node)


def build_graph(backend: BDDBackend[F], sentence: Formula, graph: Graph,
                over: Over = "edges") -> F:
    """BuildGraph(Phi, G) (Algorithm 5) with a fresh memo table."""
    return Builder(backend, graph, over).build_graph(sentence)
