"""The audit's figures: degree distributions per class, as App. B's Figs. 6 (a node task:
each node's degree, and its neighbours' mean degree) and 7 (a graph task: each graph's mean
degree). matplotlib is imported where a figure is drawn."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gracr.audit.data import AuditData
from gracr.audit.features import degrees, mean_degree, neighbour_mean_degree
from gracr.files import atomic_writer

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
    figure.tight_layout()
    out = Path(path)
    with atomic_writer(out, binary=True) as handle:
        figure.savefig(handle, dpi=DPI, format="png")
    return out
