"""The batch path of the explainers (`ExplainerSpec.batch`, `scores_together`) and of the
per-instance loop (`explain_each(..., batch=B)`): on compiled graph classifiers at node
level, explaining several molecules as one disjoint union gives each molecule the scores it
gets alone, and the runner's records are the same but for their cost and `batched`.

Tolerance: the gradient methods' and Rnd's scores are compared at 1e-5 relative (float32;
they agree bit for bit on these molecules today, but the union's sums may be reordered by
another torch); GNNExplainer's masks at 1e-5 relative as well: each graph's mask starts from
its own generator seeded as the per-instance path seeds the global one, and Adam is
elementwise, so only rounding separates the two (one float32 ulp after 100 epochs here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest
import torch
from torch_geometric.explain import Explanation

import gracr
from gracr.bench.budget import explain_each
from gracr.bench.runner import Pending, plan_chunks, plan_jobs, run
from gracr.errors import GracrError
from gracr.explainers import EXPLAINERS, ExplainerSpec, Subject, register
from gracr.explainers.base import Batch, explainer_seed, scores
from gracr.explainers.batch import batches, scores_together

RTOL = 1e-5
# Molecules: for each pattern below, some match it and some do not, so that a batch mixes
# graphs whose target class differs (p, or 1 - p for a negative).
MOLECULES = ("CC(C)C(C)C", "CC(C)CC=O", "CCOC(=O)C", "O=Cc1ccccc1", "CC(=O)NC(C)C(Cl)(Cl)Cl",
             "CCCC", "OCC(O)C(O)CO")
# WOMBAT patterns (number, readout): r1 = max, r2 = soft-or, and our threshold readout.
PATTERNS = ((6, "max"), (6, "soft-or"), (12, "threshold"), (12, "soft-or"), (1, "max"))
SEPARABLE = ("Saliency", "InputXGradient", "IG", "Rnd")
# Small enough for a test, large enough that the masks move off their start.
GNN_SETTINGS = {"epochs": 30}


def _subjects(number: int, readout: str) -> list[Subject]:
    from gracr.domains.chem.molecules import read_smiles
    from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path
    from gracr.executor.model import compile_program

    pattern = next(p for p in WOMBAT_PATTERNS if p.number == number)
    program = gracr.parse(wombat_formula_path(pattern).read_text())
    model = compile_program(program, presence=True, readout=readout)  # type: ignore[arg-type]
    modules: dict[str, Any] = {}
    return [Subject.of(model, program, read_smiles(smiles).graph, None, modules, level="node")
            for smiles in MOLECULES]


@pytest.fixture(scope="module", params=PATTERNS, ids=lambda p: f"P{p[0]:02d}-{p[1]}")
def subjects(request: pytest.FixtureRequest) -> list[Subject]:
    number, readout = request.param
    made = _subjects(number, readout)
    predictions = [s.prediction >= 0.5 for s in made]
    assert any(predictions) and not all(predictions), "a batch of both classes"
    return made


def _seeds(count: int) -> list[int]:
    return [explainer_seed(0, index) for index in range(count)]


def _close(alone: Sequence[torch.Tensor], together: Sequence[torch.Tensor]) -> bool:
    return len(alone) == len(together) and all(
        a.shape == b.shape and torch.allclose(b, a, rtol=RTOL, atol=0.0)
        for a, b in zip(alone, together))


@pytest.mark.parametrize("name", SEPARABLE)
def test_separable_explainers_give_each_graph_its_own_scores(
        subjects: list[Subject], name: str) -> None:
    settings = {"n_steps": 12} if name == "IG" else None
    seeds = _seeds(len(subjects))
    assert all(batches(name, s) for s in subjects)
    alone = [scores(name, s, settings, seed) for s, seed in zip(subjects, seeds)]
    together = scores_together(name, subjects, settings, seeds)
    assert _close(alone, together), name
    # The check can fail: two molecules of one size whose scores differ, in each other's
    # places (a wrong grouping of the union's nodes), do not pass.
    for i, j in _differing_pairs(alone)[:1]:
        swapped = list(together)
        swapped[i], swapped[j] = together[j], together[i]
        assert not _close(alone, swapped)


def test_the_scores_compared_are_informative() -> None:
    """Where the surrogate gradient is not 0 everywhere (the threshold readout of P12),
    the gradient methods' scores differ between molecules: the swap check above bites."""
    subjects = _subjects(12, "threshold")
    for name in SEPARABLE:
        alone = [scores(name, s, None, seed) for s, seed in zip(subjects, _seeds(7))]
        assert _differing_pairs(alone), name


def _differing_pairs(values: Sequence[torch.Tensor]) -> list[tuple[int, int]]:
    return [(i, j) for i in range(len(values)) for j in range(i + 1, len(values))
            if values[i].shape == values[j].shape and not torch.allclose(values[i], values[j])]


def test_ig_cut_into_several_calls_gives_the_same_scores(
        subjects: list[Subject], monkeypatch: pytest.MonkeyPatch) -> None:
    """IG's union is cut into calls of about `IG_UNION_NODES` nodes: cut after every
    molecule, or never, the scores are the same."""
    from gracr.explainers import batch

    settings = {"n_steps": 5}
    seeds = _seeds(len(subjects))
    alone = [scores("IG", s, settings, seed) for s, seed in zip(subjects, seeds)]
    for limit in (1, 10**9):
        monkeypatch.setattr(batch, "IG_UNION_NODES", limit)
        assert _close(alone, scores_together("IG", subjects, settings, seeds)), limit


def test_gnn_explainer_masks_follow_each_graph_own_trajectory(
        subjects: list[Subject]) -> None:
    seeds = _seeds(len(subjects))
    alone = [scores("GNNExplainer", s, GNN_SETTINGS, seed) for s, seed in zip(subjects, seeds)]
    together = scores_together("GNNExplainer", subjects, GNN_SETTINGS, seeds)
    assert _close(alone, together)
    # The masks moved off their start (σ(5 + noise)), or the test would show little.
    start = torch.sigmoid(torch.tensor(5.0)).item()
    assert max(float((t - start).abs().max()) for t in together) > 1e-3
    # The check can fail: each graph's start is drawn from its own seed.
    shuffled = scores_together("GNNExplainer", subjects, GNN_SETTINGS, seeds[::-1])
    assert not _close(alone, shuffled)


def test_gnn_explainer_batch_runs_pyg_objective_in_full() -> None:
    """The default settings (100 epochs, PyG's coefficients)."""
    subjects = _subjects(6, "max")
    seeds = _seeds(len(subjects))
    alone = [scores("GNNExplainer", s, None, seed) for s, seed in zip(subjects, seeds)]
    assert _close(alone, scores_together("GNNExplainer", subjects, None, seeds))


def test_subjects_outside_the_batch_path_are_refused() -> None:
    subjects = _subjects(12, "max")
    edge_level = Subject.of(subjects[0].compiled, None, subjects[0].graph,  # type: ignore[arg-type]
                            None, level="edge")
    assert not batches("Saliency", edge_level) and not batches("GNNExplainer", edge_level)
    assert not batches("GNNExplainer-hard", subjects[0])   # PyG's hard mask: alone
    assert not batches("ShapleySampling", subjects[0])
    with pytest.raises(GracrError, match="in a batch"):
        scores_together("Saliency", [subjects[0], edge_level], None, [0, 1])
    other = _subjects(12, "max")
    with pytest.raises(GracrError, match="one model"):
        scores_together("Saliency", [subjects[0], other[1]], None, [0, 1])


# ---------------------------------------------------------------- the per-instance loop


def _outcomes(subjects: list[Subject], name: str, batch: int, budget: float | None = 60.0,
              settings: Any = None) -> list[Any]:
    seeds = _seeds(len(subjects))
    return [outcome for _, outcome in explain_each(
        range(len(subjects)), name, settings, budget, subject_of=lambda i: subjects[i],
        upi_of=lambda i: None, seed_of=lambda i: seeds[i], scored=False, batch=batch)]


@pytest.mark.parametrize("batch", [2, 3, 32])
def test_explain_each_in_batches_gives_each_instance_its_outcome(batch: int) -> None:
    subjects = _subjects(12, "soft-or")
    alone = _outcomes(subjects, "Saliency", 1)
    together = _outcomes(subjects, "Saliency", batch)
    assert [o.status for o in together] == ["ok"] * len(subjects)
    assert _close([torch.as_tensor(o.scores) for o in alone],
                  [torch.as_tensor(o.scores) for o in together])
    assert all(o.batched == 1 for o in alone)
    # Batches of `batch` in order, the last one what is left.
    sizes = [min(batch, len(subjects) - start) for start in range(0, len(subjects), batch)]
    assert [o.batched for o in together] == [s for s in sizes for _ in range(s)]


@pytest.fixture
def spinning() -> Iterator[str]:
    """An explainer whose batch path never ends (its budget stops it)."""
    def alone(subject: Subject, settings: Any, seed: int) -> Explanation:
        return Explanation(node_mask=torch.ones(subject.num_nodes))

    def spin(subjects: Sequence[Subject], settings: Any, seeds: Sequence[int]
             ) -> list[Explanation]:
        while True:
            pass

    register(ExplainerSpec("SpinTogether", alone, {}, levels=frozenset({"node"}),
                           batch=Batch(spin, lambda subject: True)))
    yield "SpinTogether"
    del EXPLAINERS["SpinTogether"]


def test_a_batch_over_its_budget_makes_each_of_its_instances_oot(spinning: str) -> None:
    subjects = _subjects(12, "max")
    outcomes = _outcomes(subjects, spinning, 3, budget=0.05)
    # App. H's rule on the batch: its three instances out of time, and the loop stops.
    assert [o.status for o in outcomes] == ["oot"] * 3
    assert [o.batched for o in outcomes] == [3] * 3


@pytest.fixture
def crashing() -> Iterator[str]:
    """An explainer that fails on three-atom molecules only, alone or in a batch."""
    def alone(subject: Subject, settings: Any, seed: int) -> Explanation:
        if subject.num_nodes == 3:
            raise RuntimeError("three atoms")
        return Explanation(node_mask=torch.ones(subject.num_nodes))

    def together(subjects: Sequence[Subject], settings: Any, seeds: Sequence[int]
                 ) -> list[Explanation]:
        return [alone(subject, settings, seed) for subject, seed in zip(subjects, seeds)]

    register(ExplainerSpec("CrashTogether", alone, {}, levels=frozenset({"node"}),
                           batch=Batch(together, lambda subject: True)))
    yield "CrashTogether"
    del EXPLAINERS["CrashTogether"]


def test_a_crash_in_a_batch_is_the_record_of_its_instance(crashing: str) -> None:
    from gracr.domains.chem.molecules import read_smiles

    subjects = _subjects(12, "max")
    small = Subject.of(subjects[0].compiled, None, read_smiles("CC=O").graph, None,  # type: ignore[arg-type]
                       subjects[0].modules, level="node")
    mixed = [subjects[0], small, subjects[1]]
    outcomes = _outcomes(mixed, crashing, 3)
    assert [o.status for o in outcomes] == ["ok", "error", "ok"]
    assert "three atoms" in (outcomes[1].error or "")


# ---------------------------------------------------------------- the runner's records


def _records(results: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    records = [json.loads(line) for line in results.read_text().splitlines()]
    return {(r["explainer"], r["sample"], r["instance"]): r for r in records if "task" in r}


def test_runner_records_are_the_same_in_batches(tmp_path: Path) -> None:
    """A node-level run of a graph task, one instance at a time and in batches of 4: the
    same records (keys, status, metrics within the tolerance) but `batched` and the cost."""
    datasets = str(tmp_path / "datasets")
    names = ["Saliency", "IG", "Rnd", "GNNExplainer"]
    common = dict(settings="default", level="node", negatives=3,
                  overrides={"GNNExplainer": GNN_SETTINGS, "IG": {"n_steps": 8}})
    one = run(plan_jobs(["Redundancy"], ["main"], names, [0], 6, 60.0, {"Redundancy": 12},
                        datasets, **common), str(tmp_path / "one"), progress=False)
    jobs = plan_jobs(["Redundancy"], ["main"], names, [0], 6, 60.0, {"Redundancy": 12},
                     datasets, batch=4, **common)
    assert {job.batch for job in jobs} == {4}
    four = run(jobs, str(tmp_path / "four"), progress=False)
    alone, together = _records(one), _records(four)
    assert alone.keys() == together.keys() and len(alone) == 4 * (6 + 3)
    for key, record in alone.items():
        other = together[key]
        assert record["status"] == other["status"] == "ok", (key, other.get("error"))
        assert set(other) - set(record) == {"batched"}, key
        # The 6 positives in batches of 4 and 2, the 3 negatives in one.
        assert other["batched"] == (3 if key[1] == "negative" else 4 if key[2] < 4 else 2)
        for field, value in record.items():
            if field in ("cpu_seconds", "wall_seconds"):
                continue
            if isinstance(value, float):
                assert other[field] == pytest.approx(value, rel=RTOL), (key, field)
            else:
                assert other[field] == value, (key, field)


def test_chunks_of_a_batching_job_hold_whole_batches(tmp_path: Path) -> None:
    from gracr.bench.datasets import load_or_build
    from gracr.bench.instances import positive_instances

    datasets = str(tmp_path / "datasets")
    dataset = load_or_build("Redundancy", 0, 60, datasets)
    count = len(list(positive_instances(dataset)))
    assert count >= 24
    for explainer, batch in (("Saliency", 8), ("Saliency", 1), ("ShapleySampling", 8)):
        (job,) = plan_jobs(["Redundancy"], ["main"], [explainer], [0], count, 60.0,
                           {"Redundancy": 60}, datasets, settings="default", level="node",
                           batch=batch)
        chunks = plan_chunks([Pending(job, frozenset(), tuple(range(count)))],
                             {("dataset", "Redundancy", 0, 60, datasets): dataset}, 2)
        sizes = [chunk.job.limit - chunk.job.start for chunk in chunks]
        assert sum(sizes) == count and len(sizes) > 1
        whole = batch if explainer != "ShapleySampling" else 1
        assert all(size % whole == 0 for size in sizes[:-1]), (explainer, batch, sizes)
        if whole == 1:
            assert sizes[-1] == 1   # the run still ends on single instances


def test_plan_jobs_refuses_a_batch_below_one(tmp_path: Path) -> None:
    with pytest.raises(GracrError, match="--batch"):
        plan_jobs(["Redundancy"], ["main"], ["Saliency"], [0], 3, 60.0, {"Redundancy": 12},
                  str(tmp_path), batch=0)


# ---------------------------------------------------------------- the commands


def test_wombat_study_batches_by_default_and_bench_does_not() -> None:
    from gracr.bench.budget import DEFAULT_BATCH
    from gracr.cli import build_parser

    parser = build_parser()
    study = ["wombat-study", "--out", "unused"]
    assert parser.parse_args(study).batch == DEFAULT_BATCH > 1
    assert parser.parse_args([*study, "--batch", "1"]).batch == 1
    assert parser.parse_args(["bench", "--out", "unused"]).batch == 1
    with pytest.raises(SystemExit):
        parser.parse_args([*study, "--batch", "0"])


def test_a_study_plans_its_jobs_with_the_execution_batch(tmp_path: Path) -> None:
    from gracr.bench.benchmark import BenchmarkSettings
    from gracr.bench.study import Execution
    from gracr.domains.paper.study import PaperStudy

    settings = BenchmarkSettings(tasks=["Redundancy"], explainers=["Saliency"], seeds=[0],
                                 limit=2, level="node", settings="default",
                                 datasets=str(tmp_path), graphs=12)
    jobs = PaperStudy(tmp_path / "out", settings, Execution(batch=7)).jobs
    assert jobs and {job.batch for job in jobs} == {7}
