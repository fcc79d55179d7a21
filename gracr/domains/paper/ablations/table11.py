"""Table 11 (App. C.5): RedBlueLeaf with the formula φ∧ of Eq. 10 (`main`) or φ∨ of Eq. 11
(`or`), the same function of the graph.

The paper's text: Saliency, GuidedBP and LRP fall to chance precision (0.22) under φ∨; IG,
GraphSVX and GNNExplainer are unchanged.
"""

from __future__ import annotations

from gracr.domains.paper.ablations.declare import Arm, Check, TableAblation
from gracr.domains.paper.published import TABLE11, TABLE11_TASK

ABLATION = TableAblation(
    "table11",
    "Table 11 (App. C.5): RedBlueLeaf, formula φ∧ (Eq. 10) vs φ∨ (Eq. 11)",
    (TABLE11_TASK,),
    Arm("φ∧", "main"), Arm("φ∨", "or"),
    tuple(Check("falls_to_chance", e, "precision") for e in ("Saliency", "GuidedBP", "LRP"))
    + tuple(Check("unchanged", e) for e in ("IG", "GraphSVX", "GNNExplainer")),
    TABLE11, "paper Table 11 (App. C.5)")
