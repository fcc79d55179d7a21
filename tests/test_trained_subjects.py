"""Explainers on trained models (`Subject.of_trained`): the gradient explainers read the
trained model's logit (checked against torch's own gradient), GraphSVX evaluates its
coalitions through the trained module with the kept edges' attributes, attention rollout
explains a GATv2 and refuses anything else, and an explainer that reads a compiled
network's layers refuses a trained model by name."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import gracr
from gracr.bench.budget import explain
from gracr.explainers.base import Subject, scores
from gracr.domains.tissue import TissueSettings, generate_dataset, graph_json, tissue_program
from gracr.domains.tissue.trained import ModelSettings, build_model, explained

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def graph() -> gracr.Graph:
    tables, theta = generate_dataset(np.random.default_rng(2), TissueSettings.for_cells(80), 2)
    program = gracr.parse(tissue_program(theta))
    return gracr.Graph.from_json(graph_json(tables[0], theta, 1.5), schema=program.schema)


def _subject(graph: gracr.Graph, architecture: str = "gin") -> Subject:
    model = build_model(ModelSettings(architecture=architecture, hidden=8), seed=4)
    return Subject.of_trained(explained(model, architecture.upper()), graph, level="node")


def test_the_subject_reads_the_logit_of_the_graph(graph: gracr.Graph) -> None:
    subject = _subject(graph)
    module = subject.model.module  # type: ignore[union-attr]
    edge_attr = torch.as_tensor(graph.edge_attr, dtype=torch.float32)
    with torch.no_grad():
        logit = float(module(subject.x, subject.edge_index, edge_attr=edge_attr)[0, 0])
    assert subject.output() == pytest.approx(logit)
    assert subject.prediction == pytest.approx(1 / (1 + np.exp(-logit)))
    assert subject.model_config()["return_type"] == "raw"
    assert subject.receptive_field.all() and subject.node_receptive_field is not None
    assert subject.node_receptive_field.all()


def test_saliency_is_the_gradient_of_the_logit(graph: gracr.Graph) -> None:
    subject = _subject(graph)
    x = subject.x.clone().requires_grad_(True)
    module = subject.model.module  # type: ignore[union-attr]
    logit = module(x, subject.edge_index, edge_attr=subject.edge_attr)[0, 0]
    (gradient,) = torch.autograd.grad(logit, x)
    expected = gradient.abs().sum(dim=1).double()   # Saliency's |·|, a node's Σ over features
    got = scores("Saliency", subject)
    assert torch.allclose(got, expected, atol=1e-6)
    assert float(expected.abs().max()) > 0  # the check compares something


@pytest.mark.parametrize("explainer, settings", [
    ("IG", {"n_steps": 8}), ("InputXGradient", {}), ("GNNExplainer", {"epochs": 5}),
    ("GraphSVX", {"num_samples": 60})])
def test_explainers_score_every_node_of_a_trained_model(graph: gracr.Graph, explainer: str,
                                                        settings: dict[str, int]) -> None:
    values = scores(explainer, _subject(graph), settings, seed=1).numpy()
    assert values.shape == (graph.num_nodes,) and np.isfinite(values).all()
    assert np.ptp(values) > 0


def test_graphsvx_evaluates_the_trained_module_on_kept_edges(graph: gracr.Graph) -> None:
    """With every coalition of a 1-node-played game fixed, GraphSVX's value of the full
    coalition is the model's probability on the whole graph."""
    from gracr.explainers.graphsvx import coalition_game

    subject = _subject(graph)
    game = coalition_game(subject, "receptive_field")
    full = np.ones((1, game.num_players), dtype=np.bool_)
    none = np.zeros((1, game.num_players), dtype=np.bool_)
    probability = subject.prediction
    positive = probability >= 0.5
    expected_full = probability if positive else 1 - probability
    assert game.values(full)[0] == pytest.approx(expected_full, abs=1e-6)
    # No player present: no edge at all; the value is the model's on the edgeless graph.
    module = subject.model.module  # type: ignore[union-attr]
    empty = torch.zeros((2, 0), dtype=torch.long)
    logit = float(module(subject.x, empty, edge_attr=torch.zeros((0, 1)))[0, 0])
    p_empty = 1 / (1 + np.exp(-logit))
    assert game.values(none)[0] == pytest.approx(p_empty if positive else 1 - p_empty,
                                                 abs=1e-6)


def test_attention_rollout_explains_a_gatv2_only(graph: gracr.Graph) -> None:
    import gracr.domains.tissue.explainers  # noqa: F401

    values = scores("AttentionRollout", _subject(graph, "gatv2")).numpy()
    assert values.shape == (graph.num_nodes,)
    assert values.sum() == pytest.approx(graph.num_nodes)  # rollout rows are stochastic
    outcome = explain("AttentionRollout", _subject(graph, "gin"), None, None, 0, None,
                      scored=False)
    assert outcome.status == "error" and "GATv2" in (outcome.error or "")


def test_a_compiled_network_explainer_refuses_a_trained_model(graph: gracr.Graph) -> None:
    outcome = explain("LRP", _subject(graph), None, None, 0, None, scored=False)
    assert outcome.status == "error"
    assert "GIN is a trained model" in (outcome.error or "")


def test_an_unscored_outcome_keeps_the_scores(graph: gracr.Graph) -> None:
    outcome = explain("Saliency", _subject(graph), None, None, 0, None, scored=False)
    assert outcome.status == "ok" and outcome.scores is not None
    assert outcome.scores.shape == (graph.num_nodes,)
    assert outcome.f1 is None and outcome.average_precision is None and outcome.uniform is None


def test_graphsvx_passes_a_typed_compiled_model_its_relations(graph: gracr.Graph) -> None:
    """The compiled tissue rule reads `near` edges only: GraphSVX's coalitions carry each
    kept edge's relation (it failed without, on every typed compiled model)."""
    from gracr.explainers.graphsvx import coalition_game
    from gracr.executor.model import compile_program
    from gracr.domains.tissue import tissue_program

    program = gracr.parse(tissue_program(0.4))
    subject = Subject.of(compile_program(program, presence=True), program, graph, None,
                         level="node")
    game = coalition_game(subject, "receptive_field")
    full = np.ones((1, game.num_players), dtype=np.bool_)
    label = bool(gracr.evaluate(program, graph))
    assert game.values(full)[0] == pytest.approx(1.0)  # the predicted class, on the whole graph
    assert subject.prediction == float(label)
    values = scores("GraphSVX", subject, {"num_samples": 40}, seed=0).numpy()
    assert values.shape == (graph.num_nodes,) and np.isfinite(values).all()
