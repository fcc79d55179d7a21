"""Explaining several subjects at once: the batch paths of the separable explainers.

An explainer whose result on a disjoint union of graphs is, per graph, its result on that
graph alone declares a `Batch` (`ExplainerSpec.batch`); `scores_together` runs it on several
subjects of one model, each with its own seed, and gives each the scores `scores` gives it
alone (up to float rounding). A compiled model's cost on a molecule is its layers' overhead,
not its arithmetic, so B molecules as one union cost about what one does
(`benchmarks/batched_explanations.py`). The per-instance loop (`gracr.bench.budget.explain_each`)
uses it for consecutive instances; it stays the one place where outcomes are made.

The batch paths here, on node scores of graph classifiers whose output on a disjoint
union is each graph's own (`separable_graph_nodes`): compiled ones, and trained ones that
declare it (`TrainedModel.separable`: the tissue study's GIN, GATv2 and CNN) in eval mode:

* Saliency, InputXGradient, IG (`node_attribution_together`): the gradient of the sum of the
  graphs' outputs with respect to one graph's features is that graph's own gradient; each
  graph's target is its own predicted class (compiled) or its logit (trained, as PyG's
  Captum bridge attributes it); IG's steps per graph, Captum's alphas and step sizes, from
  each graph's own baseline (the tissue study's IG-mean: the mean marker vector).
* GNNExplainer (`gnn_explainer_together`): PyG's objective per graph (its own mask start,
  drawn from its own seed; its own loss; their sum optimised by Adam, which is elementwise).

Explainers whose result on a graph depends on the others of a union are not batched: a
Shapley estimate (GraphSVX) samples coalitions over all of the graph's nodes, the model-free
tissue baselines and GATv2's attention rollout run on one graph's positions or attention.

Rnd's (`library`) is its per-subject run, each with its own generator already.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import torch
from torch import Tensor, nn
from torch_geometric.explain import Explanation

from gracr.errors import GracrError
from gracr.dsl.ir import Kind
from gracr.explainers.base import (ExplainerSpec, Subject, TrainedModel, derives_node_scores,
                                   scores_at_level, settings_for, spec_of)


def batches(explainer: str | ExplainerSpec, subject: Subject) -> bool:
    """Whether `explainer` explains `subject` in a batch with others (`scores_together`):
    it has a `Batch` that applies to the subject, and it gives the subject's level itself
    (node scores derived from edge scores are explained one by one)."""
    spec = spec_of(explainer)
    return (spec.batch is not None and spec.batch.applies(subject)
            and not (subject.level == "node" and derives_node_scores(spec))
            and spec.supports(subject.task))


def scores_together(explainer: str | ExplainerSpec, subjects: Sequence[Subject],
                    settings: Mapping[str, Any] | None, seeds: Sequence[int]) -> list[Tensor]:
    """`scores(explainer, subject, settings, seed)` of every subject with its own seed, in
    one run of the explainer's `Batch` (`batches` must hold for each, and they must share
    one model): the same scores up to float rounding, for a fraction of the cost."""
    spec = spec_of(explainer)
    if len(seeds) != len(subjects):
        raise GracrError(f"scores_together: {len(seeds)} seeds for {len(subjects)} subjects")
    if not subjects:
        return []
    refused = [s for s in subjects if not batches(spec, s)]
    if refused or spec.batch is None:
        raise GracrError(f"{spec.name} does not explain these subjects in a batch")
    if any(s.model is not subjects[0].model for s in subjects):
        raise GracrError("scores_together: the subjects of a batch share one model")
    explanations = spec.batch.run(subjects, settings_for(spec, settings), seeds)
    if len(explanations) != len(subjects):
        raise GracrError(f"{spec.name}'s batch returned {len(explanations)} explanations "
                         f"for {len(subjects)} subjects")
    return [scores_at_level(spec.name, subject, explanation)
            for subject, explanation in zip(subjects, explanations)]


def separable_graph_nodes(subject: Subject) -> bool:
    """Whether `subject` asks for node scores of a graph classifier whose output on a
    disjoint union of graphs is each graph's own: a compiled one (it pools each graph of
    `batch` on its own by construction), or a trained one that declares it
    (`TrainedModel.separable`) and is in eval mode throughout (a layer in training mode,
    batch norm's batch statistics, would mix the graphs of a union)."""
    if subject.level != "node" or subject.target is not None:
        return False
    model = subject.model
    if not isinstance(model, TrainedModel):
        return True
    return (model.separable and model.kind is Kind.GRAPH
            and not any(layer.training for layer in model.module.modules()))


@dataclass(frozen=True)
class DisjointUnion:
    """Several graphs as one disjoint graph, graph-major (graph g's node v is
    `offsets[g] + v`): `x`, `edge_index`, `batch` (each node's graph), the edge types if
    the model has relations, the edge attributes if a trained model reads them, and
    `offsets` (`len(graphs) + 1` entries, the last the total node count). A separable
    model (`separable_graph_nodes`) pools each graph of `batch` on its own, so its outputs
    on the union are the graphs' own, in order."""

    x: Tensor
    edge_index: Tensor
    batch: Tensor
    edge_type: Tensor | None
    offsets: list[int]
    edge_attr: Tensor | None = None

    @property
    def model_kwargs(self) -> dict[str, Tensor]:
        kwargs = {} if self.edge_type is None else {"edge_type": self.edge_type}
        if self.edge_attr is not None:
            kwargs["edge_attr"] = self.edge_attr
        return kwargs

    def split(self, values: Tensor) -> list[Tensor]:
        """Per-node `values` of the union (first dimension), one piece per graph."""
        return [values[start:end] for start, end in zip(self.offsets, self.offsets[1:])]


def disjoint_union(subjects: Sequence[Subject], x: Sequence[Tensor] | None = None
                   ) -> DisjointUnion:
    """The subjects' graphs as one `DisjointUnion`, with node features `x` (one matrix per
    subject; default their own)."""
    features = [s.x for s in subjects] if x is None else list(x)
    offsets = [0]
    for subject in subjects:
        offsets.append(offsets[-1] + subject.num_nodes)
    edges = torch.cat([s.edge_index + offset for s, offset in zip(subjects, offsets)], dim=1)
    graph_of = torch.repeat_interleave(torch.arange(len(subjects)),
                                       torch.tensor([s.num_nodes for s in subjects]))
    typed = [s.edge_type for s in subjects]
    edge_type = None if any(t is None for t in typed) else torch.cat(
        [t for t in typed if t is not None])
    attributes = [s.edge_attr for s in subjects]
    edge_attr = None if any(a is None for a in attributes) else torch.cat(
        [a for a in attributes if a is not None])
    return DisjointUnion(torch.cat(features, dim=0), edges, graph_of, edge_type, offsets,
                         edge_attr)


def predict_together(subjects: Sequence[Subject]) -> None:
    """Each subject's `prediction`, from one module call on the union of their graphs,
    when they are graph classifiers of one separable model (`separable_graph_nodes`):
    what each computes alone (its output at the graph; a trained model's sigmoid of its
    logit), for one call's overhead. Others (a node task's output is per node) are left
    to compute their own."""
    if not subjects:
        return
    first = subjects[0]
    if any(s.target is not None or s.model is not first.model
           or not separable_graph_nodes(replace(s, level="node")) for s in subjects):
        return
    union = disjoint_union(subjects)
    with torch.no_grad():
        out = first.module()(union.x, union.edge_index, batch=union.batch,
                             **union.model_kwargs)
    for subject, value in zip(subjects, out[:, 0].tolist()):
        # `prediction` is a cached property: this is the value it would compute.
        vars(subject)["prediction"] = (float(torch.sigmoid(torch.tensor(float(value))))
                                       if subject.trained else float(value))


# The nodes of one module call of IG's batch path (its graphs x `n_steps` copies). IG's
# calls are large already (50 copies of a molecule), and past a few thousand nodes a
# call's activations leave the cache: on P01 (39 layers) a batch of 32 molecules costs
# 0.050 CPU s each at 1 500 nodes a call, 0.042 at 3 000, 0.059 at 6 000 and 0.21 at
# 50 000 (3 GB), against 0.079 one molecule a call. A graph whose steps alone exceed it
# has its steps cut: a 300-cell tissue sample on GIN costs 0.035 CPU s in calls of 3 000
# nodes, 0.26 with its 50 steps (15 000 nodes) and 15 other samples' in one call.
IG_UNION_NODES = 3000


def node_attribution_together(subjects: Sequence[Subject], method: str, derivative: str,
                               options: Mapping[str, Any],
                               baselines: Sequence[Tensor] | None = None
                               ) -> list[Explanation]:
    """`_node_attribution` of each subject (graph classifiers of one separable model,
    `separable_graph_nodes`), for all of them at once: the model's output on the disjoint
    union of their graphs is each graph's own output, so the gradient of their sum with
    respect to one graph's features is that graph's own gradient. A compiled graph's
    target is its own predicted class (p, or 1 - p for a negative); a trained graph's is
    its logit, as PyG's Captum bridge attributes a trained model's output (declared a
    regression, `Subject.model_config`). IG takes Captum's alphas and step sizes for its
    `method` and `n_steps`, from each subject's own `baselines` matrix (default 0), and
    sums each graph's scaled step gradients in Captum's order, its steps and graphs in
    calls of about `IG_UNION_NODES` nodes. The same attributions as one call per subject,
    up to float rounding (`tests/test_batched_explanations.py`,
    `tests/test_tissue_batches.py`)."""
    model = subjects[0].module(derivative)  # type: ignore[arg-type]
    whole = disjoint_union(subjects)
    logit = subjects[0].trained
    with torch.no_grad():
        predicted = model(whole.x, whole.edge_index, batch=whole.batch,
                          **whole.model_kwargs)[:, 0] > 0.5

    def gradients(group: Sequence[int], features: Sequence[Sequence[Tensor]], copies: int
                  ) -> list[Tensor]:
        """The gradient of each of `copies` feature matrices per subject in `group`
        (subject-major), with respect to its own graph's target output."""
        union = disjoint_union([subjects[g] for g in group for _ in range(copies)],
                               [f for matrices in features for f in matrices])
        inputs = union.x.detach().requires_grad_()
        out = model(inputs, union.edge_index, batch=union.batch, **union.model_kwargs)[:, 0]
        chosen = predicted[torch.tensor(group).repeat_interleave(copies)]
        target = out if logit else torch.where(chosen, out, 1 - out)
        (grad,) = torch.autograd.grad(torch.unbind(target), inputs)
        return union.split(grad)

    if method != "IntegratedGradients":
        if baselines is not None:
            raise GracrError(f"Captum's {method} takes no baseline")
        grads = gradients(range(len(subjects)), [[s.x] for s in subjects], 1)
        if method == "Saliency":
            attributions = [g.abs() if options.get("abs", True) else g for g in grads]
        elif method == "InputXGradient":
            attributions = [s.x * g for s, g in zip(subjects, grads)]
        else:
            raise GracrError(f"no batch path for Captum's {method}")
        return [Explanation(node_mask=a.detach()) for a in attributions]

    from captum.attr._utils.approximation_methods import approximation_parameters

    unknown = set(options) - {"n_steps", "method"}
    if unknown:
        raise GracrError(f"IG's batch path takes n_steps and method, not {sorted(unknown)}")
    n_steps = int(options.get("n_steps", 50))
    step_sizes_of, alphas_of = approximation_parameters(str(options.get("method",
                                                                        "gausslegendre")))
    step_sizes, alphas = step_sizes_of(n_steps), alphas_of(n_steps)
    weights = torch.tensor(step_sizes).float().view(n_steps, 1)
    groups: list[list[int]] = []
    nodes = 0
    for index, subject in enumerate(subjects):
        if not groups or nodes + n_steps * subject.num_nodes > IG_UNION_NODES:
            groups.append([])
            nodes = 0
        groups[-1].append(index)
        nodes += n_steps * subject.num_nodes
    starts = ([torch.zeros_like(s.x) for s in subjects] if baselines is None
              else list(baselines))
    if len(starts) != len(subjects) or any(b.shape != s.x.shape
                                           for b, s in zip(starts, subjects)):
        raise GracrError("IG's batch path takes one baseline matrix per subject, shaped "
                         "as its features")
    results: list[Explanation] = []
    for group in groups:
        # Captum's scaled features (`_node_attribution`'s baseline 0, or the subject's
        # own), per subject.
        scaled = [[starts[g] + alpha * (subjects[g].x - starts[g]) for alpha in alphas]
                  for g in group]
        alone = subjects[group[0]].num_nodes
        if len(group) == 1 and n_steps * alone > IG_UNION_NODES:
            # A graph whose steps alone exceed a call's nodes (a 300-cell tissue sample):
            # its steps in several calls, their gradients in Captum's order all the same.
            per_call = max(1, IG_UNION_NODES // alone)
            grads = [grad for first in range(0, n_steps, per_call)
                     for grad in gradients(group, [scaled[0][first:first + per_call]],
                                           len(scaled[0][first:first + per_call]))]
        else:
            grads = gradients(group, scaled, n_steps)
        for position, g in enumerate(group):
            x = subjects[g].x
            steps = torch.stack(grads[position * n_steps:(position + 1) * n_steps])
            total = (steps.contiguous().view(n_steps, -1) * weights).view(
                n_steps, *x.shape).sum(dim=0)
            results.append(Explanation(node_mask=(total * (x - starts[g])).detach()))
    return results




def gnn_explainer_together(subjects: Sequence[Subject], settings: Mapping[str, Any],
                            seeds: Sequence[int]) -> list[Explanation]:
    """`_gnn_explainer` at node level (hard mask off) of graph classifiers of one separable
    model (`separable_graph_nodes`; a trained one's output is its logit, which PyG's
    "raw" binary objective reads as a compiled one's), all at once, each graph with PyG's
    objective of its own: a graph's node mask starts as PyG draws it for that graph alone
    (`randn(N, 1) * 0.1`, from a generator seeded with the graph's own seed, as
    `seed_everything` seeds the draw of one instance) plus `init_bias`; the loss is the
    sum over graphs of each graph's PyG loss (BCE with logits of its output against its
    predicted class, then, from the second epoch, when PyG has its hard mask,
    `node_feat_size` x the mean of its σ(m) and `node_feat_ent` x the mean entropy of its
    σ(m)). The union's output is each graph's own, so a graph's gradient is its own
    loss's, and Adam, elementwise, moves each graph's entries along the trajectory they
    follow alone: the same masks up to float rounding (`tests/test_batched_explanations.py`,
    `tests/test_tissue_batches.py`)."""
    options = dict(settings)
    epochs, lr, init_bias = int(options.pop("epochs")), float(options.pop("lr")), \
        float(options.pop("init_bias"))
    from torch_geometric.explain.algorithm import GNNExplainer

    coeffs = dict(GNNExplainer.default_coeffs)
    coeffs.update(options)
    model = subjects[0].module("surrogate")
    union = disjoint_union(subjects)
    with torch.no_grad():
        # PyG's target of a binary "raw" model: the class its output's sign says.
        target = (model(union.x, union.edge_index, batch=union.batch,
                        **union.model_kwargs)[:, 0] > 0).float()
    draws = []
    for subject, seed in zip(subjects, seeds):
        generator = torch.Generator().manual_seed(seed)
        draws.append(torch.randn(subject.num_nodes, 1, generator=generator) * 0.1 + init_bias)
    mask = nn.Parameter(torch.cat(draws))
    # Each node's share of its graph's means: 1 / (its graph's node count).
    counts = torch.tensor([s.num_nodes for s in subjects], dtype=torch.float32)
    share = (1.0 / counts)[union.batch].view(-1, 1)
    optimizer = torch.optim.Adam([mask], lr=lr)
    eps = coeffs["EPS"]
    for epoch in range(epochs):
        optimizer.zero_grad()
        out = model(union.x * mask.sigmoid(), union.edge_index, batch=union.batch,
                    **union.model_kwargs)[:, 0]
        loss = nn.functional.binary_cross_entropy_with_logits(out, target, reduction="sum")
        if epoch > 0:
            m = mask.sigmoid()
            entropy = -m * torch.log(m + eps) - (1 - m) * torch.log(1 - m + eps)
            loss = loss + (share * (coeffs["node_feat_size"] * m
                                    + coeffs["node_feat_ent"] * entropy)).sum()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
    values = mask.detach().sigmoid()
    return [Explanation(node_mask=part) for part in union.split(values)]
