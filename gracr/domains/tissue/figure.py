"""The tissue study's figure of one sample: the cells as the generator made them, the exact
ground truth, and any number of explainers' scores, each a map of the field.

Panels, in a grid of at most `COLUMNS` columns, each the sample's square field in µm:

1. the cells by type and role: tumour cells red (engaged dark, unengaged light), T cells
   blue (drivers filled with a dark edge, decoys hollow), other cells grey; the radius
   graph's edges as thin light lines underneath; a legend below;
2. the ground truth: each cell's signed Shapley value on a diverging colormap centred at 0
   with symmetric limits, the cells of the counterfactual set (when given) ringed;
3. one panel per attribution, titled with its name: a sequential colormap when every score
   is >= 0, the ground truth's diverging one (centred at 0) when some score is negative.

The layout is fixed (`figure_inches`): every panel takes the same cell of the grid, and
more panels add rows of four (about twelve panels stay readable on a page).

Callers compute the truth (`gracr.bdd.relevance.relevance`) and the attributions; this
module only draws. matplotlib is imported where the figure is drawn, as in
`gracr.bench.report`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gracr.errors import GracrError
from gracr.domains.tissue.table import OTHER, TCELL, TUMOUR, CellTable, FloatArray

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# ---------------------------------------------------------------- the look, in one place

COLUMNS = 4                         # panels per row, at most
DPI = 120
# The layout is fixed, in inches: each panel owns a PANEL_INCHES cell of the grid, in which
# the field is a FIELD_INCHES square at (left, top) margin FIELD_OFFSET (room for the
# ticks and the title above it); a colourbar sits right of the field, and the first
# panel's legend below it, in the room the bottom margin leaves.
PANEL_INCHES = (4.4, 4.6)           # (width, height) of one grid cell
FIELD_INCHES = 3.0
FIELD_OFFSET = (0.65, 0.55)         # (left, top)
COLOURBAR_INCHES = (0.1, 0.13)      # (gap after the field, width)
LEGEND_DROP = 0.45                  # from the field's bottom edge to the legend's top
TITLE_INCHES = 0.45                 # extra height at the top when the figure has a title
FIELD_MARGIN = 0.025                # share of the side shown beyond each edge of the field
FIELD_LABEL, COLOURBAR_LABEL = "field", "colourbar"     # the axes' labels, for readers

# A marker's diameter is this share of the mean spacing between cells (the field's side
# over sqrt(cells)), so that 80 or 300 cells fill the field alike; its area in points²
# is then clipped to this range.
CELL_FILL = 0.45
CELL_AREA_RANGE = (6.0, 90.0)

ENGAGED_COLOUR = "#b2182b"          # tumour cell with a T cell within the label radius
UNENGAGED_COLOUR = "#f4a6a6"        # tumour cell without one
TCELL_COLOUR = "#2166ac"            # drivers filled, decoys hollow, both this colour
DRIVER_EDGE = "#08203f"
OTHER_COLOUR = "#c8c8c8"
EDGE_COLOUR = "#d9d9d9"             # the radius graph's edges
EDGE_WIDTH = 0.5
MARKER_EDGE = "#8c8c8c"             # the rim of every cell on a score panel
MARKER_EDGE_WIDTH = 0.3
ROLE_EDGE_WIDTH = 1.1               # the dark rim of drivers, the ring of decoys
COUNTERFACTUAL_COLOUR = "#1a1a1a"
COUNTERFACTUAL_RING = 2.0           # ring area as a multiple of the cell's
COUNTERFACTUAL_WIDTH = 0.8

DIVERGING_CMAP = "RdBu_r"           # negative blue, 0 white, positive red
SEQUENTIAL_CMAP = "Reds"            # 0 white to red: the diverging map's positive half


def grid_shape(panels: int) -> tuple[int, int]:
    """`(rows, columns)` of the grid holding `panels` panels (at most `COLUMNS` columns)."""
    columns = max(1, min(COLUMNS, panels))
    return math.ceil(panels / columns), columns


def figure_inches(panels: int, titled: bool) -> tuple[float, float]:
    """The figure's (width, height) in inches; times `DPI`, its size in pixels."""
    rows, columns = grid_shape(panels)
    return (PANEL_INCHES[0] * columns,
            PANEL_INCHES[1] * rows + (TITLE_INCHES if titled else 0.0))


# ---------------------------------------------------------------- checking the inputs


def _per_cell(values: npt.ArrayLike, count: int, what: str,
              dtype: type[np.generic]) -> npt.NDArray[Any]:
    array = np.asarray(values)
    if array.ndim != 1 or array.shape[0] != count:
        raise GracrError(f"{what} has shape {array.shape}, expected one value per cell "
                         f"({count},)")
    array = array.astype(dtype)
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise GracrError(f"{what} has a value that is not finite")
    return array


def _edges(edges: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    array = np.asarray(edges).reshape(-1, 2) if np.size(edges) == 0 else np.asarray(edges)
    if array.ndim != 2 or array.shape[1] != 2:
        raise GracrError(f"the edges have shape {array.shape}, expected [E, 2]")
    array = array.astype(np.int64)
    if array.size and (array.min() < 0 or array.max() >= count):
        raise GracrError(f"an edge joins a cell outside 0..{count - 1}")
    return array


# ---------------------------------------------------------------- the panels


def _cell_area(table: CellTable) -> float:
    spacing = FIELD_INCHES * 72.0 / math.sqrt(max(table.num_cells, 1))
    low, high = CELL_AREA_RANGE
    return float(np.clip((CELL_FILL * spacing) ** 2, low, high))


def _panel_axes(figure: Figure, index: int, columns: int, top_inches: float) -> Axes:
    """The field's axes of panel `index`, placed by the fixed layout."""
    width, height = figure.get_size_inches()
    row, column = divmod(index, columns)
    left = column * PANEL_INCHES[0] + FIELD_OFFSET[0]
    top = top_inches + row * PANEL_INCHES[1] + FIELD_OFFSET[1]
    return figure.add_axes((left / width, 1.0 - (top + FIELD_INCHES) / height,
                            FIELD_INCHES / width, FIELD_INCHES / height), label=FIELD_LABEL)


def _field(ax: Axes, table: CellTable, title: str) -> None:
    margin = FIELD_MARGIN * table.side_um
    ax.set_xlim(-margin, table.side_um + margin)
    ax.set_ylim(-margin, table.side_um + margin)
    ax.set_aspect("equal")
    ax.set_xlabel("x (µm)", fontsize="small", labelpad=2)
    ax.set_ylabel("y (µm)", fontsize="small", labelpad=2)
    ax.tick_params(labelsize="x-small")
    ax.set_title(title, fontsize="medium")


def _types_panel(ax: Axes, table: CellTable, edges: npt.NDArray[np.int64],
                 area: float) -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    _field(ax, table, "cell types and roles")
    # Each undirected edge once (the graph lists both directions).
    once = edges[edges[:, 0] < edges[:, 1]]
    ax.add_collection(LineCollection(list(table.positions[once]), colors=EDGE_COLOUR,
                                     linewidths=EDGE_WIDTH, zorder=1))
    tumour, tcell = table.mask(TUMOUR), table.mask(TCELL)
    # (cells, style, legend label), drawn bottom to top.
    layers: list[tuple[npt.NDArray[np.bool_], dict[str, Any], str]] = [
        (table.mask(OTHER), {"c": OTHER_COLOUR, "edgecolors": "none"}, "other"),
        (tumour & ~table.engaged, {"c": UNENGAGED_COLOUR, "edgecolors": "none"},
         "tumour, unengaged"),
        (tumour & table.engaged, {"c": ENGAGED_COLOUR, "edgecolors": "none"},
         "tumour, engaged"),
        (tcell & ~table.driver, {"facecolors": "white", "edgecolors": TCELL_COLOUR,
                                 "linewidths": ROLE_EDGE_WIDTH}, "T cell, decoy"),
        (tcell & table.driver, {"c": TCELL_COLOUR, "edgecolors": DRIVER_EDGE,
                                "linewidths": ROLE_EDGE_WIDTH}, "T cell, driver"),
    ]
    handles: dict[str, Line2D] = {}
    for cells, style, label in layers:
        ax.scatter(table.x[cells], table.y[cells], s=area, zorder=2, **style)
        handles[label] = Line2D([], [], linestyle="none", marker="o", markersize=6,
                                markerfacecolor=style.get("c", style.get("facecolors")),
                                markeredgecolor=style["edgecolors"],
                                markeredgewidth=style.get("linewidths", 0.0),
                                label=f"{label} ({int(cells.sum())})")
    handles["edge"] = Line2D([], [], color=EDGE_COLOUR, linewidth=1.5,
                             label=f"radius-graph edge ({len(once)})")
    # Two columns, filled down: tumour and drivers, then decoys, other cells and edges.
    order = ("tumour, engaged", "tumour, unengaged", "T cell, driver", "T cell, decoy",
             "other", "edge")
    ax.legend(handles=[handles[key] for key in order], loc="upper center",
              bbox_to_anchor=(0.5, -LEGEND_DROP / FIELD_INCHES), ncols=2,
              fontsize="x-small", frameon=False, handletextpad=0.3, columnspacing=1.0,
              borderaxespad=0.0)


def _scores_panel(figure: Figure, ax: Axes, table: CellTable, scores: FloatArray,
                  title: str, area: float, signed: bool) -> None:
    from matplotlib.colors import Normalize

    _field(ax, table, title)
    if signed:
        reach = float(np.max(np.abs(scores), initial=0.0)) or 1.0
        norm, cmap = Normalize(-reach, reach), DIVERGING_CMAP
    else:
        top = float(np.max(scores, initial=0.0)) or 1.0
        norm, cmap = Normalize(0.0, top), SEQUENTIAL_CMAP
    # The largest magnitudes last, on top of their neighbours.
    order = np.argsort(np.abs(scores), kind="stable")
    points = ax.scatter(table.x[order], table.y[order], c=scores[order], cmap=cmap, norm=norm,
                        s=area, edgecolors=MARKER_EDGE, linewidths=MARKER_EDGE_WIDTH, zorder=2)
    # The colourbar right of the field, as tall as it, in the fixed layout.
    width, height = figure.get_size_inches()
    box = ax.get_position()
    gap, bar = COLOURBAR_INCHES
    bar_axes = figure.add_axes((box.x1 + gap / width, box.y0, bar / width, box.height),
                               label=COLOURBAR_LABEL)
    colourbar = figure.colorbar(points, cax=bar_axes)
    colourbar.ax.tick_params(labelsize="x-small")


def _ring(ax: Axes, table: CellTable, ringed: npt.NDArray[np.bool_], area: float) -> None:
    ax.scatter(table.x[ringed], table.y[ringed], s=area * COUNTERFACTUAL_RING,
               facecolors="none", edgecolors=COUNTERFACTUAL_COLOUR,
               linewidths=COUNTERFACTUAL_WIDTH, zorder=3)


# ---------------------------------------------------------------- the figure


def tissue_figure(table: CellTable, edges: npt.ArrayLike,
                  truth_counterfactual: npt.ArrayLike | None, truth_shapley: npt.ArrayLike,
                  attributions: Mapping[str, npt.ArrayLike], title: str = "") -> Figure:
    """The figure of one sample (see the module docstring), not yet saved: `edges` the
    `[E, 2]` cell pairs of its radius graph, `truth_counterfactual` whether each cell is in
    the counterfactual set (None: not known, nothing ringed), `truth_shapley` each cell's
    exact Shapley value, `attributions` one score per cell for each named explainer.

    `figure.axes` holds one field per panel, in order and labelled `FIELD_LABEL`, and
    the colourbars, labelled `COLOURBAR_LABEL`.
    Raises `GracrError` when an array does not hold one value per cell (naming the
    attribution), a score is not finite, or an edge joins a cell the table lacks."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = table.num_cells
    pairs = _edges(edges, n)
    shapley = _per_cell(truth_shapley, n, "the ground truth's Shapley values", np.float64)
    ringed = (None if truth_counterfactual is None else
              _per_cell(truth_counterfactual, n, "the ground truth's counterfactual set",
                        np.bool_))
    scores = {name: _per_cell(values, n, f"the attribution '{name}'", np.float64)
              for name, values in attributions.items()}

    panels = 2 + len(scores)
    _, columns = grid_shape(panels)
    top = TITLE_INCHES if title else 0.0
    figure = Figure(figsize=figure_inches(panels, bool(title)), dpi=DPI)
    FigureCanvasAgg(figure)
    fields = [_panel_axes(figure, index, columns, top) for index in range(panels)]
    area = _cell_area(table)

    _types_panel(fields[0], table, pairs, area)
    truth_title = "ground truth: Shapley value"
    if ringed is not None:
        truth_title += f"\nringed: counterfactual set ({int(ringed.sum())} cells)"
    _scores_panel(figure, fields[1], table, shapley, truth_title, area, signed=True)
    if ringed is not None:
        _ring(fields[1], table, ringed, area)
    for ax, (name, values) in zip(fields[2:], scores.items()):
        _scores_panel(figure, ax, table, values, name, area, signed=bool(np.any(values < 0)))
    if title:
        figure.suptitle(title, y=1.0 - 0.5 * TITLE_INCHES / figure.get_size_inches()[1],
                        va="center")
    return figure


def draw_tissue_sample(table: CellTable, edges: npt.ArrayLike,
                       truth_counterfactual: npt.ArrayLike | None,
                       truth_shapley: npt.ArrayLike, attributions: Mapping[str, npt.ArrayLike],
                       path: str | Path, title: str = "") -> Path:
    """Draw `tissue_figure(...)` into the PNG `path` and return the path; its size in
    pixels is `figure_inches(2 + len(attributions), bool(title))` times `DPI`."""
    figure = tissue_figure(table, edges, truth_counterfactual, truth_shapley, attributions,
                           title)
    out = Path(path)
    try:
        figure.savefig(out, dpi=DPI, format="png")
    except OSError as error:
        raise GracrError(f"{out}: cannot write ({error.strerror})") from None
    return out
