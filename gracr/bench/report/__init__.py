"""The report engine of GracrBench: read the runner's `results.jsonl` and seed summaries,
aggregate over seeds, tabulate, write; a domain's tables are its plug-in.

- `inputs`: result folders (`Record`s, read by `gracr.bench.record`) and seed summaries
  (`seeds.csv`), one list of seed summaries.
- `aggregation`: mean ± std over seeds of the per-seed means, out-of-time seeds left out
  (§5, App. E, App. H); times pooled over finished instances (Table 14). Means and spreads
  are `gracr.stats.Stat`s (the ddof each table uses is said there).
- `formatting`: numbers as text (`NumberFormat`), and the marks every table uses.
- `tables`: tables for the terminal and for files (`render_table`, `write_table`), and the
  score table of a run in the paper's layout (Markdown, LaTeX, CSV).
- `ranking`: WOMBAT's table of how each explainer ranks the ground truth.
- `instance_figure`: one positive instance drawn with its UPI and an explainer's scores
  (`gracrc show`, and the report's figure per explainer from raw records).
- `write`: `write_report`, with a domain's `Sections` (the paper's:
  `gracr.domains.paper.report.paper_report`).

The names other modules use are re-exported here.
"""

from __future__ import annotations

from gracr.bench.report.aggregation import (DDOF, EXPLAINER_ORDER, MAIN_VARIANT, TASK_ORDER, Cell,
                                            CellKey, SeedKey, SeedSummary, TimeCell, aggregate,
                                            aggregate_seed_times, aggregate_seeds,
                                            aggregate_times, explainer_rank, summarise_seeds,
                                            task_rank, variant_rank)
from gracr.bench.report.formatting import (CSV, DAGGER, DASH, FINE, LATEX, MISSING, PAPER, TABLE,
                                           TIMES, MeanAndStd, NumberFormat)
from gracr.bench.report.inputs import (SEEDS_CSV_COLUMNS, LoadedInputs, LoadedResults,
                                       is_seeds_file, load_inputs, load_results, read_results,
                                       read_seeds_csv, results_file, seeds_csv_rows)
from gracr.bench.report.tables import (RESULTS_CSV_COLUMNS, Provenance, Row, RowKey, Table,
                                       TableSpec, latex_escape, print_table, render_latex,
                                       render_markdown, render_table, results_csv_rows,
                                       score_table, score_text, write_table)
from gracr.bench.report.write import (ReportFile, Sections, report_warnings, table_file,
                                      text_file, write_report)

__all__ = [
    # aggregation
    "DDOF", "EXPLAINER_ORDER", "MAIN_VARIANT", "TASK_ORDER", "Cell", "CellKey", "SeedKey",
    "SeedSummary", "TimeCell", "aggregate", "aggregate_seed_times", "aggregate_seeds",
    "aggregate_times", "explainer_rank", "summarise_seeds", "task_rank", "variant_rank",
    # formatting
    "CSV", "DAGGER", "DASH", "FINE", "LATEX", "MISSING", "PAPER", "TABLE", "TIMES",
    "MeanAndStd", "NumberFormat",
    # inputs
    "SEEDS_CSV_COLUMNS", "LoadedInputs", "LoadedResults", "is_seeds_file", "load_inputs",
    "load_results", "read_results", "read_seeds_csv", "results_file", "seeds_csv_rows",
    # tables
    "RESULTS_CSV_COLUMNS", "Provenance", "Row", "RowKey", "Table", "TableSpec", "latex_escape",
    "print_table", "render_latex", "render_markdown", "render_table", "results_csv_rows",
    "score_table", "score_text", "write_table",
    # write
    "ReportFile", "Sections", "report_warnings", "table_file", "text_file", "write_report",
]
