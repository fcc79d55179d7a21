"""Distances in a tissue sample: the label rule, the roles and the radius graph.

Everything here reads only a `CellTable` (types and positions), never the generator's
state, so that the label of a serialised sample can be recomputed by anyone holding the
table. Neighbour queries go through `scipy.spatial.cKDTree`, whose `query_pairs` returns
every pair at distance at most r (the same closed ball the label rule uses).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree

from gracr.domains.tissue.table import TCELL, TUMOUR, BoolArray, CellTable, FloatArray

IntArray = npt.NDArray[np.int64]

# The graph radius is the label radius times one of these: at 1 the graph holds exactly
# the label's "near" pairs; the larger ones add "far" edges a model must learn to ignore.
GRAPH_RADIUS_RATIOS: tuple[float, ...] = (1.0, 1.5, 2.0, 3.0)
NEAR, FAR = "near", "far"


def within(points: FloatArray, others: FloatArray, radius: float) -> BoolArray:
    """For each of `points`: whether some point of `others` lies at distance <= radius."""
    result = np.zeros(len(points), dtype=np.bool_)
    if len(points) == 0 or len(others) == 0:
        return result
    distance, _ = cKDTree(others).query(points, k=1)
    return np.asarray(distance <= radius, dtype=np.bool_)


def roles(table: CellTable) -> tuple[BoolArray, BoolArray, BoolArray]:
    """`(engaged, driver, decoy)` recomputed from types and positions alone: a tumour cell
    is engaged iff a tcell lies within the label radius, a tcell is a driver iff a tumour
    cell does, and a decoy otherwise (the tissue benchmark note's roles)."""
    positions = table.positions
    tumour, tcell = table.mask(TUMOUR), table.mask(TCELL)
    radius = table.label_radius_um
    engaged = np.zeros(table.num_cells, dtype=np.bool_)
    driver = np.zeros(table.num_cells, dtype=np.bool_)
    engaged[tumour] = within(positions[tumour], positions[tcell], radius)
    driver[tcell] = within(positions[tcell], positions[tumour], radius)
    return engaged, driver, tcell & ~driver


def engaged_fraction(table: CellTable) -> Fraction | None:
    """#engaged tumour / #tumour as an exact fraction (None: no tumour cell)."""
    tumour = int(table.mask(TUMOUR).sum())
    if tumour == 0:
        return None
    engaged, _, _ = roles(table)
    return Fraction(int(engaged.sum()), tumour)


def engaged_ratio(table: CellTable) -> float | None:
    """#engaged tumour / #tumour (None: no tumour cell), recomputed from the table."""
    fraction = engaged_fraction(table)
    return None if fraction is None else float(fraction)


def theta_fraction(theta: float) -> Fraction:
    """θ as the exact decimal the program text shows (its shortest repr), so that the label
    compares two exact numbers and never a rounding of one."""
    return Fraction(repr(float(theta)))


def recompute_label(table: CellTable, theta: float) -> bool:
    """The label from the table alone: positive iff #engaged > θ · #tumour, the program's
    `classify` line (a sample with no tumour cell is negative: 0 > θ · 0 is false)."""
    fraction = engaged_fraction(table)
    return fraction is not None and fraction > theta_fraction(theta)


def radius_graph(table: CellTable, ratio: float) -> tuple[IntArray, FloatArray]:
    """Directed edges `[E, 2]` and their lengths `[E]` of the radius graph at
    `label_radius_um * ratio`: every undirected pair within the radius in both directions,
    sorted by (source, target) so the graph is a pure function of the table."""
    if not ratio >= 1.0:
        raise ValueError(f"the graph radius ratio must be at least 1 (the graph must hold "
                         f"every near pair), got {ratio}")
    positions = table.positions
    if table.num_cells < 2:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float64)
    pairs = np.asarray(cKDTree(positions).query_pairs(table.label_radius_um * ratio,
                                                      output_type="ndarray"),
                       dtype=np.int64).reshape(-1, 2)
    edges = np.concatenate([pairs, pairs[:, ::-1]], axis=0)
    order = np.lexsort((edges[:, 1], edges[:, 0]))
    edges = np.ascontiguousarray(edges[order])
    delta = positions[edges[:, 0]] - positions[edges[:, 1]]
    return edges, np.hypot(delta[:, 0], delta[:, 1])


def relations_of(distances: FloatArray, label_radius_um: float) -> tuple[str, ...]:
    """Each edge's relation: near iff its length is at most the label radius."""
    return tuple(NEAR if d <= label_radius_um else FAR for d in distances.tolist())
