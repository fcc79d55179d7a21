"""WOMBAT's table of a run (§3.3 and Table 2, S7, S8 of the WOMBAT paper): how well each
explainer ranks the ground truth first, and whether it stays uniform on negatives.

One row per (task, variant — with `@node` at node level —, explainer, config hash),
over every seed's records pooled (WOMBAT reports one run):

* `positives` explained (status ok), of which `undefined` had every scored element in
  the ground truth (no AUROC; left out of the means, as WOMBAT leaves out molecules made
  entirely of the motif);
* the mean AUROC and mean average precision over the rest, each ± its standard error
  over instances (WOMBAT's ± column: `gracr.stats.Stat.standard_error`, ddof=1);
* `perfect`: whether every defined AUROC is exactly 1 (Table 2's check mark), with how
  many are;
* `negatives` explained and the share that pass the IQR test (`uniform`).

It is built from raw records only (a `seeds.csv` keeps no per-instance AUROC).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gracr.bench.record import Record
from gracr.bench.report.aggregation import cell_rank, scored_variant
from gracr.bench.report.formatting import FINE, TABLE
from gracr.stats import Stat

RANKING_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "config_hash", "positives", "undefined", "auroc",
    "auroc_se", "perfect", "perfect_count", "average_precision", "average_precision_se",
    "negatives", "iqr_success")


@dataclass(frozen=True)
class RankingRow:
    task: str
    variant: str
    explainer: str
    config_hash: str
    positives: int
    undefined: int
    auroc: float | None
    auroc_se: float | None
    perfect_count: int
    average_precision: float | None
    average_precision_se: float | None
    negatives: int
    iqr_success: float | None

    @property
    def perfect(self) -> bool:
        """Table 2's check mark: every defined AUROC is 1 (and there is one)."""
        defined = self.positives - self.undefined
        return defined > 0 and self.perfect_count == defined


def _mean_and_error(values: Sequence[float]) -> tuple[float | None, float | None]:
    stat = Stat.of(values, ddof=1)
    return (None, None) if stat is None else (stat.mean, stat.standard_error)


def ranking_rows(records: Iterable[Record]) -> list[RankingRow]:
    """The table's rows, in report order; empty when no record was ranked or tested."""
    groups: dict[tuple[str, str, str, str], list[Record]] = defaultdict(list)
    for record in records:
        if record.status == "ok" and record.scored:
            groups[(record.task, scored_variant(record.variant, record.level),
                    record.explainer, record.config_hash)].append(record)
    rows = []
    for key in sorted(groups, key=cell_rank):
        group = groups[key]
        positives = [r for r in group if r.sample == "positive"]
        negatives = [r for r in group if r.sample == "negative"]
        ranked = [r for r in positives if r.auroc is not None]
        if not ranked and not negatives:
            continue
        auroc = [float(r.auroc) for r in ranked if r.auroc is not None]
        precision = [float(r.average_precision) for r in ranked
                     if r.average_precision is not None]
        auroc_mean, auroc_se = _mean_and_error(auroc)
        ap_mean, ap_se = _mean_and_error(precision)
        rows.append(RankingRow(
            *key, positives=len(positives), undefined=len(positives) - len(ranked),
            auroc=auroc_mean, auroc_se=auroc_se, perfect_count=sum(v == 1.0 for v in auroc),
            average_precision=ap_mean, average_precision_se=ap_se, negatives=len(negatives),
            iqr_success=(sum(bool(r.uniform) for r in negatives) / len(negatives)
                         if negatives else None)))
    return rows


def ranking_csv_rows(rows: Sequence[RankingRow]) -> list[list[str]]:
    return [[r.task, r.variant, r.explainer, r.config_hash, str(r.positives), str(r.undefined),
             FINE.number(r.auroc), FINE.number(r.auroc_se), "yes" if r.perfect else "no",
             str(r.perfect_count), FINE.number(r.average_precision),
             FINE.number(r.average_precision_se), str(r.negatives), FINE.number(r.iqr_success)]
            for r in rows]


RANKING_MARKDOWN_HEADERS: tuple[str, ...] = (
    "task", "variant", "explainer", "positives (undefined)", "mean AUROC", "perfect",
    "mean AP", "negatives", "IQR success")


def ranking_markdown_rows(rows: Sequence[RankingRow]) -> list[list[str]]:
    return [[r.task, r.variant, r.explainer, f"{r.positives} ({r.undefined})",
             TABLE.mean_pm(r.auroc, r.auroc_se),
             ("✔" if r.perfect else "✗") + f" {r.perfect_count}/{r.positives - r.undefined}",
             TABLE.mean_pm(r.average_precision, r.average_precision_se), str(r.negatives),
             TABLE.number(r.iqr_success)] for r in rows]
