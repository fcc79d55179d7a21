"""The WOMBAT study's tables byte for byte: a committed records file (a tiny real run: P01
and P02, five explainers, three positives and two negatives per pattern, one of each for
the slow two) gives the committed tables, drawn at limits below the run's so that the
records past them are left out. `GRACR_UPDATE_GOLDEN=1` rewrites the golden file after an
intended change."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from gracr.bench.record import Record, read_records
from gracr.domains.paper.report.ranking import ranking_rows

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "wombat"
UPDATE = os.environ.get("GRACR_UPDATE_GOLDEN") == "1"
PATTERNS = [1, 2]
EXPLAINERS = ["Saliency", "IG", "ShapleySampling", "SubgraphX", "Rnd"]
POSITIVES, NEGATIVES, SLOW_POSITIVES, SLOW_NEGATIVES = 2, 2, 1, 1


def test_the_tables_of_the_fixture_records_are_the_golden_tables() -> None:
    spec = importlib.util.spec_from_file_location(
        "wombat_explainers", ROOT / "benchmarks" / "wombat_explainers.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    def limit(record: Record) -> int:
        slow = record.explainer in script.SLOW
        if record.sample == "negative":
            return SLOW_NEGATIVES if slow else NEGATIVES
        return SLOW_POSITIVES if slow else POSITIVES

    records = [r for r in read_records(FIXTURE / "results.jsonl") if r.instance < limit(r)]
    rows = {(r.task, r.variant, r.explainer): r for r in ranking_rows(records)}
    text = script._tables(rows, PATTERNS, EXPLAINERS)
    if UPDATE:
        (FIXTURE / "expected.md").write_text(text, encoding="utf-8")
    assert text == (FIXTURE / "expected.md").read_text(encoding="utf-8")
