"""The GracrBench runner: records, resuming, the CPU budget, and bad arguments."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import torch
from torch_geometric.explain import Explanation

from gracr.bench.datasets import load_or_build
from gracr.explainers import EXPLAINERS
from gracr.explainers.base import ExplainerSpec, register
from gracr.bench.record import HEADER_KEY, RECORD_VERSION, Record, read_records, record_objects
from gracr.bench.runner import plan_jobs, run
from gracr.bench.instances import positive_instances
from gracr.cli import main
from gracr.errors import GracrError

SIZES = {"Redundancy": 6, "Majority1Hop": 3}


def _records(folder: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in record_objects(folder / "results.jsonl")]


def _jobs(tmp_path: Path, explainers: list[str], limit: int = 2, budget: float = 60.0,
          tasks: tuple[str, ...] = ("Redundancy",), start: int = 0) -> Any:
    return plan_jobs(list(tasks), ["main"], explainers, [0], limit, budget, SIZES,
                     str(tmp_path / "datasets"), settings="default", start=start)


def test_records_follow_the_schema_and_score_against_the_stored_upi(tmp_path: Path) -> None:
    results = run(_jobs(tmp_path, ["Saliency"], tasks=("Redundancy", "Majority1Hop")),
                  str(tmp_path / "out"), progress=False)
    records = _records(results.parent)
    assert len(records) == 4
    dataset = load_or_build("Majority1Hop", 0, 3, str(tmp_path / "datasets"), progress=False)
    first = next(iter(positive_instances(dataset)))
    node_record = next(r for r in records if r["task"] == "Majority1Hop")
    assert (node_record["graph"], node_record["target"]) == (first.graph, first.target)
    assert node_record["upi_edges"] == int(first.upi.sum())
    for record in records:
        assert record["status"] == "ok" and record["variant"] == "main"
        assert 0 < record["f1"] <= 1 and record["cpu_seconds"] >= 0
        assert record["config"] == {"abs": True} and len(record["config_hash"]) == 8


def test_a_rerun_resumes_instead_of_repeating(tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    run(_jobs(tmp_path, ["Rnd"], limit=1), out, progress=False)
    assert len(_records(Path(out))) == 1
    run(_jobs(tmp_path, ["Rnd"], limit=3), out, progress=False)
    records = _records(Path(out))
    assert [r["instance"] for r in records] == [0, 1, 2]


def test_a_seed_split_between_two_runs_gives_the_records_of_one(tmp_path: Path) -> None:
    whole, head, tail = tmp_path / "whole", tmp_path / "head", tmp_path / "tail"
    run(_jobs(tmp_path, ["Rnd"], limit=3), str(whole), progress=False)
    run(_jobs(tmp_path, ["Rnd"], limit=1), str(head), progress=False)
    run(_jobs(tmp_path, ["Rnd"], limit=3, start=1), str(tail), progress=False)
    assert [r["instance"] for r in _records(tail)] == [1, 2]

    def scores(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(r["instance"], r["precision"], r["recall"], r["f1"]) for r in records]

    # Rnd draws from the per-instance seed, so the split must not shift any draw.
    assert scores(_records(head) + _records(tail)) == scores(_records(whole))
    run(_jobs(tmp_path, ["Rnd"], limit=3, start=1), str(whole), progress=False)
    assert len(_records(whole)) == 3            # what is done in range is not redone


def _spin(swallow: bool) -> Any:
    """An explainer that burns 5 CPU s; with `swallow` it runs its loop inside
    `try: ... except Exception:`, as PyG's GraphMaskExplainer wraps its gate calls."""
    def spin(subject: Any, settings: Any, seed: int) -> Explanation:
        end = time.process_time() + 5.0
        while time.process_time() < end:
            try:
                sum(range(1000))
            except Exception:
                if not swallow:
                    raise
        return Explanation(edge_mask=torch.zeros(subject.num_edges))
    return spin


@pytest.fixture(params=[False, True], ids=["plain", "swallows-Exception"])
def slow_explainer(request: pytest.FixtureRequest) -> Iterator[str]:
    register(ExplainerSpec("Spin", _spin(request.param), {}))
    yield "Spin"
    del EXPLAINERS["Spin"]


def test_an_instance_over_budget_is_oot_and_stops_its_seed(tmp_path: Path,
                                                           slow_explainer: str) -> None:
    out = tmp_path / "out"
    run(_jobs(tmp_path, [slow_explainer], limit=3, budget=0.3), str(out), progress=False)
    records = _records(out)
    assert [r["status"] for r in records] == ["oot"]       # App. H: the seed halts
    assert records[0]["cpu_seconds"] < 2.0
    run(_jobs(tmp_path, [slow_explainer], limit=3, budget=0.3), str(out), progress=False)
    assert len(_records(out)) == 1                          # and stays halted on rerun


def test_an_explainer_crash_is_recorded_not_raised(tmp_path: Path) -> None:
    def crash(subject: Any, settings: Any, seed: int) -> Explanation:
        raise RuntimeError("boom")

    register(ExplainerSpec("Crash", crash, {}))
    try:
        run(_jobs(tmp_path, ["Crash"], limit=1), str(tmp_path / "out"), progress=False)
    finally:
        del EXPLAINERS["Crash"]
    (record,) = _records(tmp_path / "out")
    assert record["status"] == "error" and "RuntimeError: boom" in record["error"]


@pytest.mark.big
def test_worker_processes_give_the_same_scores(tmp_path: Path) -> None:
    serial, pooled = tmp_path / "serial", tmp_path / "pooled"
    run(_jobs(tmp_path, ["Saliency", "Rnd"]), str(serial), progress=False)
    run(_jobs(tmp_path, ["Saliency", "Rnd"]), str(pooled), workers=2, progress=False)

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return (r["explainer"], r["instance"], r["precision"], r["recall"], r["f1"])

    assert sorted(map(key, _records(serial))) == sorted(map(key, _records(pooled)))


@pytest.mark.parametrize("argv, message", [
    (["--tasks", "Nope"], "unknown task 'Nope'"),
    (["--explainers", "Saliency,Nope"], "unknown explainer 'Nope'"),
    (["--variant", "wide"], "unknown variant 'wide'"),
    (["--seeds", "x"], "bad seeds 'x'"),
    (["--limit", "0"], "--limit must be positive"),
    (["--limit", "3", "--start", "3"], "--start must be at least 0 and below --limit (3)"),
    (["--set", "GNNExplainer.epochs"], "bad --set"),
    (["--explainers", "Saliency", "--set", "Saliency.nope=1"], "Saliency has no setting 'nope'"),
    (["--out", "/proc/gracr-cannot-write"], "cannot write results there"),
])
def test_bad_bench_arguments_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    err = io.StringIO()
    base = ["bench", "--tasks", "Redundancy", "--explainers", "Rnd", "--seeds", "0",
            "--graphs", "6", "--datasets", str(tmp_path / "d"), "--out", str(tmp_path / "o"),
            "--quiet", "--no-report"]
    assert main(base + argv, out=io.StringIO(), err=err) == 2
    assert message in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_a_resume_on_other_datasets_is_refused(tmp_path: Path) -> None:
    def bench(graphs: str, limit: str) -> tuple[int, str]:
        err = io.StringIO()
        code = main(["bench", "--tasks", "Redundancy", "--explainers", "Rnd", "--seeds", "0",
                     "--limit", limit, "--graphs", graphs, "--datasets", str(tmp_path / "d"),
                     "--out", str(tmp_path / "o"), "--quiet", "--no-report"],
                    out=io.StringIO(), err=err)
        return code, err.getvalue()

    assert bench("6", "1") == (0, "")
    code, err = bench("8", "2")
    assert code == 2 and "Traceback" not in err
    assert "Redundancy: graphs6-gen" in err and "graphs8-gen" in err
    assert "its results were computed on other datasets" in err
    assert [r["instance"] for r in _records(tmp_path / "o")] == [0]
    assert bench("6", "2")[0] == 0                # the same datasets: resumed
    assert [r["instance"] for r in _records(tmp_path / "o")] == [0, 1]


def test_bench_command_prints_the_report(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(["bench", "--tasks", "Redundancy", "--explainers", "Saliency", "--seeds", "0",
                 "--limit", "2", "--graphs", "6", "--datasets", str(tmp_path / "d"),
                 "--out", str(tmp_path / "o"), "--quiet"], out=out)
    assert code == 0
    assert "Table 2" in out.getvalue() and "Saliency" in out.getvalue()
    assert (tmp_path / "o" / "results.csv").exists()


def test_a_results_file_starts_with_its_version_and_old_files_still_read(tmp_path: Path) -> None:
    results = run(_jobs(tmp_path, ["Saliency"], limit=1), str(tmp_path / "out"), progress=False)
    lines = results.read_text().splitlines()
    assert json.loads(lines[0]) == {HEADER_KEY: RECORD_VERSION}
    records = list(read_records(results))
    assert len(records) == 1 == len(lines) - 1
    assert Record.from_json(records[0].to_json(), "again") == records[0]
    headless = tmp_path / "old.jsonl"
    headless.write_text("\n".join(lines[1:]) + "\n")  # a file without the header line
    assert list(read_records(headless)) == records
    future = tmp_path / "future.jsonl"
    future.write_text(json.dumps({HEADER_KEY: RECORD_VERSION + 1}) + "\n" + lines[1] + "\n")
    with pytest.raises(GracrError, match="results version"):
        list(read_records(future))


HOLDING_PLUGIN = """
import os
import time

import torch
from torch_geometric.explain import Explanation

from gracr.explainers import ExplainerSpec, register


def holding(subject, settings, seed):
    # The first worker to reach its second instance holds it until `release` exists (and
    # says so in `holder`); every other instance is explained at once.
    folder = os.environ["HOLD_FOLDER"]
    mine = os.path.join(folder, str(os.getpid()))
    if os.path.exists(mine):
        try:
            os.close(os.open(os.path.join(folder, "holder"), os.O_CREAT | os.O_EXCL))
            while not os.path.exists(os.path.join(folder, "release")):
                time.sleep(0.1)
        except FileExistsError:
            pass
    open(mine, "w").close()
    return Explanation(edge_mask=torch.zeros(subject.num_edges))


register(ExplainerSpec("Holding", holding, {}))
"""

# Every test below that starts a run gives up after this long (a hang guard, not a timing
# assertion: the machine may be busy).
HANG_GUARD = 120.0
# The run starts as it would from a terminal, with SIGINT at its default. Started in the
# background by a shell without job control (`bash -c '... &'`, as a CI script may do), a
# process inherits SIGINT ignored (POSIX), Python keeps it ignored, and Ctrl-C would then
# never reach the run: the test hung for its guard. The launcher restores the default and
# becomes the run (`execv`: the same process, still the group's leader).
DEFAULT_SIGINT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable] + sys.argv[1:])")


class HeldRun:
    """`gracrc bench --jobs 2` of three seeds of two instances in its own session (so in a
    process group of its own, with every process it starts), with the explainer Holding:
    one worker holds its second instance until the file `release` is made in `folder`,
    the other explains the rest and then waits for a job."""

    def __init__(self, tmp_path: Path) -> None:
        plugin = tmp_path / "holding.py"
        plugin.write_text(HOLDING_PLUGIN)
        self.folder = tmp_path / "hold"
        self.folder.mkdir(exist_ok=True)
        self.out = tmp_path / "out"
        self.stderr = tmp_path / "stderr.txt"
        root = Path(__file__).resolve().parent.parent
        path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
        # PYTHONFAULTHANDLER: a run that hangs is sent SIGABRT (`ended`), and each of its
        # processes then writes where its threads were to the stderr file.
        self.env = dict(os.environ, HOLD_FOLDER=str(self.folder), PYTHONPATH=path,
                        PYTHONFAULTHANDLER="1")
        self.argv = [sys.executable, "-c", DEFAULT_SIGINT, "-m", "gracr.cli", "bench",
                     "--plugin", str(plugin),
                     "--tasks", "Redundancy", "--explainers", "Holding", "--seeds", "0-2",
                     "--limit", "2", "--graphs", "6", "--jobs", "2", "--no-report",
                     "--quiet", "--datasets", str(tmp_path / "ds"), "--out", str(self.out)]
        self.cwd = tmp_path
        self.process = self.start(self.stderr)

    def start(self, stderr: Path) -> subprocess.Popen[bytes]:
        with open(stderr, "wb") as err:
            return subprocess.Popen(self.argv, env=self.env, cwd=self.cwd,
                                    stdout=subprocess.DEVNULL, stderr=err,
                                    start_new_session=True)

    def rerun(self) -> tuple[int, str]:
        """The same command again, to its end: its exit status and stderr."""
        stderr = self.cwd / "rerun-stderr.txt"
        again = self.start(stderr)
        try:
            return ended(again, stderr), stderr.read_text()
        finally:
            _kill_group(again)

    def wait_until_held(self) -> None:
        """Until every instance but the held one is recorded (one worker holds, the other
        waits for a job)."""
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline and self.process.poll() is None:
            if (self.out / "results.jsonl").exists() and len(_records(self.out)) == 5:
                return
            time.sleep(0.2)
        recorded = len(_records(self.out)) if (self.out / "results.jsonl").exists() else 0
        raise AssertionError(f"the run never got to work (exit status {self.process.poll()}, "
                             f"{recorded} records): {self.stderr.read_text()}")

    def group(self) -> list[str]:
        """The processes left of the run's process group (zombies count as gone)."""
        import psutil

        left = []
        for process in psutil.process_iter(["pid", "status", "cmdline"]):
            try:
                if os.getpgid(process.pid) == self.process.pid and \
                        process.info["status"] != psutil.STATUS_ZOMBIE:
                    left.append(f"{process.pid} {' '.join(process.info['cmdline'] or [])}")
            except (ProcessLookupError, psutil.Error):
                pass
        return left

    def wait_for_no_process(self) -> list[str]:
        """The processes of the group still there after the hang guard (none, hopefully)."""
        deadline = time.monotonic() + HANG_GUARD
        while self.group() and time.monotonic() < deadline:
            time.sleep(0.2)
        return self.group()


def ended(process: subprocess.Popen[bytes], stderr: Path) -> int:
    """The exit status of a run started by `HeldRun`; if it is still running after the
    hang guard, an AssertionError holding where each of its processes' threads were."""
    try:
        return process.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGABRT)
        time.sleep(5)
        raise AssertionError("the run hung; its processes' threads, and its stderr:\n"
                             + stderr.read_text()[-30000:]) from None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill every process of `process`'s group (it leads one: `start_new_session`)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=HANG_GUARD)


@pytest.fixture
def held_run(tmp_path: Path) -> Iterator[HeldRun]:
    run = HeldRun(tmp_path)
    try:
        yield run
    finally:
        _kill_group(run.process)   # whatever the test saw, nothing it started runs on


@pytest.mark.big
def test_no_process_of_a_killed_run_survives_it(held_run: HeldRun) -> None:
    """A run killed with SIGKILL cannot stop its workers: they end with it, and no helper
    process (a Manager's server, the resource tracker) outlives it either."""
    held_run.wait_until_held()
    held_run.process.send_signal(signal.SIGKILL)
    held_run.process.wait(timeout=HANG_GUARD)
    assert held_run.wait_for_no_process() == []


@pytest.mark.parametrize("signum, to_group", [
    ("SIGINT", True),     # Ctrl-C: the terminal signals the whole process group
    ("SIGTERM", False),   # kill PID
], ids=["ctrl-c", "sigterm"])
@pytest.mark.big
def test_a_stopped_run_says_so_in_one_line_and_resumes(held_run: HeldRun, signum: str,
                                                      to_group: bool) -> None:
    number = signal.Signals[signum]
    held_run.wait_until_held()
    if to_group:
        os.killpg(held_run.process.pid, number)
    else:
        held_run.process.send_signal(number)
    assert ended(held_run.process, held_run.stderr) == 128 + number
    lines = held_run.stderr.read_text().splitlines()
    assert lines == [f"gracrc: bench stopped ({signum}); the records so far are in "
                     f"{held_run.out}: the same command resumes the run"]
    assert held_run.wait_for_no_process() == []
    kept = _records(held_run.out)
    assert len(kept) == 5
    (held_run.folder / "release").touch()
    status, stderr = held_run.rerun()
    assert status == 0, stderr
    records = _records(held_run.out)
    assert records[:5] == kept
    assert sorted((r["seed"], r["instance"]) for r in records) == [
        (seed, instance) for seed in range(3) for instance in range(2)]
    assert all(r["status"] == "ok" for r in records)
