"""The model-free baselines of the tissue benchmark note (`gracr.domains.tissue.baselines`): hand-
placed cells with answers worked out by hand, brute-force distance matrices on generated
samples, and the properties the note relies on (each able to fail)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gracr.errors import GracrError
from gracr.domains.tissue import CellTable, TissueSettings, generate_sample, radius_graph
from gracr.domains.tissue.baselines import (BASELINE_NAMES, BASELINES, BaselineContext,
                                     baseline_scores, tumour_mean)

# Marker rows by hand (cd8, cd4, ck, ki67, pdl1, dapi): ck - cd8 = 2 types tumour,
# cd8 - ck = 2 types tcell, ck = cd8 types other.
TUMOUR_ROW = [0.0, 0.0, 2.0, 0.0, 0.0, 1.0]
TCELL_ROW = [2.0, 0.0, 0.0, 0.0, 0.0, 1.0]
OTHER_ROW = [0.5, 0.5, 0.5, 0.0, 0.0, 1.0]
ROW = {"tumour": TUMOUR_ROW, "tcell": TCELL_ROW, "other": OTHER_ROW}
NO_EDGES = np.zeros((0, 2), dtype=np.int64)


def cells(*placed: tuple[str, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Positions `[N, 2]` and markers `[N, 6]` of cells given as (type, x, y)."""
    positions = np.array([[x, y] for _, x, y in placed], dtype=np.float64)
    markers = np.array([ROW[t] for t, _, _ in placed], dtype=np.float64)
    return positions, markers


def table_of(types: list[str], markers: list[list[float]],
             positions: list[tuple[float, float]] | None = None) -> CellTable:
    n = len(types)
    xy = np.array(positions if positions is not None else [(10.0 * i, 0.0) for i in range(n)],
                  dtype=np.float64).reshape(n, 2)
    flags = np.zeros(n, dtype=np.bool_)
    return CellTable(tuple(types), xy[:, 0].copy(), xy[:, 1].copy(),
                     np.array(markers, dtype=np.float64).reshape(n, 6), flags, flags.copy(),
                     flags.copy(), 400.0, 30.0)


# --- the registry and the entry point ---------------------------------------------------

def test_names_and_registry() -> None:
    assert BASELINE_NAMES == ("Rnd-cells", "Marker", "NearestT", "TDensity", "Blob", "Degree")
    assert tuple(BASELINES) == BASELINE_NAMES


def test_unknown_name_lists_the_names() -> None:
    positions, markers = cells(("tumour", 0, 0))
    with pytest.raises(GracrError) as caught:
        baseline_scores("Random-baseline", positions, markers, NO_EDGES, 0)
    for name in ("Rnd-cells", "Marker", "NearestT", "TDensity", "Blob", "Degree"):
        assert name in str(caught.value)


@pytest.mark.parametrize("positions, markers, edges", [
    (np.zeros((3, 3)), np.zeros((3, 6)), NO_EDGES),             # positions not [N, 2]
    (np.zeros((3, 2)), np.zeros((3, 5)), NO_EDGES),             # five channels
    (np.zeros((3, 2)), np.zeros((4, 6)), NO_EDGES),             # N differs
    (np.zeros((3, 2)), np.zeros((3, 6)), np.array([[0, 1, 2], [1, 2, 0]])),  # [2, E]
    (np.zeros((3, 2)), np.zeros((3, 6)), np.array([[0, 3]])),   # node 3 of 3
    (np.zeros((3, 2)), np.zeros((3, 6)), np.array([[0, -1]])),
    (np.zeros((3, 2)), np.zeros((3, 6)), np.array([[0.0, 1.0]])),  # not integers
    (np.array([[0, 0], [np.nan, 0], [1, 1]]), np.zeros((3, 6)), NO_EDGES),
])
def test_bad_arrays_are_refused(positions: np.ndarray, markers: np.ndarray,
                                edges: np.ndarray) -> None:
    with pytest.raises(GracrError):
        baseline_scores("Degree", positions, markers, edges, 0)


@pytest.mark.parametrize("settings", [
    dict(tumour_mean=(1.0, 2.0, 3.0)), dict(tumour_mean=(0.0,) * 6),
    dict(tumour_mean=(float("nan"),) + (1.0,) * 5), dict(density_radius_um=-1.0),
    dict(blob_length_scale_um=0.0), dict(blob_bumps=0),
])
def test_bad_context_is_refused(settings: dict[str, object]) -> None:
    with pytest.raises(GracrError):
        BaselineContext(**settings)  # type: ignore[arg-type]


def test_an_empty_sample_gives_no_scores() -> None:
    for name in BASELINE_NAMES:
        scores = baseline_scores(name, np.zeros((0, 2)), np.zeros((0, 6)), [], 0)
        assert scores.shape == (0,) and scores.dtype == np.float64


# --- Rnd-cells --------------------------------------------------------------------------

def test_random_is_uniform_and_seeded() -> None:
    positions = np.zeros((10_000, 2))
    markers = np.tile(TUMOUR_ROW, (10_000, 1))
    a = baseline_scores("Rnd-cells", positions, markers, NO_EDGES, 1)
    assert a.shape == (10_000,) and a.dtype == np.float64
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.02 and abs((a < 0.25).mean() - 0.25) < 0.02
    assert np.array_equal(a, baseline_scores("Rnd-cells", positions, markers, NO_EDGES, 1))
    assert np.array_equal(a, baseline_scores("Rnd-cells", positions, markers, NO_EDGES,
                                             np.random.default_rng(1)))
    assert not np.array_equal(a, baseline_scores("Rnd-cells", positions, markers, NO_EDGES, 2))


# --- Marker -----------------------------------------------------------------------------

def test_marker_is_the_projection_on_the_unit_tumour_mean() -> None:
    # m̂ = (3, 0, 4, 0, 0, 0) / 5 = (0.6, 0, 0.8, 0, 0, 0).
    markers = np.array([[1, 0, 1, 0, 0, 7], [0, 2, 0, 0, 0, 0], [2, 0, 0, 0, 0, 1],
                        [0, 0, 2, 0, 0, 1]], dtype=np.float64)
    positions = np.zeros((4, 2))
    expected = [0.6 + 0.8, 0.0, 1.2, 1.6]
    for mean in ((3.0, 0.0, 4.0, 0.0, 0.0, 0.0), (6.0, 0.0, 8.0, 0.0, 0.0, 0.0)):
        context = BaselineContext(tumour_mean=mean)
        scores = baseline_scores("Marker", positions, markers, NO_EDGES, 0, context)
        assert scores.tolist() == pytest.approx(expected, abs=1e-12)


def test_marker_default_is_the_generator_tumour_mean() -> None:
    # The generator's tumour row (0.2, 0.3, 2.0, 1.2, 0.8, 1.0): squared norm
    # 0.04 + 0.09 + 4 + 1.44 + 0.64 + 1 = 7.21.
    assert BaselineContext().tumour_mean == (0.2, 0.3, 2.0, 1.2, 0.8, 1.0)
    positions, markers = cells(("tumour", 0, 0), ("tcell", 5, 0))
    scores = baseline_scores("Marker", positions, markers, NO_EDGES, 0)
    norm = math.sqrt(7.21)
    assert scores.tolist() == pytest.approx([(2 * 2.0 + 1.0) / norm, (2 * 0.2 + 1.0) / norm],
                                            abs=1e-12)


def test_tumour_mean_reads_markers_not_recorded_types() -> None:
    first = table_of(["tumour", "tcell", "tumour", "other"],
                     [[0, 0, 2, 0, 0, 1],     # tumour by markers: counted
                      [2, 0, 0, 0, 0, 1],     # tcell
                      [2, 0, 0, 0, 0, 1],     # recorded tumour, tcell by markers: not counted
                      [0, 1, 3, 0, 0, 1]])    # recorded other, tumour by markers: counted
    second = table_of(["tumour", "other"], [[0, 0, 4, 0, 2, 1], [0.5, 0, 0.5, 0, 0, 1]])
    assert tumour_mean([first, second]) == pytest.approx((0, 1 / 3, 3, 0, 2 / 3, 1),
                                                         abs=1e-12)
    with pytest.raises(GracrError):
        tumour_mean([table_of(["tcell"], [[2, 0, 0, 0, 0, 1]])])
    with pytest.raises(GracrError):
        tumour_mean([])


# --- NearestT ---------------------------------------------------------------------------

def test_nearest_t_by_hand() -> None:
    positions, markers = cells(("tcell", 0, 0), ("tcell", 3, 4), ("tumour", 0, 10),
                               ("other", 100, 0))
    scores = baseline_scores("NearestT", positions, markers, NO_EDGES, 0)
    # Each tcell's nearest other tcell is 5 away; the tumour cell is 10 from (0, 0) and
    # √(3² + 6²) = √45 from (3, 4); the other cell is 100 and √(97² + 4²) away.
    assert scores.tolist() == pytest.approx([-5.0, -5.0, -math.sqrt(45.0),
                                             -math.sqrt(97.0 ** 2 + 16.0)], abs=1e-12)


def test_nearest_t_two_tcells_at_one_place() -> None:
    positions, markers = cells(("tcell", 1, 1), ("tcell", 1, 1), ("other", 1, 9))
    scores = baseline_scores("NearestT", positions, markers, NO_EDGES, 0)
    assert scores.tolist() == pytest.approx([0.0, 0.0, -8.0], abs=1e-12)


def test_nearest_t_without_another_tcell_scores_lowest() -> None:
    positions, markers = cells(("tcell", 0, 0), ("tumour", 10, 0), ("other", 0, 20))
    scores = baseline_scores("NearestT", positions, markers, NO_EDGES, 0)
    assert scores[1] == pytest.approx(-10.0) and scores[2] == pytest.approx(-20.0)
    # The lone tcell has no other tcell: finite, below any distance in the sample
    # (the farthest pair is √(10² + 20²) apart).
    assert np.isfinite(scores[0]) and scores[0] < -math.sqrt(500.0)
    positions, markers = cells(("tumour", 0, 0), ("other", 50, 0))
    none = baseline_scores("NearestT", positions, markers, NO_EDGES, 0)
    assert np.isfinite(none).all() and none[0] == none[1] < -50.0


# --- TDensity ---------------------------------------------------------------------------

@pytest.mark.parametrize("radius, expected", [
    # tcell (0,0): (10,0) at 10, (40,0) at 40; tcell (10,0): (0,0) at 10, (40,0) at exactly
    # 30; tcell (40,0): (10,0) at 30; tumour (5,0): two at 5, one at 35; other (0,30):
    # (0,0) at exactly 30, (10,0) at √1000.
    (30.0, [1, 2, 1, 2, 1]),
    (10.0, [1, 1, 0, 2, 0]),
    (0.0, [0, 0, 0, 0, 0]),
    (100.0, [2, 2, 2, 3, 3]),
])
def test_t_density_by_hand(radius: float, expected: list[int]) -> None:
    positions, markers = cells(("tcell", 0, 0), ("tcell", 10, 0), ("tcell", 40, 0),
                               ("tumour", 5, 0), ("other", 0, 30))
    context = BaselineContext(density_radius_um=radius)
    scores = baseline_scores("TDensity", positions, markers, NO_EDGES, 0, context)
    assert scores.tolist() == expected


def test_t_density_default_radius_is_the_label_radius() -> None:
    positions, markers = cells(("tcell", 0, 0), ("tumour", 30, 0), ("tumour", 30.5, 0))
    assert baseline_scores("TDensity", positions, markers, NO_EDGES, 0).tolist() == [0, 1, 0]


# --- Blob -------------------------------------------------------------------------------

GRID = np.array([(x, y) for x in np.arange(0, 401, 10.0) for y in np.arange(0, 401, 10.0)])


def blob(positions: np.ndarray, seed: int, context: BaselineContext = BaselineContext()
         ) -> np.ndarray:
    return baseline_scores("Blob", positions, np.zeros((len(positions), 6)), NO_EDGES, seed,
                           context)


def test_blob_is_seeded() -> None:
    a = blob(GRID, 4)
    assert np.array_equal(a, blob(GRID, 4))
    assert not np.array_equal(a, blob(GRID, 5))
    assert a.shape == (len(GRID),) and np.isfinite(a).all()


def test_blob_is_smooth() -> None:
    d = np.sqrt(((GRID[:, None, :] - GRID[None, :, :]) ** 2).sum(axis=2))
    near = np.argwhere((d > 0) & (d <= 10.0))
    far = np.argwhere(d >= 200.0)
    for seed in range(10):
        s = blob(GRID, seed)
        near_gap = np.abs(s[near[:, 0]] - s[near[:, 1]]).mean()
        far_gap = np.abs(s[far[:, 0]] - s[far[:, 1]]).mean()
        assert far_gap > 2 * near_gap


def test_blob_one_bump_is_a_gaussian() -> None:
    # One bump of standard deviation σ: log field = log h - |p - μ|² / 2σ², so
    # score + |p|² / 2σ² is affine in p, with slope μ / σ² and μ inside the field.
    sigma = 50.0
    s = blob(GRID, 7, BaselineContext(blob_bumps=1, blob_length_scale_um=sigma))
    target = s + (GRID ** 2).sum(axis=1) / (2 * sigma ** 2)
    design = np.column_stack([GRID, np.ones(len(GRID))])
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    assert np.abs(design @ coef - target).max() < 1e-6
    centre = coef[:2] * sigma ** 2
    assert (centre >= 0).all() and (centre <= 400).all()


def test_blob_length_scale_is_used() -> None:
    flat = blob(GRID, 3, BaselineContext(blob_length_scale_um=1e6))
    assert np.ptp(flat) < 1e-3
    assert np.ptp(blob(GRID, 3)) > 1.0


def test_blob_far_from_every_bump_keeps_distinct_scores() -> None:
    line = np.column_stack([np.arange(0.0, 20_001.0, 1000.0), np.zeros(21)])
    s = blob(line, 0)
    assert np.isfinite(s).all() and len(set(s.tolist())) == 21


# --- Degree -----------------------------------------------------------------------------

def test_degree_by_hand() -> None:
    positions = np.zeros((4, 2))
    markers = np.tile(OTHER_ROW, (4, 1))
    both = np.array([[0, 1], [1, 0], [0, 2], [2, 0]])
    assert baseline_scores("Degree", positions, markers, both, 0).tolist() == [2, 1, 1, 0]
    one_way = np.array([[0, 1], [2, 1]])
    assert baseline_scores("Degree", positions, markers, one_way, 0).tolist() == [0, 2, 0, 0]
    assert baseline_scores("Degree", positions, markers, NO_EDGES, 0).tolist() == [0] * 4


def test_degree_of_a_radius_graph_by_hand() -> None:
    table = table_of(["tumour", "tcell", "other", "other"],
                     [TUMOUR_ROW, TCELL_ROW, OTHER_ROW, OTHER_ROW],
                     [(0, 0), (20, 0), (45, 0), (200, 0)])
    # Pairs at 20, 25 and 45 µm (and 155+): at 30 µm two edges, at 45 µm three.
    for ratio, expected in ((1.0, [1, 2, 1, 0]), (1.5, [2, 2, 2, 0])):
        edges, _ = radius_graph(table, ratio)
        scores = baseline_scores("Degree", table.positions, table.markers, edges, 0)
        assert scores.tolist() == expected


# --- on generated samples ---------------------------------------------------------------

@pytest.fixture(scope="module")
def generated() -> list[CellTable]:
    rng = np.random.default_rng(20261207)
    return [generate_sample(rng, TissueSettings.for_cells(200)) for _ in range(8)]


def distances(table: CellTable) -> np.ndarray:
    p = table.positions
    return np.asarray(np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2)),
                      dtype=np.float64)


def test_every_baseline_gives_n_finite_scores(generated: list[CellTable]) -> None:
    for seed, table in enumerate(generated):
        edges, _ = radius_graph(table, 1.5)
        for name in BASELINE_NAMES:
            scores = baseline_scores(name, table.positions, table.markers, edges, seed)
            assert scores.shape == (table.num_cells,) and scores.dtype == np.float64
            assert np.isfinite(scores).all()


def test_generated_against_brute_force(generated: list[CellTable]) -> None:
    for table in generated[:3]:
        d = distances(table)
        tcell = table.mask("tcell")
        other_t = np.where(np.eye(table.num_cells, dtype=bool) | ~tcell[None, :], np.inf, d)
        nearest = baseline_scores("NearestT", table.positions, table.markers, NO_EDGES, 0)
        assert nearest == pytest.approx(-other_t.min(axis=1), abs=1e-9)
        density = baseline_scores("TDensity", table.positions, table.markers, NO_EDGES, 0)
        assert density.tolist() == (other_t <= 30.0).sum(axis=1).tolist()
        edges, _ = radius_graph(table, 2.0)
        degree = baseline_scores("Degree", table.positions, table.markers, edges, 0)
        assert degree.tolist() == ((d <= 60.0).sum(axis=1) - 1).tolist()


def test_nearest_t_separates_engaged_from_unengaged(generated: list[CellTable]) -> None:
    # Engaged means a tcell within 30 µm, so every engaged tumour cell scores >= -30 and
    # every unengaged one below.
    both = 0
    for table in generated:
        scores = baseline_scores("NearestT", table.positions, table.markers, NO_EDGES, 0)
        tumour = table.mask("tumour")
        engaged, unengaged = scores[tumour & table.engaged], scores[tumour & ~table.engaged]
        if len(engaged) and len(unengaged):
            both += 1
            assert engaged.min() >= -30.0 > unengaged.max()
            assert engaged.mean() > unengaged.mean()
    assert both >= 4


def test_marker_scores_tumour_above_tcells(generated: list[CellTable]) -> None:
    estimated = BaselineContext(tumour_mean=tumour_mean(generated[4:]))
    # The estimate is close to the generator's tumour row.
    assert np.abs(np.array(estimated.tumour_mean)
                  - np.array([0.2, 0.3, 2.0, 1.2, 0.8, 1.0])).max() < 0.1
    for table in generated[:4]:
        for context in (BaselineContext(), estimated):
            scores = baseline_scores("Marker", table.positions, table.markers, NO_EDGES, 0,
                                     context)
            assert scores[table.mask("tumour")].min() > scores[table.mask("tcell")].max()


def test_t_density_puts_more_mass_on_decoys_than_random(generated: list[CellTable]) -> None:
    # Decoys are tcells in the patches nests avoided, so T-cell density finds them;
    # checked beforehand on 80 samples of 150 and 300 cells: higher in every one, mean
    # mass 0.33 against 0.15.
    density_mass, random_mass = [], []
    for seed, table in enumerate(generated):
        density = baseline_scores("TDensity", table.positions, table.markers, NO_EDGES, 0)
        rnd = baseline_scores("Rnd-cells", table.positions, table.markers, NO_EDGES, seed)
        if table.decoy.any() and density.sum() > 0:
            density_mass.append(density[table.decoy].sum() / density.sum())
            random_mass.append(rnd[table.decoy].sum() / rnd.sum())
    assert len(density_mass) >= 4
    assert np.mean(density_mass) > np.mean(random_mass) + 0.05
