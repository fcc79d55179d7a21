"""The model-free tissue baselines as registered GracrBench explainers: they score the
explained graph's cells exactly as the pure scorers do, resolve by name through the
`gracr.explainers` entry point, and refuse a graph without positions by name."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import gracr
from gracr.explainers.base import Subject, scores
from gracr.errors import GracrError
from gracr.executor.model import compile_program
from gracr.domains.tissue import TissueSettings, generate_sample, graph_json, tissue_program
from gracr.domains.tissue.baselines import BASELINE_NAMES, BaselineContext, baseline_scores


@pytest.fixture(scope="module")
def sample() -> tuple[gracr.Program, gracr.Graph, np.ndarray]:
    table = generate_sample(np.random.default_rng(5), TissueSettings.for_cells(120))
    program = gracr.parse(tissue_program(0.4))
    graph = gracr.Graph.from_json(graph_json(table, 0.4, 1.5), schema=program.schema)
    return program, graph, table.positions


def _subject(program: gracr.Program, graph: gracr.Graph) -> Subject:
    model = compile_program(program, presence=True)
    return Subject.of(model, program, graph, None, level="node")


@pytest.mark.parametrize("name", BASELINE_NAMES)
def test_registered_baseline_scores_the_cells_like_the_scorer(
        name: str, sample: tuple[gracr.Program, gracr.Graph, np.ndarray]) -> None:
    import gracr.domains.tissue.explainers  # noqa: F401  (registers; installed, the entry point does)

    program, graph, positions = sample
    got = scores(name, _subject(program, graph), {"blob_bumps": 5}, seed=3).numpy()
    edges = np.stack([graph.sources, graph.targets], axis=1)
    assert graph.feature_values is not None
    expected = baseline_scores(name, positions, graph.feature_values, edges, 3,
                               BaselineContext(blob_bumps=5))
    assert got.shape == (graph.num_nodes,)
    assert np.array_equal(got, expected)


def test_a_graph_without_positions_is_refused_by_name(
        sample: tuple[gracr.Program, gracr.Graph, np.ndarray]) -> None:
    import dataclasses

    import gracr.domains.tissue.explainers  # noqa: F401

    program, graph, _ = sample
    bare = dataclasses.replace(graph, pos=None)
    with pytest.raises(GracrError, match="NearestT .*needs 'pos'"):
        scores("NearestT", _subject(program, bare))


@pytest.mark.big
def test_the_names_resolve_through_the_entry_point() -> None:
    """A fresh process that never imports gracr.domains.tissue still finds them by name."""
    code = ("from gracr.explainers import explainer_named\n"
            f"for name in {list(BASELINE_NAMES)!r}:\n"
            "    print(explainer_named(name).name, sorted(explainer_named(name).levels))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"{name} ['node']" for name in BASELINE_NAMES]


def test_all_leaves_the_tissue_explainers_out() -> None:
    import gracr.domains.tissue.explainers  # noqa: F401
    from gracr.bench.options import parse_explainers

    chosen = parse_explainers("all")
    assert "Saliency" in chosen and not {*BASELINE_NAMES, "AttentionRollout"} & set(chosen)
    assert parse_explainers("Marker,NearestT") == ["Marker", "NearestT"]
