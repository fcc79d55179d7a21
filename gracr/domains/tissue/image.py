"""The graphs the tissue note's non-graph baseline reads: the CNN on a rendered image of
the same field (`gracr.domains.tissue.trained.TissueCNN`, which renders it).

The CNN reads the cells the way every explainer hands a model a graph (markers `x`,
`edge_index`, `edge_attr`), so that it runs through the same runner, explainers and
report: its graphs (`image_graph_json`, `image_graphs`) are the ratio-1 radius graphs
with one self loop per cell (the rule reads `near` edges between two cells, so a loop
changes no label and no ground truth) and three edge attributes, the edge's length and
its source cell's (x, y) in µm. The CNN takes each cell's position from its edges (every
cell has its loop) and reads no edge otherwise: deleting a cell (an induced subgraph)
removes it from the image, and explainers that perturb markers perturb the image.

"""

from __future__ import annotations

from typing import Any, Sequence

import torch
from torch_geometric.data import Data

from gracr.domains.tissue.table import CellTable
from gracr.domains.tissue.trained import tissue_graphs


def image_graph_json(graph: dict[str, Any]) -> dict[str, Any]:
    """A ratio-1 graph JSON (`gracr.domains.tissue.dataset.graph_json`) as the CNN reads
    it: one self loop per cell (relation `near`, length 0) added, and each edge's
    attributes its length and its source cell's (x, y) in µm."""
    count = int(graph["num_nodes"])
    edges = [*graph["edges"], *([i, i] for i in range(count))]
    lengths = [row[0] for row in graph["edge_attr"]] + [0.0] * count
    positions = graph["pos"]
    return {**graph, "edges": edges,
            "relations": [*graph["relations"], *(["near"] * count)],
            "edge_attr": [[float(length), *map(float, positions[source])]
                          for length, (source, _) in zip(lengths, edges)]}


def image_graphs(tables: Sequence[CellTable], theta: float) -> list[Data]:
    """`tissue_graphs` at ratio 1 with the loops and attributes of `image_graph_json`."""
    graphs = []
    for table, graph in zip(tables, tissue_graphs(tables, theta, 1.0)):
        count = table.num_cells
        loops = torch.arange(count).repeat(2, 1)
        edge_index = torch.cat([graph.edge_index, loops], dim=1)
        lengths = torch.cat([graph.edge_attr.reshape(-1), torch.zeros(count)])
        positions = torch.as_tensor(table.positions, dtype=torch.float32).reshape(count, 2)
        clone = graph.clone()
        clone.edge_index = edge_index
        clone.edge_attr = torch.cat([lengths[:, None], positions[edge_index[0]]], dim=1)
        graphs.append(clone)
    return graphs
