"""GracrBench datasets as PyG datasets: `GroundTruthData` (one graph with its exact ground
truth) and `GroundTruthDataset`, an `InMemoryDataset` over a stored `Dataset`.

The store stays the dataset's JSON Lines file (`gracr.bench.datasets`); a
`GroundTruthDataset` is an in-memory view of it (`root=None`: nothing is processed,
cached or written). `Dataset.to_pyg()` builds the `GroundTruthData` objects; this module
only says how they batch.

Fields of every object: `x` (float multi-hot features `[N, F]`), `edge_index` (`[2, E]`),
`task`, `index` (the graph's position in the dataset). Graph tasks: `y` (`[1]`, the
label) and `upi` (bool `[E]`, the UPI of the label). Node tasks: `y` (`[N]`, the node
labels), `targets` (`[T]`, the positive nodes), and the per-target masks as the entries
of a sparse bool `[T, E]` matrix (row i for `targets[i]`): `upi_index` (`[2, K]`) and
`receptive_field_index` (`[2, K']`), whose first row is a position in `targets` and second
a position in `edge_index`. `upi_masks()` and `receptive_field_masks()` give them dense.

Batching (a `DataLoader`, `Batch.from_data_list`): edges and nodes are concatenated as in
any PyG batch, graph-level `upi` along the edges (one bool per batched edge), `targets` are
shifted by the nodes before them (they index the batch's nodes), and both index fields are
shifted by (targets, edges) before them, so in a batch they are the block-diagonal
`[ΣT, ΣE]` matrix: row j is the mask of `batch.targets[j]` over the batch's edges. `index`
is not shifted (PyG shifts any field named `*index*` by the nodes before it). Dense
per-target masks could not batch: graphs differ in both T and E.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import torch
from torch import Tensor
from torch_geometric.data import Data, InMemoryDataset

if TYPE_CHECKING:
    from gracr.bench.datasets import Dataset

# The per-target masks, each stored as the entries of a sparse [T, E] matrix.
TARGET_EDGE_INDEXES = ("upi_index", "receptive_field_index")


class GroundTruthData(Data):  # type: ignore[misc]
    """One GracrBench graph with its exact ground truth (the module docstring lists the
    fields and how they batch)."""

    def __cat_dim__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        if key in TARGET_EDGE_INDEXES:
            return 1
        if key == "index":
            return None   # one number per graph: stacked, and a 0-dim tensor again when split
        return super().__cat_dim__(key, value, *args, **kwargs)

    def __inc__(self, key: str, value: Any, *args: Any, **kwargs: Any) -> Any:
        if key in TARGET_EDGE_INDEXES:
            return torch.tensor([[self.targets.numel()], [self.num_edges]])
        if key == "targets":
            return self.num_nodes
        if key == "index":
            return 0
        return super().__inc__(key, value, *args, **kwargs)

    def upi_masks(self) -> Tensor:
        """Bool `[T, E]`: row i is the UPI of `targets[i]` over `edge_index` (node tasks)."""
        return self._dense("upi_index")

    def receptive_field_masks(self) -> Tensor:
        """Bool `[T, E]`: row i is the receptive field of `targets[i]` (node tasks)."""
        return self._dense("receptive_field_index")

    def _dense(self, key: str) -> Tensor:
        if "targets" not in self:
            raise AttributeError(f"'{key}' exists on node tasks only; a graph task's UPI is "
                                 "'upi', one bool per edge")
        entries: Tensor = self[key]
        masks = torch.zeros((self.targets.numel(), self.num_edges), dtype=torch.bool)
        masks[entries[0], entries[1]] = True
        return masks


def target_edge_index(masks: Tensor) -> Tensor:
    """The `[2, K]` entries (target position, edge position) of a bool `[T, E]` mask."""
    return masks.nonzero().t().contiguous()


class GroundTruthDataset(InMemoryDataset):  # type: ignore[misc]
    """A GracrBench `Dataset` as a PyG `InMemoryDataset` of `GroundTruthData`.

    `GroundTruthDataset(load_or_build("RedBlueLeaf-NC", 0))`; `task` and `seed` say which
    dataset it is. Usable with `torch_geometric.loader.DataLoader`.
    """

    def __init__(self, dataset: Dataset,
                 transform: Callable[[GroundTruthData], GroundTruthData] | None = None) -> None:
        super().__init__(None, transform)
        self.task = dataset.task
        self.seed = dataset.seed
        self._data, self.slices = self.collate(dataset.to_pyg())
