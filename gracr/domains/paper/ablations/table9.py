"""Table 9 (App. C.4): IG with the exact derivative (`main`, its default) or with the surrogate
derivative of Eq. 9 (`IG.derivative=surrogate`), on all six tasks.

Both arms explain one compiled model; only IG's setting changes. The paper's text: the
surrogate lowers IG's recall on Majority2Hop (1.00 → 0.87). The table prints the surrogate
column only; the exact one is IG's row of Tables 2 and 3.
"""

from __future__ import annotations

from gracr.domains.paper.ablations.declare import Arm, Check, TableAblation
from gracr.domains.paper.published import TABLE9, TABLE9_TASKS

ABLATION = TableAblation(
    "table9",
    "Table 9 (App. C.4): IG with the exact derivative vs the surrogate of Eq. 9",
    TABLE9_TASKS,
    Arm("exact", "main"), Arm("surrogate", "main", {"IG": {"derivative": "surrogate"}}),
    (Check("lower", "IG", "recall", ("Majority2Hop",)),),
    TABLE9, "paper Table 9 (App. C.4, surrogate); exact = IG's row of Tables 2/3",
    only_explainers=("IG",))
