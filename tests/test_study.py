"""`gracr.bench.study.Study` on a toy study of two phases that count their runs: a phase
whose files say it is complete is not run again, the report runs every time, the
settings are written first and a folder of other settings is refused (but for the free
ones), a damaged settings file is written again only in a folder holding nothing else."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from gracr.bench.runner import Job
from gracr.bench.study import Execution, Phase, Say, Study, explained
from gracr.errors import GracrError


@dataclass(frozen=True)
class Counting:
    lines: int = 3
    shown: int = 2

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Toy(Study[Counting]):
    FREE = ("shown",)
    REQUIRED = {"lines": int}
    OUTPUTS = ("first.txt",)

    def __init__(self, folder: Path, settings: Counting) -> None:
        super().__init__(folder, settings, Execution(progress=False))
        self.ran: list[str] = []

    def phases(self) -> list[Phase]:
        first, second = self.folder / "first.txt", self.folder / "second.txt"

        def write(path: Path, name: str) -> Phase:
            def run(say: Say) -> None:
                self.ran.append(name)
                path.write_text("x\n" * self.settings.lines)
            return Phase(name, path.exists, run)

        return [write(first, "first"), write(second, "second")]

    def report(self, say: Say) -> None:
        self.ran.append("report")


def test_phases_run_once_and_the_report_every_time(tmp_path: Path) -> None:
    study = Toy(tmp_path, Counting())
    assert study.run() == tmp_path
    assert study.ran == ["first", "second", "report"]
    (tmp_path / "second.txt").unlink()   # a run stopped before its second phase
    again = Toy(tmp_path, Counting())
    again.run()
    assert again.ran == ["second", "report"]
    assert json.loads((tmp_path / "settings.json").read_text()) == {"lines": 3, "shown": 2}


def test_other_settings_are_refused_but_the_free_ones(tmp_path: Path) -> None:
    Toy(tmp_path, Counting()).run()
    with pytest.raises(GracrError, match=r"other settings.*only --shown may change"):
        Toy(tmp_path, Counting(lines=4)).run()
    Toy(tmp_path, Counting(shown=5)).run()
    assert json.loads((tmp_path / "settings.json").read_text())["shown"] == 5


def test_a_damaged_settings_file_is_rewritten_only_in_an_otherwise_empty_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "settings.json").write_text('{"lines": 3')   # cut while written
    Toy(tmp_path, Counting()).run()
    assert "written again" in capsys.readouterr().err
    (tmp_path / "settings.json").write_text('{"lines": "three"}')   # not the study's
    with pytest.raises(GracrError, match="damaged.*first.txt"):
        Toy(tmp_path, Counting()).run()


def test_jobs_are_explained_when_each_has_its_instances(tmp_path: Path) -> None:
    job = Job("Redundancy", "main", "Saliency", {}, "00000000", 0, 2, 10.0, None, None)
    results = tmp_path / "results.jsonl"
    assert not explained([job], results)   # no results file yet
    assert explained([], results)

    def record(instance: int, status: str) -> str:
        return json.dumps({"task": "Redundancy", "variant": "main", "explainer": "Saliency",
                           "config": {}, "config_hash": "00000000", "seed": 0,
                           "instance": instance, "graph": instance, "target": None,
                           "status": status, "error": "boom" if status == "error" else None,
                           "precision": None, "recall": None, "f1": None,
                           "threshold": None, "upi_edges": 1, "edges": 2,
                           "cpu_seconds": 0.0, "wall_seconds": 0.0,
                           "gracr_version": "0.1.0", "level": "edge", "sample": "positive",
                           "scores": [0.0]})

    results.write_text('{"gracr-results":3}\n' + record(0, "ok") + "\n"
                       + record(1, "error") + "\n")
    assert not explained([job], results)   # an error is retried
    results.write_text(results.read_text() + record(1, "ok") + "\n")
    assert explained([job], results)
