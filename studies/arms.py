"""The shared loop of the studies that run one explainer several ways ("arms") on the same
instances, and the pieces other studies share (`explain_and_score`, the command line).

An arm is a function with an explainer's signature, `(subject, settings, seed) -> [E]
edge scores`: the registered explainer (`registered`), or the same steps with one part
replaced through the library's own seams (a subclass passed in, a parameter, another
field), never by patching the library. Users: `subgraphx_value.py`,
`subgraphx_search.py`, `graphmask_return_type.py`, `graphmask_settings.py`,
`rnd_field.py`; `explain_and_score` and the command line also serve
`subgraphx_roots.py` and `instance_sample.py`."""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable, Mapping

import numpy as np
import torch
from torch import Tensor

from gracr.explainers import edge_scores, explainer_named, explainer_seed, settings_for
from gracr.explainers.base import Subject, seed_everything
from gracr.explainers.subgraphx import (
    CoalitionValue,
    SubgraphSearch,
    coalition_edge_scores,
    computation_depth,
    computation_graph,
    search_settings,
)
from gracr.bench.instances import ExplainedInstance, first_subjects
from gracr.explainers.metric import plausibility
from gracr.bench.report.tables import print_table
from gracr.bench.tuning import tuned_settings

# A study arm: one way to explain a subject, with an explainer's signature.
StudyArm = Callable[[Subject, Mapping[str, Any], int], Tensor]


def registered(explainer: str) -> StudyArm:
    """The arm that runs the explainer as the benchmark does."""
    def run(subject: Subject, settings: Mapping[str, Any], seed: int) -> Tensor:
        return edge_scores(explainer, subject, settings, seed)
    return run


def subgraphx_variant(value: type[CoalitionValue] = CoalitionValue,
                      search: type[SubgraphSearch] = SubgraphSearch,
                      extra_depth: int = 0) -> StudyArm:
    """SubgraphX as `explain_subgraph` runs it, with another coalition value, another
    search (a subclass, e.g. another pruning rule) or a root `extra_depth` hops deeper."""
    def run(subject: Subject, settings: Mapping[str, Any], seed: int) -> Tensor:
        graph = computation_graph(subject, computation_depth(subject, settings) + extra_depth)
        searched = search(graph, value(graph, subject.compiled), search_settings(settings),
                          np.random.default_rng(seed))
        searched.run()
        chosen = searched.best(int(settings["max_nodes"]))
        return coalition_edge_scores(subject, graph, chosen.coalition)
    return run


def summary(doc: str | None) -> str:
    """A study's first docstring paragraph on one line: its `--help` description."""
    return " ".join((doc or "").split("\n\n")[0].split())


# Per arm, settings that replace the tuned ones (arms absent here run the tuned settings).
ArmSettings = Mapping[str, Mapping[str, Any]]


def explain_and_score(arm: StudyArm, instance: ExplainedInstance, subject: Subject,
                      settings: Mapping[str, Any], seed: int) -> tuple[float, ...]:
    """Explain one positive instance of dataset `seed` with `arm`, seeded as the runner
    seeds the explainer, and score it: precision, recall, F1, CPU seconds, number of
    distinct scores."""
    start = time.process_time()
    explainer_run_seed = explainer_seed(seed, instance.index)
    seed_everything(explainer_run_seed)
    scores = torch.as_tensor(arm(subject, settings, explainer_run_seed)).detach().to(
        torch.float64).reshape(-1).numpy()
    cpu = time.process_time() - start
    score = plausibility(scores, instance.upi)
    return score.precision, score.recall, score.f1, cpu, float(len(np.unique(scores)))


def arm_means(explainer: str, task: str, seed: int, instances: int,
              arms: Mapping[str, StudyArm], arm_settings: ArmSettings | None = None
              ) -> dict[str, tuple[float, ...]]:
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
            values[name].append(explain_and_score(arm, instance, subject, settings[name],
                                                  seed))
    return {name: tuple(float(v) for v in np.mean(np.array(rows), axis=0))
            for name, rows in values.items()}


def diagnostic_parser(description: str, instances: int) -> argparse.ArgumentParser:
    """The options every study takes: `--instances` (the first N positives), `--seed`
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
                      arms: Mapping[str, StudyArm] | Callable[[str], Mapping[str, StudyArm]],
                      default_tasks: list[str], arm_settings: ArmSettings | None = None) -> None:
    """The command line of a study: `--tasks`, `--instances`, `--seed`, `--markdown`;
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
