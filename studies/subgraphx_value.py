"""Question: does a constant coalition value (a softmax over the model's one output column)
give the paper's SubgraphX Redundancy rows? No: `docs/results/gracrbench/subgraphx-settings.md`.

    .venv/bin/python studies/subgraphx_value.py [--tasks ...] [--instances 20] [--seed 0]
        [--markdown FILE]

The implementation the paper ran (GraphXAI's SubgraphX) values a coalition as
`softmax(logits)[:, target_class]`. A compiled model has one output column (the
probability of the positive class), and a softmax over one column is 1 whatever the
input: if the paper's models were shown to SubgraphX that way, every coalition had
the same value, every Shapley score was 0, and the search returned its smallest
explored coalition. The hypothesis is tempting because the paper's Redundancy and
CompetingRedundancy rows (the same graphs and UPIs, different models) are identical,
0.19 / 0.69 / 0.15, with a recall far above ours.

This runs the benchmark's SubgraphX (tuned settings) twice on the same instances:
with its value (the model's probability at the target) and with the value held at
1 (`OneColumnSoftmax`, a `CoalitionValue` subclass handed to the search). The
explainer itself is unchanged.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from arms import StudyArm, compare_arms_main, registered, subgraphx_variant, summary

from gracr.explainers.subgraphx import CoalitionValue


class OneColumnSoftmax(CoalitionValue):
    """The value a softmax over a single output column gives every coalition: 1."""

    def __call__(self, present: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
        return np.ones(present.shape[0], dtype=np.float64)


def main() -> None:
    arms: dict[str, StudyArm] = {
        "model probability (ours)": registered("SubgraphX"),
        "constant 1 (one-column softmax)": subgraphx_variant(value=OneColumnSoftmax)}
    compare_arms_main("SubgraphX", summary(__doc__), "coalition value", arms,
                      ["Redundancy", "CompetingRedundancy"])


if __name__ == "__main__":
    main()
