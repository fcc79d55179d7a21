"""The paper's tables from the report's cells: which tables the report has (Tables 2 and 3, then
one per group of tasks of each other variant, `table_specs`), and the comparison of Tables 2 and
3 with the paper's numbers beside ours (`beside_paper`). Their layout is the report engine's
score table (`gracr.bench.report.tables`).

Every function here is pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gracr.bench.report.aggregation import (MAIN_VARIANT, TASK_ORDER, Cell, explainer_rank,
                                            task_rank, variant_rank)
from gracr.bench.report.formatting import DAGGER, PAPER
from gracr.bench.report.tables import Provenance, Table, TableSpec, render_table
from gracr.domains.paper.published import TABLE2_TASKS, TABLE3_TASKS, paper_score

# Beside the paper, a difference larger than this is flagged.
DIFF_FLAG = 0.05


def table_specs(cells: Sequence[Cell]) -> list[TableSpec]:
    """Tables 2 and 3 (variant main, always), then one table per group of tasks of each other
    variant, and one for tasks the paper does not have."""
    specs = [TableSpec("table2", "Table 2: plausibility on graph classification (variant main)",
                       MAIN_VARIANT, TABLE2_TASKS),
             TableSpec("table3", "Table 3: plausibility on node classification (variant main)",
                       MAIN_VARIANT, TABLE3_TASKS)]
    variants = sorted({cell.variant for cell in cells}, key=variant_rank)
    for variant in variants:
        present = sorted({cell.task for cell in cells if cell.variant == variant}, key=task_rank)
        groups = [("graph classification", tuple(t for t in present if t in TABLE2_TASKS)),
                  ("node classification", tuple(t for t in present if t in TABLE3_TASKS)),
                  ("other tasks", tuple(t for t in present if t not in TASK_ORDER))]
        for kind, tasks in groups:
            if tasks and not (variant == MAIN_VARIANT and kind != "other tasks"):
                name = f"{variant}-{kind.split()[0]}"
                specs.append(TableSpec(name, f"Variant {variant}: {kind}", variant, tasks))
    return specs


# ---------------------------------------------------------------- beside the paper


def _mean_text(mean: float | None, partial: bool) -> str:
    return PAPER.mean_pm(mean, None, DAGGER if partial else None)


def beside_paper(cells: Sequence[Cell]) -> Table:
    """Ours and the paper's mean per cell of Tables 2 and 3 (variant main), with the difference;
    a difference above `DIFF_FLAG` (or OOT on one side only) is marked '!'."""
    headers = ["Task", "Explainer"]
    for metric in ("precision", "recall", "F1"):
        headers += [f"{metric} ours", "paper", "diff"]
    rows: list[list[str]] = []
    flagged = compared = 0
    absent: set[str] = set()
    main = [c for c in cells if c.variant == MAIN_VARIANT]
    several = Counter((c.task, c.explainer) for c in main)
    for cell in main:
        paper = paper_score(cell.task, cell.explainer)
        if paper is None:
            absent.add(cell.explainer)
            continue
        label = cell.explainer
        if several[(cell.task, cell.explainer)] > 1:
            label = f"{cell.explainer} [{cell.config_hash}]"
        line = [cell.task, label]
        ours_stats = (cell.precision, cell.recall, cell.f1)
        paper_stats = (paper.precision, paper.recall, paper.f1)
        for ours, theirs in zip(ours_stats, paper_stats, strict=True):
            ours_text = "OOT" if cell.out_of_time else _mean_text(
                None if ours is None else ours.mean, cell.partial)
            theirs_text = "OOT" if paper.out_of_time else _mean_text(
                None if theirs is None else theirs.mean, paper.partial)
            diff = ""
            if cell.out_of_time != paper.out_of_time:
                diff = "OOT !"
                flagged += 1
                compared += 1
            elif ours is not None and theirs is not None:
                delta = ours.mean - theirs.mean
                compared += 1
                diff = PAPER.signed(delta)
                if abs(delta) > DIFF_FLAG + 1e-9:
                    diff += " !"
                    flagged += 1
            line += [ours_text, theirs_text, diff]
        rows.append(line)
    notes = [f"{flagged} of {compared} compared values differ from the paper's by more than "
             f"{DIFF_FLAG} (marked !). Means only; the paper rounds to two decimals."]
    if absent:
        notes.append("Not in the paper: " + ", ".join(sorted(absent, key=explainer_rank)) + ".")
    return headers, rows, notes


def render_beside_paper(cells: Sequence[Cell], provenance: Provenance) -> str:
    """`beside_paper` as Markdown, with its title and notes."""
    headers, rows, notes = beside_paper(cells)
    return "\n".join(["Beside the paper: Tables 2 and 3, variant main", "",
                      render_table(headers, rows), "", *notes, provenance.line()]) + "\n"
