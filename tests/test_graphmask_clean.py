"""GraphMask-clean (ours): it gates the messages of the shared module through the
executor's hooks, never alters that module, and finds the relevant edge of tiny
models, typed ones too."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import numpy.typing as npt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import gracr
from gracr.explainers import EXPLAINERS, Subject, edge_scores
from gracr.explainers import graphmask_clean
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor.plan import layer_plans
from gracr.executor.torch_backend import CompiledLayer, CompiledModule, TargetConeModule
from strategies import graph_sentences, graphs, node_formulas, program_for
from tiny_models import subject_of as _subject, graph_subject, node_subject

DEFAULTS = dict(EXPLAINERS["GraphMask-clean"].defaults)
Array = npt.NDArray[np.float64]

# Typed: an element attribute and two bond relations. At C node 0, `element=C &
# <1>{double} element=O` holds through the one double bond from an O, edge 0 = O1 -> C0;
# O2 -> C0 is a single bond, C3 -> C0 a double bond from a C, O4 -> C3 two hops out,
# and C0 sends a double bond back to O2.
TYPED = "attribute element = C, O\nrelations single, double\n"
CARBONYL = TYPED + "classify element=C & <1>{double} element=O"
MOLECULE = gracr.Graph.from_edges(
    5, None, [(1, 0), (2, 0), (3, 0), (4, 3), (0, 2)],
    attributes={"element": ["C", "O", "O", "C", "O"]},
    relations=["double", "single", "double", "single", "double"])
# Every kind of aggregation at once: unfiltered, one relation, a set of relations.
TYPED_PROGRAMS = (
    CARBONYL,
    TYPED + "classify exists (element=C & <1>{double} element=O)",
    TYPED + "classify <>{single} (element=C & <1>{double} element=O) | atleast 2 (<> element=O)",
    TYPED + "classify <>{single, double} (<>{double} element=O) & !(<>{single} element=C)",
)


# Tiny tensors: extra threads only contend with whatever else the machine runs.
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _typed_subject(source: str, graph: gracr.Graph, target: int | None) -> Subject:
    program = gracr.parse(source)
    return Subject.of(gracr.compile(program), program, graph, target)


def _random_molecule(seed: int, num_nodes: int = 7, num_edges: int = 16) -> gracr.Graph:
    rng = np.random.default_rng(seed)
    edges = [(int(s), int(t)) for s, t in rng.integers(0, num_nodes, size=(num_edges, 2))]
    return gracr.Graph.from_edges(
        num_nodes, None, edges,
        attributes={"element": [["C", "O"][int(e)] for e in rng.integers(0, 2, num_nodes)]},
        relations=[["single", "double"][int(r)] for r in rng.integers(0, 2, num_edges)])


# ---------------------------------------------------------------- the executor's hooks


def _reference(subject: Subject, weights: Sequence[Array], baselines: Sequence[Array]) -> float:
    """Eq. 2 with typed edges, each message m_e of layer ℓ replaced by
    w_e m_e + (1 − w_e) β_ℓ on the columns of the aggregations that admit e, in
    float64 straight from the layer plans: the oracle of the hooks."""
    model = subject.compiled
    sources, targets = subject.edge_index.numpy()
    types = None if subject.edge_type is None else subject.edge_type.numpy()
    h = subject.x.numpy().astype(np.float64) @ model.input_matrix + model.input_bias
    for plan, w, beta in zip(layer_plans(model), weights, baselines, strict=True):
        z = h @ plan.C + plan.b
        for channel in plan.channels:
            keep = channel.admits(types, len(sources))
            on_columns = np.isin(np.arange(z.shape[1]), channel.columns) * beta
            np.add.at(z, targets[keep], w[keep, None] * (h @ channel.A)[sources[keep]]
                      + (1.0 - w[keep, None]) * on_columns)
        h = np.clip(z, 0.0, 1.0)
    if model.kind is Kind.NODE:
        assert subject.target is not None
        return float(h[subject.target, model.output_column])
    r = h.sum(axis=0)
    for dense in model.readout:
        r = np.clip(r @ dense.W + dense.b, 0.0, 1.0)
    return float(r[model.output_column])


def _check_hooks(subject: Subject, seed: int) -> None:
    """`layer_edge_weights` + `layer_baselines` on the narrow and the wide module are
    the oracle; all-open gates are the plain module whatever the baseline; a zero
    baseline is plain per-layer edge weights; `messages` is Σ_c 1{e ∈ E_c} h_s A_c."""
    generator = torch.Generator().manual_seed(seed)
    width = subject.compiled.width
    plans = layer_plans(subject.compiled)
    weights = [torch.rand(subject.num_edges, generator=generator) for _ in plans]
    baselines = [torch.rand(width, generator=generator) - 0.5 for _ in plans]
    expected = _reference(subject, [w.numpy().astype(np.float64) for w in weights],
                          [b.numpy().astype(np.float64) for b in baselines])
    index = 0 if subject.target is None else subject.target
    kwargs = subject.model_kwargs
    ones = [torch.ones(subject.num_edges) for _ in plans]
    zeros = [torch.zeros(width) for _ in plans]
    with torch.no_grad():
        for narrow in (True, False):
            module = subject.fresh_module(narrow=narrow)
            plain = module(subject.x, subject.edge_index, **kwargs)
            gated = module(subject.x, subject.edge_index, layer_edge_weights=weights,
                           layer_baselines=baselines, **kwargs)
            assert float(gated[index, 0]) == pytest.approx(expected, abs=1e-5)
            assert torch.equal(module(subject.x, subject.edge_index, layer_edge_weights=ones,
                                      layer_baselines=baselines, **kwargs), plain)
            assert torch.equal(module(subject.x, subject.edge_index, layer_edge_weights=weights,
                                      layer_baselines=zeros, **kwargs),
                               module(subject.x, subject.edge_index, layer_edge_weights=weights,
                                      **kwargs))
            states = module.hidden_states(subject.x, subject.edge_index, **kwargs)
            if subject.target is not None:
                assert torch.equal(states[-1][:, module.output_column:][:, :1], plain)
            sources = subject.edge_index[0].numpy()
            types = None if subject.edge_type is None else subject.edge_type.numpy()
            for conv, plan, h in zip(module.convs, plans, states):
                assert isinstance(conv, CompiledLayer)
                messages = conv.messages(h, subject.edge_index, subject.edge_type).numpy()
                wanted = np.zeros((subject.num_edges, width))
                for channel in plan.channels:
                    keep = channel.admits(types, subject.num_edges)
                    wanted[keep] += (h.numpy() @ channel.A)[sources[keep]]
                np.testing.assert_allclose(messages, wanted, atol=1e-6)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.one_of(node_formulas, graph_sentences), graphs(max_nodes=6, max_edges=12),
       st.integers(min_value=0, max_value=2**16))
def test_the_gating_hooks_are_eq_2_with_a_baseline_message(formula: Any, graph: gracr.Graph,
                                                            seed: int) -> None:
    # The explainer runs the executor's own layers (there is no copy of them to keep
    # in step), so what must hold is that the hooks it uses mean what they say.
    program = program_for(formula)
    model = gracr.compile(program, comparison="direct")
    target = None if model.kind is Kind.GRAPH else 0
    _check_hooks(Subject.of(model, program, graph, target), seed)


@pytest.mark.parametrize("source", TYPED_PROGRAMS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_gating_hooks_on_typed_edges(source: str, seed: int) -> None:
    # The baseline of a closed gate lands only on the columns of the aggregations
    # that sum over the edge's relation.
    program = gracr.parse(source)
    model = gracr.compile(program)
    target = None if model.kind is Kind.GRAPH else 0
    _check_hooks(Subject.of(model, program, _random_molecule(seed), target), seed)


def test_a_closed_gate_sends_the_baseline_instead() -> None:
    # One layer: <> red at node 0 sums the red column of its two in-neighbours. All
    # gates closed, baseline β on that column: the sum is 2β (clamped to [0, 1]).
    subject = node_subject()
    module = subject.module()
    (plan,) = layer_plans(subject.compiled)
    columns = graphmask_clean.written_columns(plan)
    problem = graphmask_clean._problem(subject)     # the 1-hop subgraph: 1 -> 0, 2 -> 0
    assert len(columns) == 1 and problem.edges.tolist() == [0, 1]
    closed = torch.zeros(2)
    for baseline, expected in [(0.0, 0.0), (0.2, 0.4), (0.5, 1.0), (0.8, 1.0)]:
        beta = torch.zeros(subject.compiled.width)
        beta[torch.as_tensor(columns)] = baseline
        gating = [graphmask_clean.LayerGating(closed, beta)]
        output = graphmask_clean.gated_output(module, problem, gating)
        assert float(output) == pytest.approx(expected)


@pytest.mark.parametrize("gated_module", [CompiledModule, TargetConeModule])
def test_training_runs_through_the_executors_hooks(monkeypatch: Any,
                                                   gated_module: type) -> None:
    # Every training step is one call of the executor's module with gates and baselines:
    # epochs x (1 + 2) steps for the two message-passing layers of `<> <> red`. A graph
    # task's gated passes run the shared module, a node task's its target cone.
    calls: list[tuple[int, int]] = []
    original = gated_module.hidden_states if gated_module is CompiledModule else gated_module.forward

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        weights = kwargs.get("layer_edge_weights") or []
        baselines = kwargs.get("layer_baselines") or []
        calls.append((sum(w is not None for w in weights), sum(b is not None for b in baselines)))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(gated_module, "hidden_states" if gated_module is CompiledModule
                        else "forward", spy)
    graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["red"], ["red"]],
                                   [(2, 1), (1, 0), (3, 0)])
    if gated_module is CompiledModule:
        subject = _subject("colors grey, red\nclassify exists <> <> red", graph, None)
    else:
        subject = _subject("colors grey, red\nclassify <> <> red", graph, 0)
    edge_scores("GraphMask-clean", subject, {"epochs": 4}, seed=0)
    gated = [call for call in calls if call != (0, 0)]
    assert gated == [(1, 1)] * 4 + [(2, 2)] * 4


# ---------------------------------------------------------------- the explainer


def test_the_shared_module_is_left_as_it_was() -> None:
    for subject in (node_subject(), graph_subject(), _typed_subject(CARBONYL, MOLECULE, 0)):
        module = subject.module()
        before_state = {k: v.clone() for k, v in module.state_dict().items()}
        before_grad = {k: p.requires_grad for k, p in module.named_parameters()}
        before = module(subject.x, subject.edge_index, **subject.model_kwargs).clone()
        edge_scores("GraphMask-clean", subject, {"epochs": 10}, seed=0)
        assert subject.module() is module
        assert torch.equal(module(subject.x, subject.edge_index, **subject.model_kwargs), before)
        after_state = module.state_dict()
        assert before_state.keys() == after_state.keys()
        assert all(torch.equal(before_state[k].to_dense(), after_state[k].to_dense())
                   for k in before_state)
        assert {k: p.requires_grad for k, p in module.named_parameters()} == before_grad
        assert all(p.grad is None for p in module.parameters())
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


@pytest.mark.parametrize("baseline", ["learned", "zero"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_typed_the_double_bond_from_an_oxygen_scores_highest(baseline: str, seed: int) -> None:
    # `element=C & <1>{double} element=O` at C0: closing O1 -> C0 (double) loses the
    # only double-bonded O; C3 -> C0 is double but from a C, so the penalty closes it.
    # The single bonds are never summed, so the layer gives them no gate at all:
    # they score exactly 0 per layer, before the receptive field is applied.
    subject = _typed_subject(CARBONYL, MOLECULE, 0)
    assert subject.receptive_field.tolist() == [True, False, True, False, False]
    per_layer = graphmask_clean.graphmask_gates(subject, {**DEFAULTS, "baseline": baseline},
                                                seed).numpy()
    assert subject.edge_type is not None
    single = subject.edge_type.numpy() == 0      # relations single, double
    assert np.all(per_layer[:, single] == 0.0)
    scores = edge_scores("GraphMask-clean", subject, {"baseline": baseline}, seed=seed).numpy()
    assert scores[0] > 0.9 and scores[0] > scores[2], scores
    assert scores[1] == scores[3] == scores[4] == 0.0


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


def test_unknown_baseline_is_an_error() -> None:
    with pytest.raises(GracrError, match="no baseline 'mean'"):
        edge_scores("GraphMask-clean", node_subject(), {"baseline": "mean"}, seed=0)
