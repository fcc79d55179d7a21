"""PyG GraphMask told `raw` (ours) against `probs`: the paper's all-equal GraphMask rows?

    .venv/bin/python benchmarks/graphmask_return_type.py [--tasks ...] [--instances 20]
        [--seed 0] [--markdown FILE]

Our compiled models output a probability that is exactly 0 or 1. We hand them to PyG's
`GraphMaskExplainer` with `return_type="raw"` (`gracr/bench/explainers/library.py`): with
`"probs"` its loss is binary cross-entropy at an output of exactly 1, whose gradient torch
computes as 0, so the prediction term never moves a gate and only the sparsity penalty
trains them. The paper's PyG GraphMask rows on the redundancy tasks, precision 0.04 and
recall 1.00, are what an explanation whose scores are all equal gets (every edge selected).
This runs the benchmark's GraphMask (tuned settings) both ways on the same instances and
prints precision, recall, F1 and CPU seconds. A diagnostic, not a change to the explainer.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

from arms import Arm, compare_arms_main

from gracr.bench.explainers.base import Subject


def _told(return_type: str) -> Arm:
    def model_config(subject: Subject, _: str = "probs") -> dict[str, str]:
        return {"mode": "binary_classification", "task_level": subject.task_level,
                "return_type": return_type}

    def arm(_: Any) -> Any:
        return mock.patch.object(Subject, "model_config", model_config)
    return arm


def main() -> None:
    arms = {"raw (ours)": _told("raw"), "probs": _told("probs")}
    compare_arms_main("GraphMask", __doc__.splitlines()[0], "return_type", arms,
                      ["Redundancy", "CompetingRedundancy"])


if __name__ == "__main__":
    main()
