"""What an ablation declares: its arms, its direction checks, its tasks and the paper's numbers.

A table ablation (App. C.3-C.5) compares two *arms* — two compilations of one task
(`Arm.variant`, a compile variant of `gracr.bench.tasks.VARIANTS`), or two ways of running one
explainer (`Arm.overrides`) — on the same graphs and the same UPI. A figure ablation (Fig. 3,
Fig. 4) runs its own per-instance loop and declares the command's defaults for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, TextIO

from gracr.domains.paper.published import AblationCell, ModelSizes

Metric = Literal["precision", "recall", "f1"]
Side = Literal["original", "alternative"]
SIDES: tuple[Side, Side] = ("original", "alternative")
METRICS: tuple[Metric, Metric, Metric] = ("precision", "recall", "f1")

# The F1 change below which the direction column reads "=" (the paper's "unchanged" margin).
SAME_MARGIN = 0.05
CHANCE_F1 = 0.2
PERFECT_F1 = 0.95
CHANCE_PRECISION = 0.3


@dataclass(frozen=True)
class Arm:
    """One column group of an ablation table: a compile variant and per-explainer overrides."""

    label: str
    variant: str
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


CheckKind = Literal["chance_to_perfect", "unchanged", "falls_to_chance", "lower"]


@dataclass(frozen=True)
class Check:
    """A "direction of effect" claim of the paper's text about one explainer.

    - `chance_to_perfect`: original F1 ≤ 0.2 and alternative F1 ≥ 0.95 (Table 10's jump).
    - `unchanged`: |alternative − original| ≤ 0.05 in `metric` (robust explainers).
    - `falls_to_chance`: alternative precision ≤ 0.3 (Table 11, chance is 0.22 there).
    - `lower`: alternative `metric` strictly below the original.
    It is checked on each task of the ablation in `tasks` (all of them when empty).
    """

    kind: CheckKind
    explainer: str
    metric: Metric = "f1"
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableAblation:
    """An ablation table: tasks, two arms, the paper's cells and the claims of its text.

    `paper` holds the paper's rows of the table (`gracr.domains.paper.published`), `paper_lines` where they
    are printed; `paper_shapes[task]` the model sizes a caption gives. `only_explainers`
    restricts the ablation (Table 9 ablates IG alone).
    """

    name: str
    title: str
    tasks: tuple[str, ...]
    original: Arm
    alternative: Arm
    checks: tuple[Check, ...]
    paper: tuple[AblationCell, ...]
    paper_lines: str
    paper_shapes: Mapping[str, ModelSizes] = field(default_factory=dict)
    only_explainers: tuple[str, ...] = ()

    def arm(self, side: Side) -> Arm:
        return self.original if side == "original" else self.alternative

    def paper_cell(self, task: str, explainer: str) -> AblationCell | None:
        """The paper's row for (task, explainer), or None when the table has none."""
        return next((c for c in self.paper if c.task == task and c.explainer == explainer),
                    None)

    @property
    def default_explainers(self) -> tuple[str, ...]:
        """The explainers the paper's table lists, in its order."""
        return tuple(dict.fromkeys(cell.explainer for cell in self.paper))


@dataclass(frozen=True)
class FigureAblation:
    """A figure ablation: its own loop, run by `run(args, out)`, and the command's defaults."""

    name: str
    title: str
    run: Callable[[argparse.Namespace, TextIO], int]
    default_seeds: str
    default_limit: int
