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
scores (`gracr.bench.report.html_graph`: molecules by RDKit, cells at their positions),
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
import re
from pathlib import Path
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape
from typing import Any

import numpy as np
import numpy.typing as npt

from gracr.bench.datasets import Dataset
from gracr.bench.record import Record, RecordKey
from gracr.bench.report.aggregation import (Cell, TimeCell, aggregate_seed_times,
                                            aggregate_seeds, explainer_rank, scored_variant,
                                            task_rank, variant_rank)
from gracr.bench.report.formatting import MISSING, PAPER, TIMES
from gracr.bench.report.html_graph import (Drawing, drawn_fills, graph_svg, is_molecule,
                                           molecule_svg, placed)
from gracr.bench.report.inputs import is_seeds_file, load_inputs, results_file
from gracr.bench.report.instance_figure import DatasetSource, stored_dataset
from gracr.bench.scores_log import read_scores
from gracr.errors import GracrError
from gracr.files import write_text
from gracr.stats import Stat

HTML_FILE = "report.html"
PAGES_FOLDER = "instances"
DEFAULT_INSTANCES = 10

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:80em}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;white-space:nowrap}
th{background:#f3f3f3}
td.text,th.text{text-align:left}
table.sortable th{cursor:pointer}
table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}
.note{background:#fff6e0;border-left:4px solid #f5a623;padding:.4em .8em;margin:.5em 0}
.explanation{display:inline-block;vertical-align:top;margin:0 1.5em 1.5em 0;
border:1px solid #ddd;padding:.5em}
pre{background:#f7f7f7;padding:.4em;max-width:36em;white-space:pre-wrap}
svg{background:#fff;border:1px solid #eee}
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (header, column) {
    header.addEventListener("click", function () {
      var up = header.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", up ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        var text = cell.getAttribute("data-sort");
        if (text === null) { text = cell.textContent; }
        var number = parseFloat(text);
        return isNaN(number) ? text : number;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        var order = x < y ? -1 : (x > y ? 1 : 0);
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


@dataclass(frozen=True)
class HtmlSource:
    """Where the HTML report finds the instances (`datasets`: the bench run's store and
    sizes) and how many of each task, variant and seed it draws."""

    datasets: DatasetSource
    instances: int = DEFAULT_INSTANCES


def page(title: str, body: str, script: str = "") -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n{body}\n"
            + (f"<script>{script}</script>" if script else "") + "</body></html>\n")


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


def stat_cell(stat: Stat | None, number: Any = PAPER) -> str:
    if stat is None:
        return f'<td data-sort="">{MISSING}</td>'
    return f'<td data-sort="{stat.mean!r}">{escape(number.stat(stat))}</td>'


def number_text(value: float | None, digits: int = 3) -> str:
    return MISSING if value is None else f"{value:.{digits}f}"


# ---------------------------------------------------------------- what is reported


@dataclass(frozen=True)
class InstanceGroup:
    """The records of one explained positive instance, every explainer's."""

    task: str
    variant: str        # the report's variant (`scored_variant`)
    seed: int
    instance: int
    records: tuple[Record, ...]

    @property
    def page(self) -> str:
        return (f"{PAGES_FOLDER}/{slug(self.task)}--{slug(self.variant)}--s{self.seed}"
                f"--i{self.instance}.html")

    @property
    def first(self) -> Record:
        return self.records[0]


def instance_groups(records: Iterable[Record]) -> list[InstanceGroup]:
    """The explained positive instances of scored records, in report order, each with its
    records in explainer order."""
    groups: dict[tuple[str, str, int, int], list[Record]] = defaultdict(list)
    for record in records:
        if record.sample == "positive" and record.scored:
            groups[(record.task, scored_variant(record.variant, record.level), record.seed,
                    record.instance)].append(record)
    ordered = sorted(groups, key=lambda k: (task_rank(k[0]), variant_rank(k[1]), k[2], k[3]))
    return [InstanceGroup(*key, tuple(sorted(groups[key], key=lambda r: (
        explainer_rank(r.explainer), r.config_hash)))) for key in ordered]


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
             "<th>target</th><th>UPI</th>"
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


# ---------------------------------------------------------------- an instance's page


def _drawing_svg(drawing: Drawing, label: str) -> str:
    if is_molecule(drawing.graph):
        return molecule_svg(drawing, label)
    return graph_svg(drawing, label)


def _base_drawing(dataset: Dataset, group: InstanceGroup, datasets: str | None
                  ) -> tuple[Drawing, str]:
    """The instance's drawing with its ground truth and no scores, and a line saying what
    is drawn; `GracrError` if the store's instance is not the records'."""
    from gracr.bench.instances import positive_instances, stored_node_upi
    from gracr.bench.report.instance_figure import instance_view
    from gracr.bench.tasks import task_named

    record = group.first
    instance = next((i for i in positive_instances(dataset) if i.index == record.instance),
                    None)
    graph = None if instance is None else dataset.instances[instance.graph].graph
    if instance is None or graph is None or (instance.graph, instance.target,
                                             graph.num_edges, int(instance.upi.sum())) != (
            record.graph, record.target, record.edges, record.upi_edges):
        raise GracrError(f"the stored dataset {record.task} seed {record.seed} does not hold "
                         f"the instance of {record.place}: pass the --datasets, --graphs and "
                         "--targets of the bench run")
    view = instance_view(dataset, record.instance, record.variant)
    palette = task_named(dataset.task).program().schema.palette
    colours, fills = drawn_fills(graph, view.nodes, palette)
    upi_nodes: tuple[bool, ...] = ()
    what = (f"{view.total_edges} edges" if view.target is None else
            f"the target's receptive field: {len(view.edges)} of {view.total_edges} edges")
    what += f", {sum(view.upi)} in the UPI"
    if record.level == "node":
        node_upi = stored_node_upi(dataset, instance, datasets)
        if node_upi is not None:
            upi_nodes = tuple(bool(node_upi[v]) for v in view.nodes)
            what += f"; {sum(upi_nodes)} nodes in the node UPI (ringed)"
        else:
            what += "; the node UPI is not stored with the dataset (not ringed)"
    drawing = Drawing(graph, view.target, view.nodes, view.edges, fills, colours,
                      view.upi if record.level == "edge" else (), upi_nodes)
    # Laid out once: every drawing of the instance is the same picture.
    return replace(drawing, points=placed(drawing)), what


def _scored(base: Drawing, record: Record, scores: npt.NDArray[np.float64] | None
            ) -> tuple[Drawing, str | None]:
    """`base` with the record's scores, or a note why it is drawn uncoloured."""
    if scores is None:
        return base, ("no scores stored for this instance (a results folder written before "
                      "scores were kept beside the records): drawn uncoloured")
    graph = base.graph
    if record.level == "node":
        if scores.size != graph.num_nodes:
            return base, (f"{scores.size} stored scores for {graph.num_nodes} nodes: drawn "
                          "uncoloured")
        return replace(base, node_scores=tuple(float(scores[v]) for v in base.nodes),
                       threshold=record.threshold), None
    if scores.size != graph.num_edges:
        return base, (f"{scores.size} stored scores for {graph.num_edges} edges: drawn "
                      "uncoloured")
    return replace(base, edge_scores=tuple(float(scores[e]) for e in base.edges),
                   threshold=record.threshold), None


def _legend(base: Drawing, level: str) -> str:
    """How to read an instance's drawings."""
    if is_molecule(base.graph):
        return ("The molecule as RDKit depicts it; the UPI in orange (ringed atoms at node "
                "level, underlined bonds at edge level); scores highlight the "
                + ("atoms" if level == "node" else "bonds (the higher of a bond's two "
                   "directions)") + " light yellow (the drawing's lowest) to red (its "
                "highest).")
    text = ("Each directed edge is an arc curving to its right (the two directions of an "
            "undirected edge are two arcs); the target, if any, is the large ringed node. ")
    if level == "node":
        return text + ("The node UPI is ringed orange; scores fill the nodes, light grey "
                       "(the drawing's lowest) to black (its highest).")
    return text + ("UPI edges lie on an orange halo; scores shade and widen the edges, light "
                   "grey (the drawing's lowest) to black (its highest), those below the "
                   "best-F1 threshold dashed.")


def _numbers(record: Record) -> str:
    rows = [("status", record.status + (f" ({record.error})" if record.error else "")),
            ("precision", number_text(record.precision)), ("recall", number_text(record.recall)),
            ("F1", number_text(record.f1)), ("AP", number_text(record.average_precision)),
            ("AUROC", number_text(record.auroc)),
            ("threshold", MISSING if record.threshold is None else f"{record.threshold:.4g}"),
            ("CPU seconds", f"{record.cpu_seconds:.3f}"),
            ("wall seconds", f"{record.wall_seconds:.3f}")]
    body = "".join(f'<tr><th class="text" scope="row">{name}</th>'
                   f'<td class="{slug(name)}">{escape(value)}</td></tr>'
                   for name, value in rows)
    return f'<table class="numbers">{body}</table>'


def _instancepage(group: InstanceGroup, dataset: Dataset, datasets: str | None,
                   scores: Mapping[RecordKey, npt.NDArray[np.float64]], index: str,
                   previous: str | None, following: str | None) -> str:
    record = group.first
    base, what = _base_drawing(dataset, group, datasets)
    where = f"graph {record.graph}" + ("" if record.target is None else
                                      f", target {record.target}")
    title = f"{group.task} ({group.variant}) seed {group.seed}, instance {group.instance}"
    links = [f'<a href="../{escape(index)}">leaderboard</a>']
    if previous:
        links.append(f'<a href="../{escape(previous)}">previous instance</a>')
    if following:
        links.append(f'<a href="../{escape(following)}">next instance</a>')
    parts = [f"<nav>{' · '.join(links)}</nav>",
             f"<h1>{escape(title)}</h1>",
             f"<p>{escape(where)}: {escape(what)}. {escape(_legend(base, record.level))}</p>",
             '<div class="explanation ground-truth"><h2>ground truth</h2>'
             + _drawing_svg(base, f"{title}: the ground truth") + "</div>"]
    for r in group.records:
        kept = r.extra.get("scores") if not r.scored else scores.get(r.key)
        array = None if kept is None else np.asarray(kept, dtype=np.float64)
        drawing, note = _scored(base, r, array) if r.status == "ok" else (
            base, f"no explanation ({r.status})")
        settings = json.dumps(dict(r.config), indent=1, sort_keys=True)
        parts.append(
            f'<div class="explanation" id="{slug(r.explainer)}-{escape(r.config_hash)}">'
            f"<h2>{escape(r.explainer)} <small>[{escape(r.config_hash)}]</small></h2>"
            + _drawing_svg(drawing, f"{title}: {r.explainer}'s scores")
            + (f'<p class="note">{escape(note)}</p>' if note else "")
            + _numbers(r) + f"<h3>settings</h3><pre>{escape(settings)}</pre></div>")
    return page(title, "\n".join(parts))


# ---------------------------------------------------------------- study folders


@dataclass(frozen=True)
class StudyInputs:
    """What a study's folder says of where its instances are: the task files its records
    name, and its dataset store (None: the command line's)."""

    task_files: tuple[str, ...] = ()
    datasets: str | None = None


def study_inputs(folder: str) -> StudyInputs:
    """The task files and store of a WOMBAT study's folder (`gracrc wombat-study`: its
    `settings.json` names the patterns' task files; its store is `datasets` in the folder
    unless the settings name one); nothing for any other folder."""
    from gracr.bench.study import SETTINGS_FILE
    from gracr.domains.chem.study import WombatSettings

    path = Path(folder) / SETTINGS_FILE
    if not path.is_file():
        return StudyInputs()
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        raise GracrError(f"{path}: not the JSON settings a study writes") from None
    if not isinstance(settings, dict) or "wombat" not in settings:
        return StudyInputs()
    wombat, patterns = settings.get("wombat"), settings.get("patterns")
    if not isinstance(wombat, str) or not isinstance(patterns, list) or \
            not all(isinstance(n, int) for n in patterns):
        raise GracrError(f"{path}: 'wombat' should be a folder and 'patterns' a list of "
                         "pattern numbers")
    files = WombatSettings(wombat=wombat, patterns=tuple(patterns)).task_files()
    missing = [str(file) for file in files if not file.is_file()]
    if missing:
        raise GracrError(f"{path}: its task files are missing ({', '.join(missing)}); the "
                         "report names its instances by them")
    store = settings.get("datasets")
    return StudyInputs(tuple(str(file) for file in files),
                       store if isinstance(store, str) else str(Path(folder) / "datasets"))


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
        if isinstance(dataset, str):
            if dataset not in missing[group.task]:
                missing[group.task].append(dataset)
            continue
        pages.append((group, dataset))
    for position, (group, dataset) in enumerate(pages):
        previous = pages[position - 1][0].page if position else None
        following = pages[position + 1][0].page if position + 1 < len(pages) else None
        try:
            text = _instancepage(group, dataset, source.datasets.datasets, scores, HTML_FILE,
                                  previous, following)
        except GracrError as error:
            missing[group.task].append(str(error))
            continue
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
