"""Motif planting and anchoring for the GracrBench generators, as numba kernels.

Colours here are integer indices (the caller maps them to names); nodes are numbered
background first, then the planted nodes in the order they are created. A kernel
returns the colour index of every node and the planted edges as `[P, 2]` undirected
pairs (the caller lists them in both directions). Randomness comes from a seed in
`[0, 2**32)`, through numba's own Mersenne Twister, so it is the same on any machine.
"""

from __future__ import annotations

import numpy as np

from gracr.data.generators import check_seed
from gracr.data.graph import IntArray
from gracr.data.kernels import kernel


@kernel
def _distinct(num_nodes: int, count: int) -> IntArray:
    """`count` distinct nodes of `0..num_nodes-1`, uniformly and in random order (a
    partial Fisher–Yates shuffle on numba's current random state)."""
    order = np.arange(num_nodes)
    for i in range(count):
        j = np.random.randint(i, num_nodes)
        kept = order[i]
        order[i] = order[j]
        order[j] = kept
    return order[:count].copy()


@kernel
def _distinct_kernel(num_nodes: int, count: int, seed: int) -> IntArray:
    np.random.seed(seed)
    return _distinct(num_nodes, count)


def distinct_nodes(num_nodes: int, count: int, seed: int = 0) -> IntArray:
    """`count` distinct nodes drawn uniformly from `0..num_nodes-1`, in random order."""
    if not 0 <= count <= num_nodes:
        raise ValueError(f"cannot draw {count} distinct nodes out of {num_nodes}")
    return np.asarray(_distinct_kernel(num_nodes, count, check_seed(seed)), dtype=np.int64)


@kernel
def _chains_kernel(colours: IntArray, units: int, cores: int, seed: int, core: int,
                   leaf: int, anchor: int) -> tuple[IntArray, IntArray]:
    np.random.seed(seed)
    background = colours.shape[0]
    anchors = _distinct(background, 2 * units)
    out = np.empty(background + units * 3 * cores, dtype=np.int64)
    out[:background] = colours
    for node in anchors:
        out[node] = anchor
    pairs = np.empty((units * (3 * cores - 1 + 2), 2), dtype=np.int64)
    count = 0
    node = background
    for unit in range(units):
        first = node
        previous = -1
        for _ in range(cores):
            current = node
            out[current] = core
            node += 1
            for _ in range(2):
                out[node] = leaf
                pairs[count, 0] = current
                pairs[count, 1] = node
                count += 1
                node += 1
            if previous >= 0:
                pairs[count, 0] = previous
                pairs[count, 1] = current
                count += 1
            previous = current
        pairs[count, 0] = first
        pairs[count, 1] = anchors[2 * unit]
        pairs[count + 1, 0] = previous
        pairs[count + 1, 1] = anchors[2 * unit + 1]
        count += 2
    return out, pairs


def plant_chains(colours: IntArray, units: int, cores: int, seed: int, *, core: int, leaf: int,
                 anchor: int) -> tuple[IntArray, IntArray]:
    """Plant `units` chains on a background coloured `colours` (one index per node).

    A chain is a path of `cores` nodes coloured `core`, each with exactly two leaves
    coloured `leaf` (3·cores nodes, 3·cores − 1 edges; a core is followed by its two
    leaves in the node order). Its first and last cores are linked to two anchors:
    2·units distinct background nodes, drawn uniformly from `seed` and recoloured
    `anchor` (chain i uses the anchors 2i and 2i + 1 of the draw). Returns the colour
    of every node and the `[units · (3·cores + 1), 2]` planted pairs.
    """
    if cores < 1 or units < 0:
        raise ValueError(f"cannot plant {units} chains of {cores} cores")
    if 2 * units > len(colours):
        raise ValueError(f"{units} chains need {2 * units} anchors; the background has "
                         f"{len(colours)} nodes")
    out, pairs = _chains_kernel(np.asarray(colours, dtype=np.int64), units, cores,
                                check_seed(seed), core, leaf, anchor)
    return np.asarray(out, dtype=np.int64), np.asarray(pairs, dtype=np.int64)


@kernel
def _hub_kernel(colours: IntArray, hub_colour: int, member_colours: IntArray,
                member_counts: IntArray, links: int, seed: int) -> tuple[IntArray, IntArray]:
    np.random.seed(seed)
    background = colours.shape[0]
    members = 0
    for group in range(member_counts.shape[0]):
        members += member_counts[group]
    out = np.empty(background + 1 + members, dtype=np.int64)
    out[:background] = colours
    hub = background
    out[hub] = hub_colour
    pairs = np.empty((members + links, 2), dtype=np.int64)
    count = 0
    node = hub + 1
    for group in range(member_counts.shape[0]):
        for _ in range(member_counts[group]):
            out[node] = member_colours[group]
            pairs[count, 0] = hub
            pairs[count, 1] = node
            count += 1
            node += 1
    for target in _distinct(background, links):
        pairs[count, 0] = hub
        pairs[count, 1] = target
        count += 1
    return out, pairs


def plant_hub(colours: IntArray, hub_colour: int, members: list[tuple[int, int]], links: int,
              seed: int) -> tuple[IntArray, IntArray]:
    """Plant a hub on a background coloured `colours` (one index per node).

    The hub is node `len(colours)`, coloured `hub_colour`; for each `(colour, count)`
    of `members` it gets `count` new neighbours of that colour (numbered after the
    hub, group by group), and it is linked to `links` distinct background nodes drawn
    uniformly from `seed`. Returns the colour of every node and the planted pairs
    (members first, then the background links).
    """
    if any(count < 0 for _, count in members) or not 0 <= links <= len(colours):
        raise ValueError(f"cannot plant a hub with members {members} and {links} links "
                         f"on {len(colours)} nodes")
    member_colours = np.array([colour for colour, _ in members], dtype=np.int64)
    member_counts = np.array([count for _, count in members], dtype=np.int64)
    out, pairs = _hub_kernel(np.asarray(colours, dtype=np.int64), hub_colour, member_colours,
                             member_counts, links, check_seed(seed))
    return np.asarray(out, dtype=np.int64), np.asarray(pairs, dtype=np.int64)
