"""The weight-randomisation control (`gracr.explainers.randomisation`): which parameters a
randomised layer replaces and by what, that nothing else changes, the cascading and
independent variants, that the controls run and say what they are, the torch path,
and the rank correlation that compares attributions."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import torch
from torch import Tensor, nn
from torch_geometric.nn import GCNConv

import gracr
from gracr.explainers.base import Subject, scores
from gracr.explainers.randomisation import (
    is_randomised,
    module_layers,
    network_layers,
    randomisation_correlation,
    randomisation_variants,
    randomised_module,
    randomised_network,
    randomised_subject,
)
from gracr.cli import main
from gracr.cli.model_text import inspect_model
from gracr.compiler.network import Network
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN, load
from gracr.executor.torch_backend import CompiledModule, FusedCompiledModule

# A node classifier of two layers: h0 red, h1 blue, layer 1 `<1> blue`, layer 2 the AND.
NODE = "colors red, blue\nclassify red & <1> blue"
# A graph classifier of three layers and a readout; layer 2 computes `!<1> blue`, so its
# non-zero weights are not all equal (1, 1, 1 and -1).
GRAPH = "colors red, blue\nclassify exists (red & !<1> blue)"
# Target 0 is red and hears blue 1 (relevant) and red 2; 3 -> 2, 4 -> 1 and 0 -> 3 lie
# outside the formula's one hop.
GRAPH_5 = gracr.Graph.from_edges(5, [["red"], ["blue"], ["red"], ["blue"], ["red"]],
                                 [(1, 0), (2, 0), (3, 2), (4, 1), (0, 3)])

Arrays = list[npt.NDArray[np.float32]]


def compiled(source: str) -> CompiledGNN:
    return gracr.compile(gracr.parse(source))


def parameters(network: Network) -> dict[str, tuple[Arrays, Arrays]]:
    """Each layer's (matrices, biases), by its name."""
    found = {"input": ([network.input_matrix], [network.input_bias])}
    for number, layer in enumerate(network.layers, start=1):
        found[f"layer-{number}"] = ([layer.C, *(a.A for a in layer.aggregations)], [layer.b])
    if network.readout:
        found["readout"] = ([d.W for d in network.readout], [d.b for d in network.readout])
    return found


def changed_layers(before: Network, after: Network) -> set[str]:
    """The layers whose parameters differ in any entry."""
    old, new = parameters(before), parameters(after)
    assert old.keys() == new.keys()
    return {name for name in old
            if any(not np.array_equal(a, b) or a.dtype != b.dtype
                   for a, b in zip([*old[name][0], *old[name][1]],
                                   [*new[name][0], *new[name][1]]))}


def same_network(a: Network, b: Network) -> bool:
    return not changed_layers(a, b) and a.formula == b.formula and a.columns == b.columns


def moments(arrays: Arrays) -> tuple[float, float]:
    values = np.concatenate([a.astype(np.float64).reshape(-1) for a in arrays])
    values = values[values != 0]
    return float(values.mean()), float(values.std())


# ------------------------------------------------------------------ compiled networks


def test_the_layers_are_input_message_passing_and_readout_bottom_to_top() -> None:
    assert network_layers(compiled(NODE)) == ["input", "layer-1", "layer-2"]
    assert network_layers(compiled(GRAPH)) == ["input", "layer-1", "layer-2", "layer-3",
                                               "readout"]


@pytest.mark.parametrize("source, chosen", [
    (NODE, ["layer-1"]), (NODE, ["input", "layer-2"]), (GRAPH, ["readout"]),
    (GRAPH, ["layer-2"]), (GRAPH, ["input", "layer-1", "layer-2", "layer-3", "readout"])])
def test_exactly_the_selected_layers_change(source: str, chosen: list[str]) -> None:
    network = compiled(source)
    randomised = randomised_network(network, chosen, seed=7)
    assert changed_layers(network, randomised) == set(chosen)
    assert type(randomised) is CompiledGNN
    for name in chosen:
        matrices, biases = parameters(randomised)[name]
        assert all(a.dtype == np.float32 for a in [*matrices, *biases])
    # Nothing but the weights, the formula and the meanings moves.
    for field in ("schema", "kind", "output_column", "options", "version"):
        assert getattr(randomised, field) == getattr(network, field)
    assert [c.depth for c in randomised.columns] == [c.depth for c in network.columns]


def test_no_layer_is_the_network_itself_and_an_unknown_layer_is_an_error() -> None:
    network = compiled(NODE)
    assert randomised_network(network, [], seed=0) is network
    # One name is one layer, not its letters.
    assert same_network(randomised_network(network, "layer-1", seed=0),
                        randomised_network(network, ["layer-1"], seed=0))
    with pytest.raises(GracrError, match="no layer 'readout'.*input, layer-1, layer-2"):
        randomised_network(network, ["readout"], seed=0)
    with pytest.raises(GracrError, match="non-negative integer"):
        randomised_network(network, ["input"], seed=-1)


def test_every_entry_is_replaced_zeros_included() -> None:
    # Layer 2 of GRAPH: 4 non-zero weights among 25, spread 0.87: random values are
    # never exactly 0, so no entry of the compiled sparsity pattern survives.
    network = compiled(GRAPH)
    C = randomised_network(network, ["layer-2"], seed=3).layers[1].C
    assert np.count_nonzero(network.layers[1].C) == 4
    assert np.count_nonzero(C) == C.size
    assert len(np.unique(C)) == C.size


def test_a_layer_whose_non_zero_weights_are_one_value_becomes_that_constant() -> None:
    # NODE's layer 2: weights all 1 (two carries, the AND's two inputs), bias -1 on the
    # AND: standard deviation 0, so every entry of C and A is 1 and every bias -1.
    network = compiled(NODE)
    layer = randomised_network(network, ["layer-2"], seed=5).layers[1]
    assert np.all(layer.C == 1) and np.all(layer.aggregations[0].A == 1)
    assert np.all(layer.b == -1)
    # A bias with no non-zero entry (layer 1's) stays 0.
    assert np.all(randomised_network(network, ["layer-1"], seed=5).layers[0].b == 0)


@pytest.mark.parametrize("name", ["layer-2", "readout", "input"])
def test_randomised_values_have_the_moments_of_the_non_zero_weights(name: str) -> None:
    # Over 400 seeds the draws of a layer's matrices are 400 x (its entries) samples of
    # N(mean, std) of the compiled non-zero weights: their sample mean lies within 5
    # standard errors of it, their spread within 5% of it. The bias, likewise, follows
    # the moments of its own non-zero entries.
    network = compiled(GRAPH)
    matrices, biases = parameters(network)[name]
    mean, std = moments(matrices)
    # Layer 2 has weights 1, 1, 1, -1 (mean 0.5, spread 0.87); the input map's and the
    # readout's non-zero weights are all 1, so theirs are the constant 1.
    assert (round(mean, 3), round(std, 3)) == ((0.5, 0.866) if name == "layer-2" else (1, 0))
    drawn = np.concatenate([a.reshape(-1) for seed in range(400)
                            for a in parameters(randomised_network(network, [name], seed))[
                                name][0]]).astype(np.float64)
    if std == 0:
        assert np.all(drawn == mean)
    else:
        assert abs(drawn.mean() - mean) < 5 * std / np.sqrt(drawn.size), (drawn.mean(), mean)
        assert abs(drawn.std() / std - 1) < 0.05, (drawn.std(), std)
    bias_values = np.concatenate([b.reshape(-1) for b in biases]).astype(np.float64)
    nonzero = bias_values[bias_values != 0]
    drawn_bias = np.concatenate([b.reshape(-1) for seed in range(50) for b in parameters(
        randomised_network(network, [name], seed))[name][1]])
    if nonzero.size == 0:
        assert np.all(drawn_bias == 0)
    elif nonzero.std() == 0:
        assert np.all(drawn_bias == nonzero[0])


def test_the_same_seed_gives_the_same_network_another_seed_another() -> None:
    network = compiled(GRAPH)
    everything = network_layers(network)
    first = randomised_network(network, everything, seed=11)
    again = randomised_network(network, everything, seed=11)
    other = randomised_network(network, everything, seed=12)
    assert same_network(first, again)
    assert changed_layers(first, other) >= {"layer-2"}


def test_a_layer_is_randomised_alike_alone_and_with_others() -> None:
    network = compiled(GRAPH)
    alone = randomised_network(network, ["layer-2"], seed=4)
    together = randomised_network(network, ["layer-2", "readout", "input"], seed=4)
    assert np.array_equal(alone.layers[1].C, together.layers[1].C)


def test_cascading_step_k_randomises_the_top_k_layers() -> None:
    network = compiled(GRAPH)
    order = network_layers(network)
    variants = randomisation_variants(network, "cascading", seed=2)
    assert [name for name, _ in variants] == [f"top-{k}" for k in range(1, len(order) + 1)]
    for k, (_, variant) in enumerate(variants, start=1):
        assert changed_layers(network, variant) == set(order[len(order) - k:])
    # The readout goes first; on a node classifier the last message-passing layer does.
    assert changed_layers(network, variants[0][1]) == {"readout"}
    node = compiled(NODE)
    assert changed_layers(node, randomisation_variants(node, "cascading", 2)[0][1]) == \
        {"layer-2"}


def test_independent_randomises_one_layer_each() -> None:
    network = compiled(GRAPH)
    variants = randomisation_variants(network, "independent", seed=2)
    assert [name for name, _ in variants] == network_layers(network)
    for name, variant in variants:
        assert changed_layers(network, variant) == {name}
    with pytest.raises(GracrError, match="'cascading' or 'independent'"):
        randomisation_variants(network, "sideways", seed=2)  # type: ignore[call-overload]


@pytest.mark.parametrize("source, layers", [
    (NODE, None), (GRAPH, None),
    # Randomising its layer 2 alone makes the columns that layer 3 carries on (which the
    # fused module would keep) differ from the ones it computes: 1 and 0 at node 0.
    ("colors red, blue\nclassify red & !<1> blue", ["layer-2"])])
def test_the_randomised_model_runs_alike_on_every_backend(source: str,
                                                          layers: list[str] | None) -> None:
    network = compiled(source)
    randomised = randomised_network(network, layers or network_layers(network), seed=1)
    prediction = randomised.predict(GRAPH_5)
    assert np.asarray(prediction).dtype == np.bool_
    data = randomised.encode(GRAPH_5)
    reference = randomised.forward(data.x.numpy(), data.edge_index.numpy())
    assert np.isfinite(reference).all()
    for module in (randomised.to_pyg(), randomised.to_pyg(surrogate=False),
                   randomised.to_pyg(fused=True)):
        with torch.no_grad():
            out = module(data.x, data.edge_index).numpy()
        assert np.isfinite(out).all()
        np.testing.assert_allclose(out, reference, rtol=1e-5, atol=1e-5)
    # The fused module runs only the columns a compiled layer settles: it refuses a
    # network whose layers write others, and `to_pyg(fused=True)` gives the full module.
    assert isinstance(randomised.to_pyg(fused=True), CompiledModule)
    assert isinstance(network.to_pyg(fused=True), FusedCompiledModule)
    with pytest.raises(ValueError, match="not laid out as compiled"):
        FusedCompiledModule(randomised)


def test_a_randomised_network_says_what_it_is(tmp_path: Path) -> None:
    network = compiled(GRAPH)
    assert not is_randomised(network)
    readout_only = randomised_network(network, ["readout"], seed=9)
    assert is_randomised(readout_only)
    assert readout_only.formula == \
        "[randomised control: readout; seed 9] exists (red & !<1> blue)"
    # The hidden columns still compute their meanings; the readout's no longer does.
    assert readout_only.columns == network.columns
    assert all(c.meaning.startswith("[randomised] ") for c in readout_only.readout_columns)
    hidden = randomised_network(network, ["layer-1"], seed=9)
    assert all(c.meaning.startswith("[randomised] ") for c in hidden.columns)
    # A saved control loads as what it is, and `gracrc inspect` says so on line one and
    # shows every column of every randomised layer.
    path = tmp_path / "control.npz"
    hidden.save(str(path))
    loaded = load(str(path))
    assert is_randomised(loaded) and loaded.formula == hidden.formula
    assert not changed_layers(hidden, loaded)
    out = io.StringIO()
    assert main(["inspect", str(path)], out) == 0
    text = out.getvalue()
    assert text.splitlines()[0].startswith("formula:  [randomised control: layer-1; seed 9]")
    layer_1 = text.split("layer 1:")[1].split("layer 2:")[0]
    assert sum(line.strip().startswith("h") for line in layer_1.splitlines()) == \
        network.width
    compiled_text = inspect_model(network)
    layer_1 = compiled_text.split("layer 1:")[1].split("layer 2:")[0]
    assert sum(line.strip().startswith("h") for line in layer_1.splitlines()) == 1


def test_explanations_change_on_the_randomised_model() -> None:
    # The control's point: Saliency on the compiled model credits the one relevant edge
    # 1 -> 0 alone; on the fully randomised model its ranking is another.
    program = gracr.parse(NODE)
    network = gracr.compile(program)
    subject = Subject.of(network, program, GRAPH_5, 0)
    before = scores("Saliency", subject)
    assert before.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    randomised = randomised_network(network, network_layers(network), seed=0)
    after = scores("Saliency", Subject.of(randomised, program, GRAPH_5, 0))
    assert torch.equal(after, scores("Saliency", randomised_subject(subject, randomised)))
    correlation = randomisation_correlation(before, after)
    assert correlation is not None and correlation < 1
    # The model itself is no control for itself.
    assert randomisation_correlation(before, scores("Saliency", subject)) == 1.0


def test_the_randomised_subject_has_the_randomised_model_s_receptive_field() -> None:
    # `red & <1> blue` reads one hop, so the program's field is the edges into 0. The
    # randomised model's layer 2 aggregates too: the edges into 0's in-neighbours join.
    program = gracr.parse(NODE)
    network = gracr.compile(program)
    subject = Subject.of(network, program, GRAPH_5, 0)
    assert subject.receptive_field.tolist() == [True, True, False, False, False]
    randomised = randomised_subject(subject, randomised_network(network, ["layer-2"], 0))
    assert randomised.receptive_field.tolist() == [True, True, True, True, False]
    assert randomised.node_receptive_field is not None
    assert randomised.node_receptive_field.tolist() == [False, True, True, True, True]
    assert randomised.compiled.formula.startswith("[randomised control: layer-2")
    assert randomised.modules == {} and randomised.target == 0
    graph_program = gracr.parse(GRAPH)
    graph_network = gracr.compile(graph_program)
    graph = randomised_subject(Subject.of(graph_network, graph_program, GRAPH_5, None),
                               randomised_network(graph_network, ["readout"], 0))
    assert graph.receptive_field.all()
    assert graph.node_receptive_field is not None and graph.node_receptive_field.all()


# ------------------------------------------------------------------ torch models


class TwoConvs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = GCNConv(3, 8)
        self.act = nn.ReLU()
        self.conv2 = GCNConv(8, 8)
        self.lin = nn.Linear(8, 1)

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        h = self.act(self.conv1(x, edge_index))
        out: Tensor = self.lin(self.act(self.conv2(h, edge_index)))
        return out


class Listed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = nn.ModuleList([GCNConv(3, 4), GCNConv(4, 4)])
        self.dropout = nn.Dropout(0.5)
        self.head = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 1))


class Scale(nn.Module):
    """A layer without `reset_parameters`."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.linspace(2.0, 4.0, size))


def trained(module: nn.Module) -> nn.Module:
    """`module` with every parameter moved off its initial values, as training would."""
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.add_(torch.randn(parameter.shape, generator=generator) + 0.5)
    return module


def changed_parameters(before: nn.Module, after: nn.Module) -> set[str]:
    old = dict(before.named_parameters())
    return {name for name, p in after.named_parameters() if not torch.equal(p, old[name])}


def test_module_layers_are_the_children_with_parameters_in_order() -> None:
    assert module_layers(TwoConvs()) == ["conv1", "conv2", "lin"]
    assert module_layers(Listed()) == ["convs.0", "convs.1", "head.0", "head.2"]


def test_named_torch_layers_reset_and_the_rest_is_bit_identical() -> None:
    torch.manual_seed(0)
    model = trained(TwoConvs())
    state = {k: v.clone() for k, v in model.state_dict().items()}
    rng = torch.get_rng_state()
    randomised = randomised_module(model, ["conv2"], seed=3)
    assert type(randomised) is TwoConvs and randomised is not model
    assert changed_parameters(model, randomised) == {"conv2.lin.weight", "conv2.bias"}
    # GCNConv's own initialiser: a zero bias, and Glorot weights.
    assert torch.all(randomised.conv2.bias == 0)
    bound = (6 / (8 + 8)) ** 0.5
    assert randomised.conv2.lin.weight.abs().max() <= bound
    # The model itself and torch's generator are left as they were.
    assert all(torch.equal(v, state[k]) for k, v in model.state_dict().items())
    assert torch.equal(torch.get_rng_state(), rng)
    again = randomised_module(model, ["conv2"], seed=3)
    other = randomised_module(model, ["conv2"], seed=4)
    assert not changed_parameters(randomised, again)
    assert changed_parameters(randomised, other) == {"conv2.lin.weight"}
    x, edges = torch.randn(4, 3), torch.tensor([[0, 1, 2], [1, 2, 3]])
    assert torch.isfinite(randomised(x, edges)).all()


def test_a_layer_without_reset_parameters_is_drawn_from_its_own_moments() -> None:
    model = nn.Sequential(Scale(20_000), nn.Linear(3, 3))
    randomised = randomised_module(model, ["0"], seed=1)
    before = dict(model.named_parameters())["0.weight"].detach()
    after = dict(randomised.named_parameters())["0.weight"].detach()
    assert changed_parameters(model, randomised) == {"0.weight"}
    mean, std = float(before.mean()), float(before.std(unbiased=False))
    assert abs(float(after.mean()) - mean) < 5 * std / 20_000 ** 0.5
    assert abs(float(after.std(unbiased=False)) / std - 1) < 0.05
    assert not torch.equal(after.sort().values, before.sort().values)


def test_torch_variants_cascade_from_the_head_and_vary_one_layer_each() -> None:
    model = trained(TwoConvs())
    layer_of = {"conv1.lin.weight": "conv1", "conv1.bias": "conv1",
                "conv2.lin.weight": "conv2", "conv2.bias": "conv2",
                "lin.weight": "lin", "lin.bias": "lin"}
    cascading = randomisation_variants(model, "cascading", seed=0)
    assert [name for name, _ in cascading] == ["top-1", "top-2", "top-3"]
    assert [{layer_of[p] for p in changed_parameters(model, variant)}
            for _, variant in cascading] == [{"lin"}, {"conv2", "lin"},
                                            {"conv1", "conv2", "lin"}]
    independent = randomisation_variants(model, "independent", seed=0)
    assert [name for name, _ in independent] == ["conv1", "conv2", "lin"]
    assert [{layer_of[p] for p in changed_parameters(model, variant)}
            for _, variant in independent] == [{"conv1"}, {"conv2"}, {"lin"}]
    with pytest.raises(GracrError, match="no submodule 'conv3'.*conv1, conv2, lin"):
        randomised_module(model, ["conv3"], seed=0)
    with pytest.raises(GracrError, match="no parameters"):
        randomised_module(model, ["act"], seed=0)


# ------------------------------------------------------------------ comparison


def test_spearman_is_one_on_itself_minus_one_reversed_none_when_undefined() -> None:
    values = torch.tensor([0.3, 2.0, -1.0, 0.7, 5.0])
    assert randomisation_correlation(values, values) == pytest.approx(1.0)
    assert randomisation_correlation(values, -values) == pytest.approx(-1.0)
    assert randomisation_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # Ranks, not values: any increasing map keeps 1.
    assert randomisation_correlation(values, values.exp()) == pytest.approx(1.0)
    assert randomisation_correlation([1, 2, 3], [2, 1, 3]) == pytest.approx(0.5)
    assert randomisation_correlation(values, torch.ones(5)) is None
    assert randomisation_correlation([1.0], [2.0]) is None
    assert randomisation_correlation([1.0, float("nan")], [1.0, 2.0]) is None
    with pytest.raises(GracrError, match="same elements"):
        randomisation_correlation([1, 2, 3], [1, 2])
