"""The HTML report's drawings of one instance, as inline SVG text.

`Drawing` is what one drawing shows: the drawn nodes (a graph task's whole graph, a node
task's receptive field of the target, as `gracr.bench.report.instance_figure` draws it)
and edges, the UPI (edges at edge level, nodes at node level), and optionally an
explainer's scores (one per drawn edge, or per drawn node) with the best-F1 threshold.

- `graph_svg` draws any graph with the layout and colours of
  `gracr.bench.report.drawing` (stored positions, e.g. the tissue's cells, else a spring
  layout): each directed edge its own arc, curving to its right (the two directions of an
  undirected edge are two arcs); UPI edges on an orange halo, UPI nodes ringed orange, the
  target ringed thick; edge scores shade and widen the edges (solid at or above the
  threshold, dashed below), node scores fill the nodes.
- A domain may draw its own graphs (`Depiction`): molecules as chemists draw them
  (`gracr.domains.chem.depiction`).

Every element carries a `<title>` (a tooltip: the node or edge and its score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Protocol

from gracr.bench.report.drawing import (UPI_HALO, is_dark, node_fill, node_positions,
                                        score_range, score_shade, score_share)
from gracr.data.graph import Graph

SIZE = 420           # a drawing's side, in CSS pixels
LABELLED_NODES = 60  # beyond this many nodes, ids would only hide the drawing


@dataclass(frozen=True)
class Drawing:
    """What one drawing of an instance shows (see the module docstring)."""

    graph: Graph
    target: int | None
    nodes: tuple[int, ...]
    edges: tuple[int, ...]                # positions in the graph's edge list
    fills: tuple[str, ...]                # each drawn node's fill, `#rrggbb`
    colours: tuple[str | None, ...]       # each drawn node's first colour, for tooltips
    upi_edges: tuple[bool, ...]           # per drawn edge
    upi_nodes: tuple[bool, ...] = ()      # per drawn node (node level)
    edge_scores: tuple[float, ...] | None = None
    node_scores: tuple[float, ...] | None = None
    threshold: float | None = None
    # The nodes' points in the SVG (`placed`), computed once for an instance's drawings.
    points: Mapping[int, tuple[float, float]] | None = None


def score_text(value: float) -> str:
    """A score as a tooltip writes it."""
    return f"{value:.4g}"


def _arc(start: tuple[float, float], end: tuple[float, float]) -> str:
    """A quadratic arc from `start` to `end` bending to its right by 0.12 of its length
    (matplotlib's `arc3,rad=0.12`, as the PNG figure draws)."""
    (x0, y0), (x1, y1) = start, end
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    dx, dy = x1 - x0, y1 - y0
    cx, cy = mx + 0.12 * dy, my - 0.12 * dx
    return f"M{x0:.1f},{y0:.1f} Q{cx:.1f},{cy:.1f} {x1:.1f},{y1:.1f}"


def placed(drawing: Drawing) -> Mapping[int, tuple[float, float]]:
    """Each drawn node's point in the SVG's pixels (y down; stored positions have y up):
    `drawing.points` if given, else laid out now."""
    if drawing.points is not None:
        return drawing.points
    ends = [(int(drawing.graph.sources[e]), int(drawing.graph.targets[e]))
            for e in drawing.edges]
    stored = drawing.graph.pos
    raw = node_positions(drawing.nodes, ends, stored)
    if not raw:
        return {}
    xs = [x for x, _ in raw.values()]
    ys = [y for _, y in raw.values()]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    margin = 24.0
    scale = (SIZE - 2 * margin) / span
    return {v: (margin + (x - min(xs)) * scale, SIZE - margin - (y - min(ys)) * scale)
            for v, (x, y) in raw.items()}


def graph_svg(drawing: Drawing, label: str) -> str:
    """The SVG of `drawing`; `label` names it for screen readers and tests."""
    points = placed(drawing)
    graph = drawing.graph
    many = len(drawing.nodes) > LABELLED_NODES
    radius = 4.0 if many else 8.0
    parts = [f'<svg class="graph" role="img" aria-label="{escape(label)}" '
             f'viewBox="0 0 {SIZE} {SIZE}" width="{SIZE}" height="{SIZE}" '
             'xmlns="http://www.w3.org/2000/svg">']
    edge_span = score_range(drawing.edge_scores) if drawing.edge_scores is not None else None
    halo, lines = [], []
    for position, edge in enumerate(drawing.edges):
        source, target = int(graph.sources[edge]), int(graph.targets[edge])
        path = _arc(points[source], points[target])
        name = f"edge {edge}: {source} → {target}"
        if drawing.upi_edges and drawing.upi_edges[position]:
            halo.append(f'<path d="{path}" class="upi-halo" stroke="{UPI_HALO}" '
                        'stroke-opacity="0.5" stroke-width="7" fill="none"/>')
        if drawing.edge_scores is not None and edge_span is not None:
            score = drawing.edge_scores[position]
            share = score_share(score, edge_span)
            dashed = drawing.threshold is not None and score < drawing.threshold
            lines.append(
                f'<path d="{path}" stroke="{score_shade(score, edge_span)}" '
                f'stroke-width="{0.6 + 3.4 * share:.2f}" fill="none"'
                + (' stroke-dasharray="4 3"' if dashed else "")
                + f'><title>{escape(name)}, score {score_text(score)}</title></path>')
        else:
            lines.append(f'<path d="{path}" stroke="#696969" stroke-width="1" fill="none">'
                         f'<title>{escape(name)}</title></path>')
    parts += halo + lines
    node_span = score_range(drawing.node_scores) if drawing.node_scores is not None else None
    for position, node in enumerate(drawing.nodes):
        x, y = points[node]
        fill = drawing.fills[position]
        tip = f"node {node}" + (f" ({drawing.colours[position]})"
                                if drawing.colours[position] else "")
        if drawing.node_scores is not None and node_span is not None:
            score = drawing.node_scores[position]
            fill = score_shade(score, node_span)
            tip += f", score {score_text(score)}"
        in_upi = bool(drawing.upi_nodes) and drawing.upi_nodes[position]
        if in_upi:
            tip += ", in the UPI"
        r = radius * (1.6 if node == drawing.target else 1.0)
        if node == drawing.target or in_upi:   # a ring round the node, its fill left seen
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r + 2.5:.1f}" fill="none" '
                         f'stroke="{UPI_HALO}" stroke-width="2.5"'
                         + (' class="upi-node"' if in_upi else "") + "/>")
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}" '
                     'stroke="#000000" stroke-width="0.8">'
                     f'<title>{escape(tip)}</title></circle>')
        if not many:
            parts.append(f'<text x="{x:.1f}" y="{y + 3:.1f}" font-size="8" '
                         f'text-anchor="middle" fill="{"#ffffff" if is_dark(fill) else "#000000"}"'
                         f' pointer-events="none">{node}</text>')
    parts.append("</svg>")
    return "".join(parts)


def drawn_fills(graph: Graph, nodes: Sequence[int], palette: Sequence[str]
                ) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    """Each node's first colour of `palette` and its fill."""
    colours = tuple(next((c for c in palette if c in graph.node_colors(v)), None)
                    for v in nodes)
    fills = tuple(node_fill(c, list(palette).index(c) if c is not None else 0)
                  for c in colours)
    return colours, fills


class Depiction(Protocol):
    """A domain's own drawing of the graphs it knows (molecules as chemists draw them:
    `gracr.domains.chem.depiction`), used instead of `graph_svg` where it `draws` the graph;
    the report is handed the depictions (`gracr.bench.report.html.HtmlSource`), so this
    layer never imports a domain."""

    def draws(self, graph: Graph) -> bool:
        """Whether this depiction draws `graph`."""

    def svg(self, drawing: Drawing, label: str) -> str:
        """The SVG of `drawing` (its scores and UPI shown), `label` naming it."""

    def legend(self, level: str) -> str:
        """How to read its drawings of scores at `level`."""


def drawing_svg(drawing: Drawing, label: str, depictions: Sequence[Depiction] = ()) -> str:
    """The SVG of `drawing`: by the first of `depictions` that draws its graph, else
    `graph_svg`."""
    for depiction in depictions:
        if depiction.draws(drawing.graph):
            return depiction.svg(drawing, label)
    return graph_svg(drawing, label)
