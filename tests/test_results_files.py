"""Results files survive kills: a cut last line is reported once, set aside and its instance
recomputed; every record is one write; a run killed with SIGKILL, or left with its last
line cut, resumes to the records of an uninterrupted run, none lost and none twice."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gracr.bench.datasets import load_or_build
from gracr.bench.record import TORN_SUFFIX, read_records, record_objects, start_results
from gracr.bench.report.inputs import load_results
from gracr.bench.runner import plan_jobs, run
from gracr.bench.scores_log import read_scores

ROOT = Path(__file__).resolve().parent.parent
TASK, GRAPHS, LIMIT, EXPLAINERS = "Redundancy", 24, 8, ["Rnd", "Saliency"]

HEADER = '{"gracr-results":3}\n'
RECORD = '{"task":"t","variant":"main","explainer":"Rnd","config_hash":"x","seed":0,"instance":%d}\n'


def _objects(path: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in record_objects(path)]


def test_a_cut_last_line_is_left_out_by_readers_and_reported_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(HEADER + RECORD % 0 + (RECORD % 1)[:30])
    assert [obj["instance"] for obj in _objects(path)] == [0]
    assert [obj["instance"] for obj in _objects(path)] == [0]
    err = capsys.readouterr().err
    assert err.count("warning") == 1 and f"{path}:3: the last line was cut off" in err


def test_a_writer_sets_a_cut_line_aside_and_appends_after_whole_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "results.jsonl"
    cut = (RECORD % 1)[:30]
    path.write_text(HEADER + RECORD % 0 + cut)
    start_results(path)
    assert path.read_text() == HEADER + RECORD % 0
    assert Path(str(path) + TORN_SUFFIX).read_text() == cut + "\n"
    assert "set aside in" in capsys.readouterr().err
    start_results(path)                                  # nothing cut any more: nothing to say
    assert capsys.readouterr().err == "" and path.read_text() == HEADER + RECORD % 0


def test_a_last_line_that_lost_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(HEADER + RECORD % 0 + (RECORD % 1).rstrip("\n"))
    assert [obj["instance"] for obj in _objects(path)] == [0, 1]
    start_results(path)
    assert path.read_text() == HEADER + RECORD % 0 + RECORD % 1
    assert not Path(str(path) + TORN_SUFFIX).exists()


def test_a_cut_header_leaves_a_fresh_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(HEADER[:7])
    start_results(path)
    assert path.read_text() == HEADER


def test_a_bad_line_that_is_not_the_last_is_still_an_error(tmp_path: Path) -> None:
    from gracr.errors import GracrError

    path = tmp_path / "results.jsonl"
    path.write_text(HEADER + (RECORD % 0)[:30] + "\n" + RECORD % 1)
    with pytest.raises(GracrError, match=r"results.jsonl:2: not a JSON line"):
        _objects(path)


# ---------------------------------------------------------------- the runner


def _jobs(datasets: Path) -> Any:
    return plan_jobs([TASK], ["main"], EXPLAINERS, [0], LIMIT, 60.0, {TASK: GRAPHS},
                     str(datasets), settings="default")


def _scores(folder: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Each record's key and scores; fails on a key written twice."""
    records = list(read_records(folder / "results.jsonl"))
    keys = [record.key for record in records]
    assert len(keys) == len(set(keys)), "a record written twice"
    return {record.key: (record.status, record.precision, record.recall, record.f1)
            for record in records}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The datasets, and a folder with the records of a run that nothing interrupted."""
    base = tmp_path_factory.mktemp("uninterrupted")
    load_or_build(TASK, 0, GRAPHS, str(base / "datasets"), progress=False)
    run(_jobs(base / "datasets"), str(base / "whole"), progress=False)
    assert len(_scores(base / "whole")) == LIMIT * len(EXPLAINERS)
    return base / "datasets", base / "whole"


def _record_lines(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(1 for line in path.read_bytes().split(b"\n") if line.startswith(b'{"task"'))


@pytest.mark.big
@pytest.mark.parametrize("seed", [1, 2])
def test_a_run_killed_at_a_random_moment_resumes_to_the_same_records(
        uninterrupted: tuple[Path, Path], tmp_path: Path, seed: int) -> None:
    datasets, whole = uninterrupted
    out = tmp_path / "killed"
    results = out / "results.jsonl"
    # The moment: after a random number of records (0: before any), polled for, then SIGKILL.
    after = random.Random(seed).randrange(LIMIT * len(EXPLAINERS))
    command = [sys.executable, "-m", "gracr.cli", "bench", "--tasks", TASK, "--explainers",
               ",".join(EXPLAINERS), "--seeds", "0", "--graphs", str(GRAPHS), "--limit",
               str(LIMIT), "--settings", "default", "--datasets", str(datasets), "--out",
               str(out), "--quiet", "--no-report"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    while process.poll() is None and _record_lines(results) < after:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL            # it was killed, not finished
    run(_jobs(datasets), str(out), progress=False)
    assert _scores(out) == _scores(whole)
    # The explainers' scores beside the records: written before each record, so every
    # record has them, and they are the uninterrupted run's.
    stored, theirs = read_scores(out)[0], read_scores(whole)[0]
    assert {record.key for record in read_records(results)} <= set(stored)
    assert {key: values.tolist() for key, values in stored.items()} == \
        {key: values.tolist() for key, values in theirs.items()}


def test_a_run_whose_last_line_was_cut_resumes_to_the_same_records(
        uninterrupted: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    datasets, whole = uninterrupted
    out = tmp_path / "cut"
    out.mkdir()
    text = (whole / "results.jsonl").read_bytes()
    last = text.rstrip(b"\n").rfind(b"\n") + 1
    cut = last + random.Random(0).randrange(1, len(text) - last - 1)
    (out / "results.jsonl").write_bytes(text[:cut])
    run(_jobs(datasets), str(out), progress=False)
    assert _scores(out) == _scores(whole)
    assert (out / ("results.jsonl" + TORN_SUFFIX)).read_bytes() == text[last:cut] + b"\n"
    assert capsys.readouterr().err.count("the last line was cut off") == 1
    loaded = load_results([str(out)])
    assert loaded.duplicates == 0 and len(loaded.records) == len(_scores(whole))


def test_the_report_counts_a_record_given_twice_once(uninterrupted: tuple[Path, Path],
                                                     tmp_path: Path) -> None:
    _, whole = uninterrupted
    lines = (whole / "results.jsonl").read_text().splitlines(keepends=True)
    doubled = tmp_path / "results.jsonl"
    doubled.write_text("".join(lines + lines[1:3]))
    loaded = load_results([str(doubled)])
    assert loaded.duplicates == 2 and len(loaded.records) == len(lines) - 1


def test_each_record_is_one_write(uninterrupted: tuple[Path, Path], tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    datasets, _ = uninterrupted
    writes: list[bytes] = []
    real_write = os.write

    def recording_write(fd: int, data: bytes) -> int:
        writes.append(bytes(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", recording_write)
    run(_jobs(datasets), str(tmp_path / "out"), progress=False)
    records = [w for w in writes if w.startswith(b'{"task"')]
    assert len(records) == LIMIT * len(EXPLAINERS)
    assert all(w.endswith(b"\n") and w.count(b"\n") == 1 and json.loads(w) for w in records)
