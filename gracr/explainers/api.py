"""Explain one graph and score the explanation: the explainers without the benchmark.

`explain(model, graph, explainer)` runs a registered explainer (by name) or any
`Explainer` on one graph of a compiled model (`gracr.compile`, `gracr.load`) or a trained
one (`TrainedModel`) and returns PyG's `Explanation`, one float64 score per directed edge
(`edge_mask`) and/or per node (`node_mask`). It is the benchmark's run of the explainer on
that instance: the same subject, settings and seed give the same scores (the runner's
seed of an instance is `explainer_seed(dataset_seed, instance)`). Given the `program` the
model was compiled from, the receptive fields are the program's, as in the benchmark;
without it nothing is known about them, and every edge and node is taken to be in them
(explainers that restrict themselves to the receptive field, such as Rnd, then spread
over the whole graph).

`score(explanation, truth)` scores it against ground truth with the benchmark's metrics
(`metric`): the best-threshold F1 with its precision and recall (the paper's, `"f1"`),
or WOMBAT's AUROC and average precision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor
from torch_geometric.explain import Explanation

from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN
from gracr.explainers.base import (Explainer, ExplainerSpec, Subject, TrainedModel,
                                   explainer_named, scores_at_level, seed_everything,
                                   settings_for)
from gracr.explainers.metric import LEVELS, Level, plausibility_at, ranking_at

# Which masks `explain` computes: the explainer runs once per level asked.
Over = Literal["edges", "nodes", "both"]
_LEVELS_OVER: dict[str, tuple[Level, ...]] = {
    "edges": ("edge",), "nodes": ("node",), "both": ("edge", "node")}
# The metrics one explanation is scored by (`score`).
Metric = Literal["f1", "auroc", "average_precision"]
METRICS: tuple[Metric, ...] = ("f1", "auroc", "average_precision")


def explain(model: CompiledGNN | TrainedModel, graph: Graph, explainer: str | Explainer, *,
            target: int | None = None, seed: int = 0, over: Over = "edges",
            program: Program | None = None, **settings: Any) -> Explanation:
    """Explain `model`'s output on `graph` (at node `target` for a node classifier) with
    `explainer`, seeded with `seed`: PyG's `Explanation` with an `edge_mask` (`[E]`), a
    `node_mask` (`[N]`) or both, as `over` asks, and `index` the target.

    `explainer` is a registered name (`EXPLAINERS`) or an `Explainer` object; a
    registered one runs with its defaults updated by `settings` (an unknown key is a
    `GracrError` naming it), any other with `settings` as given. `program` is the
    program `model` was compiled from (module docstring: the receptive fields)."""
    if over not in _LEVELS_OVER:
        raise GracrError(f"explain: over must be one of {', '.join(_LEVELS_OVER)}, "
                         f"got {over!r}")
    chosen = explainer_named(explainer) if isinstance(explainer, str) else explainer
    name = getattr(chosen, "name", type(chosen).__name__)
    complete = (settings_for(chosen, settings) if isinstance(chosen, ExplainerSpec)
                else dict(settings))
    modules: dict[str, Any] = {}
    masks: dict[str, Tensor] = {}
    for level in _LEVELS_OVER[over]:
        subject = _subject(model, graph, target, level, program, modules)
        if isinstance(chosen, ExplainerSpec):
            # The registered explainer checks the task itself, with the reason it refuses.
            masks[f"{level}_mask"] = getattr(chosen(subject, complete, seed), f"{level}_mask")
            continue
        if not chosen.supports(subject.task):
            raise GracrError(f"{name} does not support this task: {subject.task}")
        seed_everything(seed)
        masks[f"{level}_mask"] = scores_at_level(name, subject, chosen(subject, complete, seed))
    return Explanation(x=subject.x, edge_index=subject.edge_index, index=target, **masks)


def _subject(model: CompiledGNN | TrainedModel, graph: Graph, target: int | None,
             level: Level, program: Program | None, modules: dict[str, Any]) -> Subject:
    if isinstance(model, TrainedModel):
        if program is not None:
            raise GracrError(f"explain: {model.name} is a trained model; a program gives "
                             f"the receptive fields of a compiled one only")
        return Subject.of_trained(model, graph, target, level)
    if not isinstance(model, CompiledGNN):
        raise GracrError(f"explain: the model must be a CompiledGNN (gracr.compile, "
                         f"gracr.load) or a TrainedModel, got {type(model).__name__}")
    if program is None:
        _check_target(model, graph, target)
    return Subject.of(model, program, graph, target, modules, level)


def _check_target(model: CompiledGNN, graph: Graph, target: int | None) -> None:
    """The target a compiled model without its program is explained at: a node of
    `graph` for a node classifier, None for a graph classifier."""
    if model.kind is Kind.NODE:
        if target is None or not 0 <= target < graph.num_nodes:
            raise GracrError(f"explain: a node classifier is explained at a node: target "
                             f"must be one of 0..{graph.num_nodes - 1}, got {target}")
    elif target is not None:
        raise GracrError(f"explain: a graph classifier has no target node, got target "
                         f"{target}")


# ---------------------------------------------------------------- score


class GroundTruthMasks(Protocol):
    """Ground truth as `score` reads it: a bool per edge and/or per node (`None` where
    not known), e.g. `gracr.GroundTruth`."""

    @property
    def edge_mask(self) -> npt.ArrayLike | None: ...

    @property
    def node_mask(self) -> npt.ArrayLike | None: ...


@dataclass(frozen=True)
class Score:
    """One explanation scored against ground truth at `level` by `metric`.

    `value` is the metric's value: the best F1 over thresholds (`"f1"`), the AUROC or the
    average precision (`None` where undefined: every scored element is in the ground
    truth). For `"f1"`, `precision` and `recall` are those of the best threshold, and
    `threshold` the score from which elements are selected (ties go to the higher one)."""

    metric: Metric
    level: Level
    value: float | None
    precision: float | None = None
    recall: float | None = None
    threshold: float | None = None


def score(explanation: Explanation, truth: npt.ArrayLike | GroundTruthMasks,
          metric: Metric = "f1", *, level: Level | None = None) -> Score:
    """Score `explanation` against `truth`, a bool mask over the edges (an array) or an
    object with `edge_mask` and `node_mask` (`GroundTruthMasks`), by `metric`: `"f1"`
    (the benchmark's best-threshold F1, precision and recall: `metric.plausibility`),
    `"auroc"` or `"average_precision"` (`metric.ranking`).

    `level` (`"edge"` or `"node"`) defaults to the edges when both sides have edge masks,
    else the nodes. At node level the explained node of a node classifier
    (`explanation.index`) is left out, as in the benchmark (`metric.plausibility_at`)."""
    if metric not in METRICS:
        raise GracrError(f"score: unknown metric {metric!r}; the metrics are "
                         f"{', '.join(METRICS)}")
    if level is not None and level not in LEVELS:
        raise GracrError(f"score: unknown level {level!r}; the levels are {', '.join(LEVELS)}")
    masks = _truth_masks(truth)
    chosen = level if level is not None else _common_level(explanation, masks)
    values = getattr(explanation, f"{chosen}_mask", None)
    wanted = masks[chosen]
    if values is None or wanted is None:
        missing = "explanation" if values is None else "ground truth"
        raise GracrError(f"score: the {missing} has no {chosen}_mask")
    scores = torch.as_tensor(values).detach().to(torch.float64).reshape(-1).numpy()
    index = getattr(explanation, "index", None)
    target = None if index is None else int(index)
    if metric == "f1":
        point = plausibility_at(chosen, scores, wanted, target)
        return Score(metric, chosen, point.f1, point.precision, point.recall, point.threshold)
    ranked = ranking_at(chosen, scores, wanted, target)
    return Score(metric, chosen, ranked.auroc if metric == "auroc" else ranked.average_precision)


def _truth_masks(truth: npt.ArrayLike | GroundTruthMasks
                 ) -> dict[Level, npt.NDArray[np.bool_] | None]:
    if hasattr(truth, "edge_mask") or hasattr(truth, "node_mask"):
        return {level: _bool_mask(getattr(truth, f"{level}_mask", None), level)
                for level in LEVELS}
    return {"edge": _bool_mask(truth, "edge"), "node": None}


def _bool_mask(mask: object, level: Level) -> npt.NDArray[np.bool_] | None:
    if mask is None:
        return None
    array = np.asarray(mask)
    if array.dtype != np.bool_:
        raise GracrError(f"score: the ground truth {level} mask must be bool (one per "
                         f"{level}), got {array.dtype}")
    return array.reshape(-1)


def _common_level(explanation: Explanation,
                  masks: dict[Level, npt.NDArray[np.bool_] | None]) -> Level:
    for level in LEVELS:
        if masks[level] is not None and getattr(explanation, f"{level}_mask", None) is not None:
            return level
    raise GracrError("score: the explanation and the ground truth share no mask (edge_mask "
                     "or node_mask)")
