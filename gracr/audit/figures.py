"""The audit's figures: degree distributions per class, as App. B's Figs. 6 (a node task:
each node's degree, and its neighbours' mean degree) and 7 (a graph task: each graph's mean
degree); and one perturbation example, as Figs. 8–9 (the flipped instance's receptive
field before and after the edge outside the motif is removed). matplotlib is imported where
a figure is drawn."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gracr.audit.data import AuditData
from gracr.audit.features import degrees, mean_degree, neighbour_mean_degree
from gracr.audit.perturb import Flip, removal_text
from gracr.bdd.upi import layers_receptive_field
from gracr.files import atomic_writer

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 110


def degree_panels(data: AuditData) -> list[tuple[str, np.ndarray]]:
    """(x-axis label, one value per instance) for each panel."""
    if data.kind == "node":
        return [("degree", np.concatenate([degrees(g) for g in data.graphs])),
                ("neighbours' mean degree",
                 np.concatenate([neighbour_mean_degree(g) for g in data.graphs]))]
    return [("mean degree", np.asarray([mean_degree(g) for g in data.graphs]))]


def draw_degree_figure(data: AuditData, path: str | Path) -> Path:
    """Histograms of each panel's values, one colour per class, into the PNG `path`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    panels = degree_panels(data)
    labels = data.instance_labels
    figure = Figure(figsize=(5.0 * len(panels), 3.6), dpi=DPI)
    FigureCanvasAgg(figure)
    for index, (name, values) in enumerate(panels):
        ax = figure.add_subplot(1, len(panels), index + 1)
        # Degrees are integers: one bin each, so that no two classes share a bin by rounding.
        bins = [float(b) for b in (np.arange(values.min(), values.max() + 2) - 0.5
                                   if np.all(values == np.round(values)) else
                                   np.histogram_bin_edges(values, bins=80))]
        for c in data.classes:
            ax.hist(values[labels == c], bins=bins, alpha=0.55, label=f"class {c}")
        ax.set_xlabel(name)
        ax.set_ylabel("instances")
        ax.legend(fontsize="small")
    figure.suptitle(f"{data.name}: {' and '.join(p[0] for p in panels)} per class")
    return _save(figure, path)


def _save(figure: Figure, path: str | Path) -> Path:
    figure.tight_layout()
    out = Path(path)
    with atomic_writer(out, binary=True) as handle:
        figure.savefig(handle, dpi=DPI, format="png")
    return out


def draw_flip_figure(data: AuditData, flip: Flip, depth: int, path: str | Path) -> Path:
    """Two panels of the flipped instance's receptive field (`depth` layers; a graph task's
    whole graph): before, and after removing `flip.removed`. Motif edges are thick, the
    removed edge (or the removed node's edges) red and dashed, the node explained a star; nodes coloured by class."""
    import networkx as nx
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    graph = data.graphs[flip.graph]
    field = layers_receptive_field(graph, flip.node, depth)
    drawn = nx.Graph()
    if flip.node is not None:
        drawn.add_node(flip.node)
    motif: set[tuple[int, int]] = set()
    other: set[tuple[int, int]] = set()
    for e in np.flatnonzero(field):
        pair = (min(int(graph.sources[e]), int(graph.targets[e])),
                max(int(graph.sources[e]), int(graph.targets[e])))
        drawn.add_edge(*pair)
        (motif if data.motif_edges[flip.graph][e] else other).add(pair)
    layout = nx.spring_layout(drawn, seed=0)
    labels = data.labels[flip.graph]
    figure = Figure(figsize=(11.0, 5.0), dpi=DPI)
    FigureCanvasAgg(figure)
    for index, (title, answer) in enumerate((("original", flip.before),
                                             (f"{removal_text(flip.removed)} removed",
                                              flip.after))):
        ax = figure.add_subplot(1, 2, index + 1)
        # The removed edge, or every edge of the removed node.
        gone = {p for p in other | motif if index and set(flip.removed) <= set(p)}
        nx.draw_networkx_edges(drawn, layout, edgelist=sorted(other - gone), ax=ax,
                               edge_color="0.6")
        nx.draw_networkx_edges(drawn, layout, edgelist=sorted(motif - gone), ax=ax, width=3.0,
                               edge_color="black")
        if gone:
            nx.draw_networkx_edges(drawn, layout, edgelist=sorted(gone), ax=ax, width=2.0,
                                   edge_color="red", style="dashed")
        nodes = sorted(drawn.nodes)
        classes = [int(labels[v]) if data.kind == "node" else 0 for v in nodes]
        nx.draw_networkx_nodes(drawn, layout, nodelist=nodes, node_color=classes,
                               cmap="tab10", vmin=0, vmax=9, node_size=120, ax=ax)
        if flip.node is not None:
            nx.draw_networkx_nodes(drawn, layout, nodelist=[flip.node], node_shape="*",
                                   node_size=500, node_color="gold", edgecolors="black",
                                   ax=ax)
        what = "graph" if flip.node is None else f"node {flip.node}"
        ax.set_title(f"{title}: {what} predicted class {answer}")
        ax.set_axis_off()
    figure.suptitle(f"{data.name}: graph {flip.graph}, {depth}-layer receptive field; motif "
                    f"edges thick")
    return _save(figure, path)
