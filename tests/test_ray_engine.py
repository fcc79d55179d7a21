"""`--engine ray`: the same records as the process pool, resumable from one to the other,
App. H's OOT rule, and a worker's failure failing the run."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

# Big: every test here runs benches, studies or Ray sessions (the CI stage `-m big`).
pytestmark = pytest.mark.big

ray = pytest.importorskip("ray")

from gracr.explainers import EXPLAINERS, ExplainerSpec, register  # noqa: E402
from gracr.bench.runner import plan_jobs, run  # noqa: E402
from gracr.cli import main  # noqa: E402
from gracr.errors import GracrError  # noqa: E402

TASKS = ["Redundancy", "Majority1Hop"]
SIZES: dict[str, int | None] = {"Redundancy": 20, "Majority1Hop": 20}


def scores(folder: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Each record's key and what it measured (not its timings), by key; fails on a
    duplicate."""
    found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for line in (folder / "results.jsonl").read_text().splitlines()[1:]:
        r = json.loads(line)
        key = (r["task"], r["variant"], r["explainer"], r["config_hash"], r["seed"],
               r["instance"])
        assert key not in found, f"duplicate record {key}"
        found[key] = (r["status"], r["precision"], r["recall"], r["f1"], r["threshold"],
                      r["upi_edges"], r["edges"])
    return found


def bench(folder: Path, limit: int, engine: str, budget: float = 60.0) -> Path:
    jobs = plan_jobs(TASKS, ["main"], ["Saliency", "Rnd"], [0], limit, budget, SIZES)
    return run(jobs, str(folder), workers=2, progress=False, engine=engine)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray instance with 2 CPUs for the module (a run reuses a running Ray)."""
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False,
             log_to_driver=False)
    yield
    ray.shutdown()


def test_the_command_starts_ray_and_gets_the_pools_records(tmp_path: Path) -> None:
    assert not ray.is_initialized()
    common = ["--tasks", ",".join(TASKS), "--explainers", "Saliency,Rnd", "--seeds", "0",
              "--limit", "3", "--graphs", "20", "--targets", "20", "--jobs", "2", "--quiet",
              "--no-report"]
    out, err = io.StringIO(), io.StringIO()
    assert main(["bench", *common, "--engine", "ray", "--out", str(tmp_path / "ray")],
                out=out, err=err) == 0, err.getvalue()
    assert not ray.is_initialized()   # started and stopped by the command
    assert main(["bench", *common, "--out", str(tmp_path / "pool")], out=out, err=err) == 0
    on_ray, in_pool = scores(tmp_path / "ray"), scores(tmp_path / "pool")
    assert len(in_pool) == 2 * 2 * 3 and on_ray == in_pool


def test_the_local_rays_workers_run_at_the_callers_priority() -> None:
    """Ray adds 15 to a worker's niceness by default; beside the run's own process on the
    same cores, the local Ray's workers keep the caller's."""
    import os

    from gracr.bench.runner import ray_for_run

    assert not ray.is_initialized()
    # A lambda, which Ray sends by value (a function of this module is sent by name, and a
    # worker cannot import the tests).
    niceness = ray.remote(num_cpus=1)(lambda: __import__("os").nice(0))
    with ray_for_run(2) as session:
        worker = session.get(niceness.remote())
    assert worker == os.nice(0)


def test_a_run_resumes_from_ray_to_the_pool_and_back(tmp_path: Path, local_ray: None) -> None:
    bench(tmp_path / "whole", 4, "process")
    bench(tmp_path / "a", 2, "ray")
    bench(tmp_path / "a", 4, "process")       # Ray's records kept, the rest added
    bench(tmp_path / "b", 2, "process")
    bench(tmp_path / "b", 4, "ray")
    whole = scores(tmp_path / "whole")
    assert len(whole) == 2 * 2 * 4
    assert scores(tmp_path / "a") == whole and scores(tmp_path / "b") == whole


SPIN = """
import torch
from torch_geometric.explain import Explanation
from gracr.explainers import ExplainerSpec, register


def spin(subject, settings, seed):
    while True:   # until the CPU budget runs out
        torch.ones(100).sum()


register(ExplainerSpec("Spin", spin, {}))
"""


def test_an_out_of_time_instance_halts_its_seed(tmp_path: Path, local_ray: None) -> None:
    plugin = tmp_path / "spin.py"
    plugin.write_text(SPIN)
    from gracr.explainers import load_plugins

    load_plugins([str(plugin)])
    try:
        jobs = plan_jobs(TASKS, ["main"], ["Spin"], [0], 6, 0.3, SIZES)
        run(jobs, str(tmp_path / "oot"), workers=2, progress=False, engine="ray")
        first = scores(tmp_path / "oot")
        by_job: dict[tuple[Any, ...], list[int]] = {}
        for key, value in first.items():
            assert value[0] == "oot"
            by_job.setdefault(key[:-1], []).append(key[-1])
        # Each seed halts at its first instance; of the later ones, only those already
        # dispatched when its out-of-time record arrived are recorded (two workers: a
        # few, never all six).
        assert len(by_job) == 2
        assert all(0 in found and len(found) <= 4 for found in by_job.values()), by_job
        # A rerun, on either engine, explains nothing more of a stopped job.
        run(jobs, str(tmp_path / "oot"), workers=2, progress=False, engine="process")
        run(jobs, str(tmp_path / "oot"), workers=2, progress=False, engine="ray")
        assert scores(tmp_path / "oot") == first
    finally:
        EXPLAINERS.pop("Spin")


def test_a_worker_that_cannot_find_the_explainer_fails_the_run(tmp_path: Path,
                                                              local_ray: None) -> None:
    import torch

    register(ExplainerSpec("OnlyInTheParent", lambda s, _, __: Explanation(edge_mask=torch.ones(s.num_edges)), {}))
    try:
        jobs = plan_jobs(["Redundancy"], ["main"], ["OnlyInTheParent"], [0], 2, 60.0, SIZES)
        with pytest.raises(GracrError, match="'OnlyInTheParent' is not registered in the worker"):
            run(jobs, str(tmp_path / "fail"), workers=2, progress=False, engine="ray")
    finally:
        EXPLAINERS.pop("OnlyInTheParent")


DIES_ON_RAY = """
import os
import sys

import torch
from torch_geometric.explain import Explanation
from gracr.explainers import ExplainerSpec, register


def die_on_ray(subject, settings, seed):
    if sys.argv[0].endswith("default_worker.py"):   # a Ray worker process
        os._exit(3)
    return Explanation(edge_mask=torch.ones(subject.num_edges))


register(ExplainerSpec("DiesOnRay", die_on_ray, {}))
"""


def test_a_ray_worker_that_dies_fails_the_run_and_the_run_returns(tmp_path: Path,
                                                                  local_ray: None) -> None:
    """A Ray worker killed in its task (no record, no Python error) fails the run with
    Ray's error once this process's chunk ends, rather than leaving it waiting."""
    plugin = tmp_path / "dies.py"
    plugin.write_text(DIES_ON_RAY)
    from gracr.explainers import load_plugins

    load_plugins([str(plugin)])
    try:
        jobs = plan_jobs(TASKS, ["main"], ["DiesOnRay"], [0], 6, 60.0, SIZES)
        with pytest.raises(ray.exceptions.RayError):
            run(jobs, str(tmp_path / "died"), workers=2, progress=False, engine="ray")
        # What this process explained is recorded; nothing of the dead workers' chunks.
        recorded = scores(tmp_path / "died")
        assert recorded and all(value[0] == "ok" for value in recorded.values())
        assert len(recorded) < 2 * 6
    finally:
        EXPLAINERS.pop("DiesOnRay")


def test_a_study_on_ray_scores_as_in_process(tmp_path: Path, local_ray: None) -> None:
    from gracr.bench.tuning import tune

    common: dict[str, Any] = {"trials": 3, "instances": 3, "seed": 0, "budget": 60.0,
                              "datasets": str(tmp_path), "dataset_size": 20, "progress": False}
    here = tune("GraphMask-clean", "Redundancy", **common)
    there = tune("GraphMask-clean", "Redundancy", engine="ray", workers=2, **common)
    # Trial by trial the same F1 (the sampler sees the same values); among settings of
    # equal F1 the cheaper wins, which timing noise may decide either way.
    assert there["trial_f1"] == here["trial_f1"] and len(here["trial_f1"]) == 3
    assert there["mean_f1"] == here["mean_f1"]


def test_an_address_that_does_not_answer_is_an_error(tmp_path: Path) -> None:
    """Ray retries an address where no cluster answers for ever; the command gives up after
    --ray-timeout seconds, naming the address."""
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    process = subprocess.Popen(
        [sys.executable, "-m", "gracr.cli", "bench", "--tasks", "Redundancy", "--explainers",
         "Rnd", "--seeds", "0", "--limit", "1", "--graphs", "6", "--quiet", "--no-report",
         "--datasets", str(tmp_path / "d"), "--out", str(tmp_path / "o"), "--engine", "ray",
         "--address", "127.0.0.1:1", "--ray-timeout", "2"],   # loopback, a closed port
        env=dict(os.environ, PYTHONPATH=path), cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = process.communicate(timeout=120)   # a hang guard only
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=120)
    assert process.returncode == 2, err
    assert "gracrc: error: --address 127.0.0.1:1: no Ray cluster answered within 2 s" in err
    assert "--ray-timeout" in err and "Traceback" not in err


def test_an_address_that_answers_is_joined_without_delay() -> None:
    import socket

    from gracr.bench.ray_session import wait_for_cluster

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        wait_for_cluster(f"127.0.0.1:{port}", 60.0)
        wait_for_cluster(f"ray://127.0.0.1:{port}", 60.0)
    wait_for_cluster("auto", 0.1)   # Ray's to resolve: not probed here
