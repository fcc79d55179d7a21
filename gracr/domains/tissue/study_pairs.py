"""Explain again the records a randomised copy needs to be paired with its base.

The randomisation control compares a model's attributions with those of its randomised
copy on the same instance (ρ, `gracr.domains.tissue.study_report.metric_rows`), which
needs both records' scores when the copy's row is made. A record unpacked from an
archive holds no scores (`gracr.domains.tissue.study_archive`: they are stripped once
scored), so a copy explained after its base's record came out of an archive would stay
unpaired: a session that ends between a model's explanations and its copies', or a second
folder of the same seed that explains the copies. `lost_pairs` names the jobs whose
records must be explained again; the study runs them into `attributions/AGAIN`
(`gracr.domains.tissue.study`), and `keep_again` moves the new records into the results
file, where the later record of a key replaces the earlier. The records are the same
explanations (the explainers are seeded), so every other row stays as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Sequence

from gracr.bench.record import (RESULTS_FILE, Record, append_records, latest_records,
                                read_records)
from gracr.domains.tissue.phases import ModelFile
from gracr.domains.tissue.study_names import ATTRIBUTIONS
from gracr.domains.tissue.study_report import base_key, read_rows, scores_digest

# The runner's folder, under DIR/attributions, for the records explained again.
AGAIN = "explained-again"
# What names one of the study's jobs: model, explainer, configuration hash, class.
JobName = tuple[str, str, str, str]


def _held(record: Record) -> bool:
    return record.extra.get("scores") is not None


def lost_pairs(folder: str | Path, models: Sequence[ModelFile]) -> set[JobName]:
    """The jobs (model, explainer, configuration, class) whose records `folder` must
    explain again so that every randomised copy's record is paired with its base's: of
    each pair of records not paired with both records' current scores (no row yet, or a
    row made while one of the two had none), those without scores. A pair whose two
    records hold their scores is paired by the next report; a pair already paired needs
    nothing, whether or not its records still hold their scores."""
    root = Path(folder)
    results = root / ATTRIBUTIONS / RESULTS_FILE
    if not results.is_file():
        return set()
    named = {model.name: model for model in models}
    latest = {record.key: record for record in latest_records(read_records(results))[0]
              if record.status == "ok" and record.variant in named}
    rows = read_rows(root)
    lost: set[JobName] = set()
    for key, record in latest.items():
        base = base_key(record, named)
        if base is None or base not in latest:
            continue
        row = rows.get(key)
        if row is not None and row.get("paired") and row.get("digest") == scores_digest(
                record) and row.get("base") == scores_digest(latest[base]):
            continue
        lost |= {(r.variant, r.explainer, r.config_hash, r.sample)
                 for r in (latest[base], record) if not _held(r)}
    return lost


def keep_again(folder: str | Path) -> int:
    """Append to the results file of `folder`'s study the records explained again under
    `attributions/AGAIN` that replace a record without scores (one the results file holds
    with its scores is as new as any explained again), then remove that folder; returns
    how many were appended. After a crash before the removal, a second call appends
    none of them again: the records they replaced now hold their scores."""
    root = Path(folder)
    again = root / ATTRIBUTIONS / AGAIN
    if not again.is_dir():
        return 0
    results = root / ATTRIBUTIONS / RESULTS_FILE
    current = {record.key: record for record in latest_records(read_records(results))[0]}
    made = again / RESULTS_FILE
    fresh = [record for record in
             (latest_records(read_records(made))[0] if made.is_file() else [])
             if record.status == "ok" and _held(record)
             and record.key in current and not _held(current[record.key])]
    if fresh:
        append_records(results, fresh)
    shutil.rmtree(again)
    return len(fresh)
