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

The report (printed, and written to `markdown` when given) opens with WOMBAT's headline
findings (`published.HEADLINES`), each measured on these records and marked reproduced / not
reproduced / not run, with the most likely reason where it differs and whether that reason
is tested (`gracr.domains.chem.headlines`); Table S2's and the anti-IG whitebox's rows read
`gracrc bench`'s results on those whiteboxes (`whitebox_cells`), Figure S8's the bound's
lines (`read_bounds`), Figure S7's the records of SHAP sampling at other numbers of
permutations (`permutation_cells`), each when given. Then: per pattern and explainer, our mean AUROC
and AP beside WOMBAT's (S7, S8) for r1 and r2, each mean with its 95 % bootstrap interval
over molecules (`gracr.stats.bootstrap_interval`), and how many of those cells agree
(within 0.05, or WOMBAT's value inside our interval); the means over patterns; Table 2's
check marks ours / WOMBAT's, with what a ✔ on n molecules can claim; Table S1's
per-molecule perfect counts of SHAP sampling and IG under r2, ours beside WOMBAT's; and the
IQR success rate on negatives per explainer and readout.

Its size (500–600 lines) is the study's two phases, the gathering of its records into
cells for the headline verdicts (the patterns', the whiteboxes', the permutation sweep's)
and the five tables above, each beside WOMBAT's numbers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from gracr.bench.record import RESULTS_FILE, Record, read_records
from gracr.bench.report.aggregation import scored_variant
from gracr.bench.report.formatting import TABLE, NumberFormat
from gracr.bench.report.ranking import WOMBAT_DDOF, RankingRow, ranking_rows
from gracr.bench.runner import Job, plan_jobs, run
from gracr.bench.study import Execution, Phase, Say, Study, explained
from gracr.bench.report.tables import render_table
from gracr.bench.tasks import task_names
from gracr.domains.chem.headlines import (WOMBAT_HEADLINES, Cell, Cells, Evidence,
                                          PatternBound, WhiteboxCells, compatible,
                                          perfect_rate_bounds)
from gracr.domains.chem.whiteboxes import ANTI_IG, FLUORINE_CARBONYL
from gracr.domains.headlines import counted as verdict_counts
from gracr.domains.chem.published import (TABLE_S1_EXPLAINERS, TABLE_S1_READOUT,
                                          WOMBAT_EXPLAINERS, WOMBAT_READOUTS, published_auroc,
                                          published_average_precision,
                                          published_baseline_average_precision,
                                          published_perfect, published_perfect_count)
from gracr.errors import GracrError
from gracr.files import read_json_lines, write_text
from gracr.stats import (Interval, Stat, all_successes_lower_bound, bootstrap_interval,
                         mean_of_means)

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
    is written to as well; `whiteboxes`, `bounds`, `permutations`: the headline table's
    extra inputs."""

    FREE = ("wombat", "patterns", "explainers", "positives", "negatives", "slow_positives",
            "slow_negatives", "slow_variants", "variants", "datasets")
    REQUIRED = {"patterns": list}
    OUTPUTS = (RESULTS_FILE,)

    def __init__(self, folder: str | Path, settings: WombatSettings,
                 execution: Execution = Execution(), markdown: str | Path | None = None,
                 whiteboxes: str | Path | None = None, bounds: str | Path | None = None,
                 permutations: str | Path | None = None) -> None:
        super().__init__(folder, settings, execution)
        self.markdown = markdown
        self.whiteboxes = whiteboxes
        self.bounds = bounds
        self.permutations = permutations
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
                                  settings="default", level="node", negatives=negatives,
                                  batch=self.execution.batch)
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
        whiteboxes = {} if self.whiteboxes is None else whitebox_cells(
            read_records(Path(self.whiteboxes) / RESULTS_FILE))
        bounds = [] if self.bounds is None else read_bounds(self.bounds)
        sweep = [] if self.permutations is None else list(read_records(
            Path(self.permutations) / RESULTS_FILE))
        text = wombat_tables(records, self.settings, whiteboxes, bounds, sweep)
        elapsed = time.perf_counter() - self.started
        text += (f"\n{len(records)} records in {self.folder}; this run {elapsed / 60:.1f} min "
                 f"with {self.execution.workers} workers.\n")
        say(text)
        if self.markdown is not None:
            write_text(self.markdown, text)


# The IQR test's success rate, to the precision that shows one failure in 10 000.
SHARE = NumberFormat(4, TABLE.missing)
# Two means "agree" within this (the reading of S7 and S8 beside ours), or when
# WOMBAT's lies inside our 95 % interval.
AGREEMENT = 0.05


def _interval(found: tuple[float, Interval | None] | None) -> Interval | None:
    return None if found is None else found[1]


def _mean(values: list[float]) -> float:
    stat = Stat.of(values, WOMBAT_DDOF)
    assert stat is not None, "a mean over no pattern is never asked for"
    return stat.mean


def wombat_tables(records: list[Record], settings: WombatSettings,
                  whiteboxes: WhiteboxCells | None = None,
                  bounds: Sequence[PatternBound] = (),
                  permutations: Sequence[Record] = ()) -> str:
    """The report's tables (see the module docstring) of `records` (cut to the
    settings' limits, `WombatSettings.limit`); the headline table also reads the extra
    whiteboxes' cells, Figure S8's bounds and the records of Figure S7's sweep of SHAP
    sampling's budget (`permutation_cells`, with the study's own), where given."""
    numbers = list(settings.patterns)
    explainers = list(settings.explainers)
    rows = {(r.task, r.variant, r.explainer): r for r in ranking_rows(records)}
    cells = {key: c for key, c in cells_of(records).items() if key[0] in numbers
             and key[2] in explainers}
    sweep = permutation_cells([*permutations, *records]) if permutations else {}
    return _tables(rows, numbers, explainers, Evidence(
        cells, whiteboxes or {}, [b for b in bounds if b.pattern in numbers],
        {n: {p: c for p, c in by_pattern.items() if p in numbers}
         for n, by_pattern in sweep.items()}))


def cells_of(records: Iterable[Record]) -> Cells:
    """Each (pattern, readout, explainer)'s per-molecule AUROC and AP and IQR outcomes: what
    the intervals and the headline verdicts read (`ranking_rows` keeps only means)."""
    return _gathered(records, lambda task: int(task.removeprefix("WOMBAT-P"))
                     if task.startswith("WOMBAT-P") else None)


def whitebox_cells(records: Iterable[Record]) -> WhiteboxCells:
    """`cells_of` for the two extra whiteboxes (`gracr.domains.chem.whiteboxes`), keyed by
    (whitebox, readout, explainer)."""
    names = {f"WOMBAT-{name}": name for name in (FLUORINE_CARBONYL, ANTI_IG)}
    return _gathered(records, names.get)


def permutation_cells(records: Iterable[Record]) -> dict[int, dict[int, Cell]]:
    """Figure S7's sweep: per number of permutations n and pattern, SHAP sampling's cell
    under r2 (WOMBAT's readout for Table S1 and Figure S7) from `records` (the study's at
    WOMBAT's budget and `gracrc bench`'s at the others), so that every budget is read on
    the same molecules: the patterns explained at every budget found, each on the
    molecules explained at all of them."""
    auroc: dict[tuple[int, int], dict[int, float]] = {}
    for r in records:
        if (r.explainer != "ShapleySampling" or r.status != "ok" or not r.scored
                or r.sample != "positive" or r.auroc is None
                or not r.task.startswith("WOMBAT-P")
                or scored_variant(r.variant, r.level).removesuffix("@node") != "soft-or"):
            continue
        key = (int(r.config["n_samples"]), int(r.task.removeprefix("WOMBAT-P")))
        # By the molecule's place in its file: the same molecule whatever the dataset's
        # size (a `gracrc bench` run reads the file to its --graphs).
        auroc.setdefault(key, {})[r.graph] = float(r.auroc)
    budgets = sorted({n for n, _ in auroc})
    cells: dict[int, dict[int, Cell]] = {n: {} for n in budgets}
    for pattern in sorted({p for _, p in auroc}):
        found = [auroc.get((n, pattern), {}) for n in budgets]
        if not all(found):
            continue   # a budget that did not reach the pattern: its molecules are not read
        common = sorted(set.intersection(*(set(f) for f in found)))
        for n, values in zip(budgets, found):
            if common:
                cells[n][pattern] = Cell(tuple(values[i] for i in common), ())
    return {n: by_pattern for n, by_pattern in cells.items() if by_pattern}


Unit = TypeVar("Unit", int, str)


def _gathered(records: Iterable[Record], unit_of: Callable[[str], Unit | None]
              ) -> dict[tuple[Unit, str, str], Cell]:
    """Per (unit, readout, explainer), the cell of the scored records whose task names a
    unit (`unit_of`: the task's unit, or None for a task of no unit)."""
    auroc: dict[tuple[Unit, str, str], list[float]] = {}
    precision: dict[tuple[Unit, str, str], list[float]] = {}
    negatives: dict[tuple[Unit, str, str], list[bool]] = {}
    for r in records:
        unit = unit_of(r.task)
        if r.status != "ok" or not r.scored or unit is None:
            continue
        key = (unit, scored_variant(r.variant, r.level).removesuffix("@node"), r.explainer)
        auroc.setdefault(key, [])
        precision.setdefault(key, [])
        negatives.setdefault(key, [])
        if r.sample == "negative":
            negatives[key].append(bool(r.uniform))
        elif r.auroc is not None:
            auroc[key].append(float(r.auroc))
            if r.average_precision is not None:
                precision[key].append(float(r.average_precision))
    return {key: Cell(tuple(auroc[key]), tuple(precision[key]), len(negatives[key]),
                      sum(negatives[key])) for key in auroc}


def _with_interval(value: float | None, values: tuple[float, ...]) -> str:
    """Our mean and its bootstrap interval over molecules."""
    return TABLE.with_interval(TABLE.number(value), bootstrap_interval(values))


def _row(rows: dict[tuple[str, str, str], RankingRow], number: int, variant: str,
         explainer: str) -> RankingRow | None:
    return rows.get((f"WOMBAT-P{number:02d}", f"{variant}@node", explainer))


def _tables(rows: dict[tuple[str, str, str], RankingRow], numbers: list[int],
            explainers: list[str], evidence: Evidence) -> str:
    out = []
    # The headline findings, each measured on these records.
    headlines = WOMBAT_HEADLINES.rows(evidence)
    out.append(f"## WOMBAT's headline findings against this run ({verdict_counts(headlines)})\n\n"
               "Means are means over patterns of means over molecules [95 % bootstrap "
               "interval, molecules resampled within each pattern].\n\n"
               + render_table(list(WOMBAT_HEADLINES.headers), headlines) + "\n")

    def beside(*keys: str) -> str:
        """The verdict lines of the findings a table shows, under it."""
        return "\n" + WOMBAT_HEADLINES.beside(headlines, keys) + "\n"

    def cell_of(number: int, readout: str, explainer: str) -> Cell:
        return evidence.patterns.get((number, readout, explainer), Cell((), ()))

    # Agreement of the per-pattern cells: |ours − WOMBAT's| ≤ AGREEMENT, or WOMBAT's mean
    # inside our interval (the sampling noise of our molecules).
    compared = close = inside = neither = 0
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
                per_molecule = cell_of(number, readout, explainer)
                cells += [_with_interval(row.auroc if row else None, per_molecule.auroc),
                          TABLE.number(published_auroc(number, explainer, readout))
                          if published else "–",
                          _with_interval(row.average_precision if row else None,
                                         per_molecule.average_precision),
                          TABLE.number(published_average_precision(number, explainer, readout))
                          if published else
                          TABLE.number(published_baseline_average_precision(number)) + " (baseline)"]
                if published and row is not None:
                    for mine, wombat, values in (
                            (row.auroc, published_auroc(number, explainer, readout),
                             per_molecule.auroc),
                            (row.average_precision,
                             published_average_precision(number, explainer, readout),
                             per_molecule.average_precision)):
                        if mine is None:
                            continue
                        interval = bootstrap_interval(values)
                        near = abs(mine - wombat) <= AGREEMENT
                        held = interval is not None and interval.holds(wombat)
                        compared += 1
                        close += near
                        inside += held
                        neither += not (near or held)
            own = _row(rows, number, "main", explainer)
            first = _row(rows, number, WOMBAT_READOUTS[0], explainer)
            cells += [TABLE.number(own.auroc if own else None),
                      TABLE.number(own.average_precision if own else None),
                      f"{first.positives} ({first.undefined})" if first else "–"]
            table.append(cells)
    out.append("## Mean AUROC and AP on positives, ours beside WOMBAT's Tables S7 and S8\n\n"
               "Ours: mean over positive molecules [95 % bootstrap interval over them; none "
               "for a single molecule]. WOMBAT's columns are filled only for the explainers it "
               "ran (Rnd: its AP baseline, the mean share of motif atoms).\n\n"
               f"Of {compared} cells where WOMBAT published a value (pattern × explainer × "
               f"r1/r2 × AUROC/AP), {close} lie within {AGREEMENT} of it and {inside} hold "
               f"WOMBAT's value inside our interval; {neither} are neither, a difference the "
               f"noise of our molecules does not explain (a cell whose molecules all score "
               f"the same has a zero-width interval, a single molecule none).\n\n"
               + render_table(headers, table) + "\n"
               + beside("gradients-beat-perturbation", "perturbation-near-random",
                        "saliency-collapses-r2"))

    # The "Mean" rows of S7 and S8, over the patterns run here (WOMBAT's over the same).
    headers = ["explainer", "readout", "patterns", "mean AUROC ours", "mean AUROC WOMBAT",
               "mean AP ours", "mean AP WOMBAT", "perfect patterns ours",
               "perfect patterns WOMBAT", "perfect molecules ours"]
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
            per_pattern = {n: cell_of(n, readout, explainer) for n, _ in found}
            auroc_interval = _interval(mean_of_means(
                {n: c.auroc for n, c in per_pattern.items()}))
            ap_interval = _interval(mean_of_means(
                {n: c.average_precision for n, c in per_pattern.items()}))
            perfect_molecules = sum(c.perfect_count for c in per_pattern.values())
            molecules = sum(len(c.auroc) for c in per_pattern.values())
            table.append([
                explainer, readout if readout != "main" else "threshold (ours)",
                str(len(found)), TABLE.with_interval(TABLE.number(ours_auroc), auroc_interval),
                TABLE.number(_mean([published_auroc(n, explainer, readout) for n, _ in found]))
                if published else TABLE.missing,
                TABLE.with_interval(TABLE.number(ours_ap), ap_interval),
                TABLE.number(_mean([published_average_precision(n, explainer, readout)
                                    for n, _ in found]))
                if published else TABLE.missing,
                str(sum(r.perfect for _, r in found)),
                str(sum(published_perfect(n, explainer, readout) for n, _ in found))
                if published else "–",
                f"{perfect_molecules}/{molecules}"])
    out.append("## Means over the patterns (the 'Mean' rows of S7 and S8), and how many "
               "patterns are perfect (Table 2)\n\n"
               "Ours: the mean of the per-pattern means [95 % bootstrap interval, molecules "
               "resampled within each pattern]; perfect molecules: AUROC = 1, over every "
               "pattern.\n\n" + render_table(headers, table) + "\n"
               + beside("gradients-beat-perturbation", "perturbation-near-random",
                        "perfect-is-rare"))

    # Table 2: perfect (every defined AUROC = 1). A cell holds ours under r1, r2 and the
    # threshold readout, then WOMBAT's under r1 and r2 ("·": not run here).
    headers = ["pattern", *explainers]
    table = []
    alone = 0   # ✔ ours under r1 or r2 where WOMBAT's is ✗
    for number in numbers:
        for explainer in explainers:
            for readout in WOMBAT_READOUTS:
                row = _row(rows, number, readout, explainer)
                alone += (explainer in WOMBAT_EXPLAINERS and row is not None and row.perfect
                          and not published_perfect(number, explainer, readout))
    bounds = perfect_rate_bounds([len(c.auroc) for (n, r, e), c in evidence.patterns.items()
                                  if n in numbers and e in explainers
                                  and r in WOMBAT_READOUTS])
    for number in numbers:
        cells_row = [f"P{number:02d}"]
        for explainer in explainers:
            ours = ""
            for readout in (*WOMBAT_READOUTS, "main"):
                row = _row(rows, number, readout, explainer)
                ours += "·" if row is None else ("✔" if row.perfect else "✗")
            theirs = "".join("✔" if published_perfect(number, explainer, readout) else "✗"
                             for readout in WOMBAT_READOUTS) \
                if explainer in WOMBAT_EXPLAINERS else ""
            cells_row.append(ours + (f" / {theirs}" if theirs else ""))
        table.append(cells_row)
    out.append("## Perfect explanations (AUROC = 1 on every positive), Table 2\n\n"
               "Each cell: ours under r1, r2 and our threshold readout / WOMBAT's under r1 "
               "and r2 (· not run). "
               f"{alone} of our ✔ under r1 or r2 are ours alone (WOMBAT ✗). A ✔ here is "
               "AUROC = 1 on every one of this run's molecules, WOMBAT's on up to 10 000: "
               f"n of n perfect bounds the per-molecule rate only from below (95 %: {bounds}), "
               "so a ✔ of ours beside a ✗ of WOMBAT's is a difference only where WOMBAT's "
               "rate lies below that bound (Table S1 below, for SHAP sampling and IG).\n\n"
               + render_table(headers, table) + "\n"
               + beside("perfect-is-rare", "ig-r2-perfect", "ig-p03", "svs-perfect-p12-p14",
                        "pgexplainer-never-perfect"))

    # Table S1: molecules with AUROC = 1 under r2, ours beside WOMBAT's.
    headers = ["pattern", "explainer", "perfect ours", "rate ours [95 %]", "perfect WOMBAT",
               "rate WOMBAT", "WOMBAT's rate fits ours"]
    table = []
    for explainer in TABLE_S1_EXPLAINERS:
        if explainer not in explainers:
            continue
        for number in numbers:
            cell = cell_of(number, TABLE_S1_READOUT, explainer)
            perfect, total = published_perfect_count(number, explainer)
            n = len(cell.auroc)
            if not n:
                continue
            rate = cell.perfect_count / n
            spread = (f"≥ {TABLE.number(all_successes_lower_bound(n))}"
                      if cell.perfect_count == n else TABLE.interval(
                          bootstrap_interval([1.0 if v == 1.0 else 0.0 for v in cell.auroc])))
            table.append([f"P{number:02d}", explainer, f"{cell.perfect_count}/{n}",
                          f"{TABLE.number(rate)} {spread}".strip(), f"{perfect}/{total}",
                          TABLE.number(perfect / total),
                          "yes" if compatible(cell, perfect / total) else "no"])
    if table:
        out.append("## Perfect molecules under r2, ours beside WOMBAT's Table S1\n\n"
                   "Our rate's interval: the bootstrap over molecules, or, when every molecule "
                   "is perfect (nothing to resample), the 95 % lower bound on the rate. "
                   "\"Fits\": WOMBAT's rate inside that interval or above that bound.\n\n"
                   + render_table(headers, table) + "\n" + beside("table-s1", "ig-p04"))

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
               + "\n" + beside("negatives-uniform"))
    return "\n".join(out)


def read_bounds(path: str | Path) -> list[PatternBound]:
    """Figure S8's bounds as `benchmarks/wombat_pgexplainer_bound.py` writes them (`--json`:
    one JSON object a line, the fields of `PatternBound`)."""
    lines, note = read_json_lines(path)
    if note is not None:
        raise GracrError(f"{path}: {note}")
    try:
        return [PatternBound(**line) for line in lines]
    except TypeError as error:
        raise GracrError(f"{path}: not the bound's lines ({error})") from None


def report_inputs(folder: str | Path) -> tuple[list[str], str] | None:
    """What `gracrc report --html` needs of a WOMBAT study's folder, from its settings
    (`settings.json`): the patterns' task files (its records name their tasks only) and its
    dataset store (`datasets` in the folder unless the settings name one); None for a
    folder that holds no WOMBAT study's settings."""
    from gracr.bench.study import SETTINGS_FILE

    path = Path(folder) / SETTINGS_FILE
    if not path.is_file():
        return None
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        raise GracrError(f"{path}: not the JSON settings a study writes") from None
    if not isinstance(settings, dict) or "wombat" not in settings:
        return None
    wombat, patterns = settings.get("wombat"), settings.get("patterns")
    if not isinstance(wombat, str) or not isinstance(patterns, list) or \
            not all(isinstance(n, int) and not isinstance(n, bool) for n in patterns):
        raise GracrError(f"{path}: 'wombat' should be a folder and 'patterns' a list of "
                         "pattern numbers")
    files = WombatSettings(wombat=wombat, patterns=tuple(patterns)).task_files()
    missing = [str(file) for file in files if not file.is_file()]
    if missing:
        raise GracrError(f"{path}: its task files are missing ({', '.join(missing)}); the "
                         "report names its instances by them")
    store = settings.get("datasets")
    return ([str(file) for file in files],
            store if isinstance(store, str) else str(Path(folder) / "datasets"))
