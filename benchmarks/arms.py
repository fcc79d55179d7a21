"""One explainer run several ways ("arms") on the same instances: the shared loop of
the diagnostics that patch an explainer to test a reading of the paper
(`pgm_depth.py`, `subgraphx_value.py`)."""

from __future__ import annotations

import argparse
import time
from contextlib import AbstractContextManager
from typing import Any, Callable, Mapping

import numpy as np
import torch

from gracr.bench.explainers import edge_scores, explainer_named, settings_for
from gracr.bench.metric import plausibility
from gracr.bench.runner import first_subjects
from gracr.bench.tables import print_table
from gracr.bench.tuning import tuned_settings

# An arm: given the instance's Subject, the context in which the explainer runs.
Arm = Callable[[Any], AbstractContextManager[Any]]


def arm_means(explainer: str, task: str, seed: int, instances: int,
              arms: Mapping[str, Arm]) -> dict[str, tuple[float, float, float, float]]:
    """Mean precision, recall, F1 and CPU seconds of each arm, over the first
    `instances` positives of (task, seed), with the explainer's tuned settings."""
    settings = settings_for(explainer_named(explainer), tuned_settings(explainer, task))
    values: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in arms}
    for instance, subject in first_subjects(task, seed, instances):
        for name, arm in arms.items():
            start = time.process_time()
            with arm(subject):
                scores = edge_scores(explainer, subject, settings, seed=instance.index)
            score = plausibility(scores.numpy(), instance.upi)
            values[name].append((score.precision, score.recall, score.f1,
                                 time.process_time() - start))
    means = {}
    for name, rows in values.items():
        p, r, f1, cpu = (float(v) for v in np.mean(np.array(rows), axis=0))
        means[name] = (p, r, f1, cpu)
    return means


def compare_arms_main(explainer: str, description: str, arm_column: str,
                      arms: Mapping[str, Arm] | Callable[[str], Mapping[str, Arm]],
                      default_tasks: list[str]) -> None:
    """The command line of a diagnostic: `--tasks`, `--instances`, `--seed`, `--markdown`;
    prints one row per task and arm. `arms` may be a function of the task."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tasks", nargs="+", default=default_tasks)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the runner's workers
    rows = []
    for task in args.tasks:
        task_arms = arms(task) if callable(arms) else arms
        means = arm_means(explainer, task, args.seed, args.instances, task_arms)
        for name, (p, r, f1, cpu) in means.items():
            rows.append([task, name, f"{p:.3f}", f"{r:.3f}", f"{f1:.3f}", f"{cpu:.2f}"])
    print_table(f"{explainer} (tuned settings), seed {args.seed}, first {args.instances} "
                "positives", ["task", arm_column, "precision", "recall", "F1", "CPU s"], rows,
                args.markdown)
