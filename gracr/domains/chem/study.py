"""WOMBAT's explainer study on gracr's compiled patterns (Table 2, S7 and S8 of the WOMBAT
paper): node scores of seven explainers on the 14 relaxed patterns under WOMBAT's two
readouts (and our threshold readout), scored against the node-level UPI, beside WOMBAT's
published numbers (`gracr.domains.chem.published`). `gracrc wombat-study`.

Each pattern's task file (written by `scripts/wombat_datasets.py`) runs through the
benchmark runner at node level (the presence bit compiled in, so a zeroed atom is a
deleted atom), variants `max` (r1, Eq. 3), `soft-or` (r2, Eq. 4) and `main` (ours, the
threshold readout; `variants` narrows them), seed 0, the first `positives` positive
molecules and the first
`negatives` negative ones of the (shuffled) file. The explainers whose cost is a search or
a sample per molecule (`SLOW`: ShapleySampling, SubgraphX; WOMBAT App. B also caps them,
at 100 molecules per class) take `slow_positives` and `slow_negatives`; SubgraphX's
coalitions are never uniform, so as in WOMBAT App. B it explains no negatives; the slow
ones run WOMBAT's two readouts only (`slow_variants`).

`WombatStudy` is a `gracr.bench.study.Study` of two phases, every pattern with the quick
explainers, then with the slow ones (a run cut short still has whole tables for the
former), and the report. Only the budget decides the folder's results: other patterns,
explainers or limits add records (the runner resumes), and the tables are drawn from
everything in the folder, each explainer's first instances up to this run's limits.

The report (printed, and written to `markdown` when given): per pattern and explainer, our
mean AUROC and AP beside WOMBAT's (S7, S8) for r1 and r2; Table 2's check marks ours /
WOMBAT's; and the IQR success rate on negatives per explainer and readout.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gracr.bench.record import RESULTS_FILE, Record, read_records
from gracr.bench.report.formatting import TABLE, NumberFormat
from gracr.bench.report.ranking import WOMBAT_DDOF, RankingRow, ranking_rows
from gracr.bench.runner import Job, plan_jobs, run
from gracr.bench.study import Execution, Phase, Say, Study, explained
from gracr.bench.report.tables import render_table
from gracr.bench.tasks import task_names
from gracr.domains.chem.published import (PERFECT_COUNT_EXPLAINERS, PERFECT_COUNT_READOUT,
                                          WOMBAT_EXPLAINERS, WOMBAT_READOUTS, published_auroc,
                                          published_average_precision,
                                          published_baseline_average_precision,
                                          published_perfect, published_perfect_count)
from gracr.errors import GracrError
from gracr.files import write_text
from gracr.stats import Stat

VARIANTS = ("max", "soft-or", "main")
SLOW = ("ShapleySampling", "SubgraphX")
# Explainers whose scores are a coalition (0/1), never uniform on a negative (WOMBAT App. B).
NO_NEGATIVES = ("SubgraphX",)


@dataclass(frozen=True)
class WombatSettings:
    """What one run of the study explains: the patterns (numbers, their task files under
    `wombat`), the explainers, how many molecules of each class (the slow explainers:
    `slow_positives`, `slow_negatives`, under `slow_variants`), the CPU budget per
    explanation, and the dataset store (None: `datasets` in the study's folder)."""

    wombat: str = "out/wombat"
    patterns: tuple[int, ...] = tuple(range(1, 15))
    explainers: tuple[str, ...] = (*WOMBAT_EXPLAINERS, "Rnd")
    positives: int = 100
    negatives: int = 100
    slow_positives: int = 20
    slow_negatives: int = 20
    slow_variants: tuple[str, ...] = ("max", "soft-or")
    variants: tuple[str, ...] = VARIANTS
    budget: float = 180.0
    datasets: str | None = None

    def task_files(self) -> list[Path]:
        return [Path(self.wombat) / f"P{n:02d}" / f"P{n:02d}.toml" for n in self.patterns]

    def limit(self, record: Record) -> int:
        """How many of the record's explainer's instances of its class this run asks for."""
        slow = record.explainer in SLOW
        if record.sample == "negative":
            return self.slow_negatives if slow else self.negatives
        return self.slow_positives if slow else self.positives

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "patterns": list(self.patterns),
                "explainers": list(self.explainers), "slow_variants": list(self.slow_variants),
                "variants": list(self.variants)}


class WombatStudy(Study[WombatSettings]):
    """The study in its folder (see the module docstring); `markdown`: a file the report
    is written to as well."""

    FREE = ("wombat", "patterns", "explainers", "positives", "negatives", "slow_positives",
            "slow_negatives", "slow_variants", "variants", "datasets")
    REQUIRED = {"patterns": list}
    OUTPUTS = (RESULTS_FILE,)

    def __init__(self, folder: str | Path, settings: WombatSettings,
                 execution: Execution = Execution(), markdown: str | Path | None = None
                 ) -> None:
        super().__init__(folder, settings, execution)
        self.markdown = markdown
        self.started = time.perf_counter()

    def _jobs(self, slow: bool) -> dict[str, list[Job]]:
        """Each pattern's jobs of the quick (or the slow) explainers."""
        settings = self.settings
        missing = [str(path) for path in settings.task_files() if not path.is_file()]
        if missing:
            raise GracrError(f"missing task files: {', '.join(missing)} (run "
                             f"scripts/wombat_datasets.py)")
        datasets = settings.datasets or str(self.folder / "datasets")
        tasks = task_names(",".join(str(path) for path in settings.task_files()))
        group = [name for name in settings.explainers if (name in SLOW) == slow]
        planned: dict[str, list[Job]] = {}
        for task in tasks:
            jobs: list[Job] = []
            for name in group:
                negatives = 0 if name in NO_NEGATIVES else \
                    (settings.slow_negatives if slow else settings.negatives)
                jobs += plan_jobs([task], list(settings.slow_variants if slow
                                               else settings.variants),
                                  [name], [0],
                                  settings.slow_positives if slow else settings.positives,
                                  settings.budget, {task: None}, datasets,
                                  settings="default", level="node", negatives=negatives)
            planned[task] = jobs
        return planned

    def phases(self) -> list[Phase]:
        results = self.folder / RESULTS_FILE

        def phase(name: str, slow: bool) -> Phase:
            def complete() -> bool:
                return explained([job for jobs in self._jobs(slow).values() for job in jobs],
                                 results)

            def explain(say: Say) -> None:
                execution = self.execution
                for task, jobs in self._jobs(slow).items():
                    if jobs:
                        say(f"{task}: {len(jobs)} jobs")
                        run(jobs, str(self.folder), workers=execution.workers,
                            progress=execution.progress, engine=execution.engine,
                            address=execution.address, ray_timeout=execution.ray_timeout)
            return Phase(name, complete, explain)

        return [phase("quick explainers", False), phase("slow explainers", True)]

    def report(self, say: Say) -> None:
        records = [r for r in read_records(self.folder / RESULTS_FILE)
                   if r.instance < self.settings.limit(r)]
        text = wombat_tables(records, self.settings)
        elapsed = time.perf_counter() - self.started
        text += (f"\n{len(records)} records in {self.folder}; this run {elapsed / 60:.1f} min "
                 f"with {self.execution.workers} workers.\n")
        say(text)
        if self.markdown is not None:
            write_text(self.markdown, text)


# The IQR test's success rate, to the precision that shows one failure in 10 000.
SHARE = NumberFormat(4, TABLE.missing)


def _mean(values: list[float]) -> float:
    stat = Stat.of(values, WOMBAT_DDOF)
    assert stat is not None, "a mean over no pattern is never asked for"
    return stat.mean


def wombat_tables(records: list[Record], settings: WombatSettings) -> str:
    """The report's tables (see the module docstring) of `records` (cut to the
    settings' limits, `WombatSettings.limit`)."""
    numbers = list(settings.patterns)
    explainers = list(settings.explainers)
    rows = {(r.task, r.variant, r.explainer): r for r in ranking_rows(records)}
    return _tables(rows, numbers, explainers) + "\n" + perfect_counts(rows, numbers)


def perfect_counts(rows: dict[tuple[str, str, str], RankingRow], numbers: list[int]) -> str:
    """Table S1 beside ours: per pattern, how many positives ShapleySampling and IG
    explain perfectly (AUROC = 1) of those with a defined AUROC, under r2 (Table S1's
    readout) and r1, ours then WOMBAT's (r2 only)."""
    headers = ["pattern"]
    for explainer in PERFECT_COUNT_EXPLAINERS:
        headers += [f"{explainer} r2 ours", f"{explainer} r1 ours", f"{explainer} WOMBAT"]
    table = []
    for number in numbers:
        cells = [f"P{number:02d}"]
        for explainer in PERFECT_COUNT_EXPLAINERS:
            for readout in (PERFECT_COUNT_READOUT, WOMBAT_READOUTS[0]):
                row = _row(rows, number, readout, explainer)
                cells.append(TABLE.missing if row is None else
                             _share(row.perfect_count, row.positives - row.undefined))
            cells.append(_share(*published_perfect_count(number, explainer)))
        table.append(cells)
    return ("## Perfect explanations counted, Table S1 (WOMBAT App. E.1; r2)\n\n"
            "Each cell: positives with AUROC = 1 / positives with a defined AUROC (share).\n\n"
            + render_table(headers, table) + "\n")


def _share(perfect: int, total: int) -> str:
    return f"{perfect} / {total}" + (f" ({perfect / total:.2f})" if total else "")


def _row(rows: dict[tuple[str, str, str], RankingRow], number: int, variant: str,
         explainer: str) -> RankingRow | None:
    return rows.get((f"WOMBAT-P{number:02d}", f"{variant}@node", explainer))


def _tables(rows: dict[tuple[str, str, str], RankingRow], numbers: list[int],
            explainers: list[str]) -> str:
    out = []
    # S7 / S8 beside ours.
    headers = ["pattern", "explainer"]
    for readout, label in zip(WOMBAT_READOUTS, ("r1", "r2")):
        headers += [f"AUROC {label} ours", f"AUROC {label} WOMBAT", f"AP {label} ours",
                    f"AP {label} WOMBAT"]
    headers += ["AUROC threshold (ours)", "AP threshold (ours)", "positives (undefined)"]
    table = []
    for number in numbers:
        for explainer in explainers:
            cells = [f"P{number:02d}", explainer]
            for readout in WOMBAT_READOUTS:
                row = _row(rows, number, readout, explainer)
                published = explainer in WOMBAT_EXPLAINERS
                cells += [TABLE.number(row.auroc if row else None),
                          TABLE.number(published_auroc(number, explainer, readout))
                          if published else "–",
                          TABLE.number(row.average_precision if row else None),
                          TABLE.number(published_average_precision(number, explainer, readout))
                          if published else
                          TABLE.number(published_baseline_average_precision(number)) + " (baseline)"]
            own = _row(rows, number, "main", explainer)
            first = _row(rows, number, WOMBAT_READOUTS[0], explainer)
            cells += [TABLE.number(own.auroc if own else None),
                      TABLE.number(own.average_precision if own else None),
                      f"{first.positives} ({first.undefined})" if first else "–"]
            table.append(cells)
    out.append("## Mean AUROC and AP on positives, ours beside WOMBAT's Tables S7 and S8\n\n"
               + render_table(headers, table) + "\n")

    # The "Mean" rows of S7 and S8, over the patterns run here (WOMBAT's over the same).
    headers = ["explainer", "readout", "patterns", "mean AUROC ours", "mean AUROC WOMBAT",
               "mean AP ours", "mean AP WOMBAT", "perfect patterns ours",
               "perfect patterns WOMBAT"]
    table = []
    for explainer in explainers:
        for readout in (*WOMBAT_READOUTS, "main"):
            found = [(n, r) for n in numbers
                     if (r := _row(rows, n, readout, explainer)) is not None
                     and r.auroc is not None and r.average_precision is not None]
            if not found:
                continue
            published = explainer in WOMBAT_EXPLAINERS and readout != "main"
            ours_auroc = _mean([r.auroc or 0.0 for _, r in found])
            ours_ap = _mean([r.average_precision or 0.0 for _, r in found])
            table.append([
                explainer, readout if readout != "main" else "threshold (ours)",
                str(len(found)), TABLE.number(ours_auroc),
                TABLE.number(_mean([published_auroc(n, explainer, readout) for n, _ in found]))
                if published else TABLE.missing,
                TABLE.number(ours_ap),
                TABLE.number(_mean([published_average_precision(n, explainer, readout)
                                    for n, _ in found]))
                if published else TABLE.missing,
                str(sum(r.perfect for _, r in found)),
                str(sum(published_perfect(n, explainer, readout) for n, _ in found))
                if published else "–"])
    out.append("## Means over the patterns (the 'Mean' rows of S7 and S8), and how many "
               "patterns are perfect (Table 2)\n\n" + render_table(headers, table) + "\n")

    # Table 2: perfect (every defined AUROC = 1). A cell holds ours under r1, r2 and the
    # threshold readout, then WOMBAT's under r1 and r2 ("·": not run here).
    headers = ["pattern", *explainers]
    table = []
    for number in numbers:
        cells = [f"P{number:02d}"]
        for explainer in explainers:
            ours = ""
            for readout in (*WOMBAT_READOUTS, "main"):
                row = _row(rows, number, readout, explainer)
                ours += "·" if row is None else ("✔" if row.perfect else "✗")
            theirs = "".join("✔" if published_perfect(number, explainer, readout) else "✗"
                             for readout in WOMBAT_READOUTS) \
                if explainer in WOMBAT_EXPLAINERS else ""
            cells.append(ours + (f" / {theirs}" if theirs else ""))
        table.append(cells)
    out.append("## Perfect explanations (AUROC = 1 on every positive), Table 2\n\n"
               "Each cell: ours under r1, r2 and our threshold readout / WOMBAT's under r1 "
               "and r2 (· not run).\n\n" + render_table(headers, table) + "\n")

    # The IQR test on negatives, pooled over the patterns.
    headers = ["explainer", "readout", "negatives", "IQR success", "patterns with a failure"]
    table = []
    for explainer in explainers:
        for readout in (*WOMBAT_READOUTS, "main"):
            tested = [(n, _row(rows, n, readout, explainer)) for n in numbers]
            counted = [(n, r) for n, r in tested if r is not None and r.negatives]
            total = sum(r.negatives for _, r in counted)
            if not total:
                continue
            passed = sum(round((r.iqr_success or 0.0) * r.negatives) for _, r in counted)
            failing = [f"P{n:02d}" for n, r in counted if (r.iqr_success or 0.0) < 1.0]
            table.append([explainer, readout, str(total), SHARE.number(passed / total),
                          ", ".join(failing) or "none"])
    out.append("## IQR test on negatives (WOMBAT §3.3; WOMBAT: every explainer passes on every "
               "negative except PGExplainer, 1 of 140 000)\n\n" + render_table(headers, table)
               + "\n")
    return "\n".join(out)

