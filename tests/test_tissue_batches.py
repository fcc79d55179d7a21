"""The batch paths on the tissue study's trained models (`TrainedModel.separable`,
`gracr.explainers.batch.separable_graph_nodes`): GIN, GATv2, the CNN and a randomised copy,
each explained by Saliency, InputXGradient, IG, IG-mean and GNNExplainer on several small
tissue samples at once, give each sample the scores it gets alone; the one-at-a-time path
these are compared with is PyG's (its Captum bridge, its GNNExplainer), not the batch code.

Tolerance: every score within 1e-5 of its sample's largest score (float32; they differ by
a few 1e-7 here, the union's sums being ordered differently). Models that a union would
mix (not declared separable, in training mode, normalising over all nodes) are refused,
and the last one shows why: its batched scores are not its own.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from gracr.bench.budget import explain_each
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.explainers.base import Subject, TrainedModel, explainer_seed, scores
from gracr.explainers.batch import (batches, node_attribution_together, scores_together,
                                    separable_graph_nodes)

TOLERANCE = 1e-5
FAMILIES = ("gin", "gatv2", "cnn", "gin-randomised", "gatv2-randomised")
# Few IG steps and GNNExplainer epochs: seconds per test, and the masks still move.
RUNS: tuple[tuple[str, dict[str, Any] | None], ...] = (
    ("Saliency", None), ("InputXGradient", None), ("IG", {"n_steps": 12}),
    ("IG-mean", {"n_steps": 12}), ("GNNExplainer", {"epochs": 30}))


@pytest.fixture(scope="module")
def samples() -> list[dict[str, Any]]:
    """Four tissue samples of ~40 cells (of different sizes), as graph JSON at ratio 1."""
    import gracr.domains.tissue.explainers  # noqa: F401  (registers IG-mean)
    from gracr.domains.tissue.dataset import graph_json
    from gracr.domains.tissue.generator import TissueSettings, generate_sample

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    tables = [generate_sample(rng, TissueSettings.for_cells(40)) for _ in range(4)]
    assert len({table.num_cells for table in tables}) > 1
    return [graph_json(table, 0.3, 1.0) for table in tables]


def _model(family: str, side_um: float) -> TrainedModel:
    from gracr.domains.tissue.trained import ModelSettings, build_model, explained
    from gracr.explainers.randomisation import module_layers, randomised_module

    architecture = family.split("-")[0]
    module = build_model(ModelSettings(architecture=architecture, hidden=16, layers=2,
                                       side_um=side_um), 1)
    if family.endswith("-randomised"):
        # The study's fully randomised cascading copy: every layer drawn again.
        module = randomised_module(module, module_layers(module), 5)
    return explained(module, family)


def _subjects(family: str, samples: Sequence[dict[str, Any]]) -> list[Subject]:
    from gracr.domains.tissue.generator import TissueSettings
    from gracr.domains.tissue.image import image_graph_json

    model = _model(family, TissueSettings.for_cells(40).side_um)
    graphs = [image_graph_json(g) if family == "cnn" else g for g in samples]
    return [Subject.of_trained(model, Graph.from_json(g), level="node") for g in graphs]


def _seeds(count: int) -> list[int]:
    return [explainer_seed(0, index) for index in range(count)]


def _close(alone: Sequence[Tensor], together: Sequence[Tensor]) -> bool:
    return len(alone) == len(together) and all(
        a.shape == b.shape and bool((a - b).abs().max() <= TOLERANCE * a.abs().max())
        for a, b in zip(alone, together))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("name,settings", RUNS, ids=[run[0] for run in RUNS])
def test_each_sample_gets_its_own_scores_in_a_batch(
        samples: list[dict[str, Any]], family: str, name: str,
        settings: dict[str, Any] | None) -> None:
    subjects = _subjects(family, samples)
    seeds = _seeds(len(subjects))
    assert all(batches(name, subject) for subject in subjects)
    alone = [scores(name, s, settings, seed) for s, seed in zip(subjects, seeds)]
    together = scores_together(name, subjects, settings, seeds)
    assert _close(alone, together), (family, name)
    # The check can fail: the scores of two samples in each other's places do not pass.
    swapped = [together[1], together[0], *together[2:]]
    assert not _close(alone, swapped)
    if name == "GNNExplainer":
        # The masks moved off their start (σ(5 + noise)), and each sample's start is
        # drawn from its own seed: another seed's masks do not pass.
        start = torch.sigmoid(torch.tensor(5.0)).item()
        assert max(float((t - start).abs().max()) for t in together) > 1e-3
        assert not _close(alone, scores_together(name, subjects, settings, seeds[::-1]))


def test_ig_mean_starts_from_the_mean_not_from_zero(samples: list[dict[str, Any]]) -> None:
    """IG-mean's batch path uses its own baseline: its scores are not IG's."""
    subjects = _subjects("gin", samples)
    seeds = _seeds(len(subjects))
    settings = {"n_steps": 12}
    ig = scores_together("IG", subjects, settings, seeds)
    mean = scores_together("IG-mean", subjects, settings, seeds)
    assert not _close(ig, mean)


def test_the_study_loop_records_the_same_scores_in_batches(
        samples: list[dict[str, Any]]) -> None:
    """`explain_each` as a study job runs it (unscored): batched or not, each sample's
    outcome holds its scores; batched ones say by how many."""
    subjects = _subjects("gatv2", samples)
    seeds = _seeds(len(subjects))

    def outcomes(batch: int) -> list[Any]:
        return [outcome for _, outcome in explain_each(
            range(len(subjects)), "IG-mean", {"n_steps": 8}, 60.0,
            subject_of=lambda i: subjects[i], upi_of=lambda i: None,
            seed_of=lambda i: seeds[i], scored=False, batch=batch)]

    alone, together = outcomes(1), outcomes(3)
    assert [o.status for o in together] == ["ok"] * len(subjects)
    assert [o.batched for o in alone] == [1] * len(subjects)
    assert [o.batched for o in together] == [3, 3, 3, 1]
    assert _close([torch.as_tensor(o.scores) for o in alone],
                  [torch.as_tensor(o.scores) for o in together])


@pytest.mark.parametrize("family", ("gin", "gatv2", "cnn"))
def test_in_float64_the_batch_path_is_exact(samples: list[dict[str, Any]],
                                            family: str) -> None:
    """With the model and the features in float64 the two paths agree to 1e-12 of the
    largest score: what separates them in float32 is rounding, not arithmetic."""
    from dataclasses import replace

    model = _model(family, 400.0)
    double = TrainedModel(family, model.module.double(), Kind.GRAPH, 2, separable=True)
    subjects = [replace(s, model=double, x=s.x.double(), modules={},
                        edge_attr=None if s.edge_attr is None else s.edge_attr.double())
                for s in _subjects(family, samples)]
    seeds = _seeds(len(subjects))
    for name, settings in RUNS:
        alone = [scores(name, s, settings, seed) for s, seed in zip(subjects, seeds)]
        together = scores_together(name, subjects, settings, seeds)
        assert all(float((a - b).abs().max()) <= 1e-12 * float(a.abs().max())
                   for a, b in zip(alone, together)), (family, name)


# ---------------------------------------------------------------- what is refused


class _CentredGIN(nn.Module):
    """A GIN-like model that centres the node features over every node it is given
    before its layers: on a union, the mean is the union's, so a graph's output depends on
    the others. Not separable, and it says so by default."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.Linear(6, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None,
                batch: Tensor | None = None) -> Tensor:
        from torch_geometric.nn import global_add_pool

        h = torch.tanh(self.layer(x - x.mean(dim=0)))
        h = h + global_add_pool(h[edge_index[0]], edge_index[1], x.shape[0])
        if batch is None:
            batch = torch.zeros(x.shape[0], dtype=torch.long)
        result: Tensor = self.head(global_add_pool(h, batch))
        return result


def _as(model: TrainedModel, samples: Sequence[dict[str, Any]]) -> list[Subject]:
    return [Subject.of_trained(model, Graph.from_json(g), level="node") for g in samples]


def test_a_model_that_mixes_the_graphs_of_a_union_is_refused(
        samples: list[dict[str, Any]]) -> None:
    centred = TrainedModel("centred", _CentredGIN().eval(), Kind.GRAPH, 1)
    subjects = _as(centred, samples)
    assert not any(separable_graph_nodes(s) for s in subjects)
    for name, _ in RUNS:
        assert not batches(name, subjects[0]), name
    with pytest.raises(GracrError, match="in a batch"):
        scores_together("Saliency", subjects, None, _seeds(len(subjects)))
    # Why: forced through the batch path anyway, its scores are not each graph's own.
    alone = [scores("Saliency", s, None, 0) for s in subjects]
    forced = [Tensor(e.node_mask).abs().sum(dim=1).double() for e in
              node_attribution_together(subjects, "Saliency", "surrogate", {"abs": True})]
    assert not _close(alone, forced)
    # Declared separable, it would be batched: the declaration is what the check reads.
    declared = TrainedModel("centred", centred.module, Kind.GRAPH, 1, separable=True)
    assert separable_graph_nodes(_as(declared, samples)[0])


def test_a_separable_model_in_training_mode_is_refused(samples: list[dict[str, Any]]) -> None:
    from gracr.domains.tissue.trained import explained

    model = _model("gin", 400.0)
    assert separable_graph_nodes(_as(model, samples)[0])
    training = explained(_model("gin", 400.0).module.train(), "gin")
    assert not batches("IG", _as(training, samples)[0])
    # One layer in training mode is enough (batch norm would read the union's statistics).
    partly = _model("gin", 400.0)
    partly.module.convs[1].train()
    assert not batches("GNNExplainer", _as(partly, samples)[0])


def test_what_is_not_separable_stays_one_at_a_time(samples: list[dict[str, Any]]) -> None:
    import gracr.domains.tissue.explainers  # noqa: F401
    from gracr.domains.tissue.baselines import BASELINE_NAMES

    gin = _subjects("gin", samples)[0]
    gatv2 = _subjects("gatv2", samples)[0]
    # GraphSVX's Shapley estimate, GATv2's attention rollout and the model-free baselines
    # have no batch path.
    for name in ("GraphSVX", "AttentionRollout", *BASELINE_NAMES):
        assert not batches(name, gatv2), name
    # Edge scores and node-task models are explained one at a time.
    edge_level = Subject.of_trained(gin.model, gin.graph, level="edge")  # type: ignore[arg-type]
    assert not batches("Saliency", edge_level) and not batches("GNNExplainer", edge_level)
    node_task = TrainedModel("gin-nodes", gin.model.module, Kind.NODE, 2, separable=True)
    assert not batches("IG", Subject.of_trained(node_task, gin.graph, 0,  # type: ignore[arg-type]
                                                level="node"))


def test_tissue_study_batches_by_default() -> None:
    from gracr.cli import build_parser
    from gracr.domains.tissue.study_names import BATCH

    parser = build_parser()
    study = ["tissue-study", "--out", "unused"]
    assert parser.parse_args(study).batch == BATCH > 1
    assert parser.parse_args([*study, "--batch", "1"]).batch == 1
    with pytest.raises(SystemExit):
        parser.parse_args([*study, "--batch", "0"])


# ---------------------------------------------------------------- the study


@pytest.mark.big
def test_a_study_explained_one_at_a_time_resumes_in_batches(tmp_path: Any) -> None:
    """A study folder explained one at a time, resumed with more samples in batches, holds
    the records of a study explained one at a time throughout: the same keys, and scores
    within 1e-3 of each sample's largest: a trained model's scores can be small beside
    the gradients they are summed from (the CNN's IG-mean here: scores of 1e-3, float32
    rounding of 3e-7 in them, 2e-4 relative), and `test_in_float64_the_batch_path_is_exact`
    shows that what separates the paths is rounding. Another sample's scores, or another
    seed's masks, differ by far more."""
    from dataclasses import replace

    from gracr.bench.record import read_records
    from gracr.bench.study import Execution
    from gracr.domains.tissue.phases import StudySettings
    from gracr.domains.tissue.study import TissueStudy
    from gracr.domains.tissue.trained import TrainingSettings

    first = StudySettings(samples=30, cells=60, seed=7, ratios=(1.0,), model_seeds=(0,),
                          test_limit=1, explainers=("Saliency", "IG-mean", "GNNExplainer"),
                          epochs=(5,), budget=60.0, hidden=8, layers=2,
                          training=TrainingSettings(max_epochs=3, patience=2, batch_size=8))
    more = replace(first, test_limit=3)

    def run(folder: Any, settings: StudySettings, batch: int) -> None:
        TissueStudy(folder, settings, Execution(progress=False, batch=batch)).run()

    def records(folder: Any) -> dict[tuple[Any, ...], Any]:
        return {r.key: r for r in read_records(folder / "attributions" / "results.jsonl")
                if r.status == "ok"}

    run(tmp_path / "alone", more, 1)
    run(tmp_path / "resumed", first, 1)
    run(tmp_path / "resumed", more, 3)
    alone, resumed = records(tmp_path / "alone"), records(tmp_path / "resumed")
    assert set(resumed) == set(alone)
    assert any(r.extra.get("batched", 1) > 1 for r in resumed.values())
    assert not any(r.extra.get("batched", 1) > 1 for r in alone.values())
    for key, record in resumed.items():
        a = np.asarray(alone[key].extra["scores"])
        b = np.asarray(record.extra["scores"])
        assert a.shape == b.shape and np.abs(a - b).max() <= 1e-3 * np.abs(a).max(), key
