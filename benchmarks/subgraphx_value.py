"""SubgraphX's coalition value: ours against a constant, the paper's suspected setup.

    .venv/bin/python benchmarks/subgraphx_value.py [--tasks ...] [--instances 20] [--seed 0]
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
1. A diagnostic, not a change to the explainer. Its answer (session 6, 10
instances): the constant value gives 0.05 / 1.00 / 0.09 on both tasks, the smallest
coalition never holding a UPI edge, so it does not reproduce the paper's row either.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import numpy.typing as npt
from arms import Arm, compare_arms_main, unchanged

from gracr.bench.explainers.subgraphx import CoalitionValue


def _softmax_of_one_column(_: CoalitionValue, present: npt.NDArray[np.bool_]
                           ) -> npt.NDArray[np.float64]:
    return np.ones(present.shape[0], dtype=np.float64)


def main() -> None:
    arms: dict[str, Arm] = {
        "model probability (ours)": unchanged,
        "constant 1 (one-column softmax)":
            lambda _: mock.patch.object(CoalitionValue, "__call__", _softmax_of_one_column)}
    compare_arms_main("SubgraphX", __doc__.splitlines()[0], "coalition value", arms,
                      ["Redundancy", "CompetingRedundancy"])


if __name__ == "__main__":
    main()
