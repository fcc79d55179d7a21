"""The explainer interface of GracrBench and its registry.

An explainer is given a `Subject` — the compiled model (as PyG modules with the
surrogate derivative of Eq. 9 and with the exact one), one graph and one target —
and returns one float score per directed edge of the whole graph. `explain` wraps
that into a PyG `Explanation` (`edge_mask`), after merging the explainer's default
settings with the given ones and seeding every random generator, so a result is a
function of (explainer, settings, subject, seed).

Explainers register under the names the paper's Tables 2 and 3 give them (our
variants, such as `GraphMask-clean`, under names of their own); `register` is also how a user
plugs in an explainer of their own (see the README).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Literal, Mapping, Union

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from gracr.executor.model import CompiledGNN
from gracr.bdd.upi import receptive_field
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.dsl.parse import Program
from gracr.errors import GracrError
from gracr.executor.torch_backend import CompiledModule, TargetConeModule

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Subject:
    """What an explainer explains: a compiled model, one graph and one target.

    `x` is the float feature matrix (`CompiledGNN.features`), `edge_index` the `[2, E]`
    directed edges, `edge_type` their relation indices when the model declares
    relations, `target` the explained node (node classifiers) or `None` (graph
    classifiers). `receptive_field` is the bool-per-edge mask of the edges that can
    change the target's value (`gracr.receptive_field`).
    """

    compiled: CompiledGNN
    x: Tensor
    edge_index: Tensor
    target: int | None
    receptive_field: BoolArray
    modules: dict[str, CompiledModule] = field(default_factory=dict, compare=False,
                                               repr=False)
    edge_type: Tensor | None = None

    @classmethod
    def of(cls, compiled: CompiledGNN, program: Program, graph: Graph, target: int | None,
           modules: dict[str, CompiledModule] | None = None) -> Subject:
        """The subject of `graph` (and `target`) for `compiled`, the model of `program`."""
        edge_type = compiled.edge_types(graph)
        return cls(compiled, torch.as_tensor(compiled.features(graph)),
                   torch.as_tensor(graph.edge_index), target,
                   receptive_field(program, graph, target),
                   {} if modules is None else modules,
                   None if edge_type is None else torch.as_tensor(edge_type))

    @property
    def model_kwargs(self) -> dict[str, Tensor]:
        """The keyword arguments every module call needs besides `x` and `edge_index`."""
        return {} if self.edge_type is None else {"edge_type": self.edge_type}

    @property
    def num_edges(self) -> int:
        return int(self.edge_index.shape[1])

    @property
    def num_layers(self) -> int:
        return self.compiled.num_layers

    @property
    def task_level(self) -> Literal["node", "graph"]:
        return "node" if self.compiled.kind is Kind.NODE else "graph"

    def module(self, derivative: Literal["surrogate", "exact"] = "surrogate") -> CompiledModule:
        """The shared PyG module with the given derivative of the truncated ReLU.

        Explainers must leave it as they found it; one that alters the model it
        explains (PyG's GraphMask) takes a `fresh_module` instead.
        """
        if derivative not in self.modules:
            self.modules[derivative] = self.fresh_module(derivative)
        return self.modules[derivative]

    def fresh_module(self, derivative: Literal["surrogate", "exact"] = "surrogate",
                     narrow: bool = True) -> CompiledModule:
        module = self.compiled.to_pyg(surrogate=derivative == "surrogate", narrow=narrow)
        assert isinstance(module, CompiledModule)
        return module.eval()

    def fresh_target_module(self, derivative: Literal["surrogate", "exact"] = "surrogate"
                            ) -> nn.Module:
        """A fresh module for explainers that read only the target's output: on node
        tasks a `TargetConeModule` (the same value and gradients at the target, a
        fraction of the cost; NaN at the other nodes), on graph tasks `fresh_module`."""
        if self.target is None:
            return self.fresh_module(derivative)
        edge_type = None if self.edge_type is None else self.edge_type.numpy()
        module = TargetConeModule(self.compiled, self.edge_index.numpy(), int(self.x.shape[0]),
                                  self.target, surrogate=derivative == "surrogate",
                                  edge_type=edge_type)
        return module.eval()

    @cached_property
    def prediction(self) -> float:
        """The model's output on the target (1.0 on every instance GracrBench explains)."""
        with torch.no_grad():
            out = self.module()(self.x, self.edge_index, **self.model_kwargs)
        return float(out[self.target if self.target is not None else 0, 0])

    def model_config(self, return_type: str = "probs") -> dict[str, str]:
        """PyG's `model_config`. The output is already a 0/1 probability, so `probs`:
        PyG's Captum bridge requires it for binary models."""
        return {"mode": "binary_classification", "task_level": self.task_level,
                "return_type": return_type}


# ---------------------------------------------------------------- search spaces (Table 16)


@dataclass(frozen=True)
class Choice:
    values: tuple[Any, ...]


@dataclass(frozen=True)
class LogUniform:
    low: float
    high: float


@dataclass(frozen=True)
class Uniform:
    low: float
    high: float


@dataclass(frozen=True)
class IntRange:
    """Integers `low..high` inclusive; `high` may name another parameter (SubgraphX's
    `min_atoms ≤ max_nodes`)."""

    low: int
    high: int | str


Space = Union[Choice, LogUniform, Uniform, IntRange]
ExplainFn = Callable[[Subject, Mapping[str, Any], int], Tensor]


@dataclass(frozen=True)
class ExplainerSpec:
    """A registered explainer: how to run it, its defaults and its tuning space.

    `run(subject, settings, seed)` returns a float tensor of one score per edge.
    `graph_only` names settings that exist only for graph tasks.
    """

    name: str
    run: ExplainFn
    defaults: Mapping[str, Any]
    space: Mapping[str, Space] = field(default_factory=dict)
    source: str = ""
    graph_only: frozenset[str] = frozenset()


EXPLAINERS: dict[str, ExplainerSpec] = {}


def register(spec: ExplainerSpec) -> ExplainerSpec:
    """Add an explainer to the registry (a later registration replaces an earlier one)."""
    EXPLAINERS[spec.name] = spec
    return spec


def explainer_named(name: str) -> ExplainerSpec:
    if name not in EXPLAINERS:
        raise GracrError(f"unknown explainer '{name}'; the explainers are "
                         f"{', '.join(EXPLAINERS)}")
    return EXPLAINERS[name]


def settings_for(spec: ExplainerSpec, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The explainer's defaults updated with `overrides`; unknown keys are an error."""
    settings = dict(spec.defaults)
    for key, value in (overrides or {}).items():
        if key not in settings:
            raise GracrError(f"{spec.name} has no setting '{key}'; its settings are "
                             f"{', '.join(settings) or 'none'}")
        settings[key] = value
    return settings


def settings_hash(settings: Mapping[str, Any]) -> str:
    """A short stable digest of the settings: results are keyed by it."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def explainer_seed(dataset_seed: int, instance: int) -> int:
    """The random seed an explainer runs with on one positive instance of a dataset seed:
    distinct across (seed, instance) pairs while a seed has fewer than 1,000,003 instances,
    and the same on every rerun, so the runner, the tuner, the ablations and the
    diagnostics explain an instance identically."""
    return dataset_seed * 1_000_003 + instance


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def edge_scores(name: str, subject: Subject, settings: Mapping[str, Any] | None = None,
                seed: int = 0) -> Tensor:
    """Run explainer `name` on `subject`: a float tensor `[E]`, one score per edge."""
    spec = explainer_named(name)
    merged = settings_for(spec, settings)
    seed_everything(seed)
    scores = spec.run(subject, merged, seed)
    scores = torch.as_tensor(scores).detach().to(torch.float64).reshape(-1)
    if scores.numel() != subject.num_edges:
        raise GracrError(f"{name} returned {scores.numel()} edge scores for a graph with "
                         f"{subject.num_edges} edges")
    return scores


def explain(name: str, subject: Subject, settings: Mapping[str, Any] | None = None,
            seed: int = 0) -> Any:
    """Run explainer `name` on `subject` and return a PyG `Explanation` whose
    `edge_mask` holds the edge scores."""
    from torch_geometric.explain import Explanation

    scores = edge_scores(name, subject, settings, seed)
    return Explanation(x=subject.x, edge_index=subject.edge_index, edge_mask=scores,
                       index=subject.target)
