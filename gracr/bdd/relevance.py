"""Signed, exact node-level relevance from the ROBDD: counterfactuals, Banzhaf, Shapley.

The game. For a program and a graph with nodes `V` (less a node classifier's target,
which is never removed), `v(S)` is the label (1 positive) of the subgraph induced by
`S <= V`: the deletion semantics of `gracr.bdd.build` (`over="nodes"`), whose diagram
`f` over the node variables `y_v` (`y_v = 1`: node `v` kept) is `v` itself. Every
quantity below is read off that one diagram, never by enumerating subsets:

1. Counterfactuals. A removal `R <= V` flips the label when `v(V - R) != v(V)`.
   `counterfactual[v]` says whether `v` lies in some inclusion-minimal flipping
   removal, and `min_counterfactual` is the size of the smallest one (`None` when no
   removal flips the label). The minimal elements of a family are those of its
   superset closure, and the variables occurring in the minimal true points of a
   monotone function are exactly the variables it depends on; so the union is the
   support of the closure, built like Algorithm 2 (Extend) of `gracr.bdd.upi` with
   `|` in place of `&` (`h <- h | h|y=1` for each variable: a removal flips if a
   smaller one does), skipped when `gracr.bdd.polarity` finds the function already
   closed. The minimum size is a shortest path in `f`, removing a node costing 1.
2. Banzhaf: `beta_i = 2^-(n-1) sum_{S <= V - i} v(S + i) - v(S)
   = P(f | y_i = 1) - P(f | y_i = 0)` under the uniform distribution, the partial
   derivative of the multilinear extension `P`. One bottom-up pass gives `P` at every
   diagram node, one top-down pass the probability `reach(u)` of reaching it, and
   `beta_i = sum over nodes u labelled i of reach(u) (P(high u) - P(low u))`.
3. Shapley: `phi_i = sum_{S <= V - i} |S|! (n - |S| - 1)! / n! (v(S + i) - v(S))`,
   exactly, by the polynomial algorithm of Arenas, Barcelo, Bertossi and Monet, "The
   Tractability of SHAP-Score-Based Explanations over Deterministic and Decomposable
   Boolean Circuits" (AAAI 2021), which applies since an ROBDD is a deterministic and
   decomposable circuit: size-indexed model counts (generating polynomials in the
   number of kept nodes) bottom-up and top-down, at a cost growing with `|BDD| n^2`.
   Beyond `max_exact` support variables, Monte Carlo permutation sampling instead
   (`sample_indices`; `shapley_method` says which ran, with a standard error per value).

`n` is the size of the diagram's SUPPORT: a node the diagram does not depend on is a
dummy player, whose Banzhaf and Shapley values are 0 and whose presence does not
change any other player's value (both indices are unchanged by adding a null player),
and which is in no minimal flipping removal. So each index is computed over the
support alone and the others get 0 (and `False`).

Complemented edges (both `dd` engines have them) are expanded away once, in
`export`: the node `(u, p)` is the function of `u` negated when `p`, which gives the
plain ROBDD of `f` (at most twice the nodes). Exact results are float64: the
algorithms are exact, so the error is rounding, around 1e-12 (support below 1000,
where the model counts stay finite in float64).

When the diagram is refused (`sampled_relevance`: over `max_players` players, before
it is built, or over a build budget), Banzhaf and Shapley values are both sampled, and
say so. The sampler (`sample_indices`) needs no diagram: the game is a function of
counts of node formulas, and a player's removal changes them only within the modal
depth of the player, so each game value is updated from the last on a small subgraph;
one stream of permutations serves both indices, in rounds until every standard error
is at most `max_stderr` (0.01 by default).

Its size (700–800 lines) is one game read four ways (counterfactuals, Banzhaf, exact and
sampled Shapley) from one exported diagram, plus the diagram-free sampling: the
level-by-level passes share the export's arrays.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Literal

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import MAX_BDD_NODES, DiagramTooLarge, Var
from gracr.bdd.build import MAX_COUNTER_STEPS, CounterTooLarge
from gracr.bdd.polarity import polarity
from gracr.bdd.upi import build_instance, resolve_target, value_at_full_graph
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.data.graph import Graph
from gracr.limits import DEFAULT_MAX_BYTES, format_bytes

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ShapleyMethod = Literal["exact", "monte-carlo"]

MAX_EXACT = 200            # the default largest support for exact Shapley values
EXACT_LIMIT = 1000         # past it the model counts (up to 2^n) overflow float64
PERMUTATIONS = 2000        # the default number of sampled permutations (a round of them)
MAX_STDERR = 0.01          # sampled values: rounds are drawn until every standard error is at most it
MAX_PERMUTATIONS = 50_000  # ... or this many permutations were drawn
MAX_PLAYERS = 200          # the most players (nodes the label can depend on) for a diagram:
                           # with MAX_EXACT, an instance is all exact or all sampled by default
FALSE, TRUE = 0, 1         # the indices of the terminals in an exported diagram
_BATCH_CELLS = 1 << 20     # node values the sampler evaluates at once


# ---------------------------------------------------------------- the plain diagram


@dataclass(frozen=True)
class Diagram:
    """A plain ROBDD (no complemented edges) as arrays, for numeric passes over it.

    Nodes 0 and 1 are the terminals false and true; the others follow in post-order
    (children before parents), so index order is a topological order. `level[u]` is
    the position of `u`'s variable in `variables` (the support, in the diagram's
    order), `n` for the terminals, whose `low` and `high` point to themselves (so a
    vectorised walk can keep stepping once it has arrived).
    """

    variables: tuple[Var, ...]
    level: IntArray
    low: IntArray
    high: IntArray
    root: int

    @property
    def n(self) -> int:
        """The support size."""
        return len(self.variables)

    @property
    def size(self) -> int:
        """Nodes, both terminals included."""
        return int(self.level.shape[0])


def export(f: Any) -> Diagram:
    """The diagram of a `dd` function handle (either engine) as a plain `Diagram`.

    Both engines store a node once with its regular function and mark an edge as
    complemented (`negated`); the terminal is `true`, `false` being its complement.
    `(regular node, parity)` pairs are exactly the distinct subfunctions of `f`, hence
    the nodes of the plain ROBDD. An explicit stack, not recursion: a diagram can be
    as deep as its support.
    """
    ids: dict[tuple[int, bool], int] = {}
    levels_seen: dict[int, str] = {}
    rows: list[tuple[int, int, int]] = []  # (engine level, low id, high id) per internal node

    def regular(h: Any) -> Any:
        return ~h if h.negated else h

    def key(h: Any, parity: bool) -> tuple[int, bool]:
        return int(regular(h)), parity ^ bool(h.negated)

    def leaf(h: Any, parity: bool) -> int | None:
        if h.var is None:
            return FALSE if parity ^ bool(h.negated) else TRUE
        return ids.get(key(h, parity))

    stack: list[tuple[Any, bool]] = [(f, False)]
    while stack:
        h, parity = stack[-1]
        if leaf(h, parity) is not None:
            stack.pop()
            continue
        p = parity ^ bool(h.negated)
        node = regular(h)
        low, high = node.low, node.high
        low_id, high_id = leaf(low, p), leaf(high, p)
        if low_id is None or high_id is None:
            if low_id is None:
                stack.append((low, p))
            if high_id is None:
                stack.append((high, p))
            continue
        stack.pop()
        levels_seen[int(node.level)] = str(node.var)
        ids[key(h, parity)] = len(rows) + 2
        rows.append((int(node.level), low_id, high_id))
    root = leaf(f, False)
    assert root is not None
    order = sorted(levels_seen)
    position = {level: i for i, level in enumerate(order)}
    n = len(order)
    level = np.array([n, n] + [position[r[0]] for r in rows], dtype=np.int64)
    low = np.array([FALSE, TRUE] + [r[1] for r in rows], dtype=np.int64)
    high = np.array([FALSE, TRUE] + [r[2] for r in rows], dtype=np.int64)
    return Diagram(tuple(Var.named(levels_seen[lv]) for lv in order), level, low, high, root)


# ---------------------------------------------------------------- the indices


def _levels(diagram: Diagram) -> list[IntArray]:
    """The internal nodes of each level, top level first.

    Every edge goes to a deeper level, so a pass that handles whole levels bottom-up
    (or top-down) sees every child (parent) of a level before the level itself: each
    pass below is a few numpy operations per level rather than Python per node.
    """
    internal = np.arange(2, diagram.size, dtype=np.int64)
    by_level = internal[np.argsort(diagram.level[2:], kind="stable")]
    bounds = np.searchsorted(diagram.level[by_level], np.arange(diagram.n + 1))
    return [by_level[bounds[i]:bounds[i + 1]] for i in range(diagram.n)]


def min_flip(diagram: Diagram, label: int) -> int | None:
    """The fewest variables to set to 0 (nodes to remove) for `f` to leave `label`.

    A shortest path to the other terminal: a low edge costs 1, a high edge 0, and a
    variable a path skips stays kept (cost 0). `None` if no path reaches it.
    """
    goal = TRUE if label == 0 else FALSE
    unreachable = diagram.n + 1
    dist = np.full(diagram.size, unreachable, dtype=np.int64)
    dist[goal] = 0
    for nodes in reversed(_levels(diagram)):
        dist[nodes] = np.minimum(dist[diagram.high[nodes]], 1 + dist[diagram.low[nodes]])
    best = int(dist[diagram.root])
    return None if best >= unreachable else best


def banzhaf(diagram: Diagram) -> FloatArray:
    """`beta_i = P(f | y_i = 1) - P(f | y_i = 0)` (uniform `P`) for each support variable.

    The derivative of the multilinear extension: a random path passes through at most
    one node labelled `i` and the paths that skip level `i` do not depend on `y_i`, so
    `beta_i = sum_{u labelled i} reach(u) (P(high u) - P(low u))`. Two linear passes,
    `P` bottom-up and `reach` top-down.
    """
    levels, low, high = _levels(diagram), diagram.low, diagram.high
    prob = np.zeros(diagram.size)
    prob[TRUE] = 1.0
    for nodes in reversed(levels):
        prob[nodes] = 0.5 * (prob[low[nodes]] + prob[high[nodes]])
    reach = np.zeros(diagram.size)
    reach[diagram.root] = 1.0
    beta = np.zeros(diagram.n)
    for i, nodes in enumerate(levels):
        r = reach[nodes]
        beta[i] = float(r @ (prob[high[nodes]] - prob[low[nodes]]))
        np.add.at(reach, low[nodes], 0.5 * r)
        np.add.at(reach, high[nodes], 0.5 * r)
    return beta


def _lift(rows: FloatArray, gaps: IntArray) -> FloatArray:
    """`rows[j] * (1 + x)^gaps[j]` for each j: the size-indexed counts once `gaps[j]`
    more variables are free (each kept or not). The degrees must stay below the width.

    Step `s` multiplies by `(1 + x)` (`p <- p + x p`) the rows whose gap is at least
    `s`: sorted by decreasing gap, a prefix of them. `max(gaps)` vectorised steps,
    `O(n g)` work a row.
    """
    if rows.shape[0] == 0 or not gaps.any():
        return rows.copy()
    order = np.argsort(-gaps, kind="stable")
    block = rows[order]
    remaining = np.bincount(gaps, minlength=int(gaps.max()) + 1)[::-1].cumsum()[::-1]
    for step in range(1, remaining.shape[0]):
        count = int(remaining[step])  # rows with a gap >= step
        block[:count, 1:] += block[:count, :-1].copy()
    lifted = np.empty_like(block)
    lifted[order] = block
    return lifted


def shapley_exact(diagram: Diagram, max_bytes: int = DEFAULT_MAX_BYTES) -> FloatArray:
    """Exact Shapley values of the support variables (Arenas et al., AAAI 2021).

    `bottom[w][b]`: the assignments of the variables at levels `>= level(w)` with `b`
    ones on which `w` is true; `top[u][a]`: the assignments of the levels above `u`
    with `a` ones whose path reaches `u`; a skipped level multiplies by `(1 + x)`.
    The paths through the nodes `u` labelled `i` partition the assignments of the
    other variables that do not skip level `i`, and those that skip it do not depend
    on `y_i`, so `D_i[k] = #{S <= V - i, |S| = k: v(S + i) = 1} - #{...: v(S) = 1}`
    is the sum over those `u` of the product `top[u] * (bottom'[high u] -
    bottom'[low u])` (`'`: lifted to the levels below `i`); and then
    `phi_i = sum_k D_i[k] k! (n - k - 1)! / n!`. Rows of length `n + 1` per node,
    each level's nodes at once (`_lift`, and one matrix product for the sum of
    the products): `O(|BDD| n^2)` time, `O(|BDD| n)` memory: two float64 rows of
    `n + 1` per node, refused (`GracrError`) past `max_bytes`.
    """
    n, size, low, high, level = (diagram.n, diagram.size, diagram.low, diagram.high,
                                 diagram.level)
    if n == 0:
        return np.zeros(0)
    if n > EXACT_LIMIT:
        raise GracrError(f"exact Shapley values over {n} variables overflow float64 "
                         f"(at most {EXACT_LIMIT}): use Monte Carlo")
    needed = 2 * size * (n + 1) * 8
    if needed > max_bytes:
        raise GracrError(f"exact Shapley values on a diagram of {size:,} nodes over {n} "
                         f"variables take {format_bytes(needed)}, over the budget of "
                         f"{format_bytes(max_bytes)}: lower max_exact to sample them")
    levels = _levels(diagram)

    def below(nodes: IntArray, i: int) -> tuple[FloatArray, FloatArray]:
        """`bottom'` of the low and high children of `nodes` (at level `i`)."""
        lo, hi = low[nodes], high[nodes]
        return (_lift(bottom[lo], level[lo] - i - 1), _lift(bottom[hi], level[hi] - i - 1))

    bottom = np.zeros((size, n + 1))
    bottom[TRUE, 0] = 1.0
    for i in range(n - 1, -1, -1):
        nodes = levels[i]
        after_low, after_high = below(nodes, i)
        rows = after_low
        rows[:, 1:] += after_high[:, :-1]  # the variable itself kept: one more 1
        bottom[nodes] = rows

    top = np.zeros((size, n + 1))
    above = int(level[diagram.root])  # the variables above the root are free
    top[diagram.root, :above + 1] = [float(math.comb(above, a)) for a in range(above + 1)]
    diff = np.zeros((n, n))
    for i in range(n):
        nodes = levels[i]
        reached = top[nodes]
        after_low, after_high = below(nodes, i)
        # sum over the nodes of the products top[u] * q[u]: the anti-diagonals of top^T q
        products = reached[:, :i + 1].T @ (after_high - after_low)[:, :n - i]
        for a in range(i + 1):
            diff[i, a:a + n - i] += products[a]
        for children, kept in ((low[nodes], False), (high[nodes], True)):
            internal = children >= 2
            passed = _lift(reached[internal], level[children[internal]] - i - 1)
            if kept:
                passed[:, 1:] = passed[:, :-1].copy()
                passed[:, 0] = 0.0
            np.add.at(top, children[internal], passed)
    weights = np.array([1.0 / (n * math.comb(n - 1, k)) for k in range(n)])
    result: FloatArray = diff @ weights
    return result

# ---------------------------------------------------------------- sampling, incrementally


@dataclass(frozen=True)
class SampledIndices:
    """Shapley and Banzhaf values sampled from one stream of permutations, with the
    standard error of each and the permutations drawn."""

    shapley: FloatArray
    shapley_stderr: FloatArray
    banzhaf: FloatArray
    banzhaf_stderr: FloatArray
    permutations: int


@dataclass(frozen=True)
class _Region:
    """Where one player's effect on the counts is computed: the subgraph induced by the
    nodes within the modal depth of its ball, each node's place among the players (-1
    for a node that is not one), which nodes are counted (its ball's), and the player's
    own index in the subgraph."""

    graph: Graph
    places: IntArray
    counted: BoolArray
    player: int


def _forward_ball(graph: Graph, start: int, depth: int) -> BoolArray:
    """The nodes `start` reaches along at most `depth` edges (itself included): those
    whose node formulas of modal depth <= `depth` can change when `start` is removed."""
    ball = np.zeros(graph.num_nodes, dtype=np.bool_)
    ball[start] = True
    for _ in range(depth):
        ball[graph.targets[ball[graph.sources]]] = True
    return ball


def _backward_ball(graph: Graph, nodes: BoolArray, depth: int) -> BoolArray:
    """The nodes that reach `nodes` along at most `depth` edges (them included)."""
    ball = nodes.copy()
    for _ in range(depth):
        ball[graph.sources[ball[graph.targets]]] = True
    return ball


def sample_indices(prog: Program, graph: Graph, node: int | None, players: IntArray,
                   permutations: int, seed: int, max_stderr: float,
                   max_permutations: int) -> SampledIndices:
    """Shapley and Banzhaf values of `players` (every other node kept throughout) by
    sampling, every game value updated incrementally.

    The game is a function of counts (a graph classifier's sentence of the counts of
    its terms, a node classifier's value at `node`: the count of the classifier at
    that one node), and removing player p changes a node formula only at the nodes
    within the modal depth of p (`_forward_ball`), whose values depend only on the
    nodes within the modal depth of those (`_backward_ball`): p's effect on the counts
    is computed on that small induced subgraph, for every sample at once.

    Each sample is one uniform permutation. Shapley: every player's marginal on its
    predecessors, the counts of each prefix the running sum of the players' effects
    in order. Banzhaf, from the same permutation: its prefix of a Binomial(n, 1/2)
    length is a uniform random subset S of the players, and every player's paired
    marginal `v(S + i) - v(S - i)` (a null player's exactly 0) is read from the counts
    of S and its effect on S. Rounds of (at most) `permutations` samples are drawn
    (`numpy.random.default_rng(seed)`) until every standard error, Shapley and Banzhaf,
    is at most `max_stderr`, or `max_permutations` samples were drawn (`permutations` in
    the result says how many).
    """
    from gracr.dsl import ir
    from gracr.dsl.evaluate import node_values_kept, sentence_from_counts, sentence_terms

    n, total = len(players), graph.num_nodes
    if n == 0:
        zero = np.zeros(0)
        return SampledIndices(zero, zero, zero, zero, 0)
    if not 2 <= permutations <= max_permutations:
        raise GracrError(f"sampling needs 2 <= permutations <= max_permutations, got "
                         f"{permutations} and {max_permutations}")
    if not max_stderr >= 0:
        raise GracrError(f"max_stderr must be a number >= 0, got {max_stderr}")
    graph_kind = prog.kind is ir.Kind.GRAPH
    scoped = graph.with_target(None if graph_kind else node)
    terms = sentence_terms(prog.classifier) if graph_kind else [prog.classifier]
    counted_nodes = np.ones(total, dtype=np.bool_)
    if not graph_kind:
        counted_nodes[:] = False
        counted_nodes[node] = True
    depth = prog.modal_depth
    position_of = np.full(total, -1, dtype=np.int64)
    position_of[players] = np.arange(n)

    # The counts with every player removed.
    empty = np.ones((1, total), dtype=np.bool_)
    empty[0, players] = False
    values = node_values_kept(terms, prog.kind, scoped, empty)
    base = np.array([int((values[t][0] & empty[0] & counted_nodes).sum()) for t in terms],
                    dtype=np.int64)

    regions: list[_Region | None] = []
    for p in players.tolist():
        ball = _forward_ball(scoped, p, depth) & counted_nodes
        if not ball.any():
            regions.append(None)  # p changes no count: a null player
            continue
        region = _backward_ball(scoped, ball, depth)
        region[p] = True
        sub, _ = scoped.keep_nodes(region)
        inside = np.flatnonzero(region)
        regions.append(_Region(sub, position_of[inside], ball[inside],
                               int(np.searchsorted(inside, p))))
    widest = max((r.graph.num_nodes for r in regions if r is not None), default=1)
    # A round: its permutations' effects, [count, n, terms], and each player's 2 x count
    # subgraphs at once.
    per_round = max(2, min(permutations, _BATCH_CELLS // (2 * widest)))

    def effects(cut: IntArray, order_positions: IntArray) -> IntArray:
        """`[samples, n, terms]`: each player's effect on the counts (with it minus
        without it) given the players whose place in the permutation is below `cut`
        (per sample, per player: `cut[s, i]`)."""
        count = order_positions.shape[0]
        out = np.zeros((count, n, len(terms)), dtype=np.int64)
        for i, region in enumerate(regions):
            if region is None:
                continue
            is_player = region.places >= 0
            placed = order_positions[:, np.where(is_player, region.places, 0)]
            kept = np.repeat(np.where(is_player[None, :], placed < cut[:, i][:, None],
                                      True)[:, None, :], 2, axis=1)
            kept[:, 0, region.player] = True
            kept[:, 1, region.player] = False
            flat = kept.reshape(2 * count, -1)
            local = node_values_kept(terms, prog.kind, region.graph, flat)
            for k, term in enumerate(terms):
                found = (local[term] & flat & region.counted[None, :]).sum(axis=1)
                out[:, i, k] = found[0::2] - found[1::2]
        return out

    def game(counts: IntArray) -> BoolArray:
        """The game on counts `[..., terms]`."""
        shape = counts.shape[:-1]
        flat = counts.reshape(-1, len(terms))
        if graph_kind:
            column = {t: flat[:, k] for k, t in enumerate(terms)}
            won = sentence_from_counts(prog.classifier, lambda t: column[t])
        else:
            won = flat[:, 0] > 0
        return np.broadcast_to(won, flat.shape[:1]).reshape(shape)

    rng = np.random.default_rng(seed)
    shapley_sum, shapley_squares = np.zeros(n), np.zeros(n)
    banzhaf_sum, banzhaf_squares = np.zeros(n), np.zeros(n)
    done = 0
    while True:
        count = min(per_round, max_permutations - done)
        orders = np.argsort(rng.random((count, n)), axis=1)
        positions = np.empty_like(orders)
        rows = np.arange(count)[:, None]
        positions[rows, orders] = np.arange(n)[None, :]
        sizes = rng.binomial(n, 0.5, size=count)
        # Shapley: the effect of each player on its predecessors, summed in order.
        shapley_effect = effects(positions, positions)
        in_order = shapley_effect[rows, orders]                      # [count, n, terms]
        prefix = base + np.concatenate([np.zeros((count, 1, len(terms)), dtype=np.int64),
                                        np.cumsum(in_order, axis=1)], axis=1)
        won = game(prefix).astype(np.float64)                       # [count, n + 1]
        marginal = np.empty((count, n))
        marginal[rows, orders] = won[:, 1:] - won[:, :-1]
        shapley_sum += marginal.sum(axis=0)
        shapley_squares += (marginal ** 2).sum(axis=0)
        # Banzhaf: S = the first `sizes` players of the same permutation.
        subset = prefix[np.arange(count), sizes]                     # [count, terms]
        in_subset = positions < sizes[:, None]
        effect = effects(np.repeat(sizes[:, None], n, axis=1), positions)
        without = subset[:, None, :] - np.where(in_subset[:, :, None], effect, 0)
        paired = (game(without + effect).astype(np.float64) - game(without))
        banzhaf_sum += paired.sum(axis=0)
        banzhaf_squares += (paired ** 2).sum(axis=0)
        done += count
        shapley, shapley_error = _mean_and_error(shapley_sum, shapley_squares, done)
        banzhaf_values, banzhaf_error = _mean_and_error(banzhaf_sum, banzhaf_squares, done)
        precise = max(float(shapley_error.max()), float(banzhaf_error.max())) <= max_stderr
        if precise or done >= max_permutations:
            return SampledIndices(shapley, shapley_error, banzhaf_values, banzhaf_error, done)


def _mean_and_error(total: FloatArray, squares: FloatArray, samples: int
                    ) -> tuple[FloatArray, FloatArray]:
    """The mean of `samples` draws from their sum and sum of squares, and its standard
    error (the sample standard deviation over sqrt(samples))."""
    mean = total / samples
    variance = np.maximum(squares / samples - mean ** 2, 0.0) * (samples / (samples - 1))
    return mean, np.sqrt(variance / samples)


# ---------------------------------------------------------------- the API


class TooManyPlayers(GracrError):
    """An instance with more players than `max_players`: its diagram is not built."""

    def __init__(self, players: int, max_players: int) -> None:
        super().__init__(f"{players} players, over --max-players {max_players}: the exact "
                         "diagram is not built (its values are sampled)")


@dataclass(frozen=True)
class Relevance:
    """The node-level relevance of one instance, with its cost.

    Arrays have one entry per node of the graph; a node outside the diagram's support
    (a node classifier's target included) gets `False`, 0 and 0. `shapley_stderr` is
    `None` when the values are exact (`shapley_method == "exact"`), else the standard
    error of each Monte Carlo value (0 outside the support). `diagram_size` is the
    engine's node count of `f` (terminal included, complemented edges shared),
    `plain_size` that of the exported diagram without complemented edges (both
    terminals included). Times are wall-clock seconds; `build_seconds` includes
    creating the manager (for a refused diagram: the time until it was refused),
    `counterfactual_seconds` exporting the diagram.
    `counterfactual_closure` says how the flipping removals were closed upwards:
    `"support"` (over the support) or `"skipped (monotone)"` (`gracr.bdd.polarity`).

    Without a diagram (`diagram == "refused"`: the instance has more than `max_players`
    players or outgrew the build, which `reason` says), nothing is exact:
    `counterfactual` and `min_counterfactual` are `None` (they need the diagram), and
    Banzhaf and Shapley values are sampled over the `relevance_players` by
    `sample_indices` from the same permutations (`permutations` of them: their time is
    `shapley_seconds`, `banzhaf_seconds` is 0), `banzhaf_stderr` and `shapley_stderr`
    their standard errors; `support_size` is then the number of players.
    """

    label: int
    counterfactual: BoolArray | None
    min_counterfactual: int | None
    banzhaf: FloatArray
    shapley: FloatArray
    shapley_method: ShapleyMethod
    shapley_stderr: FloatArray | None
    permutations: int | None
    seed: int | None
    counterfactual_closure: str
    support_size: int
    diagram_size: int
    plain_size: int
    backend: str
    build_seconds: float
    counterfactual_seconds: float
    banzhaf_seconds: float
    shapley_seconds: float
    banzhaf_stderr: FloatArray | None = None
    diagram: Literal["built", "refused"] = "built"
    reason: str | None = None

    @property
    def total_seconds(self) -> float:
        return (self.build_seconds + self.counterfactual_seconds + self.banzhaf_seconds
                + self.shapley_seconds)


def relevance(prog: Program, graph: Graph, target: int | None = None, backend: str = "cudd",
              max_exact: int = MAX_EXACT, permutations: int = PERMUTATIONS, seed: int = 0,
              max_nodes: int | None = MAX_BDD_NODES,
              max_counter_steps: int = MAX_COUNTER_STEPS, max_players: int = MAX_PLAYERS,
              max_stderr: float = MAX_STDERR,
              max_permutations: int = MAX_PERMUTATIONS) -> Relevance:
    """Counterfactuals, Banzhaf and Shapley values of the nodes, from the ROBDD over nodes.

    The diagram is `gracr.bdd.upi.build_instance`'s over nodes (the one the node UPI
    reads: its receptive fields and computation order). Shapley values are exact when the
    support has at most `max_exact` variables, else estimated from `permutations`
    sampled permutations with `seed`. The diagram is refused before it is built when the
    instance has more than `max_players` players (`relevance_players`: the exact pass,
    its counterfactual closure above all, costs about players x diagram nodes, and the
    diagram grows with the players), and while it is built past `max_nodes` nodes or
    `max_counter_steps` linear-count steps (checked before the counter runs); a refused
    instance's values are sampled (`sampled_relevance`, to a standard error of at most
    `max_stderr` within `max_permutations` permutations), never silently.
    """
    if max_exact > EXACT_LIMIT:
        raise GracrError(f"max_exact is at most {EXACT_LIMIT} (float64 model counts), "
                         f"got {max_exact}")
    node = resolve_target(prog, graph, target)
    start = time.perf_counter()
    players = relevance_players(prog, graph, node, backend)
    try:
        if len(players) > max_players:
            raise TooManyPlayers(len(players), max_players)
        built_diagram = build_instance(prog, graph, node, "nodes", backend, max_nodes=max_nodes,
                                       max_counter_steps=max_counter_steps)
    except (CounterTooLarge, DiagramTooLarge, TooManyPlayers) as refusal:
        refused_after = time.perf_counter() - start
        fallback = sampled_relevance(prog, graph, node, permutations, seed, str(refusal),
                                     backend, max_stderr, max_permutations, players)
        return dataclasses.replace(fallback, build_seconds=refused_after)
    manager, f = built_diagram.manager, built_diagram.f
    del built_diagram
    label = int(value_at_full_graph(manager, f))
    built = time.perf_counter()

    # A removal flips iff `flips` holds on the kept nodes; closing it downwards over the
    # kept nodes (upwards over the removed ones) keeps its minimal removals and makes it
    # monotone in them, so its support is their union. It is already closed when the
    # instance function (`!flips`, true on the whole graph) is increasing, or constant:
    # the syntactic check behind upi_report's Extend shortcut.
    flips = manager.neg(f) if label else f
    direction = polarity(prog.classifier, "nodes")
    if not label:
        direction = direction.flipped
    if direction.is_monotone:
        closure = "skipped (monotone)"
    else:
        closure = "support"
        for variable in sorted(manager.support(flips)):
            flips = manager.disj(flips, manager.restrict(flips, {variable: True}))
        manager.check_budget()
    counterfactual = np.zeros(graph.num_nodes, dtype=np.bool_)
    counterfactual[[v.index for v in manager.support(flips)]] = True
    del flips
    diagram = export(f)
    minimum = min_flip(diagram, label)
    flipped = time.perf_counter()

    support = [v.index for v in diagram.variables]
    beta = np.zeros(graph.num_nodes)
    beta[support] = banzhaf(diagram)
    banzhafed = time.perf_counter()

    phi = np.zeros(graph.num_nodes)
    stderr: FloatArray | None = None
    method: ShapleyMethod
    drawn: int | None = None
    if diagram.n <= max_exact:
        phi[support] = shapley_exact(diagram)
        method = "exact"
    else:
        # The support's nodes are the players, every other node a null player.
        sampled = sample_indices(prog, graph, node, np.array(support, dtype=np.int64),
                                 permutations, seed, max_stderr, max_permutations)
        phi[support] = sampled.shapley
        stderr = np.zeros(graph.num_nodes)
        stderr[support] = sampled.shapley_stderr
        method = "monte-carlo"
        drawn = sampled.permutations
    done = time.perf_counter()

    return Relevance(
        label=label, counterfactual=counterfactual, min_counterfactual=minimum, banzhaf=beta,
        shapley=phi, shapley_method=method, shapley_stderr=stderr, permutations=drawn,
        seed=None if drawn is None else seed,
        counterfactual_closure=closure, support_size=diagram.n,
        diagram_size=manager.dag_size(f), plain_size=diagram.size,
        backend=manager.name, build_seconds=built - start,
        counterfactual_seconds=flipped - built, banzhaf_seconds=banzhafed - flipped,
        shapley_seconds=done - banzhafed)


def relevance_players(prog: Program, graph: Graph, node: int | None,
                       backend: str = "cudd") -> IntArray:
    """The nodes the explained value can depend on, found without a diagram: a node
    classifier's node receptive field, a graph classifier's `graph_term_players` (the
    nodes its terms read), the whole graph if even those outgrow the node budget; every
    other node is a null player."""
    from gracr.bdd.upi import graph_term_players, node_receptive_field

    if node is not None:
        field_nodes = node_receptive_field(prog, graph, node)
        field_nodes[node] = False
    else:
        try:
            field_nodes = graph_term_players(prog, graph, backend)
        except DiagramTooLarge:
            field_nodes = np.ones(graph.num_nodes, dtype=np.bool_)
    return np.flatnonzero(field_nodes)


def sampled_relevance(prog: Program, graph: Graph, node: int | None, permutations: int,
                      seed: int, reason: str, backend: str = "cudd",
                      max_stderr: float = MAX_STDERR,
                      max_permutations: int = MAX_PERMUTATIONS,
                      players: IntArray | None = None) -> Relevance:
    """Banzhaf and Shapley values sampled without a diagram (see `Relevance`) over the
    `players` (default: the `relevance_players`), by `sample_indices` (one stream of permutations for both, each
    game value updated incrementally, rounds of `permutations` until every standard
    error is at most `max_stderr` or `max_permutations` were drawn)."""
    from gracr.dsl.evaluate import evaluate_kept

    start = time.perf_counter()
    if players is None:
        players = relevance_players(prog, graph, node, backend)
    total = graph.num_nodes
    scoped = graph if node is None else graph.with_target(node)
    label = int(bool(evaluate_kept(prog, scoped, np.ones((1, total), dtype=np.bool_))[0]))
    sampled = sample_indices(prog, graph, node, players, permutations, seed, max_stderr,
                             max_permutations)
    done = time.perf_counter()
    beta, beta_error = np.zeros(total), np.zeros(total)
    phi, phi_error = np.zeros(total), np.zeros(total)
    beta[players], beta_error[players] = sampled.banzhaf, sampled.banzhaf_stderr
    phi[players], phi_error[players] = sampled.shapley, sampled.shapley_stderr
    # Both indices come from the same samples: their time is reported under Shapley.
    return Relevance(
        label=label, counterfactual=None, min_counterfactual=None, banzhaf=beta, shapley=phi,
        shapley_method="monte-carlo", shapley_stderr=phi_error,
        permutations=sampled.permutations, seed=seed,
        counterfactual_closure="not computed (no diagram)", support_size=len(players),
        diagram_size=0, plain_size=0, backend=backend, build_seconds=0.0,
        counterfactual_seconds=0.0, banzhaf_seconds=0.0, shapley_seconds=done - start,
        banzhaf_stderr=beta_error, diagram="refused", reason=reason)


def relevance_json(prog: Program, graph: Graph, target: int | None = None,
                   backend: str = "cudd", max_exact: int = MAX_EXACT,
                   permutations: int = PERMUTATIONS, seed: int = 0,
                   max_nodes: int | None = MAX_BDD_NODES,
                   max_counter_steps: int = MAX_COUNTER_STEPS) -> dict[str, object]:
    """`relevance` as a JSON-able dict: per-node lists (0/1 for `counterfactual`), the
    method, the sizes and the seconds of each part."""
    return relevance_record(relevance(prog, graph, target, backend, max_exact, permutations,
                                      seed, max_nodes, max_counter_steps))


def relevance_record(report: Relevance) -> dict[str, object]:
    """A `Relevance` as the JSON-able dict of `relevance_json`."""
    return {
        "label": report.label,
        "counterfactual": (None if report.counterfactual is None
                           else [int(c) for c in report.counterfactual]),
        "diagram": report.diagram, "reason": report.reason,
        "banzhaf_stderr": (None if report.banzhaf_stderr is None
                           else [float(s) for s in report.banzhaf_stderr]),
        "min_counterfactual": report.min_counterfactual,
        "banzhaf": [float(b) for b in report.banzhaf],
        "shapley": [float(s) for s in report.shapley],
        "shapley_method": report.shapley_method,
        "shapley_stderr": (None if report.shapley_stderr is None
                           else [float(s) for s in report.shapley_stderr]),
        "permutations": report.permutations,
        "seed": report.seed,
        "counterfactual_closure": report.counterfactual_closure,
        "support_size": report.support_size,
        "diagram_size": report.diagram_size,
        "plain_size": report.plain_size,
        "backend": report.backend,
        "seconds": {"build": report.build_seconds,
                    "counterfactual": report.counterfactual_seconds,
                    "banzhaf": report.banzhaf_seconds, "shapley": report.shapley_seconds},
    }
