"""The paper's `gracrc report`: a plug-in of the report engine `gracr.bench.report`, which
reads, aggregates and tabulates; what is the paper's is here.

- `tables`: which tables the report has (Tables 2 and 3, then the other variants), and Tables
  2 and 3 with the paper's numbers beside ours.
- `times`: seconds per explained instance (Table 14), the paper's row beside ours.
- `figures`: precision against recall, ours beside the paper's.
- `sections`: `paper_report`, the files above as the engine's `sections`.
"""

from __future__ import annotations

from gracr.domains.paper.report.figures import plot_precision_recall
from gracr.domains.paper.report.sections import paper_report
from gracr.domains.paper.report.tables import (DIFF_FLAG, beside_paper, render_beside_paper,
                                               table_specs)
from gracr.domains.paper.report.times import (TIMES_CSV_COLUMNS, render_times, times_csv_rows,
                                              times_table)

__all__ = [
    "DIFF_FLAG", "TIMES_CSV_COLUMNS", "beside_paper", "paper_report", "plot_precision_recall",
    "render_beside_paper", "render_times", "table_specs", "times_csv_rows", "times_table",
]
