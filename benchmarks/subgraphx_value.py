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

import argparse
import contextlib
from unittest import mock

import numpy as np
import numpy.typing as npt
import torch
from arms import Arm, arm_means

from gracr.bench.explainers.subgraphx import CoalitionValue
from gracr.bench.tables import print_table


def _softmax_of_one_column(_: CoalitionValue, present: npt.NDArray[np.bool_]
                           ) -> npt.NDArray[np.float64]:
    return np.ones(present.shape[0], dtype=np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=["Redundancy", "CompetingRedundancy"])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the runner's workers
    arms: dict[str, Arm] = {
        "model probability (ours)": lambda _: contextlib.nullcontext(),
        "constant 1 (one-column softmax)":
            lambda _: mock.patch.object(CoalitionValue, "__call__", _softmax_of_one_column)}
    rows = []
    for task in args.tasks:
        means = arm_means("SubgraphX", task, args.seed, args.instances, arms)
        for name, (p, r, f1, cpu) in means.items():
            rows.append([task, name, f"{p:.3f}", f"{r:.3f}", f"{f1:.3f}", f"{cpu:.2f}"])
    headers = ["task", "coalition value", "precision", "recall", "F1", "CPU s"]
    print_table(f"SubgraphX (tuned settings), seed {args.seed}, first {args.instances} "
                "positives", headers, rows, args.markdown)


if __name__ == "__main__":
    main()
