"""GraphMask-clean (ours): it mirrors the compiled layers, never alters the shared
module, and finds the relevant edge of a tiny model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import gracr
from gracr.bench.explainers import EXPLAINERS, Subject, edge_scores
from gracr.bench.explainers import graphmask_clean
from gracr.bench.explainers.graphmask_clean import LayerGating, MirroredModel
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from strategies import graph_sentences, graphs, node_formulas, program_for
from tiny_models import subject_of as _subject, graph_subject, node_subject

DEFAULTS = dict(EXPLAINERS["GraphMask-clean"].defaults)


# Tiny tensors: extra threads only contend with whatever else the machine runs.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


# `<> red` at node 0: 1 -> 0 (red) is the one relevant edge, 2 -> 0 (blue) is read
# but irrelevant, 3 -> 2 lies outside the receptive field.


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.one_of(node_formulas, graph_sentences), graphs(max_nodes=6, max_edges=12),
       st.integers(min_value=0, max_value=2**16))
def test_the_mirrored_forward_is_the_compiled_module(formula: Any, graph: gracr.Graph,
                                                     gate_seed: int) -> None:
    """Open gates: the module's output. Gates g with a zero baseline: the module with
    `layer_edge_weights = g` (each message scaled in its layer only)."""
    program = program_for(formula)
    model = gracr.compile(program, comparison="direct")
    target = None if model.kind is Kind.GRAPH else 0
    subject = Subject(model, torch.as_tensor(graph.features(program.palette)),
                      torch.as_tensor(graph.edge_index), target,
                      gracr.receptive_field(program, graph, target))
    mirrored = MirroredModel(subject)
    module = subject.module()
    generator = torch.Generator().manual_seed(gate_seed)
    gates = [torch.rand(subject.num_edges, generator=generator) for _ in mirrored.layers]
    gating = [LayerGating(g, torch.zeros(len(layer.columns)))
              for g, layer in zip(gates, mirrored.layers)]
    with torch.no_grad():
        index = 0 if target is None else target
        plain = module(subject.x, subject.edge_index)[index, 0]
        weighted = module(subject.x, subject.edge_index, layer_edge_weights=gates)[index, 0]
        open_gates = mirrored.forward(subject.x, subject.edge_index, target,
                                      [None] * len(mirrored.layers))
        gated = mirrored.forward(subject.x, subject.edge_index, target, gating)
    assert abs(float(open_gates) - float(plain)) < 1e-5
    assert abs(float(gated) - float(weighted)) < 1e-5


def test_a_closed_gate_sends_the_baseline_instead() -> None:
    # One layer: <> red at node 0 sums the red column of its two in-neighbours. All
    # gates closed, baseline β on that column: the sum is 2β (clamped to [0, 1]).
    subject = node_subject()
    mirrored = MirroredModel(subject)
    (layer,) = mirrored.layers
    closed = torch.zeros(subject.num_edges)
    for baseline, expected in [(0.0, 0.0), (0.2, 0.4), (0.5, 1.0), (0.8, 1.0)]:
        gating = [LayerGating(closed, torch.full((len(layer.columns),), baseline))]
        output = mirrored.forward(subject.x, subject.edge_index, 0, gating)
        assert float(output) == pytest.approx(expected)


def test_the_shared_module_is_left_as_it_was() -> None:
    for subject in (node_subject(), graph_subject()):
        module = subject.module()
        before_state = {k: v.clone() for k, v in module.state_dict().items()}
        before_grad = {k: p.requires_grad for k, p in module.named_parameters()}
        before = module(subject.x, subject.edge_index).clone()
        edge_scores("GraphMask-clean", subject, {"epochs": 10}, seed=0)
        assert subject.module() is module
        assert torch.equal(module(subject.x, subject.edge_index), before)
        after_state = module.state_dict()
        assert before_state.keys() == after_state.keys()
        assert all(torch.equal(before_state[k].to_dense(), after_state[k].to_dense())
                   for k in before_state)
        assert {k: p.requires_grad for k, p in module.named_parameters()} == before_grad
        for conv in module.convs:
            assert not getattr(conv, "_explain", False)
            assert getattr(conv, "_edge_mask", None) is None
            assert not conv._forward_hooks and not conv._forward_pre_hooks
        assert module.training is False


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_one_relevant_edge_scores_highest(seed: int) -> None:
    # Closing 1 -> 0 loses the red neighbour unless its message is made up for; the
    # penalty closes 2 -> 0, which changes nothing. 3 -> 2 is outside the field.
    scores = edge_scores("GraphMask-clean", node_subject(), seed=seed).numpy()
    assert scores[0] > scores[1], scores
    assert scores[0] > 0.5 and scores[2] == 0.0


def test_with_a_zero_baseline_too() -> None:
    scores = edge_scores("GraphMask-clean", node_subject(), {"baseline": "zero"}, seed=0).numpy()
    assert scores[0] > 0.9 and scores[0] > scores[1], scores


@pytest.mark.parametrize("make", [node_subject, graph_subject])
def test_scores_are_probabilities_and_zero_outside_the_receptive_field(make: Any) -> None:
    subject = make()
    for options in ({"epochs": 5}, {"epochs": 25, "lr": 1e-3, "allowance": 0.3}):
        scores = edge_scores("GraphMask-clean", subject, options, seed=0).numpy()
        assert scores.shape == (subject.num_edges,)
        assert np.all((scores >= 0.0) & (scores <= 1.0))
        assert np.all(scores[~subject.receptive_field] == 0.0)


def test_zero_outside_the_receptive_field_on_a_longer_path() -> None:
    # A path 4 -> 3 -> 2 -> 1 -> 0 and `<> <> red` at 0: only 2 -> 1 and 1 -> 0 are in
    # the receptive field (depth 2); 4 -> 3 and 3 -> 2 must score 0.
    graph = gracr.Graph.from_edges(5, [["grey"], ["grey"], ["red"], ["red"], ["red"]],
                                   [(4, 3), (3, 2), (2, 1), (1, 0)])
    subject = _subject("colors grey, red\nclassify <> <> red", graph, 0)
    assert subject.receptive_field.tolist() == [False, False, True, True]
    scores = edge_scores("GraphMask-clean", subject, {"epochs": 25}, seed=0).numpy()
    assert scores[:2].tolist() == [0.0, 0.0]
    assert np.all(scores[2:] > 0.0)


def test_it_refuses_to_run_when_its_forward_stops_mirroring(monkeypatch: Any) -> None:
    monkeypatch.setattr(graphmask_clean, "MIRROR_TOLERANCE", -1.0)
    with pytest.raises(GracrError, match="no longer mirrors CompiledLayer"):
        edge_scores("GraphMask-clean", node_subject(), {"epochs": 1}, seed=0)


def test_unknown_baseline_is_an_error() -> None:
    with pytest.raises(GracrError, match="no baseline 'mean'"):
        edge_scores("GraphMask-clean", node_subject(), {"baseline": "mean"}, seed=0)
