"""The tissue study over dataset seeds (`gracrc tissue-seeds STUDY... --out DIR`).

One study folder (`gracrc tissue-study --seed S`) holds one dataset seed; its `seeds`
table spreads over model (training) seeds only. This reads several study folders of one
design and different dataset seeds (their `metrics.jsonl`, written by the study's report)
and reports both spreads, separately, as the tissue issue asks:

- per model family (the model name without its training seed, `study.model_family`:
  `GIN-r1-s0`, `GIN-r1-s1` → `GIN-r1`; the compiled model, on which the model-free
  baselines are scored too, is its own family) and explainer at its default settings,
  on the models every study holds;
- each study and model is first reduced to its mean over the explained samples (pooled,
  and per class);
- "± model seeds": the standard deviation (ddof 1, `gracr.stats`) over a family's training
  seeds within a study, averaged over the studies (– with one training seed);
- "± dataset seeds": the standard deviation (ddof 1) over the studies of each study's
  mean over the family's training seeds (– with one study);
- each mean's 95 % bootstrap interval in brackets (`gracr.stats.bootstrap_interval`): the
  samples resampled within each study and model seed, weighted as the mean weighs them,
  so it is the sampling noise of the explained samples; the seed spreads stand beside it.

`write_seed_headlines` sets the studies' headline tables (each report's
`tables/headlines.csv`) side by side (`gracr.domains.headlines.Headlines.over_runs`): a
finding of the note is reproduced over the dataset seeds only where every seed reproduces
it.

Studies must agree on everything but the dataset seed, the radius ratios, GNNExplainer's
epoch budgets and the test limit (those only add models, records or samples; the
number of samples behind each study is shown).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from gracr.bench.report import TABLE, render_table, write_table
from gracr.errors import GracrError
from gracr.bench.study import SETTINGS_FILE, read_settings
from gracr.domains.tissue.phases import ARCHITECTURES as GRAPH_ARCHITECTURES
from gracr.domains.tissue.phases import model_family, name_architecture
from gracr.domains.headlines import counted
from gracr.domains.tissue.headlines import NOTE_HEADLINES
from gracr.domains.tissue.study import TissueStudy
from gracr.domains.tissue.study_names import METRICS
from gracr.domains.tissue.study_report import METRICS_FILE, SEED_DDOF, SLUGS
from gracr.stats import Interval, Stat, bootstrap_interval

# Settings that may differ between the studies combined (all others must agree).
FREE_SETTINGS = ("seed", "ratios", "epochs", "test_limit")


@dataclass(frozen=True)
class Study:
    """One study folder's dataset seed, settings and metric rows (default settings, not
    randomised)."""

    folder: Path
    seed: int
    settings: dict[str, Any]
    rows: tuple[dict[str, Any], ...]


def read_study(folder: str | Path) -> Study:
    root = Path(folder)
    settings_path, metrics_path = root / SETTINGS_FILE, root / METRICS_FILE
    for path in (settings_path, metrics_path):
        if not path.exists():
            raise GracrError(f"{path}: not found; run `gracrc tissue-study --out {root}` "
                             f"first (its report writes it)")
    settings = read_settings(settings_path, TissueStudy.REQUIRED)
    if settings is None:
        raise GracrError(f"{settings_path}: damaged (not a study's settings); run "
                         f"`gracrc tissue-study` into another folder")
    rows = []
    for number, line in enumerate(metrics_path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise GracrError(f"{metrics_path}:{number}:{error.colno}: not JSON "
                             f"({error.msg})") from None
        if row.get("default") and not row.get("randomised"):
            rows.append(row)
    return Study(root, int(settings["seed"]), settings, tuple(rows))


def check_design(studies: Sequence[Study]) -> None:
    """Refuse studies that differ in more than `FREE_SETTINGS`, or share a dataset seed."""
    if len(studies) < 1:
        raise GracrError("name at least one study folder")
    first = studies[0]
    for study in studies[1:]:
        for key in sorted(set(first.settings) | set(study.settings)):
            if key not in FREE_SETTINGS and first.settings.get(key) != study.settings.get(key):
                raise GracrError(f"{study.folder / SETTINGS_FILE}: {key} is "
                                 f"{study.settings.get(key)!r}, {first.folder} has "
                                 f"{first.settings.get(key)!r}; the studies combined must "
                                 f"differ only in {', '.join(FREE_SETTINGS)}")
    seeds = [study.seed for study in studies]
    repeated = sorted({seed for seed in seeds if seeds.count(seed) > 1})
    if repeated:
        raise GracrError(f"dataset seed {repeated[0]} is in more than one study folder "
                         f"({', '.join(str(s.folder) for s in studies if s.seed == repeated[0])})")


@dataclass(frozen=True)
class Spread:
    """One family and explainer's metric over the studies (see the module docstring)."""

    family: str
    explainer: str
    studies: int
    model_seeds: int
    samples: tuple[int, ...]
    positives: float | None
    negatives: float | None
    pooled: float
    across_model_seeds: float | None
    across_dataset_seeds: float | None
    # The bootstrap intervals of `positives`, `negatives` and `pooled`.
    intervals: tuple[Interval | None, Interval | None, Interval | None] = (None, None, None)


def _mean(values: Sequence[float]) -> float | None:
    stat = Stat.of(values, SEED_DDOF)
    return None if stat is None else stat.mean


def _std(values: Sequence[float]) -> float | None:
    stat = Stat.of(values, SEED_DDOF)
    return None if stat is None else stat.std


def seed_spreads(studies: Sequence[Study], metric: str = "AP") -> list[Spread]:
    """Each family and explainer that every study holds, with both spreads of `metric`."""
    if metric not in METRICS:
        raise GracrError(f"unknown metric {metric!r}; the metrics are {', '.join(METRICS)}")
    check_design(studies)
    # (family, explainer) -> study index -> model seed -> rows
    grouped: dict[tuple[str, str], dict[int, dict[int | None, list[dict[str, Any]]]]] = \
        defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for index, study in enumerate(studies):
        for row in study.rows:
            if row.get(metric) is None:
                continue
            family, model_seed = model_family(row["model"])
            grouped[(family, row["explainer"])][index][model_seed].append(row)
    spreads = []
    for (family, explainer), by_study in sorted(grouped.items()):
        if len(by_study) < len(studies):
            continue   # not in every study: no dataset-seed spread to give
        study_means, model_stds, counts = [], [], set()
        by_class: dict[str, list[float]] = defaultdict(list)
        samples = []
        # Every sample's value with its (study, model seed) group, for the intervals: the
        # pooled mean weighs a group 1 / (studies x its study's model seeds), a class mean
        # every group holding that class alike.
        grouped_values: dict[str, list[tuple[float, tuple[int, int | None]]]] = \
            defaultdict(list)
        weights: dict[Any, float] = {}
        for index, by_seed in by_study.items():
            for model_seed, rows in by_seed.items():
                weights[(index, model_seed)] = 1.0 / (len(by_study) * len(by_seed))
                for r in rows:
                    for part in ("pooled", r["class"]):
                        grouped_values[part].append((float(r[metric]), (index, model_seed)))
        intervals = tuple(
            bootstrap_interval([v for v, _ in grouped_values[part]],
                               [g for _, g in grouped_values[part]],
                               weights if part == "pooled" else
                               {g: 1.0 for _, g in grouped_values[part]})
            for part in ("positive", "negative", "pooled"))
        for by_seed in by_study.values():
            samples.append(len({r["sample"] for rows in by_seed.values() for r in rows}))
            model_means = []
            counts.add(len(by_seed))
            for rows in by_seed.values():
                model_means.append(float(np.mean([r[metric] for r in rows])))
                for label in ("positive", "negative"):
                    values = [r[metric] for r in rows if r["class"] == label]
                    if values:
                        by_class[label].append(float(np.mean(values)))
            study_means.append(float(np.mean(model_means)))
            spread = _std(model_means)
            if spread is not None:
                model_stds.append(spread)
        spreads.append(Spread(family, explainer, len(by_study), max(counts), tuple(samples),
                              _mean(by_class["positive"]), _mean(by_class["negative"]),
                              float(np.mean(study_means)), _mean(model_stds),
                              _std(study_means), (intervals[0], intervals[1], intervals[2])))
    return spreads


def write_seed_spreads(studies: Sequence[Study], out: str | Path, metric: str = "AP",
                       say: Callable[[str], None] = print) -> Path:
    """Write `out/seeds-<metric>.md` and `.csv` of the studies (`read_study`), print the
    table; returns the Markdown file."""
    from gracr.domains.tissue import published as note

    spreads = seed_spreads(studies, metric)
    headers = ["model", "explainer", "dataset seeds", "model seeds", "samples per study",
               "positives",
               "negatives", "pooled", "± model seeds", "± dataset seeds", "note"]

    cell = TABLE.number

    def mean(value: float | None, interval: Interval | None) -> str:
        return TABLE.with_interval(cell(value), interval)

    # The note's seed spread is of its trained graph models' IG: only on GIN and GATv2
    # rows of several training seeds (controls and the compiled model have one; the note
    # gives no number for its CNN).
    body = [[s.family, s.explainer, str(s.studies), str(s.model_seeds),
             "/".join(str(n) for n in s.samples),
             mean(s.positives, s.intervals[0]), mean(s.negatives, s.intervals[1]),
             mean(s.pooled, s.intervals[2]), cell(s.across_model_seeds),
             cell(s.across_dataset_seeds),
             note.SEED_SPREAD if s.explainer == "IG" and s.model_seeds > 1
             and name_architecture(s.family) in GRAPH_ARCHITECTURES else ""]
            for s in spreads]
    seeds = ", ".join(f"{s.seed} ({s.folder}, test limit {s.settings.get('test_limit')})"
                      for s in studies)
    title = (f"{metric} over dataset seeds {seeds}: means over every study, model seed and "
             f"explained sample [95 % bootstrap interval over the samples]; the spreads "
             f"separately (std over model seeds within a study, averaged; std over dataset "
             f"seeds of the model-seed means); the note's value on trained models only")
    say(f"\n{title}\n\n{render_table(headers, body)}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"seeds-{SLUGS[metric]}"
    for suffix in ("md", "csv"):
        write_table(f"{stem}.{suffix}", headers, body)
    return stem.with_suffix(".md")


# Where a study's report writes its headline table (`study_report`, the "headlines" table).
HEADLINES_TABLE = Path("tables") / "headlines.csv"


def read_headlines(study: Study) -> list[list[str]]:
    """The rows of a study's headline table, checked against the findings this version
    measures."""
    path = study.folder / HEADLINES_TABLE
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            table = list(csv.reader(handle))
    except FileNotFoundError:
        raise GracrError(f"{path}: not found; run `gracrc tissue-study --out {study.folder}` "
                         f"again (its report writes it)") from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise GracrError(f"{path}: cannot read ({error})") from None
    headers = list(NOTE_HEADLINES.headers)
    if not table or table[0] != headers:
        raise GracrError(f"{path}:1: not the headline table's header ({', '.join(headers)})")
    for number, row in enumerate(table[1:], 2):
        if len(row) != len(headers):
            raise GracrError(f"{path}:{number}: {len(row)} columns, the table has "
                             f"{len(headers)}")
    return table[1:]


def write_seed_headlines(studies: Sequence[Study], out: str | Path) -> tuple[Path, str]:
    """Write `out/seeds-headlines.md` and `.csv`: the note's findings over the studies'
    dataset seeds; returns the Markdown file and its count of verdicts ("12 reproduced,
    11 not reproduced, 0 not run")."""
    check_design(studies)
    headers, rows = NOTE_HEADLINES.over_runs(
        [(f"dataset seed {study.seed}", read_headlines(study)) for study in studies])
    stem = Path(out) / "seeds-headlines"
    for suffix in ("md", "csv"):
        write_table(f"{stem}.{suffix}", headers, rows)
    return stem.with_suffix(".md"), counted(rows)

