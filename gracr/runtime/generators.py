"""Random graph families from a seed, as numba kernels (deterministic on any machine:
numba's generator is its own Mersenne Twister, seeded inside the kernel)."""

from __future__ import annotations

import numba
import numpy as np

from gracr.runtime.graph import IntArray


@numba.njit(cache=True)
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
    if num_nodes <= attachment:
        raise ValueError(f"a Barabási–Albert graph needs more than {attachment} nodes")
    pairs = _barabasi_albert_kernel(num_nodes, attachment, seed)
    forward = pairs.T
    return np.ascontiguousarray(np.concatenate([forward, forward[::-1]], axis=1))
