"""`gracr.domains.paper.study.PaperStudy`, the one way GracrBench runs (`gracrc bench`,
`gracr.Benchmark.run`): a results folder made before it (no settings file) resumes and
takes more explainers and seeds, a folder found complete is still refused on other
datasets, and the command line and Python write the same records."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import gracr
from gracr.bench.benchmark import BenchmarkSettings
from gracr.bench.runner import plan_jobs, run
from gracr.bench.study import Execution
from gracr.cli import main
from gracr.domains.paper.study import PaperStudy, Shown
from gracr.errors import GracrError

GRAPHS = 6


def _records(folder: Path) -> list[tuple[Any, ...]]:
    """What each record of the folder explained and scored (times left out)."""
    lines = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return [(r["task"], r["variant"], r["explainer"], r["seed"], r["instance"], r["status"],
             r["precision"], r["recall"], r["f1"]) for r in lines if "task" in r]


def _settings(datasets: Path, **changed: Any) -> BenchmarkSettings:
    fields: dict[str, Any] = {"tasks": ["Redundancy"], "explainers": ["Rnd"], "seeds": [0],
                              "limit": 1, "graphs": GRAPHS, "datasets": str(datasets),
                              "settings": "default"}
    return BenchmarkSettings(**{**fields, **changed})


def _study(folder: Path, settings: BenchmarkSettings) -> PaperStudy:
    return PaperStudy(folder, settings, Execution(progress=False))


def test_a_folder_made_without_a_settings_file_resumes_and_grows(tmp_path: Path) -> None:
    datasets, folder = tmp_path / "datasets", tmp_path / "out"
    # A folder as the runner made it before the study: records (with the explainers' scores
    # beside them) and datasets.json only.
    run(plan_jobs(["Redundancy"], ["main"], ["Rnd"], [0], 1, 180.0, {"Redundancy": GRAPHS},
                  str(datasets), settings="default"), str(folder), progress=False)
    before = _records(folder)
    assert sorted(p.name for p in folder.iterdir()) == ["datasets.json", "results.jsonl",
                                                        "scores.jsonl"]

    _study(folder, _settings(datasets, limit=2)).run()
    assert _records(folder)[:1] == before
    assert [r[4] for r in _records(folder)] == [0, 1]
    # More explainers and seeds go into the same folder, as they always could.
    _study(folder, _settings(datasets, limit=2, explainers=["Rnd", "Saliency"],
                             seeds=[0, 1])).run()
    assert sorted((r[2], r[3], r[4]) for r in _records(folder)) == [
        (explainer, seed, instance) for explainer in ("Rnd", "Saliency")
        for seed in (0, 1) for instance in (0, 1)]
    assert not (folder / "settings.json").exists()


def test_a_complete_folder_is_not_run_again_but_other_datasets_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    datasets, folder = tmp_path / "datasets", tmp_path / "out"
    _study(folder, _settings(datasets)).run()

    def no_run(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the runner was called on a complete folder")

    monkeypatch.setattr("gracr.domains.paper.study.run", no_run)
    _study(folder, _settings(datasets)).run()
    with pytest.raises(GracrError, match="its results were computed on other datasets"):
        _study(folder, _settings(datasets, graphs=GRAPHS + 2)).run()


def test_nothing_is_written_before_the_run_is_checked(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    with pytest.raises(GracrError, match="--jobs must be positive"):
        PaperStudy(folder, _settings(tmp_path / "d"), Execution(workers=0)).run()
    with pytest.raises(GracrError, match="unknown explainer"):
        _study(folder, _settings(tmp_path / "d", explainers=["Nope"])).run()
    assert not folder.exists()


def test_the_run_shows_its_jobs_then_the_report(tmp_path: Path) -> None:
    datasets, folder = tmp_path / "datasets", tmp_path / "out"
    shown: list[str] = []
    PaperStudy(folder, _settings(datasets), Execution(progress=False),
               shown=Shown(shown.append, instance_figures=False)).run()
    assert shown[0] == f"1 jobs; results in {folder / 'results.jsonl'}\n"
    assert "Table 2" in shown[1] and f"gracrc report {folder}" in shown[1]
    assert (folder / "results.csv").exists()
    without: list[str] = []
    PaperStudy(tmp_path / "quiet", _settings(datasets), Execution(progress=False),
               shown=Shown(without.append, tables=False)).run()
    assert without == [f"1 jobs; results in {tmp_path / 'quiet' / 'results.jsonl'}\n"]
    assert not (tmp_path / "quiet" / "results.csv").exists()


def test_gracrc_bench_and_benchmark_run_write_the_same_records(tmp_path: Path) -> None:
    datasets = tmp_path / "datasets"
    ran = gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd", "Saliency"], seeds=[0, 1],
                          limit=2, graphs=GRAPHS, datasets=str(datasets)
                          ).run(tmp_path / "api", progress=False)
    assert ran.jobs == 4 and not (tmp_path / "api" / "results.csv").exists()
    out = io.StringIO()
    code = main(["bench", "--tasks", "Redundancy", "--explainers", "Rnd,Saliency", "--seeds",
                 "0,1", "--limit", "2", "--graphs", str(GRAPHS), "--datasets", str(datasets),
                 "--out", str(tmp_path / "cli"), "--quiet", "--no-report"], out=out)
    assert code == 0
    assert out.getvalue() == f"4 jobs; results in {tmp_path / 'cli' / 'results.jsonl'}\n"
    assert _records(tmp_path / "api") == _records(tmp_path / "cli")
    assert len(_records(tmp_path / "cli")) == 8


def test_a_run_with_progress_prints_no_phase_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # `gracrc bench` has never printed its phase: stdout holds the report only.
    for _ in range(2):   # explained, then found complete
        PaperStudy(tmp_path / "out", _settings(tmp_path / "datasets"),
                   Execution(progress=True)).run()
        assert "explain" not in capsys.readouterr().out


def test_a_run_of_no_job_still_starts_its_folder(tmp_path: Path) -> None:
    # Redundancy has one formula: the `or` variant does not apply, so there is no job;
    # the runner still starts the folder, as `gracrc bench` always did.
    out = io.StringIO()
    code = main(["bench", "--tasks", "Redundancy", "--variant", "or", "--explainers", "Rnd",
                 "--seeds", "0", "--graphs", str(GRAPHS), "--datasets",
                 str(tmp_path / "datasets"), "--out", str(tmp_path / "out"), "--quiet",
                 "--no-report"], out=out)
    assert code == 0
    assert out.getvalue() == f"0 jobs; results in {tmp_path / 'out' / 'results.jsonl'}\n"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["datasets.json",
                                                                     "results.jsonl"]
