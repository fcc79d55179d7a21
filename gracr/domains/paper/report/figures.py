"""The report's figure: precision against recall per task of variant main, ours beside the
paper's Tables 2 and 3.

matplotlib is imported where the figure is drawn, so that the rest of the report (and
`gracrc --help`) stays light.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from gracr.bench.report.aggregation import (MAIN_VARIANT, TASK_ORDER, Cell, explainer_rank,
                                            task_rank)
from gracr.domains.paper.published import paper_score
from gracr.explainers.names import PAPER_EXPLAINERS
from gracr.files import atomic_writer

_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "p", "h", "8", "d")
# tab20's dark shades, then its light ones: 13 explainers, 13 distinct colours.
_COLOUR_INDICES = (*range(0, 20, 2), *range(1, 20, 2))


def plot_precision_recall(cells: Sequence[Cell], path: str) -> None:
    """Precision against recall, one panel per task of variant main, one marker per explainer;
    the paper's points hollow, ours filled."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    ours = [c for c in cells if c.variant == MAIN_VARIANT and c.f1 is not None]
    tasks = sorted({c.task for c in ours}, key=task_rank) or list(TASK_ORDER)
    explainers = sorted({c.explainer for c in ours}
                        | {e for e in PAPER_EXPLAINERS
                           for t in tasks if (p := paper_score(t, e)) and not p.out_of_time},
                        key=explainer_rank)
    palette = colormaps["tab20"]
    style = {name: (_MARKERS[i % len(_MARKERS)],
                    palette(_COLOUR_INDICES[i % len(_COLOUR_INDICES)]))
             for i, name in enumerate(explainers)}
    columns = min(3, len(tasks))
    rows = math.ceil(len(tasks) / columns)
    figure = Figure(figsize=(4.0 * columns + 2.2, 3.8 * rows), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(rows, columns, squeeze=False)
    for index, task in enumerate(tasks):
        ax = axes[index // columns][index % columns]
        for explainer in explainers:
            marker, colour = style[explainer]
            paper = paper_score(task, explainer)
            if paper is not None and paper.precision is not None and paper.recall is not None:
                ax.scatter([paper.recall.mean], [paper.precision.mean], marker=marker, s=70,
                           facecolors="none", edgecolors=colour, linewidths=1.4)
            mine = [c for c in ours if c.task == task and c.explainer == explainer]
            for cell in mine:
                if cell.precision is not None and cell.recall is not None:
                    ax.scatter([cell.recall.mean], [cell.precision.mean], marker=marker, s=45,
                               color=colour)
        ax.set_title(task)
        ax.set_xlim(-0.03, 1.05)
        ax.set_ylim(-0.03, 1.05)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.grid(alpha=0.3)
    for index in range(len(tasks), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    handles = [Line2D([], [], linestyle="none", marker=style[e][0], color=style[e][1], label=e)
               for e in explainers]
    handles += [Line2D([], [], linestyle="none", marker="o", color="grey", label="ours (filled)"),
                Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                       markeredgecolor="grey", label="paper (hollow)")]
    figure.legend(handles=handles, loc="outside right upper", fontsize="small")
    with atomic_writer(path, binary=True) as handle:
        figure.savefig(handle, dpi=120, format=os.path.splitext(path)[1][1:] or None)
