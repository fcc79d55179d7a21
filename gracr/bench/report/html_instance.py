"""The HTML report's page of one explained instance (`gracr.bench.report.html`): the
instance drawn with its ground truth, then each explainer's drawing coloured by its stored
scores (`gracr.bench.scores_log`), its precision, recall, F1, AP, AUROC, threshold and
times, and its settings. Drawings are `gracr.bench.report.html_graph`'s, or a domain's
`Depiction` where one draws the graph (molecules: `gracr.domains.chem.depiction`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from html import escape

import numpy as np
import numpy.typing as npt

from gracr.bench.datasets import Dataset
from gracr.bench.instances import ExplainedInstance
from gracr.bench.record import Record, RecordKey
from gracr.bench.report.aggregation import (explainer_rank, scored_variant, task_rank,
                                            variant_rank)
from gracr.bench.report.formatting import MISSING
from gracr.bench.report.html_graph import (Depiction, Drawing, drawing_svg, drawn_fills,
                                           placed)
from gracr.bench.report.html_page import PAGES_FOLDER, number_text, page, slug
from gracr.errors import GracrError


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


def stored_instance(dataset: Dataset, record: Record) -> ExplainedInstance:
    """The positive instance `record` explained, as `dataset` holds it; `GracrError` if the
    dataset's instance is not the record's (another size or generator than the run's)."""
    from gracr.bench.instances import positive_instances

    instance = next((i for i in positive_instances(dataset) if i.index == record.instance),
                    None)
    graph = None if instance is None else dataset.instances[instance.graph].graph
    if instance is None or graph is None or (instance.graph, instance.target,
                                             graph.num_edges, int(instance.upi.sum())) != (
            record.graph, record.target, record.edges, record.upi_edges):
        raise GracrError(f"the stored dataset {record.task} seed {record.seed} does not hold "
                         f"the instance of {record.place}: pass the --datasets, --graphs and "
                         "--targets of the bench run")
    return instance


def _base_drawing(dataset: Dataset, group: InstanceGroup, datasets: str | None
                  ) -> tuple[Drawing, str]:
    """The instance's drawing with its ground truth and no scores, and a line saying what
    is drawn; `GracrError` if the store's instance is not the records'."""
    from gracr.bench.instances import stored_node_upi
    from gracr.bench.report.instance_figure import instance_view
    from gracr.bench.tasks import task_named

    record = group.first
    instance = stored_instance(dataset, record)
    graph = dataset.instances[instance.graph].graph
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


def _legend(base: Drawing, level: str, depictions: Sequence[Depiction]) -> str:
    """How to read an instance's drawings."""
    for depiction in depictions:
        if depiction.draws(base.graph):
            return depiction.legend(level)
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


def instance_page(group: InstanceGroup, dataset: Dataset, datasets: str | None,
                  scores: Mapping[RecordKey, npt.NDArray[np.float64]], index: str,
                  previous: str | None, following: str | None,
                  depictions: Sequence[Depiction] = ()) -> str:
    """The page of `group`'s instance (module docstring): `dataset` holds it (`datasets`
    is its store, for the node UPI), `scores` the stored scores, `index` the leaderboard's
    file name and `previous`/`following` the neighbouring pages'; `GracrError` if the
    dataset's instance is not the records'."""
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
             f"<p>{escape(where)}: {escape(what)}. {escape(_legend(base, record.level, depictions))}</p>",
             '<div class="explanation ground-truth"><h2>ground truth</h2>'
             + drawing_svg(base, f"{title}: the ground truth", depictions) + "</div>"]
    for r in group.records:
        kept = r.extra.get("scores") if not r.scored else scores.get(r.key)
        array = None if kept is None else np.asarray(kept, dtype=np.float64)
        drawing, note = _scored(base, r, array) if r.status == "ok" else (
            base, f"no explanation ({r.status})")
        settings = json.dumps(dict(r.config), indent=1, sort_keys=True)
        parts.append(
            f'<div class="explanation" id="{slug(r.explainer)}-{escape(r.config_hash)}">'
            f"<h2>{escape(r.explainer)} <small>[{escape(r.config_hash)}]</small></h2>"
            + drawing_svg(drawing, f"{title}: {r.explainer}'s scores", depictions)
            + (f'<p class="note">{escape(note)}</p>' if note else "")
            + _numbers(r) + f"<h3>settings</h3><pre>{escape(settings)}</pre></div>")
    return page(title, "\n".join(parts))
