"""LRP (ε rule) on compiled models: hand-computed answers, relevance conservation,
the clamp rule, signed relevance, and agreement with the PyG module's forward."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.explainers import EXPLAINERS, edge_scores
from gracr.explainers.lrp import DEFAULT_EPSILON, LrpRelevance, lrp_relevance
from gracr.dsl.ir import Formula, Kind
from strategies import graph_sentences, graphs, node_formulas, program_for
from tiny_models import (
    CARBONYL_GRAPH, CARBONYL_NODE, GRAPH_GRAPH, MOLECULE, NODE_GRAPH, TYPED_PROGRAMS,
    random_molecule, subject_of as _subject,
)

# Node 0 reads red neighbours 1, 2, 3 and a blue one, 4; 1 -> 2 is two hops out.
STAR = gracr.Graph.from_edges(5, [["grey"], ["red"], ["red"], ["red"], ["blue"]],
                              [(1, 0), (2, 0), (3, 0), (4, 0), (1, 2)])


def _relevance(source: str, graph: gracr.Graph, target: int | None,
               epsilon: float = DEFAULT_EPSILON, **options: str) -> LrpRelevance:
    program = gracr.parse(source)
    model = gracr.compile(program, **options)  # type: ignore[arg-type]
    return lrp_relevance(model, graph.features(program.palette), graph.edge_index, target,
                         epsilon)


def _conserved(result: LrpRelevance) -> float:
    """output − (input relevance + everything absorbed): 0 when relevance is conserved."""
    return result.output - (result.inputs.sum() + result.absorbed_bias
                            + result.absorbed_epsilon + result.absorbed_clamp)


def test_hand_computed_one_layer_example() -> None:
    # `atleast 2 red` compiles to one layer: z_0 = Σ_{s -> 0} red_s − 1 (checked below).
    # At node 0, z = 3 − 1 = 2 and the output is σ(2) = 1 = R. The ε rule gives each red
    # message 1 · R / z = 1/2, the blue one 0, the bias −1/2 (absorbed): 3/2 − 1/2 = 1.
    # Edge 1 -> 2 feeds node 2, which holds no relevance: 0.
    program = gracr.parse("colors grey, red, blue\nclassify atleast 2 red")
    model = gracr.compile(program)
    (layer,) = model.layers
    (aggregation,) = layer.aggregations
    red, count = 0, model.output_column
    assert aggregation.relation is None
    assert aggregation.A[red, count] == 1 and layer.b[count] == -1 and layer.C[:, count].sum() == 0
    result = lrp_relevance(model, STAR.features(program.palette), STAR.edge_index, 0, 1e-12)
    np.testing.assert_allclose(result.edge, [0.5, 0.5, 0.5, 0.0, 0.0], atol=1e-9)
    assert result.absorbed_bias == pytest.approx(-0.5)
    # The relevance reaches the red colour of each red neighbour.
    np.testing.assert_allclose(result.inputs[:, 1], [0.0, 0.5, 0.5, 0.5, 0.0], atol=1e-9)
    assert result.output == 1.0 and abs(_conserved(result)) < 1e-12


def test_saturated_units_pass_relevance_unchanged() -> None:
    # `<> red` at node 0: z = 3 red messages, σ(3) = 1. The clamp rule hands R = 1 to z
    # unchanged, so each red message gets 1/3 (not 1/9, nor 1) and nothing is lost.
    result = _relevance("colors grey, red, blue\nclassify <> red", STAR, 0)
    np.testing.assert_allclose(result.edge, [1 / 3, 1 / 3, 1 / 3, 0.0, 0.0], atol=1e-8)
    assert result.absorbed_clamp == 0.0 and abs(_conserved(result)) < 1e-12


def test_relevance_keeps_its_sign() -> None:
    # `more(red, blue)` with the direct comparison (Eq. 8): z_0 = #red − #blue = 3 − 1.
    # Red messages are evidence for (+1/2 each), the blue one against (−1/2).
    result = _relevance("colors grey, red, blue\nclassify more(red, blue)", STAR, 0,
                        comparison="direct")
    np.testing.assert_allclose(result.edge, [0.5, 0.5, 0.5, -0.5, 0.0], atol=1e-8)
    assert result.edge.sum() == pytest.approx(1.0)


def test_the_one_relevant_edge_gets_all_the_relevance() -> None:
    # Node task: z_0 = red_1 = 1, so 1 -> 0 carries R = 1. Graph task: the readout picks
    # node 0's `black & <> red` (z = black + <>red − 1 = 1): black and `<> red` get 1
    # each, the bias −1; `<> red` at node 0 is the red message 1 -> 0: 1. Nothing else
    # holds relevance.
    node = edge_scores("LRP", _subject("colors grey, red, blue\nclassify <> red",
                                       NODE_GRAPH, 0)).numpy()
    np.testing.assert_allclose(node, [1.0, 0.0, 0.0], atol=1e-8)
    graph = edge_scores("LRP", _subject("colors black, red, grey\n"
                                        "classify exists (black & <> red)",
                                        GRAPH_GRAPH, None)).numpy()
    np.testing.assert_allclose(graph, [1.0, 0.0, 0.0, 0.0, 0.0], atol=1e-8)


def test_lrp_is_registered_with_captums_epsilon() -> None:
    spec = EXPLAINERS["LRP"]
    assert dict(spec.defaults) == {"epsilon": 1e-9} and not spec.space


def _check_conservation(formula: Formula | str, graph: gracr.Graph, epsilon: float) -> None:
    program = gracr.parse(formula) if isinstance(formula, str) else program_for(formula)
    model = gracr.compile(program, max_degree=8)
    target = 0 if model.kind is Kind.NODE else None
    x = model.features(graph)
    edge_type = model.edge_types(graph)
    result = lrp_relevance(model, x, graph.edge_index, target, epsilon, edge_type)
    # The forward inside LRP is the module's.
    typed = {} if edge_type is None else {"edge_type": torch.as_tensor(edge_type)}
    with torch.no_grad():
        module_output = model.to_pyg()(torch.as_tensor(x), torch.as_tensor(graph.edge_index),
                                       **typed)
    assert result.output == pytest.approx(float(module_output[target or 0, 0]), abs=1e-6)
    # Exact bookkeeping for any ε; as ε → 0 the stabiliser keeps nothing, so the input
    # relevance plus the absorbed biases is the output.
    assert abs(_conserved(result)) < 1e-9
    if epsilon <= 1e-9:
        assert abs(result.absorbed_epsilon) < 1e-6
        assert result.inputs.sum() + result.absorbed_bias == pytest.approx(result.output,
                                                                          abs=1e-6)
    # Units with z ≤ 0 output 0, so no relevance ever reaches them.
    assert result.absorbed_clamp == 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_formulas, graphs(), st.sampled_from([1e-12, 1e-9, 0.1]))
def test_relevance_is_conserved_for_node_classifiers(formula: Formula, graph: gracr.Graph,
                                                     epsilon: float) -> None:
    _check_conservation(formula, graph, epsilon)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_sentences, graphs(), st.sampled_from([1e-12, 1e-9, 0.1]))
def test_relevance_is_conserved_for_graph_classifiers(formula: Formula, graph: gracr.Graph,
                                                      epsilon: float) -> None:
    _check_conservation(formula, graph, epsilon)


# ---------------------------------------------------------------- typed edges


def test_only_the_double_bond_holds_relevance_on_a_typed_model() -> None:
    # `element=C & <1>{double} element=O` at C node 0 of MOLECULE. Layer 1's `double`
    # channel counts O1 -> C0 alone (O2 -> C0 is single, C3 -> C0 from a C): z = 1.
    # Layer 2: z = C + <1>{double}O − 1 = 1, so each input gets R = 1 and the bias −1;
    # the modality's 1 is O1 -> C0's message. Node task and the graph task `exists (…)`
    # (C0 and C3 both hold it: the readout's count 2 shares R between them), edge by edge.
    node = edge_scores("LRP", _subject(CARBONYL_NODE, MOLECULE, 0)).numpy()
    np.testing.assert_allclose(node, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0], atol=1e-8)
    graph = edge_scores("LRP", _subject(CARBONYL_GRAPH, MOLECULE, None)).numpy()
    np.testing.assert_allclose(graph, [0.5, 0.0, 0.0, 0.5, 0.0, 0.0], atol=1e-8)
    # Read without its relations, the model could not run.
    program = gracr.parse(CARBONYL_NODE)
    model = gracr.compile(program)
    with pytest.raises(ValueError, match="edge_type"):
        lrp_relevance(model, model.features(MOLECULE), MOLECULE.edge_index, 0)


@pytest.mark.parametrize("seed", range(15))
def test_relevance_is_conserved_on_typed_models(seed: int) -> None:
    # Channels of one relation, of a set of relations and of every edge: each message
    # hands relevance down through the channels that admit it, and nothing is lost.
    _check_conservation(TYPED_PROGRAMS[seed % len(TYPED_PROGRAMS)], random_molecule(seed),
                        [1e-12, 1e-9, 0.1][seed % 3])
