"""Tables, one place for every report: `render_table` (Markdown aligned for a terminal),
`write_table` (CSV or Markdown), `print_table`, `print_text`; and the score table of a benchmark run in the
paper's layout (rows explainers; per task a precision | recall | F1 column group, each entry
mean ± std over seeds, `gracr.bench.report.aggregation`) as Markdown, which is also what the
terminal shows, as LaTeX and as CSV. Which tables a report has (`TableSpec`s) is the
domain's: the paper's Tables 2 and 3 are `gracr.domains.paper.report.tables`.

The marks (`gracr.bench.report.formatting`): `DAGGER` ('†': part of the cell ran out of time,
App. H, and its numbers use the rest) and `MISSING` (no result); 'OOT' (all of it ran out of
time) reads as in the paper. LaTeX writes them in its own notation.

Every function here is pure except `write_table`, `print_table` and `print_text`.
"""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gracr.bench.report.aggregation import DDOF, Cell, explainer_rank
from gracr.bench.report.formatting import CSV, DAGGER, LATEX, MISSING, PAPER
from gracr.errors import GracrError
from gracr.files import atomic_writer, write_text
from gracr.stats import Stat

RESULTS_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "seeds", "instances", "precision", "precision_std",
    "recall", "recall_std", "f1", "f1_std", "oot", "config_hash")

RowKey = tuple[str, str, str]                    # task, explainer, config hash
Table = tuple[list[str], list[list[str]], list[str]]   # headers, rows, notes


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, aligned so that it also reads well in a terminal."""
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(headers)]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |" for row in rows]
    return "\n".join(lines)


def write_table(path: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Write `.csv` as CSV, anything else as Markdown."""
    try:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        with atomic_writer(path) as handle:
            if path.endswith(".csv"):
                writer = csv.writer(handle)
                writer.writerow(headers)
                writer.writerows(rows)
            else:
                handle.write(render_table(headers, rows) + "\n")
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                markdown: str | None = None) -> None:
    """Print `title` and the table in the terminal; also write it to `markdown` if given
    (the benchmark scripts' `--markdown FILE`)."""
    print(f"\n{title}\n")
    print(render_table(headers, rows))
    if markdown:
        write_table(markdown, headers, rows)


def print_text(text: str, markdown: str | None = None) -> None:
    """Print a script's report; also write it to `markdown` if given (the scripts'
    `--markdown FILE`)."""
    print(text)
    if markdown:
        write_text(markdown, text)


# ---------------------------------------------------------------- score tables


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


def table_rows(keys: Iterable[RowKey], tasks: Sequence[str]) -> tuple[list[Row], list[str]]:
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


def score_text(stat: Stat | None, partial: bool) -> str:
    """A score entry: mean ± std, with '†' when part of the cell ran out of time."""
    return PAPER.stat(stat, DAGGER if partial else None)


def _score_cells(cell: Cell | None) -> list[str]:
    if cell is None:
        return [MISSING] * 3
    if cell.out_of_time:
        return ["OOT"] * 3
    if cell.f1 is None:
        return ["error"] * 3
    return [score_text(s, cell.partial) for s in (cell.precision, cell.recall, cell.f1)]


def _seed_counts(cells: Iterable[Cell]) -> str:
    counts = sorted({c.seeds_seen for c in cells})
    if not counts:
        return "0"
    return str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"


def _notes(spec_cells: Sequence[Cell], extra: Sequence[str], provenance: Provenance) -> list[str]:
    notes = [f"Mean ± std (ddof={DDOF}) over seeds of the per-seed mean over explained instances; "
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
    rows, notes = table_rows(found, tasks)
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
        return LATEX.missing
    dagger = r"^{\dagger}" if partial else ""
    return f"${LATEX.stat(stat)}{dagger}$"


def _latex_cells(cell: Cell | None) -> list[str]:
    if cell is None:
        return [LATEX.missing] * 3
    if cell.out_of_time:
        return [r"\multicolumn{3}{c}{OOT}"]
    if cell.f1 is None:
        return [r"\multicolumn{3}{c}{error}"]
    return [_latex_score(s, cell.partial) for s in (cell.precision, cell.recall, cell.f1)]


def render_latex(spec: TableSpec, cells: Sequence[Cell], provenance: Provenance) -> str:
    """One booktabs `tabular` in the paper's layout, its title and notes as `%` comments."""
    found = _cells_of(spec, cells)
    tasks, absent = _present(spec, found)
    rows, notes = table_rows(found, tasks)
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


def results_csv_rows(cells: Sequence[Cell]) -> list[list[str]]:
    """The rows of `results.csv`, columns `RESULTS_CSV_COLUMNS`."""
    rows = []
    for c in cells:
        numbers: list[str] = []
        for stat in (c.precision, c.recall, c.f1):
            numbers += [CSV.number(None if stat is None else stat.mean),
                        CSV.number(None if stat is None else stat.std)]
        rows.append([c.task, c.variant, c.explainer, str(c.seeds), str(c.instances), *numbers,
                     str(c.oot_seeds), c.config_hash])
    return rows
