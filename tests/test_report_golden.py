"""`gracrc report` byte for byte: a committed results file gives the committed report files,
and the published GracrBench tables regenerate from their `seeds.csv`.

The golden files pin every text file the report writes (the figure aside), with the
command and date fixed, so that restructuring the benchmark code cannot change a
published number or its layout unnoticed. `GRACR_UPDATE_GOLDEN=1` rewrites them after an
intended change.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gracr.bench.report import write_report
from gracr.domains.paper.report import paper_report

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "report"
PUBLISHED = ROOT / "docs" / "results" / "gracrbench"
UPDATE = os.environ.get("GRACR_UPDATE_GOLDEN") == "1"
COMMAND, DATE = "gracrc report results.jsonl", "2026-01-01"
TEXT_FILES = ("results.csv", "seeds.csv", "table2.md", "table2.tex", "table3.md", "table3.tex",
              "beside_paper.md", "times.md", "times.csv")


def test_the_report_of_the_fixture_results_is_the_golden_report(tmp_path: Path) -> None:
    shown = write_report([str(FIXTURE / "results.jsonl")], str(tmp_path), COMMAND, DATE,
                         paper_report)
    shown = shown.replace(str(tmp_path), "<out>").replace(str(FIXTURE), "<fixture>")
    expected_folder = FIXTURE / "expected"
    if UPDATE:
        expected_folder.mkdir(exist_ok=True)
        (expected_folder / "shown.txt").write_text(shown)
        for name in TEXT_FILES:
            (expected_folder / name).write_bytes((tmp_path / name).read_bytes())
    assert shown == (expected_folder / "shown.txt").read_text()
    for name in TEXT_FILES:
        assert (tmp_path / name).read_bytes() == (expected_folder / name).read_bytes(), name


@pytest.mark.parametrize("name", ["table2.md", "table3.md", "table2.tex", "table3.tex",
                                  "results.csv", "beside_paper.md"])
def test_the_published_tables_regenerate_from_their_seeds_csv(name: str, tmp_path: Path) -> None:
    write_report([str(PUBLISHED / "seeds.csv")], str(tmp_path), COMMAND, DATE, paper_report)
    # Only the provenance line (command and date) may differ from the published file.
    made = [line for line in (tmp_path / name).read_text().splitlines()
            if "gracrc report" not in line]
    published = [line for line in (PUBLISHED / name).read_text().splitlines()
                 if "gracrc report" not in line]
    assert made == published
