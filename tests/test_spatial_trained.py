"""Trained models on tissue graphs (`gracr.domains.tissue.trained`, `gracr.domains.tissue.probes`): the
PyG data, the splits, GIN and GATv2 training (record, determinism, shuffled-label control),
the linear probe, attention rollout and the saved files. Tiny fields (≈ 70 cells), a few epochs."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch, Data

from gracr.data.graph import Graph
from gracr.domains.tissue import (CELL_TYPES, CellTable, TissueSettings, generate_dataset,
                           radius_graph, recompute_label)
from gracr.domains.tissue.probes import (attention_matrix, attention_rollout, compiled_embeddings,
                                  embedding_probe, linear_probe, probe_auc,
                                  rollout_matrices, rollout_scores)
from gracr.domains.tissue.trained import (GATv2, GIN, ModelSettings, Splits, TissueModel,
                                   TrainingRecord, TrainingSettings, build_model, load_model,
                                   model_auc, save_model, shuffle_labels, split_graphs, tissue_graphs,
                                   train_model)

FEW = TrainingSettings(max_epochs=4, patience=2, batch_size=8, seed=0)


@pytest.fixture(autouse=True, scope="module")
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def dataset() -> tuple[list[CellTable], float]:
    return generate_dataset(np.random.default_rng(11), TissueSettings.for_cells(70), 40)


@pytest.fixture(scope="module")
def graphs(dataset: tuple[list[CellTable], float]) -> list[Data]:
    tables, theta = dataset
    return tissue_graphs(tables, theta, 1.0)


@pytest.fixture(scope="module")
def splits(graphs: list[Data]) -> Splits:
    return split_graphs(graphs, seed=0)


@pytest.fixture(scope="module")
def trained(splits: Splits) -> dict[str, tuple[TissueModel, TrainingRecord]]:
    return {a: train_model(ModelSettings(a), splits, FEW) for a in ("gin", "gatv2")}


def parameters(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# --- data -------------------------------------------------------------------------------

def test_graph_fields(dataset: tuple[list[CellTable], float], graphs: list[Data]) -> None:
    tables, theta = dataset
    assert len(graphs) == len(tables)
    for table, g in zip(tables, graphs):
        n = table.num_cells
        edges, distances = radius_graph(table, 1.0)
        assert g.x.dtype == torch.float32 and g.x.shape == (n, 6)
        # the markers and nothing else: no column is a cell-type indicator
        assert torch.equal(g.x, torch.tensor(table.markers, dtype=torch.float32))
        for cell_type in CELL_TYPES:
            indicator = torch.tensor(table.mask(cell_type), dtype=torch.float32)
            assert not any(torch.equal(g.x[:, c], indicator) for c in range(6))
        assert g.edge_index.dtype == torch.long
        assert g.edge_index.T.tolist() == edges.tolist()
        assert g.edge_attr.dtype == torch.float32 and g.edge_attr.shape == (len(edges), 1)
        assert np.allclose(g.edge_attr[:, 0].numpy(), distances, atol=1e-4)
        assert g.y.tolist() == [float(recompute_label(table, theta))]
        assert g.driver.dtype == torch.bool and g.driver.tolist() == table.driver.tolist()
        assert g.engaged.tolist() == table.engaged.tolist()
        assert g.tumour.tolist() == table.mask("tumour").tolist()
    labels = [g.y.item() for g in graphs]
    assert 0 < sum(labels) < len(labels)


def test_far_edges_at_larger_ratio(dataset: tuple[list[CellTable], float],
                                   graphs: list[Data]) -> None:
    tables, theta = dataset
    wide = tissue_graphs(tables[:3], theta, 2.0)
    for near, far in zip(graphs, wide):
        assert far.edge_index.size(1) > near.edge_index.size(1)
        assert float(near.edge_attr.max()) <= 30.0 < float(far.edge_attr.max()) <= 60.0


def test_splits(graphs: list[Data]) -> None:
    s = split_graphs(graphs, seed=0)
    assert (len(s.train), len(s.validation), len(s.test)) == (24, 8, 8)
    ids = [id(g) for part in (s.train, s.validation, s.test) for g in part]
    assert sorted(ids) == sorted(id(g) for g in graphs)
    again, other = split_graphs(graphs, seed=0), split_graphs(graphs, seed=1)
    assert [id(g) for g in again.train] == [id(g) for g in s.train]
    assert [id(g) for g in other.train] != [id(g) for g in s.train]
    custom = split_graphs(graphs, seed=0, train=0.5, validation=0.25)
    assert (len(custom.train), len(custom.validation), len(custom.test)) == (20, 10, 10)
    with pytest.raises(ValueError):
        split_graphs(graphs, seed=0, train=0.8, validation=0.2)


# --- models and training ----------------------------------------------------------------

@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_forward_shapes(architecture: str, graphs: list[Data]) -> None:
    model = build_model(ModelSettings(architecture, hidden=32, layers=3), seed=1)
    assert isinstance(model, GIN if architecture == "gin" else GATv2)
    batch = Batch.from_data_list(graphs[:3])
    with torch.no_grad():
        out = model(batch.x, batch.edge_index, batch.edge_attr, batch.batch)
        assert out.shape == (3, 1)
        one = [model(g.x, g.edge_index, g.edge_attr) for g in graphs[:3]]
        assert all(o.shape == (1, 1) for o in one)
        assert torch.allclose(out, torch.cat(one), atol=1e-5)
        emb = model.node_embeddings(graphs[0].x, graphs[0].edge_index, graphs[0].edge_attr)
        assert emb.shape == (graphs[0].num_nodes, 32)
        zero = torch.zeros_like(graphs[0].edge_attr)
        assert torch.equal(model(graphs[0].x, graphs[0].edge_index),
                           model(graphs[0].x, graphs[0].edge_index, zero))
        # the distance is read: other lengths give another output
        assert not torch.equal(model(graphs[0].x, graphs[0].edge_index, zero),
                               model(graphs[0].x, graphs[0].edge_index, graphs[0].edge_attr))


@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_training_record(architecture: str, splits: Splits,
                         trained: dict[str, tuple[TissueModel, TrainingRecord]]) -> None:
    model, record = trained[architecture]
    assert record.architecture == architecture and record.seed == 0
    assert not record.shuffled_labels
    assert 1 <= record.epochs <= FEW.max_epochs
    assert 0 <= record.best_epoch <= record.epochs
    assert record.epochs == FEW.max_epochs or record.epochs - record.best_epoch == FEW.patience
    assert 0.0 <= record.best_validation_auc <= 1.0
    assert 0.0 <= record.test_auc <= 1.0
    assert 0.0 < record.seconds < 60.0
    assert not model.training
    # the weights kept are the best epoch's: the initial ones iff none beat them
    initial = parameters(build_model(ModelSettings(architecture)))
    assert same(parameters(model), initial) == (record.best_epoch == 0)
    assert record.test_auc == model_auc(model, splits.test)


@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_training_is_reproducible(architecture: str, splits: Splits,
                                  trained: dict[str, tuple[TissueModel, TrainingRecord]]
                                  ) -> None:
    # the last epoch's weights, so that the comparison is of trained weights whatever
    # the validation AUC did
    settings = TrainingSettings(max_epochs=2, patience=5, batch_size=8, seed=0, keep="last")
    state = torch.get_rng_state()
    a, record_a = train_model(ModelSettings(architecture), splits, settings)
    b, record_b = train_model(ModelSettings(architecture), splits, settings)
    assert torch.equal(state, torch.get_rng_state())    # the global RNG is left alone
    assert record_a.epochs == record_b.epochs == 2
    assert not same(parameters(a), parameters(build_model(ModelSettings(architecture))))
    assert same(parameters(a), parameters(b))
    c, _ = train_model(ModelSettings(architecture), splits, replace(settings, seed=1))
    assert not same(parameters(a), parameters(c))


def test_shuffled_labels(splits: Splits) -> None:
    before = [g.y.item() for g in splits.train]
    shuffled = shuffle_labels(splits.train, seed=0)
    after = [g.y.item() for g in shuffled]
    assert sorted(after) == sorted(before) and after != before
    assert [g.y.item() for g in splits.train] == before          # originals untouched
    assert all(torch.equal(s.x, g.x) for s, g in zip(shuffled, splits.train))
    assert after == [g.y.item() for g in shuffle_labels(splits.train, seed=0)]
    settings = TrainingSettings(max_epochs=2, patience=5, batch_size=8, seed=0, keep="last")
    true_model, _ = train_model(ModelSettings("gin"), splits, settings)
    control, record = train_model(ModelSettings("gin"), splits,
                                  replace(settings, shuffle_labels=True))
    assert record.shuffled_labels
    assert not same(parameters(true_model), parameters(control))


def test_the_shuffled_control_never_sees_a_true_training_or_validation_label(
        splits: Splits) -> None:
    shuffled = splits.with_shuffled_labels(seed=3)
    labels = [g.y.item() for g in [*splits.train, *splits.validation]]
    permuted = [g.y.item() for g in [*shuffled.train, *shuffled.validation]]
    assert sorted(permuted) == sorted(labels) and permuted != labels
    assert [g.y.item() for g in shuffled.validation] != [g.y.item() for g in splits.validation]
    assert shuffled.test == splits.test                       # the same graphs, true labels
    assert all(torch.equal(s.x, g.x) for s, g in zip(shuffled.train, splits.train))
    # The control chooses its epoch by AUC on the shuffled validation labels: training it is
    # training an ordinary model on the shuffled splits, record and weights alike. (The
    # control once chose by the true validation labels.)
    settings = TrainingSettings(max_epochs=4, patience=4, batch_size=8, seed=3)
    control, record = train_model(ModelSettings("gin"), splits,
                                  replace(settings, shuffle_labels=True))
    plain, plain_record = train_model(ModelSettings("gin"), shuffled, settings)
    assert same(parameters(control), parameters(plain))
    assert replace(record, seconds=0.0) == replace(plain_record, seconds=0.0,
                                                   shuffled_labels=True)
    validation_auc = model_auc(control, shuffled.validation)
    assert record.best_validation_auc == pytest.approx(validation_auc)


# --- linear probe -----------------------------------------------------------------------

class FirstColumns(TissueModel):
    """A stand-in whose node embeddings are the input columns themselves."""

    def __init__(self, width: int) -> None:
        super().__init__(ModelSettings(hidden=width, heads=1), [])

    def node_embeddings(self, x: torch.Tensor, edge_index: torch.Tensor,
                        edge_attr: torch.Tensor | None = None) -> torch.Tensor:
        return x


def test_probe_auc_hand_made() -> None:
    rng = np.random.default_rng(0)
    flag = rng.random(200) < 0.3
    noise = rng.normal(size=(200, 3))
    exact = np.column_stack([flag.astype(float), noise])
    assert probe_auc(exact[:100], flag[:100], exact[100:], flag[100:]) == 1.0
    flipped = probe_auc(exact[:100], flag[:100], exact[100:], ~flag[100:])
    assert flipped == 0.0
    blind = probe_auc(noise[:100], flag[:100], noise[100:], flag[100:])
    assert 0.2 < blind < 0.8
    assert math.isnan(probe_auc(exact[:100], np.zeros(100), exact[100:], flag[100:]))


def test_linear_probe_reads_the_masked_nodes(splits: Splits) -> None:
    def relabel(graphs: list[Data]) -> list[Data]:
        out = []
        for g in graphs:
            h = g.clone()
            h.x = torch.stack([g.engaged.float(), torch.rand(g.num_nodes)], dim=1)
            out.append(h)
        return out

    train, test = relabel(splits.train), relabel(splits.test)
    model = FirstColumns(2)
    assert linear_probe(model, train, test) == 1.0                      # engaged on tumour
    # on T cells the engaged flag is always false: one class, no AUC
    assert math.isnan(linear_probe(model, train, test, mask="tcell"))
    with pytest.raises(ValueError, match="unknown node flag"):
        linear_probe(model, train, test, target="type")


@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_linear_probe_on_models(architecture: str, splits: Splits,
                                trained: dict[str, tuple[TissueModel, TrainingRecord]]
                                ) -> None:
    model, _ = trained[architecture]
    for m in (model, build_model(ModelSettings(architecture))):
        value = linear_probe(m, splits.train, splits.test)
        assert 0.0 <= value <= 1.0
        driver = linear_probe(m, splits.train, splits.test, mask="tcell", target="driver")
        assert 0.0 <= driver <= 1.0


# --- attention rollout ------------------------------------------------------------------

def test_rollout_on_a_model(graphs: list[Data]) -> None:
    model = build_model(ModelSettings("gatv2", heads=4, layers=3), seed=2)
    assert isinstance(model, GATv2)
    g = graphs[0]
    layers = model.attention(g.x, g.edge_index, g.edge_attr)
    assert len(layers) == 3 and all(alpha.shape[1] == 4 for _, alpha in layers)
    for index, alpha in layers:
        raw = attention_matrix(index, alpha, g.num_nodes)
        assert np.allclose(raw.sum(axis=1), 1.0, atol=1e-5)
    for matrix in rollout_matrices(layers, g.num_nodes):
        assert np.allclose(matrix.sum(axis=1), 1.0, atol=1e-5)
        assert matrix.min() >= 0.0 and matrix.diagonal().min() >= 0.5
    scores = attention_rollout(model, g)
    assert scores.dtype == np.float64 and scores.shape == (g.num_nodes,)
    assert scores.min() >= 0.5 ** 3 - 1e-9
    assert math.isclose(scores.sum(), g.num_nodes, rel_tol=1e-5)
    dense = np.eye(g.num_nodes)
    for matrix in rollout_matrices(layers, g.num_nodes):
        dense = matrix.toarray() @ dense
    assert np.allclose(scores, dense.sum(axis=0))


def test_rollout_two_nodes_by_hand() -> None:
    # columns are edges j→i: 0→0, 1→0, 0→1, 1→1; alpha(j→i) = Ā[i, j]
    index = torch.tensor([[0, 1, 0, 1], [0, 0, 1, 1]])
    # layer 1, two heads: [[.6, .4], [.2, .8]] and [[1, 0], [.6, .4]], mean [[.8, .2], [.4, .6]]
    first = torch.tensor([[0.6, 1.0], [0.4, 0.0], [0.2, 0.6], [0.8, 0.4]])
    # layer 2, one head: [[.5, .5], [0, 1]]
    second = torch.tensor([0.5, 0.5, 0.0, 1.0])
    a1, a2 = rollout_matrices([(index, first), (index, second)], 2)
    assert np.allclose(a1.toarray(), [[0.9, 0.1], [0.2, 0.8]])
    assert np.allclose(a2.toarray(), [[0.75, 0.25], [0.0, 1.0]])
    # A2 A1 = [[.725, .275], [.2, .8]]: column sums .925 and 1.075
    scores = rollout_scores([a1, a2])
    assert np.allclose(scores, [0.925, 1.075], atol=1e-7)


# --- files ------------------------------------------------------------------------------

@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_save_and_load(architecture: str, tmp_path: Path, graphs: list[Data],
                       trained: dict[str, tuple[TissueModel, TrainingRecord]]) -> None:
    model, _ = trained[architecture]
    weights, settings = save_model(model, tmp_path / "model.pt")
    assert (weights.name, settings.name) == ("model.pt", "model.json")
    meta = json.loads(settings.read_text(encoding="utf-8"))
    assert meta["settings"]["architecture"] == architecture
    loaded = load_model(tmp_path / "model")
    assert type(loaded) is type(model) and loaded.settings == model.settings
    batch = Batch.from_data_list(graphs[:4])
    with torch.no_grad():
        expected = model(batch.x, batch.edge_index, batch.edge_attr, batch.batch)
        got = loaded(batch.x, batch.edge_index, batch.edge_attr, batch.batch)
        fresh = build_model(model.settings, seed=12345)(batch.x, batch.edge_index, batch.edge_attr,
                                            batch.batch)
    assert torch.equal(expected, got)
    assert not torch.equal(expected, fresh)          # the weights came from the file
    settings.write_text(json.dumps({"format": "other"}), encoding="utf-8")
    with pytest.raises(ValueError, match="not a gracr-tissue-model"):
        load_model(weights)


def test_a_stem_with_dots_keeps_its_name(tmp_path: Path) -> None:
    """`GIN~convs.0` and `GIN~convs.1` (randomised copies named after their layer) are two
    files, not one `GIN~convs.pt` written twice."""
    first, second = build_model(ModelSettings(hidden=8), 1), build_model(ModelSettings(hidden=8), 2)
    paths = [save_model(first, tmp_path / "GIN~convs.0"), save_model(second, tmp_path / "GIN~convs.1")]
    assert {p.name for pair in paths for p in pair} == {
        "GIN~convs.0.pt", "GIN~convs.0.json", "GIN~convs.1.pt", "GIN~convs.1.json"}
    for model, stem in ((first, "GIN~convs.0"), (second, "GIN~convs.1")):
        loaded = load_model(tmp_path / stem)
        assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(),
                                                     loaded.state_dict().values()))


def test_the_compiled_rule_holds_the_engaged_flag_in_a_column(
        dataset: tuple[list[CellTable], float]) -> None:
    """The compiled network's last hidden state computes the rule's subformulas, the
    engaged tumour cell among them: the probe reads it exactly. A network whose columns
    are scrambled (each graph's rows shuffled) loses it."""
    from gracr.dsl.parse import parse
    from gracr.executor.model import compile_program
    from gracr.domains.tissue.dataset import graph_json, tissue_program

    tables, theta = dataset
    program = parse(tissue_program(theta))
    model = compile_program(program, presence=True)
    graphs = tissue_graphs(tables, theta, 1.0)
    gracr_graphs = [Graph.from_json(graph_json(t, theta, 1.0), schema=program.schema)
                    for t in tables]
    embeddings = compiled_embeddings(model, gracr_graphs)
    assert [e.shape for e in embeddings] == [(g.num_nodes, model.width) for g in graphs]
    half = len(graphs) // 2
    assert embedding_probe(embeddings[:half], graphs[:half], embeddings[half:],
                           graphs[half:]) == 1.0
    rng = np.random.default_rng(0)
    scrambled = [e[rng.permutation(len(e))] for e in embeddings]
    assert embedding_probe(scrambled[:half], graphs[:half], scrambled[half:],
                           graphs[half:]) < 0.8


def test_a_cut_weights_file_is_named(tmp_path: Path) -> None:
    from gracr.errors import GracrError

    weights, _ = save_model(build_model(ModelSettings(hidden=8), 1), tmp_path / "model")
    weights.write_bytes(weights.read_bytes()[:100])
    with pytest.raises(GracrError, match=f"{weights}: cannot read the model's weights"):
        load_model(tmp_path / "model")


# --- checkpoints ------------------------------------------------------------------------


def test_a_training_stopped_mid_way_goes_on_from_its_checkpoint_to_the_same_model(
        splits: Splits, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A run stopped after epoch 2 of 5 is a run capped at 2 that left its checkpoint (the
    # cap is not part of what a checkpoint must match); the run that goes on from it must
    # end where one never stopped ends: the same weights, curve and best epoch. Both are
    # computed here, in one process, so bit-equality is exact by construction. A patience
    # above the cap keeps the stop from depending on the validation AUC.
    settings = TrainingSettings(max_epochs=5, patience=10, batch_size=8, seed=0)
    for architecture in ("gin", "gatv2"):
        checkpoint = tmp_path / f"{architecture}.pt"
        whole, whole_record = train_model(ModelSettings(architecture), splits, settings)
        train_model(ModelSettings(architecture), splits, replace(settings, max_epochs=2),
                    checkpoint=checkpoint, checkpoint_seconds=0.0)
        assert checkpoint.exists()
        state = torch.load(checkpoint, weights_only=True)
        assert state["epoch"] == 2 and len(state["curve"][0]) == 2
        capsys.readouterr()
        resumed, record = train_model(ModelSettings(architecture), splits, settings,
                                      checkpoint=checkpoint, checkpoint_seconds=0.0)
        assert "going on from epoch 2" in capsys.readouterr().err
        assert record.epochs == whole_record.epochs == 5
        assert same(parameters(resumed), parameters(whole))
        assert (record.best_epoch, record.train_loss, record.validation_loss) == (
            whole_record.best_epoch, whole_record.train_loss, whole_record.validation_loss)
        assert not same(parameters(resumed), parameters(build_model(ModelSettings(architecture))))
        # A run that ignored the checkpoint would be equal too: so the second run must be
        # shown to go on from the file. Marked state in the checkpoint reaches the result.
        checkpoint.unlink()   # the run above left its epoch 5 there
        train_model(ModelSettings(architecture), splits, replace(settings, max_epochs=2),
                    checkpoint=checkpoint, checkpoint_seconds=0.0)
        state = torch.load(checkpoint, weights_only=True)
        state["curve"][0][0] = 123.0
        state["model"]["head.weight"].add_(1.0)
        torch.save(state, checkpoint)
        # the last epoch's weights (the best may be an epoch the checkpoint holds unmarked)
        marked, marked_record = train_model(ModelSettings(architecture), splits,
                                            replace(settings, keep="last"),
                                            checkpoint=checkpoint)
        assert marked_record.train_loss[0] == 123.0
        assert marked_record.train_loss[1:2] == whole_record.train_loss[1:2]
        last, _ = train_model(ModelSettings(architecture), splits, replace(settings, keep="last"))
        assert not same(parameters(marked), parameters(last))


def test_a_damaged_or_foreign_checkpoint_is_said_and_training_starts_afresh(
        splits: Splits, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = TrainingSettings(max_epochs=3, patience=10, batch_size=8, seed=0, keep="last")
    fresh, _ = train_model(ModelSettings("gin"), splits, settings)
    checkpoint = tmp_path / "gin.pt"
    # another seed's checkpoint, written after its own 2 epochs: going on from it would
    # end elsewhere
    train_model(ModelSettings("gin"), splits, replace(settings, seed=1, max_epochs=2),
                checkpoint=checkpoint, checkpoint_seconds=0.0)
    capsys.readouterr()
    model, record = train_model(ModelSettings("gin"), splits, settings, checkpoint=checkpoint)
    assert "other settings or data" in capsys.readouterr().err
    assert record.epochs == 3 and same(parameters(model), parameters(fresh))
    checkpoint.write_bytes(checkpoint.read_bytes()[:100])   # cut mid-write by a crash
    model, _ = train_model(ModelSettings("gin"), splits, settings, checkpoint=checkpoint)
    err = capsys.readouterr().err
    assert str(checkpoint) in err and "cannot read the training checkpoint" in err
    assert "Traceback" not in err and same(parameters(model), parameters(fresh))
    # other data under the same settings: the splits' sizes differ
    fewer = Splits(train=splits.train[:-1], validation=splits.validation, test=splits.test)
    train_model(ModelSettings("gin"), fewer, replace(settings, max_epochs=1),
                checkpoint=checkpoint, checkpoint_seconds=0.0)
    capsys.readouterr()
    train_model(ModelSettings("gin"), splits, settings, checkpoint=checkpoint)
    assert "other settings or data" in capsys.readouterr().err
