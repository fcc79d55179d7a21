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
from collections.abc import Sequence

from gracr.bench.paper import PAPER_EXPLAINERS, paper_score
from gracr.bench.report.aggregation import (EXPLAINER_ORDER, MAIN_VARIANT, TASK_ORDER, Cell,
                                            CellKey, Moments, SeedKey, SeedSummary, Stat,
                                            TimeCell, aggregate, aggregate_seed_times,
                                            aggregate_seeds, aggregate_times, explainer_rank,
                                            summarise_seeds, task_rank, variant_rank)
from gracr.bench.report.inputs import (SEEDS_CSV_COLUMNS, SEEDS_FILE, LoadedInputs,
                                       LoadedResults, is_seeds_file, load_inputs, load_results,
                                       read_results, read_seeds_csv, results_file, seeds_csv_rows)
from gracr.bench.report.tables import (DAGGER, DIFF_FLAG, MISSING, RESULTS_CSV_COLUMNS, Provenance,
                                       Row, RowKey, Table, TableSpec, beside_paper, latex_escape,
                                       render_beside_paper, render_latex, render_markdown,
                                       results_csv_rows, score_table, table_specs)
from gracr.bench.report.times import TIMES_CSV_COLUMNS, render_times, times_csv_rows, times_table
from gracr.bench.tables import write_table
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
    tail = report_warnings(loaded, cells)
    tail.append(f"read {len(loaded.seeds)} seed summaries ({loaded.records} records) from "
                f"{', '.join(loaded.files)}; wrote {', '.join(written)} to {out}")
    return "\n".join(shown + tail) + "\n"
