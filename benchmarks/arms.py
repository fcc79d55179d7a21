"""One explainer run several ways ("arms") on the same instances: the shared loop of
the diagnostics that patch an explainer or change its settings to test a reading of the
paper (`pgm_depth.py`, `subgraphx_value.py`, `subgraphx_search.py`,
`graphmask_return_type.py`, `graphmask_settings.py`), and the pieces other diagnostics
share (`explain_and_score`, the command line: `subgraphx_roots.py`, `instance_sample.py`)."""

from __future__ import annotations

import argparse
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable, Mapping

import numpy as np
import torch

from gracr.bench.explainers import edge_scores, explainer_named, explainer_seed, settings_for
from gracr.bench.metric import plausibility
from gracr.bench.instances import PositiveInstance, first_subjects
from gracr.bench.tables import print_table
from gracr.bench.tuning import tuned_settings

# An arm: given the instance's Subject, the context in which the explainer runs.
Arm = Callable[[Any], AbstractContextManager[Any]]


def unchanged(_: Any) -> AbstractContextManager[Any]:
    """The arm that runs the explainer as the benchmark does."""
    return nullcontext()


# Per arm, settings that replace the tuned ones (arms absent here run the tuned settings).
ArmSettings = Mapping[str, Mapping[str, Any]]


def explain_and_score(explainer: str, instance: PositiveInstance, subject: Any,
                      settings: Mapping[str, Any], seed: int) -> tuple[float, ...]:
    """Explain one positive instance of dataset `seed` as the runner does (same explainer
    seed) and score it: precision, recall, F1, CPU seconds, number of distinct scores."""
    start = time.process_time()
    scores = edge_scores(explainer, subject, settings,
                         seed=explainer_seed(seed, instance.index)).numpy()
    cpu = time.process_time() - start
    score = plausibility(scores, instance.upi)
    return score.precision, score.recall, score.f1, cpu, float(len(np.unique(scores)))


def arm_means(explainer: str, task: str, seed: int, instances: int, arms: Mapping[str, Arm],
              arm_settings: ArmSettings | None = None) -> dict[str, tuple[float, ...]]:
    """Mean precision, recall, F1, CPU seconds and number of distinct edge scores of each
    arm, over the first `instances` positives of (task, seed), with the explainer's tuned
    settings updated by the arm's `arm_settings`. Few distinct scores mean few candidate
    thresholds: a coarse explanation that the best-F1 threshold can only take in blocks."""
    spec = explainer_named(explainer)
    tuned = tuned_settings(explainer, task)
    settings = {name: settings_for(spec, {**tuned, **(arm_settings or {}).get(name, {})})
                for name in arms}
    values: dict[str, list[tuple[float, ...]]] = {name: [] for name in arms}
    for instance, subject in first_subjects(task, seed, instances):
        for name, arm in arms.items():
            with arm(subject):
                values[name].append(explain_and_score(explainer, instance, subject,
                                                      settings[name], seed))
    return {name: tuple(float(v) for v in np.mean(np.array(rows), axis=0))
            for name, rows in values.items()}


def diagnostic_parser(description: str, instances: int) -> argparse.ArgumentParser:
    """The options every diagnostic takes: `--instances` (the first N positives), `--seed`
    (the dataset seed) and `--markdown` (also save the table); callers add their own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--instances", type=int, default=instances)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None)
    return parser


def parse_diagnostic(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Parse the command line and run torch as the runner's workers do (one thread)."""
    args = parser.parse_args()
    torch.set_num_threads(1)
    return args


def compare_arms_main(explainer: str, description: str, arm_column: str,
                      arms: Mapping[str, Arm] | Callable[[str], Mapping[str, Arm]],
                      default_tasks: list[str], arm_settings: ArmSettings | None = None) -> None:
    """The command line of a diagnostic: `--tasks`, `--instances`, `--seed`, `--markdown`;
    prints one row per task and arm. `arms` may be a function of the task."""
    parser = diagnostic_parser(description, instances=20)
    parser.add_argument("--tasks", nargs="+", default=default_tasks)
    args = parse_diagnostic(parser)
    rows = []
    for task in args.tasks:
        task_arms = arms(task) if callable(arms) else arms
        means = arm_means(explainer, task, args.seed, args.instances, task_arms, arm_settings)
        for name, (p, r, f1, cpu, distinct) in means.items():
            rows.append([task, name, f"{p:.3f}", f"{r:.3f}", f"{f1:.3f}", f"{cpu:.2f}",
                         f"{distinct:.1f}"])
    print_table(f"{explainer} (tuned settings unless the arm says), seed {args.seed}, first "
                f"{args.instances} positives",
                ["task", arm_column, "precision", "recall", "F1", "CPU s", "distinct scores"],
                rows, args.markdown)
