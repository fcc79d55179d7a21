"""How an explained instance is laid out and coloured, in one place: the PNG figures of
`gracr.bench.report.instance_figure` (`gracrc show`, `gracrc report`) and the SVG drawings
of the HTML report (`gracr.bench.report.html_graph`) both take their look from here.

- **Layout** (`node_positions`): a graph's stored positions where it has them (`Graph.pos`,
  e.g. the tissue's cells in µm, y pointing up), otherwise networkx's spring layout with a
  fixed seed (seed 0) of the drawn nodes and edges. Molecules are laid out by RDKit
  (`gracr.bench.report.html_molecule`).
- **Colours**: a node's first colour as matplotlib names it (`node_fill`; a task's own
  colour names matplotlib does not know take `tab10` by palette position); an explainer's
  scores on light grey (lowest) to black (highest) over the drawing's range (`score_shade`),
  apart from every node colour and from the UPI's orange (`UPI_HALO`).

matplotlib and networkx are imported where they are used.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

UPI_HALO = "#f5a623"
# The score ramp's ends, as shares of matplotlib's Greys colormap: 0.3 is a light grey
# still seen on white, 1.0 black.
SHADE_RANGE = (0.3, 1.0)
SHADES = 256


def node_fill(name: str | None, palette_index: int) -> str:
    """A node's fill as `#rrggbb`: its first colour, or white without one."""
    from matplotlib import colormaps
    from matplotlib.colors import is_color_like, to_hex

    if name is None:
        return "#ffffff"
    # The paper's colour names are matplotlib's; a task's own names may not be.
    return to_hex(name if is_color_like(name) else colormaps["tab10"](palette_index % 10))


def score_range(scores: Sequence[float]) -> tuple[float, float]:
    """The range a drawing's shades span: its scores' lowest and highest (a range of one
    value is widened by 1, so that it shades as the lowest)."""
    low, high = min(scores, default=0.0), max(scores, default=0.0)
    return low, high if high > low else low + 1.0


def score_share(value: float, span: tuple[float, float]) -> float:
    """Where `value` lies in `span`, in [0, 1]."""
    low, high = span
    return float(np.clip((value - low) / (high - low), 0.0, 1.0))


@functools.lru_cache(maxsize=1)
def _shades() -> tuple[str, ...]:
    """The score ramp as `SHADES` colours, `#rrggbb` (the PNG figure's colormap)."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    return tuple(to_hex(c) for c in colormaps["Greys"](np.linspace(*SHADE_RANGE, SHADES)))


def score_shade(value: float, span: tuple[float, float]) -> str:
    """The shade of a score, `#rrggbb`: light grey at the span's low end, black at its
    high end."""
    return _shades()[min(SHADES - 1, int(score_share(value, span) * SHADES))]


def is_dark(colour: str) -> bool:
    """Whether text on `colour` should be white."""
    from matplotlib.colors import to_rgba

    red, green, blue, _ = to_rgba(colour)
    return 0.299 * red + 0.587 * green + 0.114 * blue < 0.5


def node_positions(nodes: Sequence[int], ends: Sequence[tuple[int, int]],
                   pos: Any = None) -> dict[int, tuple[float, float]]:
    """Each drawn node's position: `pos[v]` (a graph's stored positions) when given, else
    the spring layout (seed 0) of `nodes` joined by `ends`."""
    if pos is not None:
        return {v: (float(pos[v][0]), float(pos[v][1])) for v in nodes}
    import networkx as nx

    layout_graph = nx.Graph()
    layout_graph.add_nodes_from(nodes)
    layout_graph.add_edges_from(ends)
    placed = nx.spring_layout(layout_graph, seed=0)
    return {v: (float(placed[v][0]), float(placed[v][1])) for v in nodes}
