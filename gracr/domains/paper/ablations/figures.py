"""What the figure ablations (Fig. 3, Fig. 4) share: their log, their settings, their
statistics and their plots.

A figure runs its own loop — the runner's records keep no edge scores (Fig. 3 needs them), and
Fig. 4 explains recoloured graphs that are in no dataset — through the one per-instance loop,
`gracr.bench.budget.explain` / `explain_each`, under the CPU budget of App. H. It logs one
`gracr.bench.record.Record` per explained instance to a results file of its own (header line
first); the fields of its study go into `Record.extra`. The log is the figure's resumable
cache: a rerun explains only what the log lacks.
"""

from __future__ import annotations

from collections import defaultdict
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.instances import ExplainedInstance, positive_instances
from gracr.bench.record import FIELDS, Record, record_objects, start_results, write_record
from gracr.bench.report import DDOF, write_table
from gracr.stats import Stat
from gracr.bench.tuning import tuned_settings
from gracr.errors import GracrError
from gracr.files import atomic_writer

LogKey = tuple[Any, ...]


def field_value(record: Record, name: str) -> Any:
    """A standard field of `record`, else one of its `extra` fields (KeyError if neither)."""
    return getattr(record, name) if name in FIELDS else record.extra[name]


class FigureLog:
    """A figure's resumable log of `Record`s, keyed by `key_fields` (standard or extra fields).

    It is read with `record_objects`, so a log without the header line reads too. A line
    without the standard fields (a figure log holding only the figure's own fields) reads
    with them filled in from the figure: its task and explainer, the `main` variant, no
    target, error or threshold, and 0 for the edge counts and seconds it does not hold.
    Of several lines with one key the last one counts; an error record counts as not
    logged, so a rerun retries it, unless `keep_errors`.
    """

    def __init__(self, path: Path, key_fields: Sequence[str], task: str,
                 explainer: str, keep_errors: bool = False) -> None:
        self.path = path
        self.key_fields = tuple(key_fields)
        self._defaults: dict[str, Any] = {
            "task": task, "variant": "main", "explainer": explainer, "target": None,
            "error": None, "threshold": None, "upi_edges": 0, "edges": 0, "cpu_seconds": 0.0,
            "wall_seconds": 0.0}
        self.records: dict[LogKey, Record] = {}
        if path.exists():
            for place, obj in record_objects(path):
                if "task" not in obj:
                    obj = {**self._defaults, **obj}
                record = Record.from_json(obj, place)
                if record.status == "error" and not keep_errors:
                    self.records.pop(self.key(record), None)
                else:
                    self.records[self.key(record)] = record

    def key(self, record: Record) -> LogKey:
        try:
            return tuple(field_value(record, name) for name in self.key_fields)
        except KeyError as missing:
            raise GracrError(f"{record.place or self.path}: a record without {missing}") \
                from None

    def __contains__(self, key: LogKey) -> bool:
        return key in self.records

    def get(self, key: LogKey) -> Record | None:
        return self.records.get(key)

    def add(self, record: Record) -> None:
        """Append `record` to the log (created with its header line) and keep it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            start_results(self.path)
            with open(self.path, "a", encoding="utf-8") as handle:
                write_record(handle, record)
        except OSError as error:
            raise GracrError(f"{self.path}: cannot write ({error.strerror})") from None
        self.records[self.key(record)] = record

    def wanted(self, keys: set[LogKey]) -> list[Record]:
        """The logged records of `keys` (those of this run's plan), in log order."""
        return [record for key, record in self.records.items() if key in keys]


def first_positives(task: str, seeds: Sequence[int], limit: int, graphs: int | None,
                    datasets: str | None, progress: bool
                    ) -> list[tuple[int, Dataset, int, list[ExplainedInstance]]]:
    """Per seed: its dataset of `task` (built on first use), the dataset's size and its
    positive instances numbered below `limit` — what a figure explains."""
    chosen = []
    for seed in seeds:
        dataset = load_or_build(task, seed, graphs, datasets, progress=progress)
        size = int(dataset.meta.get("size", len(dataset.instances)))
        chosen.append((seed, dataset, size,
                       [i for i in positive_instances(dataset) if i.index < limit]))
    return chosen


def finish_figure(name: str, folder: Path, text: str, csv_headers: Sequence[str],
                  csv_rows: Sequence[Sequence[str]], plot: Callable[[Path], None],
                  started: float, out: TextIO) -> int:
    """A figure's last step: its CSV and PNG beside its Markdown, the table printed, and one
    line saying what was written where (and how long the run took)."""
    write_table(str(folder / f"{name}.csv"), list(csv_headers), [list(r) for r in csv_rows])
    plot(folder / f"{name}.png")
    print(text, end="", file=out)
    print(f"wrote {name}.md, {name}.csv, {name}.png to {folder} "
          f"({time.perf_counter() - started:.1f} s)", file=out)
    return 0


def figure_settings(explainer: str, task: str, mode: str,
                    overrides: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The explainer's defaults, then its tuned settings (`mode == "tuned"`), then `--set`."""
    # The explainer registry loads torch and PyG; `gracrc --help` imports this module.
    from gracr.explainers import explainer_named, settings_for

    for name in overrides:
        if name != explainer:
            raise GracrError(f"--set names {name}; this ablation runs {explainer} only")
    chosen: dict[str, Any] = dict(tuned_settings(explainer, task)) if mode == "tuned" else {}
    chosen.update(overrides.get(explainer, {}))
    return settings_for(explainer_named(explainer), chosen)


def seed_stats(records: Sequence[Record], name: str) -> Stat | None:
    """mean ± std (`DDOF`, 0) over seeds of each seed's mean of field `name` over its 'ok'
    records; a seed with an 'oot' record is left out (App. H, as the report does)."""
    by_seed: dict[int, list[Record]] = defaultdict(list)
    for record in records:
        by_seed[record.seed].append(record)
    means = []
    for seed_records in by_seed.values():
        if any(r.status == "oot" for r in seed_records):
            continue
        values = [float(field_value(r, name)) for r in seed_records
                  if r.status == "ok" and field_value(r, name) is not None]
        if values:
            means.append(float(np.mean(values)))
    return Stat.of(means, DDOF)


def pooled_stats(records: Sequence[Record], name: str) -> Stat | None:
    """mean ± std (`DDOF`, 0) of field `name` over `records`, all seeds pooled."""
    return Stat.of([float(field_value(r, name)) for r in records], DDOF)


def figure_canvas(rows: int, width: float, height: float) -> tuple[Any, Any]:
    """A Matplotlib figure of `rows` axes sharing x, and the axes."""
    # Matplotlib is loaded only by the figures that plot.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, 1, squeeze=False, sharex=True)
    return figure, [row[0] for row in axes]


def save_figure(figure: Any, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise GracrError(f"{path.parent}: cannot create the folder ({error.strerror})") from None
    with atomic_writer(path, binary=True) as handle:
        figure.savefig(handle, dpi=120, format=path.suffix[1:] or None)
