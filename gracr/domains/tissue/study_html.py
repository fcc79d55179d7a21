"""`gracrc report --html` on a tissue study's folder (`gracrc tissue-study --out DIR`).

The study's records (`DIR/attributions/results.jsonl`) are the benchmark runner's, unscored:
each keeps the explainer's node scores, and the study's report scores them against its own
ground truth (`gracr.domains.tissue.study_report`), writing one line of metrics per record
to `DIR/metrics.jsonl`. So this report's leaderboard reads those metrics: a row per model
(not randomised), explainer and settings, each metric mean ± std over the explained test
samples (both classes), and the CPU seconds per sample from the records. Each explained
test sample (the first `instances`) has a page: its cells at their positions (tumour cells
red, dark where engaged; T cells blue; others grey) with the radius graph and the
ground truth's counterfactual set ringed, then each explanation's cells shaded by score
(`gracr.bench.report.html_graph`), with its metrics and settings. The pages and styles are
`gracr.bench.report.html_page`'s.

Everything is read, nothing computed: without `metrics.jsonl` (a study stopped before its
report) the leaderboard says so and shows the records' times only.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from gracr.bench.record import RESULTS_FILE, Record, latest_records, read_records
from gracr.bench.report.aggregation import explainer_rank
from gracr.bench.report.formatting import TIMES
from gracr.bench.report.html_page import (HTML_FILE, PAGES_FOLDER, SORT_SCRIPT, number_text,
                                          page, slug, stat_cell)
from gracr.bench.report.html_graph import Drawing, graph_svg, placed
from gracr.bench.study import SETTINGS_FILE
from gracr.data.graph import Graph
from gracr.domains.tissue.study_names import ATTRIBUTIONS, METRICS
from gracr.errors import GracrError
from gracr.files import read_json_lines, write_text
from gracr.stats import Stat

TRUTH_FILE, METRICS_FILE = "truth.jsonl", "metrics.jsonl"
# The metrics `gracr.domains.tissue.study_report` writes.
METRIC_NAMES = METRICS


def is_tissue_study(folder: str) -> bool:
    """Whether `folder` is a tissue study's: its settings, ground truth and records."""
    root = Path(folder)
    return all((root / name).is_file() for name in
               (SETTINGS_FILE, TRUTH_FILE, os.path.join(ATTRIBUTIONS, RESULTS_FILE)))


def _cell_fills(obj: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """Each cell's fill and type, as the study's figure colours them."""
    from gracr.domains.tissue.figure import (ENGAGED_COLOUR, OTHER_COLOUR, TCELL_COLOUR,
                                             UNENGAGED_COLOUR)

    cells = obj.get("x-cells") if isinstance(obj.get("x-cells"), dict) else {}
    kinds = cells.get("type") if isinstance(cells, dict) else None
    engaged = cells.get("engaged") if isinstance(cells, dict) else None
    count = int(obj.get("num_nodes", 0))
    if not isinstance(kinds, list) or len(kinds) != count:
        return (OTHER_COLOUR,) * count, (None,) * count
    fills = []
    for index, kind in enumerate(kinds):
        if kind == "tumour":
            hot = isinstance(engaged, list) and index < len(engaged) and engaged[index]
            fills.append(ENGAGED_COLOUR if hot else UNENGAGED_COLOUR)
        else:
            fills.append(TCELL_COLOUR if kind == "tcell" else OTHER_COLOUR)
    return tuple(fills), tuple(str(kind) for kind in kinds)


def _test_graphs(root: Path) -> dict[str, list[tuple[Graph, dict[str, Any]]]]:
    """Each test task's graphs (by task name) with their JSON objects (the cells' types)."""
    from gracr.bench.tasks import Task
    from gracr.domains.tissue.dataset import GRAPHS_FILE, TASK_FILE

    found: dict[str, list[tuple[Graph, dict[str, Any]]]] = {}
    for task_file in sorted((root / "data").glob(f"*/{TASK_FILE}")):
        name = Task.from_file(task_file).name
        path = task_file.parent / GRAPHS_FILE
        objects, _ = read_json_lines(path)
        found[name] = [(Graph.from_json(obj, f"{path}:{number}"), obj)
                       for number, obj in enumerate(objects, start=1)]
    return found


def _metric_rows(root: Path) -> tuple[list[dict[str, Any]], str | None]:
    path = root / METRICS_FILE
    if not path.is_file():
        return [], (f"{path} is missing (the study's report writes it): the leaderboard "
                    "shows the records' times only; run `gracrc tissue-study` on the folder "
                    "again to report it")
    rows, note = read_json_lines(path)
    if not all(isinstance(row, dict) and {"model", "explainer", "config", "sample", "class"}
               <= set(row) for row in rows):
        raise GracrError(f"{path}: a line that is not the metrics of a record; the file is "
                         "damaged (the study's report writes it again)")
    return rows, note


def _metric_key(row: Mapping[str, Any]) -> tuple[str, str, str, int, str]:
    return (str(row["model"]), str(row["explainer"]), str(row["config"]), int(row["sample"]),
            str(row["class"]))


def _record_key(record: Record) -> tuple[str, str, str, int, str]:
    return (record.variant, record.explainer, record.config_hash, record.graph,
            record.sample)


def _leaderboard(rows: Sequence[Mapping[str, Any]], records: Sequence[Record]) -> str:
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        if not row.get("randomised"):
            groups[(str(row["model"]), str(row["explainer"]), str(row["config"]))].append(row)
    times: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    configs: dict[str, Mapping[str, Any]] = {}
    for record in records:
        configs[record.config_hash] = record.config
        if record.status == "ok":
            times[(record.variant, record.explainer, record.config_hash)].append(
                record.cpu_seconds)
    keys = sorted(set(groups) | (set() if rows else set(times)),
                  key=lambda k: (k[0], explainer_rank(k[1]), k[2]))
    heads = ('<th class="text">model</th><th class="text">explainer</th>'
             '<th class="text">settings</th><th>samples</th>'
             + "".join(f"<th>{name}</th>" for name in METRIC_NAMES)
             + "<th>CPU s / sample</th>")
    body = []
    for key in keys:
        group = groups.get(key, [])
        model, explainer, config = key
        settings = json.dumps(dict(configs.get(config, {})), sort_keys=True)
        cells = "".join(stat_cell(Stat.of([float(r[name]) for r in group
                                            if r.get(name) is not None], 0))
                        for name in METRIC_NAMES)
        body.append(f'<tr class="board-row"><td class="text">{_e(model)}</td>'
                    f'<td class="text explainer">{_e(explainer)}</td>'
                    f'<td class="text" title="{_e(settings)}">{_e(config)}</td>'
                    f"<td>{len(group)}</td>{cells}"
                    + stat_cell(Stat.of(times.get(key, []), 0), TIMES) + "</tr>")
    return (f'<table class="sortable leaderboard"><thead><tr>{heads}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


def _e(text: str) -> str:
    from html import escape

    return escape(text)


def _sample_page(sample: int, records: Sequence[Record], truth: Mapping[str, Any] | None,
                 graphs: Mapping[str, list[tuple[Graph, dict[str, Any]]]],
                 metrics: Mapping[tuple[str, str, str, int, str], Mapping[str, Any]],
                 links: str) -> str:
    first = records[0]
    graph, obj = graphs[first.task][sample]
    fills, kinds = _cell_fills(obj)
    counterfactual = None if truth is None else truth.get("counterfactual")
    ringed = (tuple(bool(v) for v in counterfactual)
              if isinstance(counterfactual, list) and len(counterfactual) == graph.num_nodes
              else ())
    nodes = tuple(range(graph.num_nodes))
    base = Drawing(graph, None, nodes, tuple(range(graph.num_edges)), fills, kinds, (), ringed)
    base = replace(base, points=placed(base))
    label = "positive" if first.sample == "positive" else "negative"
    title = f"tissue test sample {sample} ({label})"
    what = (f"{graph.num_nodes} cells at their positions, {graph.num_edges} edges of the "
            f"radius graph; " + (f"{sum(ringed)} cells in the counterfactual set (ringed "
                                 "orange)" if ringed else "no counterfactual set stored"))
    parts = [f"<nav>{links}</nav>", f"<h1>{_e(title)}</h1>",
             f"<p>{_e(what)}. Tumour cells red (dark: engaged), T cells blue, others grey. "
             "An explanation shades each cell by its score, light grey (the drawing's "
             "lowest, most negative) to black (its highest).</p>",
             '<div class="explanation ground-truth"><h2>ground truth</h2>'
             + graph_svg(base, f"{title}: the ground truth") + "</div>"]
    for record in records:
        row = metrics.get(_record_key(record), {})
        drawn, score_graph = base, graphs.get(record.task, [])
        scores = record.extra.get("scores")
        note = None
        if record.status == "ok" and "scores" in record.extra and scores is None:
            note = ("scores not kept (an archived record: only the samples the study's "
                    "figures draw keep theirs); drawn uncoloured")
        elif record.status != "ok" or not isinstance(scores, list):
            note = f"no scores ({record.status})"
        elif len(scores) != graph.num_nodes or len(score_graph) <= sample:
            note = f"{len(scores)} scores for {graph.num_nodes} cells: drawn uncoloured"
        else:
            drawn = replace(base, edges=(), node_scores=tuple(float(v) for v in scores))
        numbers = [("status", record.status), *((name, number_text(
            None if row.get(name) is None else float(row[name]))) for name in METRIC_NAMES),
            ("CPU seconds", f"{record.cpu_seconds:.3f}")]
        table = "".join(f'<tr><th class="text" scope="row">{_e(name)}</th>'
                        f'<td class="{slug(name)}">{_e(value)}</td></tr>'
                        for name, value in numbers)
        settings = json.dumps(dict(record.config), indent=1, sort_keys=True)
        heading = f"{record.variant}: {record.explainer}"
        parts.append(
            f'<div class="explanation" id="{slug(record.variant)}-{slug(record.explainer)}-'
            f'{_e(record.config_hash)}"><h2>{_e(heading)} <small>[{_e(record.config_hash)}]'
            "</small></h2>" + graph_svg(drawn, f"{title}: {heading}")
            + (f'<p class="note">{_e(note)}</p>' if note else "")
            + f'<table class="numbers">{table}</table><h3>settings</h3>'
            f"<pre>{_e(settings)}</pre></div>")
    return page(title, "\n".join(parts))


def write_tissue_html(folder: str, out: str | None, instances: int, command: str,
                      date: str) -> str:
    """Write `report.html` and a page per explained test sample (the first `instances`)
    of the tissue study in `folder` into `out` (default `folder`); returns what
    `gracrc report --html` prints, its last line the report's path."""
    root = Path(folder)
    latest, _ = latest_records(read_records(root / ATTRIBUTIONS / RESULTS_FILE))
    rows, cut = _metric_rows(root)
    randomised = {(str(r["model"]), str(r["explainer"]), str(r["config"]))
                  for r in rows if r.get("randomised")}
    shown = [r for r in latest if (r.variant, r.explainer, r.config_hash) not in randomised]
    truth_lines, truth_cut = read_json_lines(root / TRUTH_FILE)
    truth = {int(t["sample"]): t for t in truth_lines
             if isinstance(t, dict) and isinstance(t.get("sample"), int)}
    graphs = _test_graphs(root)
    metrics = {_metric_key(row): row for row in rows}
    target = out or folder
    try:
        os.makedirs(os.path.join(target, PAGES_FOLDER), exist_ok=True)
    except OSError as error:
        raise GracrError(f"{target}: cannot create the folder ({error.strerror})") from None
    by_sample: dict[int, list[Record]] = defaultdict(list)
    for record in shown:
        if record.task in graphs and record.graph < len(graphs[record.task]):
            by_sample[record.graph].append(record)
    samples = sorted(by_sample)[:instances]
    notes = [n for n in (cut, truth_cut) if n]
    pages = {sample: f"{PAGES_FOLDER}/tissue--sample{sample}.html" for sample in samples}
    for position, sample in enumerate(samples):
        links = [f'<a href="../{HTML_FILE}">leaderboard</a>']
        if position:
            links.append(f'<a href="../{pages[samples[position - 1]]}">previous sample</a>')
        if position + 1 < len(samples):
            links.append(f'<a href="../{pages[samples[position + 1]]}">next sample</a>')
        ordered = sorted(by_sample[sample], key=lambda r: (r.variant, explainer_rank(
            r.explainer), r.config_hash))
        write_text(os.path.join(target, pages[sample]),
                   _sample_page(sample, ordered, truth.get(sample), graphs, metrics,
                                " · ".join(links)))
    listing = "".join(
        f'<tr><td><a class="instance-link" href="{pages[s]}">{s}</a></td>'
        f'<td class="text">{_e(by_sample[s][0].sample)}</td><td>{len(by_sample[s])}</td></tr>'
        for s in samples)
    body = [f"<h1>Tissue study report</h1><p>{_e(command)} · {_e(date)} · {len(latest)} "
            f"records from {_e(str(root / ATTRIBUTIONS / RESULTS_FILE))}</p>",
            *(f'<p class="note">{_e(note)}</p>' for note in notes),
            "<h2>Leaderboard</h2><p>Each metric (the study's, against its exact ground truth) "
            "is mean ± std over the explained test samples of both classes; randomised "
            "models are left out. Click a column header to sort.</p>",
            _leaderboard(rows, shown),
            f"<h2>Samples</h2><p>The first {instances} explained test samples have a page."
            "</p>",
            '<table class="sortable instances"><thead><tr><th>sample</th>'
            '<th class="text">class</th><th>explanations</th></tr></thead>'
            f"<tbody>{listing}</tbody></table>"]
    write_text(os.path.join(target, HTML_FILE),
               page("Tissue study report", "\n".join(body), SORT_SCRIPT))
    path = os.path.abspath(os.path.join(target, HTML_FILE))
    return "\n".join([*notes, f"wrote {HTML_FILE} and {len(samples)} sample pages to {target}",
                      path]) + "\n"
