"""Table 10 (App. C.5): CompetingRedundancy with the disjunction compiled via De Morgan
(`main`) or as the flat gate of Eq. 7 (`flat`).

The paper's text: Saliency, Deconv, GuidedBP, GNNExplainer and LRP go from chance to perfect
under the flat gate; IG, FlowX and GraphSVX are unchanged.
"""

from __future__ import annotations

from gracr.domains.paper.ablations.declare import Arm, Check, TableAblation
from gracr.domains.paper.published import TABLE10, TABLE10_SIZES, TABLE10_TASK

ABLATION = TableAblation(
    "table10",
    "Table 10 (App. C.5): CompetingRedundancy, disjunction via De Morgan vs the flat gate "
    "of Eq. 7",
    (TABLE10_TASK,),
    Arm("De Morgan", "main"), Arm("flat", "flat"),
    tuple(Check("chance_to_perfect", e) for e in
          ("Saliency", "Deconv", "GuidedBP", "GNNExplainer", "LRP"))
    + tuple(Check("unchanged", e) for e in ("IG", "FlowX", "GraphSVX")),
    TABLE10, "paper Table 10 (App. C.5)", TABLE10_SIZES)
