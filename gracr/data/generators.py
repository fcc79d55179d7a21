"""Random graph families from a seed, as numba kernels (deterministic on any machine:
numba's generator is its own Mersenne Twister, seeded inside the kernel).

Every edge function returns a `[2, E]` int64 edge index of an undirected simple graph:
each edge listed in both directions (the first `E/2` columns one way, the rest the
other), no self-loops, no repeated edge. Seeds are integers in `[0, 2**32)`.
`GRAPH_FAMILIES` names a default-parameter version of each family for the fuzzer.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from gracr.data.graph import IntArray
from gracr.data.kernels import kernel

SEED_LIMIT = 2**32


def check_seed(seed: int) -> int:
    """`seed` as an int, checked to lie in `[0, 2**32)` (what numba's generator takes)."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed must lie in [0, 2**32), got {seed}")
    return int(seed)


def _both_directions(pairs: IntArray) -> IntArray:
    """`[P, 2]` undirected pairs to the `[2, 2P]` edge index, forward columns first."""
    forward = np.asarray(pairs, dtype=np.int64).reshape(-1, 2).T
    return np.ascontiguousarray(np.concatenate([forward, forward[::-1]], axis=1))


@kernel
def _barabasi_albert_kernel(num_nodes: int, attachment: int, seed: int) -> IntArray:
    np.random.seed(seed)
    m = attachment
    num_undirected = m * (num_nodes - m)
    pairs = np.empty((num_undirected, 2), dtype=np.int64)
    # Every endpoint of every edge so far: sampling from it is sampling by degree.
    endpoints = np.empty(2 * num_undirected, dtype=np.int64)
    filled = 0
    count = 0
    # Seed graph: a star, node m joined to nodes 0..m-1 (as networkx does).
    for leaf in range(m):
        pairs[count, 0] = m
        pairs[count, 1] = leaf
        count += 1
        endpoints[filled] = m
        endpoints[filled + 1] = leaf
        filled += 2
    chosen = np.empty(m, dtype=np.int64)
    for new in range(m + 1, num_nodes):
        picked = 0
        while picked < m:
            candidate = endpoints[np.random.randint(0, filled)]
            repeated = False
            for j in range(picked):
                if chosen[j] == candidate:
                    repeated = True
            if not repeated:
                chosen[picked] = candidate
                picked += 1
        for j in range(m):
            pairs[count, 0] = new
            pairs[count, 1] = chosen[j]
            count += 1
            endpoints[filled] = new
            endpoints[filled + 1] = chosen[j]
            filled += 2
    return pairs


def barabasi_albert_edges(num_nodes: int, attachment: int = 2, seed: int = 0) -> IntArray:
    """A Barabási–Albert graph as a `[2, E]` directed edge index, both directions listed.

    Starts from a star on `attachment + 1` nodes; each later node joins `attachment`
    distinct earlier nodes chosen with probability proportional to their degree.
    That gives `attachment * (num_nodes - attachment)` undirected edges (1992
    directed edges for 500 nodes and attachment 2, as in Table 15).
    """
    if attachment < 0:
        raise ValueError(f"the attachment must be non-negative, got {attachment}")
    if num_nodes <= attachment:
        raise ValueError(f"a Barabási–Albert graph needs more than {attachment} nodes")
    return _both_directions(_barabasi_albert_kernel(num_nodes, attachment, check_seed(seed)))


@kernel
def _erdos_renyi_kernel(num_nodes: int, edge_probability: float, seed: int) -> IntArray:
    np.random.seed(seed)
    capacity = 16
    pairs = np.empty((capacity, 2), dtype=np.int64)
    count = 0
    # One uniform draw per pair, in a fixed order: O(n²) draws, exact comparisons.
    for a in range(num_nodes):
        for b in range(a + 1, num_nodes):
            if np.random.random() < edge_probability:
                if count == capacity:
                    capacity *= 2
                    grown = np.empty((capacity, 2), dtype=np.int64)
                    grown[:count] = pairs[:count]
                    pairs = grown
                pairs[count, 0] = a
                pairs[count, 1] = b
                count += 1
    return pairs[:count].copy()


def erdos_renyi_edges(num_nodes: int, edge_probability: float, seed: int = 0) -> IntArray:
    """An Erdős–Rényi graph G(n, p) as a `[2, E]` edge index, both directions listed.

    Each of the n(n−1)/2 node pairs is an edge independently with probability
    `edge_probability` (one draw per pair, so the cost is quadratic in `num_nodes`).
    """
    if num_nodes < 0:
        raise ValueError(f"the number of nodes must be non-negative, got {num_nodes}")
    if not 0.0 <= edge_probability <= 1.0:
        raise ValueError(f"the edge probability must lie in [0, 1], got {edge_probability}")
    return _both_directions(_erdos_renyi_kernel(num_nodes, float(edge_probability),
                                                check_seed(seed)))


@kernel
def _pruefer_tree_kernel(num_nodes: int, seed: int) -> IntArray:
    np.random.seed(seed)
    n = num_nodes
    pairs = np.empty((max(n - 1, 0), 2), dtype=np.int64)
    if n < 2:
        return pairs
    code = np.empty(n - 2, dtype=np.int64)
    degree = np.ones(n, dtype=np.int64)
    for i in range(n - 2):
        code[i] = np.random.randint(0, n)
        degree[code[i]] += 1
    # Linear-time decoding: `leaf` is always the smallest remaining leaf.
    pointer = 0
    while degree[pointer] != 1:
        pointer += 1
    leaf = pointer
    for i in range(n - 2):
        parent = code[i]
        pairs[i, 0] = leaf
        pairs[i, 1] = parent
        degree[parent] -= 1
        if parent < pointer and degree[parent] == 1:
            leaf = parent
        else:
            pointer += 1
            while degree[pointer] != 1:
                pointer += 1
            leaf = pointer
    pairs[n - 2, 0] = leaf
    pairs[n - 2, 1] = n - 1
    return pairs


def random_tree_edges(num_nodes: int, seed: int = 0) -> IntArray:
    """A uniformly random labelled tree (decoded from a uniform Prüfer sequence, so
    each of the n^(n−2) trees on `num_nodes` labelled nodes is equally likely) as a
    `[2, E]` edge index with `num_nodes − 1` undirected edges, both directions listed."""
    if num_nodes < 0:
        raise ValueError(f"the number of nodes must be non-negative, got {num_nodes}")
    return _both_directions(_pruefer_tree_kernel(num_nodes, check_seed(seed)))


@kernel
def _watts_strogatz_kernel(num_nodes: int, neighbours: int, rewire_probability: float,
                           seed: int) -> IntArray:
    np.random.seed(seed)
    n = num_nodes
    half = neighbours // 2
    pairs = np.empty((n * half, 2), dtype=np.int64)
    degree = np.full(n, 2 * half, dtype=np.int64)
    present = set()
    # Ring lattice: edge slot (j − 1)·n + u joins u to u + j (mod n), j = 1..k/2.
    for j in range(1, half + 1):
        for u in range(n):
            v = (u + j) % n
            pairs[(j - 1) * n + u, 0] = u
            pairs[(j - 1) * n + u, 1] = v
            present.add(min(u, v) * n + max(u, v))
    # Rewiring, lattice distance by lattice distance as Watts and Strogatz do: the
    # far end of each edge moves, with the given probability, to a uniform node that
    # is neither u nor a neighbour of u (skipped if u is already joined to every node).
    for j in range(1, half + 1):
        for u in range(n):
            if np.random.random() >= rewire_probability or degree[u] >= n - 1:
                continue
            slot = (j - 1) * n + u
            v = pairs[slot, 1]
            w = np.random.randint(0, n)
            while w == u or (min(u, w) * n + max(u, w)) in present:
                w = np.random.randint(0, n)
            present.discard(min(u, v) * n + max(u, v))
            present.add(min(u, w) * n + max(u, w))
            degree[v] -= 1
            degree[w] += 1
            pairs[slot, 1] = w
    return pairs


def watts_strogatz_edges(num_nodes: int, neighbours: int, rewire_probability: float,
                         seed: int = 0) -> IntArray:
    """A Watts–Strogatz small-world graph as a `[2, E]` edge index, both directions listed.

    A ring of `num_nodes` nodes, each joined to its `neighbours / 2` nearest nodes on
    either side (`neighbours` even, smaller than `num_nodes`); then each lattice edge
    (u, u + j) is rewired with probability `rewire_probability` to (u, w), w uniform
    among the nodes not yet joined to u. Rewiring moves edges, so there are always
    `num_nodes · neighbours / 2` undirected edges; the graph may become disconnected.
    """
    if neighbours < 0 or neighbours % 2:
        raise ValueError(f"the number of neighbours must be even and non-negative, "
                         f"got {neighbours}")
    if neighbours and neighbours >= num_nodes:
        raise ValueError(f"{neighbours} ring neighbours need more than {neighbours} nodes, "
                         f"got {num_nodes}")
    if num_nodes < 0:
        raise ValueError(f"the number of nodes must be non-negative, got {num_nodes}")
    if not 0.0 <= rewire_probability <= 1.0:
        raise ValueError(f"the rewiring probability must lie in [0, 1], got {rewire_probability}")
    return _both_directions(_watts_strogatz_kernel(num_nodes, neighbours,
                                                   float(rewire_probability), check_seed(seed)))


@kernel
def _uniform_colours_kernel(num_nodes: int, num_colours: int, seed: int) -> IntArray:
    np.random.seed(seed)
    colours = np.empty(num_nodes, dtype=np.int64)
    for node in range(num_nodes):
        colours[node] = np.random.randint(0, num_colours)
    return colours


def uniform_colours(num_nodes: int, num_colours: int, seed: int = 0) -> IntArray:
    """A colour index in `[0, num_colours)` per node, each drawn independently and
    uniformly (an int64 array of length `num_nodes`)."""
    if num_nodes < 0:
        raise ValueError(f"the number of nodes must be non-negative, got {num_nodes}")
    if num_colours < 1:
        raise ValueError(f"there must be at least one colour, got {num_colours}")
    return np.asarray(_uniform_colours_kernel(num_nodes, num_colours, check_seed(seed)),
                      dtype=np.int64)


# ---------------------------------------------------------------- for the fuzzer


def _default_barabasi_albert(num_nodes: int, seed: int) -> IntArray:
    if num_nodes == 0:
        return np.zeros((2, 0), dtype=np.int64)
    return barabasi_albert_edges(num_nodes, min(2, num_nodes - 1), seed)


def _default_erdos_renyi(num_nodes: int, seed: int) -> IntArray:
    return erdos_renyi_edges(num_nodes, min(1.0, 4.0 / max(num_nodes - 1, 1)), seed)


def _default_watts_strogatz(num_nodes: int, seed: int) -> IntArray:
    neighbours = min(4, (num_nodes - 1) // 2 * 2) if num_nodes > 0 else 0
    return watts_strogatz_edges(num_nodes, neighbours, 0.1, seed)


GRAPH_FAMILIES: dict[str, Callable[[int, int], IntArray]] = {
    # attachment 2 (the benchmark's backgrounds); 1 on two nodes, none on one.
    "barabasi-albert": _default_barabasi_albert,
    # p = 4 / (n − 1), expected degree 4 like the Barabási–Albert graphs (p = 1 when n ≤ 5).
    "erdos-renyi": _default_erdos_renyi,
    # a uniform labelled tree (Prüfer).
    "tree": random_tree_edges,
    # 4 ring neighbours (fewer when n ≤ 4: the largest even number below n), p = 0.1.
    "watts-strogatz": _default_watts_strogatz,
}
"""Random graph families by name, each `(num_nodes, seed) -> [2, E]` edge index with
default parameters; every function accepts any `num_nodes ≥ 0` and seed in `[0, 2**32)`."""
