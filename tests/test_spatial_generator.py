"""The tissue generator (`gracr.domains.tissue`) against the probes of the tissue benchmark note:
hard core, marker margin, exact label recomputation, the roles' distances, the radius
graph, class balance, and that neither local T-cell density nor cell counts predict the
label (while the engaged ratio does, so the probe can fail)."""

from __future__ import annotations

import json
import re
import time
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import gracr
from scipy.spatial import cKDTree
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gracr.domains.tissue import (CELL_TYPES, CHANNELS, GRAPH_RADIUS_RATIOS, CellTable,
                           TissueSettings, engaged_ratio, generate_dataset, generate_sample,
                           graph_json, radius_graph, recompute_label, tissue_program,
                           types_from_markers, write_dataset)
from gracr.domains.tissue.generator import short_decimal_between

LABEL_RADIUS = 30.0


def all_distances(table: CellTable) -> np.ndarray:
    """The O(n²) distance matrix, independent of any tree."""
    p = table.positions
    return np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2))


def brute_force_label(table: CellTable, theta: float) -> bool:
    """The rule from scratch: types from the markers, engaged by the distance matrix."""
    types = np.array(types_from_markers(table.markers))
    tumour, tcell = types == "tumour", types == "tcell"
    if not tumour.any():
        return False
    d = all_distances(table)
    engaged = (d[np.ix_(tumour, tcell)] <= LABEL_RADIUS).any(axis=1)
    return bool(engaged.mean() > theta)


@pytest.fixture(scope="module")
def small() -> tuple[list[CellTable], float]:
    """300 default samples (≈ 300 cells each): the probes' dataset."""
    return generate_dataset(np.random.default_rng(20261201), TissueSettings(), 300)


@pytest.fixture(scope="module")
def sized() -> list[CellTable]:
    """Samples from ≈ 300 to ≈ 3000 cells."""
    rng = np.random.default_rng(7)
    return [generate_sample(rng, TissueSettings.for_cells(n)) for n in (300, 800, 1500, 3000)]


def test_sizes_span_300_to_3000(sized: list[CellTable]) -> None:
    counts = [t.num_cells for t in sized]
    assert 250 <= counts[0] <= 350 and 2800 <= counts[-1] <= 3200, counts
    assert 250 <= TissueSettings().expected_cells <= 350


def test_minimum_separation(sized: list[CellTable], small: tuple[list[CellTable], float]) -> None:
    for table in sized + small[0][:50]:
        d = all_distances(table)
        np.fill_diagonal(d, np.inf)
        assert d.min() >= 8.0, d.min()
        assert (table.x >= 0).all() and (table.x <= table.side_um).all()
        assert (table.y >= 0).all() and (table.y <= table.side_um).all()


def test_marker_margin_and_types(sized: list[CellTable],
                                 small: tuple[list[CellTable], float]) -> None:
    margin = TissueSettings().margin
    for table in sized + small[0]:
        ck, cd8 = table.markers[:, CHANNELS.index("ck")], table.markers[:, CHANNELS.index("cd8")]
        assert (np.abs((ck - cd8) - 0.5) > margin).all()
        assert (np.abs((cd8 - ck) - 0.5) > margin).all()
        assert types_from_markers(table.markers) == table.types
        assert table.markers.shape == (table.num_cells, 6)
    with pytest.raises(ValueError, match="δ"):
        TissueSettings(margin=5e-4)


def test_label_recomputes_from_serialised_table(small: tuple[list[CellTable], float],
                                                sized: list[CellTable]) -> None:
    tables, theta = small
    for table in tables + sized:
        text = json.dumps(table.to_json())
        back = CellTable.from_json(json.loads(text))
        assert back.types == table.types
        assert np.array_equal(back.positions, table.positions)
        assert np.array_equal(back.markers, table.markers)
        assert recompute_label(back, theta) == recompute_label(table, theta) \
            == brute_force_label(back, theta)
        # The recorded engaged flags are the rule's too.
        tumour, tcell = back.mask("tumour"), back.mask("tcell")
        d = all_distances(back)
        engaged = np.zeros(back.num_cells, dtype=bool)
        engaged[tumour] = (d[np.ix_(tumour, tcell)] <= LABEL_RADIUS).any(axis=1)
        assert np.array_equal(back.engaged, engaged)
    assert not recompute_label(_no_tumour(), 0.0)


def _no_tumour() -> CellTable:
    markers = np.array([[1.8, 0.4, 0.2, 0.5, 0.3, 1.0], [0.3, 0.9, 0.3, 0.3, 0.3, 1.0]])
    flags = np.zeros(2, dtype=bool)
    return CellTable(("tcell", "other"), np.array([1.0, 20.0]), np.array([1.0, 1.0]), markers,
                     flags, np.array([False, False]), np.array([True, False]), 400.0, 30.0)


def test_decoys_far_and_drivers_near(small: tuple[list[CellTable], float],
                                     sized: list[CellTable]) -> None:
    decoys = drivers = 0
    for table in small[0] + sized:
        tumour, tcell = table.mask("tumour"), table.mask("tcell")
        d = all_distances(table)[:, tumour]
        nearest = d.min(axis=1) if tumour.any() else np.full(table.num_cells, np.inf)
        assert (table.driver | table.decoy == tcell).all() and not (table.driver & table.decoy).any()
        assert (nearest[table.decoy] > LABEL_RADIUS + 1.0).all()   # the safety gap
        assert (nearest[table.driver] <= LABEL_RADIUS).all()
        decoys += int(table.decoy.sum())
        drivers += int(table.driver.sum())
    assert decoys > 1000 and drivers > 1000, (decoys, drivers)


def _density_features(table: CellTable) -> list[float]:
    """Local T-cell density: mean T cells within 30 / 60 µm of a cell and of a T cell
    (itself left out), and T cells per mm²."""
    p, tcell = table.positions, table.mask("tcell")
    tree = cKDTree(p[tcell])
    features = []
    for radius in (30.0, 60.0):
        around = np.array([len(v) for v in tree.query_ball_point(p, radius)], dtype=float)
        features += [float(around.mean()), float((around[tcell] - 1).mean())]
    return features + [float(tcell.sum() / (table.side_um / 1000) ** 2)]


def _probe_auc(features: np.ndarray, labels: np.ndarray) -> float:
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    return float(cross_val_score(model, features, labels, cv=folds, scoring="roc_auc").mean())


def test_probes_at_chance(small: tuple[list[CellTable], float]) -> None:
    tables, theta = small
    labels = np.array([recompute_label(t, theta) for t in tables])
    density = np.array([_density_features(t) for t in tables])
    counts = np.array([[t.counts()[c] for c in CELL_TYPES] + [t.num_cells] for t in tables],
                      dtype=float)
    ratio = np.array([[engaged_ratio(t) or 0.0] for t in tables])
    density_auc, counts_auc = _probe_auc(density, labels), _probe_auc(counts, labels)
    ratio_auc = _probe_auc(ratio, labels)
    print(f"\nprobe on {len(tables)} samples, {labels.mean():.0%} positive, θ = {theta}: "
          f"T-cell density AUC {density_auc:.3f}, cell counts AUC {counts_auc:.3f}, "
          f"engaged ratio AUC {ratio_auc:.3f}")
    assert density_auc <= 0.6
    assert counts_auc <= 0.6
    # The same probe can fail: on the ratio the label is read off.
    assert ratio_auc >= 0.95


@pytest.mark.parametrize("ratio", GRAPH_RADIUS_RATIOS)
def test_radius_graph(ratio: float, small: tuple[list[CellTable], float]) -> None:
    for table in small[0][:5]:
        edges, lengths = radius_graph(table, ratio)
        d = all_distances(table)
        np.fill_diagonal(d, np.inf)
        expected = {(int(s), int(t)) for s, t in zip(*np.nonzero(d <= LABEL_RADIUS * ratio))}
        got = [(int(s), int(t)) for s, t in edges.tolist()]
        assert len(got) == len(set(got)) and set(got) == expected
        assert all((t, s) in expected for s, t in got)
        assert np.allclose(lengths, d[edges[:, 0], edges[:, 1]])
        graph = graph_json(table, 0.4, ratio)
        assert json.loads(json.dumps(graph)) == graph
        assert graph["num_nodes"] == table.num_cells and len(graph["features"]) == table.num_cells
        assert all(len(row) == 6 and all(type(v) is float for v in row)
                   for row in graph["features"])
        assert len(graph["relations"]) == len(graph["edges"]) == len(graph["edge_attr"])
        for (s, t), relation, (length,) in zip(graph["edges"], graph["relations"],
                                               graph["edge_attr"]):
            assert relation == ("near" if d[s, t] <= LABEL_RADIUS else "far")
            assert type(length) is float
        if ratio == 1.0:
            assert set(graph["relations"]) <= {"near"}
        assert graph["pos"] == [[x, y] for x, y in zip(table.x.tolist(), table.y.tolist())]
        read = gracr.Graph.from_json(graph)
        assert read.pos is not None and np.array_equal(read.pos, table.positions)
        # Deleting cells keeps the others' positions (what spatial baselines read).
        kept, _ = read.keep_nodes(np.arange(table.num_cells) % 2 == 0)
        assert kept.pos is not None and np.array_equal(kept.pos, table.positions[::2])
        assert CellTable.from_json(graph["x-cells"]).types == table.types
        assert graph["x-theta"] == 0.4


def test_theta_balances_classes() -> None:
    tables, theta = generate_dataset(np.random.default_rng(11), TissueSettings(), 200)
    labels = [recompute_label(t, theta) for t in tables]
    assert 0.4 <= sum(labels) / len(labels) <= 0.6
    assert all(engaged_ratio(t) != theta for t in tables)
    assert re.fullmatch(r"\d+(\.\d{1,4})?", tissue_program(theta).split("> ")[-1].split(" *")[0])
    assert short_decimal_between(Fraction(7, 16), Fraction(9, 20)) == Fraction(44, 100)
    assert short_decimal_between(Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10 ** 6)) is None


def test_program_text() -> None:
    assert tissue_program(0.4375) == (
        "features cd8, cd4, ck, ki67, pdl1, dapi\n"
        "relations near, far\n"
        "let tumour = ck - cd8 > 0.5\n"
        "let tcell  = cd8 - ck > 0.5\n"
        "let engaged = tumour & <1>{near} tcell\n"
        "classify count(engaged) > 0.4375 * count(tumour)\n")


def test_write_dataset(tmp_path: Path, small: tuple[list[CellTable], float]) -> None:
    tables, theta = small[0][:6], small[1]
    task = write_dataset(tmp_path, tables, theta, 1.5)
    spec = tomllib.loads(task.read_text())
    assert spec == {"name": "Tissue", "formula": "tissue.gml",
                    "graphs": {"file": "graphs.jsonl"}, "dataset": {"graphs": 6}}
    assert (tmp_path / "tissue.gml").read_text() == tissue_program(theta)
    graphs = [json.loads(line) for line in (tmp_path / "graphs.jsonl").read_text().splitlines()]
    cells = [json.loads(line) for line in (tmp_path / "cells.jsonl").read_text().splitlines()]
    assert len(graphs) == len(cells) == 6
    for graph, cell, table in zip(graphs, cells, tables):
        assert set(graph) == {"num_nodes", "features", "pos", "edges", "relations",
                              "edge_attr", "x-cells", "x-theta"}
        assert graph["x-cells"] == cell
        assert recompute_label(CellTable.from_json(cell), theta) == recompute_label(table, theta)


def test_deterministic_and_fast() -> None:
    settings = TissueSettings.for_cells(3000)
    a = generate_sample(np.random.default_rng(3), settings)
    start = time.perf_counter()
    b = generate_sample(np.random.default_rng(3), settings)
    seconds = time.perf_counter() - start
    assert a.to_json() == b.to_json()
    assert seconds < 3.0, seconds


def test_tiny_and_empty_samples() -> None:
    rng = np.random.default_rng(5)
    tables = [generate_sample(rng, TissueSettings.for_cells(2)) for _ in range(100)]
    assert min(t.num_cells for t in tables) == 0
    for table in tables:
        graph = graph_json(table, 0.5, 3.0)
        assert graph["num_nodes"] == table.num_cells
        assert recompute_label(table, 0.5) == brute_force_label(table, 0.5)
        if not table.mask("tumour").any():
            assert engaged_ratio(table) is None and not recompute_label(table, 0.0)


def test_settings_refuse_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="cover"):
        TissueSettings(side_um=400.0, cells_per_mm2=18750.0)   # 3000 cells 8 µm apart
    with pytest.raises(ValueError, match="shares"):
        TissueSettings(tumour_share=0.7, tcell_share=0.5)
    with pytest.raises(ValueError, match="at least 1"):
        radius_graph(generate_sample(np.random.default_rng(0), TissueSettings()), 0.5)
