"""The tissue study at scale, its new parts: every radius ratio trains as many seeds, the
randomisation grid over seeds × ratios (each copy read at its base's ratio), IG from the
mean marker vector beside IG from zero, and early stopping that ignores a loss creeping
down (with the curve recorded)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

import gracr
from gracr.explainers.base import Subject
from gracr.domains.tissue import TissueSettings, generate_sample, graph_json, tissue_program
from gracr.domains.tissue.table import CellTable
from gracr.domains.tissue.phases import (StudySettings, randomisation_grid, randomised_bases,
                                         randomised_sets, trained_models, trained_name)


SETTINGS = StudySettings(samples=20, cells=60, ratios=(1.0, 1.5, 3.0), model_seeds=(4, 7))


def test_every_ratio_trains_every_seed_and_the_controls_stay_at_the_first() -> None:
    wanted = trained_models(SETTINGS)
    for architecture in ("GIN", "GATv2"):
        for ratio in (1.0, 1.5, 3.0):
            seeds = {s for a, r, s, c in wanted if a == architecture and r == ratio and c == ""}
            assert seeds == {4, 7}, (architecture, ratio)
        controls = {(r, s, c) for a, r, s, c in wanted if a == architecture and c}
        assert controls == {(1.0, 4, "shuffled"), (1.0, 4, "untrained")}
    # The CNN: one model per training seed, on the image (no radius graph).
    assert {(r, s, c) for a, r, s, c in wanted if a == "CNN"} == {(0.0, 4, ""), (0.0, 7, "")}
    assert len(wanted) == len(set(wanted)) == 2 * (3 * 2 + 2) + 2


def test_the_grid_randomises_every_other_trained_model_cascading_only() -> None:
    grid = set(randomisation_grid(SETTINGS))
    ladders = set(randomised_bases(SETTINGS))
    assert ladders == {"compiled", "GIN-r1-s4", "GATv2-r1-s4"}
    assert grid == {trained_name(a, r, s) for a in ("GIN", "GATv2") for r in (1.0, 1.5, 3.0)
                    for s in (4, 7)} - ladders
    sets = randomised_sets(SETTINGS)
    assert {(base, "cascading") for base in grid} <= set(sets)
    assert not any(base in grid and mode == "independent" for base, mode in sets)


def test_a_grid_copy_reads_its_bases_ratio(tmp_path: Path) -> None:
    from gracr.domains.tissue.phases import model_files

    folder = tmp_path / "models" / "randomised"
    folder.mkdir(parents=True)
    (folder / "GATv2-r1.5-s7~cascading.names").write_text("top-3\n")
    (folder / "compiled~cascading.names").write_text("top-1\n")
    copies = {m.name: m for m in model_files(tmp_path, SETTINGS) if m.base is not None}
    assert copies["GATv2-r1.5-s7~cascading~top-3"].ratio == 1.5
    assert copies["GATv2-r1.5-s7~cascading~top-3"].architecture == "GATv2"
    assert copies["compiled~cascading~top-1"].ratio == 1.0


def test_the_expected_markers_weigh_each_types_row_by_its_share() -> None:
    from gracr.domains.tissue.explainers import expected_markers

    # cd8: 0.25 tumour × 0.2 + 0.2 tcell × 1.8 + 0.55 other × 0.3; dapi 1.0 in every row.
    mean = expected_markers()
    assert mean[0] == pytest.approx(0.575)
    assert mean[5] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def subject() -> Subject:
    from gracr.domains.tissue.trained import ModelSettings, build_model, explained

    table = generate_sample(np.random.default_rng(2), TissueSettings.for_cells(60))
    program = gracr.parse(tissue_program(0.4))
    graph = gracr.Graph.from_json(graph_json(table, 0.4, 1.0), schema=program.schema)
    model = build_model(ModelSettings(architecture="gin", hidden=8), seed=1)
    return Subject.of_trained(explained(model, "GIN"), graph, level="node")


def _attributions(name: str, subject: Subject, **settings: object) -> torch.Tensor:
    from gracr.explainers import explainer_named, settings_for

    import gracr.domains.tissue.explainers  # noqa: F401  (registers IG-mean)

    spec = explainer_named(name)
    mask = spec.run(subject, settings_for(spec, dict(settings)), 0).node_mask
    assert mask is not None
    return mask


def test_ig_from_a_zero_mean_is_ig(subject: Subject) -> None:
    zero = _attributions("IG-mean", subject, baseline=[0.0] * 6)
    assert torch.allclose(zero, _attributions("IG", subject))
    assert zero.abs().sum() > 0


def test_ig_from_the_samples_own_markers_attributes_nothing(subject: Subject) -> None:
    import dataclasses

    row = subject.x[0].tolist()
    same = dataclasses.replace(subject, x=subject.x[0].repeat(subject.num_nodes, 1))
    assert torch.all(_attributions("IG-mean", same, baseline=row) == 0)
    assert _attributions("IG-mean", same).abs().sum() > 0   # from the default mean


def test_a_loss_creeping_down_does_not_keep_training_going() -> None:
    from gracr.domains.tissue.trained import (ModelSettings, Splits, TrainingSettings,
                                              tissue_graphs, train_model)

    rng = np.random.default_rng(0)
    settings = TissueSettings.for_cells(40)
    tables = [generate_sample(rng, settings) for _ in range(8)]
    graphs = tissue_graphs(tables, 0.3, 1.0)
    positives = [g for g in graphs if g.y.item() == 1]
    # A validation split of one class: no AUC, so only the loss can make an epoch better.
    splits = Splits(train=graphs[:6], validation=positives[:2], test=graphs[6:])
    model_settings = ModelSettings(hidden=8)
    _, free = train_model(model_settings, splits,
                          TrainingSettings(max_epochs=10, patience=10, min_delta=0.0))
    # Without a margin, any lower loss is better: the best epoch is the curve's lowest,
    # and here the loss falls in the first epochs.
    assert free.epochs == 10
    assert free.best_epoch == int(np.argmin(free.validation_loss)) + 1
    assert min(free.validation_loss[1:4]) < free.validation_loss[0]
    _, record = train_model(model_settings, splits,
                            TrainingSettings(max_epochs=50, patience=3, min_delta=1e9))
    assert (record.best_epoch, record.epochs) == (1, 4)
    assert len(record.train_loss) == len(record.validation_loss) == record.epochs
    assert all(math.isnan(v) for v in record.validation_auc)


# ---------------------------------------------------------------- the CNN baseline


def test_a_cell_at_a_pixel_centre_fills_that_pixel_and_the_image_keeps_the_mass() -> None:
    from gracr.domains.tissue.trained import render

    x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    # Pixels of 10 µm: the centre of pixel (row 2, column 1) is at (15, 25) µm.
    one = render(x[:1], torch.tensor([[15.0, 25.0]]), torch.zeros(1, dtype=torch.long), 1,
                 side_um=40.0, pixel_um=10.0)
    assert one.shape == (1, 2, 4, 4)
    assert one[0, :, 2, 1].tolist() == [1.0, 2.0] and float(one.sum()) == 3.0
    spread = render(x, torch.tensor([[3.0, 37.0], [21.0, 12.5]]),
                    torch.tensor([0, 1]), 2, side_um=40.0, pixel_um=10.0)
    assert torch.allclose(spread.sum(dim=(2, 3)), x)


def test_the_image_graph_keeps_the_label_and_hands_the_cnn_each_position() -> None:
    from gracr.domains.tissue.image import image_graph_json
    from gracr.domains.tissue.trained import cell_positions
    from gracr.executor.model import compile_program

    table = generate_sample(np.random.default_rng(4), TissueSettings.for_cells(80))
    program = gracr.parse(tissue_program(0.3))
    plain = graph_json(table, 0.3, 1.0)
    image = image_graph_json(plain)
    assert len(image["edges"]) == len(plain["edges"]) + table.num_cells
    model = compile_program(program, presence=True)
    for theta in (0.1, 0.3, 0.6):
        program = gracr.parse(tissue_program(theta))
        model = compile_program(program, presence=True)
        assert model.predict(gracr.Graph.from_json(image, schema=program.schema)) == \
            model.predict(gracr.Graph.from_json(plain, schema=program.schema))
    graph = gracr.Graph.from_json(image, schema=program.schema)
    assert graph.edge_attr is not None
    positions = cell_positions(graph.num_nodes, torch.as_tensor(graph.edge_index),
                               torch.as_tensor(graph.edge_attr, dtype=torch.float32))
    assert np.allclose(positions.numpy(), table.positions, atol=1e-4)


def test_the_cnn_reads_a_batch_as_its_graphs_and_a_deleted_cell_leaves_the_image() -> None:
    from torch_geometric.data import Batch

    from gracr.domains.tissue.image import image_graphs
    from gracr.domains.tissue.trained import ModelSettings, build_model

    rng = np.random.default_rng(6)
    tables = [generate_sample(rng, TissueSettings.for_cells(60)) for _ in range(2)]
    graphs = image_graphs(tables, 0.3)
    model = build_model(ModelSettings(architecture="cnn", hidden=4, layers=2,
                                      side_um=TissueSettings.for_cells(60).side_um), seed=0)
    batch = Batch.from_data_list(graphs)
    together = model(batch.x, batch.edge_index, batch.edge_attr, batch.batch, 2)
    alone = [model(g.x, g.edge_index, g.edge_attr) for g in graphs]
    assert torch.allclose(together.reshape(-1), torch.cat(alone).reshape(-1), atol=1e-5)
    # Zeroing a cell's markers and deleting it (its loop and edges go) are one image.
    graph = graphs[0]
    zeroed = graph.x.clone()
    zeroed[0] = 0
    kept = (graph.edge_index != 0).all(dim=0)
    deleted = model(graph.x[1:], graph.edge_index[:, kept] - 1, graph.edge_attr[kept])
    assert torch.allclose(model(zeroed, graph.edge_index, graph.edge_attr), deleted,
                          atol=1e-5)
    x = graph.x.clone().requires_grad_(True)
    model(x, graph.edge_index, graph.edge_attr).sum().backward()
    assert x.grad is not None and bool((x.grad.abs().sum(dim=1) > 0).all())
    assert model.node_embeddings(graph.x, graph.edge_index, graph.edge_attr).shape == \
        (graph.num_nodes, 4)


# ---------------------------------------------------------------- the sparse-driver family


def _planted(motif: str) -> CellTable:
    from gracr.domains.tissue.sparse import plant

    settings = TissueSettings.for_cells(300)
    table = generate_sample(np.random.default_rng(8), settings)
    # The same generator state for both motifs: the same site and the same markers.
    return plant(table, motif, np.random.default_rng(9), settings)


def test_the_motif_count_separates_triangles_from_the_hexagon() -> None:
    from gracr.domains.tissue.sparse import motif_count, sparse_label

    assert motif_count(_planted("triangles")) == 2 and sparse_label(_planted("triangles"))
    assert motif_count(_planted("hexagon")) == 0 and not sparse_label(_planted("hexagon"))


@pytest.mark.parametrize("architecture", ["gin", "gatv2"])
def test_no_message_passing_network_tells_the_two_motifs_apart(architecture: str) -> None:
    from gracr.domains.tissue.trained import ModelSettings, build_model, tissue_graphs

    import dataclasses

    def typed(table: CellTable) -> CellTable:
        # 1-WL's premise: cells of one type alike. The six planted cells (the last rows)
        # take one marker row per type; drawn per cell, they differ only in distribution.
        markers = table.markers.copy()
        for kind in ("tumour", "tcell"):
            rows = [i for i in range(table.num_cells - 6, table.num_cells)
                    if table.types[i] == kind]
            markers[rows] = markers[rows[0]]
        return dataclasses.replace(table, markers=markers)

    positive, negative = typed(_planted("triangles")), typed(_planted("hexagon"))
    assert positive.types == negative.types
    assert np.array_equal(positive.markers, negative.markers)
    assert not np.array_equal(positive.positions, negative.positions)
    a, b = tissue_graphs([positive, negative], 0.5, 1.0)
    assert a.edge_index.shape == b.edge_index.shape   # every motif cell has two neighbours
    for seed in range(3):
        model = build_model(ModelSettings(architecture=architecture, hidden=16), seed)
        with torch.no_grad():
            assert torch.allclose(model(a.x, a.edge_index, a.edge_attr),
                                  model(b.x, b.edge_index, b.edge_attr), atol=1e-5)


def test_the_convergence_table_says_what_stopped_each_training(tmp_path: Path) -> None:
    import json

    from gracr.domains.tissue.study import write_convergence
    from gracr.domains.tissue.trained import TrainingSettings

    (tmp_path / "models").mkdir()
    lines = [{"model": "GIN-r1-s0", "epochs": 9, "best_epoch": 4, "learning_rate": 0.001,
              "validation_loss": [0.9, 0.7, 0.6, 0.5, 0.55, 0.6, 0.6, 0.7, 0.8],
              "best_validation_auc": 0.75, "test_auc": 0.5},
             {"model": "GIN-r1-s1", "epochs": 10, "best_epoch": 8,
              "validation_loss": [0.5] * 10, "best_validation_auc": float("nan")},
             {"model": "GIN-r1-s0-untrained", "untrained": True}]
    (tmp_path / "models" / "training.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines))
    settings = StudySettings(training=TrainingSettings(max_epochs=10, patience=5))
    text = write_convergence(tmp_path, settings).read_text()
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in text.splitlines()[2:]]
    # The second line, written before the lines carried the rate, was trained at 1e-2.
    assert rows == [["GIN-r1-s0", "0.001", "9", "4", "patience", "0.500", "0.800", "0.500",
                     "0.750", "0.500"],
                    ["GIN-r1-s1", "0.01", "10", "8", "cap", "0.500", "0.500", "0.500", "–",
                     "–"]]


def test_the_cnns_name_keeps_its_family_and_its_view() -> None:
    from gracr.domains.tissue.phases import IMAGE, model_family, ratio_name

    name = trained_name("CNN", IMAGE, 2)
    assert (name, ratio_name(IMAGE)) == ("CNN-image-s2", "image")
    assert model_family(name) == ("CNN-image", 2)
    assert model_family("GATv2-r1.5-s1") == ("GATv2-r1.5", 1)


def test_the_sparse_study_trains_again_a_model_logged_at_another_learning_rate(
        tmp_path: Path) -> None:
    """A line without a rate was trained at 1e-2: GIN (1e-3 now) is trained again, its new
    line saying so and its table row too; GATv2 (still 1e-2) is kept."""
    import json

    from gracr.bench.study import Execution
    from gracr.domains.tissue.sparse import SparseSettings, SparseStudy
    from gracr.domains.tissue.trained import TrainingSettings

    settings = SparseSettings(samples=12, cells=120, seed=1, model_seeds=(0,), hidden=8,
                              layers=1, training=TrainingSettings(max_epochs=1, patience=1))
    folder = tmp_path / "sparse"
    SparseStudy(folder, settings, Execution(progress=False)).run()
    training = folder / "models" / "training.jsonl"
    first = [json.loads(line) for line in training.read_text().splitlines()]
    assert {line["model"]: line["learning_rate"] for line in first} == {
        "GIN-r1-s0": 0.001, "GATv2-r1-s0": 0.01}
    training.write_text("".join(json.dumps({k: v for k, v in line.items()
                                            if k != "learning_rate"}) + "\n"
                                for line in first))
    SparseStudy(folder, settings, Execution(progress=False)).run()
    added = [json.loads(line) for line in training.read_text().splitlines()][len(first):]
    assert [(line["model"], line["learning_rate"]) for line in added] == [("GIN-r1-s0", 0.001)]
    table = (folder / "tables" / "sparse.md").read_text()
    assert "Adam at 0.001" in table and "Adam at 0.01" in table
