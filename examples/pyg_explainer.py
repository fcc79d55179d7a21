"""PyG's own `Explainer` on a compiled model, scored against the exact UPI with gracr's
metric and with PyG's `groundtruth_metrics`.

    .venv/bin/python examples/pyg_explainer.py [--task RedBlueLeaf-NC] [--size 150]
        [--instances 5] [--epochs 100] [--datasets DIR]

It loads a GracrBench dataset as a PyG `InMemoryDataset` (`GroundTruthDataset`), compiles
the task's classifier (`model.to_pyg()`: a PyG module with the surrogate backward of Eq. 9)
and explains the first `--instances` positive instances with `GNNExplainer` three ways:

* `PyG default`: `GNNExplainer(epochs=...)` as PyG ships it. Its edge-mask logits start
  around 0 (σ ≈ 0.5): every message is halved, the compiled model's exact neighbour counts
  fail, its output and gradients are 0, and PyG's hard mask then zeroes every edge.
* `paper init`: `BiasedGNNExplainer(init_bias=5.0, hard_mask=True)`, the logits started at
  +5 (σ ≈ 0.99) as in the paper (App. H.1), PyG's hard mask kept.
* `GracrBench`: `BiasedGNNExplainer(init_bias=5.0)`, the paper's start without PyG's hard
  mask: GracrBench's `GNNExplainer` at its default settings, instance for instance (same
  explainer seeds).

Each row is a mean over the instances: gracr's plausibility (precision and recall at the
threshold of best F1, §5) and PyG's `groundtruth_metrics` (threshold 0.5).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import numpy as np
import torch
from torch import Tensor
from torch_geometric.explain import Explainer
from torch_geometric.explain.algorithm import GNNExplainer
from torch_geometric.explain.metric import groundtruth_metrics

from gracr.bench.datasets import load_or_build, task_named
from gracr.explainers import BiasedGNNExplainer, explainer_seed
from gracr.bench.instances import compile_variant, variant_named
from gracr.explainers.metric import plausibility
from gracr.bench.pyg_dataset import GroundTruthDataset
from gracr.bench.report.tables import render_table

HEADERS = ["GNNExplainer", "gracr precision", "recall", "F1", "PyG precision (0.5)", "recall",
           "F1"]


Positive = tuple[int, Tensor, Tensor, "int | None", Tensor]


def positives(dataset: GroundTruthDataset, count: int) -> Iterator[Positive]:
    """The first `count` positive instances: (index, x, edge_index, target or None, UPI)."""
    index = 0
    for data in dataset:
        if "targets" in data:      # a node task: each positive target in turn
            chosen = [(int(t), mask) for t, mask in zip(data.targets, data.upi_masks())]
        else:                      # a graph task: the positive graphs
            chosen = [(None, data.upi)] if int(data.y) == 1 else []
        for target, upi_mask in chosen:
            if index == count:
                return
            yield index, data.x, data.edge_index, target, upi_mask
            index += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="RedBlueLeaf-NC")
    parser.add_argument("--seed", type=int, default=0, help="the dataset's seed (default 0)")
    parser.add_argument("--size", type=int, default=150,
                        help="dataset size: graphs (graph tasks) or positive targets (node "
                             "tasks); default 150")
    parser.add_argument("--instances", type=int, default=5, help="instances explained")
    parser.add_argument("--epochs", type=int, default=100, help="GNNExplainer epochs")
    parser.add_argument("--datasets", default=None,
                        help="the dataset store (default: the user cache folder)")
    args = parser.parse_args()

    stored = load_or_build(args.task, args.seed, args.size, args.datasets)
    dataset = GroundTruthDataset(stored)
    module = compile_variant(args.task, variant_named("main"), stored).to_pyg(surrogate=True)
    algorithms = {
        "PyG default": lambda: GNNExplainer(epochs=args.epochs),
        "paper init": lambda: BiasedGNNExplainer(init_bias=5.0, hard_mask=True,
                                                 epochs=args.epochs),
        "GracrBench": lambda: BiasedGNNExplainer(init_bias=5.0, epochs=args.epochs),
    }
    rows = []
    for name, algorithm in algorithms.items():
        ours, theirs = [], []
        for index, x, edge_index, target, upi_mask in positives(dataset, args.instances):
            torch.manual_seed(explainer_seed(args.seed, index))
            explainer = Explainer(model=module, algorithm=algorithm(), explanation_type="model",
                                  edge_mask_type="object", model_config=module.model_config)
            edge_mask = explainer(x, edge_index, index=target).edge_mask.detach()
            point = plausibility(edge_mask.numpy(), upi_mask.numpy())
            ours.append((point.precision, point.recall, point.f1))
            theirs.append(groundtruth_metrics(edge_mask, upi_mask,
                                              metrics=["precision", "recall", "f1_score"]))
        rows.append([name, *(f"{v:.2f}" for v in np.mean(ours, axis=0)),
                     *(f"{v:.2f}" for v in np.mean(theirs, axis=0))])
    kind = "targets" if task_named(args.task).kind.value == "node" else "graphs"
    print(f"{args.task} seed {args.seed} ({args.size} {kind}): the first {len(ours)} positive "
          f"instances, GNNExplainer {args.epochs} epochs; means over instances")
    print(render_table(HEADERS, rows))


if __name__ == "__main__":
    main()
