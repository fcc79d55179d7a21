"""One positive instance drawn, with its UPI and an explainer's edge scores: `gracrc show`,
and the instance figures `gracrc report` writes from raw records.

`explained_view` runs the explainer on the instance now (records carry metrics, not scores)
through the per-instance loop's `explain`, with the explainer seed the runner gives that
instance, and returns an `InstanceView`: everything the figure shows, and nothing else.
`draw_instance` draws a view. What is drawn: a graph task's whole graph; a node task's
receptive field of the target (the edges whose removal can change its value) and the nodes
they join — the UPI lies inside it. The metric still scores the whole graph.

In the picture (the layout and colours of `gracr.bench.report.drawing`, which the HTML
report shares): each node in its first colour, the target
ringed; each directed edge its own arc (the two directions of an undirected edge are two
arcs); UPI edges on an orange halo; with an explainer, an edge's width and colour grow with
its score (light grey to black), and the edges selected at the best-F1 threshold are solid,
the others dashed.

`gracrc report` draws one figure per explainer found in raw records: the explainer's first
finished ('ok') edge-level record in the report's order (task, then variant, then seed, then
instance), re-run with that record's settings (an explainer that must be trained is trained
as the runner trained it). Its dataset must be stored already (the report never
builds one); an instance that does not match its record, or a re-run that fails, is said in
one line instead of a figure.

matplotlib and networkx are imported where a figure is drawn.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from gracr.bdd.upi import receptive_field
from gracr.bench.budget import DEFAULT_BUDGET, explain
from gracr.bench.datasets import Dataset, dataset_folder, load_or_build
from gracr.bench.options import default_datasets
from gracr.bench.tasks import TASKS, task_named
from gracr.bench.instances import (ExplainedInstance, compile_variant, positive_instances,
                                   subject_for, variant_named, variant_program)
from gracr.explainers.metric import Plausibility
from gracr.bench.record import Record
from gracr.bench.report.aggregation import task_rank, variant_rank
from gracr.bench.report.drawing import (SHADE_RANGE, SHADES, UPI_HALO, is_dark, node_fill,
                                        node_positions, score_range)
from gracr.bench.report.formatting import PAPER
from gracr.bench.tuning import HELD_OUT_SEED, ready_explainer
from gracr.errors import GracrError
from gracr.files import atomic_writer

def _scores_text(point: Plausibility) -> str:
    return (f"precision {PAPER.number(point.precision)}, recall {PAPER.number(point.recall)}, "
            f"F1 {PAPER.number(point.f1)}")


@dataclass(frozen=True)
class InstanceView:
    """What the figure of one positive instance shows.

    `edges` are positions in the graph's edge list, `ends` their (source, target) and
    `upi` whether each is in the UPI; `scores` (one per drawn edge) and `point` (the
    explanation's best-F1 point over the whole graph) come with an `explainer`.
    """

    task: str
    variant: str
    seed: int
    instance: int
    graph: int
    target: int | None
    nodes: tuple[int, ...]
    palette: tuple[str, ...]
    colours: tuple[str | None, ...]       # each drawn node's first colour (None: no colour)
    edges: tuple[int, ...]
    ends: tuple[tuple[int, int], ...]
    upi: tuple[bool, ...]
    total_edges: int
    explainer: str | None = None
    settings: Mapping[str, Any] | None = None
    scores: tuple[float, ...] | None = None
    point: Plausibility | None = None

    def summary(self) -> str:
        """One line: the instance, what is drawn, and the explanation's scores."""
        where = f"graph {self.graph}" + ("" if self.target is None else f", target {self.target}")
        drawn = (f"{self.total_edges} edges" if self.target is None else
                 f"{len(self.edges)} of {self.total_edges} edges (the target's receptive field)")
        line = (f"{self.task} ({self.variant}) seed {self.seed} instance {self.instance} "
                f"({where}): {drawn}, {sum(self.upi)} in the UPI")
        if self.point is not None:
            line += (f"; {self.explainer} {json.dumps(dict(self.settings or {}), sort_keys=True)}"
                     f": {_scores_text(self.point)}")
        return line


def _positive(dataset: Dataset, index: int) -> ExplainedInstance:
    count = 0
    for instance in positive_instances(dataset):
        if instance.index == index:
            return instance
        count += 1
    raise GracrError(f"{dataset.task} seed {dataset.seed} has {count} positive instances; "
                     f"the instance must be in 0..{count - 1}, got {index}")


def instance_view(dataset: Dataset, index: int, variant: str = "main",
                  explainer: str | None = None, settings: Mapping[str, Any] | None = None,
                  scores: npt.ArrayLike | None = None,
                  point: Plausibility | None = None) -> InstanceView:
    """The view of positive instance `index` of `dataset` (with `scores`, one per edge of the
    whole graph, and their `point`, when an explainer's are shown)."""
    instance = _positive(dataset, index)
    variant_program(dataset.task, variant_named(variant))   # the variant must apply
    # The dataset's formula (its UPI's), whose field bounds the UPI, as the runner's Subject.
    program = task_named(dataset.task).program()
    graph = dataset.instances[instance.graph].graph
    drawn = np.flatnonzero(receptive_field(program, graph, instance.target))
    ends = graph.edge_index[:, drawn].T
    if instance.target is None:
        nodes = list(range(graph.num_nodes))
    else:
        nodes = sorted({instance.target, *(int(v) for v in ends.reshape(-1))})
    palette = program.schema.palette
    colours = tuple(next((c for c in palette if c in graph.node_colors(v)), None) for v in nodes)
    edge_scores = None
    if scores is not None:
        edge_scores = tuple(float(s) for s in np.asarray(scores, dtype=np.float64)[drawn])
    return InstanceView(dataset.task, variant, dataset.seed, index, instance.graph,
                        instance.target, tuple(nodes), palette, colours,
                        tuple(int(e) for e in drawn),
                        tuple((int(s), int(t)) for s, t in ends),
                        tuple(bool(instance.upi[e]) for e in drawn), graph.num_edges,
                        explainer, None if explainer is None else dict(settings or {}),
                        edge_scores, point)


def explained_view(dataset: Dataset, index: int, variant: str = "main",
                   explainer: str | None = None, settings: Mapping[str, Any] | None = None,
                   budget: float | None = DEFAULT_BUDGET,
                   datasets: str | None = None) -> InstanceView:
    """`instance_view` with `explainer` run on the instance now (with `settings`, under
    `budget` CPU seconds, with the runner's explainer seed for it; an explainer that must be
    trained is trained first on the held-out seed's dataset in the store `datasets`, as the
    runner trains it); without an explainer, the instance and its UPI alone."""
    if explainer is None:
        return instance_view(dataset, index, variant)
    from gracr.explainers import explainer_named, explainer_seed, settings_for

    merged = settings_for(explainer_named(explainer), settings)
    instance = _positive(dataset, index)
    model = compile_variant(dataset.task, variant_named(variant), dataset)
    subject = subject_for(dataset, task_named(dataset.task).program(), model, instance, {})
    # Trained, if it must be, as the runner trains it for this dataset's job.
    ready = ready_explainer(explainer, dataset.task, model, merged, dataset.seed,
                            int(dataset.meta.get("size", len(dataset.instances))), datasets)
    outcome = explain(ready, subject, instance.upi, merged,
                      explainer_seed(dataset.seed, index), budget)
    if outcome.status == "oot":
        raise GracrError(f"{explainer} ran out of its budget ({budget:g} CPU s) on "
                         f"{dataset.task} seed {dataset.seed} instance {index}")
    if outcome.scores is None or outcome.f1 is None:
        raise GracrError(f"{explainer} failed on {dataset.task} seed {dataset.seed} instance "
                         f"{index}: {outcome.error}")
    assert outcome.precision is not None and outcome.recall is not None
    assert outcome.threshold is not None
    point = Plausibility(outcome.precision, outcome.recall, outcome.f1, outcome.threshold)
    return instance_view(dataset, index, variant, explainer, merged, outcome.scores, point)


# ---------------------------------------------------------------- the picture


def draw_instance(view: InstanceView, path: str) -> None:
    """Draw `view` into the image file `path` (its format from the extension)."""
    import networkx as nx
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import ListedColormap, Normalize
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    layout_graph = nx.Graph()
    layout_graph.add_nodes_from(view.nodes)
    layout_graph.add_edges_from(view.ends)
    positions = node_positions(view.nodes, view.ends)
    figure = Figure(figsize=(8.0, 7.0), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    ax.set_axis_off()
    labelled = len(view.nodes) <= 60   # beyond that, ids would only hide the drawing
    base = 150 if labelled else 70
    sizes = [2.5 * base if v == view.target else base for v in view.nodes]
    # Arrows end at the node rims; the layout graph is undirected, so ask for heads.
    arcs = {"arrows": True, "arrowstyle": "-|>", "arrowsize": 7, "nodelist": list(view.nodes),
            "node_size": sizes, "connectionstyle": "arc3,rad=0.12", "ax": ax}
    upi_ends = [ends for ends, in_upi in zip(view.ends, view.upi) if in_upi]
    nx.draw_networkx_edges(layout_graph, positions, edgelist=upi_ends, width=7.0,
                           edge_color=UPI_HALO, alpha=0.5, **{**arcs, "arrowstyle": "-"})
    legend = [Line2D([], [], color=UPI_HALO, alpha=0.5, linewidth=7, label="UPI edge")]
    if view.scores is None:
        nx.draw_networkx_edges(layout_graph, positions, edgelist=list(view.ends), width=1.0,
                               edge_color="dimgrey", **arcs)
    else:
        assert view.point is not None
        norm = Normalize(*score_range(view.scores))
        # Light grey (lowest score) to black: apart from every node colour and the halo.
        cmap = ListedColormap(colormaps["Greys"](np.linspace(*SHADE_RANGE, SHADES)))
        for selected, style in ((True, "solid"), (False, "dashed")):
            chosen = [i for i, s in enumerate(view.scores)
                      if (s >= view.point.threshold) == selected]
            nx.draw_networkx_edges(
                layout_graph, positions, edgelist=[view.ends[i] for i in chosen],
                width=[0.6 + 3.4 * float(norm(view.scores[i])) for i in chosen],
                edge_color=[cmap(norm(view.scores[i])) for i in chosen], style=style, **arcs)
        figure.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6,
                        label=f"{view.explainer} edge score")
        legend += [Line2D([], [], color="black", label="selected at the best-F1 threshold"),
                   Line2D([], [], color="black", linestyle="dashed", label="not selected")]
    shown = [c for c in view.palette if c in view.colours]
    fill = [node_fill(c, view.palette.index(c) if c is not None else 0)
            for c in view.colours]
    rims = [UPI_HALO if v == view.target else "black" for v in view.nodes]
    widths = [3.0 if v == view.target else 0.6 for v in view.nodes]
    nx.draw_networkx_nodes(layout_graph, positions, nodelist=list(view.nodes), node_color=fill,
                           node_size=sizes, edgecolors=rims, linewidths=widths, ax=ax)
    if labelled:
        for node, colour in zip(view.nodes, fill):
            ax.annotate(str(node), positions[node], ha="center", va="center", fontsize=5,
                        color="white" if is_dark(colour) else "black")
    legend += [Line2D([], [], linestyle="none", marker="o",
                      markerfacecolor=node_fill(c, view.palette.index(c)),
                      markeredgecolor="black", label=c) for c in shown]
    if view.target is not None:
        legend.append(Line2D([], [], linestyle="none", marker="o", markersize=10,
                             markerfacecolor="white", markeredgecolor=UPI_HALO,
                             markeredgewidth=3, label="target"))
    ax.legend(handles=legend, loc="lower left", fontsize="small", framealpha=0.8)
    title = (f"{view.task} ({view.variant}), seed {view.seed}, instance {view.instance}: graph "
             f"{view.graph}" + ("" if view.target is None else f", target {view.target}"))
    title += (f"\n{view.total_edges} edges" if view.target is None else
              f"\nthe target's receptive field: {len(view.edges)} of {view.total_edges} edges")
    title += f", {sum(view.upi)} in the UPI"
    if view.point is not None:
        title += (f"\n{view.explainer}: {_scores_text(view.point)} (threshold "
                  f"{view.point.threshold:.3g})")
    ax.set_title(title, fontsize="medium")
    with atomic_writer(path, binary=True) as handle:
        figure.savefig(handle, dpi=150, format=os.path.splitext(path)[1][1:] or None)


# ---------------------------------------------------------------- gracrc report


@dataclass(frozen=True)
class DatasetSource:
    """Where the report finds the datasets its records explained: the bench run's
    `--datasets`, `--graphs` and `--targets`, and a CPU budget for each re-run."""

    datasets: str | None = None
    graphs: int | None = None
    targets: int | None = None
    budget: float | None = DEFAULT_BUDGET


def figure_records(records: Iterable[Record]) -> dict[str, Record]:
    """Each explainer's record to draw: its first 'ok' one by (task, variant, seed, instance),
    of those scored at edge level (the figure draws edge scores)."""
    chosen: dict[str, Record] = {}
    for record in sorted((r for r in records if r.status == "ok" and r.level == "edge"),
                         key=lambda r: (task_rank(r.task), variant_rank(r.variant), r.seed,
                                        r.instance)):
        chosen.setdefault(record.explainer, record)
    return chosen


def figure_name(explainer: str) -> str:
    """`instance_<explainer>.png`, the name made safe for a file system."""
    return "instance_" + re.sub(r"[^A-Za-z0-9._-]", "_", explainer) + ".png"


def stored_dataset(task_name: str, seed: int, source: DatasetSource) -> Dataset:
    """The dataset of `task_name` and `seed` in `source`'s store, which must hold it already:
    `GracrError` saying which dataset is missing where (a report never builds one: at the
    paper's sizes that could take an hour)."""
    if task_name not in TASKS:
        raise GracrError(f"the task {task_name} is not one of gracr's: pass its task file "
                         "with --tasks")
    task = task_named(task_name)
    size = task.size_of(source.graphs, source.targets) or task.default_size
    store = source.datasets or default_datasets()
    stored = dataset_folder(store, task, seed, size) / "dataset.jsonl"
    if not stored.exists():
        raise GracrError(f"the dataset {task_name} seed {seed} ({size} {task.unit}) under "
                         f"{store} is not stored: pass the --datasets, --graphs and --targets "
                         "of the bench run")
    return load_or_build(task_name, seed, size, source.datasets, progress=False)


def _recorded_view(record: Record, source: DatasetSource) -> InstanceView:
    task = task_named(record.task) if record.task in TASKS else None
    dataset = stored_dataset(record.task, record.seed, source)
    assert task is not None
    size = task.size_of(source.graphs, source.targets) or task.default_size
    store = source.datasets or default_datasets()
    which = f"the dataset {record.task} seed {record.seed} ({size} {task.unit}) under {store}"
    instance = next((i for i in positive_instances(dataset) if i.index == record.instance), None)
    graph = None if instance is None else dataset.instances[instance.graph].graph
    if instance is None or graph is None or (instance.graph, instance.target, graph.num_edges,
                                             int(instance.upi.sum())) != (
            record.graph, record.target, record.edges, record.upi_edges):
        raise GracrError(f"{which} does not hold the instance of {record.place}: pass the "
                         "--datasets, --graphs and --targets of the bench run")
    from gracr.explainers import explainer_named

    if explainer_named(record.explainer).train is not None:
        held_out = dataset_folder(store, task, HELD_OUT_SEED, size) / "dataset.jsonl"
        if not held_out.exists():
            raise GracrError(f"{record.explainer} trains on the held-out seed {HELD_OUT_SEED}, "
                             f"whose dataset is not stored under {store}")
    return explained_view(dataset, record.instance, record.variant, record.explainer,
                          record.config, source.budget, source.datasets)


def write_instance_figures(records: Iterable[Record], out: str,
                           source: DatasetSource) -> tuple[list[str], list[str]]:
    """One figure per explainer of `records` into the folder `out` (see the module
    docstring): the names written, and one line for each explainer not drawn or whose
    re-run scores differ from its record."""
    written: list[str] = []
    notes: list[str] = []
    not_drawn: dict[str, list[str]] = {}     # why -> the explainers not drawn for that reason
    for explainer, record in figure_records(records).items():
        try:
            view = _recorded_view(record, source)
        except GracrError as error:
            not_drawn.setdefault(str(error), []).append(explainer)
            continue
        assert view.point is not None and record.f1 is not None
        if abs(view.point.f1 - record.f1) > 1e-9:
            notes.append(f"note: {explainer} re-run on {record.task} seed {record.seed} "
                         f"instance {record.instance} scored F1 {view.point.f1:.4f}, its record "
                         f"{record.f1:.4f}")
        name = figure_name(explainer)
        draw_instance(view, os.path.join(out, name))
        written.append(name)
    notes += [f"note: no instance figure for {', '.join(explainers)}: {why}"
              for why, explainers in not_drawn.items()]
    return written, notes
