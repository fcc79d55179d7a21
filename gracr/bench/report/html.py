"""`gracrc report --html`: a static, self-contained HTML report of result folders.

`REPORT_DIR/report.html` is the leaderboard: one table per task, a row per (variant,
explainer, settings), with precision, recall and F1 (mean ± std over seeds, as the
paper's tables: `gracr.bench.report.aggregation`), WOMBAT's average precision and AUROC
(mean ± std over instances), the CPU seconds per instance (mean ± std over instances),
the seeds, instances, errors and out-of-time seeds; a click on a column header sorts by
it (a small inline script; the page reads as a plain table without it). Below each
leaderboard, its instances: one row per explained positive instance with each
explainer's F1, linking to the instance's page.

The drill-down is one page per instance, `REPORT_DIR/instances/*.html` (one file each, so
that the leaderboard stays small however big the run: a page is read only when opened),
for the first `instances` positive instances of each task, variant and seed: the
instance drawn with its ground truth, then for each explainer its drawing coloured by its
scores (`gracr.bench.report.html_instance`; cells at their positions, molecules by a
domain's `Depiction`),
its precision, recall, F1, AP, AUROC, threshold and times, and its settings. The scores
come from the folder's `scores.jsonl` (`gracr.bench.scores_log`); an instance without
stored scores (a folder written before they were kept) is drawn uncoloured, and says so.
The instances are read from the dataset store (the bench run's `--datasets`, `--graphs`,
`--targets`; never built here): where it does not hold a dataset the report says so and
leaves that drill-down out.

No page loads anything from the network: styles and the script are inline, drawings
are inline SVG. Every file is written atomically (`gracr.files`).
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import numpy.typing as npt

from gracr.bench.datasets import Dataset
from gracr.bench.record import Record, RecordKey
from gracr.bench.report.aggregation import (Cell, TimeCell, aggregate_seed_times,
                                            aggregate_seeds, explainer_rank, scored_variant,
                                            task_rank)
from gracr.bench.report.formatting import MISSING, TIMES
from gracr.bench.report.html_graph import Depiction
from gracr.bench.report.html_instance import (InstanceGroup, instance_groups, instance_page,
                                              stored_instance)
from gracr.bench.report.html_page import (DEFAULT_INSTANCES, HTML_FILE, PAGES_FOLDER,
                                          SORT_SCRIPT, number_text, page, slug, stat_cell)
from gracr.bench.report.inputs import is_seeds_file, load_inputs, results_file
from gracr.bench.report.instance_figure import DatasetSource, stored_dataset
from gracr.bench.scores_log import read_scores
from gracr.errors import GracrError
from gracr.files import write_text
from gracr.stats import Stat

__all__ = ["DEFAULT_INSTANCES", "HTML_FILE", "PAGES_FOLDER", "HtmlSource", "write_html_report"]


@dataclass(frozen=True)
class HtmlSource:
    """Where the HTML report finds the instances (`datasets`: the bench run's store and
    sizes) and how many of each task, variant and seed it draws."""

    datasets: DatasetSource
    instances: int = DEFAULT_INSTANCES
    # How a domain draws its own graphs (molecules), before the report's own drawing.
    depictions: tuple[Depiction, ...] = ()


def _rank_stats(records: Iterable[Record]) -> dict[tuple[str, str, str, str],
                                                   tuple[Stat | None, Stat | None]]:
    """AP and AUROC (mean ± std over instances) per cell key."""
    found: dict[tuple[str, str, str, str], tuple[list[float], list[float]]] = \
        defaultdict(lambda: ([], []))
    for r in records:
        if r.sample == "positive" and r.status == "ok" and r.scored:
            key = (r.task, scored_variant(r.variant, r.level), r.explainer, r.config_hash)
            if r.average_precision is not None:
                found[key][0].append(r.average_precision)
            if r.auroc is not None:
                found[key][1].append(r.auroc)
    return {key: (Stat.of(ap, 0), Stat.of(auroc, 0)) for key, (ap, auroc) in found.items()}


# ---------------------------------------------------------------- the leaderboard


_BOARD_HEADERS = (("variant", True), ("explainer", True), ("settings", True),
                  ("precision", False), ("recall", False), ("F1", False), ("AP", False),
                  ("AUROC", False), ("CPU s / instance", False), ("seeds", False),
                  ("instances", False), ("errors", False), ("OOT seeds", False))


def _leaderboard(task: str, cells: Sequence[Cell],
                 times: Mapping[tuple[str, str, str, str], TimeCell],
                 ranks: Mapping[tuple[str, str, str, str], tuple[Stat | None, Stat | None]],
                 configs: Mapping[str, Mapping[str, Any]],
                 negatives: Mapping[tuple[str, str, str, str], list[bool]] | None = None
                 ) -> str:
    """The task's leaderboard; with `negatives` (WOMBAT's negative instances were
    explained), a column of the share that passed the IQR test."""
    heads = "".join(f'<th scope="col"{" class=text" if text else ""}>{name}</th>'
                    for name, text in _BOARD_HEADERS)
    rows = []
    for cell in cells:
        key = (cell.task, cell.variant, cell.explainer, cell.config_hash)
        time = times.get(key)
        ap, auroc = ranks.get(key, (None, None))
        settings = json.dumps(dict(configs.get(cell.config_hash, {})), sort_keys=True)
        rows.append(
            "<tr class=\"board-row\">"
            f'<td class="text">{escape(cell.variant)}</td>'
            f'<td class="text explainer">{escape(cell.explainer)}</td>'
            f'<td class="text" title="{escape(settings)}">{escape(cell.config_hash)}</td>'
            + stat_cell(cell.precision) + stat_cell(cell.recall) + stat_cell(cell.f1)
            + stat_cell(ap) + stat_cell(auroc)
            + stat_cell(None if time is None else time.cpu_seconds, TIMES)
            + f"<td>{cell.seeds}</td><td>{cell.instances}</td><td>{cell.errors}</td>"
            f"<td>{cell.oot_seeds}</td>"
            + ("" if negatives is None else _share_cell(negatives.get(key))) + "</tr>")
    if negatives is not None:
        heads += ('<th scope="col" title="negative instances whose scores pass WOMBAT\'s '
                  'IQR test (uniform)">IQR pass (negatives)</th>')
    return (f'<table class="sortable leaderboard" id="board-{slug(task)}">'
            f"<thead><tr>{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _share_cell(passed: list[bool] | None) -> str:
    if not passed:
        return f'<td data-sort="">{MISSING}</td>'
    share = sum(passed) / len(passed)
    return f'<td data-sort="{share!r}">{share:.0%} of {len(passed)}</td>'


def iqr_results(records: Iterable[Record]) -> dict[tuple[str, str, str, str], list[bool]]:
    """Per cell key, whether each explained negative instance passed the IQR test."""
    found: dict[tuple[str, str, str, str], list[bool]] = defaultdict(list)
    for r in records:
        if r.sample == "negative" and r.status == "ok" and r.uniform is not None:
            found[(r.task, scored_variant(r.variant, r.level), r.explainer,
                   r.config_hash)].append(r.uniform)
    return found


def _f1_cell(record: Record | None) -> str:
    if record is None:
        return f'<td data-sort="">{MISSING}</td>'
    if record.status != "ok" or record.f1 is None:
        return f'<td data-sort="">{escape(record.status)}</td>'
    return f'<td data-sort="{record.f1!r}">{number_text(record.f1)}</td>'


def _instance_table(groups: Sequence[InstanceGroup], linked: set[str]) -> str:
    explainers = sorted({(r.explainer, r.config_hash) for g in groups for r in g.records},
                        key=lambda e: (explainer_rank(e[0]), e[1]))
    heads = ('<th class="text">variant</th><th>seed</th><th>instance</th><th>graph</th>'
             "<th>target</th><th>UPI edges</th>"
             + "".join(f"<th>F1 {escape(name)}</th>" for name, _ in explainers))
    rows = []
    for group in groups:
        by = {(r.explainer, r.config_hash): r for r in group.records}
        first = group.first
        label = str(group.instance)
        if group.page in linked:
            label = f'<a class="instance-link" href="{escape(group.page)}">{label}</a>'
        cells = "".join(_f1_cell(by.get(e)) for e in explainers)
        rows.append(f'<tr><td class="text">{escape(group.variant)}</td><td>{group.seed}</td>'
                    f"<td>{label}</td><td>{first.graph}</td>"
                    f"<td>{MISSING if first.target is None else first.target}</td>"
                    f"<td>{first.upi_edges}</td>{cells}</tr>")
    return (f'<table class="sortable instances"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


# ---------------------------------------------------------------- the report


def write_html_report(folders: Sequence[str], out: str | None, source: HtmlSource,
                      command: str, date: str) -> str:
    """Write `report.html` and its instance pages into `out` (default: the first input's
    folder) from result folders (or `seeds.csv` files: leaderboard rows only); returns what
    `gracrc report --html` prints, its last line the report's path."""
    loaded = load_inputs(folders)
    cells = aggregate_seeds(loaded.seeds)
    times = {(t.task, t.variant, t.explainer, t.config_hash): t
             for t in aggregate_seed_times(loaded.seeds)}
    records = list(loaded.raw)
    ranks = _rank_stats(records)
    negatives = iqr_results(records)
    configs = {r.config_hash: r.config for r in records}
    notes: list[str] = []
    scores: dict[RecordKey, npt.NDArray[np.float64]] = {}
    for folder in folders:
        if not is_seeds_file(folder):
            found, cut = read_scores(results_file(folder))
            scores.update(found)
            if cut:
                notes.append(cut)
    if out is None:
        first = folders[0]
        out = (os.path.dirname(first) or ".") if os.path.isfile(first) else first
    try:
        os.makedirs(os.path.join(out, PAGES_FOLDER), exist_ok=True)
    except OSError as error:
        raise GracrError(f"{out}: cannot create the folder ({error.strerror})") from None

    groups = instance_groups(records)
    chosen: list[InstanceGroup] = []
    counts: dict[tuple[str, str, int], int] = defaultdict(int)
    for group in groups:
        key = (group.task, group.variant, group.seed)
        if counts[key] < source.instances:
            counts[key] += 1
            chosen.append(group)
    datasets: dict[tuple[str, int], Dataset | str] = {}
    for group in chosen:
        if (group.task, group.seed) not in datasets:
            try:
                datasets[(group.task, group.seed)] = stored_dataset(group.task, group.seed,
                                                                    source.datasets)
            except GracrError as error:
                datasets[(group.task, group.seed)] = str(error)
    written: list[InstanceGroup] = []
    missing: dict[str, list[str]] = defaultdict(list)   # a task -> why its drill-down is out
    pages: list[tuple[InstanceGroup, Dataset]] = []
    for group in chosen:
        dataset = datasets[(group.task, group.seed)]
        if not isinstance(dataset, str):
            try:
                stored_instance(dataset, group.first)
            except GracrError as error:   # said once: the dataset's other instances are out
                dataset = datasets[(group.task, group.seed)] = str(error)
        if isinstance(dataset, str):
            if dataset not in missing[group.task]:
                missing[group.task].append(dataset)
            continue
        pages.append((group, dataset))
    for position, (group, dataset) in enumerate(pages):
        previous = pages[position - 1][0].page if position else None
        following = pages[position + 1][0].page if position + 1 < len(pages) else None
        text = instance_page(group, dataset, source.datasets.datasets, scores, HTML_FILE,
                             previous, following, source.depictions)
        write_text(os.path.join(out, group.page), text)
        written.append(group)
    linked = {group.page for group in written}

    tasks = sorted({c.task for c in cells} | {g.task for g in groups}, key=task_rank)
    body = [f"<h1>GracrBench report</h1><p>{escape(command)} · {escape(date)} · "
            f"{len(records)} records from {escape(', '.join(loaded.files))}</p>",
            "<nav><ul>" + "".join(f'<li><a href="#task-{slug(t)}">{escape(t)}</a></li>'
                                  for t in tasks) + "</ul></nav>"]
    body += [f'<p class="note">{escape(note)}</p>' for note in notes]
    for task in tasks:
        task_cells = [c for c in cells if c.task == task]
        task_groups = [g for g in groups if g.task == task]
        body.append(f'<section id="task-{slug(task)}"><h2>{escape(task)}</h2>')
        body.append("<p>Scores are mean ± std over seeds (precision, recall, F1) or over "
                    "instances (AP, AUROC, CPU seconds); click a column header to sort.</p>")
        body.append(_leaderboard(task, task_cells, times, ranks, configs,
                                 negatives if any(k[0] == task for k in negatives) else None))
        for why in missing.get(task, []):
            body.append(f'<p class="note missing-store">No drill-down: {escape(why)}.</p>')
        if task_groups:
            body.append(f"<h3>Instances</h3><p>The first {source.instances} instances of "
                        "each variant and seed have a page (click the instance).</p>")
            body.append(_instance_table(task_groups, linked))
        body.append("</section>")
    write_text(os.path.join(out, HTML_FILE),
               page("GracrBench report", "\n".join(body), SORT_SCRIPT))
    path = os.path.abspath(os.path.join(out, HTML_FILE))
    lines = [f"note: no drill-down for {task}: {why}" for task, whys in missing.items()
             for why in whys]
    lines += notes
    lines.append(f"wrote {HTML_FILE} and {len(written)} instance pages to {out}")
    lines.append(path)
    return "\n".join(lines) + "\n"
