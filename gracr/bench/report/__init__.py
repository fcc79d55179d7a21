"""GracrBench reports: read the runner's `results.jsonl`, aggregate as the paper does, tabulate.

Aggregation (§5, App. E, App. H). Records are grouped by (task, variant, explainer, config hash)
and, inside that, by seed:

- A seed with any 'oot' record ran out of time: App. H halts it, so it is left out of the means.
- Each remaining seed contributes the mean over its 'ok' records of precision, recall and F1
  (F1 is averaged sample-wise, so it need not equal the F1 of the mean precision and recall).
- A cell is mean ± std (numpy's default, ddof=0) over those per-seed means. It reads 'OOT' when
  every seed ran out of time, and its numbers carry a '†' when some did.
- 'error' records are left out and counted; the report says how many.

Times (Table 14 layout) are pooled over the instances that finished ('ok' records of every seed,
those of out-of-time seeds included), as the caption of Table 14 says; '†' marks a cell where some
instance ran out of time.

Everything above needs only one summary per seed (`SeedSummary`: its counts, its mean scores and
the moments of its times), so the report is computed from those. `gracrc report` writes them as
`seeds.csv`, a few KB that can be committed, and reads such a file back as an input beside result
folders: a long run split over sessions (or machines) is reported whole from its parts' summaries
even after the raw records are gone. A seed may come from one input only (an error otherwise).

Every function here is pure except the `write_*` ones and `write_report`, which write files.
"""

from __future__ import annotations

import csv
import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from gracr.bench.paper import (PAPER_EXPLAINERS, TABLE2_TASKS, TABLE3_TASKS, TABLE14_EXPLAINERS,
                               MeanStd, paper_score, paper_time)
from gracr.bench.record import RESULTS_FILE, SCORES, Record, read_records
from gracr.bench.tables import render_table, write_table
from gracr.errors import GracrError

MAIN_VARIANT = "main"
EXPLAINER_ORDER: tuple[str, ...] = PAPER_EXPLAINERS + ("GraphMask-clean",)
TASK_ORDER: tuple[str, ...] = TABLE2_TASKS + TABLE3_TASKS
# Beside the paper, a difference larger than this is flagged.
DIFF_FLAG = 0.05
RESULTS_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "seeds", "instances", "precision", "precision_std",
    "recall", "recall_std", "f1", "f1_std", "oot", "config_hash")
TIMES_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "instances", "cpu_seconds", "cpu_seconds_std",
    "wall_seconds", "wall_seconds_std", "partial", "paper_wall_seconds",
    "paper_wall_seconds_std", "paper_partial", "config_hash")
SEEDS_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "config_hash", "seed", "ok", "out_of_time", "errors",
    *SCORES, "cpu_mean", "cpu_m2", "wall_mean", "wall_m2", "gracr_versions", "first_error")
DAGGER = "†"
MISSING = "-"



# ---------------------------------------------------------------- reading


@dataclass(frozen=True)
class LoadedResults:
    """The records of several output folders, duplicates resolved (the last one kept)."""

    records: tuple[Record, ...]
    duplicates: int
    files: tuple[str, ...]


def results_file(folder: str) -> str:
    """`FOLDER/results.jsonl` (a path to a `.jsonl` file is taken as it is)."""
    if os.path.isfile(folder):
        return folder
    if not os.path.isdir(folder):
        raise GracrError(f"{folder}: no such folder")
    path = os.path.join(folder, RESULTS_FILE)
    if not os.path.isfile(path):
        raise GracrError(f"{folder}: no {RESULTS_FILE} in this folder (run `gracrc bench` first)")
    return path


def _read_file(path: str) -> list[Record]:
    records = list(read_records(path))
    if not records:
        raise GracrError(f"{path}: no results (the file is empty)")
    return records


def load_results(folders: Sequence[str]) -> LoadedResults:
    """Every record of `FOLDER/results.jsonl` for each folder, in order; of several records with
    the same key (task, variant, explainer, config hash, seed, instance) the last one is kept."""
    if not folders:
        raise GracrError("name at least one results folder")
    files = tuple(results_file(folder) for folder in folders)
    latest: dict[tuple[str, str, str, str, int, int], Record] = {}
    duplicates = 0
    for path in files:
        for record in _read_file(path):
            if record.key in latest:
                duplicates += 1
                del latest[record.key]
            latest[record.key] = record
    return LoadedResults(tuple(latest.values()), duplicates, files)


def read_results(folders: Sequence[str]) -> list[Record]:
    """The records of several output folders merged (see `load_results`)."""
    return list(load_results(folders).records)


@dataclass(frozen=True)
class LoadedInputs:
    """What `gracrc report` reads: result folders (records merged as `load_results` does) and
    seed summaries (`seeds.csv`), as one list of seed summaries."""

    seeds: tuple[SeedSummary, ...]
    records: int             # records read from result folders
    duplicates: int          # duplicate records among them (the last one kept)
    files: tuple[str, ...]


def is_seeds_file(path: str) -> bool:
    return path.endswith(".csv")


def load_inputs(paths: Sequence[str]) -> LoadedInputs:
    """Seed summaries of every input: a `.csv` path is a `seeds.csv`; anything else a result
    folder (or `.jsonl` file). A seed found in two inputs is an error that names both: a summary
    cannot be merged with other records of its seed, and choosing one silently could report a
    run twice."""
    if not paths:
        raise GracrError("name at least one results folder or seeds.csv")
    folders = [path for path in paths if not is_seeds_file(path)]
    loaded = load_results(folders) if folders else LoadedResults((), 0, ())
    seeds: dict[SeedKey, SeedSummary] = {}
    files = list(loaded.files)
    summaries = summarise_seeds(loaded.records)
    for path in paths:
        if is_seeds_file(path):
            summaries += read_seeds_csv(path)
            files.append(path)
    for summary in summaries:
        earlier = seeds.get(summary.key)
        if earlier is not None:
            task, variant, explainer, config_hash, seed = summary.key
            raise GracrError(
                f"{summary.place}: seed {seed} of {task} / {variant} / {explainer} "
                f"[{config_hash}] is also in {earlier.place}; give each seed once")
        seeds[summary.key] = summary
    return LoadedInputs(tuple(seeds.values()), len(loaded.records), loaded.duplicates,
                        tuple(files))


# ---------------------------------------------------------------- aggregation


@dataclass(frozen=True)
class Stat:
    """mean ± std (ddof=0) of a sample."""

    mean: float
    std: float


def _stat(values: Sequence[float]) -> Stat | None:
    if not values:
        return None
    array = np.asarray(values, dtype=float)
    return Stat(float(array.mean()), float(array.std()))


@dataclass(frozen=True)
class Moments:
    """Count, mean and sum of squared deviations of a sample (times). Two samples' moments
    merge into those of their union (Chan, Golub and LeVeque's pairwise update), so times pooled
    from seed summaries equal times pooled from the records, up to rounding."""

    n: int
    mean: float
    m2: float

    @staticmethod
    def of(values: Sequence[float]) -> Moments:
        if not values:
            return Moments(0, 0.0, 0.0)
        array = np.asarray(values, dtype=float)
        mean = float(array.mean())
        return Moments(len(values), mean, float(((array - mean) ** 2).sum()))

    def merge(self, other: Moments) -> Moments:
        if not other.n:
            return self
        if not self.n:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        return Moments(n, self.mean + delta * other.n / n,
                       self.m2 + other.m2 + delta * delta * self.n * other.n / n)

    def stat(self) -> Stat | None:
        """mean ± std (ddof=0), None for an empty sample."""
        return Stat(self.mean, math.sqrt(max(self.m2, 0.0) / self.n)) if self.n else None


SeedKey = tuple[str, str, str, str, int]        # task, variant, explainer, config hash, seed


@dataclass(frozen=True)
class SeedSummary:
    """What the report needs of one seed of one (task, variant, explainer, config): a line of
    `seeds.csv`."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    seed: int
    ok: int                  # finished instances
    out_of_time: bool        # some instance ran out of time (App. H halts the seed)
    errors: int
    precision: float | None  # means over the finished instances
    recall: float | None
    f1: float | None
    cpu: Moments             # CPU and wall seconds of the finished instances
    wall: Moments
    versions: tuple[str, ...]
    first_error: str | None
    place: str               # where it was read: a results file, or a seeds.csv line

    @property
    def key(self) -> SeedKey:
        return (self.task, self.variant, self.explainer, self.config_hash, self.seed)


@dataclass(frozen=True)
class Cell:
    """One task × variant × explainer × config: precision, recall, F1 over seeds."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    seeds_seen: int          # every seed with a record
    seeds: int               # seeds in the means: not out of time, at least one 'ok' record
    oot_seeds: int           # seeds with an 'oot' record, left out of the means
    instances: int           # 'ok' records of the seeds in the means
    errors: int              # 'error' records, left out
    precision: Stat | None
    recall: Stat | None
    f1: Stat | None

    @property
    def out_of_time(self) -> bool:
        """Every seed ran out of time: the paper's 'OOT'."""
        return self.oot_seeds > 0 and self.oot_seeds == self.seeds_seen

    @property
    def partial(self) -> bool:
        """Some seeds ran out of time and the means use the others: the paper's '†'."""
        return self.oot_seeds > 0 and self.seeds > 0


@dataclass(frozen=True)
class TimeCell:
    """Seconds per explained instance, pooled over the instances that finished."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    instances: int
    cpu_seconds: Stat | None
    wall_seconds: Stat | None
    partial: bool            # some instance ran out of time

    @property
    def out_of_time(self) -> bool:
        return self.partial and self.instances == 0


CellKey = tuple[str, str, str, str]              # task, variant, explainer, config hash
RowKey = tuple[str, str, str]                    # task, explainer, config hash
Table = tuple[list[str], list[list[str]], list[str]]   # headers, rows, notes


def _rank(order: Sequence[str], name: str) -> tuple[int, str]:
    return (order.index(name), "") if name in order else (len(order), name)


def task_rank(task: str) -> tuple[int, str]:
    """The paper's task order; unknown tasks after, alphabetically."""
    return _rank(TASK_ORDER, task)


def explainer_rank(explainer: str) -> tuple[int, str]:
    """The paper's explainer order, then GraphMask-clean; unknown ones after, alphabetically."""
    return _rank(EXPLAINER_ORDER, explainer)


def variant_rank(variant: str) -> tuple[int, str]:
    """`main` first, the ablations after, alphabetically."""
    return _rank((MAIN_VARIANT,), variant)


def _cell_rank(key: CellKey) -> tuple[tuple[int, str], tuple[int, str], tuple[int, str], str]:
    task, variant, explainer, config_hash = key
    return task_rank(task), variant_rank(variant), explainer_rank(explainer), config_hash


def summarise_seeds(records: Iterable[Record]) -> list[SeedSummary]:
    """One summary per (task, variant, explainer, config hash, seed) of the records."""
    by_seed: dict[SeedKey, list[Record]] = defaultdict(list)
    for record in records:
        by_seed[(record.task, record.variant, record.explainer, record.config_hash,
                 record.seed)].append(record)
    summaries = []
    for key, group in by_seed.items():
        done = [r for r in group if r.status == "ok"]
        errors = [r for r in group if r.status == "error"]
        files = sorted({r.place.rsplit(":", 1)[0] for r in group})
        summaries.append(SeedSummary(
            *key, ok=len(done), out_of_time=any(r.status == "oot" for r in group),
            errors=len(errors),
            precision=_mean([r.precision for r in done]), recall=_mean([r.recall for r in done]),
            f1=_mean([r.f1 for r in done]),
            cpu=Moments.of([r.cpu_seconds for r in done]),
            wall=Moments.of([r.wall_seconds for r in done]),
            versions=tuple(sorted({r.gracr_version for r in group})),
            first_error=next((r.error for r in errors if r.error), None),
            place=", ".join(files)))
    return summaries


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of finished instances' scores (never None: `Record.from_json` checks it)."""
    present = [float(v) for v in values if v is not None]
    return float(np.mean(present)) if present else None


def _group_seeds(summaries: Iterable[SeedSummary]) -> dict[CellKey, list[SeedSummary]]:
    groups: dict[CellKey, list[SeedSummary]] = defaultdict(list)
    for summary in summaries:
        groups[summary.key[:4]].append(summary)
    return {key: groups[key] for key in sorted(groups, key=_cell_rank)}


def aggregate_seeds(summaries: Iterable[SeedSummary]) -> list[Cell]:
    """One cell per (task, variant, explainer, config hash), in report order (module docstring)."""
    cells: list[Cell] = []
    for (task, variant, explainer, config_hash), group in _group_seeds(summaries).items():
        counted = [s for s in group if not s.out_of_time and s.ok]
        cells.append(Cell(
            task, variant, explainer, config_hash, seeds_seen=len(group), seeds=len(counted),
            oot_seeds=sum(s.out_of_time for s in group),
            instances=sum(s.ok for s in counted), errors=sum(s.errors for s in group),
            precision=_stat([s.precision for s in counted if s.precision is not None]),
            recall=_stat([s.recall for s in counted if s.recall is not None]),
            f1=_stat([s.f1 for s in counted if s.f1 is not None])))
    return cells


def aggregate(records: Iterable[Record]) -> list[Cell]:
    """`aggregate_seeds` of the records' seed summaries."""
    return aggregate_seeds(summarise_seeds(records))


def aggregate_seed_times(summaries: Iterable[SeedSummary]) -> list[TimeCell]:
    """CPU and wall seconds per instance, one cell per (task, variant, explainer, config hash)."""
    cells: list[TimeCell] = []
    for (task, variant, explainer, config_hash), group in _group_seeds(summaries).items():
        cpu, wall = Moments(0, 0.0, 0.0), Moments(0, 0.0, 0.0)
        for summary in group:
            cpu, wall = cpu.merge(summary.cpu), wall.merge(summary.wall)
        cells.append(TimeCell(
            task, variant, explainer, config_hash, instances=cpu.n,
            cpu_seconds=cpu.stat(), wall_seconds=wall.stat(),
            partial=any(s.out_of_time for s in group)))
    return cells


def aggregate_times(records: Iterable[Record]) -> list[TimeCell]:
    """`aggregate_seed_times` of the records' seed summaries."""
    return aggregate_seed_times(summarise_seeds(records))


# ---------------------------------------------------------------- seed summaries as CSV


def seeds_csv_rows(summaries: Iterable[SeedSummary]) -> list[list[str]]:
    """The rows of `seeds.csv`, columns `SEEDS_CSV_COLUMNS`; floats in full (`repr`), so that a
    report from the file equals the report from the records."""
    def real(value: float | None) -> str:
        return "" if value is None else repr(value)

    ordered = sorted(summaries, key=lambda s: (_cell_rank(s.key[:4]), s.seed))
    return [[s.task, s.variant, s.explainer, s.config_hash, str(s.seed), str(s.ok),
             str(int(s.out_of_time)), str(s.errors), real(s.precision), real(s.recall),
             real(s.f1), real(s.cpu.mean), real(s.cpu.m2), real(s.wall.mean), real(s.wall.m2),
             ";".join(s.versions), s.first_error or ""] for s in ordered]


def read_seeds_csv(path: str) -> list[SeedSummary]:
    """The seed summaries of a `seeds.csv`, each problem reported as `file:line: message`."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except OSError as error:
        raise GracrError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise GracrError(f"{path}: not UTF-8 text") from None
    if not rows or tuple(rows[0]) != SEEDS_CSV_COLUMNS:
        raise GracrError(f"{path}:1: not a seed summary (`gracrc report` writes seeds.csv with "
                         f"the columns {', '.join(SEEDS_CSV_COLUMNS)})")
    summaries = []
    for number, row in enumerate(rows[1:], start=2):
        place = f"{path}:{number}"
        if len(row) != len(SEEDS_CSV_COLUMNS):
            raise GracrError(f"{place}: {len(row)} fields, expected {len(SEEDS_CSV_COLUMNS)}")
        field = _CsvRow(dict(zip(SEEDS_CSV_COLUMNS, row)), place)
        ok = field.count("ok")
        scores = [field.optional_number(name, 1.0) for name in SCORES]
        if ok and None in scores:
            raise GracrError(f"{place}: a seed with finished instances needs its three scores")
        cpu, wall = (Moments(ok, field.number(f"{clock}_mean"), field.number(f"{clock}_m2"))
                     for clock in ("cpu", "wall"))
        summaries.append(SeedSummary(
            field.text("task"), field.text("variant"), field.text("explainer"),
            field.text("config_hash"), field.count("seed"), ok=ok,
            out_of_time=bool(field.count("out_of_time")), errors=field.count("errors"),
            precision=scores[0], recall=scores[1], f1=scores[2], cpu=cpu, wall=wall,
            versions=tuple(v for v in field.row["gracr_versions"].split(";") if v),
            first_error=field.row["first_error"] or None, place=place))
    return summaries


class _CsvRow:
    """Typed access to one `seeds.csv` row, each problem reported as `file:line: message`
    (the CSV counterpart of the field checks of `Record.from_json`)."""

    def __init__(self, row: Mapping[str, str], place: str) -> None:
        self.row = row
        self.place = place

    def text(self, name: str) -> str:
        if not self.row[name]:
            raise GracrError(f"{self.place}: field '{name}' is empty")
        return self.row[name]

    def count(self, name: str) -> int:
        text = self.row[name]
        if not text.isdigit():
            raise GracrError(f"{self.place}: field '{name}' should be a count, got {text!r}")
        return int(text)

    def number(self, name: str, high: float = math.inf) -> float:
        text = self.row[name]
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not 0 <= value <= high:
            raise GracrError(f"{self.place}: field '{name}' should be a number in "
                             f"[0, {high:g}], got {text!r}")
        return value

    def optional_number(self, name: str, high: float = math.inf) -> float | None:
        return None if self.row[name] == "" else self.number(name, high)


# ---------------------------------------------------------------- table layout


@dataclass(frozen=True)
class TableSpec:
    """One table of the report: a variant and its tasks, each a column group."""

    name: str
    title: str
    variant: str
    tasks: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One row: an explainer, and per task the config hash whose cell it shows."""

    label: str
    explainer: str
    hashes: Mapping[str, str]


@dataclass(frozen=True)
class Provenance:
    """What made a report: the command, the date, the gracr versions found in the records."""

    command: str
    date: str
    versions: tuple[str, ...]

    def line(self) -> str:
        versions = ", ".join(self.versions) or "unknown"
        return f"`{self.command}` · {self.date} · gracr {versions}"


def table_specs(cells: Sequence[Cell]) -> list[TableSpec]:
    """Tables 2 and 3 (variant main, always), then one table per group of tasks of each other
    variant, and one for tasks the paper does not have."""
    specs = [TableSpec("table2", "Table 2: plausibility on graph classification (variant main)",
                       MAIN_VARIANT, TABLE2_TASKS),
             TableSpec("table3", "Table 3: plausibility on node classification (variant main)",
                       MAIN_VARIANT, TABLE3_TASKS)]
    variants = sorted({cell.variant for cell in cells}, key=variant_rank)
    for variant in variants:
        present = sorted({cell.task for cell in cells if cell.variant == variant}, key=task_rank)
        groups = [("graph classification", tuple(t for t in present if t in TABLE2_TASKS)),
                  ("node classification", tuple(t for t in present if t in TABLE3_TASKS)),
                  ("other tasks", tuple(t for t in present if t not in TASK_ORDER))]
        for kind, tasks in groups:
            if tasks and not (variant == MAIN_VARIANT and kind != "other tasks"):
                name = f"{variant}-{kind.split()[0]}"
                specs.append(TableSpec(name, f"Variant {variant}: {kind}", variant, tasks))
    return specs


def _rows(keys: Iterable[RowKey], tasks: Sequence[str]) -> tuple[list[Row], list[str]]:
    """Rows for (task, explainer, config hash) keys. An explainer whose configs differ within one
    task gets one row per config hash, labelled with it, and a note says so."""
    hashes: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for task, explainer, config_hash in keys:
        if task in tasks and config_hash not in hashes[explainer][task]:
            hashes[explainer][task].append(config_hash)
    rows: list[Row] = []
    notes: list[str] = []
    for explainer in sorted(hashes, key=explainer_rank):
        per_task = hashes[explainer]
        if all(len(found) == 1 for found in per_task.values()):
            rows.append(Row(explainer, explainer, {t: found[0] for t, found in per_task.items()}))
            continue
        several = [f"{t} ({', '.join(sorted(found))})" for t, found in per_task.items()
                   if len(found) > 1]
        notes.append(f"{explainer}: several configurations on {'; '.join(several)}; "
                     "one row per config hash, not merged.")
        for config_hash in sorted({h for found in per_task.values() for h in found}):
            shown = {t: config_hash for t, found in per_task.items() if config_hash in found}
            rows.append(Row(f"{explainer} [{config_hash}]", explainer, shown))
    return rows, notes


def _cells_of(spec: TableSpec, cells: Sequence[Cell]) -> dict[RowKey, Cell]:
    return {(c.task, c.explainer, c.config_hash): c for c in cells
            if c.variant == spec.variant and c.task in spec.tasks}


def _present(spec: TableSpec, found: Mapping[RowKey, Cell]) -> tuple[list[str], list[str]]:
    """The table's tasks that have results (its column groups) and a note naming the others."""
    tasks = [task for task in spec.tasks if any(key[0] == task for key in found)]
    absent = [task for task in spec.tasks if task not in tasks]
    return tasks, [f"No results for {', '.join(absent)}."] if absent and tasks else []


def _score_text(stat: Stat | None, partial: bool) -> str:
    if stat is None:
        return MISSING
    text = f"{stat.mean:.2f} ± {stat.std:.2f}"
    return f"{text} {DAGGER}" if partial else text


def _score_cells(cell: Cell | None) -> list[str]:
    if cell is None:
        return [MISSING] * 3
    if cell.out_of_time:
        return ["OOT"] * 3
    if cell.f1 is None:
        return ["error"] * 3
    return [_score_text(s, cell.partial) for s in (cell.precision, cell.recall, cell.f1)]


def _seed_counts(cells: Iterable[Cell]) -> str:
    counts = sorted({c.seeds_seen for c in cells})
    if not counts:
        return "0"
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _notes(spec_cells: Sequence[Cell], extra: Sequence[str], provenance: Provenance) -> list[str]:
    notes = [f"Mean ± std (ddof=0) over seeds of the per-seed mean over explained instances; "
             f"F1 averaged sample-wise; seeds per cell: {_seed_counts(spec_cells)}. "
             f"{DAGGER}: some seeds ran out of time and are left out; OOT: every seed did."]
    errors = sum(c.errors for c in spec_cells)
    if errors:
        notes.append(f"{errors} error record{'s' if errors != 1 else ''} left out of the means.")
    return notes + list(extra) + [provenance.line()]


def score_table(spec: TableSpec, cells: Sequence[Cell]) -> Table:
    """Headers, rows and notes of a table in the paper's layout (rows explainers; per task with
    results a precision | recall | F1 column group)."""
    found = _cells_of(spec, cells)
    tasks, absent = _present(spec, found)
    rows, notes = _rows(found, tasks)
    headers = ["Explainer"]
    for task in tasks:
        headers += [f"{task} precision", "recall", "F1"]
    body = []
    for row in rows:
        line = [row.label]
        for task in tasks:
            config_hash = row.hashes.get(task)
            line += _score_cells(None if config_hash is None else
                                 found.get((task, row.explainer, config_hash)))
        body.append(line)
    return headers, body, absent + notes


def render_markdown(spec: TableSpec, cells: Sequence[Cell], provenance: Provenance) -> str:
    """A table in the paper's layout as Markdown (also what the terminal shows), with its notes."""
    headers, body, notes = score_table(spec, cells)
    spec_cells = list(_cells_of(spec, cells).values())
    if not body:
        return f"{spec.title}\n\n(no results for these tasks)\n\n{provenance.line()}\n"
    lines = [spec.title, "", render_table(headers, body), ""]
    lines += _notes(spec_cells, notes, provenance)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- LaTeX


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text)


def _latex_score(stat: Stat | None, partial: bool) -> str:
    if stat is None:
        return "--"
    dagger = r"^{\dagger}" if partial else ""
    return f"${stat.mean:.2f} \\pm {stat.std:.2f}{dagger}$"


def _latex_cells(cell: Cell | None) -> list[str]:
    if cell is None:
        return ["--"] * 3
    if cell.out_of_time:
        return [r"\multicolumn{3}{c}{OOT}"]
    if cell.f1 is None:
        return [r"\multicolumn{3}{c}{error}"]
    return [_latex_score(s, cell.partial) for s in (cell.precision, cell.recall, cell.f1)]


def render_latex(spec: TableSpec, cells: Sequence[Cell], provenance: Provenance) -> str:
    """One booktabs `tabular` in the paper's layout, its title and notes as `%` comments."""
    found = _cells_of(spec, cells)
    tasks, absent = _present(spec, found)
    rows, notes = _rows(found, tasks)
    columns = 1 + 3 * len(tasks)
    lines = [f"% {spec.title}"]
    if not tasks:
        lines += ["% (no results for these tasks)", f"% {provenance.line()}"]
        return "\n".join(lines) + "\n"
    lines += [f"% {note}" for note in _notes(list(found.values()), absent + notes, provenance)]
    lines += [f"\\begin{{tabular}}{{l{'c' * (columns - 1)}}}", r"\toprule"]
    groups = [f"\\multicolumn{{3}}{{c}}{{{latex_escape(task)}}}" for task in tasks]
    lines.append(" & ".join([""] + groups) + r" \\")
    lines.append("".join(f"\\cmidrule(lr){{{2 + 3 * i}-{4 + 3 * i}}}"
                         for i in range(len(tasks))))
    lines.append(" & ".join(["Explainer"] + ["precision", "recall", "$F_1$"] * len(tasks))
                 + r" \\")
    lines.append(r"\midrule")
    for row in rows:
        line = [latex_escape(row.label)]
        for task in tasks:
            config_hash = row.hashes.get(task)
            line += _latex_cells(None if config_hash is None else
                                 found.get((task, row.explainer, config_hash)))
        lines.append(" & ".join(line) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- CSV


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def results_csv_rows(cells: Sequence[Cell]) -> list[list[str]]:
    """The rows of `results.csv`, columns `RESULTS_CSV_COLUMNS`."""
    rows = []
    for c in cells:
        numbers: list[str] = []
        for stat in (c.precision, c.recall, c.f1):
            numbers += [_number(None if stat is None else stat.mean),
                        _number(None if stat is None else stat.std)]
        rows.append([c.task, c.variant, c.explainer, str(c.seeds), str(c.instances), *numbers,
                     str(c.oot_seeds), c.config_hash])
    return rows


# ---------------------------------------------------------------- beside the paper


def _mean_text(mean: float | None, partial: bool) -> str:
    if mean is None:
        return MISSING
    return f"{mean:.2f} {DAGGER}" if partial else f"{mean:.2f}"


def beside_paper(cells: Sequence[Cell]) -> Table:
    """Ours and the paper's mean per cell of Tables 2 and 3 (variant main), with the difference;
    a difference above `DIFF_FLAG` (or OOT on one side only) is marked '!'."""
    headers = ["Task", "Explainer"]
    for metric in ("precision", "recall", "F1"):
        headers += [f"{metric} ours", "paper", "diff"]
    rows: list[list[str]] = []
    flagged = compared = 0
    absent: set[str] = set()
    main = [c for c in cells if c.variant == MAIN_VARIANT]
    several = Counter((c.task, c.explainer) for c in main)
    for cell in main:
        paper = paper_score(cell.task, cell.explainer)
        if paper is None:
            absent.add(cell.explainer)
            continue
        label = cell.explainer
        if several[(cell.task, cell.explainer)] > 1:
            label = f"{cell.explainer} [{cell.config_hash}]"
        line = [cell.task, label]
        ours_stats = (cell.precision, cell.recall, cell.f1)
        paper_stats = (paper.precision, paper.recall, paper.f1)
        for ours, theirs in zip(ours_stats, paper_stats, strict=True):
            ours_text = "OOT" if cell.out_of_time else _mean_text(
                None if ours is None else ours.mean, cell.partial)
            theirs_text = "OOT" if paper.out_of_time else _mean_text(
                None if theirs is None else theirs.mean, paper.partial)
            diff = ""
            if cell.out_of_time != paper.out_of_time:
                diff = "OOT !"
                flagged += 1
                compared += 1
            elif ours is not None and theirs is not None:
                delta = ours.mean - theirs.mean
                compared += 1
                diff = f"{delta:+.2f}"
                if abs(delta) > DIFF_FLAG + 1e-9:
                    diff += " !"
                    flagged += 1
            line += [ours_text, theirs_text, diff]
        rows.append(line)
    notes = [f"{flagged} of {compared} compared values differ from the paper's by more than "
             f"{DIFF_FLAG} (marked !). Means only; the paper rounds to two decimals."]
    if absent:
        notes.append("Not in the paper: " + ", ".join(sorted(absent, key=explainer_rank)) + ".")
    return headers, rows, notes


# ---------------------------------------------------------------- times


def _time_text(stat: Stat | MeanStd | None, partial: bool) -> str:
    if stat is None:
        return MISSING
    text = f"{stat.mean:.3f} ± {stat.std:.3f}"
    return f"{text} {DAGGER}" if partial else text


def times_table(time_cells: Sequence[TimeCell], variant: str,
                clock: Literal["cpu", "wall"]) -> Table:
    """Seconds per explained instance, rows explainers, columns tasks (Table 14 transposed). The
    wall-clock table of variant main adds the paper's Table 14 row below each explainer it has."""
    found = {(c.task, c.explainer, c.config_hash): c for c in time_cells if c.variant == variant}
    tasks = sorted({task for task, _, _ in found}, key=task_rank)
    rows, notes = _rows(found, tasks)
    body: list[list[str]] = []
    with_paper_row: set[str] = set()
    for row in rows:
        line = [row.label]
        for task in tasks:
            config_hash = row.hashes.get(task)
            cell = None if config_hash is None else found.get((task, row.explainer, config_hash))
            if cell is None:
                line.append(MISSING)
            elif cell.out_of_time:
                line.append("OOT")
            else:
                line.append(_time_text(cell.cpu_seconds if clock == "cpu" else cell.wall_seconds,
                                       cell.partial))
        body.append(line)
        if (clock == "wall" and variant == MAIN_VARIANT and row.explainer in TABLE14_EXPLAINERS
                and row.explainer not in with_paper_row):
            with_paper_row.add(row.explainer)
            paper_line = [f"{row.explainer} (paper)"]
            for task in tasks:
                paper = paper_time(task, row.explainer)
                paper_line.append(MISSING if paper is None else
                                  _time_text(paper.wall_seconds, paper.partial))
            body.append(paper_line)
    return ["Explainer", *tasks], body, notes


def times_csv_rows(time_cells: Sequence[TimeCell]) -> list[list[str]]:
    """The rows of `times.csv`, columns `TIMES_CSV_COLUMNS`."""
    rows = []
    for c in time_cells:
        paper = paper_time(c.task, c.explainer) if c.variant == MAIN_VARIANT else None
        rows.append([
            c.task, c.variant, c.explainer, str(c.instances),
            _number(None if c.cpu_seconds is None else c.cpu_seconds.mean),
            _number(None if c.cpu_seconds is None else c.cpu_seconds.std),
            _number(None if c.wall_seconds is None else c.wall_seconds.mean),
            _number(None if c.wall_seconds is None else c.wall_seconds.std),
            str(int(c.partial)),
            _number(None if paper is None else paper.wall_seconds.mean),
            _number(None if paper is None else paper.wall_seconds.std),
            "" if paper is None else str(int(paper.partial)),
            c.config_hash])
    return rows


_CLOCKS: tuple[tuple[Literal["cpu", "wall"], str], ...] = (
    ("cpu", "CPU seconds"), ("wall", "Wall-clock seconds"))


def render_times(time_cells: Sequence[TimeCell], provenance: Provenance) -> str:
    """CPU and wall-clock seconds per explained instance, one pair of tables per variant."""
    sections: list[str] = []
    for variant in sorted({c.variant for c in time_cells}, key=variant_rank):
        for clock, what in _CLOCKS:
            headers, body, notes = times_table(time_cells, variant, clock)
            title = f"{what} per explained instance (variant {variant})"
            if clock == "wall" and variant == MAIN_VARIANT:
                title += "; '(paper)' rows: Table 14"
            sections.append("\n".join([
                title, "", render_table(headers, body), "",
                f"Mean ± std (ddof=0) over the instances that finished, all seeds pooled; "
                f"{DAGGER}: some instance ran out of time.", *notes, provenance.line()]))
    return "\n\n".join(sections) + "\n"


# ---------------------------------------------------------------- figure


_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "p", "h", "8", "d")
# tab20's dark shades, then its light ones: 13 explainers, 13 distinct colours.
_COLOUR_INDICES = (*range(0, 20, 2), *range(1, 20, 2))


def plot_precision_recall(cells: Sequence[Cell], path: str) -> None:
    """Precision against recall, one panel per task of variant main, one marker per explainer;
    the paper's points hollow, ours filled."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    ours = [c for c in cells if c.variant == MAIN_VARIANT and c.f1 is not None]
    tasks = sorted({c.task for c in ours}, key=task_rank) or list(TASK_ORDER)
    explainers = sorted({c.explainer for c in ours}
                        | {e for e in PAPER_EXPLAINERS
                           for t in tasks if (p := paper_score(t, e)) and not p.out_of_time},
                        key=explainer_rank)
    palette = colormaps["tab20"]
    style = {name: (_MARKERS[i % len(_MARKERS)],
                    palette(_COLOUR_INDICES[i % len(_COLOUR_INDICES)]))
             for i, name in enumerate(explainers)}
    columns = min(3, len(tasks))
    rows = math.ceil(len(tasks) / columns)
    figure = Figure(figsize=(4.0 * columns + 2.2, 3.8 * rows), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, task in enumerate(tasks):
        ax = axes[index // columns][index % columns]
        for explainer in explainers:
            marker, colour = style[explainer]
            paper = paper_score(task, explainer)
            if paper is not None and paper.precision is not None and paper.recall is not None:
                ax.scatter([paper.recall.mean], [paper.precision.mean], marker=marker, s=70,
                           facecolors="none", edgecolors=colour, linewidths=1.4)
            mine = [c for c in ours if c.task == task and c.explainer == explainer]
            for cell in mine:
                if cell.precision is not None and cell.recall is not None:
                    ax.scatter([cell.recall.mean], [cell.precision.mean], marker=marker, s=45,
                               color=colour)
        ax.set_title(task)
        ax.set_xlim(-0.03, 1.05)
        ax.set_ylim(-0.03, 1.05)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.grid(alpha=0.3)
    for index in range(len(tasks), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles = [Line2D([], [], linestyle="none", marker=style[e][0], color=style[e][1], label=e)
               for e in explainers]
    handles += [Line2D([], [], linestyle="none", marker="o", color="grey", label="ours (filled)"),
                Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                       markeredgecolor="grey", label="paper (hollow)")]
    figure.legend(handles=handles, loc="outside right upper", fontsize="small")
    try:
        figure.savefig(path, dpi=120)
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


# ---------------------------------------------------------------- the whole report


def report_warnings(loaded: LoadedInputs, cells: Sequence[Cell]) -> list[str]:
    """Duplicate records and error records, each said in one line (errors broken down below)."""
    lines: list[str] = []
    if loaded.duplicates:
        lines.append(f"warning: {loaded.duplicates} duplicate record"
                     f"{'s' if loaded.duplicates != 1 else ''} (same task, variant, explainer, "
                     "config hash, seed and instance): kept the last of each")
    errors = sum(c.errors for c in cells)
    if errors:
        lines.append(f"warning: {errors} error record{'s' if errors != 1 else ''} left out of "
                     "the means:")
        first: dict[CellKey, str] = {}
        for summary in sorted(loaded.seeds, key=lambda s: s.seed):
            if summary.first_error:
                first.setdefault(summary.key[:4], summary.first_error)
        for c in cells:
            if c.errors:
                example = first.get((c.task, c.variant, c.explainer, c.config_hash))
                reason = f" (first: {example})" if example else ""
                lines.append(f"  {c.task} / {c.variant} / {c.explainer} [{c.config_hash}]: "
                             f"{c.errors}{reason}")
    return lines


def _write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


def write_report(folders: Sequence[str], out: str | None, command: str, date: str) -> str:
    """Read the result folders and seed summaries, write every report file into `out` (default:
    the first input's folder) and return what the terminal shows."""
    loaded = load_inputs(folders)
    cells = aggregate_seeds(loaded.seeds)
    time_cells = aggregate_seed_times(loaded.seeds)
    provenance = Provenance(command, date,
                            tuple(sorted({v for s in loaded.seeds for v in s.versions})))
    if out is None:
        first = folders[0]
        out = (os.path.dirname(first) or ".") if os.path.isfile(first) else first
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as error:
        raise GracrError(f"{out}: cannot create the folder ({error.strerror})") from None

    shown: list[str] = []
    written: list[str] = []

    def save(name: str, text: str) -> None:
        _write_text(os.path.join(out, name), text)
        written.append(name)

    write_table(os.path.join(out, "results.csv"), RESULTS_CSV_COLUMNS, results_csv_rows(cells))
    written.append("results.csv")
    # An input seeds.csv in `out` is rewritten with all that was read: its seeds and the others.
    write_table(os.path.join(out, "seeds.csv"), SEEDS_CSV_COLUMNS, seeds_csv_rows(loaded.seeds))
    written.append("seeds.csv")
    specs = table_specs(cells)
    for spec in specs[:2]:
        text = render_markdown(spec, cells, provenance)
        save(f"{spec.name}.md", text)
        save(f"{spec.name}.tex", render_latex(spec, cells, provenance))
        shown.append(text)
    if specs[2:]:
        texts = [render_markdown(spec, cells, provenance) for spec in specs[2:]]
        save("variants.md", "\n".join(texts))
        save("variants.tex", "\n".join(render_latex(spec, cells, provenance) for spec in specs[2:]))
        shown += texts
    headers, rows, notes = beside_paper(cells)
    beside = "\n".join(["Beside the paper: Tables 2 and 3, variant main", "",
                        render_table(headers, rows), "", *notes, provenance.line()]) + "\n"
    save("beside_paper.md", beside)
    shown.append(beside)
    times = render_times(time_cells, provenance)
    save("times.md", times)
    write_table(os.path.join(out, "times.csv"), TIMES_CSV_COLUMNS, times_csv_rows(time_cells))
    written.append("times.csv")
    shown.append(times)
    plot_precision_recall(cells, os.path.join(out, "precision_recall.png"))
    written.append("precision_recall.png")
    tail = report_warnings(loaded, cells)
    tail.append(f"read {len(loaded.seeds)} seed summaries ({loaded.records} records) from "
                f"{', '.join(loaded.files)}; wrote {', '.join(written)} to {out}")
    return "\n".join(shown + tail) + "\n"
