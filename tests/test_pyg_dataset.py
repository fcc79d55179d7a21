"""GracrBench datasets as PyG datasets: the `InMemoryDataset` holds what `Dataset.to_pyg` builds,
that is the stored instances, and a `DataLoader` batch keeps every graph's ground truth.

Expected values come from the stored instances (`Dataset.instances`, read from the JSON Lines
store) and from `gracr.receptive_field`, never from the PyG view under test.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.loader import DataLoader

import gracr
from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.pyg_dataset import GroundTruthData, GroundTruthDataset
from gracr.bench.tasks import TASKS

# RedBlueLeaf-NC draws 150 positive targets per graph: 151 targets take two graphs.
NODE_TASK, NODE_SIZE = "RedBlueLeaf-NC", 151
GRAPH_TASK, GRAPH_SIZE = "Redundancy", 6


@pytest.fixture(scope="module")
def node_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return load_or_build(NODE_TASK, 0, NODE_SIZE, str(tmp_path_factory.mktemp("datasets")),
                         progress=False)


@pytest.fixture(scope="module")
def graph_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return load_or_build(GRAPH_TASK, 0, GRAPH_SIZE, str(tmp_path_factory.mktemp("datasets")),
                         progress=False)


def _fields(dataset: Dataset, graph: int) -> np.ndarray:
    program = TASKS[dataset.task].program()
    instance = dataset.instances[graph]
    return np.stack([gracr.receptive_field(program, instance.graph, t) for t in instance.targets])


def _assert_same_data(one: GroundTruthData, other: GroundTruthData) -> None:
    assert sorted(one.keys()) == sorted(other.keys())
    for key in one.keys():
        mine, theirs = one[key], other[key]
        if isinstance(mine, torch.Tensor):
            assert mine.dtype == theirs.dtype and torch.equal(mine, theirs), key
        else:
            assert mine == theirs, key


@pytest.mark.parametrize("which", ["node", "graph"])
def test_the_in_memory_dataset_holds_what_to_pyg_builds(which: str, node_dataset: Dataset,
                                                        graph_dataset: Dataset) -> None:
    dataset = node_dataset if which == "node" else graph_dataset
    view = GroundTruthDataset(dataset)
    built = dataset.to_pyg()
    assert (view.task, view.seed, len(view)) == (dataset.task, 0, len(dataset.instances))
    assert len(built) == len(dataset.instances) >= 2
    for index, data in enumerate(built):
        item = view[index]
        assert isinstance(item, GroundTruthData)
        # `index` comes back from the collated store as a 0-dim tensor.
        assert int(item.index) == data.index == index
        item.index = data.index
        _assert_same_data(item, data)


def test_to_pyg_holds_the_stored_node_instances(node_dataset: Dataset) -> None:
    for graph, (data, instance) in enumerate(zip(node_dataset.to_pyg(), node_dataset.instances)):
        assert np.array_equal(data.edge_index.numpy(), instance.graph.edge_index)
        assert data.y.tolist() == instance.node_labels.astype(int).tolist()
        assert data.targets.tolist() == list(instance.targets)
        assert np.array_equal(data.upi_masks().numpy(), np.stack(instance.upi))
        assert np.array_equal(data.receptive_field_masks().numpy(), _fields(node_dataset, graph))
        # Red nodes are column 0 of RedBlueLeaf-NC's palette (red, blue, green).
        assert data.x[:, 0].tolist() == [float("red" in c) for c in instance.graph.colors]


def test_to_pyg_holds_the_stored_graph_instances(graph_dataset: Dataset) -> None:
    for data, instance in zip(graph_dataset.to_pyg(), graph_dataset.instances):
        assert np.array_equal(data.edge_index.numpy(), instance.graph.edge_index)
        assert data.y.tolist() == [instance.label]
        assert data.upi.tolist() == instance.upi[0].tolist()
        assert "targets" not in data
    with pytest.raises(AttributeError, match="node tasks only"):
        graph_dataset.to_pyg()[0].upi_masks()


def test_a_node_task_batch_keeps_each_graphs_targets_and_masks(node_dataset: Dataset) -> None:
    [batch] = list(DataLoader(GroundTruthDataset(node_dataset), batch_size=2))
    instances = node_dataset.instances
    assert batch.num_graphs == 2 and batch.index.tolist() == [0, 1]
    nodes = [i.graph.num_nodes for i in instances]
    edges = [i.graph.num_edges for i in instances]
    counts = [len(i.targets) for i in instances]
    # Targets index the batch's nodes: the second graph's are shifted by the first's nodes.
    assert batch.targets.tolist() == list(instances[0].targets) + \
        [t + nodes[0] for t in instances[1].targets]
    assert batch.batch[batch.targets].tolist() == [0] * counts[0] + [1] * counts[1]
    # The masks are the block-diagonal [ΣT, ΣE] matrix of the graphs' [T, E] masks.
    for dense, truth in ((batch.upi_masks(), [np.stack(i.upi) for i in instances]),
                         (batch.receptive_field_masks(), [_fields(node_dataset, 0),
                                                          _fields(node_dataset, 1)])):
        assert dense.shape == (sum(counts), sum(edges))
        expected = np.zeros((sum(counts), sum(edges)), dtype=np.bool_)
        expected[:counts[0], :edges[0]] = truth[0]
        expected[counts[0]:, edges[0]:] = truth[1]
        assert np.array_equal(dense.numpy(), expected)
    # Row j's edges end inside the graph of target j (a mask over the batch's edges).
    rows, columns = batch.upi_index
    assert torch.equal(batch.batch[batch.edge_index[1, columns]], batch.batch[batch.targets[rows]])
    # And the batch splits back into the graphs it was made of.
    for data, original in zip(batch.to_data_list(), node_dataset.to_pyg()):
        data.index = int(data.index)
        _assert_same_data(data, original)


def test_a_graph_task_batch_keeps_each_graphs_label_and_upi(graph_dataset: Dataset) -> None:
    batches = list(DataLoader(GroundTruthDataset(graph_dataset), batch_size=4))
    assert [b.num_graphs for b in batches] == [4, 2]
    # `index` is the graph's position in the dataset, not shifted by nodes as PyG shifts
    # fields named `*index*`.
    assert [b.index.tolist() for b in batches] == [[0, 1, 2, 3], [4, 5]]
    instances = iter(graph_dataset.instances)
    for batch in batches:
        assert batch.upi.shape == (batch.num_edges,)
        start = 0
        for graph in range(batch.num_graphs):
            instance = next(instances)
            stop = start + instance.graph.num_edges
            assert batch.upi[start:stop].tolist() == instance.upi[0].tolist()
            assert int(batch.y[graph]) == instance.label
            start = stop
        assert start == batch.num_edges
