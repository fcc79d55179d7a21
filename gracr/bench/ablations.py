"""The paper's ablations as reproducible commands: `gracrc ablate NAME` (App. C.3-C.5, Fig. 3, 4).

Table ablations compare two *arms* — two compilations of the same task, or two ways of running
one explainer — on the same graphs and the same UPI, through the GracrBench runner (so they are
resumable and share the official protocol: seeds, first `limit` positive instances, CPU budget
per instance, tuned settings):

- `table8`  (App. C.3): the comparative operator, expanded by Eq. 6 (`main`) or direct by Eq. 8
  (`direct`), on Majority1Hop and Majority2Hop.
- `table9`  (App. C.4): IG with the exact derivative (`main`, its default) or with the surrogate
  derivative of Eq. 9 (`IG.derivative=surrogate`), on all six tasks.
- `table10` (App. C.5): CompetingRedundancy, disjunction via De Morgan (`main`) or the flat gate
  of Eq. 7 (`flat`).
- `table11` (App. C.5): RedBlueLeaf, formula φ∧ of Eq. 10 (`main`) or φ∨ of Eq. 11 (`or`).

Each table shows, per explainer (and task), ours and the paper's precision, recall and F1 for
both arms, and the direction of the F1 change; below it, the "direction of effect" claims of
the paper's text are checked (PASS / FAIL / NOT RUN).

Figure ablations run their own loops (the runner's records keep no edge scores), each resumable
through a JSON Lines file in the output folder:

- `fig3`: GNNExplainer's L1 penalty (PyG `edge_size`) swept on Redundancy; per strength the
  plausibility and the mean edge score on UPI edges vs the other edges (Fig. 3's two panels).
  The paper does not list its grid; ours defaults to 6 log-spaced points from 1e-4 to 10.
- `fig4`: Deconv on Redundancy while background nodes away from the black node are recoloured
  red one by one; the UPI is recomputed and checked unchanged at every step (Fig. 4).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, TextIO

import numpy as np
import numpy.typing as npt

from gracr.bench.paper import PAPER_MAX_DEGREE, TABLE8_SIZES, TABLE10_SIZES
from gracr.bench.options import DEFAULT_DATASETS, parse_names, parse_overrides, parse_seeds
from gracr.bench.paper import AblationCell, Scores, paper_ablation, paper_explainers
from gracr.bench.report import DAGGER, MISSING, Cell, Provenance, Stat, aggregate, load_results
from gracr.bench.record import RESULTS_FILE, record_objects, start_results
from gracr.bench.tables import read_json_lines, render_table, write_table
from gracr.errors import GracrError
from gracr.data.graph import Graph

if TYPE_CHECKING:  # the runner is imported where it runs: `gracrc --help` stays light
    from gracr.bench.runner import Job

BoolArray = npt.NDArray[np.bool_]
Metric = Literal["precision", "recall", "f1"]
Side = Literal["original", "alternative"]
SIDES: tuple[Side, Side] = ("original", "alternative")
METRICS: tuple[Metric, Metric, Metric] = ("precision", "recall", "f1")
DEFAULT_OUT_ROOT = "out/ablations"
# The F1 change below which the direction column reads "=" (the paper's "unchanged" margin).
SAME_MARGIN = 0.05


# ---------------------------------------------------------------- the registry


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


CHANCE_F1 = 0.2
PERFECT_F1 = 0.95
CHANCE_PRECISION = 0.3


@dataclass(frozen=True)
class TableAblation:
    """An ablation table: tasks, two arms, the paper's table and its claims.

    `paper_shapes[task]` is the paper's ((layers original, alternative), (width original,
    alternative)) where a caption gives it. `only_explainers` restricts the ablation (Table 9
    ablates IG alone).
    """

    name: str
    paper_table: str
    title: str
    tasks: tuple[str, ...]
    original: Arm
    alternative: Arm
    checks: tuple[Check, ...]
    paper_lines: str
    paper_shapes: Mapping[str, tuple[tuple[int, int], tuple[int, int]]] = field(
        default_factory=dict)
    only_explainers: tuple[str, ...] = ()

    def arm(self, side: Side) -> Arm:
        return self.original if side == "original" else self.alternative

    @property
    def default_explainers(self) -> tuple[str, ...]:
        return paper_explainers(self.paper_table)


@dataclass(frozen=True)
class FigureAblation:
    """A figure ablation: its own loop, run by `run(args, out)`."""

    name: str
    title: str
    run: Callable[[argparse.Namespace, TextIO], int]
    default_seeds: str
    default_limit: int


TABLE_ABLATIONS: dict[str, TableAblation] = {a.name: a for a in [
    TableAblation(
        "table8", "table8",
        "Table 8 (App. C.3): the comparative operator, expanded by Eq. 6 vs direct by Eq. 8",
        ("Majority1Hop", "Majority2Hop"),
        Arm("expanded", "main"), Arm("direct", "direct"),
        (Check("lower", "Saliency", "precision"),),
        "paper Table 8: lines 398-427",
        TABLE8_SIZES),
    TableAblation(
        "table9", "table9",
        "Table 9 (App. C.4): IG with the exact derivative vs the surrogate of Eq. 9",
        ("RedBlueLeaf", "Redundancy", "CompetingRedundancy", "RedBlueLeaf-NC",
         "Majority1Hop", "Majority2Hop"),
        Arm("exact", "main"), Arm("surrogate", "main", {"IG": {"derivative": "surrogate"}}),
        (Check("lower", "IG", "recall", ("Majority2Hop",)),),
        "paper Table 9: lines 439-447 (surrogate); exact = IG's row of Tables 2/3",
        only_explainers=("IG",)),
    TableAblation(
        "table10", "table10",
        "Table 10 (App. C.5): CompetingRedundancy, disjunction via De Morgan vs the flat gate "
        "of Eq. 7",
        ("CompetingRedundancy",),
        Arm("De Morgan", "main"), Arm("flat", "flat"),
        tuple(Check("chance_to_perfect", e) for e in
              ("Saliency", "Deconv", "GuidedBP", "GNNExplainer", "LRP"))
        + tuple(Check("unchanged", e) for e in ("IG", "FlowX", "GraphSVX")),
        "paper Table 10: lines 457-472",
        TABLE10_SIZES),
    TableAblation(
        "table11", "table11",
        "Table 11 (App. C.5): RedBlueLeaf, formula φ∧ (Eq. 10) vs φ∨ (Eq. 11)",
        ("RedBlueLeaf",),
        Arm("φ∧", "main"), Arm("φ∨", "or"),
        tuple(Check("falls_to_chance", e, "precision") for e in ("Saliency", "GuidedBP", "LRP"))
        + tuple(Check("unchanged", e) for e in ("IG", "GraphSVX", "GNNExplainer")),
        "paper Table 11: lines 504-519"),
]}


# ---------------------------------------------------------------- direction checks


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


def _mean(cell: Cell | None, metric: Metric) -> float | None:
    if cell is None or cell.out_of_time:
        return None
    stat: Stat | None = getattr(cell, metric)
    return None if stat is None else stat.mean


def evaluate_check(ablation: str, check: Check, task: str, alternative_label: str,
                   original: Cell | None, alternative: Cell | None,
                   ran: bool = True) -> CheckResult:
    """PASS or FAIL of one claim on one task from the two arms' cells; NOT RUN when the
    explainer was not run or an arm has no numbers (nothing run, out of time, errors only)."""
    claim = _claim(check, alternative_label)
    if not ran:
        return CheckResult(ablation, check, task, "NOT RUN", f"{claim} — not among --explainers")
    before, after = _mean(original, check.metric), _mean(alternative, check.metric)
    f1_before, f1_after = _mean(original, "f1"), _mean(alternative, "f1")
    needs_original = check.kind != "falls_to_chance"
    if after is None or (needs_original and before is None):
        missing = [side for side, cell in (("original", original), ("alternative", alternative))
                   if _mean(cell, check.metric) is None]
        return CheckResult(ablation, check, task, "NOT RUN",
                           f"{claim} — no numbers for the {' and '.join(missing)} arm")
    metric = "F1" if check.metric == "f1" else check.metric
    if check.kind == "chance_to_perfect":
        assert f1_before is not None and f1_after is not None
        passed = f1_before <= CHANCE_F1 + 1e-9 and f1_after >= PERFECT_F1 - 1e-9
        values = f"F1 {f1_before:.2f} → {f1_after:.2f}"
    elif check.kind == "unchanged":
        assert before is not None
        passed = abs(after - before) <= SAME_MARGIN + 1e-9
        values = f"{metric} {before:.2f} → {after:.2f} (Δ {after - before:+.2f})"
    elif check.kind == "falls_to_chance":
        passed = after <= CHANCE_PRECISION + 1e-9
        values = (f"precision {'?' if before is None else f'{before:.2f}'} → {after:.2f}")
    else:
        assert before is not None
        passed = after < before - 1e-9
        values = f"{metric} {before:.2f} → {after:.2f}"
    return CheckResult(ablation, check, task, "PASS" if passed else "FAIL",
                       f"{claim}: {values}")


# ---------------------------------------------------------------- rendering a table ablation


ArmKey = tuple[str, str, str]            # side, task, explainer
CellKey = tuple[str, str, str, str]      # task, variant, explainer, config hash


@dataclass(frozen=True)
class Shape:
    """A compiled model's size: message-passing layers and hidden columns (readout not counted),
    and the bound n of Eq. 6 it was compiled with (None: no expanded comparative)."""

    layers: int
    width: int
    bound: int | None = None


@dataclass(frozen=True)
class Rendered:
    markdown: str
    csv_headers: list[str]
    csv_rows: list[list[str]]
    checks: list[CheckResult]


CSV_COLUMNS: tuple[str, ...] = (
    "task", "explainer",
    *(f"{side}_{metric}_{what}" for side in SIDES for metric in ("precision", "recall", "f1")
      for what in ("mean", "std", "paper_mean", "paper_std")),
    "original_seeds", "alternative_seeds", "original_instances", "alternative_instances",
    "original_oot", "alternative_oot", "paper_original_oot", "paper_alternative_oot",
    "delta_f1", "paper_delta_f1", "direction_agrees", "original_config", "alternative_config")


def _ours_text(cell: Cell | None, metric: Metric) -> str:
    if cell is None:
        return MISSING
    if cell.out_of_time:
        return "OOT"
    stat: Stat | None = getattr(cell, metric)
    if stat is None:
        return "error"
    text = f"{stat.mean:.2f} ± {stat.std:.2f}"
    return f"{text} {DAGGER}" if cell.partial else text


def _paper_scores(paper: AblationCell | None, side: Side) -> Scores | None:
    if paper is None:
        return None
    return paper.original if side == "original" else paper.alternative


def _paper_text(paper: AblationCell | None, side: Side, metric: Metric) -> str:
    if paper is None:
        return MISSING
    scores = _paper_scores(paper, side)
    if scores is None:
        return "oot"
    stat = getattr(scores, metric)
    return f"{stat.mean:.2f} ± {stat.std:.2f}"


def _arrow(delta: float) -> str:
    if delta > SAME_MARGIN + 1e-9:
        return "↑"
    if delta < -SAME_MARGIN - 1e-9:
        return "↓"
    return "="


def _deltas(original: Cell | None, alternative: Cell | None,
            paper: AblationCell | None) -> tuple[float | None, float | None]:
    before, after = _mean(original, "f1"), _mean(alternative, "f1")
    ours = None if before is None or after is None else after - before
    theirs = None
    if paper is not None and paper.original is not None and paper.alternative is not None:
        theirs = paper.alternative.f1.mean - paper.original.f1.mean
    return ours, theirs


def direction_text(ours: float | None, theirs: float | None) -> str:
    """`↑ +0.91, paper ↑ +0.91 ✓`: the F1 change of ours and of the paper, and whether they
    move the same way (up, down, or within ±0.05)."""
    parts = [MISSING if ours is None else f"{_arrow(ours)} {ours:+.2f}",
             "paper " + (MISSING if theirs is None else f"{_arrow(theirs)} {theirs:+.2f}")]
    text = ", ".join(parts)
    if ours is not None and theirs is not None:
        text += " ✓" if _arrow(ours) == _arrow(theirs) else " ✗"
    return text


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.6g}"


def render_table_ablation(ablation: TableAblation, cells: Sequence[Cell],
                          hashes: Mapping[ArmKey, str], explainers: Sequence[str],
                          shapes: Mapping[tuple[str, Side], Shape], header: Sequence[str],
                          provenance: Provenance) -> Rendered:
    """The table (ours beside the paper, both arms, the direction of the F1 change), the
    direction checks, and the CSV rows, from aggregated cells.

    `hashes[(side, task, explainer)]` is the config hash of that arm's jobs; `shapes` the
    compiled model size per (task, side); `header` the protocol lines shown under the title.
    """
    found = {(c.task, c.variant, c.explainer, c.config_hash): c for c in cells}

    def cell_of(side: Side, task: str, explainer: str) -> Cell | None:
        config_hash = hashes.get((side, task, explainer))
        if config_hash is None:
            return None
        return found.get((task, ablation.arm(side).variant, explainer, config_hash))

    several_tasks = len(ablation.tasks) > 1
    headers = ["Task"] if several_tasks else []
    headers.append("Explainer")
    for side in SIDES:
        label = ablation.arm(side).label
        for metric in ("P", "R", "F1"):
            headers += [f"{label} {metric}", "paper"]
    headers.append("ΔF1 ours, paper")
    rows: list[list[str]] = []
    csv_rows: list[list[str]] = []
    for task in ablation.tasks:
        for explainer in explainers:
            original, alternative = (cell_of("original", task, explainer),
                                     cell_of("alternative", task, explainer))
            paper = paper_ablation(ablation.paper_table, task, explainer)
            line = [task] if several_tasks else []
            line.append(explainer)
            numbers: list[str] = []
            for side, cell in zip(SIDES, (original, alternative), strict=True):
                for metric in METRICS:
                    line += [_ours_text(cell, metric), _paper_text(paper, side, metric)]
                    stat = None if cell is None or cell.out_of_time else getattr(cell, metric)
                    scores = _paper_scores(paper, side)
                    theirs = None if scores is None else getattr(scores, metric)
                    numbers += [_number(None if stat is None else stat.mean),
                                _number(None if stat is None else stat.std),
                                _number(None if theirs is None else theirs.mean),
                                _number(None if theirs is None else theirs.std)]
            ours_delta, paper_delta = _deltas(original, alternative, paper)
            line.append(direction_text(ours_delta, paper_delta))
            rows.append(line)
            agrees = "" if ours_delta is None or paper_delta is None else \
                str(int(_arrow(ours_delta) == _arrow(paper_delta)))
            csv_rows.append([
                task, explainer, *numbers,
                *(str(0 if c is None else c.seeds) for c in (original, alternative)),
                *(str(0 if c is None else c.instances) for c in (original, alternative)),
                *(str(0 if c is None else c.oot_seeds) for c in (original, alternative)),
                *("" if paper is None else str(int(_paper_scores(paper, side) is None))
                  for side in SIDES),
                _number(ours_delta), _number(paper_delta), agrees,
                hashes.get(("original", task, explainer), ""),
                hashes.get(("alternative", task, explainer), "")])
    checks: list[CheckResult] = []
    for check in ablation.checks:
        for task in check.tasks or ablation.tasks:
            checks.append(evaluate_check(
                ablation.name, check, task, ablation.alternative.label,
                cell_of("original", task, check.explainer),
                cell_of("alternative", task, check.explainer),
                ran=check.explainer in explainers))
    shape_lines = [shape_line(ablation, task, shapes) for task in ablation.tasks]
    counts = sorted({c.seeds_seen for c in found.values()}) or [0]
    seeds = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    lines = [ablation.title, "", *header, *shape_lines, "", render_table(headers, rows), "",
             f"Mean ± std (ddof=0) over seeds of the per-seed mean over explained instances; F1 "
             f"averaged sample-wise; seeds per cell: {seeds}. {DAGGER}: some seeds ran out of "
             "time and are left out; OOT: every seed did; -: not run. Paper values: "
             f"{ablation.paper_lines}. P, R: precision, recall. ΔF1 = "
             f"{ablation.alternative.label} − "
             f"{ablation.original.label}; ↑/↓ beyond ±{SAME_MARGIN}, else =; ✓ when ours "
             "and the paper's move the same way.",
             "", "Direction of effect (the paper's claims):"]
    lines += [f"  {result.line()}" for result in checks]
    passed = sum(result.status == "PASS" for result in checks)
    failed = sum(result.status == "FAIL" for result in checks)
    lines += [f"  {passed} passed, {failed} failed, {len(checks) - passed - failed} not run.",
              "", provenance.line()]
    return Rendered("\n".join(lines) + "\n", list(CSV_COLUMNS), csv_rows, checks)


def shape_line(ablation: TableAblation, task: str,
               shapes: Mapping[tuple[str, Side], Shape]) -> str:
    """`Majority1Hop: expanded 4 layers × 203 columns → direct 1 × 3; paper 4 → 1 layers,
    203 → 3 dims (ours match)`."""
    original, alternative = shapes.get((task, "original")), shapes.get((task, "alternative"))
    if original is None or alternative is None:
        return f"{task}: model shapes not computed."
    labels = ablation.original.label, ablation.alternative.label
    if ablation.original.variant == ablation.alternative.variant:
        text = (f"{task}: one compiled model for both arms ({ablation.original.variant}, "
                f"{original.layers} layers × {original.width} columns); only the explainer's "
                "settings change")
        return text + "."
    text = (f"{task}: {labels[0]} {original.layers} layers × {original.width} columns → "
            f"{labels[1]} {alternative.layers} × {alternative.width}")
    paper = ablation.paper_shapes.get(task)
    if paper is None:
        return text + "; the paper gives no sizes."
    (layers_before, layers_after), (width_before, width_after) = paper
    ours = ((original.layers, alternative.layers), (original.width, alternative.width))
    verdict = "ours match" if ours == paper else "ours DIFFER"
    text += (f"; paper {layers_before} → {layers_after} layers, {width_before} → "
             f"{width_after} dims ({verdict})")
    bounds = sorted({s.bound for s in (original, alternative) if s.bound is not None})
    if ours != paper and bounds:
        # The runner raises Eq. 6's bound from the paper's 50 to the dataset's largest
        # in-degree so that the model stays exact; the width grows with the bound.
        text += (f": our Eq. 6 bound is n = {bounds[-1]}, the dataset's largest in-degree, "
                 f"where the paper's sizes are those of n = {PAPER_MAX_DEGREE}")
    return text + "."


# ---------------------------------------------------------------- running a table ablation


def _explainer_list(text: str | None, ablation: TableAblation) -> list[str]:
    from gracr.bench.explainers import EXPLAINERS

    allowed = list(ablation.only_explainers or EXPLAINERS)
    if text is None:
        return [e for e in ablation.default_explainers if e in allowed]
    try:
        return parse_names(text, allowed, "explainer")
    except GracrError as error:
        raise GracrError(f"{ablation.name}: {error}") from None


def _sizes(tasks: Iterable[str], graphs: int | None, targets: int | None) -> dict[str, int | None]:
    from gracr.bench.tasks import TASKS

    return {t: TASKS[t].size_of(graphs, targets) for t in tasks}


def plan_ablation(ablation: TableAblation, explainers: Sequence[str], seeds: Sequence[int],
                  limit: int, budget: float, sizes: Mapping[str, int | None], datasets: str,
                  settings: str, overrides: Mapping[str, Mapping[str, Any]]
                  ) -> tuple[list[Job], dict[ArmKey, str]]:
    """The runner's jobs of both arms, and each arm's config hash per (task, explainer).

    Each arm's overrides are applied over the user's `--set` ones (an arm's setting is what
    the ablation is about)."""
    from gracr.bench.runner import job_key, plan_jobs

    jobs: list[Job] = []
    seen: set[tuple[Any, ...]] = set()
    hashes: dict[ArmKey, str] = {}
    for side in SIDES:
        arm = ablation.arm(side)
        merged: dict[str, dict[str, Any]] = {name: dict(values)
                                             for name, values in overrides.items()}
        for name, values in arm.overrides.items():
            merged.setdefault(name, {}).update(values)
        planned = plan_jobs(list(ablation.tasks), [arm.variant], list(explainers), list(seeds),
                            limit, budget, sizes, datasets, settings, merged)
        for job in planned:
            hashes[(side, job.task, job.explainer)] = job.settings_hash
            if job_key(job) not in seen:
                seen.add(job_key(job))
                jobs.append(job)
    return jobs, hashes


@dataclass(frozen=True)
class Reused:
    copied: int
    mismatched: int
    sources: tuple[str, ...]


def reuse_records(sources: Sequence[str], jobs: Sequence[Job], out: Path) -> Reused:
    """Copy into `out/results.jsonl` every record of the `sources` folders whose key matches a
    planned job (task, variant, explainer, config hash, seed) and an instance within its limit,
    unless `out` has it already; a rerun then skips those instances (the runner resumes).

    A record is copied only if it describes the same instance of our dataset (its graph,
    target and number of UPI edges): a folder run on datasets of another size is not reused.
    """
    from gracr.bench.datasets import load_or_build
    from gracr.bench.runner import job_key
    from gracr.bench.instances import positive_instances

    planned = {job_key(job): job for job in jobs}
    target = out / RESULTS_FILE
    have: set[tuple[Any, ...]] = set()
    if target.exists():
        for _, obj in record_objects(target):
            have.add(_full_key(obj))
    instances: dict[tuple[str, int], list[tuple[int, int | None, int]]] = {}
    copied = mismatched = 0
    used: list[str] = []
    lines: list[str] = []
    for source in sources:
        folder = Path(source)
        path = folder if folder.is_file() else folder / RESULTS_FILE
        if not path.is_file():
            raise GracrError(f"--reuse {source}: no {RESULTS_FILE} there")
        if path.resolve() == target.resolve():
            continue
        used.append(str(path))
        for place, obj in record_objects(path):
            try:
                key = _full_key(obj)
            except (KeyError, TypeError):
                raise GracrError(f"{place}: not a GracrBench result line") from None
            job = planned.get(key[:5])
            if job is None or key in have or int(obj["instance"]) >= job.limit:
                continue
            where = (job.task, job.seed)
            if where not in instances:
                dataset = load_or_build(job.task, job.seed, job.dataset_size, job.datasets,
                                        progress=False)
                instances[where] = [(i.graph, i.target, int(i.upi.sum()))
                                    for i in positive_instances(dataset)]
            index = int(obj["instance"])
            ours = instances[where][index] if index < len(instances[where]) else None
            if ours != (obj.get("graph"), obj.get("target"), obj.get("upi_edges")):
                mismatched += 1
                continue
            have.add(key)
            lines.append(json.dumps(obj, separators=(",", ":")) + "\n")
            copied += 1
    if lines:
        try:
            out.mkdir(parents=True, exist_ok=True)
            start_results(target)
            with open(target, "a", encoding="utf-8") as handle:
                handle.writelines(lines)
        except OSError as error:
            raise GracrError(f"{target}: cannot write ({error.strerror})") from None
    return Reused(copied, mismatched, tuple(used))


def _full_key(obj: Mapping[str, Any]) -> tuple[Any, ...]:
    return (obj["task"], obj["variant"], obj["explainer"], obj["config_hash"], int(obj["seed"]),
            int(obj["instance"]))


def model_shapes(ablation: TableAblation, seed: int, sizes: Mapping[str, int | None],
                 datasets: str) -> dict[tuple[str, Side], Shape]:
    """Both arms' compiled sizes per task, compiled as the runner does on the first seed's
    dataset (Eq. 6's bound rises to the dataset's largest in-degree when it exceeds 50)."""
    from gracr.bench.datasets import load_or_build
    from gracr.bench.instances import compile_variant, variant_named

    shapes: dict[tuple[str, Side], Shape] = {}
    for task in ablation.tasks:
        dataset = load_or_build(task, seed, sizes.get(task), datasets, progress=False)
        for side in SIDES:
            model = compile_variant(task, variant_named(ablation.arm(side).variant), dataset)
            bound = model.options.max_degree if model.options.comparison == "expanded" \
                else None
            shapes[(task, side)] = Shape(model.num_layers, model.width, bound)
    return shapes


def _command(args: argparse.Namespace) -> str:
    """The `gracrc ablate` command that reproduces this run (every protocol flag spelled out)."""
    words = ["gracrc", "ablate", args.name, "--seeds", args.seeds, "--limit", str(args.limit),
             "--out", args.out]
    if args.name in TABLE_ABLATIONS:
        words += ["--budget", f"{args.budget:g}", "--settings", args.settings]
        if args.explainers is not None:
            words += ["--explainers", args.explainers]
        for folder in args.reuse:
            words += ["--reuse", folder]
    for pair in args.set:
        words += ["--set", pair]
    if args.datasets != DEFAULT_DATASETS:
        words += ["--datasets", args.datasets]
    for flag in ("graphs", "targets", "max_k"):
        if getattr(args, flag, None) is not None:
            words += [f"--{flag.replace('_', '-')}", str(getattr(args, flag))]
    if args.name == "fig3" and args.strengths is not None:
        words += ["--strengths", args.strengths]
    return shlex.join(words)


def _write_text(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


def run_table_ablation(ablation: TableAblation, args: argparse.Namespace, out: TextIO) -> int:
    """Plan both arms, copy reusable records, run what is missing, render and write."""
    from gracr.bench.runner import run

    seeds = parse_seeds(args.seeds)
    explainers = _explainer_list(args.explainers, ablation)
    overrides = parse_overrides(args.set, explainers)
    if args.jobs <= 0:
        raise GracrError(f"--jobs must be positive, got {args.jobs}")
    sizes = _sizes(ablation.tasks, args.graphs, args.targets)
    jobs, hashes = plan_ablation(ablation, explainers, seeds, args.limit, args.budget, sizes,
                                 args.datasets, args.settings, overrides)
    folder = Path(args.out)
    started = time.perf_counter()
    if args.reuse:
        reused = reuse_records(args.reuse, jobs, folder)
        print(f"reused {reused.copied} records from {', '.join(reused.sources) or 'nothing'}"
              + (f"; {reused.mismatched} left out (another dataset size?)"
                 if reused.mismatched else ""), file=out)
    results = run(jobs, str(folder), workers=args.jobs, progress=not args.quiet)
    shapes = model_shapes(ablation, seeds[0], sizes, args.datasets)
    planned = {(job.task, job.variant, job.explainer, job.settings_hash) for job in jobs}
    loaded = load_results([str(results)])
    wanted = [r for r in loaded.records
              if (r.task, r.variant, r.explainer, r.config_hash) in planned
              and r.seed in seeds and r.instance < args.limit]
    cells = aggregate(wanted)
    provenance = Provenance(_command(args), datetime.date.today().isoformat(),
                            tuple(sorted({r.gracr_version for r in wanted})))
    header = [f"Protocol: seeds {args.seeds}, first {args.limit} positive instances per seed, "
              f"{args.budget:g} CPU s per instance, settings {args.settings}"
              + (f", --set {' '.join(args.set)}" if args.set else "") + "."]
    rendered = render_table_ablation(ablation, cells, hashes, explainers, shapes, header,
                                     provenance)
    _write_text(folder / f"{ablation.name}.md", rendered.markdown)
    write_table(str(folder / f"{ablation.name}.csv"), rendered.csv_headers, rendered.csv_rows)
    write_table(str(folder / f"{ablation.name}_checks.csv"),
                ["ablation", "explainer", "task", "kind", "metric", "status", "detail"],
                [[r.ablation, r.check.explainer, r.task, r.check.kind, r.check.metric, r.status,
                  r.detail] for r in rendered.checks])
    print(rendered.markdown, end="", file=out)
    print(f"wrote {ablation.name}.md, {ablation.name}.csv, {ablation.name}_checks.csv to "
          f"{folder} ({time.perf_counter() - started:.1f} s)", file=out)
    if args.strict and any(r.status == "FAIL" for r in rendered.checks):
        return 1
    return 0


# ---------------------------------------------------------------- shared by the figures


class _Cache:
    """A resumable JSON Lines log of a figure's per-instance records, keyed by `key_fields`."""

    def __init__(self, path: Path, key_fields: Sequence[str]) -> None:
        self.path = path
        self.key_fields = tuple(key_fields)
        self.records: dict[tuple[Any, ...], dict[str, Any]] = {}
        if path.exists():
            for _, obj in read_json_lines(path):
                self.records[self.key(obj)] = obj

    def key(self, obj: Mapping[str, Any]) -> tuple[Any, ...]:
        try:
            return tuple(obj[name] for name in self.key_fields)
        except KeyError as missing:
            raise GracrError(f"{self.path}: a record without {missing}") from None

    def __contains__(self, key: tuple[Any, ...]) -> bool:
        return key in self.records

    def add(self, obj: dict[str, Any]) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(obj, separators=(",", ":")) + "\n")
        except OSError as error:
            raise GracrError(f"{self.path}: cannot write ({error.strerror})") from None
        self.records[self.key(obj)] = obj


def _settings(explainer: str, task: str, mode: str,
              overrides: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The explainer's defaults, then its tuned settings (`mode == "tuned"`), then `--set`."""
    from gracr.bench.explainers import explainer_named, settings_for
    from gracr.bench.tuning import tuned_settings

    for name in overrides:
        if name != explainer:
            raise GracrError(f"--set names {name}; this ablation runs {explainer} only")
    chosen: dict[str, Any] = dict(tuned_settings(explainer, task)) if mode == "tuned" else {}
    chosen.update(overrides.get(explainer, {}))
    return settings_for(explainer_named(explainer), chosen)


def _seed_stats(records: Sequence[Mapping[str, Any]], field_name: str) -> Stat | None:
    """mean ± std (ddof=0) over seeds of each seed's mean of `field_name` over its 'ok'
    records; a seed with an 'oot' record is left out (App. H, as the report does)."""
    by_seed: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        by_seed[int(record["seed"])].append(record)
    means = []
    for seed_records in by_seed.values():
        if any(r["status"] == "oot" for r in seed_records):
            continue
        values = [float(r[field_name]) for r in seed_records
                  if r["status"] == "ok" and r.get(field_name) is not None]
        if values:
            means.append(float(np.mean(values)))
    if not means:
        return None
    return Stat(float(np.mean(means)), float(np.std(means)))


def _stat_text(stat: Stat | None, digits: int = 2) -> str:
    return MISSING if stat is None else f"{stat.mean:.{digits}f} ± {stat.std:.{digits}f}"


def _figure_canvas(rows: int, width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, 1, squeeze=False, sharex=True)
    return figure, [row[0] for row in axes]


def _save_figure(figure: Any, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(str(path), dpi=120)
    except OSError as error:
        raise GracrError(f"{path}: cannot write ({error.strerror})") from None


# ---------------------------------------------------------------- fig3


FIG3_TASK = "Redundancy"
FIG3_EXPLAINER = "GNNExplainer"
FIG3_DEFAULT_STRENGTHS: tuple[float, ...] = tuple(float(v) for v in np.logspace(-4, 1, 6))


def parse_strengths(text: str | None) -> list[float]:
    """`--strengths 1e-4,0.01,1` -> floats, each positive (a log axis)."""
    if text is None:
        return list(FIG3_DEFAULT_STRENGTHS)
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise GracrError(f"bad --strengths '{text}': write positive numbers, e.g. "
                         "1e-4,1e-2,1") from None
    if not values or min(values) <= 0 or not all(math.isfinite(v) for v in values):
        raise GracrError(f"bad --strengths '{text}': the strengths must be positive numbers")
    return sorted(set(values))


def fig3_rows(records: Sequence[Mapping[str, Any]], strengths: Sequence[float]
              ) -> list[tuple[float, int, int, dict[str, Stat | None]]]:
    """Per strength: seeds in the means, 'ok' instances, and mean ± std over seeds of
    precision, recall, F1 and the mean edge score on UPI edges and on the others."""
    rows = []
    for strength in strengths:
        mine = [r for r in records if float(r["strength"]) == strength]
        oot = {int(r["seed"]) for r in mine if r["status"] == "oot"}
        kept = [r for r in mine if int(r["seed"]) not in oot]
        stats = {name: _seed_stats(kept, name)
                 for name in ("precision", "recall", "f1", "upi_score", "other_score")}
        seeds = len({int(r["seed"]) for r in kept if r["status"] == "ok"})
        rows.append((strength, seeds, sum(r["status"] == "ok" for r in kept), stats))
    return rows


def run_fig3(args: argparse.Namespace, out: TextIO) -> int:
    """GNNExplainer's L1 strength swept on Redundancy (Fig. 3): plausibility and the mean edge
    score on UPI edges vs the others, per strength, over seeds × first `limit` positives."""
    from tqdm import tqdm

    from gracr.version import __version__
    from gracr.bench.datasets import load_or_build
    from gracr.bench.budget import explain
    from gracr.bench.explainers import Subject, explainer_seed, settings_hash
    from gracr.bench.instances import compile_variant, positive_instances
    from gracr.bench.tasks import TASKS, VARIANTS

    seeds, strengths = parse_seeds(args.seeds), parse_strengths(args.strengths)
    base = _settings(FIG3_EXPLAINER, FIG3_TASK, args.settings,
                     parse_overrides(args.set, [FIG3_EXPLAINER]))
    folder = Path(args.out)
    cache = _Cache(folder / "fig3.jsonl", ("config_hash", "dataset_size", "seed", "instance"))
    program = TASKS[FIG3_TASK].program()
    started = time.perf_counter()
    work = []
    for seed in seeds:
        dataset = load_or_build(FIG3_TASK, seed, args.graphs, args.datasets,
                                progress=not args.quiet)
        size = int(dataset.meta.get("size", len(dataset.instances)))
        chosen = [i for i in positive_instances(dataset) if i.index < args.limit]
        work.append((seed, dataset, size, chosen))
    settings_of = {s: {**base, "edge_size": s} for s in strengths}
    hash_of = {s: settings_hash(settings_of[s]) for s in strengths}
    todo = sum(1 for s in strengths for seed, _, size, chosen in work for i in chosen
               if (hash_of[s], size, seed, i.index) not in cache)
    bar = tqdm(total=todo, desc="fig3", unit="instance", disable=args.quiet, dynamic_ncols=True)
    for seed, dataset, size, chosen in work:
        model = compile_variant(FIG3_TASK, VARIANTS["main"], dataset)
        modules: dict[str, Any] = {}
        for strength in strengths:
            config_hash = hash_of[strength]
            for instance in chosen:
                if (config_hash, size, seed, instance.index) in cache:
                    if cache.records[(config_hash, size, seed, instance.index)][
                            "status"] == "oot":
                        break   # App. H: a seed halts at its first out-of-time instance
                    continue
                graph = dataset.instances[instance.graph].graph
                subject = Subject.of(model, program, graph, None, modules)
                record: dict[str, Any] = {
                    "strength": strength, "config": settings_of[strength],
                    "config_hash": config_hash, "dataset_size": size, "seed": seed,
                    "instance": instance.index, "graph": instance.graph, "status": "ok",
                    "precision": None, "recall": None, "f1": None, "upi_score": None,
                    "other_score": None, "cpu_seconds": 0.0, "gracr_version": __version__}
                outcome = explain(FIG3_EXPLAINER, subject, instance.upi,
                                  settings_of[strength],
                                  explainer_seed(seed, instance.index), args.budget)
                record.update(status=outcome.status, precision=outcome.precision,
                              recall=outcome.recall, f1=outcome.f1,
                              cpu_seconds=outcome.cpu_seconds)
                if outcome.error is not None:
                    record["error"] = outcome.error
                if outcome.scores is not None:
                    values = outcome.scores
                    record.update(upi_score=float(values[instance.upi].mean()),
                                  other_score=float(values[~instance.upi].mean())
                                  if (~instance.upi).any() else None)
                cache.add(record)
                bar.update()
                if record["status"] == "oot":
                    bar.write(f"fig3 strength {strength:g} seed {seed} instance "
                              f"{instance.index}: oot (rest of the seed skipped)")
                    break
    bar.close()
    wanted_keys = {(hash_of[s], size, seed, i.index) for s in strengths
                   for seed, _, size, chosen in work for i in chosen}
    records = [r for k, r in cache.records.items() if k in wanted_keys]
    errors = sum(r["status"] == "error" for r in records)
    rows = fig3_rows(records, strengths)
    headers = ["edge_size (L1)", "seeds", "instances", "precision", "recall", "F1",
               "mean score UPI edges", "mean score other edges"]
    body = [[f"{strength:g}", str(seeds_in), str(count),
             *(_stat_text(stats[n]) for n in ("precision", "recall", "f1")),
             _stat_text(stats["upi_score"], 3), _stat_text(stats["other_score"], 3)]
            for strength, seeds_in, count, stats in rows]
    csv_headers = ["edge_size", "seeds", "instances"] + [
        f"{n}_{w}" for n in ("precision", "recall", "f1", "upi_score", "other_score")
        for w in ("mean", "std")]
    csv_rows = [[f"{strength:g}", str(seeds_in), str(count)] + [
        _number(None if stats[n] is None else getattr(stats[n], w))
        for n in ("precision", "recall", "f1", "upi_score", "other_score")
        for w in ("mean", "std")] for strength, seeds_in, count, stats in rows]
    provenance = Provenance(_command(args), datetime.date.today().isoformat(),
                            tuple(sorted({str(r["gracr_version"]) for r in records})))
    other = {k: v for k, v in base.items() if k != "edge_size"}
    text = "\n".join([
        "Fig. 3: GNNExplainer's L1 penalty (PyG edge_size) on Redundancy", "",
        f"Seeds {args.seeds}, first {args.limit} positive graphs per seed, {args.budget:g} CPU s "
        f"per instance; other settings ({args.settings}): {json.dumps(other, sort_keys=True)}.",
        "The paper does not list its grid of strengths; ours: "
        + ", ".join(f"{s:g}" for s in strengths) + ".", "",
        render_table(headers, body), "",
        "Mean ± std (ddof=0) over seeds of per-seed means; a seed with an out-of-time instance "
        "is left out"
        + (f"; {errors} failed instances left out" if errors else "") + ". Edge scores are GNNExplainer's mask values in [0, 1]. The paper: "
        "precision and recall stay perfect at every strength and the redundant UPI edges "
        "are not sparsified.", "", provenance.line()]) + "\n"
    _write_text(folder / "fig3.md", text)
    write_table(str(folder / "fig3.csv"), csv_headers, csv_rows)
    plot_fig3(rows, folder / "fig3.png")
    print(text, end="", file=out)
    print(f"wrote fig3.md, fig3.csv, fig3.png to {folder} "
          f"({time.perf_counter() - started:.1f} s)", file=out)
    return 0


def plot_fig3(rows: Sequence[tuple[float, int, int, Mapping[str, Stat | None]]],
              path: Path) -> None:
    """Top: precision, recall, F1 vs strength; bottom: mean score on UPI vs other edges."""
    figure, (top, bottom) = _figure_canvas(2, 6.0, 6.0)
    strengths = [row[0] for row in rows]

    def series(name: str) -> tuple[list[float], list[float]]:
        stats = [row[3][name] for row in rows]
        return ([math.nan if s is None else s.mean for s in stats],
                [0.0 if s is None else s.std for s in stats])

    for name, label, marker in (("precision", "precision", "o"), ("recall", "recall", "s"),
                                ("f1", "F1", "^")):
        means, stds = series(name)
        top.errorbar(strengths, means, yerr=stds, marker=marker, capsize=3, label=label)
    top.set_ylabel("metric")
    top.set_ylim(-0.03, 1.05)
    top.legend(loc="lower left")
    top.grid(alpha=0.3)
    for name, label, marker in (("upi_score", "UPI edges", "o"),
                                ("other_score", "other edges", "s")):
        means, stds = series(name)
        bottom.errorbar(strengths, means, yerr=stds, marker=marker, capsize=3, label=label)
    bottom.set_ylabel("mean edge score")
    bottom.set_xlabel("L1 penalty strength (edge_size)")
    bottom.set_xscale("log")
    bottom.set_ylim(-0.03, 1.05)
    bottom.legend(loc="center left")
    bottom.grid(alpha=0.3)
    figure.suptitle("GNNExplainer on Redundancy (Fig. 3)")
    _save_figure(figure, path)


# ---------------------------------------------------------------- fig4


FIG4_TASK = "Redundancy"
FIG4_EXPLAINER = "Deconv"
ANCHOR_COLOUR = "black"
RECOLOUR = "red"


def recolourable(graph: Graph) -> list[int]:
    """The nodes Fig. 4 may recolour red: not black, not red, and neither an in- nor an
    out-neighbour of a black node — so that the new red nodes can never satisfy ◇≥1 red at a
    black node and `∃u. black(u) ∧ ◇≥1 red` keeps its UPI."""
    black = graph.color_mask(ANCHOR_COLOUR)
    near = black.copy()
    near[graph.sources[black[graph.targets]]] = True
    near[graph.targets[black[graph.sources]]] = True
    red = graph.color_mask(RECOLOUR)
    return [int(v) for v in np.flatnonzero(~near & ~red)]


def recolour_order(graph: Graph, seed: int, graph_index: int) -> list[int]:
    """`recolourable(graph)` in a random order drawn from (seed, graph index)."""
    rng = np.random.default_rng([seed, graph_index])
    nodes = recolourable(graph)
    return [nodes[i] for i in rng.permutation(len(nodes))]


def recoloured(graph: Graph, nodes: Iterable[int]) -> Graph:
    """`graph` with each of `nodes` recoloured red (its other colours dropped: one-hot)."""
    colours = [graph.node_colors(v) for v in range(graph.num_nodes)]
    for node in nodes:
        colours[node] = frozenset({RECOLOUR})
    return Graph(graph.num_nodes, tuple(colours), graph.sources, graph.targets, graph.target,
                 graph.attributes, graph.relations)


def checked_upi(program: Any, graph: Graph, expected: BoolArray, where: str) -> None:
    """Recompute the UPI of `graph` (Algorithm 1) and fail loudly unless it is positive and
    equal to `expected`: Fig. 4 relies on the recolouring leaving the ground truth alone."""
    from gracr.bdd.upi import upi

    label, mask = upi(program, graph, order="computation")
    if label != 1 or not np.array_equal(mask, expected):
        raise AssertionError(f"{where}: recolouring changed the UPI (label {label}, "
                             f"{int(mask.sum())} UPI edges instead of {int(expected.sum())})")


def fig4_rows(records: Sequence[Mapping[str, Any]]
              ) -> list[tuple[int, int, dict[str, Stat | None]]]:
    """Per k: how many graphs reached k recoloured nodes, and mean ± std over those graphs
    (all seeds pooled) of precision, recall and F1."""
    by_k: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        if record["status"] == "ok":
            by_k[int(record["k"])].append(record)
    rows = []
    for k in sorted(by_k):
        stats: dict[str, Stat | None] = {}
        for name in ("precision", "recall", "f1"):
            values = np.asarray([float(r[name]) for r in by_k[k]])
            stats[name] = Stat(float(values.mean()), float(values.std()))
        rows.append((k, len(by_k[k]), stats))
    return rows


def run_fig4(args: argparse.Namespace, out: TextIO) -> int:
    """Deconv on the first `limit` positive Redundancy graphs while k = 0, 1, 2, … background
    nodes away from the black node are recoloured red (Fig. 4), the UPI checked at every k."""
    from tqdm import tqdm

    from gracr.version import __version__
    from gracr.bench.datasets import load_or_build
    from gracr.bench.budget import explain
    from gracr.bench.explainers import Subject, explainer_seed, settings_hash
    from gracr.bench.instances import compile_variant, positive_instances
    from gracr.bench.tasks import TASKS, VARIANTS

    seeds = parse_seeds(args.seeds)
    if args.max_k is not None and args.max_k < 0:
        raise GracrError(f"--max-k must be 0 or more, got {args.max_k}")
    settings = _settings(FIG4_EXPLAINER, FIG4_TASK, args.settings,
                         parse_overrides(args.set, [FIG4_EXPLAINER]))
    config_hash = settings_hash(settings)
    folder = Path(args.out)
    cache = _Cache(folder / "fig4.jsonl",
                   ("config_hash", "dataset_size", "seed", "graph", "k"))
    program = TASKS[FIG4_TASK].program()
    started = time.perf_counter()
    plans = []
    for seed in seeds:
        dataset = load_or_build(FIG4_TASK, seed, args.graphs, args.datasets,
                                progress=not args.quiet)
        size = int(dataset.meta.get("size", len(dataset.instances)))
        for instance in positive_instances(dataset):
            if instance.index >= args.limit:
                break
            graph = dataset.instances[instance.graph].graph
            order = recolour_order(graph, seed, instance.graph)
            steps = len(order) if args.max_k is None else min(len(order), args.max_k)
            plans.append((seed, dataset, size, instance, order[:steps]))
    todo = sum(1 for seed, _, size, instance, order in plans for k in range(len(order) + 1)
               if (config_hash, size, seed, instance.graph, k) not in cache)
    bar = tqdm(total=todo, desc="fig4", unit="step", disable=args.quiet, dynamic_ncols=True)
    models: dict[int, Any] = {}
    for seed, dataset, size, instance, order in plans:
        if seed not in models:
            models[seed] = compile_variant(FIG4_TASK, VARIANTS["main"], dataset)
        base = dataset.instances[instance.graph].graph
        for k in range(len(order) + 1):
            key = (config_hash, size, seed, instance.graph, k)
            if key in cache:
                continue
            graph = recoloured(base, order[:k])
            checked_upi(program, graph, instance.upi,
                        f"Redundancy seed {seed} graph {instance.graph}, k = {k}")
            subject = Subject.of(models[seed], program, graph, None)
            record: dict[str, Any] = {
                "config": settings, "config_hash": config_hash, "dataset_size": size,
                "seed": seed, "graph": instance.graph, "instance": instance.index, "k": k,
                "recoloured": order[:k], "status": "ok", "precision": None,
                "recall": None, "f1": None, "gracr_version": __version__}
            outcome = explain(FIG4_EXPLAINER, subject, instance.upi, settings,
                              explainer_seed(seed, instance.index), args.budget)
            record.update(status=outcome.status, precision=outcome.precision,
                          recall=outcome.recall, f1=outcome.f1)
            if outcome.error is not None:
                record["error"] = outcome.error
            cache.add(record)
            bar.update()
    bar.close()
    wanted = {(config_hash, size, seed, instance.graph, k)
              for seed, _, size, instance, order in plans for k in range(len(order) + 1)}
    records = [r for key, r in cache.records.items() if key in wanted]
    rows = fig4_rows(records)
    oot = sum(r["status"] == "oot" for r in records)
    errors = sum(r["status"] == "error" for r in records)
    headers = ["k recoloured", "graphs", "precision", "recall", "F1"]
    body = [[str(k), str(n), *(_stat_text(stats[m]) for m in ("precision", "recall", "f1"))]
            for k, n, stats in rows]
    csv_headers = ["k", "graphs"] + [f"{m}_{w}" for m in ("precision", "recall", "f1")
                                     for w in ("mean", "std")]
    csv_rows = [[str(k), str(n)] + [_number(getattr(stats[m], w))
                                    for m in ("precision", "recall", "f1")
                                    for w in ("mean", "std")] for k, n, stats in rows]
    provenance = Provenance(_command(args), datetime.date.today().isoformat(),
                            tuple(sorted({str(r["gracr_version"]) for r in records})))
    text = "\n".join([
        "Fig. 4: Deconv on Redundancy as background nodes are recoloured red", "",
        f"Seeds {args.seeds}, first {args.limit} positive graphs per seed; at step k the first "
        "k nodes of a seeded random order of the nodes that are neither black, red nor a "
        "neighbour of the black node are red. The UPI was recomputed (Algorithm 1) and found "
        "unchanged at every step. The paper shows one graph; we average over graphs.", "",
        render_table(headers, body), "",
        "Mean ± std (ddof=0) over the graphs that reached k (all seeds pooled)"
        + (f"; {oot} out-of-time steps left out" if oot else "")
        + (f"; {errors} steps where Deconv failed left out" if errors else "")
        + ". The paper: precision "
        "drops steadily as red nodes are added (Deconv highlights red nodes although they "
        "do not contribute).", "", provenance.line()]) + "\n"
    _write_text(folder / "fig4.md", text)
    write_table(str(folder / "fig4.csv"), csv_headers, csv_rows)
    plot_fig4(rows, folder / "fig4.png")
    print(text, end="", file=out)
    print(f"wrote fig4.md, fig4.csv, fig4.png to {folder} "
          f"({time.perf_counter() - started:.1f} s)", file=out)
    return 0


def plot_fig4(rows: Sequence[tuple[int, int, Mapping[str, Stat | None]]], path: Path) -> None:
    """Mean precision (bold, with ± std band) and recall, F1 (thin) against k."""
    figure, (axis,) = _figure_canvas(1, 6.0, 3.6)
    ks = [row[0] for row in rows]

    def values(name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        stats = [row[2][name] for row in rows]
        return (np.asarray([math.nan if s is None else s.mean for s in stats]),
                np.asarray([0.0 if s is None else s.std for s in stats]))

    mean, std = values("precision")
    axis.plot(ks, mean, marker="o", linewidth=2.0, label="precision")
    axis.fill_between(ks, mean - std, mean + std, alpha=0.2)
    for name, label in (("recall", "recall"), ("f1", "F1")):
        axis.plot(ks, values(name)[0], linewidth=1.0, linestyle="--", label=label)
    axis.set_xlabel("background nodes recoloured red (k)")
    axis.set_ylabel("metric")
    axis.set_ylim(-0.03, 1.05)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower left")
    axis.set_title("Deconv on Redundancy (Fig. 4)")
    _save_figure(figure, path)


# ---------------------------------------------------------------- the command


FIGURE_ABLATIONS: dict[str, FigureAblation] = {a.name: a for a in [
    FigureAblation("fig3", "GNNExplainer's L1 strength on Redundancy (Fig. 3)", run_fig3,
                   "0-4", 100),
    FigureAblation("fig4", "Deconv as red nodes are added to Redundancy graphs (Fig. 4)",
                   run_fig4, "0", 20),
]}
ABLATIONS: tuple[str, ...] = (*TABLE_ABLATIONS, *FIGURE_ABLATIONS)


def add_ablate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `gracrc ablate NAME [flags]` to a `gracrc` subparsers object."""
    lines = [f"  {a.name:<8} {a.title}" for a in TABLE_ABLATIONS.values()]
    lines += [f"  {a.name:<8} {a.title}" for a in FIGURE_ABLATIONS.values()]
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ablate", help="run one of the paper's ablations (Tables 8-11, Fig. 3, Fig. 4) and "
                       "print it beside the paper (resumable)",
        description="Run one of the paper's ablations and print it beside the paper.\n\n"
                    + "\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=ABLATIONS, metavar="NAME",
                        help="one of " + ", ".join(ABLATIONS))
    parser.add_argument("--seeds", default=None,
                        help="dataset seeds (default 0-4; fig4: 0)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="the first N positive instances per seed (default 100; fig4: "
                             "the first 20 positive graphs)")
    parser.add_argument("--budget", type=float, default=180.0, metavar="SECONDS",
                        help="CPU seconds per instance before OOT (default 180, App. H)")
    parser.add_argument("--jobs", type=int, default=1, metavar="K",
                        help="tables: worker processes (default 1)")
    parser.add_argument("--explainers", default=None,
                        help="tables: comma list of explainers, or all (default: those the "
                             "paper's table lists)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="results and report folder (default out/ablations/NAME); reruns "
                             "resume")
    parser.add_argument("--reuse", action="append", default=[], metavar="DIR",
                        help="tables: copy matching records of DIR/results.jsonl (e.g. the "
                             "official `gracrc bench` run) before running (repeatable)")
    parser.add_argument("--datasets", default=DEFAULT_DATASETS, metavar="DIR",
                        help="dataset store (default out/datasets)")
    parser.add_argument("--graphs", type=int, default=None, metavar="N",
                        help="graph tasks: dataset size (default 1000)")
    parser.add_argument("--targets", type=int, default=None, metavar="N",
                        help="node tasks: dataset size in positive targets (default 500)")
    parser.add_argument("--settings", choices=("tuned", "default"), default="tuned",
                        help="explainer settings: tuned where stored (default) or defaults")
    parser.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                        help="override one setting for both arms (repeatable)")
    parser.add_argument("--strengths", default=None, metavar="S1,S2,...",
                        help="fig3: L1 strengths (default 6 log-spaced points, 1e-4 ... 10; the "
                             "paper does not list its grid)")
    parser.add_argument("--max-k", type=int, default=None, metavar="K",
                        help="fig4: recolour at most K nodes per graph (default: all eligible)")
    parser.add_argument("--strict", action="store_true",
                        help="tables: exit with status 1 when a direction check fails")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    # `gracrc`'s main calls `run(args, out)` and turns a GracrError into its one-line message.
    parser.set_defaults(run=ablate_command)
    return parser


def _fill_defaults(args: argparse.Namespace) -> None:
    figure = FIGURE_ABLATIONS.get(args.name)
    if args.seeds is None:
        args.seeds = figure.default_seeds if figure else "0-4"
    if args.limit is None:
        args.limit = figure.default_limit if figure else 100
    if args.out is None:
        args.out = os.path.join(DEFAULT_OUT_ROOT, args.name)
    if args.limit <= 0:
        raise GracrError(f"--limit must be positive, got {args.limit}")
    if args.budget <= 0:
        raise GracrError(f"--budget must be positive, got {args.budget}")
    if figure is not None:
        for flag, value in (("--explainers", args.explainers), ("--reuse", args.reuse or None),
                            ("--jobs", None if args.jobs == 1 else args.jobs)):
            if value is not None:
                raise GracrError(f"{flag} applies to the table ablations, not to {args.name}")
    if args.name != "fig3" and args.strengths is not None:
        raise GracrError(f"--strengths applies to fig3 only, not to {args.name}")
    if args.name != "fig4" and args.max_k is not None:
        raise GracrError(f"--max-k applies to fig4 only, not to {args.name}")


def ablate_command(args: argparse.Namespace, out: TextIO) -> int:
    """`gracrc ablate NAME`: run the ablation, print it to `out`; bad input raises GracrError."""
    _fill_defaults(args)
    if args.name in TABLE_ABLATIONS:
        return run_table_ablation(TABLE_ABLATIONS[args.name], args, out)
    return FIGURE_ABLATIONS[args.name].run(args, out)


def run_ablation(args: argparse.Namespace, out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """`ablate_command` on its own: a `GracrError` becomes one `gracrc: error:` line on `err`
    and exit status 2 (the CLI's convention), never a traceback."""
    try:
        return ablate_command(args, sys.stdout if out is None else out)
    except GracrError as error:
        print(f"gracrc: error: {error}", file=sys.stderr if err is None else err)
        return 2
