"""`write_report`: read the inputs, aggregate, and write every report file; a domain's tables
come from its plug-in (`Sections`), the paper's from `gracr.domains.paper.report.paper_report`.

The files, into the output folder: `results.csv` (one line per cell), `seeds.csv` (the seed
summaries, readable as an input again), then the plug-in's files, then, from raw records,
`ranking.md`/`.csv` when records carry WOMBAT's metrics (`gracr.bench.report.ranking`) and
`instance_<explainer>.png` (one per explainer, `gracr.bench.report.instance_figure`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gracr.bench.report.aggregation import (Cell, CellKey, TimeCell, aggregate_seed_times,
                                            aggregate_seeds)
from gracr.bench.report.inputs import (SEEDS_CSV_COLUMNS, SEEDS_FILE, LoadedInputs, load_inputs,
                                       seeds_csv_rows)
from gracr.bench.report.instance_figure import DatasetSource, write_instance_figures
from gracr.bench.report.ranking import (RANKING_COLUMNS, RANKING_MARKDOWN_HEADERS,
                                        ranking_csv_rows, ranking_markdown_rows, ranking_rows)
from gracr.bench.report.tables import (RESULTS_CSV_COLUMNS, Provenance, render_table,
                                       results_csv_rows, write_table)
from gracr.errors import GracrError
from gracr.files import write_text


@dataclass(frozen=True)
class ReportFile:
    """One file of a report: its name in the output folder, what writes it there (given its
    path), and what the terminal shows of it (`None`: nothing)."""

    name: str
    write: Callable[[str], None]
    shown: str | None = None


def text_file(name: str, text: str, shown: bool = False) -> ReportFile:
    """A text file, shown in the terminal when `shown`."""
    return ReportFile(name, lambda path: write_text(path, text), text if shown else None)


def table_file(name: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> ReportFile:
    """A table (`write_table`: CSV for a `.csv` name, Markdown otherwise), not shown."""
    return ReportFile(name, lambda path: write_table(path, headers, rows))


Sections = Callable[[Sequence[Cell], Sequence[TimeCell], Provenance], list[ReportFile]]
"""A domain's report: its files from the cells, time cells and provenance of a run."""


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


def write_report(folders: Sequence[str], out: str | None, command: str, date: str,
                 sections: Sections, figures: DatasetSource | None = None) -> str:
    """Read the result folders and seed summaries, write every report file into `out` (default:
    the first input's folder) and return what the terminal shows. With `figures` (where the
    bench run's datasets are) and raw records among the inputs, also one instance figure per
    explainer (`gracr.bench.report.instance_figure`)."""
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

    # An input seeds.csv in `out` is rewritten with all that was read: its seeds and the others.
    files = [table_file("results.csv", RESULTS_CSV_COLUMNS, results_csv_rows(cells)),
             table_file(SEEDS_FILE, SEEDS_CSV_COLUMNS, seeds_csv_rows(loaded.seeds)),
             *sections(cells, time_cells, provenance)]
    # WOMBAT's table where WOMBAT's protocol ran (node scores, or negatives explained);
    # edge-level reports stay the paper's.
    ranked = ranking_rows(loaded.raw) if any(
        r.level == "node" or r.sample == "negative" for r in loaded.raw) else []
    if ranked:
        files += [text_file("ranking.md",
                            "## How each explainer ranks the ground truth (WOMBAT §3.3)\n\n"
                            + render_table(RANKING_MARKDOWN_HEADERS, ranking_markdown_rows(ranked))
                            + "\n", shown=True),
                  table_file("ranking.csv", RANKING_COLUMNS, ranking_csv_rows(ranked))]
    shown: list[str] = []
    written: list[str] = []
    for file in files:
        file.write(os.path.join(out, file.name))
        written.append(file.name)
        if file.shown is not None:
            shown.append(file.shown)
    tail = report_warnings(loaded, cells)
    if figures is not None and loaded.raw:
        drawn, notes = write_instance_figures(loaded.raw, out, figures)
        written += drawn
        tail += notes
    tail.append(f"read {len(loaded.seeds)} seed summaries ({loaded.records} records) from "
                f"{', '.join(loaded.files)}; wrote {', '.join(written)} to {out}")
    return "\n".join(shown + tail) + "\n"
