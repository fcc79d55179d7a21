"""`gracrc report`: read the inputs, aggregate, and write every report file.

The files, into the output folder: `results.csv` (one line per cell), `seeds.csv` (the seed
summaries, readable as an input again), `table2.md`/`.tex` and `table3.md`/`.tex` (Tables 2
and 3, variant main), `variants.md`/`.tex` (the other variants and tasks, if any),
`beside_paper.md`, `times.md` and `times.csv` (Table 14), `precision_recall.png`, and, from raw
records, `instance_<explainer>.png` (one per explainer, `instance_figure`) and, when records
carry WOMBAT's metrics, `ranking.md`/`.csv` (`gracr.domains.paper.report.ranking`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from gracr.domains.paper.report.aggregation import Cell, CellKey, aggregate_seed_times, aggregate_seeds
from gracr.domains.paper.report.figures import plot_precision_recall
from gracr.domains.paper.report.instance_figure import DatasetSource, write_instance_figures
from gracr.domains.paper.report.inputs import (SEEDS_CSV_COLUMNS, SEEDS_FILE, LoadedInputs, load_inputs,
                                       seeds_csv_rows)
from gracr.domains.paper.report.tables import (RESULTS_CSV_COLUMNS, Provenance, render_beside_paper,
                                       render_latex, render_markdown, results_csv_rows,
                                       table_specs)
from gracr.domains.paper.report.times import TIMES_CSV_COLUMNS, render_times, times_csv_rows
from gracr.domains.paper.report.ranking import (RANKING_COLUMNS, RANKING_MARKDOWN_HEADERS,
                                        ranking_csv_rows, ranking_markdown_rows, ranking_rows)
from gracr.bench.tables import render_table, write_table
from gracr.errors import GracrError
from gracr.files import write_text


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
                 figures: DatasetSource | None = None) -> str:
    """Read the result folders and seed summaries, write every report file into `out` (default:
    the first input's folder) and return what the terminal shows. With `figures` (where the
    bench run's datasets are) and raw records among the inputs, also one instance figure per
    explainer (`gracr.domains.paper.report.instance_figure`)."""
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
        write_text(os.path.join(out, name), text)
        written.append(name)

    write_table(os.path.join(out, "results.csv"), RESULTS_CSV_COLUMNS, results_csv_rows(cells))
    written.append("results.csv")
    # An input seeds.csv in `out` is rewritten with all that was read: its seeds and the others.
    write_table(os.path.join(out, SEEDS_FILE), SEEDS_CSV_COLUMNS, seeds_csv_rows(loaded.seeds))
    written.append(SEEDS_FILE)
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
    beside = render_beside_paper(cells, provenance)
    save("beside_paper.md", beside)
    shown.append(beside)
    times = render_times(time_cells, provenance)
    save("times.md", times)
    write_table(os.path.join(out, "times.csv"), TIMES_CSV_COLUMNS, times_csv_rows(time_cells))
    written.append("times.csv")
    shown.append(times)
    plot_precision_recall(cells, os.path.join(out, "precision_recall.png"))
    written.append("precision_recall.png")
    # WOMBAT's table where WOMBAT's protocol ran (node scores, or negatives explained);
    # edge-level reports stay the paper's.
    ranked = ranking_rows(loaded.raw) if any(
        r.level == "node" or r.sample == "negative" for r in loaded.raw) else []
    if ranked:
        text = ("## How each explainer ranks the ground truth (WOMBAT §3.3)\n\n"
                + render_table(RANKING_MARKDOWN_HEADERS, ranking_markdown_rows(ranked))
                + "\n")
        save("ranking.md", text)
        write_table(os.path.join(out, "ranking.csv"), RANKING_COLUMNS, ranking_csv_rows(ranked))
        written.append("ranking.csv")
        shown.append(text)
    tail = report_warnings(loaded, cells)
    if figures is not None and loaded.raw:
        drawn, notes = write_instance_figures(loaded.raw, out, figures)
        written += drawn
        tail += notes
    tail.append(f"read {len(loaded.seeds)} seed summaries ({loaded.records} records) from "
                f"{', '.join(loaded.files)}; wrote {', '.join(written)} to {out}")
    return "\n".join(shown + tail) + "\n"
