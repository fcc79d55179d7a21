"""Question: do the paper's all-equal PyG GraphMask rows come from `return_type="probs"`? On
Redundancy yes: `docs/results/gracrbench/graphmask-diagnostics.md`.

    .venv/bin/python studies/graphmask_return_type.py [--tasks ...] [--instances 20]
        [--seed 0] [--markdown FILE]

Our compiled models output a probability that is exactly 0 or 1. We hand them to PyG's
`GraphMaskExplainer` with `return_type="raw"` (`gracr/explainers/library.py`): with
`"probs"` its loss is binary cross-entropy at an output of exactly 1, whose gradient torch
computes as 0, so the prediction term never moves a gate and only the sparsity penalty
trains them. The paper's PyG GraphMask rows on the redundancy tasks, precision 0.04 and
recall 1.00, are what an explanation whose scores are all equal gets (every edge selected).
This runs the benchmark's GraphMask (tuned settings) both ways on the same instances
(`graph_mask`'s `return_type`) and prints precision, recall, F1 and CPU seconds. The
benchmark keeps `raw`.
"""

from __future__ import annotations

from typing import Any, Mapping

from arms import StudyArm, compare_arms_main, registered, summary
from torch import Tensor

from gracr.explainers.base import Subject
from gracr.explainers.library import graph_mask


def told_probs(subject: Subject, settings: Mapping[str, Any], seed: int) -> Tensor:
    """The benchmark's GraphMask with the model's output declared `probs`."""
    edges: Tensor = graph_mask(subject, settings, seed, return_type="probs").edge_mask
    return edges


def main() -> None:
    arms: dict[str, StudyArm] = {"raw (ours)": registered("GraphMask"), "probs": told_probs}
    compare_arms_main("GraphMask", summary(__doc__), "return_type", arms,
                      ["Redundancy", "CompetingRedundancy"])


if __name__ == "__main__":
    main()
