"""The paper's ablation tables (App. C.3-C.5), transcribed from the Gracr paper.

- Table 8 (comparative operator: Eq. 6 expanded vs Eq. 8 direct; Majority1Hop, Majority2Hop):
  header lines 398-399, the Majority1Hop rows at lines 401-412, the Majority2Hop rows at lines
  414-425, caption line 427. SubgraphX on Majority2Hop reads 'oot' in both columns.
- Table 9 (IG with the surrogate backward of Eq. 9, all six tasks): header line 439, rows at
  lines 440-445, caption line 447. It has only the surrogate ("alternative") column; its
  "original" is IG's row of Tables 2 and 3 (`gracr.bench.paper`), which is what `ORIGINAL` of a
  Table 9 cell holds.
- Table 10 (CompetingRedundancy, disjunction via De Morgan vs the flat gate of Eq. 7): header
  lines 459-460, rows at lines 461-472, caption line 457.
- Table 11 (RedBlueLeaf, formula φ∧ of Eq. 10 vs φ∨ of Eq. 11): header lines 504-505, rows at
  lines 506-517, caption line 519. FlowX reads 'oot' in the alternative column.

Values are kept exactly as printed (two decimals, mean ± std over 5 seeds), including cells
that look odd (Table 10's SubgraphX F1 0.15 below both its precision and recall: F1 is averaged
sample-wise). `tests/test_ablations.py` parses the raw rows of the paper file and compares every
cell with these constants.
"""

from __future__ import annotations

from dataclasses import dataclass

from gracr.bench.paper import PAPER_EXPLAINERS, MeanStd, paper_score

ABLATION_TABLES: tuple[str, ...] = ("table8", "table9", "table10", "table11")
TABLE8_TASKS: tuple[str, ...] = ("Majority1Hop", "Majority2Hop")
TABLE9_TASKS: tuple[str, ...] = ("RedBlueLeaf", "Redundancy", "CompetingRedundancy",
                                 "RedBlueLeaf-NC", "Majority1Hop", "Majority2Hop")
TABLE10_TASK = "CompetingRedundancy"
TABLE11_TASK = "RedBlueLeaf"


@dataclass(frozen=True)
class Scores:
    """A published precision, recall and F1, each `mean ± std` over 5 seeds."""

    precision: MeanStd
    recall: MeanStd
    f1: MeanStd


@dataclass(frozen=True)
class AblationCell:
    """One row of an ablation table for one task: the original and the alternative column.

    `None` in a column is the paper's 'oot' (out of time on every seed; no numbers).
    """

    table: str
    task: str
    explainer: str
    original: Scores | None
    alternative: Scores | None


def _s(precision: float, precision_std: float, recall: float, recall_std: float,
       f1: float, f1_std: float) -> Scores:
    return Scores(MeanStd(precision, precision_std), MeanStd(recall, recall_std),
                  MeanStd(f1, f1_std))


_PERFECT = _s(1.00, 0.00, 1.00, 0.00, 1.00, 0.00)
_Row = tuple[Scores | None, Scores | None]   # (original, alternative); None = 'oot'

# Table 8, Majority1Hop (lines 401-412).
_TABLE8_MAJORITY1: dict[str, _Row] = {
    "Saliency": (_PERFECT, _s(0.90, 0.01, 1.00, 0.00, 0.94, 0.00)),
    "IG": (_PERFECT, _PERFECT),
    "Deconv": (_PERFECT, _PERFECT),
    "GuidedBP": (_PERFECT, _PERFECT),
    "GNNExplainer": (_PERFECT, _PERFECT),
    "GraphMask": (_s(0.00, 0.00, 1.00, 0.00, 0.00, 0.00), _s(0.00, 0.00, 0.99, 0.01, 0.00, 0.00)),
    "SubgraphX": (_s(0.36, 0.00, 0.88, 0.01, 0.49, 0.01), _s(0.36, 0.00, 0.88, 0.01, 0.49, 0.01)),
    "PGMExplainer": (_s(0.43, 0.01, 0.99, 0.00, 0.59, 0.01),
                     _s(0.43, 0.01, 0.99, 0.00, 0.59, 0.01)),
    "GraphSVX": (_s(0.50, 0.00, 1.00, 0.00, 0.66, 0.00), _s(0.50, 0.00, 1.00, 0.00, 0.66, 0.00)),
    "FlowX": (_PERFECT, _PERFECT),
    "LRP": (_PERFECT, _PERFECT),
    "Rnd": (_s(0.33, 0.17, 0.81, 0.06, 0.41, 0.18), _s(0.33, 0.17, 0.81, 0.06, 0.41, 0.18)),
}

# Table 8, Majority2Hop (lines 414-425).
_TABLE8_MAJORITY2: dict[str, _Row] = {
    "Saliency": (_s(1.00, 0.00, 0.87, 0.02, 0.92, 0.02), _s(0.67, 0.01, 0.87, 0.02, 0.73, 0.01)),
    "IG": (_s(0.96, 0.01, 1.00, 0.00, 0.97, 0.01), _s(0.96, 0.01, 1.00, 0.00, 0.97, 0.01)),
    "Deconv": (_s(0.94, 0.02, 1.00, 0.00, 0.96, 0.01), _s(0.94, 0.02, 1.00, 0.00, 0.96, 0.01)),
    "GuidedBP": (_s(1.00, 0.00, 0.87, 0.02, 0.92, 0.02), _s(1.00, 0.00, 0.87, 0.02, 0.92, 0.02)),
    "GNNExplainer": (_s(0.96, 0.01, 0.99, 0.00, 0.97, 0.01),
                     _s(0.94, 0.02, 1.00, 0.00, 0.96, 0.01)),
    "GraphMask": (_s(0.02, 0.01, 0.78, 0.12, 0.03, 0.01), _s(0.01, 0.00, 0.96, 0.06, 0.02, 0.00)),
    "SubgraphX": (None, None),
    "PGMExplainer": (_s(0.30, 0.02, 0.83, 0.01, 0.41, 0.02),
                     _s(0.30, 0.02, 0.83, 0.01, 0.41, 0.02)),
    "GraphSVX": (_s(0.56, 0.02, 0.74, 0.02, 0.61, 0.02), _s(0.56, 0.02, 0.74, 0.02, 0.61, 0.02)),
    "FlowX": (_s(0.91, 0.01, 0.95, 0.01, 0.92, 0.01), _s(0.91, 0.01, 0.95, 0.01, 0.92, 0.01)),
    "LRP": (_s(1.00, 0.01, 0.89, 0.02, 0.93, 0.01), _s(0.96, 0.01, 0.87, 0.02, 0.90, 0.02)),
    "Rnd": (_s(0.22, 0.01, 0.51, 0.04, 0.29, 0.01), _s(0.22, 0.01, 0.51, 0.04, 0.29, 0.01)),
}

# Table 9: IG under the surrogate derivative, one row per task (lines 440-445).
_TABLE9_SURROGATE: dict[str, Scores] = {
    "RedBlueLeaf": _PERFECT,
    "Redundancy": _PERFECT,
    "CompetingRedundancy": _s(1.00, 0.00, 0.50, 0.00, 0.67, 0.00),
    "RedBlueLeaf-NC": _PERFECT,
    "Majority1Hop": _PERFECT,
    "Majority2Hop": _s(1.00, 0.00, 0.87, 0.02, 0.92, 0.02),
}

_CHANCE_CR = _s(0.04, 0.00, 1.00, 0.00, 0.09, 0.00)
# Table 10, CompetingRedundancy (lines 461-472).
_TABLE10: dict[str, _Row] = {
    "Saliency": (_CHANCE_CR, _PERFECT),
    "IG": (_s(1.00, 0.00, 0.50, 0.00, 0.67, 0.00), _s(1.00, 0.00, 0.50, 0.00, 0.67, 0.00)),
    "Deconv": (_CHANCE_CR, _PERFECT),
    "GuidedBP": (_CHANCE_CR, _PERFECT),
    "GNNExplainer": (_CHANCE_CR, _PERFECT),
    "GraphMask": (_CHANCE_CR, _s(0.05, 0.00, 1.00, 0.00, 0.09, 0.01)),
    "SubgraphX": (_s(0.19, 0.01, 0.69, 0.01, 0.15, 0.00), _s(0.18, 0.01, 0.72, 0.02, 0.14, 0.00)),
    "PGMExplainer": (_s(0.35, 0.16, 0.56, 0.08, 0.39, 0.15),
                     _s(0.25, 0.18, 0.49, 0.35, 0.25, 0.18)),
    "GraphSVX": (_s(0.47, 0.03, 0.74, 0.16, 0.56, 0.06), _s(0.47, 0.03, 0.74, 0.16, 0.56, 0.06)),
    "FlowX": (_s(1.00, 0.00, 0.97, 0.07, 0.98, 0.04), _s(1.00, 0.00, 0.97, 0.07, 0.98, 0.04)),
    "LRP": (_CHANCE_CR, _PERFECT),
    "Rnd": (_s(0.06, 0.01, 0.73, 0.15, 0.10, 0.01), _s(0.06, 0.01, 0.73, 0.15, 0.10, 0.01)),
}

_CHANCE_RBL = _s(0.22, 0.00, 1.00, 0.00, 0.37, 0.00)
# Table 11, RedBlueLeaf (lines 506-517).
_TABLE11: dict[str, _Row] = {
    "Saliency": (_PERFECT, _CHANCE_RBL),
    "IG": (_PERFECT, _PERFECT),
    "Deconv": (_CHANCE_RBL, _CHANCE_RBL),
    "GuidedBP": (_PERFECT, _CHANCE_RBL),
    "GNNExplainer": (_PERFECT, _PERFECT),
    "GraphMask": (_s(0.25, 0.03, 0.93, 0.15, 0.38, 0.02), _s(0.25, 0.03, 0.89, 0.19, 0.38, 0.02)),
    "SubgraphX": (_s(0.40, 0.01, 0.84, 0.01, 0.38, 0.00), _s(0.40, 0.01, 0.84, 0.01, 0.38, 0.00)),
    "PGMExplainer": (_s(0.33, 0.16, 0.89, 0.19, 0.45, 0.15),
                     _s(0.33, 0.16, 0.89, 0.19, 0.45, 0.15)),
    "GraphSVX": (_PERFECT, _PERFECT),
    "FlowX": (_s(0.90, 0.03, 0.99, 0.01, 0.94, 0.01), None),
    "LRP": (_PERFECT, _CHANCE_RBL),
    "Rnd": (_s(0.23, 0.02, 0.93, 0.16, 0.37, 0.00), _s(0.23, 0.02, 0.93, 0.16, 0.37, 0.00)),
}


def _ig_main(task: str) -> Scores:
    """IG's Table 2/3 cell for `task`: the 'original' column of Table 9."""
    cell = paper_score(task, "IG")
    assert cell is not None and cell.precision is not None and cell.recall is not None \
        and cell.f1 is not None, task
    return Scores(cell.precision, cell.recall, cell.f1)


def _cells(table: str, task: str, rows: dict[str, _Row]) -> tuple[AblationCell, ...]:
    return tuple(AblationCell(table, task, explainer, original, alternative)
                 for explainer, (original, alternative) in rows.items())


TABLE8: tuple[AblationCell, ...] = (_cells("table8", "Majority1Hop", _TABLE8_MAJORITY1)
                                    + _cells("table8", "Majority2Hop", _TABLE8_MAJORITY2))
TABLE9: tuple[AblationCell, ...] = tuple(
    AblationCell("table9", task, "IG", _ig_main(task), surrogate)
    for task, surrogate in _TABLE9_SURROGATE.items())
TABLE10: tuple[AblationCell, ...] = _cells("table10", TABLE10_TASK, _TABLE10)
TABLE11: tuple[AblationCell, ...] = _cells("table11", TABLE11_TASK, _TABLE11)

# Every ablation table lists the paper's explainers in Table 2's order (Table 9: IG only).
assert all(tuple(rows) == PAPER_EXPLAINERS
           for rows in (_TABLE8_MAJORITY1, _TABLE8_MAJORITY2, _TABLE10, _TABLE11))

_BY_KEY: dict[tuple[str, str, str], AblationCell] = {
    (cell.table, cell.task, cell.explainer): cell
    for cell in TABLE8 + TABLE9 + TABLE10 + TABLE11}


def paper_ablation(table: str, task: str, explainer: str) -> AblationCell | None:
    """The paper's row of `table` (`table8` … `table11`) for (task, explainer), or None."""
    return _BY_KEY.get((table, task, explainer))


def paper_explainers(table: str) -> tuple[str, ...]:
    """The explainers `table` lists, in its order."""
    seen: list[str] = []
    for (name, _, explainer) in _BY_KEY:
        if name == table and explainer not in seen:
            seen.append(explainer)
    return tuple(seen)
