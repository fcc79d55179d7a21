"""The PyG module: derivative modes (Eq. 9), explainer-readiness, batching."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn
from torch_geometric.explain import Explainer
from torch_geometric.explain.algorithm import CaptumExplainer
from torch_geometric.explain.algorithm.utils import clear_masks, set_masks
from torch_geometric.nn import MessagePassing

import gracr
from gracr.dsl.ir import Formula
from gracr.executor.torch_backend import TargetConeModule, TruncatedReLU
from strategies import graphs, node_formulas, program_for


def _grad(activation: nn.Module, values: list[float]) -> list[float]:
    z = torch.tensor(values, requires_grad=True)
    activation(z).sum().backward()
    assert z.grad is not None
    return z.grad.tolist()


def test_surrogate_derivative_is_eq_9() -> None:
    z = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0]
    assert _grad(TruncatedReLU(surrogate=True), z) == [0, 0, 0, 1, 1, 1, 1]


def test_exact_derivative_is_zero_on_the_saturated_flats() -> None:
    grads = _grad(TruncatedReLU(surrogate=False), [-2.0, -1.0, 0.5, 2.0, 3.0])
    assert grads == [0, 0, 1, 0, 0]


def test_both_modes_share_the_forward() -> None:
    z = torch.linspace(-2, 3, 21)
    assert torch.equal(TruncatedReLU(True)(z), TruncatedReLU(False)(z))
    assert torch.equal(TruncatedReLU(True)(z), z.clamp(0, 1))


def test_module_layout_is_explainer_ready() -> None:
    module = gracr.compile(gracr.parse(Path("gracr/formulas/CompetingRedundancy.gml"))).to_pyg()
    convs = [m for m in module.modules() if isinstance(m, MessagePassing)]
    activations = [m for m in module.modules() if isinstance(m, TruncatedReLU)]
    assert len(convs) == 8
    assert all(isinstance(a, nn.ReLU) for a in activations)
    assert len(activations) == len(set(map(id, activations)))  # one instance per layer
    assert module.model_config == {"mode": "binary_classification", "task_level": "graph",
                                   "return_type": "raw"}


def test_no_self_loops_are_added() -> None:
    module = gracr.compile(gracr.parse("colors red\nclassify <1> red")).to_pyg()
    x = torch.tensor([[1.0], [1.0]])
    no_edges = torch.zeros((2, 0), dtype=torch.long)
    assert module(x, no_edges).tolist() == [[0.0], [0.0]]
    self_loop = torch.tensor([[0], [0]])
    assert module(x, self_loop).tolist() == [[1.0], [0.0]]


def test_batched_graph_classifier_returns_one_row_per_graph() -> None:
    model = gracr.compile(gracr.parse(Path("gracr/formulas/Redundancy.gml")))
    positive = gracr.Graph.from_edges(3, [["black"], ["red"], ["grey"]], [(1, 0), (2, 0)])
    negative = gracr.Graph.from_edges(2, [["black"], ["grey"]], [(1, 0), (0, 1)])
    x = torch.cat([torch.as_tensor(g.features(model.palette)) for g in (positive, negative)])
    edge_index = torch.cat([torch.as_tensor(positive.edge_index),
                            torch.as_tensor(negative.edge_index) + 3], dim=1)
    batch = torch.tensor([0, 0, 0, 1, 1])
    out = model.to_pyg()(x, edge_index, batch)
    assert out.shape == (2, 1) and out[:, 0].tolist() == [1.0, 0.0]
    assert model.predict(positive) is True and model.predict(negative) is False


def test_pyg_edge_masks_reach_every_message() -> None:
    # Redundancy on a black node with one red and one grey in-neighbour: Saliency with
    # the surrogate gradient must score the red edge and nothing else.
    model = gracr.compile(gracr.parse(Path("gracr/formulas/Redundancy.gml")))
    graph = gracr.Graph.from_edges(3, [["black"], ["red"], ["grey"]], [(1, 0), (2, 0), (0, 1)])
    module = model.to_pyg(surrogate=True)
    # PyG's CaptumExplainer accepts binary models only as 'probs'; our output is 0/1,
    # a probability already.
    config = dict(module.model_config, return_type="probs")
    explainer = Explainer(module, algorithm=CaptumExplainer("Saliency"),
                          explanation_type="model", edge_mask_type="object",
                          node_mask_type=None, model_config=config)
    explanation = explainer(torch.as_tensor(graph.features(model.palette)),
                            torch.as_tensor(graph.edge_index))
    scores = explanation.edge_mask.detach().numpy()
    assert scores[0] > 0
    np.testing.assert_array_equal(scores[1:], [0.0, 0.0])


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(node_formulas, graphs(), st.sampled_from(["demorgan", "flat"]), st.booleans(),
       st.data())
def test_target_cone_module_matches_the_whole_module_at_its_target(
        formula: Formula, graph: gracr.Graph, disjunction: str, surrogate: bool,
        data: st.DataObject) -> None:
    """Same output at the target and the same gradient for `x` and for a fractional
    edge mask (PyG's, one entry per edge), in both derivative modes."""
    model = gracr.compile(program_for(formula), disjunction=disjunction,  # type: ignore[arg-type]
                          max_degree=int(graph.in_degrees().max(initial=0)))
    target = data.draw(st.integers(0, graph.num_nodes - 1), label="target")
    logits = torch.tensor(data.draw(st.lists(st.floats(-3, 3), min_size=graph.num_edges,
                                             max_size=graph.num_edges), label="mask"))
    edge_index = torch.as_tensor(graph.edge_index)
    results = []
    for module in (model.to_pyg(surrogate=surrogate),
                   TargetConeModule(model, graph.edge_index, graph.num_nodes, target,
                                    surrogate=surrogate)):
        x = torch.as_tensor(graph.features(model.palette)).requires_grad_()
        mask = nn.Parameter(logits.clone())
        set_masks(module, mask, edge_index, apply_sigmoid=True)
        out = module(x, edge_index)[target, 0]
        out.backward()
        clear_masks(module)
        # A formula without modalities passes no message: no gradient reaches the mask.
        mask_grad = mask.grad if mask.grad is not None else torch.zeros_like(logits)
        assert x.grad is not None
        results.append((float(out.detach()), x.grad, mask_grad))
    (whole, x_grad, mask_grad), (cone, cone_x_grad, cone_mask_grad) = results
    assert cone == whole
    torch.testing.assert_close(cone_x_grad, x_grad, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(cone_mask_grad, mask_grad, rtol=1e-6, atol=1e-7)


def test_target_cone_module_is_nan_off_target_and_refuses_another_graph() -> None:
    program = gracr.parse("colors red, blue\nclassify <1> red")
    graph = gracr.Graph.from_edges(3, [{"red"}, {"blue"}, {"red"}], [(0, 1), (1, 2)])
    model = gracr.compile(program)
    module = TargetConeModule(model, graph.edge_index, graph.num_nodes, target=1)
    x = torch.as_tensor(graph.features(model.palette))
    out = module(x, torch.as_tensor(graph.edge_index))[:, 0]
    assert out[1] == 1.0 and torch.isnan(out[0]) and torch.isnan(out[2])
    with pytest.raises(ValueError, match="graph it was built for"):
        module(x, torch.as_tensor(graph.edge_index[:, :1]))
