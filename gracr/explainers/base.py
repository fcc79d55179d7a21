"""The explainer protocol and its registry.

An explainer (`Explainer`) is given a `Subject` — the model (a compiled one, as PyG
modules with the surrogate derivative of Eq. 9 and with the exact one, or a trained
one), one graph, one target and the level asked (`"edge"` or `"node"`) — and returns
PyG's `Explanation` of the whole graph, whose `edge_mask` and/or `node_mask` hold its
scores; `supports(task)` says beforehand whether it can answer what a subject asks
(`ExplainerTask`: the level, graph or node classifier, compiled or trained model,
typed relations or not). A registered explainer (`ExplainerSpec`) runs a function of
the same signature and returns the asked level's scores, one float64 per edge or node,
with every random generator seeded, so a result is a function of (explainer, settings,
subject, seed); `scores` merges its defaults with the given settings and takes those
scores out.

An `ExplainerSpec` declares the levels it gives (edge only by default) and the models it
explains (`models`: compiled, trained or both). An explainer that gives edge scores only
is still scored at node level: the spec runs it at edge level and gives each node the
maximum score of its incident edges (`node_scores_from_edges`, `derives_node_scores`);
asking a node-only explainer for edge scores fails before a run starts. An explainer that
learns before it explains (PGExplainer) has a `train` step, which the runner and the
tuner call once on the held-out seed's instances (`trained`).

Explainers register under the names the paper's Tables 2 and 3 give them (our
variants, such as `GraphMask-clean`, under names of their own); `register` is also how a user
plugs in an explainer of their own (see 'Benchmark your own explainer' in the documentation), and `library.register_algorithm`
registers any PyG `ExplainerAlgorithm`.

The subject is a compiled model or a trained one (`TrainedModel`): explainers that read
the model only through its module and its output explain both alike.

Its size (600–700 lines) is one interface: the subject (compiled or trained), the protocol,
the spec and its registry, the search spaces, and `scores`, the one way every caller runs
a registered explainer; split, each part would import the others.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable, Literal, Mapping, Protocol, Sequence, Union

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn
from torch_geometric.explain import Explanation

from gracr.executor.model import CompiledGNN
from gracr.bdd.upi import node_receptive_field, receptive_field
from gracr.explainers.metric import LEVELS, Level
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.dsl.parse import closest_word
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.torch_backend import CompiledModule, TargetConeModule

BoolArray = npt.NDArray[np.bool_]
# What kind of model a subject explains: compiled from a formula, or trained (`TrainedModel`).
ModelKind = Literal["compiled", "trained"]
MODEL_KINDS: tuple[ModelKind, ...] = ("compiled", "trained")


@dataclass(frozen=True, eq=False)
class TrainedModel:
    """A model that learned its weights, explained beside compiled ones (the tissue
    study's GIN and GATv2): `module(x, edge_index, batch=None, edge_attr=None)` gives one
    logit per graph (`[B, 1]`, `kind` GRAPH) or per node (`[N, 1]`, NODE) from the graph's
    numeric node features (`Graph.feature_values`) and edge attributes (`Graph.edge_attr`).

    Explainers read the logit, the model's pre-threshold output (the tissue note explains
    "with respect to the positive-class logit"); `num_layers` is its number of
    message-passing layers (GraphSVX's and PyG's k-hop rules). Nothing about it is known
    by construction, so every node and edge is in its receptive field.

    `separable` declares that the module, in eval mode, gives on a disjoint union of
    graphs (`batch` saying each node's graph) each graph's own output: its layers mix
    nodes only along edges and it pools each graph of `batch` on its own, with no
    normalisation across graphs. The batch paths (`gracr.explainers.batch`) explain such
    a graph classifier several graphs at once; they check the eval mode themselves."""

    name: str
    module: nn.Module
    kind: Kind = Kind.GRAPH
    num_layers: int = 1
    separable: bool = False


_NOT_COMPILED = ("this explainer reads a compiled network's layers; {name} is a trained "
                 "model")


class _Logit(nn.Module):
    """A `TrainedModel`'s module called the way explainers call a compiled one:
    `(x, edge_index, batch=None, **kwargs)`, `edge_attr` by name."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: Tensor, edge_index: Tensor, batch: Tensor | None = None,
                **kwargs: Any) -> Tensor:
        result: Tensor = self.module(x, edge_index, edge_attr=kwargs.get("edge_attr"),
                                     batch=batch)
        return result


@dataclass(frozen=True)
class Subject:
    """What an explainer explains: a model, one graph and one target.

    `model` is a `CompiledGNN` (the benchmark's subject; `compiled` returns it) or a
    `TrainedModel` (`Subject.of_trained`); an explainer that reads the compiled network's
    layers (LRP, FlowX, SubgraphX, GraphMask-clean, ShapleySampling's node-task cone)
    refuses a trained one by name. `x` is the float feature matrix (`CompiledGNN.features`;
    a trained model's: the numeric node features), `edge_index` the `[2, E]` directed
    edges, `edge_type` their relation indices when the model declares relations,
    `edge_attr` the edge attributes a trained model reads, `target` the explained node
    (node classifiers) or `None` (graph classifiers). `receptive_field` is the
    bool-per-edge mask of the edges that can change the target's value
    (`gracr.receptive_field`), `node_receptive_field` the bool-per-node mask of the nodes
    whose deletion can (`gracr.node_receptive_field`); all true for a trained model.
    `level` is what the explanation is scored on: `"edge"` asks for edge scores,
    `"node"` for node scores (an explainer that can give both may compute only that).
    `graph` is the explained graph itself, for explainers that read what the model does
    not see (the model-free spatial baselines read its positions, `Graph.pos`).
    """

    model: CompiledGNN | TrainedModel
    x: Tensor
    edge_index: Tensor
    target: int | None
    receptive_field: BoolArray
    modules: dict[str, nn.Module] = field(default_factory=dict, compare=False, repr=False)
    edge_type: Tensor | None = None
    node_receptive_field: BoolArray | None = None
    level: Level = "edge"
    graph: Graph | None = field(default=None, compare=False, repr=False)
    edge_attr: Tensor | None = None

    @classmethod
    def of(cls, compiled: CompiledGNN, program: Program | None, graph: Graph,
           target: int | None, modules: dict[str, nn.Module] | None = None,
           level: Level = "edge") -> Subject:
        """The subject of `graph` (and `target`) for `compiled`, the model of `program`,
        asking for scores at `level`. Without the program its receptive fields are
        unknown: every edge and node is in them. `modules`: the modules of `compiled`
        already built (`module`), shared with the other subjects of the same model, which
        add theirs to it (building one costs more than explaining a molecule)."""
        _check_level_name(level)
        edge_type = compiled.edge_types(graph)
        return cls(compiled, torch.as_tensor(compiled.features(graph)),
                   torch.as_tensor(graph.edge_index), target,
                   np.ones(graph.num_edges, dtype=np.bool_) if program is None
                   else receptive_field(program, graph, target),
                   {} if modules is None else modules,
                   None if edge_type is None else torch.as_tensor(edge_type),
                   np.ones(graph.num_nodes, dtype=np.bool_) if program is None
                   else node_receptive_field(program, graph, target), level, graph)

    @classmethod
    def of_trained(cls, model: TrainedModel, graph: Graph, target: int | None = None,
                   level: Level = "edge") -> Subject:
        """The subject of `graph` (and `target`) for a trained model, at `level`: `x` the
        graph's numeric node features, `edge_attr` its edge attributes."""
        _check_level_name(level)
        if graph.feature_values is None:
            raise GracrError(f"{model.name} reads numeric node features; the graph has none "
                             f"(graph JSON 'features')")
        return cls(model, torch.as_tensor(graph.feature_values, dtype=torch.float32),
                   torch.as_tensor(graph.edge_index), target,
                   np.ones(graph.num_edges, dtype=np.bool_), {}, None,
                   np.ones(graph.num_nodes, dtype=np.bool_), level, graph,
                   None if graph.edge_attr is None
                   else torch.as_tensor(graph.edge_attr, dtype=torch.float32))

    @property
    def compiled(self) -> CompiledGNN:
        """The compiled model; a `GracrError` for a trained one (an explainer that reads a
        compiled network's layers cannot explain it)."""
        if isinstance(self.model, TrainedModel):
            raise GracrError(_NOT_COMPILED.format(name=self.model.name))
        return self.model

    @property
    def trained(self) -> bool:
        return isinstance(self.model, TrainedModel)

    @property
    def model_kwargs(self) -> dict[str, Tensor]:
        """The keyword arguments every module call needs besides `x` and `edge_index`."""
        if self.trained:
            return {} if self.edge_attr is None else {"edge_attr": self.edge_attr}
        return {} if self.edge_type is None else {"edge_type": self.edge_type}

    @property
    def num_edges(self) -> int:
        return int(self.edge_index.shape[1])

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def num_layers(self) -> int:
        return self.model.num_layers

    @property
    def task_level(self) -> Literal["node", "graph"]:
        return "node" if self.model.kind is Kind.NODE else "graph"

    @property
    def task(self) -> ExplainerTask:
        """What this subject asks of an explainer (`Explainer.supports`)."""
        return ExplainerTask(self.level, self.task_level,
                             "trained" if self.trained else "compiled",
                             self.edge_type is not None)

    def module(self, derivative: Literal["surrogate", "exact"] = "surrogate") -> nn.Module:
        """The shared PyG module with the given derivative of the truncated ReLU (a trained
        model has one derivative, its own).

        Explainers must leave it as they found it; one that alters the model it
        explains (PyG's GraphMask) takes a `fresh_module` instead.
        """
        if derivative not in self.modules:
            self.modules[derivative] = self.fresh_module(derivative)
        return self.modules[derivative]

    def inference_module(self) -> nn.Module:
        """The shared module for explainers that only read outputs (no gradient, no PyG
        edge mask): a compiled model's inference module (`to_pyg(fused=True)`: the same
        function, with the same values on the compiled layout; ShapleySampling through it
        took 12-14x less CPU on WOMBAT's 79-layer P03 and about the same on its 14-layer
        patterns, `benchmarks/wombat_slow_explainers.py`), a trained model's `module()`."""
        if self.trained:
            return self.module()
        if "inference" not in self.modules:
            self.modules["inference"] = self.compiled.to_pyg(fused=True).eval()
        return self.modules["inference"]

    def compiled_module(self, derivative: Literal["surrogate", "exact"] = "surrogate"
                        ) -> CompiledModule:
        """`module(derivative)` for explainers that read a compiled module's layers (a
        `GracrError` for a trained model, as `compiled`)."""
        module = self.module(derivative)
        if not isinstance(module, CompiledModule):
            raise GracrError(_NOT_COMPILED.format(name=getattr(self.model, "name", "it")))
        return module

    def fresh_module(self, derivative: Literal["surrogate", "exact"] = "surrogate",
                     narrow: bool = True) -> nn.Module:
        if isinstance(self.model, TrainedModel):
            return _Logit(copy.deepcopy(self.model.module)).eval()
        module = self.model.to_pyg(surrogate=derivative == "surrogate", narrow=narrow)
        assert isinstance(module, CompiledModule)
        return module.eval()

    def fresh_target_module(self, derivative: Literal["surrogate", "exact"] = "surrogate"
                            ) -> nn.Module:
        """A fresh module for explainers that read only the target's output: on node
        tasks of a compiled model a `TargetConeModule` (the same value and gradients at
        the target, a fraction of the cost; NaN at the other nodes), else `fresh_module`."""
        if self.target is None or isinstance(self.model, TrainedModel):
            return self.fresh_module(derivative)
        edge_type = None if self.edge_type is None else self.edge_type.numpy()
        module = TargetConeModule(self.model, self.edge_index.numpy(), int(self.x.shape[0]),
                                  self.target, surrogate=derivative == "surrogate",
                                  edge_type=edge_type)
        return module.eval()

    def output(self, module: nn.Module | None = None) -> float:
        """The model's output at the target (or the graph's): a compiled model's 0/1
        probability, a trained model's logit."""
        with torch.no_grad():
            out = (module or self.module())(self.x, self.edge_index, **self.model_kwargs)
        return float(out[self.target if self.target is not None else 0, 0])

    @cached_property
    def prediction(self) -> float:
        """The model's probability of the positive class at the target (1.0 on every
        instance GracrBench explains): a trained model's is the sigmoid of its logit."""
        value = self.output()
        return float(torch.sigmoid(torch.tensor(value))) if self.trained else value

    def model_config(self, return_type: str = "probs") -> dict[str, str]:
        """PyG's `model_config`. A compiled output is already a 0/1 probability, so
        `probs`: PyG's Captum bridge requires it for binary models. A trained model's
        output is a logit: `raw`; asked for `probs` (the Captum bridge), it is declared a
        regression output, so that Captum attributes the logit itself (the tissue note's
        "with respect to the positive-class logit"), which the bridge takes no other way."""
        if self.trained:
            mode = "regression" if return_type == "probs" else "binary_classification"
            return {"mode": mode, "task_level": self.task_level, "return_type": "raw"}
        return {"mode": "binary_classification", "task_level": self.task_level,
                "return_type": return_type}


@dataclass(frozen=True)
class ExplainerTask:
    """What an explainer is asked: scores at `level` (`"edge"`: one per directed edge,
    `"node"`: one per node), for a model that classifies graphs or nodes (`task_level`),
    compiled from a formula or trained (`model`), whose edges carry relation types or not
    (`typed`)."""

    level: Level
    task_level: Literal["node", "graph"]
    model: ModelKind
    typed: bool


class Explainer(Protocol):
    """The explainer protocol: `supports(task)` says whether it can answer `task`, and a
    call explains one subject with complete settings and a seed, returning PyG's
    `Explanation` whose `edge_mask` (`[E]`) or `node_mask` (`[N]`, `[N, 1]`, or `[N, F]`)
    holds the scores at the subject's level."""

    def supports(self, task: ExplainerTask) -> bool: ...

    def __call__(self, subject: Subject, settings: Mapping[str, Any],
                 seed: int) -> Explanation: ...


def _check_level_name(level: str) -> None:
    if level not in LEVELS:
        raise GracrError(f"unknown level '{level}'; the levels are {', '.join(LEVELS)}")


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
# A registered explainer's run: PyG's `Explanation` with `edge_mask` and/or `node_mask`.
ExplainFn = Callable[[Subject, Mapping[str, Any], int], Explanation]
# An explainer's batched run: (subjects, the settings, one seed per subject) -> one
# `Explanation` per subject, each the one `ExplainFn` gives that subject alone (`Batch`).
BatchFn = Callable[[Sequence[Subject], Mapping[str, Any], Sequence[int]], Sequence[Explanation]]
# An explainer's training: (the training subjects, the settings, a seed) -> the trained run.
TrainFn = Callable[[Sequence[Subject], Mapping[str, Any], int], ExplainFn]
# The setting of an explainer with a `train` step that says on how many instances it trains.
TRAINING_INSTANCES = "training_instances"


@dataclass(frozen=True)
class Batch:
    """How an explainer explains several subjects in one go: `run(subjects, settings,
    seeds)` gives, for each subject, the explanation its `ExplainerSpec.run` gives that
    subject alone with its own seed (up to float rounding), on subjects of one model for
    which `applies(subject)` holds. It is an optimisation, never a different explainer:
    the explainers whose result on a disjoint union of graphs is, per graph, the result on
    that graph alone (gradients of the sum of the graphs' outputs, one optimiser step of a
    per-graph objective on elementwise masks) explain a union of B molecules in about the
    time of one, since a compiled model's cost is its layers' overhead, not its arithmetic."""

    run: BatchFn
    applies: Callable[[Subject], bool]


@dataclass(frozen=True)
class ExplainerSpec:
    """A registered explainer (an `Explainer`): how to run it, what it supports, its
    defaults and its tuning space.

    `run(subject, settings, seed)` returns an `Explanation` with `edge_mask` (`[E]`)
    and/or `node_mask` (`[N]`, `[N, 1]`, or `[N, F]`, reduced to the sum of absolute
    values over the columns); `levels` says which of the two it can give (one with edge
    only is given node scores from its edge scores, `derives_node_scores`), `models`
    which models it explains (one that reads a compiled network's layers: compiled only).
    `graph_only` names settings that exist only for graph tasks. `domain` names the
    domain of an explainer that applies to its graphs or models only (`"tissue"`: the
    model-free baselines that read cell positions, GATv2's attention rollout): it is run
    when named, never as part of `--explainers all`. `train`, if given, is
    called before the explainer explains anything (`trained`); its `run` may then refuse
    to explain untrained, and its settings must include `training_instances`. `batch`, if
    given, explains several subjects at once (`Batch`, `scores_together`).
    """

    name: str
    run: ExplainFn
    defaults: Mapping[str, Any]
    space: Mapping[str, Space] = field(default_factory=dict)
    source: str = ""
    graph_only: frozenset[str] = frozenset()
    levels: frozenset[Level] = frozenset({"edge"})
    train: TrainFn | None = None
    domain: str | None = None
    models: frozenset[ModelKind] = frozenset(MODEL_KINDS)
    batch: Batch | None = None

    def __post_init__(self) -> None:
        levels = frozenset(self.levels)
        unknown = sorted(set(levels) - set(LEVELS))
        if unknown or not levels:
            raise GracrError(f"explainer {self.name}: levels must be some of "
                             f"{', '.join(LEVELS)}, got {sorted(levels)}")
        object.__setattr__(self, "levels", levels)
        models = frozenset(self.models)
        if not models or models - set(MODEL_KINDS):
            raise GracrError(f"explainer {self.name}: models must be some of "
                             f"{', '.join(MODEL_KINDS)}, got {sorted(models)}")
        object.__setattr__(self, "models", models)
        if self.train is not None and TRAINING_INSTANCES not in self.defaults:
            raise GracrError(f"explainer {self.name} has a train step, so its defaults need "
                             f"'{TRAINING_INSTANCES}' (how many held-out instances it "
                             f"trains on)")


    def supports(self, task: ExplainerTask) -> bool:
        return self._refusal(task, "it") is None

    def _refusal(self, task: ExplainerTask, model_name: str) -> str | None:
        """Why this explainer cannot answer `task` (`model_name` names the model), or
        None if it can."""
        level = _level_refusal(self, task.level)
        if level is not None:
            return level
        if task.model not in self.models:
            return (_NOT_COMPILED.format(name=model_name) if task.model == "trained" else
                    f"{self.name} explains trained models only; {model_name} is compiled")
        return None

    def __call__(self, subject: Subject, settings: Mapping[str, Any],
                 seed: int) -> Explanation:
        """Explain `subject` with complete `settings` (`settings_for`), every random
        generator seeded with `seed`: an `Explanation` whose mask at `subject.level` holds
        one float64 score per edge (`[E]`) or per node (`[N]`).

        At node level an explainer that gives edge scores only (`derives_node_scores`)
        runs on the same subject at edge level, and each node gets the maximum score of
        its incident edges (`node_scores_from_edges`)."""
        refusal = self._refusal(subject.task, getattr(subject.model, "name", "this model"))
        if refusal is not None:
            raise GracrError(refusal)
        if subject.level == "node" and derives_node_scores(self):
            edge_level = self(replace(subject, level="edge"), settings, seed).edge_mask
            values = node_scores_from_edges(subject.edge_index, edge_level, subject.num_nodes)
        else:
            seed_everything(seed)
            values = scores_at_level(self.name, subject, self.run(subject, settings, seed))
        return Explanation(x=subject.x, edge_index=subject.edge_index, index=subject.target,
                           **{f"{subject.level}_mask": values})


EXPLAINERS: dict[str, ExplainerSpec] = {}


def register(spec: ExplainerSpec) -> ExplainerSpec:
    """Add an explainer to the registry (a later registration replaces an earlier one)."""
    EXPLAINERS[spec.name] = spec
    return spec


def explainer_named(name: str) -> ExplainerSpec:
    """The registered explainer `name`; the explainers we ship, then (if it is still not
    registered) the `gracr.explainers` entry points, are loaded first if it is not (yet)
    registered. Entry points only when needed: a domain's plugin may import the benchmark
    (the tissue one does), which explaining with a shipped explainer must not."""
    if name not in EXPLAINERS:
        from gracr.explainers import EXPLAINERS as everything_we_ship  # noqa: F401  (registers)
    if name not in EXPLAINERS:
        from gracr.explainers.plugins import load_entry_points

        load_entry_points()
    if name not in EXPLAINERS:
        meant = closest_word(name, list(EXPLAINERS))
        hint = f" (did you mean '{meant}'?)" if meant else ""
        raise GracrError(f"unknown explainer '{name}'{hint}; the explainers are "
                         f"{', '.join(EXPLAINERS)}")
    return EXPLAINERS[name]


def spec_of(explainer: str | ExplainerSpec) -> ExplainerSpec:
    """A registered explainer by name, or the spec itself (e.g. a `trained` one)."""
    return explainer if isinstance(explainer, ExplainerSpec) else explainer_named(explainer)


def derives_node_scores(spec: ExplainerSpec) -> bool:
    """Whether `spec`'s node scores are derived from its edge scores
    (`node_scores_from_edges`): it gives edge scores and no node scores of its own."""
    return "node" not in spec.levels and "edge" in spec.levels


def node_scores_from_edges(edge_index: Tensor, edge_scores: Tensor, num_nodes: int) -> Tensor:
    """One score per node from one score per directed edge: the maximum score over the
    node's incident edges, in or out (a self-loop counts once, as the maximum ignores
    repeats). A node with no incident edge gets the graph's minimum edge score (0 if the
    graph has no edge), so that it ranks last and adds no level of its own to the ranking.

    Two rules are in use: WOMBAT (§3.3 of the WOMBAT paper) sums the incident edge
    scores; gracr takes the maximum. Why: a node matters as soon as one of its edges
    does, whereas a sum also ranks a node by its degree (many weak edges outrank one
    strong one)."""
    values = torch.as_tensor(edge_scores).detach().to(torch.float64).reshape(-1)
    edges = torch.as_tensor(edge_index).to(torch.int64)
    if edges.dim() != 2 or edges.shape[0] != 2 or edges.shape[1] != values.numel():
        raise GracrError(f"node_scores_from_edges: {values.numel()} edge scores for an "
                         f"edge_index of shape {tuple(edges.shape)} (expected [2, E])")
    floor = float(values.min()) if values.numel() else 0.0
    result = torch.full((num_nodes,), floor, dtype=torch.float64)
    if values.numel():
        # Both ends of every edge, each with the edge's score; include_self=False leaves
        # nodes without an edge at `floor` and ignores it where an edge reaches.
        ends = torch.cat([edges[0], edges[1]])
        result.scatter_reduce_(0, ends, torch.cat([values, values]), reduce="amax",
                               include_self=False)
    return result


def check_level(spec: ExplainerSpec, level: str) -> None:
    """Raise the user's error unless `spec` gives scores at `level` (node scores of an
    explainer that gives edge scores are derived from them, `derives_node_scores`)."""
    if level not in LEVELS:
        raise GracrError(f"unknown level '{level}'; the levels are {', '.join(LEVELS)}")
    refusal = _level_refusal(spec, level)
    if refusal is not None:
        raise GracrError(refusal)


def _level_refusal(spec: ExplainerSpec, level: str) -> str | None:
    if level in spec.levels or (level == "node" and derives_node_scores(spec)):
        return None
    given = " and ".join(sorted(spec.levels))
    return (f"{spec.name} gives {given} scores only; score it with --level "
            f"{sorted(spec.levels)[0]}, or choose an explainer that gives {level} scores")


def trained(explainer: str | ExplainerSpec, subjects: Sequence[Subject],
            settings: Mapping[str, Any] | None, seed: int) -> ExplainerSpec:
    """The explainer ready to explain: itself if it has no `train` step, else the spec
    whose `run` is what `train` returned on `subjects` (seeded with `seed`)."""
    spec = spec_of(explainer)
    if spec.train is None:
        return spec
    if not subjects:
        raise GracrError(f"{spec.name} must be trained, and there are no instances to "
                         f"train it on")
    merged = settings_for(spec, settings)
    if derives_node_scores(spec):
        # It will explain at edge level (node scores come from its edge scores), so it
        # trains on edge masks whatever level the run asks for.
        subjects = [replace(s, level="edge") for s in subjects]
    seed_everything(seed)
    try:
        run = spec.train(subjects, merged, seed)
    except GracrError:
        raise
    except Exception as error:  # the user's explainer: say which one failed and how
        raise GracrError(f"training {spec.name} failed: {type(error).__name__}: "
                         f"{error}") from None
    # The batch path explains with the untrained algorithm: a trained one runs alone.
    return replace(spec, run=run, train=None, batch=None)


def settings_for(spec: ExplainerSpec, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The explainer's defaults updated with `overrides`; unknown keys are an error that
    names every one of them."""
    settings = dict(spec.defaults)
    unknown = [key for key in (overrides or {}) if key not in settings]
    if unknown:
        named = ", ".join(f"'{key}'" for key in unknown)
        raise GracrError(f"{spec.name} has no setting{'s' if len(unknown) > 1 else ''} "
                         f"{named}; its settings are {', '.join(settings) or 'none'}")
    settings.update(overrides or {})
    return settings


def settings_hash(settings: Mapping[str, Any]) -> str:
    """A short stable digest of the settings: results are keyed by it."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def disjoint_copies(edge_index: Tensor, num_nodes: int, copies: int,
                    edge_type: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor | None]:
    """The edges, the `batch` vector and the edge types (if any) of `copies` copies of
    one graph as one disjoint graph, copy-major (copy c's node v is `c * num_nodes + v`):
    how perturbation explainers evaluate many variants of a graph in one module call."""
    offsets = torch.arange(copies, dtype=torch.long) * num_nodes
    edges = (edge_index[:, None, :] + offsets[None, :, None]).reshape(2, -1)
    batch = torch.arange(copies).repeat_interleave(num_nodes)
    return edges, batch, None if edge_type is None else edge_type.repeat(copies)


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


def scores_at_level(name: str, subject: Subject, returned: object) -> Tensor:
    """The scores at `subject.level` that explainer `name` returned (`returned`, its
    `Explanation`): a float64 tensor, `[E]` or `[N]`. A 2-D node mask, `[N, F]`
    attributions or `[N, 1]` (PyG's "object" mask), is reduced to the sum of the absolute
    values of each node's row (WOMBAT App. B): a feature pushing the output down matters
    as much as one pushing it up, and opposite signs must not cancel."""
    if not isinstance(returned, Explanation):
        raise GracrError(f"{name} returned a {type(returned).__name__}; an explainer returns "
                         f"a torch_geometric.explain.Explanation with an edge_mask and/or a "
                         f"node_mask")
    wanted = f"{subject.level}_mask"
    values = getattr(returned, wanted, None)
    if values is None:
        raise GracrError(f"{name} returned an explanation without a {wanted} where "
                         f"{subject.level} scores were asked")
    result = torch.as_tensor(values).detach().to(torch.float64)
    if subject.level == "node" and result.dim() == 2:
        result = result.abs().sum(dim=1)   # [N, 1] (PyG's "object" mask) or [N, F]
    result = result.reshape(-1)
    count = subject.num_edges if subject.level == "edge" else subject.num_nodes
    if result.numel() != count:
        raise GracrError(f"{name} returned {result.numel()} {subject.level} scores for "
                         f"a graph with {count} {subject.level}s")
    return result


def scores(explainer: str | ExplainerSpec, subject: Subject,
           settings: Mapping[str, Any] | None = None, seed: int = 0) -> Tensor:
    """Run `explainer` on `subject` with its defaults updated by `settings`: a float64
    tensor of its scores at `subject.level`, `[E]` (one per edge) or `[N]` (one per
    node) (`ExplainerSpec.__call__`)."""
    spec = spec_of(explainer)
    explanation = spec(subject, settings_for(spec, settings), seed)
    values: Tensor = getattr(explanation, f"{subject.level}_mask")
    return values


def edge_scores(explainer: str | ExplainerSpec, subject: Subject,
                settings: Mapping[str, Any] | None = None, seed: int = 0) -> Tensor:
    """Run `explainer` on `subject` (asked at edge level): a float tensor `[E]`, one score
    per edge."""
    if subject.level != "edge":
        raise GracrError(f"edge_scores explains at edge level; this subject asks for "
                         f"{subject.level} scores (use `scores`)")
    return scores(explainer, subject, settings, seed)

