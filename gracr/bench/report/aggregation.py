"""Aggregation as the paper does it (§5, App. E, App. H), from one summary per seed.

Records are grouped by (task, variant, explainer, config hash) and, inside that, by seed.
Records scored at node level are reported under the variant `V@node` (`scored_variant`), so
that they form tables of their own and never mix with the edge-level cells of the paper:

- A seed with any 'oot' record ran out of time: App. H halts it, so it is left out of the means.
- Each remaining seed contributes the mean over its 'ok' records of precision, recall and F1
  (F1 is averaged sample-wise, so it need not equal the F1 of the mean precision and recall).
- A cell is mean ± std (`DDOF` = 0, see `gracr.stats`) over those per-seed means. It reads 'OOT' when
  every seed ran out of time, and its numbers carry a '†' when some did.
- 'error' records are left out and counted; the report says how many.

Times (Table 14 layout) are pooled over the instances that finished ('ok' records of every seed,
those of out-of-time seeds included), as the caption of Table 14 says; '†' marks a cell where some
instance ran out of time.

Everything above needs only one summary per seed (`SeedSummary`: its counts, its mean scores and
the moments of its times), so cells are computed from those; `summarise_seeds` makes them from
`Record`s, `gracr.bench.report.inputs` reads them back from a `seeds.csv`. The order of cells
(and of table rows) is the paper's: its tasks (`gracr.bench.tasks.PAPER_TASKS`), its explainers
(`gracr.explainers.names.PAPER_EXPLAINERS`), then anything else.

Every function here is pure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from gracr.bench.record import Record
from gracr.bench.tasks import PAPER_TASKS
from gracr.explainers.names import PAPER_EXPLAINERS
from gracr.stats import Moments, Stat

MAIN_VARIANT = "main"
# A seed's first error is an example in one warning line; cut to this many characters it
# also stays far below the field size Python's csv reader takes when `seeds.csv` is read.
FIRST_ERROR_CHARS = 1000
EXPLAINER_ORDER: tuple[str, ...] = PAPER_EXPLAINERS + ("GraphMask-clean",)
TASK_ORDER: tuple[str, ...] = PAPER_TASKS
# Every spread of a GracrBench table, over seeds and over instances (`gracr.stats`).
DDOF = 0


SeedKey = tuple[str, str, str, str, int]        # task, variant, explainer, config hash, seed


@dataclass(frozen=True)
class SeedSummary:
    """What the report needs of one seed of one (task, variant, explainer, config): a line of
    `seeds.csv`."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    seed: int
    ok: int                  # finished instances
    out_of_time: bool        # some instance ran out of time (App. H halts the seed)
    errors: int
    precision: float | None  # means over the finished instances
    recall: float | None
    f1: float | None
    cpu: Moments             # CPU and wall seconds of the finished instances
    wall: Moments
    versions: tuple[str, ...]
    first_error: str | None
    place: str               # where it was read: a results file, or a seeds.csv line

    @property
    def key(self) -> SeedKey:
        return (self.task, self.variant, self.explainer, self.config_hash, self.seed)


@dataclass(frozen=True)
class Cell:
    """One task × variant × explainer × config: precision, recall, F1 over seeds."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    seeds_seen: int          # every seed with a record
    seeds: int               # seeds in the means: not out of time, at least one 'ok' record
    oot_seeds: int           # seeds with an 'oot' record, left out of the means
    instances: int           # 'ok' records of the seeds in the means
    errors: int              # 'error' records, left out
    precision: Stat | None
    recall: Stat | None
    f1: Stat | None

    @property
    def out_of_time(self) -> bool:
        """Every seed ran out of time: the paper's 'OOT'."""
        return self.oot_seeds > 0 and self.oot_seeds == self.seeds_seen

    @property
    def partial(self) -> bool:
        """Some seeds ran out of time and the means use the others: the paper's '†'."""
        return self.oot_seeds > 0 and self.seeds > 0


@dataclass(frozen=True)
class TimeCell:
    """Seconds per explained instance, pooled over the instances that finished."""

    task: str
    variant: str
    explainer: str
    config_hash: str
    instances: int
    cpu_seconds: Stat | None
    wall_seconds: Stat | None
    partial: bool            # some instance ran out of time

    @property
    def out_of_time(self) -> bool:
        return self.partial and self.instances == 0


CellKey = tuple[str, str, str, str]              # task, variant, explainer, config hash


def _rank(order: Sequence[str], name: str) -> tuple[int, str]:
    return (order.index(name), "") if name in order else (len(order), name)


def task_rank(task: str) -> tuple[int, str]:
    """The paper's task order; unknown tasks after, alphabetically."""
    return _rank(TASK_ORDER, task)


def explainer_rank(explainer: str) -> tuple[int, str]:
    """The paper's explainer order, then GraphMask-clean; unknown ones after, alphabetically."""
    return _rank(EXPLAINER_ORDER, explainer)


def variant_rank(variant: str) -> tuple[int, str]:
    """`main` first, the ablations after, alphabetically."""
    return _rank((MAIN_VARIANT,), variant)


def cell_rank(key: CellKey) -> tuple[tuple[int, str], tuple[int, str], tuple[int, str], str]:
    task, variant, explainer, config_hash = key
    return task_rank(task), variant_rank(variant), explainer_rank(explainer), config_hash


def scored_variant(variant: str, level: str) -> str:
    """The report's variant of a record: its compile variant, with `@node` when it was
    scored at node level (an edge-level record's variant is unchanged, so reports of
    edge-level records, and their `seeds.csv`, read as before)."""
    return variant if level == "edge" else f"{variant}@{level}"


def summarise_seeds(records: Iterable[Record]) -> list[SeedSummary]:
    """One summary per (task, variant, explainer, config hash, seed) of the records, the
    variant marked with a non-edge level (`scored_variant`). Records of negative instances
    (WOMBAT's IQR test) have no F1 and are left to `gracr.bench.report.ranking`."""
    by_seed: dict[SeedKey, list[Record]] = defaultdict(list)
    for record in records:
        if record.sample != "positive" or not record.scored:
            continue
        by_seed[(record.task, scored_variant(record.variant, record.level), record.explainer,
                 record.config_hash, record.seed)].append(record)
    summaries = []
    for key, group in by_seed.items():
        done = [r for r in group if r.status == "ok"]
        errors = [r for r in group if r.status == "error"]
        files = sorted({r.place.rsplit(":", 1)[0] for r in group})
        summaries.append(SeedSummary(
            *key, ok=len(done), out_of_time=any(r.status == "oot" for r in group),
            errors=len(errors),
            precision=_mean([r.precision for r in done]), recall=_mean([r.recall for r in done]),
            f1=_mean([r.f1 for r in done]),
            cpu=Moments.of([r.cpu_seconds for r in done]),
            wall=Moments.of([r.wall_seconds for r in done]),
            versions=tuple(sorted({r.gracr_version for r in group})),
            first_error=next((r.error[:FIRST_ERROR_CHARS] for r in errors if r.error), None),
            place=", ".join(files)))
    return summaries


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of finished instances' scores (never None: `Record.from_json` checks it)."""
    present = [float(v) for v in values if v is not None]
    return float(np.mean(present)) if present else None


def _group_seeds(summaries: Iterable[SeedSummary]) -> dict[CellKey, list[SeedSummary]]:
    groups: dict[CellKey, list[SeedSummary]] = defaultdict(list)
    for summary in summaries:
        groups[summary.key[:4]].append(summary)
    return {key: groups[key] for key in sorted(groups, key=cell_rank)}


def aggregate_seeds(summaries: Iterable[SeedSummary]) -> list[Cell]:
    """One cell per (task, variant, explainer, config hash), in report order (module docstring)."""
    cells: list[Cell] = []
    for (task, variant, explainer, config_hash), group in _group_seeds(summaries).items():
        counted = [s for s in group if not s.out_of_time and s.ok]
        cells.append(Cell(
            task, variant, explainer, config_hash, seeds_seen=len(group), seeds=len(counted),
            oot_seeds=sum(s.out_of_time for s in group),
            instances=sum(s.ok for s in counted), errors=sum(s.errors for s in group),
            precision=Stat.of([s.precision for s in counted if s.precision is not None], DDOF),
            recall=Stat.of([s.recall for s in counted if s.recall is not None], DDOF),
            f1=Stat.of([s.f1 for s in counted if s.f1 is not None], DDOF)))
    return cells


def aggregate(records: Iterable[Record]) -> list[Cell]:
    """`aggregate_seeds` of the records' seed summaries."""
    return aggregate_seeds(summarise_seeds(records))


def aggregate_seed_times(summaries: Iterable[SeedSummary]) -> list[TimeCell]:
    """CPU and wall seconds per instance, one cell per (task, variant, explainer, config hash)."""
    cells: list[TimeCell] = []
    for (task, variant, explainer, config_hash), group in _group_seeds(summaries).items():
        cpu, wall = Moments(0, 0.0, 0.0), Moments(0, 0.0, 0.0)
        for summary in group:
            cpu, wall = cpu.merge(summary.cpu), wall.merge(summary.wall)
        cells.append(TimeCell(
            task, variant, explainer, config_hash, instances=cpu.n,
            cpu_seconds=cpu.stat(DDOF), wall_seconds=wall.stat(DDOF),
            partial=any(s.out_of_time for s in group)))
    return cells


def aggregate_times(records: Iterable[Record]) -> list[TimeCell]:
    """`aggregate_seed_times` of the records' seed summaries."""
    return aggregate_seed_times(summarise_seeds(records))
