"""The explainers that PyG and Captum provide, run on compiled models (§5, App. H.1).

Every one runs on the module with the surrogate derivative of Eq. 9, except IG,
which needs the exact derivative (App. C.4: with the surrogate, completeness
breaks). The facts these wrappers rely on are listed below.

Choices made here, where the paper is silent:

* The Captum explainers are told `return_type="probs"` (the compiled output is a
  0/1 probability, and PyG's Captum bridge accepts binary models only that way).
  GNNExplainer and GraphMask are told `raw`, as the module's own `model_config`
  says: with `probs` their loss is binary cross-entropy on an output of exactly 1,
  whose gradient torch computes as (y − t)/max(y(1 − y), ε) = 0, so the prediction
  term would never move a mask. With `raw` the loss is BCE-with-logits at logit
  1, gradient σ(1) − 1 ≠ 0.
* Saliency takes absolute gradients (Captum's default; the paper's, App. C.3).
* PyG's `CaptumExplainer` hands the model's keyword arguments on positionally, into a
  compiled module's `batch`: on typed models `_NamedArguments` passes `edge_type` by name.
* IG's baseline is every message off (edge mask 0), 50 steps (Captum's defaults).
* At node level the Captum gradient explainers (Saliency, Deconv, GuidedBP,
  InputXGradient, IG) attribute the node features instead (PyG's "attributes" node mask;
  IG's baseline all features 0), a node's score the sum of the absolute values over its
  feature columns (`scores`, WOMBAT App. B). The edge-level path is unchanged.
* InputXGradient: Captum's, with the surrogate derivative like Saliency. At edge level
  the input is PyG's all-ones edge mask, so its scores are the signed gradients.
* ShapleySampling: Captum's `ShapleyValueSampling`, 100 permutations (WOMBAT App. B
  raises Captum's 25 to 100). At node level every node is one player (Captum's
  `feature_mask` groups a node's feature columns), called directly rather than through
  PyG, whose "object" node mask for Captum is multiplicative and has no notion of
  grouping; the baseline 0 zeroes a node's features, which under the presence bit
  deletes it, so a node's score is its Shapley value in the node-deletion game. A node
  task's target is never deleted (as in the node UPI): its baseline is its own features,
  and its score 0. Items outside the (node) receptive field, which cannot change the
  output, are one null player together (Shapley value exactly 0), so a sample costs one
  evaluation per receptive-field item, not per item of the graph. At edge level every
  edge is one player, through PyG's `CaptumExplainer` (baseline 0 = the edge's message
  off), on the target's cone on node tasks (as IG). `perturbations_per_eval` (default
  64) only says how many perturbed inputs one model call evaluates, never what they
  are worth: at node level the batch is one call, on graph tasks of the disjoint union
  of the copies (on a 79-layer pattern about 5× faster than one call each, the same
  values bit for bit) through the subject's inference module (a compiled model's fused
  module: no gradient is taken; the same values bit for bit as `module()`, 12–14× less
  CPU on WOMBAT's 79-layer P03, `benchmarks/wombat_slow_explainers.py`), on node
  tasks of the executor's `TargetConeBatch`; the edge
  level evaluates one at a time (PyG's Captum bridge takes one edge mask per call).
* GNNExplainer: PyG's, with the mask logits initialised at `init_bias` plus PyG's
  random init (App. H.1: σ(m) ≈ 1, so neighbour counts hold at the start) and with
  PyG's hard mask switched off: PyG zeroes every edge whose first gradient is 0,
  which on a saturated truncated ReLU is not a statement about relevance (PyG
  issue 6787). At node level it learns one mask entry per node (PyG's "object" node
  mask, which multiplies a node's features by σ(m)) and no edge mask, with the same
  init bias; its size and entropy penalties are then PyG's node-feature ones at PyG's
  defaults (`edge_size`/`edge_ent` apply to edge masks only). GNNExplainer-hard keeps
  PyG's hard mask at both levels.
* PGExplainer: PyG's, trained before it explains (`register_algorithm`); its defaults
  `epochs` 30 and `lr` 0.003 are those of PyG's documentation (the `PGExplainer`
  docstring's example; 0.003 is also the constructor's default, `epochs` has none), on
  20 training instances (`DEFAULT_TRAINING_INSTANCES`). It gives edge scores; its node
  scores are derived from them (`base.node_scores_from_edges`).
* GraphMask: PyG's `GraphMaskExplainer` as the paper ran it. It rewrites the
  messages of the model it explains (layer norm + ReLU) and leaves flags set on its
  layers, so it gets a fresh module with full-width messages every time; the work its
  loop repeats is done once (`graphmask_pyg`: the same scores bit for bit).
* IG, GNNExplainer and ShapleySampling (edge level) read the target's output only: on
  node tasks they run on its cone (`Subject.fresh_target_module`: the same value and gradients).
* PGMExplainer: PyG contrib. It reads class probabilities with a softmax over the
  output columns, so it is shown the two columns [1 − p, p]; edge score
  1 − max(p_u, p_v) over its nodes' p-values (App. H.1), untested nodes p = 1.
* Rnd: uniform {0, 1} on the edges of the target's receptive field, 0 elsewhere; at
  node level, on the nodes of its node receptive field (`gracr.node_receptive_field`).

Its size (700–800 lines) is one wrapper per library explainer, each beside the facts it
relies on, all sharing `_run_pyg` and `_run_captum`: split, the facts would leave the
code they explain.

`register_algorithm` registers any PyG `ExplainerAlgorithm` subclass as an explainer:
it runs through PyG's `Explainer` with the compiled module's own `model_config`, on a
fresh module per instance (an algorithm may leave state on the model it explains), with
an edge or a node mask of type "object" as the level asks. The levels it is offered at
are those PyG's `supports()` accepts, at node and graph task level alike. An algorithm
that overrides `nn.Module.train` (PyG's training protocol, e.g. `PGExplainer`) is trained
before it explains: `epochs` times over the training instances, one `train(epoch, model,
x, edge_index, target=..., index=...)` step each, against the model's own prediction.
"""

from __future__ import annotations

import logging
import re
import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch_geometric.explain import Explanation
from torch_geometric.explain.algorithm import GNNExplainer

from gracr.explainers.base import (
    TRAINING_INSTANCES,
    Batch,
    Choice,
    ExplainerSpec,
    ExplainFn,
    IntRange,
    LogUniform,
    Space,
    Subject,
    Uniform,
    disjoint_copies,
    register,
)
from gracr.explainers.batch import (gnn_explainer_together, node_attribution_together,
                                    separable_graph_nodes)
from gracr.explainers.metric import LEVELS, Level
from gracr.errors import GracrError
from gracr.executor.torch_backend import TargetConeBatch

# How many held-out instances an algorithm that needs training trains on, unless its
# defaults say otherwise (the tuner's default sample).
DEFAULT_TRAINING_INSTANCES = 20


def _run_pyg(subject: Subject, algorithm: Any, model: nn.Module,
             model_config: Mapping[str, str], node_mask_type: str | None = None,
             edge_mask_type: str | None = "object",
             explanation_type: str = "model") -> Explanation:
    from torch_geometric.explain import Explainer

    explainer = Explainer(model=model, algorithm=algorithm, explanation_type=explanation_type,
                          node_mask_type=node_mask_type, edge_mask_type=edge_mask_type,
                          model_config=dict(model_config))
    if explanation_type == "phenomenon":
        # The phenomenon explained is the model's own prediction, as PyG reads it.
        label = explainer.get_target(explainer.get_prediction(
            subject.x, subject.edge_index, **subject.model_kwargs))
        return explainer(subject.x, subject.edge_index, target=label, index=subject.target,
                         **subject.model_kwargs)
    return explainer(subject.x, subject.edge_index, index=subject.target, **subject.model_kwargs)


def pyg_algorithm(algorithm: type[Any], *args: Any, **kwargs: Any) -> Any:
    """`algorithm(*args, **kwargs)`, with loss coefficients of its own.

    Some PyG algorithms (`PGExplainer`, `GraphMaskExplainer`) keep their coefficients in
    a class-level `coeffs` dict that `__init__` updates with its keyword arguments: one
    instance's settings would become the defaults of every later instance in the
    process (the next job, instance or tuning trial). The instance gets its own copy,
    with its arguments applied, and the class's dict is left as it was."""
    shared = getattr(algorithm, "coeffs", None)
    before = dict(shared) if isinstance(shared, dict) else None
    try:
        made = algorithm(*args, **kwargs)
    finally:
        if before is not None and isinstance(shared, dict):
            applied = dict(shared)
            shared.clear()
            shared.update(before)
    if before is not None and getattr(made, "coeffs", None) is shared:
        made.coeffs = applied
    return made


def _mask_types(level: Level) -> dict[str, str | None]:
    """PyG's mask types for scores at `level`: one mask, of type "object" (a score per
    edge or per node)."""
    return {"edge_mask_type": "object" if level == "edge" else None,
            "node_mask_type": "object" if level == "node" else None}


# ---------------------------------------------------------------- Captum through PyG


class _NamedArguments(nn.Module):
    """The explained module as PyG's `CaptumExplainer` calls it: that passes the model's
    keyword arguments on positionally after `x` and `edge_index` (`*kwargs.values()`),
    where a compiled module takes `batch`; this puts them back under their names (a typed
    model's `edge_type`), and passes keywords (PyG's own prediction call) as they are."""

    def __init__(self, model: nn.Module, names: tuple[str, ...]) -> None:
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, x: Tensor, edge_index: Tensor, *args: Tensor, **kwargs: Any) -> Tensor:
        kwargs.update(zip(self.names, args))
        result: Tensor = self.model(x, edge_index, **kwargs)
        return result


def _run_captum(subject: Subject, method: str, derivative: str,
                settings: Mapping[str, Any], cone: bool = False) -> Explanation:
    """Captum's `method` through PyG: at edge level its attribution of the edge mask; at
    node level, on its own, its attribution of the node features (PyG's "attributes" node
    mask, `[N, F]`, which `scores` reduces to the sum of absolute values over each node's
    features). With `cone`, the edge level runs on the target's cone (node tasks): IG's
    every step is one forward and backward pass to the target's output only, which the
    cone computes (the same value and gradients)."""
    from torch_geometric.explain.algorithm import CaptumExplainer

    algorithm = CaptumExplainer(method, **settings)
    named = tuple(subject.model_kwargs)

    def wrapped(model: nn.Module) -> nn.Module:
        return _NamedArguments(model, named) if named else model

    with warnings.catch_warnings():
        # Captum says so each time it switches on the gradient of an input that PyG hands
        # it without one (the node features at node level): expected, and no news.
        warnings.filterwarnings("ignore", message="Input Tensor .* did not already require")
        if subject.level == "edge":
            model = (subject.fresh_target_module(derivative)  # type: ignore[arg-type]
                     if cone and subject.target is not None
                     else subject.module(derivative))  # type: ignore[arg-type]
            explanation = _run_pyg(subject, algorithm, wrapped(model), subject.model_config())
            return Explanation(edge_mask=explanation.edge_mask)
        return _run_pyg(subject, algorithm,
                        wrapped(subject.module(derivative)),  # type: ignore[arg-type]
                        subject.model_config(), node_mask_type="attributes",
                        edge_mask_type=None)


def _direct_node_attribution(subject: Subject) -> bool:
    """Whether a Captum gradient method runs on the node features directly
    (`_node_attribution`): graph classifiers compiled by gracr, scored at node level."""
    return subject.level == "node" and subject.target is None and not subject.trained


def _captum(method: str, derivative: str) -> ExplainFn:
    def run(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
        if method in ("Saliency", "InputXGradient") and _direct_node_attribution(subject):
            return _node_attribution(subject, method, derivative, settings)
        return _run_captum(subject, method, derivative, settings)
    return run


def _node_attribution_batch(method: str, derivative: str | None = None) -> Batch:
    """The batch path of a Captum gradient method on the node features of separable graph
    classifiers, compiled or trained (`batch.node_attribution_together`,
    `batch.separable_graph_nodes`); IG's derivative is a setting."""
    def run(subjects: Sequence[Subject], settings: Mapping[str, Any], seeds: Sequence[int]
            ) -> list[Explanation]:
        options = dict(settings)
        chosen = derivative if derivative is not None else options.pop("derivative")
        return node_attribution_together(subjects, method, chosen, options)
    return Batch(run, separable_graph_nodes)


_EDGES_AND_NODES: frozenset[Level] = frozenset({"edge", "node"})

register(ExplainerSpec("Saliency", _captum("Saliency", "surrogate"), {"abs": True},
                       source="Captum Saliency via PyG CaptumExplainer", levels=_EDGES_AND_NODES,
                       batch=_node_attribution_batch("Saliency", "surrogate")))
register(ExplainerSpec("Deconv", _captum("Deconvolution", "surrogate"), {},
                       source="Captum Deconvolution via PyG CaptumExplainer",
                       levels=_EDGES_AND_NODES))
register(ExplainerSpec("GuidedBP", _captum("GuidedBackprop", "surrogate"), {},
                       source="Captum GuidedBackprop via PyG CaptumExplainer",
                       levels=_EDGES_AND_NODES))
register(ExplainerSpec("InputXGradient", _captum("InputXGradient", "surrogate"), {},
                       source="Captum InputXGradient via PyG CaptumExplainer",
                       levels=_EDGES_AND_NODES,
                       batch=_node_attribution_batch("InputXGradient", "surrogate")))


def _players(relevant: Any) -> Tensor:
    """Captum's `feature_mask` over edges or nodes: every item of the receptive field
    (`relevant`, one bool per item) a player of its own, all others one player more.
    Those others cannot change the output (that is what the receptive field says), so
    together they are a null player, whose Shapley value is exactly 0: one evaluation per
    permutation for all of them instead of one each (on a node task, a handful of players
    instead of the whole graph)."""
    inside = torch.as_tensor(np.asarray(relevant, dtype=np.bool_))
    groups = torch.full(inside.shape, int(inside.sum()), dtype=torch.int64)
    groups[inside] = torch.arange(int(inside.sum()))
    return groups


def _shapley_sampling(subject: Subject, settings: Mapping[str, Any], seed: int
                      ) -> Explanation:
    """Captum's ShapleyValueSampling with one player per node (node level) or per edge
    (edge level; module docstring)."""
    if int(settings["perturbations_per_eval"]) < 1:
        raise GracrError("ShapleySampling: perturbations_per_eval must be at least 1, got "
                         f"{settings['perturbations_per_eval']}")
    if subject.level == "edge":
        # PyG's Captum input is the edge mask, [1, E], one per model call (PyG's
        # CaptumExplainer), so one perturbation per evaluation. Every evaluation reads
        # the target's output only: on node tasks, its cone.
        options = dict(settings, perturbations_per_eval=1,
                       feature_mask=_players(subject.receptive_field).view(1, -1))
        return _run_captum(subject, "ShapleyValueSampling", "surrogate", options, cone=True)
    from captum.attr import ShapleyValueSampling

    if subject.target is not None:
        # A node task: the executor's batch of target cones, every perturbation of the
        # batch in one call (the values `CompiledModule` gives at the target).
        edge_type = None if subject.edge_type is None else subject.edge_type.numpy()
        cone = TargetConeBatch(subject.compiled, subject.edge_index.numpy(), subject.target,
                               edge_type)

        def output(batch: Tensor) -> Tensor:
            # Captum hands `[k, N, F]`: `perturbations_per_eval` perturbed feature matrices.
            values: Tensor = cone(batch[:, cone.input_nodes])
            return values
    else:
        # Outputs only, so the inference module: the same values as `module()`, far
        # faster on the deep compiled patterns (`Subject.inference_module`).
        model = subject.inference_module()

        def output(batch: Tensor) -> Tensor:
            # A graph task: the k matrices as one disjoint union of k copies, each pooled
            # on its own: the same outputs as k calls, and far fewer calls on deep models.
            copies = int(batch.shape[0])
            edges, graph_of, types = disjoint_copies(subject.edge_index, subject.num_nodes,
                                                     copies, subject.edge_type)
            union = {} if types is None else {"edge_type": types}
            out: Tensor = model(batch.reshape(copies * subject.num_nodes, -1), edges,
                                batch=graph_of, **union)
            return out[:, 0]

    inputs = subject.x.unsqueeze(0)
    relevant = (np.ones(subject.num_nodes, dtype=np.bool_)
                if subject.node_receptive_field is None
                else subject.node_receptive_field.copy())
    # The baseline deletes a node (features 0), except a node task's target: it is never
    # deleted (as in the node UPI), so its baseline is itself and it plays no part.
    baselines = torch.zeros_like(inputs)
    if subject.target is not None:
        relevant[subject.target] = False
        baselines[0, subject.target] = inputs[0, subject.target]
    groups = _players(relevant).view(1, -1, 1).repeat(1, 1, inputs.shape[2])
    with torch.no_grad():
        attribution = ShapleyValueSampling(output).attribute(
            inputs, baselines=baselines, feature_mask=groups, **settings)
    # Captum writes a player's value into every column of its group: one column is the
    # node's Shapley value (a sum over the columns would count it F times).
    return Explanation(node_mask=attribution[0, :, 0].detach().to(torch.float64))


register(ExplainerSpec("ShapleySampling", _shapley_sampling,
                       {"n_samples": 100, "perturbations_per_eval": 64},
                       source="Captum ShapleyValueSampling (nodes or edges as players)",
                       levels=_EDGES_AND_NODES))


def _integrated_gradients(subject: Subject, settings: Mapping[str, Any], seed: int
                          ) -> Explanation:
    options = dict(settings)
    derivative = options.pop("derivative")
    if _direct_node_attribution(subject):
        return _node_attribution(subject, "IntegratedGradients", derivative, options)
    return _run_captum(subject, "IntegratedGradients", derivative, options, cone=True)


def _node_attribution(subject: Subject, method: str, derivative: str,
                      options: Mapping[str, Any]) -> Explanation:
    """Captum's `method` (Saliency, InputXGradient, IntegratedGradients) of the node
    features of a compiled graph classifier, as PyG's `CaptumExplainer` computes it (the
    same Captum method and options, IG's baseline 0, the target the predicted class: p,
    or 1 - p for a negative), without PyG's bridge around it, which costs more than one
    gradient of a molecule; and IG's steps in one module call, on the disjoint union of
    their feature matrices (`internal_batch_size` = the steps, where the bridge forces
    one call per step). The same per-step outputs and gradients (bit for bit on WOMBAT's
    molecules, `tests/test_wombat_protocol.py`), several times faster."""
    import captum.attr

    model = subject.module(derivative)  # type: ignore[arg-type]
    with torch.no_grad():
        predicted = float(model(subject.x, subject.edge_index,
                                **subject.model_kwargs).reshape(-1)[0]) > 0.5

    def output(batch: Tensor) -> Tensor:
        copies = int(batch.shape[0])
        edges, graph_of, types = disjoint_copies(subject.edge_index, subject.num_nodes,
                                                 copies, subject.edge_type)
        union = {} if types is None else {"edge_type": types}
        out: Tensor = model(batch.reshape(copies * subject.num_nodes, -1), edges,
                            batch=graph_of, **union)[:, 0]
        return out if predicted else 1 - out

    inputs = subject.x.unsqueeze(0).detach().requires_grad_()
    algorithm = getattr(captum.attr, method)(output)
    extra: dict[str, Any] = {}
    if method == "IntegratedGradients":
        extra = {"baselines": torch.zeros_like(inputs),
                 "internal_batch_size": int(options.get("n_steps", 50))}
    attribution = algorithm.attribute(inputs, **extra, **options)
    return Explanation(node_mask=attribution[0].detach())


register(ExplainerSpec("IG", _integrated_gradients, {"n_steps": 50, "derivative": "exact"},
                       source="Captum IntegratedGradients via PyG CaptumExplainer",
                       levels=_EDGES_AND_NODES, batch=_node_attribution_batch(
                           "IntegratedGradients")))


# ---------------------------------------------------------------- GNNExplainer


class BiasedGNNExplainer(GNNExplainer):  # type: ignore[misc]
    """PyG's `GNNExplainer` with the paper's edge-mask initialisation (App. H.1): every
    mask logit starts at PyG's random draw plus `init_bias`, so σ(m) ≈ 1 (0.99 at the
    default 5) and the model first sees every message nearly whole. PyG's own draw is
    centred on 0 (σ ≈ 0.5): halved messages break the exact neighbour counts of a
    compiled model, its output and gradients are 0, and nothing is learnt. A node mask
    (node level) starts the same way, for the same reason: it scales the features.

    `hard_mask=False` (GracrBench's choice) also switches off PyG's hard mask, which
    zeroes every edge (or node) whose first gradient is 0 — on a saturated truncated
    ReLU that is no statement about relevance (PyG issue 6787). Other keywords go to
    `GNNExplainer`.
    """

    def __init__(self, init_bias: float = 5.0, hard_mask: bool = False,
                 **options: Any) -> None:
        super().__init__(**options)
        self.init_bias = init_bias
        self.hard_mask = hard_mask

    def _initialize_homogeneous_masks(self, *args: Any) -> None:
        super()._initialize_homogeneous_masks(*args)
        # A node mask multiplies the features by σ(m): at σ ≈ 0.5 a compiled model's
        # counts break exactly as with halved messages, so it starts near 1 too.
        with torch.no_grad():
            for mask in (self.edge_mask, self.node_mask):
                if mask is not None:
                    mask += self.init_bias

    def _collect_homo_gradients(self) -> None:
        super()._collect_homo_gradients()
        if self.hard_mask:
            return
        if self.edge_mask is not None:
            self.hard_edge_mask = torch.ones_like(self.edge_mask, dtype=torch.bool)
        if self.node_mask is not None:
            self.hard_node_mask = torch.ones_like(self.node_mask, dtype=torch.bool)


def _gnn_explainer(subject: Subject, settings: Mapping[str, Any], seed: int,
                   hard_mask: bool = False) -> Explanation:
    algorithm = BiasedGNNExplainer(hard_mask=hard_mask, **settings)
    # A fresh module: PyG's GNNExplainer leaves its layers in a state in which a later
    # gradient explainer on the same module finds the edge mask unused (autograd error).
    # Its loss reads the target's output only, so node tasks compute just that.
    model = subject.fresh_target_module("surrogate")
    if subject.level == "node":
        # One mask entry per node and no edge mask: the node scores are what is learnt.
        return _run_pyg(subject, algorithm, model, subject.model_config("raw"),
                        node_mask_type="object", edge_mask_type=None)
    explanation = _run_pyg(subject, algorithm, model, subject.model_config("raw"))
    return Explanation(edge_mask=explanation.edge_mask)


def _gnn_explainer_hard(subject: Subject, settings: Mapping[str, Any], seed: int
                        ) -> Explanation:
    return _gnn_explainer(subject, settings, seed, hard_mask=True)


def _gnn_explainer_applies(subject: Subject) -> bool:
    """The batch path's subjects: node scores of separable graph classifiers, compiled or
    trained (`batch.separable_graph_nodes`)."""
    return separable_graph_nodes(subject)


_GNN_EXPLAINER_DEFAULTS: dict[str, Any] = {"epochs": 100, "lr": 0.01, "edge_size": 0.005, "edge_ent": 1.0,
                           "init_bias": 5.0}
_GNN_EXPLAINER_SPACE: dict[str, Space] = {"epochs": Choice((50, 100, 1000)), "lr": LogUniform(1e-4, 1e-1),
                        "edge_size": LogUniform(1e-4, 1e-1), "edge_ent": LogUniform(1e-4, 1e-1)}

register(ExplainerSpec(
    "GNNExplainer", _gnn_explainer, _GNN_EXPLAINER_DEFAULTS, space=_GNN_EXPLAINER_SPACE,
    source="PyG GNNExplainer (init bias of App. H.1, no hard mask)", levels=_EDGES_AND_NODES,
    batch=Batch(gnn_explainer_together, _gnn_explainer_applies)))

# A diagnostic beside the benchmark's GNNExplainer: PyG's hard mask left on. It zeroes
# every edge whose gradient is 0 at the first step, which on a saturated compiled model
# (CompetingRedundancy under De Morgan: every gradient is 0) makes all scores equal —
# the paper's 0.04 / 1.00 / 0.09 — whereas without it the result depends on how far the
# optimiser moves the masks (see docs/results/ablations/README.md).
register(ExplainerSpec(
    "GNNExplainer-hard", _gnn_explainer_hard, _GNN_EXPLAINER_DEFAULTS,
    space=_GNN_EXPLAINER_SPACE,
    source="PyG GNNExplainer (init bias of App. H.1) with PyG's hard mask",
    levels=_EDGES_AND_NODES))


# ---------------------------------------------------------------- GraphMask (PyG)


def graph_mask(subject: Subject, settings: Mapping[str, Any], seed: int,
               return_type: str = "raw") -> Explanation:
    """PyG's GraphMask on `subject`, told that the model's output is `return_type`: the
    benchmark's `"raw"` (module docstring), or `"probs"`, under which the prediction term
    has no gradient and only the sparsity penalty trains the gates."""
    from gracr.explainers.graphmask_pyg import (MemoisedUngatedModel,
                                                       RowSharingGraphMaskExplainer, SharedRows)

    # PyG's algorithm, minus the work it repeats every epoch (`graphmask_pyg`).
    shared: dict[int, SharedRows] = {}
    algorithm = pyg_algorithm(RowSharingGraphMaskExplainer, shared,
                              num_layers=subject.num_layers, log=False, **settings)
    model = MemoisedUngatedModel(subject.fresh_module("surrogate", narrow=False), shared)
    explanation = _run_pyg(subject, algorithm, model, subject.model_config(return_type),
                           node_mask_type="attributes")
    return Explanation(edge_mask=explanation.edge_mask)


register(ExplainerSpec(
    "GraphMask", graph_mask,
    {"epochs": 100, "lr": 0.01, "penalty_scaling": 5, "allowance": 0.03},
    space={"epochs": Choice((5, 10, 25, 50)), "lr": LogUniform(1e-5, 1e-2),
           "penalty_scaling": IntRange(1, 10), "allowance": Uniform(0.0, 0.3)},
    source="PyG GraphMaskExplainer (alters the model it explains; see GraphMask-clean)"))


# ---------------------------------------------------------------- PGMExplainer


class _TwoClass(nn.Module):
    """Shows a binary model as the two class columns [1 − p, p]."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: Tensor, edge_index: Tensor, **kwargs: Tensor) -> Tensor:
        p: Tensor = self.model(x, edge_index, **kwargs)
        return torch.cat([1.0 - p, p], dim=-1)


def _pgm_explainer(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    from torch_geometric.contrib.explain import PGMExplainer

    options = dict(settings)
    if subject.task_level == "node":
        options.pop("max_subgraph_size", None)
    elif options.get("max_subgraph_size"):
        # Table 16 searches 1..50, but a subgraph has at most the graph's other nodes:
        # PyG clamps its round-2 `top_p` to N − 1 and not its round-1 candidates, where
        # `np.argpartition(p, 50)` on a 32-node graph raises. Clamp both the same way.
        options["max_subgraph_size"] = min(int(options["max_subgraph_size"]),
                                           int(subject.x.shape[0]) - 1)
    algorithm = PGMExplainer(**options)
    model = _TwoClass(subject.module())
    config = {"mode": "multiclass_classification", "task_level": subject.task_level,
              "return_type": "probs"}
    with torch.no_grad(), warnings.catch_warnings():
        # PyG contrib calls pgmpy's deprecated `chi_square` (which calls the deprecated
        # `power_divergence`) and hands numpy objects without `__array__(copy=...)`: one
        # warning per test, thousands per instance, drowning a benchmark's log. They
        # are PyG's to fix; the results are unaffected.
        for message in ("`chi_square` is deprecated", "`power_divergence` is deprecated",
                        "__array__ implementation doesn't accept a copy keyword"):
            warnings.filterwarnings("ignore", message=re.escape(message))
        explanation = _run_pyg(subject, algorithm, model, config, node_mask_type="object",
                               edge_mask_type=None, explanation_type="phenomenon")
    p_values = np.nan_to_num(explanation.pgm_stats.detach().numpy().astype(np.float64),
                             nan=1.0)
    sources, targets = subject.edge_index.numpy()
    return Explanation(edge_mask=torch.as_tensor(
        1.0 - np.maximum(p_values[sources], p_values[targets])))


register(ExplainerSpec(
    "PGMExplainer", _pgm_explainer,
    {"num_samples": 100, "perturbation_mode": "randint", "significance_threshold": 0.05,
     "pred_threshold": 0.1, "is_perturbation_scaled": False, "max_subgraph_size": None},
    space={"num_samples": Choice((50, 100, 200, 500)),
           "perturbation_mode": Choice(("randint", "zero", "mean", "max")),
           "significance_threshold": LogUniform(1e-3, 1e-1),
           "pred_threshold": Uniform(0.0, 0.5),
           "is_perturbation_scaled": Choice((False, True)),
           "max_subgraph_size": IntRange(1, 50)},
    graph_only=frozenset({"max_subgraph_size"}),
    source="PyG contrib PGMExplainer; edge score 1 - max(p_u, p_v) (App. H.1)"))


# ---------------------------------------------------------------- Rnd


def _random(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    rng = np.random.default_rng(seed)
    if subject.level == "edge":
        coins = rng.integers(0, 2, size=subject.num_edges)
        return Explanation(edge_mask=torch.as_tensor(
            np.where(subject.receptive_field, coins, 0).astype(np.float64)))
    if subject.node_receptive_field is None:
        raise GracrError("Rnd at node level needs the subject's node receptive field "
                         "(Subject.of computes it)")
    coins = rng.integers(0, 2, size=subject.num_nodes)
    return Explanation(node_mask=torch.as_tensor(
        np.where(subject.node_receptive_field, coins, 0).astype(np.float64)))


def _graph_classifier_nodes_or_edges(subject: Subject) -> bool:
    """Rnd's batch path's subjects: compiled graph classifiers, at either level (the
    batch checks their predictions in one call, `batch.predict_together`)."""
    return subject.target is None and not subject.trained


def _random_together(subjects: Sequence[Subject], settings: Mapping[str, Any],
                     seeds: Sequence[int]) -> list[Explanation]:
    """`_random` of each subject with its own seed: its generator is its own already."""
    return [_random(subject, settings, seed) for subject, seed in zip(subjects, seeds)]


register(ExplainerSpec("Rnd", _random, {},
                       source="uniform {0, 1} on the receptive field, 0 elsewhere (§5)",
                       levels=frozenset({"edge", "node"}),
                       batch=Batch(_random_together, _graph_classifier_nodes_or_edges)))


# ---------------------------------------------------------------- any PyG ExplainerAlgorithm


def _supported_levels(algorithm: Any, explanation_type: str) -> frozenset[Level]:
    """The levels at which PyG's `supports()` accepts `algorithm`, at both task levels."""
    from torch_geometric.explain.config import ExplainerConfig, ModelConfig

    offered: set[Level] = set()
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)   # `supports()` logs an error for each refusal
    try:
        for level in LEVELS:
            try:
                for task_level in ("node", "graph"):
                    algorithm.connect(
                        ExplainerConfig(explanation_type=explanation_type, **_mask_types(level)),
                        ModelConfig(mode="binary_classification", task_level=task_level,
                                    return_type="raw"))
            except ValueError:
                continue
            offered.add(level)
    finally:
        logging.disable(previous)
    return frozenset(offered)


def register_algorithm(name: str, algorithm: type[Any],
                       defaults: Mapping[str, Any] | None = None,
                       space: Mapping[str, Space] | None = None, *,
                       levels: Sequence[Level] | None = None,
                       explanation_type: str = "model",
                       derivative: str = "surrogate",
                       needs_training: bool | None = None,
                       source: str = "") -> ExplainerSpec:
    """Register PyG `ExplainerAlgorithm` subclass `algorithm` as explainer `name`.

    Each instance is explained by `Explainer(model, algorithm(**settings),
    explanation_type, model_config=model.model_config, edge_mask_type="object")` at edge
    level, `node_mask_type="object"` at node level, on a fresh module with the surrogate
    (or `derivative="exact"`) derivative. `defaults` are the constructor's keyword
    arguments (the settings), `space` their Table-16-style tuning space. `levels`
    defaults to those PyG's `supports()` accepts. `explanation_type="phenomenon"`
    (required by e.g. `PGExplainer`) explains the model's own prediction.

    An algorithm that overrides `nn.Module.train` needs training (`needs_training`
    overrides that guess): it must have an `epochs` attribute, and it is trained on the
    first `training_instances` (a setting, default 20) positive instances of the task's
    held-out seed before it explains (module docstring).
    """
    from torch_geometric.explain import Explainer
    from torch_geometric.explain.algorithm import ExplainerAlgorithm

    if not (isinstance(algorithm, type) and issubclass(algorithm, ExplainerAlgorithm)):
        raise GracrError(f"register_algorithm('{name}', ...): {algorithm!r} is not a subclass "
                         "of torch_geometric.explain.algorithm.ExplainerAlgorithm")
    if derivative not in ("surrogate", "exact"):
        raise GracrError(f"register_algorithm('{name}', ...): derivative must be 'surrogate' "
                         f"or 'exact', got {derivative!r}")
    training = (algorithm.train is not nn.Module.train) if needs_training is None \
        else needs_training
    settings = dict(defaults or {})
    if training:
        settings.setdefault(TRAINING_INSTANCES, DEFAULT_TRAINING_INSTANCES)

    def construct(chosen: Mapping[str, Any]) -> Any:
        return pyg_algorithm(algorithm,
                             **{k: v for k, v in chosen.items() if k != TRAINING_INSTANCES})

    if levels is None:
        try:
            probe = construct(settings)
        except Exception as error:
            raise GracrError(f"register_algorithm('{name}', ...): {algorithm.__name__}"
                             f"(**defaults) raised {type(error).__name__}: {error}") from None
        levels = sorted(_supported_levels(probe, explanation_type))
        if not levels:
            raise GracrError(f"register_algorithm('{name}', ...): PyG's {algorithm.__name__} "
                             f"supports neither edge nor node masks with "
                             f"explanation_type='{explanation_type}'")

    def explain_with(instance: Any, subject: Subject) -> Explanation:
        model = subject.fresh_module(derivative)  # type: ignore[arg-type]
        return _run_pyg(subject, instance, model, subject.model_config("raw"),
                        explanation_type=explanation_type, **_mask_types(subject.level))

    def run(subject: Subject, chosen: Mapping[str, Any], seed: int) -> Explanation:
        if training:
            raise GracrError(f"{name} must be trained before it explains; the benchmark "
                             "and the tuner train it on the task's held-out seed")
        return explain_with(construct(chosen), subject)

    def train(subjects: Sequence[Subject], chosen: Mapping[str, Any], seed: int) -> ExplainFn:
        instance = construct(chosen)
        epochs = getattr(instance, "epochs", None)
        if not isinstance(epochs, int) or epochs <= 0:
            raise GracrError(f"{name}: an algorithm that needs training must have a positive "
                             f"integer `epochs`, got {epochs!r}")
        # The training subjects share one compiled model, so one module serves them all.
        model = subjects[0].fresh_module(derivative)  # type: ignore[arg-type]
        steps = []
        for subject in subjects:
            explainer = Explainer(model=model, algorithm=instance,
                                  explanation_type=explanation_type,
                                  model_config=model.model_config, **_mask_types(subject.level))
            target = explainer.get_target(explainer.get_prediction(
                subject.x, subject.edge_index, **subject.model_kwargs))
            steps.append((subject, target))
        with warnings.catch_warnings():
            # PyG's PGExplainer returns `float(loss)` of a tensor that requires grad: one
            # warning per run, PyG's to fix, the loss unaffected.
            warnings.filterwarnings("ignore", message="Converting a tensor with requires_grad")
            for epoch in range(epochs):
                for subject, target in steps:
                    instance.train(epoch, model, subject.x, subject.edge_index, target=target,
                                   index=subject.target, **subject.model_kwargs)

        def run_trained(subject: Subject, chosen: Mapping[str, Any], seed: int
                        ) -> Explanation:
            return explain_with(instance, subject)
        return run_trained

    return register(ExplainerSpec(
        name, run, settings, space=dict(space or {}),
        source=source or f"PyG {algorithm.__module__}.{algorithm.__name__} via register_algorithm",
        levels=frozenset(levels), train=train if training else None))


# ---------------------------------------------------------------- PGExplainer


def _register_pg_explainer() -> ExplainerSpec:
    from torch_geometric.explain.algorithm import PGExplainer

    # Defaults: PyG's documentation (module docstring); the space is ours, around them.
    return register_algorithm(
        "PGExplainer", PGExplainer,
        {"epochs": 30, "lr": 0.003, TRAINING_INSTANCES: DEFAULT_TRAINING_INSTANCES},
        {"epochs": Choice((10, 30, 100)), "lr": LogUniform(1e-4, 1e-1)},
        explanation_type="phenomenon",
        source="PyG PGExplainer (trained on the held-out seed; node scores from its edges)")


_register_pg_explainer()
