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

import math
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gracr.bench.paper import (PAPER_EXPLAINERS, TABLE2_TASKS, TABLE3_TASKS, TABLE14_EXPLAINERS,
                               MeanStd, paper_score, paper_time)
from gracr.bench.report.aggregation import (EXPLAINER_ORDER, MAIN_VARIANT, TASK_ORDER, Cell,
                                            CellKey, Moments, SeedKey, SeedSummary, Stat,
                                            TimeCell, aggregate, aggregate_seed_times,
                                            aggregate_seeds, aggregate_times, explainer_rank,
                                            summarise_seeds, task_rank, variant_rank)
from gracr.bench.report.inputs import (SEEDS_CSV_COLUMNS, LoadedInputs, LoadedResults,
                                       is_seeds_file, load_inputs, load_results, read_results,
                                       read_seeds_csv, results_file, seeds_csv_rows)
from gracr.bench.tables import render_table, write_table
from gracr.errors import GracrError

__all__ = [
    "EXPLAINER_ORDER", "MAIN_VARIANT", "TASK_ORDER", "Cell", "CellKey", "Moments", "SeedKey",
    "SeedSummary", "Stat", "TimeCell", "aggregate", "aggregate_seed_times", "aggregate_seeds",
    "aggregate_times", "explainer_rank", "summarise_seeds", "task_rank", "variant_rank",
    "SEEDS_CSV_COLUMNS", "LoadedInputs", "LoadedResults", "is_seeds_file", "load_inputs",
    "load_results", "read_results", "read_seeds_csv", "results_file", "seeds_csv_rows",
    "DAGGER", "DIFF_FLAG", "MISSING", "RESULTS_CSV_COLUMNS", "Provenance", "Row", "RowKey",
    "Table", "TableSpec", "beside_paper", "latex_escape", "render_latex", "render_markdown",
    "results_csv_rows", "score_table", "table_specs",
    "TIMES_CSV_COLUMNS", "render_times", "times_csv_rows", "times_table",
    "plot_precision_recall", "report_warnings", "write_report",
]

# Beside the paper, a difference larger than this is flagged.
DIFF_FLAG = 0.05
RESULTS_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "seeds", "instances", "precision", "precision_std",
    "recall", "recall_std", "f1", "f1_std", "oot", "config_hash")
TIMES_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "instances", "cpu_seconds", "cpu_seconds_std",
    "wall_seconds", "wall_seconds_std", "partial", "paper_wall_seconds",
    "paper_wall_seconds_std", "paper_partial", "config_hash")
DAGGER = "†"
MISSING = "-"
RowKey = tuple[str, str, str]                    # task, explainer, config hash
Table = tuple[list[str], list[list[str]], list[str]]   # headers, rows, notes


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
