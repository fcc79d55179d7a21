"""Runs cut into chunks (`gracr.bench.runner.plan_chunks`): how a run's work is cut and
ordered, and that one worker, two worker processes and Ray give the same records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gracr.bench.datasets import load_or_build
from gracr.bench.instances import positive_instances
from gracr.bench.runner import (CHUNKS_PER_WORKER, RELATIVE_COST, UNLISTED_COST, Pending,
                                estimated_cost, plan_chunks, plan_jobs, run)

SIZES: dict[str, int | None] = {"Redundancy": 12, "Majority1Hop": 6}
TIMINGS = ("cpu_seconds", "wall_seconds")


def _datasets(tmp_path: Path) -> dict[tuple[Any, ...], Any]:
    store = str(tmp_path / "datasets")
    return {("dataset", task, 0, size, store): load_or_build(task, 0, size, store,
                                                             progress=False)
            for task, size in SIZES.items()}


def _pending(tmp_path: Path, explainers: list[str], limit: int,
             done: frozenset[int] = frozenset()) -> list[Pending]:
    jobs = plan_jobs(["Redundancy"], ["main"], explainers, [0], limit, 60.0, SIZES,
                     str(tmp_path / "datasets"), settings="default")
    return [Pending(job, done, tuple(i for i in range(limit) if i not in done))
            for job in jobs]


def test_the_estimate_is_the_explainers_cost_times_the_edges() -> None:
    assert estimated_cost("Saliency", 10) == 10 * RELATIVE_COST["Saliency"]
    assert estimated_cost("SubgraphX", 10) > estimated_cost("Saliency", 10)
    assert estimated_cost("SomePlugin", 3) == 3 * UNLISTED_COST
    assert estimated_cost("Saliency", 0) == RELATIVE_COST["Saliency"]   # an edgeless graph


def test_chunks_cover_each_instance_left_once_in_order(tmp_path: Path) -> None:
    datasets = _datasets(tmp_path)
    positives = sum(1 for _ in positive_instances(next(iter(datasets.values()))))
    limit = min(positives, 8)
    assert limit >= 6
    pending = _pending(tmp_path, ["Saliency"], limit, done=frozenset({1, 4}))
    chunks = plan_chunks(pending, datasets, workers=2)
    assert 2 <= len(chunks) <= 2 * CHUNKS_PER_WORKER + len(pending)
    covered = [i for chunk in chunks for i in range(chunk.job.start, chunk.job.limit)
               if i not in chunk.done]
    assert covered == [i for i in range(limit) if i not in {1, 4}]
    for chunk in chunks:
        assert chunk.done == {1, 4} & set(range(chunk.job.start, chunk.job.limit))
        assert chunk.job.start not in {1, 4}   # a chunk starts at an instance left


def test_chunks_shrink_along_the_run_and_it_ends_on_single_instances(tmp_path: Path) -> None:
    # Guided self-scheduling: each chunk closes at the estimated work left over twice the
    # workers, so a long job's first chunk holds several instances and its last one.
    datasets = _datasets(tmp_path)
    positives = sum(1 for _ in positive_instances(next(iter(datasets.values()))))
    limit = min(positives, 8)
    assert limit >= 6
    chunks = plan_chunks(_pending(tmp_path, ["SubgraphX"], limit), datasets, workers=2)
    sizes = [chunk.job.limit - chunk.job.start for chunk in chunks]
    assert sum(sizes) == limit
    assert sizes[0] >= 2 and sizes[-1] == 1 and sizes[0] > sizes[-1], sizes


def test_one_worker_is_one_chunk_per_short_job_and_longer_jobs_come_first(
        tmp_path: Path) -> None:
    datasets = _datasets(tmp_path)
    pending = _pending(tmp_path, ["Saliency", "SubgraphX"], 3)
    chunks = plan_chunks(pending, datasets, workers=2)
    # SubgraphX's job, ~200x Saliency's per instance, is cut and comes first; Saliency's
    # comes last (cut by its count of instances left, so the run ends on single ones).
    names = [chunk.job.explainer for chunk in chunks]
    first = names.index("Saliency")
    assert set(names[:first]) == {"SubgraphX"} and set(names[first:]) == {"Saliency"}
    assert first >= 2
    starts = [chunk.job.start for chunk in chunks if chunk.job.explainer == "SubgraphX"]
    assert starts == sorted(starts)   # a job's chunks in the order of its instances


def _records(folder: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Each record, its timings left out, by its key; fails on a duplicate."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in (folder / "results.jsonl").read_text().splitlines()[1:]:
        record = json.loads(line)
        for name in TIMINGS:
            record.pop(name)
        key = (record["task"], record["explainer"], record["seed"], record["instance"])
        assert key not in found, f"duplicate record {key}"
        found[key] = record
    return found


@pytest.mark.big
def test_one_worker_two_workers_and_ray_give_the_same_records(tmp_path: Path) -> None:
    """Every field but the timings, for explainers that draw from their seed (Rnd,
    GNNExplainer) and one that does not (Saliency), graph and node tasks, one run resumed
    with two workers halfway."""
    store = str(tmp_path / "datasets")

    def jobs(limit: int) -> Any:
        return plan_jobs(["Redundancy", "Majority1Hop"], ["main"],
                         ["Saliency", "Rnd", "GNNExplainer"], [0], limit, 60.0, SIZES,
                         store, settings="default")

    run(jobs(4), str(tmp_path / "one"), progress=False)
    run(jobs(4), str(tmp_path / "two"), workers=2, progress=False)
    run(jobs(2), str(tmp_path / "resumed"), workers=2, progress=False)
    run(jobs(4), str(tmp_path / "resumed"), workers=2, progress=False)
    one = _records(tmp_path / "one")
    assert len(one) == 2 * 3 * 4
    assert _records(tmp_path / "two") == one
    assert _records(tmp_path / "resumed") == one
    try:
        import ray  # noqa: F401
    except ImportError:
        pytest.skip("Ray is not installed: the pool's records agree, Ray's are not compared")
    run(jobs(4), str(tmp_path / "ray"), workers=2, progress=False, engine="ray")
    assert _records(tmp_path / "ray") == one


SPIN = """
import torch
from torch_geometric.explain import Explanation
from gracr.explainers import ExplainerSpec, register


def spin(subject, settings, seed):
    while True:   # until the CPU budget runs out
        torch.ones(100).sum()


register(ExplainerSpec("Spin", spin, {}))
"""


@pytest.mark.big
def test_an_out_of_time_instance_halts_its_seed_across_chunks(tmp_path: Path) -> None:
    from gracr.explainers import EXPLAINERS, load_plugins

    plugin = tmp_path / "spin.py"
    plugin.write_text(SPIN)
    load_plugins([str(plugin)])
    try:
        jobs = plan_jobs(["Redundancy", "Majority1Hop"], ["main"], ["Spin"], [0], 6, 0.3,
                         SIZES, str(tmp_path / "datasets"))
        run(jobs, str(tmp_path / "out"), workers=2, progress=False)
        first = _records(tmp_path / "out")
        by_job: dict[str, set[int]] = {}
        for (task, _, _, instance), record in first.items():
            assert record["status"] == "oot"
            by_job.setdefault(task, set()).add(instance)
        # Each seed halts at its first instance; of its later chunks, only those already
        # started when its out-of-time record arrived are recorded (never all six).
        assert len(by_job) == 2
        assert all(0 in found and len(found) < 6 for found in by_job.values()), by_job
        run(jobs, str(tmp_path / "out"), workers=2, progress=False)
        assert _records(tmp_path / "out") == first   # a rerun explains nothing more
    finally:
        EXPLAINERS.pop("Spin")
