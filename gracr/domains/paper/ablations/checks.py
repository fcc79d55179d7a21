"""The direction checks: each claim of the paper's text (App. C.3-C.5) decided on our cells.

A claim is PASS or FAIL from the two arms' aggregated cells, and NOT RUN when the explainer
was not run or an arm has no numbers (nothing run, out of time on every seed, errors only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gracr.domains.paper.ablations.declare import (CHANCE_F1, CHANCE_PRECISION, PERFECT_F1, SAME_MARGIN,
                                           Check, Metric)
from gracr.bench.report import PAPER, Cell
from gracr.stats import Stat

CheckStatus = Literal["PASS", "FAIL", "NOT RUN"]


@dataclass(frozen=True)
class CheckResult:
    ablation: str
    check: Check
    task: str
    status: CheckStatus
    detail: str

    def line(self) -> str:
        return f"{self.status} {self.ablation} {self.check.explainer} on {self.task}: " \
               f"{self.detail}"


def mean_of(cell: Cell | None, metric: Metric) -> float | None:
    """The cell's mean of `metric`, or None when it has none (not run, out of time, errors)."""
    if cell is None or cell.out_of_time:
        return None
    stat: Stat | None = getattr(cell, metric)
    return None if stat is None else stat.mean


def _claim(check: Check, alternative_label: str) -> str:
    metric = "F1" if check.metric == "f1" else check.metric
    if check.kind == "chance_to_perfect":
        return (f"from chance (F1 ≤ {CHANCE_F1}) to perfect (F1 ≥ {PERFECT_F1}) under "
                f"{alternative_label}")
    if check.kind == "unchanged":
        return f"{metric} unchanged under {alternative_label} (|Δ| ≤ {SAME_MARGIN})"
    if check.kind == "falls_to_chance":
        return f"falls to chance under {alternative_label} (precision ≤ {CHANCE_PRECISION})"
    return f"{metric} lower under {alternative_label}"


def evaluate_check(ablation: str, check: Check, task: str, alternative_label: str,
                   original: Cell | None, alternative: Cell | None,
                   ran: bool = True) -> CheckResult:
    """PASS or FAIL of one claim on one task from the two arms' cells; NOT RUN when the
    explainer was not run or an arm has no numbers (nothing run, out of time, errors only)."""
    claim = _claim(check, alternative_label)
    if not ran:
        return CheckResult(ablation, check, task, "NOT RUN", f"{claim} — not among --explainers")
    before, after = mean_of(original, check.metric), mean_of(alternative, check.metric)
    f1_before, f1_after = mean_of(original, "f1"), mean_of(alternative, "f1")
    needs_original = check.kind != "falls_to_chance"
    if after is None or (needs_original and before is None):
        missing = [side for side, cell in (("original", original), ("alternative", alternative))
                   if mean_of(cell, check.metric) is None]
        return CheckResult(ablation, check, task, "NOT RUN",
                           f"{claim} — no numbers for the {' and '.join(missing)} arm")
    metric = "F1" if check.metric == "f1" else check.metric
    if check.kind == "chance_to_perfect":
        assert f1_before is not None and f1_after is not None
        passed = f1_before <= CHANCE_F1 + 1e-9 and f1_after >= PERFECT_F1 - 1e-9
        values = f"F1 {PAPER.number(f1_before)} → {PAPER.number(f1_after)}"
    elif check.kind == "unchanged":
        assert before is not None
        passed = abs(after - before) <= SAME_MARGIN + 1e-9
        values = (f"{metric} {PAPER.number(before)} → {PAPER.number(after)} "
                  f"(Δ {PAPER.signed(after - before)})")
    elif check.kind == "falls_to_chance":
        passed = after <= CHANCE_PRECISION + 1e-9
        values = (f"precision {'?' if before is None else PAPER.number(before)} → "
                  f"{PAPER.number(after)}")
    else:
        assert before is not None
        passed = after < before - 1e-9
        values = f"{metric} {PAPER.number(before)} → {PAPER.number(after)}"
    return CheckResult(ablation, check, task, "PASS" if passed else "FAIL",
                       f"{claim}: {values}")
