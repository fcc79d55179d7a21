"""GracrBench reports: read the runner's `results.jsonl`, aggregate as the paper does, tabulate.

- `inputs`: result folders (`Record`s, read by `gracr.bench.record`) and seed summaries
  (`seeds.csv`), one list of seed summaries.
- `aggregation`: mean ± std over seeds of the per-seed means, out-of-time seeds left out
  (§5, App. E, App. H); times pooled over finished instances (Table 14).
- `tables`: Tables 2 and 3 in the paper's layout (Markdown, LaTeX, CSV), ours beside the
  paper's, and the marks every table uses.
- `times`: seconds per explained instance (Table 14).
- `figures`: precision against recall, ours beside the paper's.
- `instance_figure`: one positive instance drawn with its UPI and an explainer's scores
  (`gracrc show`, and the report's figure per explainer from raw records).
- `write`: `write_report`, what `gracrc report` runs.

The names other modules use are re-exported here.
"""

from __future__ import annotations

from gracr.domains.paper.report.aggregation import (EXPLAINER_ORDER, MAIN_VARIANT, TASK_ORDER, Cell,
                                            CellKey, Moments, SeedKey, SeedSummary, Stat,
                                            TimeCell, aggregate, aggregate_seed_times,
                                            aggregate_seeds, aggregate_times, explainer_rank,
                                            summarise_seeds, task_rank, variant_rank)
from gracr.domains.paper.report.figures import plot_precision_recall
from gracr.domains.paper.report.inputs import (SEEDS_CSV_COLUMNS, LoadedInputs, LoadedResults,
                                       is_seeds_file, load_inputs, load_results, read_results,
                                       read_seeds_csv, results_file, seeds_csv_rows)
from gracr.domains.paper.report.tables import (DAGGER, DIFF_FLAG, MISSING, RESULTS_CSV_COLUMNS, Provenance,
                                       Row, RowKey, Table, TableSpec, beside_paper, latex_escape,
                                       render_latex, render_markdown, results_csv_rows,
                                       score_table, table_specs)
from gracr.domains.paper.report.times import TIMES_CSV_COLUMNS, render_times, times_csv_rows, times_table
from gracr.domains.paper.report.write import report_warnings, write_report

__all__ = [
    # aggregation
    "EXPLAINER_ORDER", "MAIN_VARIANT", "TASK_ORDER", "Cell", "CellKey", "Moments", "SeedKey",
    "SeedSummary", "Stat", "TimeCell", "aggregate", "aggregate_seed_times", "aggregate_seeds",
    "aggregate_times", "explainer_rank", "summarise_seeds", "task_rank", "variant_rank",
    # figures
    "plot_precision_recall",
    # inputs
    "SEEDS_CSV_COLUMNS", "LoadedInputs", "LoadedResults", "is_seeds_file", "load_inputs",
    "load_results", "read_results", "read_seeds_csv", "results_file", "seeds_csv_rows",
    # tables
    "DAGGER", "DIFF_FLAG", "MISSING", "RESULTS_CSV_COLUMNS", "Provenance", "Row", "RowKey",
    "Table", "TableSpec", "beside_paper", "latex_escape", "render_latex", "render_markdown",
    "results_csv_rows", "score_table", "table_specs",
    # times
    "TIMES_CSV_COLUMNS", "render_times", "times_csv_rows", "times_table",
    # write
    "report_warnings", "write_report",
]
