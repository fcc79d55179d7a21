"""The tissue note's non-graph baseline: a CNN on a rendered image of the same field.

The image (`render`): one channel per marker (`CHANNELS`), `pixel_um` square pixels over
the field's `side_um` square; each cell adds its marker vector to the four pixels around
its position, weighted bilinearly (the weights sum to 1, so a field's image sums to its
cells' markers). The image is linear in the markers, so an explainer's gradient with
respect to a cell's markers is the model's gradient at that cell's pixels: the CNN is
explained per cell, by the same explainers and metrics as the graph models.

The CNN reads the cells the way every explainer hands a model a graph (markers `x`,
`edge_index`, `edge_attr`), so that it runs through the same runner, explainers and
report: its graphs (`image_graph_json`, `image_graphs`) are the ratio-1 radius graphs
with one self loop per cell (the rule reads `near` edges between two cells, so a loop
changes no label and no ground truth) and three edge attributes, the edge's length and
its source cell's (x, y) in µm. The CNN takes each cell's position from its edges (every
cell has its loop) and reads no edge otherwise: deleting a cell (an induced subgraph)
removes it from the image, and explainers that perturb markers perturb the image.

`TissueCNN`: `layers` blocks of two 3×3 convolutions (`hidden` channels, ReLU), 2×2 max
pooling between blocks, a global mean and a linear logit. Its node embeddings (for the
linear probe) are the last block's feature map read at each cell's position.
"""

from __future__ import annotations

import math
from typing import Any, Sequence, cast

import torch
from torch import Tensor
from torch_geometric.data import Data

from gracr.domains.tissue.table import CHANNELS, CellTable
from gracr.domains.tissue.trained import ModelSettings, TissueModel, tissue_graphs


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


def cell_positions(num_nodes: int, edge_index: Tensor, edge_attr: Tensor) -> Tensor:
    """`[N, 2]` µm: each cell's position as its edges carry it (`image_graph_json`)."""
    positions = edge_attr.new_zeros((num_nodes, 2))
    positions[edge_index[0]] = edge_attr[:, 1:3].detach()
    return positions


def render(x: Tensor, positions: Tensor, batch: Tensor, num_graphs: int, side_um: float,
           pixel_um: float) -> Tensor:
    """`[B, C, H, H]` images, H = ceil(side_um / pixel_um): each cell's `x` row (C
    channels) split bilinearly over the four pixels around its position (pixel centres
    at (k + 1/2) · pixel_um); a cell outside the field adds to the nearest edge pixels."""
    size = math.ceil(side_um / pixel_um)
    scaled = positions / pixel_um - 0.5
    low = torch.floor(scaled)
    fraction = scaled - low
    low = low.long()
    flat = x.new_zeros((num_graphs * size * size, x.shape[1]))
    for dx in (0, 1):
        for dy in (0, 1):
            column = (low[:, 0] + dx).clamp(0, size - 1)
            row = (low[:, 1] + dy).clamp(0, size - 1)
            weight = ((fraction[:, 0] if dx else 1 - fraction[:, 0])
                      * (fraction[:, 1] if dy else 1 - fraction[:, 1]))
            flat = flat.index_add(0, (batch * size + row) * size + column,
                                  x * weight[:, None].to(x.dtype))
    return flat.reshape(num_graphs, size, size, x.shape[1]).permute(0, 3, 1, 2)


class TissueCNN(TissueModel):
    """The CNN of the module docstring, built from `settings` (`architecture` "cnn":
    `hidden` channels, `layers` blocks, `side_um` and `pixel_um` the image)."""

    def __init__(self, settings: ModelSettings) -> None:
        super().__init__(settings, [])
        blocks: list[torch.nn.Module] = []
        channels = len(CHANNELS)
        for _ in range(settings.layers):
            blocks.append(torch.nn.Sequential(
                torch.nn.Conv2d(channels, settings.hidden, 3, padding=1), torch.nn.ReLU(),
                torch.nn.Conv2d(settings.hidden, settings.hidden, 3, padding=1),
                torch.nn.ReLU()))
            channels = settings.hidden
        self.blocks = torch.nn.ModuleList(blocks)

    def feature_map(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None,
                    batch: Tensor, num_graphs: int) -> tuple[Tensor, Tensor]:
        """The last block's `[B, hidden, h, h]` map and the cells' positions."""
        if edge_attr is None or edge_attr.shape[1] < 3:
            raise ValueError("the CNN reads each cell's position from its edges' attributes "
                             "(image_graph_json): the graph has none")
        positions = cell_positions(x.shape[0], edge_index, edge_attr)
        h = render(x, positions, batch, num_graphs, self.settings.side_um,
                   self.settings.pixel_um)
        for index, block in enumerate(self.blocks):
            if index:
                h = torch.nn.functional.max_pool2d(h, 2)
            h = block(h)
        return h, positions

    def node_embeddings(self, x: Tensor, edge_index: Tensor,
                        edge_attr: Tensor | None = None) -> Tensor:
        """`[N, hidden]`: the last block's map, bilinearly, at each cell's position."""
        batch = torch.zeros(x.shape[0], dtype=torch.long)
        h, positions = self.feature_map(x, edge_index, edge_attr, batch, 1)
        extent = h.shape[-1] * 2 ** (len(self.blocks) - 1) * self.settings.pixel_um
        grid = (positions / extent) * 2 - 1   # grid_sample's [-1, 1] over the image
        sampled = torch.nn.functional.grid_sample(h, grid.reshape(1, 1, -1, 2).to(h.dtype),
                                                  align_corners=False)
        return sampled.reshape(h.shape[1], -1).T

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None,
                batch: Tensor | None = None, num_graphs: int | None = None) -> Tensor:
        if batch is None:
            batch = torch.zeros(x.size(0), dtype=torch.long, device=x.device)
            num_graphs = 1
        elif num_graphs is None:
            num_graphs = int(batch.max()) + 1 if batch.numel() else 1
        h, _ = self.feature_map(x, edge_index, edge_attr, batch, num_graphs)
        return cast(Tensor, self.head(h.mean(dim=(2, 3))))

