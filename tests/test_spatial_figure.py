"""The tissue study's figure of one sample (`gracr.domains.tissue.figure`): drawn with the Agg
backend on a small generated sample and its exact ground truth."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.bdd.relevance import Relevance, relevance
from gracr.errors import GracrError
from gracr.domains.tissue import (CellTable, TissueSettings, generate_sample, graph_json, radius_graph,
                           tissue_program)
from gracr.domains.tissue.figure import (COLOURBAR_LABEL, DPI, FIELD_LABEL, draw_tissue_sample,
                                  figure_inches, grid_shape, tissue_figure)

THETA = 0.4
Sample = tuple[CellTable, np.ndarray, Relevance]


@pytest.fixture(scope="module")
def sample() -> Sample:
    table = generate_sample(np.random.default_rng(7), TissueSettings.for_cells(80))
    prog = gracr.parse(tissue_program(THETA))
    graph = gracr.Graph.from_json(graph_json(table, THETA, 1.0), schema=prog.schema)
    edges, _ = radius_graph(table, 1.0)
    return table, edges, relevance(prog, graph)


def attributions(table: CellTable) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"non-negative": rng.random(table.num_cells),
            "signed": rng.normal(size=table.num_cells)}


def test_png_of_the_expected_size(sample: Sample, tmp_path: Path) -> None:
    import matplotlib.image

    table, edges, truth = sample
    assert truth.counterfactual is not None       # the diagram was built: rings are drawn
    out = draw_tissue_sample(table, edges, truth.counterfactual, truth.shapley,
                             attributions(table), tmp_path / "sample.png", title="a sample")
    assert out == tmp_path / "sample.png" and out.exists()
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # four panels: one row of four columns, and the title's strip above it
    assert grid_shape(4) == (1, 4)
    width, height = figure_inches(4, titled=True)
    pixels = matplotlib.image.imread(out)
    assert pixels.shape[:2] == (round(height * DPI), round(width * DPI))


def test_one_field_per_panel(sample: Sample) -> None:
    table, edges, truth = sample
    scores = attributions(table)
    figure = tissue_figure(table, edges, truth.counterfactual, truth.shapley, scores)
    fields = [ax for ax in figure.axes if ax.get_label() == FIELD_LABEL]
    assert len(fields) == 2 + len(scores)
    assert [ax.get_title() for ax in fields[2:]] == list(scores)
    # every score panel has its colourbar; the types panel has a legend instead
    bars = [ax for ax in figure.axes if ax.get_label() == COLOURBAR_LABEL]
    assert len(bars) == 1 + len(scores) and len(figure.axes) == len(fields) + len(bars)
    assert fields[0].get_legend() is not None
    for ax in fields:
        assert ax.get_xlim() == ax.get_ylim()
        assert ax.get_aspect() == 1.0


def test_colour_scales(sample: Sample) -> None:
    table, edges, truth = sample
    figure = tissue_figure(table, edges, truth.counterfactual, truth.shapley,
                           attributions(table))
    fields = [ax for ax in figure.axes if ax.get_label() == FIELD_LABEL]
    limits = [ax.collections[0].get_clim() for ax in fields[1:]]
    reach = float(np.abs(truth.shapley).max())
    assert limits[0] == pytest.approx((-reach, reach))          # the truth: symmetric
    assert limits[1][0] == 0.0                                  # non-negative: from 0
    low, high = limits[2]
    assert low == -high and high > 0                            # signed: centred at 0


def test_without_attributions_or_counterfactuals(sample: Sample, tmp_path: Path) -> None:
    import matplotlib.image

    table, edges, truth = sample
    figure = tissue_figure(table, edges, None, truth.shapley, {})
    assert [ax.get_label() for ax in figure.axes] == [FIELD_LABEL] * 2 + [COLOURBAR_LABEL]
    out = draw_tissue_sample(table, edges, None, truth.shapley, {}, str(tmp_path / "two.png"))
    width, height = figure_inches(2, titled=False)
    assert matplotlib.image.imread(out).shape[:2] == (round(height * DPI), round(width * DPI))


def test_grid_of_at_most_four_columns() -> None:
    assert [grid_shape(n) for n in (2, 3, 4, 5, 8, 9, 12)] == [
        (1, 2), (1, 3), (1, 4), (2, 4), (2, 4), (3, 4), (3, 4)]


def test_mismatched_lengths(sample: Sample, tmp_path: Path) -> None:
    table, edges, truth = sample
    scores = attributions(table)
    scores["too short"] = np.zeros(table.num_cells - 1)
    with pytest.raises(GracrError, match="too short"):
        draw_tissue_sample(table, edges, truth.counterfactual, truth.shapley, scores,
                           tmp_path / "bad.png")
    assert not (tmp_path / "bad.png").exists()
    with pytest.raises(GracrError, match="Shapley"):
        tissue_figure(table, edges, None, truth.shapley[:-1], {})
    with pytest.raises(GracrError, match="counterfactual"):
        tissue_figure(table, edges, np.zeros(3, dtype=bool), truth.shapley, {})
    with pytest.raises(GracrError, match="not finite"):
        tissue_figure(table, edges, None, truth.shapley,
                      {"nan": np.full(table.num_cells, np.nan)})
    with pytest.raises(GracrError, match="edge"):
        tissue_figure(table, np.array([[0, table.num_cells]]), None, truth.shapley, {})


def test_unwritable_path(sample: Sample, tmp_path: Path) -> None:
    table, edges, truth = sample
    with pytest.raises(GracrError, match="cannot write"):
        draw_tissue_sample(table, edges, None, truth.shapley, {},
                           tmp_path / "missing" / "sample.png")
