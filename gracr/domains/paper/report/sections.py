"""`paper_report`: the paper's files of `gracrc report`, the plug-in (`sections`) of the report
engine's `gracr.bench.report.write_report`.

Its files: `table2.md`/`.tex` and `table3.md`/`.tex` (Tables 2 and 3, variant main),
`variants.md`/`.tex` (the other variants and tasks, if any), `beside_paper.md`, `times.md` and
`times.csv` (Table 14), and `precision_recall.png`. A run of none of the paper's tasks has
no Tables 2 and 3 and nothing beside the paper.
"""

from __future__ import annotations

from collections.abc import Sequence

from gracr.bench.report.aggregation import TASK_ORDER, Cell, TimeCell
from gracr.bench.report.tables import Provenance, render_latex, render_markdown
from gracr.bench.report.write import ReportFile, table_file, text_file
from gracr.domains.paper.report.figures import plot_precision_recall
from gracr.domains.paper.report.tables import render_beside_paper, table_specs
from gracr.domains.paper.report.times import TIMES_CSV_COLUMNS, render_times, times_csv_rows


def paper_report(cells: Sequence[Cell], time_cells: Sequence[TimeCell],
                provenance: Provenance) -> list[ReportFile]:
    """The paper's tables, its times and its figure (module docstring), in the order written
    (a `gracr.bench.report.write.Sections`)."""
    specs = table_specs(cells)
    # A run of none of the paper's tasks (the user's own) has nothing for the paper's
    # tables: Tables 2 and 3 and the comparison beside the paper are left out, not
    # written empty ("0 of 0 compared values").
    paper_run = any(cell.task in TASK_ORDER for cell in cells)
    files: list[ReportFile] = []
    for spec in specs[:2] if paper_run else []:
        files += [text_file(f"{spec.name}.md", render_markdown(spec, cells, provenance),
                            shown=True),
                  text_file(f"{spec.name}.tex", render_latex(spec, cells, provenance))]
    if specs[2:]:
        files += [text_file("variants.md", "\n".join(render_markdown(spec, cells, provenance)
                                                     for spec in specs[2:]), shown=True),
                  text_file("variants.tex", "\n".join(render_latex(spec, cells, provenance)
                                                      for spec in specs[2:]))]
    if paper_run:
        files.append(text_file("beside_paper.md", render_beside_paper(cells, provenance),
                               shown=True))
    files += [text_file("times.md", render_times(time_cells, provenance), shown=True),
              table_file("times.csv", TIMES_CSV_COLUMNS, times_csv_rows(time_cells)),
              ReportFile("precision_recall.png",
                         lambda path: plot_precision_recall(cells, path))]
    return files
