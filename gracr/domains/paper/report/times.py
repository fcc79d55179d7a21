"""Seconds per explained instance in the layout of Table 14, transposed (rows explainers, columns
tasks), as Markdown and as CSV; the wall-clock table of variant main has the paper's Table 14 row
below each explainer it reports.

Times are pooled over the instances that finished (`aggregate_seed_times`); '†' marks a cell
where some instance ran out of time, 'OOT' one where none finished.

Every function here is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from gracr.bench.report.aggregation import DDOF, MAIN_VARIANT, TimeCell, task_rank, variant_rank
from gracr.bench.report.formatting import CSV, DAGGER, MISSING, TIMES, MeanAndStd
from gracr.bench.report.tables import Provenance, Table, render_table, table_rows
from gracr.domains.paper.published import TABLE14_EXPLAINERS, paper_time

TIMES_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "instances", "cpu_seconds", "cpu_seconds_std",
    "wall_seconds", "wall_seconds_std", "partial", "paper_wall_seconds",
    "paper_wall_seconds_std", "paper_partial", "config_hash")


def _time_text(stat: MeanAndStd | None, partial: bool) -> str:
    return TIMES.stat(stat, DAGGER if partial else None)


def times_table(time_cells: Sequence[TimeCell], variant: str,
                clock: Literal["cpu", "wall"]) -> Table:
    """Seconds per explained instance, rows explainers, columns tasks (Table 14 transposed). The
    wall-clock table of variant main adds the paper's Table 14 row below each explainer it has."""
    found = {(c.task, c.explainer, c.config_hash): c for c in time_cells if c.variant == variant}
    tasks = sorted({task for task, _, _ in found}, key=task_rank)
    rows, notes = table_rows(found, tasks)
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
            CSV.number(None if c.cpu_seconds is None else c.cpu_seconds.mean),
            CSV.number(None if c.cpu_seconds is None else c.cpu_seconds.std),
            CSV.number(None if c.wall_seconds is None else c.wall_seconds.mean),
            CSV.number(None if c.wall_seconds is None else c.wall_seconds.std),
            str(int(c.partial)),
            CSV.number(None if paper is None else paper.wall_seconds.mean),
            CSV.number(None if paper is None else paper.wall_seconds.std),
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
                f"Mean ± std (ddof={DDOF}) over the instances that finished, all seeds pooled; "
                f"{DAGGER}: some instance ran out of time.", *notes, provenance.line()]))
    return "\n\n".join(sections) + "\n"
