"""The six model-free baselines of the tissue benchmark note, as pure scorers.

Each baseline gives one float64 score per cell (higher: more important) from the data of
one sample alone, consulting no model, so that an explainer's average precision can be
read against what needs no model at all. The inputs are plain arrays:

- `positions`: `[N, 2]`, (x, y) in µm;
- `markers`: `[N, 6]`, the channels in `CHANNELS` order;
- `edges`: `[E, 2]` directed (source, target) pairs, the layout `radius_graph` returns
  (a PyG `edge_index` `[2, E]` is `edge_index.T`); only `Degree` reads them;
- `seed`: an int or a `numpy.random.Generator` (a Generator is used as it is, so its
  state advances); only `Rnd-cells` and `Blob` draw from it;
- `context`: a `BaselineContext`, the few dataset-level settings a baseline needs.

The baselines, by display name (`BASELINE_NAMES`):

- `Rnd-cells`: i.i.d. uniform scores in [0, 1).
- `Marker`: `markers · m̂`, m̂ the unit vector along the mean marker vector of tumour
  cells (does the cell look like a tumour cell?). The markers are not centred: subtracting
  any fixed vector c from every row shifts every score by the same `c · m̂`, which leaves
  each sample's ranking, all that average precision reads, unchanged; and centring the
  direction instead (tumour mean minus the mean of all cells) would make a tumour-versus-
  rest discriminant, a different baseline from the note's "looks like a tumour cell".
  The mean comes from a reference set (`tumour_mean` over training tables, typing cells
  by their markers, never by recorded roles), by default the generator's `MarkerModel`
  tumour row.
- `NearestT`: minus the distance from each cell to its nearest *other* cell typed tcell by
  its markers (a tcell's own position does not count). A cell with no other tcell in the
  sample scores `-(D + 1)`, D the diagonal of the sample's bounding box: finite, and below
  every score a cell with a tcell can get (no two cells are farther apart than D).
- `TDensity`: how many *other* cells typed tcell by their markers lie within
  `context.density_radius_um` (default the 30 µm label radius) of each cell, the closed
  ball the label rule uses.
- `Blob`: a smooth random field at the cells' positions: `context.blob_bumps` Gaussian
  bumps of standard deviation `context.blob_length_scale_um`, centres uniform in the
  bounding box of the positions and heights uniform in (0, 1]. Bumps rather than random
  Fourier features because a bump field's top cells form a few round contiguous blobs,
  the shape of the note's driver sets, where a Fourier field's maxima form a periodic
  pattern across the whole field. The score is the *logarithm* of the field (computed by
  log-sum-exp): the same order, but a cell hundreds of length scales from every bump keeps
  a distinct finite score instead of underflowing to a tie at 0. The point of the
  baseline: driver sets are spatially contiguous, so a smoothness prior alone scores above
  random (the note's blob reached AP 0.099 against random's 0.058).
- `Degree`: each node's in-degree in `edges` (a radius graph lists both directions of
  every pair, so in-degree equals out-degree there).

`baseline_scores(name, ...)` is the one entry point; `BASELINES` maps each name to its
scorer, all of one signature `(positions, markers, edges, rng, context)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree

from gracr.errors import GracrError, quoted
from gracr.domains.tissue.generator import MarkerModel, TissueSettings
from gracr.domains.tissue.table import (CELL_TYPES, CHANNELS, TCELL, TUMOUR, CellTable, FloatArray,
                                 types_from_markers)

IntArray = npt.NDArray[np.int64]
Seed = int | np.random.Generator

RANDOM, MARKER, NEAREST_T, T_DENSITY, BLOB, DEGREE = (
    "Rnd-cells", "Marker", "NearestT", "TDensity", "Blob", "Degree")
BASELINE_NAMES: tuple[str, ...] = (RANDOM, MARKER, NEAREST_T, T_DENSITY, BLOB, DEGREE)

# The defaults the context falls back on: the generator's own settings.
DEFAULT_TUMOUR_MEAN: tuple[float, ...] = tuple(
    float(v) for v in MarkerModel().mean[CELL_TYPES.index(TUMOUR)])
DEFAULT_DENSITY_RADIUS_UM: float = TissueSettings().label_radius_um
DEFAULT_BLOB_LENGTH_SCALE_UM = 50.0
DEFAULT_BLOB_BUMPS = 8


@dataclass(frozen=True)
class BaselineContext:
    """The dataset-level settings of the baselines: the tumour mean vector `Marker`
    projects on (any positive multiple gives the same scores; `tumour_mean` estimates it
    from reference tables), the radius `TDensity` counts within, and the length scale and
    number of bumps of `Blob`."""

    tumour_mean: tuple[float, ...] = field(default=DEFAULT_TUMOUR_MEAN)
    density_radius_um: float = DEFAULT_DENSITY_RADIUS_UM
    blob_length_scale_um: float = DEFAULT_BLOB_LENGTH_SCALE_UM
    blob_bumps: int = DEFAULT_BLOB_BUMPS

    def __post_init__(self) -> None:
        mean = np.asarray(self.tumour_mean, dtype=np.float64)
        if mean.shape != (len(CHANNELS),):
            raise GracrError(f"the tumour mean needs {len(CHANNELS)} values (one per channel: "
                             f"{', '.join(CHANNELS)}), got {len(self.tumour_mean)}")
        if not np.isfinite(mean).all() or not np.linalg.norm(mean) > 0:
            raise GracrError("the tumour mean must be finite and not all zero")
        if not (math.isfinite(self.density_radius_um) and self.density_radius_um >= 0):
            raise GracrError(f"the density radius must be a finite number >= 0 µm, got "
                             f"{self.density_radius_um}")
        if not (math.isfinite(self.blob_length_scale_um) and self.blob_length_scale_um > 0):
            raise GracrError(f"the blob length scale must be a finite number > 0 µm, got "
                             f"{self.blob_length_scale_um}")
        if self.blob_bumps < 1:
            raise GracrError(f"the blob needs at least one bump, got {self.blob_bumps}")


def tumour_mean(tables: Sequence[CellTable]) -> tuple[float, ...]:
    """The mean marker vector of every cell typed tumour by its markers
    (`types_from_markers`) over `tables`, pooled cell by cell; recorded types and roles are
    not read. For `BaselineContext(tumour_mean=...)`."""
    rows = [table.markers[np.array([t == TUMOUR for t in types_from_markers(table.markers)],
                                   dtype=np.bool_).reshape(-1)]
            for table in tables]
    pooled = np.concatenate([np.zeros((0, len(CHANNELS)))] + rows, axis=0)
    if not len(pooled):
        raise GracrError("no cell of the reference tables is typed tumour by its markers")
    return tuple(float(v) for v in pooled.mean(axis=0))


def _typed(markers: FloatArray, cell_type: str) -> npt.NDArray[np.bool_]:
    return np.array([t == cell_type for t in types_from_markers(markers)],
                    dtype=np.bool_).reshape(-1)


def random_scores(count: int, rng: np.random.Generator) -> FloatArray:
    """`Rnd-cells`: `count` i.i.d. uniform scores in [0, 1)."""
    return np.asarray(rng.random(count), dtype=np.float64)


def marker_scores(markers: FloatArray, mean: Sequence[float] = DEFAULT_TUMOUR_MEAN
                  ) -> FloatArray:
    """`Marker`: each row projected on the unit vector along `mean` (uncentred; see the
    module's docstring)."""
    direction = np.asarray(mean, dtype=np.float64)
    direction = direction / np.linalg.norm(direction)
    return np.asarray(np.asarray(markers, dtype=np.float64) @ direction, dtype=np.float64)


def _diagonal(positions: FloatArray) -> float:
    if not len(positions):
        return 0.0
    span = positions.max(axis=0) - positions.min(axis=0)
    return float(np.hypot(span[0], span[1]))


def nearest_t_scores(positions: FloatArray, markers: FloatArray) -> FloatArray:
    """`NearestT`: minus the distance to the nearest other marker-typed tcell; `-(D + 1)`
    (D the bounding-box diagonal) for a cell with none."""
    n = len(positions)
    t_index = np.flatnonzero(_typed(markers, TCELL))
    distance = np.full(n, _diagonal(positions) + 1.0, dtype=np.float64)
    if len(t_index):
        k = min(2, len(t_index))
        found, index = cKDTree(positions[t_index]).query(positions, k=k)
        found = np.asarray(found, dtype=np.float64).reshape(n, k)
        neighbour = t_index[np.asarray(index, dtype=np.int64).reshape(n, k)]
        # A tcell's nearest tcell is itself, at 0: take the next one (inf when none).
        itself = neighbour[:, 0] == np.arange(n)
        nearest = np.where(itself, found[:, -1] if k == 2 else np.inf, found[:, 0])
        has = np.isfinite(nearest)
        distance[has] = nearest[has]
    return -distance


def t_density_scores(positions: FloatArray, markers: FloatArray,
                     radius_um: float = DEFAULT_DENSITY_RADIUS_UM) -> FloatArray:
    """`TDensity`: the number of other marker-typed tcells within `radius_um` (closed
    ball) of each cell."""
    n = len(positions)
    tcell = _typed(markers, TCELL)
    if not tcell.any() or n == 0:
        return np.zeros(n, dtype=np.float64)
    counts = np.asarray(cKDTree(positions[tcell]).query_ball_point(
        positions, radius_um, return_length=True), dtype=np.float64).reshape(n)
    return counts - tcell.astype(np.float64)


def blob_scores(positions: FloatArray, rng: np.random.Generator,
                length_scale_um: float = DEFAULT_BLOB_LENGTH_SCALE_UM,
                bumps: int = DEFAULT_BLOB_BUMPS) -> FloatArray:
    """`Blob`: the log of a sum of `bumps` Gaussian bumps (standard deviation
    `length_scale_um`, centres uniform in the positions' bounding box, heights uniform in
    (0, 1]) at each position."""
    n = len(positions)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    low, high = positions.min(axis=0), positions.max(axis=0)
    centres = rng.uniform(low, high, size=(bumps, 2))
    heights = 1.0 - rng.random(bumps)            # (0, 1]: the log stays finite
    squared = ((positions[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    exponents = np.log(heights)[None, :] - squared / (2.0 * length_scale_um ** 2)
    top = exponents.max(axis=1)
    return np.asarray(top + np.log(np.exp(exponents - top[:, None]).sum(axis=1)),
                      dtype=np.float64)


def degree_scores(edges: IntArray, count: int) -> FloatArray:
    """`Degree`: each of `count` nodes' in-degree in the directed `edges` `[E, 2]`."""
    return np.bincount(edges[:, 1], minlength=count).astype(np.float64)


Scorer = Callable[[FloatArray, FloatArray, IntArray, np.random.Generator, BaselineContext],
                  FloatArray]

BASELINES: dict[str, Scorer] = {
    RANDOM: lambda p, m, e, rng, c: random_scores(len(p), rng),
    MARKER: lambda p, m, e, rng, c: marker_scores(m, c.tumour_mean),
    NEAREST_T: lambda p, m, e, rng, c: nearest_t_scores(p, m),
    T_DENSITY: lambda p, m, e, rng, c: t_density_scores(p, m, c.density_radius_um),
    BLOB: lambda p, m, e, rng, c: blob_scores(p, rng, c.blob_length_scale_um, c.blob_bumps),
    DEGREE: lambda p, m, e, rng, c: degree_scores(e, len(p)),
}


def _checked(positions: npt.ArrayLike, markers: npt.ArrayLike, edges: npt.ArrayLike
             ) -> tuple[FloatArray, FloatArray, IntArray]:
    p = np.asarray(positions, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2:
        raise GracrError(f"positions must be [N, 2], got shape {p.shape}")
    n = len(p)
    m = np.asarray(markers, dtype=np.float64)
    if m.shape != (n, len(CHANNELS)):
        raise GracrError(f"markers must be [N, {len(CHANNELS)}] = [{n}, {len(CHANNELS)}] "
                         f"(channels {', '.join(CHANNELS)}), got shape {m.shape}")
    if not (np.isfinite(p).all() and np.isfinite(m).all()):
        raise GracrError("positions and markers must be finite")
    raw = np.asarray(edges)
    if raw.size == 0:
        raw = raw.reshape(0, 2)
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise GracrError(f"edges must be [E, 2] (source, target) pairs (an edge_index "
                         f"[2, E] is its transpose), got shape {raw.shape}")
    if raw.size and not np.issubdtype(raw.dtype, np.integer):
        raise GracrError(f"edges must hold integers, got {raw.dtype}")
    e = raw.astype(np.int64)
    if e.size and (e.min() < 0 or e.max() >= n):
        raise GracrError(f"an edge names a node outside 0..{n - 1}")
    return p, m, e


def baseline_scores(name: str, positions: npt.ArrayLike, markers: npt.ArrayLike,
                    edges: npt.ArrayLike, seed: Seed = 0,
                    context: BaselineContext = BaselineContext()) -> FloatArray:
    """The scores `[N]` (float64, higher: more important) of baseline `name` (one of
    `BASELINE_NAMES`) on one sample: positions `[N, 2]` µm, markers `[N, 6]` in `CHANNELS`
    order, directed edges `[E, 2]`, a seed or Generator and the dataset-level context."""
    scorer = BASELINES.get(name)
    if scorer is None:
        raise GracrError(f"unknown baseline {quoted(name)} (the baselines are "
                         f"{', '.join(BASELINE_NAMES)})")
    p, m, e = _checked(positions, markers, edges)
    return scorer(p, m, e, np.random.default_rng(seed), context)
