"""Table 8 (App. C.3): the comparative operator ◇> expanded by Eq. 6 (`main`) or direct by
Eq. 8 (`direct`), on Majority1Hop and Majority2Hop.

The paper's text: the direct operator lowers Saliency's precision (Majority2Hop 1.00 → 0.67).
The expanded model's size depends on Eq. 6's bound n; the caption's sizes are those of n = 50.
"""

from __future__ import annotations

from gracr.domains.paper.ablations.declare import Arm, Check, TableAblation
from gracr.domains.paper.published import TABLE8, TABLE8_SIZES, TABLE8_TASKS

ABLATION = TableAblation(
    "table8",
    "Table 8 (App. C.3): the comparative operator, expanded by Eq. 6 vs direct by Eq. 8",
    TABLE8_TASKS,
    Arm("expanded", "main"), Arm("direct", "direct"),
    (Check("lower", "Saliency", "precision"),),
    TABLE8, "paper Table 8 (App. C.3)", TABLE8_SIZES)
