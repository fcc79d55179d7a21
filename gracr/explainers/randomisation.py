"""The model-randomisation control (Adebayo et al. 2018, "Sanity checks for saliency
maps"): an explanation that does not change when the model's weights are replaced by
random ones cannot be explaining the model.

Compiled models (`Network`, `CompiledGNN`). The layers, bottom to top
(`network_layers`): `"input"`, the input map h⁽⁰⁾ = σ(xP + p); `"layer-1"` …
`"layer-L"`, the message-passing layers; and, for a graph classifier, `"readout"`, all
its dense layers together, the top layer. A layer's parameters are its weight matrices
(input: `P`; layer ℓ: its self matrix `C` and the matrix `A_r` of every aggregation;
readout: every `W`) and its bias (input: `p`; layer ℓ: `b`; readout: every `b`).
`randomised_network` replaces every entry of a selected layer's matrices by i.i.d.
normal values with the mean and (population) standard deviation of the NON-ZERO entries
of those matrices taken together — the rule the issue asks for — and every entry of its
bias by the same rule applied to the bias's own non-zero entries (a bias is a threshold,
−(k−1) or +1, on another scale than the weights: pooled with them it would shift both).
Non-zero entries whose values are all equal give standard deviation 0, so the layer
becomes that constant everywhere; a layer with no non-zero entry stays 0. Every entry
is replaced, zeros included: the compiled sparsity pattern alone carries the mechanism
(which column reads which), so keeping it would keep the model. The draws of a layer
depend on the seed and the layer's name only, so a layer is randomised to the same
values alone, in any cascade step and in any independent variant.

A randomised network is no compiled model, and says so where a reader of the network or
of its model file looks first, without a new field or a new file format: its `formula`
becomes `[randomised control: <layers>; seed <s>] <formula>` (no formula starts with
`[`; `is_randomised`) — the first line `gracrc inspect` prints — and the meaning of every
column it no longer computes is prefixed `[randomised] ` (every hidden column once the
input or a message-passing layer is randomised: its whole `C` is; the readout columns
once any layer is). `Network.save` writes both into the metadata (with a checksum of
the new weights), so a saved control loads as what it is, never as the compiled model.
Its depths are kept; the fused backend, which relies on the compiled layout, is not used
for it (`gracr.executor.plan.keeps_compiled_layout`).

Torch models (any `torch.nn.Module`). `module_layers` lists its re-initialisable layers
in forward order by a heuristic: the top-level children in registration order, a
container (`nn.ModuleList`, `nn.Sequential`, `nn.ModuleDict`, PyG's `Sequential`)
replaced by its own children likewise, keeping those that hold parameters (activations,
dropout and the like have none). Registration order is forward order for the usual
GIN / GCN / GATv2 stacks (convolutions, then the head); a model that registers them
otherwise should pass its layers explicitly. Parameters registered on the model itself,
outside any child, are no layer. `randomised_module` deep-copies the model and
re-initialises the named submodules: every module inside one that has a
`reset_parameters()` has it called (outermost first, the module's own initialiser, as
in Adebayo et al.), and a parameter that no such module owns or contains is replaced by
i.i.d. normal values with that tensor's own mean and standard deviation (all of its
entries: trained weights are dense). Torch's random generator is seeded per layer from
the seed and the layer's name, and restored afterwards.

Both kinds have the two protocols of the paper (`randomisation_variants`): cascading,
`"top-k"` randomising the top k layers (step 1 the top layer, the readout of a graph
classifier), and independent, one variant per layer named by the layer, the others
intact. `randomisation_correlation` compares the attributions on the model and on a
variant: Spearman's rank correlation.

An explainer that reads the receptive field from its `Subject` (ShapleySampling's
players, GraphSVX's nodes, GraphMask-clean's mask) would be handed the program's there,
which the randomised model no longer has: `randomised_subject` gives the subject of the
randomised model with the model's own receptive field.
"""

from __future__ import annotations

import copy
import dataclasses
import zlib
from typing import Any, Iterable, Literal, Sequence, TypeVar, overload

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from gracr.explainers.base import Subject
from gracr.explainers.metric import signed_rank_correlation
from gracr.compiler.network import Column, Network
from gracr.compiler.weights import Aggregation, DenseLayer, Layer
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN
from gracr.executor.plan import layer_plans, target_cone

Mode = Literal["cascading", "independent"]
MODES: tuple[Mode, ...] = ("cascading", "independent")

INPUT = "input"
READOUT = "readout"
FORMULA_MARK = "[randomised control: "
MEANING_MARK = "[randomised] "

N = TypeVar("N", bound=Network)
M = TypeVar("M", bound=nn.Module)
Float32 = npt.NDArray[np.float32]


# ------------------------------------------------------------------ compiled models


def network_layers(network: Network) -> list[str]:
    """The layers of `network`, bottom to top: `"input"`, `"layer-1"` … `"layer-L"`,
    and `"readout"` for a graph classifier."""
    return ([INPUT] + [f"layer-{number}" for number in range(1, network.num_layers + 1)]
            + ([READOUT] if network.readout else []))


def is_randomised(network: Network) -> bool:
    """Whether `network` is a randomisation control (`randomised_network`), not the
    compiled model of its formula."""
    return network.formula.startswith(FORMULA_MARK)


def randomised_network(network: N, layers: Iterable[str], seed: int) -> N:
    """A copy of `network` (of its type: a `CompiledGNN` stays one) whose `layers`
    (names from `network_layers`) have random parameters, marked as a control (see the
    module doc for the rule and the marks). No layer: `network` itself."""
    _check_seed(seed)
    known = network_layers(network)
    chosen = {layers} if isinstance(layers, str) else set(layers)
    unknown = sorted(chosen - set(known))
    if unknown:
        raise GracrError(f"no layer {', '.join(map(repr, unknown))} in this network; its "
                         f"layers are {', '.join(known)}")
    if not chosen:
        return network
    names = [name for name in known if name in chosen]   # bottom to top
    changes: dict[str, Any] = {}
    if INPUT in chosen:
        rng = _layer_rng(seed, INPUT)
        (P,), p = _redrawn(rng, [network.input_matrix], network.input_bias)
        changes.update(input_matrix=P, input_bias=p)
    new_layers = []
    for number, layer in enumerate(network.layers, start=1):
        if f"layer-{number}" not in chosen:
            new_layers.append(layer)
            continue
        rng = _layer_rng(seed, f"layer-{number}")
        (C, *As), b = _redrawn(rng, [layer.C, *(a.A for a in layer.aggregations)], layer.b)
        new_layers.append(Layer(C, tuple(Aggregation(a.relation, A)
                                         for a, A in zip(layer.aggregations, As)), b))
    changes["layers"] = tuple(new_layers)
    if READOUT in chosen:
        rng = _layer_rng(seed, READOUT)
        Ws, b = _redrawn(rng, [dense.W for dense in network.readout],
                         np.concatenate([dense.b for dense in network.readout]))
        widths = np.cumsum([0] + [dense.b.shape[0] for dense in network.readout])
        changes["readout"] = tuple(DenseLayer(W, b[widths[k]:widths[k + 1]])
                                   for k, W in enumerate(Ws))
    if chosen - {READOUT}:
        changes["columns"] = _marked(network.columns)
    changes["readout_columns"] = _marked(network.readout_columns)
    changes["formula"] = f"{FORMULA_MARK}{', '.join(names)}; seed {seed}] {network.formula}"
    return dataclasses.replace(network, **changes)


def _layer_rng(seed: int, name: str) -> np.random.Generator:
    """The generator of one layer: a function of the seed and the layer's name."""
    return np.random.default_rng([seed, zlib.crc32(name.encode())])


def _redrawn(rng: np.random.Generator, matrices: Sequence[Float32], bias: Float32
             ) -> tuple[list[Float32], Float32]:
    """Every entry of `matrices` drawn from N(mean, std) of their non-zero entries
    together, every entry of `bias` from N(mean, std) of its own non-zero entries."""
    mean, std = nonzero_moments(matrices)
    drawn = [rng.normal(mean, std, size=matrix.shape).astype(np.float32)
             for matrix in matrices]
    bias_mean, bias_std = nonzero_moments([bias])
    return drawn, rng.normal(bias_mean, bias_std, size=bias.shape).astype(np.float32)


def nonzero_moments(arrays: Sequence[npt.NDArray[Any]]) -> tuple[float, float]:
    """The mean and population standard deviation of the non-zero entries of `arrays`
    together; (0, 0) when there is none."""
    values = np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays]
                            or [np.zeros(0)])
    values = values[values != 0]
    if not values.size:
        return 0.0, 0.0
    return float(values.mean()), float(values.std())


def _marked(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    return tuple(column if column.meaning.startswith(MEANING_MARK) else
                 dataclasses.replace(column, meaning=MEANING_MARK + column.meaning)
                 for column in columns)


def randomised_subject(subject: Subject, network: Network) -> Subject:
    """`subject` (graph, target, level) for the randomised `network` in place of its
    model, with the receptive fields of `network`: the edges some message-passing layer
    with non-zero aggregation weights sums over on the way to the target (every such
    edge for a graph classifier), and the nodes at their ends but the target (every
    node for a graph classifier). The program's fields describe the compiled model only."""
    compiled = CompiledGNN.of(network)
    edge_index = subject.edge_index.numpy()
    edge_type = None if subject.edge_type is None else subject.edge_type.numpy()
    sources, targets = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    edges = np.zeros(sources.shape[0], dtype=np.bool_)
    plans = layer_plans(compiled)
    if subject.target is None:
        for plan in plans:
            edges |= plan.admitted(edge_type, sources.shape[0])
        nodes = np.ones(subject.num_nodes, dtype=np.bool_)
    else:
        rows, _ = target_cone(compiled, edge_index, subject.target, edge_type)
        for depth, plan in enumerate(plans):
            edges |= plan.admitted(edge_type, sources.shape[0]) & np.isin(targets,
                                                                          rows[depth + 1])
        nodes = np.zeros(subject.num_nodes, dtype=np.bool_)
        nodes[sources[edges]] = True
        nodes[targets[edges]] = True
        nodes[subject.target] = False
    return dataclasses.replace(subject, model=compiled, modules={}, receptive_field=edges,
                               node_receptive_field=nodes)


# ------------------------------------------------------------------ torch models


def _containers() -> tuple[type[nn.Module], ...]:
    from torch_geometric.nn import Sequential as PygSequential

    return (nn.ModuleList, nn.Sequential, nn.ModuleDict, PygSequential)


def module_layers(module: nn.Module) -> list[str]:
    """The re-initialisable layers of `module` in forward order, by the heuristic of the
    module doc: its children in registration order, containers opened, those that hold
    parameters. Names are `get_submodule` paths (`"convs.0"`, `"lin"`)."""
    containers = _containers()
    found: list[str] = []

    def walk(parent: nn.Module, prefix: str) -> None:
        for name, child in parent.named_children():
            path = f"{prefix}{name}"
            if isinstance(child, containers):
                walk(child, f"{path}.")
            elif any(True for _ in child.parameters()):
                found.append(path)

    walk(module, "")
    return found


def randomised_module(module: M, layer_names: Iterable[str], seed: int) -> M:
    """A deep copy of `module` whose submodules `layer_names` (`get_submodule` paths,
    e.g. from `module_layers`) are re-initialised as the module doc says; every other
    parameter and buffer is bit-identical to `module`'s."""
    _check_seed(seed)
    names = [layer_names] if isinstance(layer_names, str) else list(dict.fromkeys(layer_names))
    for name in names:
        try:
            layer = module.get_submodule(name)
        except AttributeError:
            raise GracrError(f"the model has no submodule {name!r}; its layers are "
                             f"{', '.join(module_layers(module)) or 'none'}") from None
        if not any(True for _ in layer.parameters()):
            raise GracrError(f"submodule {name!r} has no parameters to re-initialise")
    copied = copy.deepcopy(module)
    for name in names:
        _reinitialise(copied.get_submodule(name), _torch_seed(seed, name))
    return copied


def _torch_seed(seed: int, name: str) -> int:
    state = np.random.SeedSequence([seed, zlib.crc32(name.encode())]).generate_state(2)
    return int(state[0]) << 32 | int(state[1])


def _reinitialise(layer: nn.Module, seed: int) -> None:
    """Every module in `layer` with a `reset_parameters` resets (outermost first); the
    parameters outside all of them are drawn from N(mean, std) of their own entries."""
    covered: set[str] = set()
    with torch.random.fork_rng(), torch.no_grad():
        torch.manual_seed(seed)
        for path, sub in layer.named_modules():
            reset = getattr(sub, "reset_parameters", None)
            if callable(reset):
                reset()
                covered.add(path)
        generator = torch.Generator().manual_seed(seed)
        for name, parameter in layer.named_parameters():
            owner = name.rpartition(".")[0]
            parts = owner.split(".") if owner else []
            if any(".".join(parts[:k]) in covered for k in range(len(parts) + 1)):
                continue
            values = parameter.detach().to(torch.float64)
            mean, std = float(values.mean()), float(values.std(unbiased=False))
            drawn = torch.randn(parameter.shape, generator=generator, dtype=torch.float64)
            parameter.copy_((drawn * std + mean).to(parameter.dtype))


# ------------------------------------------------------------------ variants


@overload
def randomisation_variants(model: N, mode: Mode, seed: int,
                           layers: Sequence[str] | None = None) -> list[tuple[str, N]]: ...


@overload
def randomisation_variants(model: M, mode: Mode, seed: int,
                           layers: Sequence[str] | None = None) -> list[tuple[str, M]]: ...


def randomisation_variants(model: Network | nn.Module, mode: Mode, seed: int,
                           layers: Sequence[str] | None = None
                           ) -> list[tuple[str, Any]]:
    """The named randomised copies of `model` (a compiled network or a torch module).

    `"cascading"`: `"top-1"`, `"top-2"`, …, step k randomising the top k layers, down to
    every layer. `"independent"`: one variant per layer, named by it (`"layer-3"`,
    `"readout"`, `"convs.1"`), that layer alone randomised. `layers` (bottom to top)
    defaults to `network_layers` or `module_layers`."""
    if mode not in MODES:
        raise GracrError(f"randomisation mode must be 'cascading' or 'independent', got "
                         f"{mode!r}")
    order = list(layers) if layers is not None else (
        network_layers(model) if isinstance(model, Network) else module_layers(model))
    if isinstance(model, Network):
        def randomise(names: Sequence[str]) -> Any:
            return randomised_network(model, names, seed)
    else:
        def randomise(names: Sequence[str]) -> Any:
            return randomised_module(model, names, seed)
    if mode == "cascading":
        return [(f"top-{k}", randomise(order[len(order) - k:]))
                for k in range(1, len(order) + 1)]
    return [(name, randomise([name])) for name in order]


def _check_seed(seed: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise GracrError(f"the randomisation seed must be a non-negative integer, got "
                         f"{seed!r}")


# ------------------------------------------------------------------ comparison


def randomisation_correlation(before: Tensor | npt.ArrayLike,
                              after: Tensor | npt.ArrayLike) -> float | None:
    """Spearman's rank correlation (`gracr.explainers.metric.signed_rank_correlation`, ties at
    their mean rank) of the scores on the model (`before`) and on a randomised variant
    (`after`), one per edge or node in the same order: 1 when randomising left the
    ranking as it was, the sign of a failed sanity check. `None` when it is undefined:
    fewer than two scores, a constant vector, or a score that is not a finite number (a
    saturated randomised model's gradients can be)."""
    a = _vector(before)
    b = _vector(after)
    if a.shape != b.shape:
        raise GracrError(f"randomisation_correlation: {a.size} scores before and {b.size} "
                         f"after; they must score the same elements")
    if a.size < 2 or not (np.isfinite(a).all() and np.isfinite(b).all()):
        return None
    return signed_rank_correlation(a, b)


def _vector(scores: Tensor | npt.ArrayLike) -> npt.NDArray[np.float64]:
    if isinstance(scores, Tensor):
        scores = scores.detach().cpu().numpy()
    return np.asarray(scores, dtype=np.float64).reshape(-1)


__all__ = ["INPUT", "MODES", "READOUT", "Mode", "is_randomised", "module_layers",
           "network_layers", "nonzero_moments", "randomisation_correlation",
           "randomisation_variants", "randomised_module", "randomised_network",
           "randomised_subject"]
