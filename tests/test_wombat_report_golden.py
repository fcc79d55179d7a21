"""The WOMBAT study's tables byte for byte: a committed records file (a tiny real run: P01
and P02, five explainers, three positives and two negatives per pattern, one of each for
the slow two) gives the committed tables, drawn at limits below the run's so that the
records past them are left out; `gracrc wombat-study --tables-only` prints and writes them
from a folder holding those records. `GRACR_UPDATE_GOLDEN=1` rewrites the golden file
after an intended change."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

from gracr.bench.record import read_records
from gracr.domains.chem.study import WombatSettings, wombat_tables

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "wombat"
UPDATE = os.environ.get("GRACR_UPDATE_GOLDEN") == "1"
SETTINGS = WombatSettings(patterns=(1, 2),
                          explainers=("Saliency", "IG", "ShapleySampling", "SubgraphX", "Rnd"),
                          positives=2, negatives=2, slow_positives=1, slow_negatives=1)


def test_the_tables_of_the_fixture_records_are_the_golden_tables() -> None:
    records = [r for r in read_records(FIXTURE / "results.jsonl")
               if r.instance < SETTINGS.limit(r)]
    text = wombat_tables(records, SETTINGS)
    if UPDATE:
        (FIXTURE / "expected.md").write_text(text, encoding="utf-8")
    assert text == (FIXTURE / "expected.md").read_text(encoding="utf-8")


def gracrc(*argv: str) -> tuple[int, str, str]:
    from gracr.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_the_command_draws_the_golden_tables_from_a_folder(tmp_path: Path) -> None:
    shutil.copy(FIXTURE / "results.jsonl", tmp_path / "results.jsonl")
    markdown = tmp_path / "tables.md"
    code, out, _ = gracrc("wombat-study", "--tables-only", "--out", str(tmp_path),
                          "--patterns", "1-2", "--explainers", ",".join(SETTINGS.explainers),
                          "--positives", "2", "--negatives", "2", "--slow-positives", "1",
                          "--slow-negatives", "1", "--markdown", str(markdown))
    assert code == 0
    expected = (FIXTURE / "expected.md").read_text(encoding="utf-8")
    written = markdown.read_text(encoding="utf-8")
    # 84: 3 quick explainers x 3 readouts x 2 patterns x (2 positives + 2 negatives), and
    # the slow two x 2 readouts x 2 patterns x 1 positive, ShapleySampling x 1 negative.
    assert written.startswith(expected + f"\n84 records in {tmp_path}; this run ")
    assert written in out
    assert not (tmp_path / "settings.json").exists()   # drawing tables claims no folder


def test_the_command_names_missing_task_files(tmp_path: Path) -> None:
    code, _, err = gracrc("wombat-study", "--out", str(tmp_path / "out"), "--wombat",
                          str(tmp_path), "--patterns", "3")
    assert code != 0
    assert f"missing task files: {tmp_path / 'P03' / 'P03.toml'}" in err
