"""The WOMBAT study's tables byte for byte: a committed records file (a tiny real run: P01
and P02, five explainers, three positives and two negatives per pattern, one of each for
the slow two) gives the committed tables, drawn at limits below the run's so that the
records past them are left out. `GRACR_UPDATE_GOLDEN=1` rewrites the golden file after an
intended change."""

from __future__ import annotations

import os
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
