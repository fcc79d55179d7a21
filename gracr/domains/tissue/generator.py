"""Random tissue samples: hard-core cell positions, patchy T cells, tumour nests grown to a
target engagement, and markers drawn per type (the tissue benchmark note's generator,
rebuilt so that its two leaks are closed).

The note's first generator had 2.23 % overlapping cells and was solvable at AUC 0.928 from
local T-cell density alone. Here:

- positions are a hard-core process (no two cells closer than `min_separation_um`),
  placed in vectorised rounds of proposals checked with `cKDTree`;
- the T cells are chosen *before* the label is decided, from positions alone (a patchy
  intensity with no reference to tumour or label), so every statistic of the T cells
  alone (how many, how dense, how clustered) is independent of the label. What varies
  with the label is only where the tumour nests grow: over T cells (drivers) or away from
  them (the T cells left are decoys);
- cell counts are drawn first (Poisson total, multinomial types) and the engagement
  target independently of them, so counts carry no label signal either;
- tumour nests are compact contiguous blobs, each the best of several random seeds at
  keeping the running engaged fraction near the target; a nest may never leave a T cell
  in the band (r, r + gap] of a tumour cell without one within r, so decoys keep a
  safety gap.

Every function takes its `numpy.random.Generator`; nothing touches a global seed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy.spatial import cKDTree

from gracr.data.generators import SEED_LIMIT
from gracr.limits import MAX_TISSUE_CELLS, MAX_TISSUE_RATIO, MAX_TISSUE_SAMPLES
from gracr.errors import GracrError
from gracr.domains.tissue.radius import engaged_fraction, roles
from gracr.domains.tissue.table import (CD8, CELL_TYPES, CHANNELS, CK, OTHER, TCELL, TUMOUR,
                                 TYPE_THRESHOLD, BoolArray, CellTable, FloatArray)

# The compiler's δ: the smallest margin a compiled threshold separates exactly.
COMPILER_DELTA = 1e-3
# Nearly jammed hard-core placement is slow and its cells line up; refuse to try it.
MAX_COVERAGE = 0.45


@dataclass(frozen=True)
class MarkerModel:
    """Per type, the mean and standard deviation of each channel (order `CHANNELS`);
    values are clipped at 0 and then resampled until the type rule holds with the margin.

    The means put tumour well above the ck - cd8 threshold, tcells well above the
    cd8 - ck one and other cells between, so resampling is rare and the distribution
    within a type is close to the normal it says. Drivers and decoys share the tcell row:
    a T cell's markers say nothing about its role.
    """

    mean: tuple[tuple[float, ...], ...] = (
        (0.2, 0.3, 2.0, 1.2, 0.8, 1.0),   # tumour
        (1.8, 0.4, 0.2, 0.5, 0.3, 1.0),   # tcell
        (0.3, 0.9, 0.3, 0.3, 0.3, 1.0),   # other
    )
    sd: tuple[tuple[float, ...], ...] = (
        (0.15, 0.2, 0.4, 0.4, 0.3, 0.1),
        (0.4, 0.2, 0.15, 0.2, 0.15, 0.1),
        (0.15, 0.3, 0.15, 0.15, 0.15, 0.1),
    )


@dataclass(frozen=True)
class TissueSettings:
    """What a sample looks like. The defaults give a 400 µm square of ≈ 300 cells; for
    300–3000 cells change `side_um` (or use `TissueSettings.for_cells`) at the same
    density, since the hard core caps how dense a field can be.

    `engagement` is the range the per-sample target engaged fraction is drawn from
    (uniformly); the range stays below what the T cells can reach in nearly every sample,
    so the achieved fraction follows the target and not the cell counts.

    The T cells follow `patches_per_mm2` Gaussian patches of `patch_sigma_um` over a flat
    `patch_background` (patchy, so that T-poor ground exists for unengaged nests); nests
    hold `nest_cells` cells, each cell within `nest_step_um` of another, and each nest is
    the best of `nest_candidates` seeds. `decoy_gap_um` is the safety gap beyond the label
    radius that every decoy keeps from every tumour cell.
    """

    side_um: float = 400.0
    cells_per_mm2: float = 1875.0
    min_separation_um: float = 8.0
    label_radius_um: float = 30.0
    decoy_gap_um: float = 2.0
    margin: float = 0.05
    tumour_share: float = 0.25
    tcell_share: float = 0.2
    nest_cells: tuple[int, int] = (10, 30)
    nest_step_um: float = 30.0
    nest_candidates: int = 24
    patches_per_mm2: float = 12.0
    patch_sigma_um: float = 50.0
    patch_background: float = 0.03
    engagement: tuple[float, float] = (0.15, 0.6)
    markers: MarkerModel = field(default_factory=MarkerModel)

    def __post_init__(self) -> None:
        if not self.margin >= COMPILER_DELTA:
            raise ValueError(f"margin must be at least the compiler's δ = {COMPILER_DELTA}, "
                             f"got {self.margin}")
        if not (0 <= self.tumour_share and 0 <= self.tcell_share
                and self.tumour_share + self.tcell_share <= 1):
            raise ValueError("tumour_share and tcell_share must be shares summing to <= 1")
        if not (self.side_um > 0 and self.cells_per_mm2 > 0 and self.min_separation_um >= 0
                and self.label_radius_um > 0 and self.decoy_gap_um > 0):
            raise ValueError("side, density, radius and gap must be positive")
        coverage = self.expected_cells * math.pi * (self.min_separation_um / 2) ** 2 \
            / self.side_um ** 2
        if coverage > MAX_COVERAGE:
            raise ValueError(f"{self.expected_cells:.0f} cells {self.min_separation_um} µm apart "
                             f"would cover {coverage:.0%} of a {self.side_um} µm field (at most "
                             f"{MAX_COVERAGE:.0%}); lower the density or enlarge the field")
        low, high = self.engagement
        if not 0 <= low <= high <= 1:
            raise ValueError(f"engagement must be a range within [0, 1], got {self.engagement}")
        if self.nest_candidates < 1 or self.nest_step_um <= 0:
            raise ValueError("nest_candidates and nest_step_um must be positive")
        if not 1 <= self.nest_cells[0] <= self.nest_cells[1]:
            raise ValueError(f"nest_cells must be a range of positive sizes, got "
                             f"{self.nest_cells}")

    @property
    def expected_cells(self) -> float:
        return self.cells_per_mm2 * (self.side_um / 1000.0) ** 2

    @classmethod
    def for_cells(cls, cells: float, cells_per_mm2: float = 1875.0) -> TissueSettings:
        """Settings whose field holds ≈ `cells` cells at `cells_per_mm2` (other settings
        at their defaults; change them with `dataclasses.replace`)."""
        return cls(side_um=1000.0 * math.sqrt(cells / cells_per_mm2),
                   cells_per_mm2=cells_per_mm2)


# The fewest cells per sample `gracrc tissue` and the tissue study accept: the default
# tumour share of them (25 %) fills the smallest nest (10 cells). Below it most samples
# hold one fragment of a nest, their engaged fractions bunch on 0, 1/2 and 1, and the
# classes often cannot be split at all (about a quarter of 2-sample datasets at 10 cells).
MIN_CELLS = math.ceil(TissueSettings.nest_cells[0] / TissueSettings.tumour_share)


def check_dataset_options(cells: int, seed: int, option: str = "--",
                          samples: int | None = None, ratios: tuple[float, ...] = ()) -> None:
    """`GracrError` naming the option (`--cells`, `--seed`, `--samples`, `--ratio`, or the
    field with `option=""`) unless `cells` lies in [`MIN_CELLS`, `MAX_TISSUE_CELLS`],
    `seed` in `[0, 2**32)`, `samples` (when given) in [2, `MAX_TISSUE_SAMPLES`] and every
    ratio in [1, `MAX_TISSUE_RATIO`] (a NaN or an infinity is refused)."""
    if cells < MIN_CELLS:
        raise GracrError(f"{option}cells must be at least {MIN_CELLS} (a sample's tumour "
                         f"cells, {TissueSettings.tumour_share:.0%} of them, must fill the "
                         f"smallest tumour nest, {TissueSettings.nest_cells[0]} cells), got "
                         f"{cells}")
    if cells > MAX_TISSUE_CELLS:
        raise GracrError(f"{option}cells must be at most {MAX_TISSUE_CELLS} "
                         f"(gracr.limits.MAX_TISSUE_CELLS), got {cells}")
    if not 0 <= seed < SEED_LIMIT:
        raise GracrError(f"{option}seed must lie in [0, 2**32), got {seed}")
    if samples is not None and not 2 <= samples <= MAX_TISSUE_SAMPLES:
        raise GracrError(f"{option}samples must be at least 2 (θ is chosen between the "
                         f"samples' ratios) and at most {MAX_TISSUE_SAMPLES} "
                         f"(gracr.limits.MAX_TISSUE_SAMPLES), got {samples}")
    for ratio in ratios:
        if not 1 <= ratio <= MAX_TISSUE_RATIO:   # false for NaN too
            raise GracrError(f"{option}ratio must lie in [1, {MAX_TISSUE_RATIO:g}] (the graph "
                             f"must hold the 30 µm label radius; gracr.limits."
                             f"MAX_TISSUE_RATIO), got {ratio:g}")


def place_cells(rng: np.random.Generator, count: int, side_um: float,
                min_separation_um: float) -> FloatArray:
    """`count` positions uniform in the square, no two closer than `min_separation_um`.

    Random sequential adsorption in rounds: each round proposes a batch, drops proposals
    within the separation of an accepted cell (one `cKDTree` query) and, of each clashing
    pair inside the batch, the later one; so each round is a few vectorised calls."""
    accepted = np.zeros((0, 2), dtype=np.float64)
    for _ in range(10_000):
        need = count - len(accepted)
        if need <= 0:
            break
        batch = rng.uniform(0.0, side_um, size=(max(2 * need, 64), 2))
        if len(accepted) and min_separation_um > 0:
            distance, _ = cKDTree(accepted).query(batch, k=1)
            batch = batch[distance >= min_separation_um]
        if len(batch) > 1 and min_separation_um > 0:
            pairs = cKDTree(batch).query_pairs(np.nextafter(min_separation_um, 0),
                                               output_type="ndarray")
            clash = np.zeros(len(batch), dtype=np.bool_)
            clash[np.asarray(pairs, dtype=np.int64).reshape(-1, 2).max(axis=1)] = True
            batch = batch[~clash]
        accepted = np.concatenate([accepted, batch[:need]], axis=0)
    if len(accepted) < count:
        raise RuntimeError(f"could not place {count} cells {min_separation_um} µm apart in a "
                           f"{side_um} µm field")
    return accepted


def _margin_ok(markers: FloatArray, codes: np.ndarray, margin: float) -> BoolArray:
    """Rows whose type rule holds with `margin` to spare on both differences."""
    a = markers[:, CK] - markers[:, CD8]
    b = markers[:, CD8] - markers[:, CK]
    clear = (np.abs(a - TYPE_THRESHOLD) > margin) & (np.abs(b - TYPE_THRESHOLD) > margin)
    rule = np.where(a > TYPE_THRESHOLD, 0, np.where(b > TYPE_THRESHOLD, 1, 2))
    return np.asarray(clear & (rule == codes), dtype=np.bool_)


def draw_markers(rng: np.random.Generator, types: tuple[str, ...], model: MarkerModel,
                 margin: float) -> FloatArray:
    """Marker rows for cells of `types`, each from its type's distribution, resampled until
    the marker rule gives the type and neither difference lies within `margin` of 0.5 (a
    compiled threshold then classifies every cell with room to spare)."""
    codes = np.array([CELL_TYPES.index(t) for t in types], dtype=np.int64)
    mean = np.asarray(model.mean, dtype=np.float64)
    sd = np.asarray(model.sd, dtype=np.float64)
    markers = np.zeros((len(types), len(CHANNELS)), dtype=np.float64)
    todo = np.arange(len(types))
    for _ in range(1000):
        if not len(todo):
            return markers
        drawn = rng.normal(mean[codes[todo]], sd[codes[todo]])
        markers[todo] = np.maximum(drawn, 0.0)
        todo = todo[~_margin_ok(markers[todo], codes[todo], margin)]
    raise RuntimeError("the marker model rarely satisfies the type rule with this margin")


def _choose_tcells(rng: np.random.Generator, positions: FloatArray, count: int,
                   settings: TissueSettings) -> BoolArray:
    """`count` T cells drawn without replacement with a patchy intensity (Gaussian patches
    over a flat background). It sees positions only, never tumour or label, which is what
    keeps T-cell density free of label signal."""
    n = len(positions)
    if count == 0:
        return np.zeros(n, dtype=np.bool_)
    area_mm2 = (settings.side_um / 1000.0) ** 2
    patches = max(1, int(rng.poisson(settings.patches_per_mm2 * area_mm2)))
    centres = rng.uniform(0.0, settings.side_um, size=(patches, 2))
    squared = ((positions[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    weight = settings.patch_background + np.exp(
        -squared / (2 * settings.patch_sigma_um ** 2)).sum(axis=1)
    chosen = rng.choice(n, size=count, replace=False, p=weight / weight.sum())
    mask = np.zeros(n, dtype=np.bool_)
    mask[chosen] = True
    return mask


@dataclass(frozen=True)
class _Neighbours:
    """Index lists the nest growth needs, computed once per sample with `cKDTree`."""

    near_t: list[list[int]]      # per position: T cells within the label radius
    band_t: list[list[int]]      # per position: T cells in (radius, radius + gap]
    band_of_t: dict[int, list[int]]   # per T cell: positions in its band
    step: list[list[int]]        # per position: positions within the nest step


def _neighbours(positions: FloatArray, tcell: BoolArray,
                settings: TissueSettings) -> _Neighbours:
    tree = cKDTree(positions)
    t_index = np.flatnonzero(tcell)
    radius, gap = settings.label_radius_um, settings.decoy_gap_um
    near_t: list[list[int]] = [[] for _ in range(len(positions))]
    band_t: list[list[int]] = [[] for _ in range(len(positions))]
    band_of_t: dict[int, list[int]] = {int(t): [] for t in t_index}
    if len(t_index):
        lists = tree.query_ball_point(positions[t_index], radius + gap)
        for t, around in zip(t_index.tolist(), lists):
            if not around:
                continue
            idx = np.asarray(around, dtype=np.int64)
            delta = positions[idx] - positions[t]
            dist = np.sqrt((delta ** 2).sum(axis=1))
            for p, d in zip(idx.tolist(), dist.tolist()):
                if d <= radius:
                    near_t[p].append(t)
                else:
                    band_t[p].append(t)
                    band_of_t[t].append(p)
    step = [list(v) for v in tree.query_ball_point(positions, settings.nest_step_um)]
    return _Neighbours(near_t, band_t, band_of_t, step)


@dataclass
class _Growth:
    """The mutable state of one sample's nest growth (local to `_grow_nests`; never
    returned). `blocked[p]`: T cells in p's band that are not drivers yet."""

    tumour: BoolArray
    free: BoolArray
    driver: BoolArray
    blocked: npt.NDArray[np.int64]
    engaged: int = 0
    placed: int = 0

    def copy(self) -> _Growth:
        return _Growth(self.tumour.copy(), self.free.copy(), self.driver.copy(),
                       self.blocked.copy(), self.engaged, self.placed)

    def add(self, p: int, nb: _Neighbours, engaged_here: BoolArray) -> None:
        """Make p tumour: the T cells within r become drivers, which frees their bands."""
        self.tumour[p] = True
        self.free[p] = False
        self.placed += 1
        self.engaged += int(engaged_here[p])
        for t in nb.near_t[p]:
            if not self.driver[t]:
                self.driver[t] = True
                self.blocked[nb.band_of_t[t]] -= 1


def _grow_blob(state: _Growth, seed: int, size: int, order: npt.NDArray[np.int64],
               nb: _Neighbours, engaged_here: BoolArray) -> None:
    """Grow a nest of up to `size` cells from `seed`, nearest to the seed first (a compact,
    roughly round nest), each new cell within the nest step of one already in it."""
    n = len(state.free)
    touching = np.zeros(n, dtype=np.bool_)
    touching[seed] = True
    grown = 0
    for p in order.tolist():
        if grown == size:
            break
        if p >= n or not touching[p] or not state.free[p] or state.blocked[p] > 0:
            continue
        state.add(p, nb, engaged_here)
        touching[nb.step[p]] = True
        grown += 1


def _grow_nests(rng: np.random.Generator, positions: FloatArray, tcell: BoolArray,
                count: int, target: float, settings: TissueSettings) -> BoolArray:
    """`count` tumour cells (fewer only if no position may take one) in compact contiguous
    nests, placed so that #engaged / #tumour lands near `target`.

    Each nest is grown from several random seeds; the one that leaves the running engaged
    count closest to `target` times the running tumour count is kept. Nests sitting on
    T-cell patches engage, nests away from them do not, so the target moves only where
    nests go, never how many cells or T cells there are.

    A position may become tumour only if every T cell in its band (r, r + gap] is already
    a driver, and a tumour cell makes the T cells within r drivers; so at every step a T
    cell is either a driver or farther than r + gap from every tumour cell."""
    n = len(positions)
    nb = _neighbours(positions, tcell, settings)
    tree = cKDTree(positions)
    engaged_here = np.array([bool(v) for v in nb.near_t], dtype=np.bool_).reshape(n)
    state = _Growth(np.zeros(n, dtype=np.bool_), ~tcell, np.zeros(n, dtype=np.bool_),
                    np.array([len(v) for v in nb.band_t], dtype=np.int64).reshape(n))
    low, high = settings.nest_cells
    while state.placed < count:
        open_ = np.flatnonzero(state.free & (state.blocked == 0))
        if not len(open_):
            break
        size = min(int(rng.integers(low, high + 1)), count - state.placed)
        seeds = rng.choice(open_, size=min(settings.nest_candidates, len(open_)), replace=False)
        best: _Growth | None = None
        best_miss = math.inf
        for seed in seeds.tolist():
            trial = state.copy()
            _, order = tree.query(positions[seed], k=min(n, 4 * size + 8))
            _grow_blob(trial, int(seed), size,
                       np.atleast_1d(np.asarray(order, dtype=np.int64)), nb, engaged_here)
            miss = abs(trial.engaged - target * trial.placed) - 1e-9 * trial.placed
            if miss < best_miss:
                best, best_miss = trial, miss
        assert best is not None
        state = best
    return state.tumour


def generate_sample(rng: np.random.Generator, settings: TissueSettings) -> CellTable:
    """One sample: counts, positions, T cells, tumour nests to a target engagement drawn
    independently of the counts, markers per type, and the roles recomputed from it all."""
    n = int(rng.poisson(settings.expected_cells))
    shares = [settings.tumour_share, settings.tcell_share,
              1.0 - settings.tumour_share - settings.tcell_share]
    n_tumour, n_tcell, _ = (int(v) for v in rng.multinomial(n, shares))
    target = float(rng.uniform(*settings.engagement))
    positions = place_cells(rng, n, settings.side_um, settings.min_separation_um)
    tcell = _choose_tcells(rng, positions, n_tcell, settings)
    tumour = _grow_nests(rng, positions, tcell, n_tumour, target, settings)
    types = tuple(TUMOUR if tumour[i] else TCELL if tcell[i] else OTHER for i in range(n))
    markers = draw_markers(rng, types, settings.markers, settings.margin)
    empty = np.zeros(n, dtype=np.bool_)
    draft = CellTable(types, np.ascontiguousarray(positions[:, 0]),
                      np.ascontiguousarray(positions[:, 1]), markers, empty, empty, empty,
                      settings.side_um, settings.label_radius_um)
    engaged, driver, decoy = roles(draft)
    return CellTable(types, draft.x, draft.y, markers, engaged, driver, decoy,
                     settings.side_um, settings.label_radius_um)


def short_decimal_between(low: Fraction, high: Fraction, digits: int = 4) -> Fraction | None:
    """The decimal with the fewest digits after the point (at most `digits`) strictly
    between `low` and `high`, the smallest such; None if there is none."""
    for d in range(digits + 1):
        scale = 10 ** d
        candidate = Fraction(math.floor(low * scale) + 1, scale)
        if candidate < high:
            return candidate
    return None


def choose_theta(tables: list[CellTable], digits: int = 4) -> float:
    """θ for class balance: a short decimal strictly between two neighbouring sorted
    ratios, at the median if the gap there admits one, else at the nearest gap that does.
    No sample's ratio equals θ, so no label hangs on a tie. Samples without tumour cells
    sort below every ratio (they are negative for any θ ≥ 0), and θ is never negative.
    `GracrError` when no such θ exists (every sample on the same fraction, or only gaps
    too narrow for `digits` digits)."""
    no_tumour = Fraction(-1)
    ratios = sorted(no_tumour if f is None else f
                    for f in (engaged_fraction(t) for t in tables))
    if len(ratios) < 2:
        raise ValueError("θ needs at least two samples")
    middle = len(ratios) // 2
    just_below_zero = Fraction(-1, 10 ** (digits + 1))
    for offset in range(len(ratios)):
        for k in sorted({middle - offset, middle + offset}):
            if not 1 <= k < len(ratios):
                continue
            theta = short_decimal_between(max(ratios[k - 1], just_below_zero), ratios[k],
                                          digits)
            if theta is not None:
                return float(theta)
    # Bad luck with the user's settings, not a bug: few or small samples can all land on
    # the same fraction (1/2, or no tumour cell at all).
    fractions = [str(ratio) for ratio in sorted({r for r in ratios if r >= 0})]
    shown = ", ".join(fractions[:4]) + (", ..." if len(fractions) > 4 else "")
    without = ratios.count(no_tumour)
    raise GracrError(f"no θ splits these {len(ratios)} samples into two classes: their "
                     f"engaged fractions ({shown or 'none'}"
                     f"{f'; {without} sample(s) without tumour cells' if without else ''}) "
                     f"leave no gap for a decimal of at most {digits} digits; generate more "
                     f"samples, larger ones, or another seed")


def generate_dataset(rng: np.random.Generator, settings: TissueSettings,
                     count: int) -> tuple[list[CellTable], float]:
    """`count` samples and the θ that splits them about half and half."""
    tables = [generate_sample(rng, settings) for _ in range(count)]
    return tables, choose_theta(tables)


def generation_seconds(rng: np.random.Generator, settings: TissueSettings,
                       samples: int = 3) -> float:
    """Mean wall-clock seconds to generate one sample (for the generator-speed benchmark)."""
    start = time.perf_counter()
    for _ in range(samples):
        generate_sample(rng, settings)
    return (time.perf_counter() - start) / max(samples, 1)
