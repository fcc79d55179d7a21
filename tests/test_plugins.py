"""Explainers of one's own: plugins (files, modules, entry points) seen by every worker, node
scores and node-level ground truth, PyG `ExplainerAlgorithm`s registered directly (trained
ones too), and error records retried by a rerun."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch_geometric.explain import Explanation
from torch_geometric.explain.algorithm import ExplainerAlgorithm, PGExplainer
from torch_geometric.explain.config import MaskType

import gracr
import gracr.bench
from gracr.bench.datasets import load_or_build
from gracr.explainers import (EXPLAINERS, ExplainerSpec, Subject, edge_scores, register,
                                    register_algorithm, scores)
from gracr.bench.instances import (NODE_UPI_FILE, compile_variant, first_subjects, ground_truth,
                                   positive_instances, variant_named)
from gracr.explainers.metric import plausibility
from gracr.bench.record import Record, read_records, record_objects
from gracr.bench.report import load_results
from gracr.bench import runner
from gracr.bench.runner import plan_jobs, read_done, run
from gracr.bench.tasks import TASKS
from gracr.bench.tuning import HELD_OUT_SEED, store, tune
from gracr.cli import main
from gracr.errors import GracrError
from tiny_models import graph_subject, node_subject

ROOT = Path(__file__).resolve().parent.parent
SIZES: dict[str, int | None] = {"Redundancy": 8, "Majority1Hop": 3}


def gracrc(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`gracrc ARGS` in a process of its own: its spawned workers import the plugins
    themselves, and this test process's registry is left alone."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-m", "gracr.cli", *args], cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True,
                          timeout=900)


@pytest.fixture
def forget() -> Iterator[list[str]]:
    """Names to take out of the registry after the test (other tests count what ships); a
    name that gracr ships (PGExplainer) gets its shipped spec back."""
    shipped = dict(EXPLAINERS)
    names: list[str] = []
    yield names
    for name in names:
        if name in shipped:
            EXPLAINERS[name] = shipped[name]
        else:
            EXPLAINERS.pop(name, None)


def _jobs(tmp_path: Path, explainers: list[str], tasks: tuple[str, ...] = ("Redundancy",),
          limit: int = 2, level: Any = "edge") -> Any:
    return plan_jobs(list(tasks), ["main"], explainers, [0], limit, 60.0, SIZES,
                     str(tmp_path / "datasets"), settings="default", level=level)


def _records(folder: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in record_objects(folder / "results.jsonl")]


# ---------------------------------------------------------------- plugins and workers


# Scores every edge of the receptive field 1 and the others 0, and notes which process
# explained: the parent (where the plugin is first imported) must not be one of them.
RECEPTIVE_FIELD_PLUGIN = '''
import multiprocessing
import os

import torch
from torch_geometric.explain import Explanation

from gracr.explainers import ExplainerSpec, register

if multiprocessing.parent_process() is None:
    with open("parent.pid", "w") as handle:
        handle.write(str(os.getpid()))


def field(subject, settings, seed):
    with open("explained.pids", "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    return Explanation(edge_mask=torch.as_tensor(subject.receptive_field, dtype=torch.float64))


register(ExplainerSpec("Field", field, {}))
'''


@pytest.mark.big
def test_a_plugin_file_is_seen_by_every_worker_of_gracrc_bench(tmp_path: Path) -> None:
    (tmp_path / "field_plugin.py").write_text(RECEPTIVE_FIELD_PLUGIN)
    done = gracrc("bench", "--plugin", "field_plugin.py", "--tasks", "Redundancy,Majority1Hop",
                  "--explainers", "Field", "--seeds", "0", "--limit", "2", "--graphs", "8",
                  "--targets", "3", "--jobs", "2", "--out", "out", "--datasets", "datasets",
                  "--quiet", "--no-report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = _records(tmp_path / "out")
    assert len(records) == 4 and {r["status"] for r in records} == {"ok"}
    parent = (tmp_path / "parent.pid").read_text()
    workers = set((tmp_path / "explained.pids").read_text().split())
    # A spawned worker, which knows Field only from the plugin, explained some (the run's
    # own process explains beside its pool).
    assert workers - {parent}
    # The score is the receptive field's F1 against the stored UPI, computed here apart.
    for record in records:
        dataset = load_or_build(record["task"], 0, SIZES[record["task"]],
                                str(tmp_path / "datasets"), progress=False)
        instance = list(positive_instances(dataset))[record["instance"]]
        graph = dataset.instances[instance.graph].graph
        field = gracr.receptive_field(TASKS[record["task"]].program(), graph, instance.target)
        assert (record["graph"], record["target"]) == (instance.graph, instance.target)
        assert record["f1"] == plausibility(field.astype(float), instance.upi).f1


PARENT_ONLY_PLUGIN = textwrap.dedent('''
    import multiprocessing
    import os
    import torch
    from torch_geometric.explain import Explanation
    from gracr.explainers import ExplainerSpec, register

    def parent_only(subject, settings, seed):
        with open("explained.pids", "a") as handle:
            handle.write(f"{os.getpid()}\\n")
        return Explanation(edge_mask=torch.zeros(subject.num_edges))

    # Registers only where it is first imported: a spawned worker never sees it.
    if multiprocessing.parent_process() is None:
        with open("parent.pid", "w") as handle:
            handle.write(str(os.getpid()))
        register(ExplainerSpec("ParentOnly", parent_only, {}))
    ''')


@pytest.mark.big
@pytest.mark.skipif(runner.START_METHOD != "fork", reason="workers are forked on Linux only")
def test_a_forked_worker_knows_an_explainer_registered_in_the_parent_only(tmp_path: Path
                                                                         ) -> None:
    (tmp_path / "parent_only.py").write_text(PARENT_ONLY_PLUGIN)
    done = gracrc("bench", "--plugin", "parent_only.py", "--tasks", "Redundancy",
                  "--explainers", "ParentOnly", "--seeds", "0,1", "--limit", "3", "--graphs", "8",
                  "--jobs", "2", "--out", "out", "--datasets", "datasets", "--quiet",
                  "--no-report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = _records(tmp_path / "out")
    assert len(records) == 6 and {r["status"] for r in records} == {"ok"}
    # Both processes explained: the run's own and its forked worker, which never imported
    # the plugin itself (`parent.pid` is written where it is imported: once).
    pids = (tmp_path / "explained.pids").read_text().split()
    assert len(set(pids)) == 2 and (tmp_path / "parent.pid").read_text() in pids


@pytest.mark.big
def test_a_spawned_worker_that_cannot_find_the_explainer_fails_the_run(
        tmp_path: Path, forget: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # The finding: from Python with 2 spawned workers every instance became an
    # error record. Spawned is how workers start off Linux (and how Ray's do).
    monkeypatch.setattr(runner, "START_METHOD", "spawn")
    register(ExplainerSpec("InThisProcess", lambda s, c, seed: Explanation(edge_mask=torch.zeros(s.num_edges)), {}))
    forget.append("InThisProcess")
    with pytest.raises(GracrError, match="'InThisProcess' is not registered in the worker"):
        run(_jobs(tmp_path, ["InThisProcess"]), str(tmp_path / "out"), workers=2,
            progress=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("plugin, source, message", [
    ("missing.py", None, "--plugin missing.py: no such file"),
    ("no_such_module_for_gracr", None, "--plugin no_such_module_for_gracr: no module named"),
    ("broken.py", "1 / 0\n", "--plugin broken.py: cannot import it (ZeroDivisionError"),
    ("needs.py", "import no_such_dependency_for_gracr\n",
     "--plugin needs.py: cannot import it (ModuleNotFoundError"),
])
@pytest.mark.parametrize("command", ["bench", "tune", "fuzz", "ablate"])
def test_a_bad_plugin_is_a_message_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             plugin: str, source: str | None, message: str,
                                             command: str) -> None:
    monkeypatch.chdir(tmp_path)
    if source is not None:
        (tmp_path / plugin).write_text(source)
    argv = {"bench": ["bench", "--tasks", "Redundancy", "--out", "o"], "tune": ["tune"],
            "fuzz": ["fuzz"], "ablate": ["ablate", "table10", "--out", "o"]}[command]
    err = io.StringIO()
    assert main([*argv, "--plugin", plugin], out=io.StringIO(), err=err) == 2
    assert err.getvalue().startswith(f"gracrc: error: {message}")
    assert "Traceback" not in err.getvalue()


@pytest.mark.big
def test_entry_points_of_the_group_gracr_explainers_register(tmp_path: Path) -> None:
    (tmp_path / "gracr_entry_demo.py").write_text(textwrap.dedent('''
        import torch
        from gracr.explainers import ExplainerSpec, register
        register(ExplainerSpec("FromEntryPoint", lambda s, c, seed: Explanation(edge_mask=torch.zeros(s.num_edges)), {}))
        '''))
    info = tmp_path / "gracr_entry_demo-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gracr-entry-demo\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gracr.explainers]\ndemo = gracr_entry_demo\n")
    path = os.pathsep.join([str(ROOT), str(tmp_path)])
    probe = ("from gracr.explainers import EXPLAINERS, explainer_named, load_plugins\n"
             "assert 'FromEntryPoint' not in EXPLAINERS\n"
             "print(explainer_named('FromEntryPoint').name)\n")
    done = subprocess.run([sys.executable, "-c", probe], env=dict(os.environ, PYTHONPATH=path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "FromEntryPoint"
    (info / "entry_points.txt").write_text("[gracr.explainers]\ndemo = gracr_entry_missing\n")
    done = subprocess.run([sys.executable, "-m", "gracr.cli", "bench", "--tasks", "Redundancy",
                           "--out", "o"],
                          env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 2
    assert ("gracrc: error: explainer plugin 'demo' (gracr_entry_missing, entry point group "
            "gracr.explainers) cannot be loaded") in done.stderr


def test_the_plugin_api_is_reachable_from_gracr_explainers() -> None:
    import gracr.explainers

    assert gracr.explainers.register_algorithm is register_algorithm
    assert gracr.explainers.register is register
    assert gracr.explainers.ExplainerSpec is ExplainerSpec
    with pytest.raises(AttributeError):
        gracr.explainers.no_such_name  # noqa: B018


# ---------------------------------------------------------------- node scores and levels


def test_asking_edge_scores_of_a_node_only_explainer_fails_before_the_run(
        tmp_path: Path, forget: list[str]) -> None:
    # Edge-only explainers are scored at node level from their edge scores, so only the
    # other way round is refused: a node-only explainer asked for edge scores.
    assert len(_jobs(tmp_path, ["Rnd", "LRP"], level="node")) == 2
    register(ExplainerSpec("NodeOnly", lambda s, c, seed: Explanation(
        node_mask=torch.zeros(s.num_nodes)), {}, levels=("node",)))
    forget.append("NodeOnly")
    with pytest.raises(GracrError, match="NodeOnly gives node scores only; score it with "
                                         "--level node"):
        _jobs(tmp_path, ["Rnd", "NodeOnly"], level="edge")
    err = io.StringIO()
    code = main(["bench", "--tasks", "Redundancy", "--explainers", "NodeOnly", "--level", "edge",
                 "--seeds", "0", "--graphs", "8", "--datasets", str(tmp_path / "d"),
                 "--out", str(tmp_path / "o"), "--quiet"], out=io.StringIO(), err=err)
    assert code == 2 and "gracrc: error: NodeOnly gives node scores only" in err.getvalue()
    assert not (tmp_path / "o").exists()            # before anything ran


def test_a_function_explainer_may_return_an_explanation_with_either_mask(forget: list[str]
                                                                         ) -> None:
    def both(subject: Subject, settings: Any, seed: int) -> Explanation:
        return Explanation(edge_mask=torch.arange(float(subject.num_edges)),
                           node_mask=torch.arange(float(subject.num_nodes)).view(-1, 1))

    register(ExplainerSpec("Both", both, {}, levels=("edge", "node")))
    register(ExplainerSpec("EdgesOnly", lambda s, c, seed: Explanation(
        edge_mask=torch.ones(s.num_edges)), {}, levels=("edge", "node")))
    forget.extend(["Both", "EdgesOnly"])
    subject = node_subject()
    assert edge_scores("Both", subject).tolist() == [0.0, 1.0, 2.0]
    assert scores("Both", replace(subject, level="node")).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(GracrError, match="EdgesOnly returned an explanation without a "
                                         "node_mask where node scores were asked"):
        scores("EdgesOnly", replace(subject, level="node"))
    with pytest.raises(GracrError, match="levels must be some of edge, node"):
        ExplainerSpec("Bad", both, {}, levels=("edges",))


def test_integrated_gradients_and_rnd_give_node_scores() -> None:
    # `<> red` at node 0: its node UPI is the red neighbour 1; IG of the features finds it
    # alone (node 2 is blue: IG's path from all-zero features never makes it red).
    for make, expected in ((node_subject, [0.0, 1.0, 0.0, 0.0]),
                           (graph_subject, [0.5, 0.5, 0.0, 0.0, 0.0])):
        subject = replace(make(), level="node")
        assert scores("IG", subject).numpy() == pytest.approx(expected, abs=1e-6)
    subject = replace(node_subject(), level="node")
    assert subject.node_receptive_field is not None
    assert subject.node_receptive_field.tolist() == [False, True, True, False]
    for seed in range(8):
        assert scores("Rnd", subject, seed=seed).numpy()[[0, 3]].tolist() == [0.0, 0.0]


def test_node_level_scoring_leaves_the_explained_node_out() -> None:
    from gracr.explainers.metric import plausibility_at

    upi = np.array([False, True, False, False])        # node 0 is the target, never in it
    credits_target = np.array([5.0, 1.0, 0.0, 0.0])
    assert plausibility(credits_target, upi).f1 < 1.0
    assert plausibility_at("node", credits_target, upi, target=0).f1 == 1.0
    assert plausibility_at("node", credits_target, upi, target=None).f1 < 1.0   # graph task
    assert plausibility_at("edge", credits_target, upi, target=0).f1 < 1.0


def test_the_node_upi_is_computed_once_and_kept_beside_the_dataset(tmp_path: Path) -> None:
    datasets = str(tmp_path / "datasets")
    dataset = load_or_build("Majority1Hop", 0, 3, datasets, progress=False)
    program = TASKS["Majority1Hop"].program()
    chosen = list(positive_instances(dataset))[:3]
    truth = ground_truth(dataset, chosen, "node", datasets)
    for instance in chosen:
        graph = dataset.instances[instance.graph].graph
        expected = gracr.ground_truth(program, graph, target=instance.target, over="nodes")
        assert truth[instance.index].tolist() == expected.node_mask.tolist()
        assert not truth[instance.index][instance.target]
    stored = next((tmp_path / "datasets" / "Majority1Hop").glob("*")) / NODE_UPI_FILE
    lines = [json.loads(line) for line in stored.read_text().splitlines()]
    assert [line["instance"] for line in lines] == [0, 1, 2]
    # A stored line is read back as it is (here made wrong on purpose); a line whose
    # instance is not the same (graph, target) is computed again.
    lines[0]["node_upi"] = [1] * len(lines[0]["node_upi"])
    lines[1]["target"] = -1
    stored.write_text("".join(json.dumps(line) + "\n" for line in lines))
    again = ground_truth(dataset, chosen, "node", datasets)
    assert again[0].all()
    assert again[1].tolist() == truth[1].tolist()
    assert ground_truth(dataset, chosen, "edge", datasets)[2] is chosen[2].upi


# ---------------------------------------------------------------- PyG ExplainerAlgorithms


class Occlusion(ExplainerAlgorithm):  # type: ignore[misc]
    """What the explained output loses when one edge, or every edge of one node, goes."""

    def forward(self, model: Any, x: torch.Tensor, edge_index: torch.Tensor, *,
                target: torch.Tensor, index: Any = None, **kwargs: Any) -> Explanation:
        row = 0 if index is None else int(index)
        sources, targets = edge_index

        def output(kept: torch.Tensor) -> torch.Tensor:
            with torch.no_grad():
                return model(x, edge_index[:, kept])[row, 0]

        full = output(torch.ones_like(sources, dtype=torch.bool))
        masks = {}
        if self.explainer_config.edge_mask_type is not None:
            edges = torch.arange(sources.numel())
            masks["edge_mask"] = torch.stack([full - output(edges != e) for e in edges])
        if self.explainer_config.node_mask_type is not None:
            masks["node_mask"] = torch.stack(
                [full - output((sources != v) & (targets != v)) for v in range(x.size(0))]
            ).view(-1, 1)
        return Explanation(**masks)

    def supports(self) -> bool:
        config = self.explainer_config
        return all(kind in (None, MaskType.object)
                   for kind in (config.edge_mask_type, config.node_mask_type))


class EdgeOcclusion(Occlusion):
    def supports(self) -> bool:
        return bool(self.explainer_config.node_mask_type is None and super().supports())


def test_an_explainer_algorithm_explains_at_edge_and_at_node_level(forget: list[str]) -> None:
    spec = register_algorithm("Occlusion", Occlusion)
    forget.append("Occlusion")
    assert spec.levels == {"edge", "node"} and spec.train is None
    # `<> red` at node 0: only 1 -> 0 (edge 0) and node 1 matter. `exists (black & <> red)`:
    # 1 -> 0 (edge 0), and nodes 0 and 1.
    assert edge_scores("Occlusion", node_subject()).tolist() == [1.0, 0.0, 0.0]
    node_scores = scores("Occlusion", replace(node_subject(), level="node")).tolist()
    assert node_scores == [1.0, 1.0, 0.0, 0.0]          # the target too (left out when scored)
    assert edge_scores("Occlusion", graph_subject()).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert scores("Occlusion", replace(graph_subject(), level="node")).tolist() == \
        [1.0, 1.0, 0.0, 0.0, 0.0]
    edge_only = register_algorithm("EdgeOcclusion", EdgeOcclusion)
    forget.append("EdgeOcclusion")
    assert edge_only.levels == {"edge"}
    with pytest.raises(GracrError, match="is not a subclass of torch_geometric"):
        register_algorithm("NotOne", Subject)


@pytest.mark.big
@pytest.mark.parametrize("level", ["edge", "node"])
def test_an_explainer_algorithm_is_benchmarked_at_either_level(tmp_path: Path, level: str,
                                                               forget: list[str]) -> None:
    register_algorithm("Occlusion", Occlusion)
    forget.append("Occlusion")
    jobs = _jobs(tmp_path, ["Occlusion"], tasks=("Redundancy", "Majority1Hop"), level=level)
    records = list(read_records(run(jobs, str(tmp_path / "out"), progress=False)))
    assert len(records) == 4
    assert {(r.status, r.level) for r in records} == {("ok", level)}
    # Each record's F1, recomputed from the instance: the explanation through the public
    # API, the ground truth from gracr.ground_truth, the target left out by hand at node level.
    for record in records:
        dataset = load_or_build(record.task, 0, SIZES[record.task], str(tmp_path / "datasets"),
                                progress=False)
        program = TASKS[record.task].program()
        graph = dataset.instances[record.graph].graph
        model = compile_variant(record.task, variant_named("main"), dataset)
        subject = Subject.of(model, program, graph, record.target,
                             level=level)  # type: ignore[arg-type]
        values = scores("Occlusion", subject).numpy()
        exact = gracr.ground_truth(program, graph, target=record.target,
                                   over="edges" if level == "edge" else "nodes")
        truth = exact.edge_mask if level == "edge" else exact.node_mask
        assert truth is not None
        if level == "node" and record.target is not None:
            values, truth = np.delete(values, record.target), np.delete(truth, record.target)
        assert record.f1 == pytest.approx(plausibility(values, truth).f1)


def test_pgexplainer_is_trained_on_the_held_out_seed_then_benchmarked(tmp_path: Path,
                                                                      forget: list[str]) -> None:
    spec = register_algorithm("PGExplainer", PGExplainer,
                              {"epochs": 3, "lr": 0.003, "training_instances": 3},
                              explanation_type="phenomenon")
    forget.append("PGExplainer")
    assert spec.levels == {"edge"} and spec.train is not None
    with pytest.raises(GracrError, match="PGExplainer must be trained before it explains"):
        edge_scores("PGExplainer", graph_subject())
    assert len(_jobs(tmp_path, ["PGExplainer"], level="node")) == 1    # from its edge scores
    jobs = _jobs(tmp_path, ["PGExplainer"], tasks=("Redundancy", "Majority1Hop"))
    first = list(read_records(run(jobs, str(tmp_path / "one"), progress=False)))
    assert len(first) == 4 and {r.status for r in first} == {"ok"}, [r.error for r in first]
    held_out = {p.name.split("-")[0] for p in (tmp_path / "datasets").glob("*/*")}
    assert held_out == {"seed0", f"seed{HELD_OUT_SEED}"}
    # Trained from the job's seed: a second run trains and explains the same.
    second = list(read_records(run(jobs, str(tmp_path / "two"), progress=False)))
    assert [(r.precision, r.recall, r.f1) for r in second] == \
        [(r.precision, r.recall, r.f1) for r in first]


def test_an_explainer_is_trained_once_per_job_on_the_held_out_seeds_first_instances(
        tmp_path: Path, forget: list[str]) -> None:
    seen: list[list[tuple[Any, ...]]] = []

    def instance_of(subject: Subject) -> tuple[Any, ...]:
        return (subject.target, tuple(subject.edge_index.flatten().tolist()),
                tuple(subject.x.flatten().tolist()))

    def train(subjects: Any, settings: Any, seed: int) -> Any:
        seen.append([instance_of(s) for s in subjects])
        return lambda subject, chosen, seed: Explanation(edge_mask=torch.zeros(subject.num_edges))

    register(ExplainerSpec("Trainee", lambda s, c, seed: None, {"training_instances": 2},
                           train=train))
    forget.append("Trainee")
    run(_jobs(tmp_path, ["Trainee"], tasks=("Majority1Hop",), limit=3), str(tmp_path / "out"),
        progress=False)
    expected = [instance_of(s) for _, s in
                first_subjects("Majority1Hop", HELD_OUT_SEED, 2, 3, str(tmp_path / "datasets"))]
    assert seen == [expected]
    explained = first_subjects("Majority1Hop", 0, 1, 3, str(tmp_path / "datasets"))
    assert instance_of(explained[0][1]) not in expected
    assert {r["status"] for r in _records(tmp_path / "out")} == {"ok"}
    with pytest.raises(GracrError, match="its defaults need 'training_instances'"):
        ExplainerSpec("Untold", lambda s, c, seed: None, {}, train=train)


def test_the_fuzzer_refuses_what_it_cannot_run_before_it_starts(forget: list[str]) -> None:
    from gracr.fuzz.run import FuzzConfig, run_fuzz

    register(ExplainerSpec("NodesOnly", lambda s, c, seed: None, {}, levels=("node",)))
    register(ExplainerSpec("Trainee", lambda s, c, seed: None, {"training_instances": 2},
                           train=lambda subjects, c, seed: lambda s, c2, seed2: None))
    forget.extend(["NodesOnly", "Trainee"])
    program = gracr.parse("colors red\nclassify <> red")
    with pytest.raises(GracrError, match="NodesOnly gives node scores only; the fuzzer "
                                         "compares edge scores"):
        run_fuzz(FuzzConfig(("NodesOnly",), ("padding",), limit=1), program, progress=False)
    with pytest.raises(GracrError, match="Trainee must be trained before it explains, on a "
                                         "task's held-out seed; fuzz"):
        run_fuzz(FuzzConfig(("Trainee",), ("padding",), limit=1), program, progress=False)


def test_tuning_at_node_level_scores_the_node_upi_and_stores_apart(tmp_path: Path,
                                                                  forget: list[str]) -> None:
    from gracr.explainers.base import Uniform

    def field(subject: Subject, settings: Any, seed: int) -> Explanation:
        assert subject.level == "node" and subject.node_receptive_field is not None
        return Explanation(node_mask=torch.as_tensor(subject.node_receptive_field,
                                                     dtype=torch.float64))

    register(ExplainerSpec("NodeField", field, {"unused": 0.5}, space={"unused": Uniform(0, 1)},
                           levels=("node",)))
    forget.append("NodeField")
    entry = tune("NodeField", "Majority1Hop", trials=2, instances=2, datasets=str(
        tmp_path / "datasets"), dataset_size=3, progress=False, level="node")
    dataset = load_or_build("Majority1Hop", HELD_OUT_SEED, 3, str(tmp_path / "datasets"),
                            progress=False)
    program = TASKS["Majority1Hop"].program()
    expected = []
    for instance in list(positive_instances(dataset))[:2]:
        graph = dataset.instances[instance.graph].graph
        field_mask = gracr.node_receptive_field(program, graph, instance.target)
        truth = gracr.ground_truth(program, graph, target=instance.target, over="nodes").node_mask
        assert truth is not None
        keep = np.arange(graph.num_nodes) != instance.target
        expected.append(plausibility(field_mask[keep].astype(float), truth[keep]).f1)
    assert entry["mean_f1"] == round(float(np.mean(expected)), 4)
    path = store("NodeField", "Majority1Hop", entry, folder=tmp_path, level="node")
    assert set(json.loads(path.read_text())) == {"Majority1Hop@node"}


# ---------------------------------------------------------------- error records and retries


@pytest.fixture
def flaky(forget: list[str]) -> Iterator[dict[str, bool]]:
    """An explainer that raises while `state["broken"]`."""
    state = {"broken": True}

    def run_flaky(subject: Subject, settings: Any, seed: int) -> Explanation:
        if state["broken"]:
            raise RuntimeError("not today")
        return Explanation(edge_mask=torch.ones(subject.num_edges))

    register(ExplainerSpec("Flaky", run_flaky, {}))
    forget.append("Flaky")
    yield state


def test_error_records_are_retried_by_a_rerun_and_counted_once(tmp_path: Path,
                                                              flaky: dict[str, bool]) -> None:
    out = tmp_path / "out"
    jobs = _jobs(tmp_path, ["Flaky"])
    run(jobs, str(out), progress=False)
    assert [r["status"] for r in _records(out)] == ["error", "error"]
    run(jobs, str(out), progress=False, keep_errors=True)      # kept: nothing is redone
    assert len(_records(out)) == 2
    flaky["broken"] = False
    run(jobs, str(out), progress=False)
    assert [r["status"] for r in _records(out)] == ["error", "error", "ok", "ok"]
    run(jobs, str(out), progress=False)                         # done now: nothing to do
    assert len(_records(out)) == 4
    loaded = load_results([str(out)])
    assert [r.status for r in loaded.records] == ["ok", "ok"] and loaded.duplicates == 0
    done, stopped = read_done(out / "results.jsonl")
    assert list(done.values()) == [{0, 1}] and not stopped
    text = io.StringIO()
    assert main(["report", str(out)], out=text) == 0
    assert "error record" not in text.getvalue() and "duplicate" not in text.getvalue()


def test_gracrc_bench_keep_errors_keeps_them(tmp_path: Path, flaky: dict[str, bool]) -> None:
    argv = ["bench", "--tasks", "Redundancy", "--explainers", "Flaky", "--seeds", "0",
            "--limit", "1", "--graphs", "8", "--datasets", str(tmp_path / "d"),
            "--out", str(tmp_path / "o"), "--quiet", "--no-report"]
    assert main(argv, out=io.StringIO()) == 0
    flaky["broken"] = False
    assert main(argv + ["--keep-errors"], out=io.StringIO()) == 0
    assert [r["status"] for r in _records(tmp_path / "o")] == ["error"]
    assert main(argv, out=io.StringIO()) == 0
    assert [r["status"] for r in _records(tmp_path / "o")] == ["error", "ok"]


def test_a_figure_log_retries_its_error_records_unless_kept(tmp_path: Path) -> None:
    from gracr.domains.paper.ablations.figures import FigureLog

    path = tmp_path / "fig.jsonl"
    base = {"task": "Redundancy", "variant": "main", "explainer": "Deconv", "config": {},
            "config_hash": "00000000", "graph": 0, "target": None, "error": None,
            "precision": 1.0, "recall": 1.0, "f1": 1.0, "threshold": 0.5, "upi_edges": 1,
            "edges": 2, "cpu_seconds": 0.1, "wall_seconds": 0.1, "gracr_version": "0",
            "seed": 0, "k": 0}
    lines = [dict(base, instance=0, status="ok"), dict(base, instance=1, status="ok"),
             dict(base, instance=1, status="error", error="boom", precision=None,
                  recall=None, f1=None)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    keys = ("seed", "instance")
    assert (0, 0) in FigureLog(path, keys, "Redundancy", "Deconv")
    assert (0, 1) not in FigureLog(path, keys, "Redundancy", "Deconv")
    assert (0, 1) in FigureLog(path, keys, "Redundancy", "Deconv", keep_errors=True)


# ---------------------------------------------------------------- records


def test_records_carry_their_level_and_old_records_read_as_edge_level(tmp_path: Path) -> None:
    results = run(_jobs(tmp_path, ["Rnd"], limit=1), str(tmp_path / "out"), progress=False)
    run(_jobs(tmp_path, ["Rnd"], limit=1, level="node"), str(tmp_path / "out"), progress=False)
    lines = results.read_text().splitlines()
    assert json.loads(lines[0]) == {"gracr-results": 3}
    edge, node = (json.loads(line) for line in lines[1:])
    assert (edge["level"], node["level"]) == ("edge", "node")
    assert edge["instance"] == node["instance"] and edge["config_hash"] == node["config_hash"]
    # A version-1 file (no level field, header 1 or none) reads as edge level.
    old = dict(edge)
    del old["level"]
    for header in ('{"gracr-results":1}\n', ""):
        legacy = tmp_path / "legacy.jsonl"
        legacy.write_text(header + json.dumps(old) + "\n")
        (record,) = read_records(legacy)
        assert record.level == "edge" and record == Record.from_json(edge, "x")
    assert Record.from_json(node, "x").key != Record.from_json(edge, "x").key
    with pytest.raises(GracrError, match="field 'level' should be one of edge, node"):
        Record.from_json(dict(edge, level="nodes"), "x")
    # The report keeps the levels apart: node-level cells are variant main@node.
    text = io.StringIO()
    assert main(["report", str(tmp_path / "out")], out=text) == 0
    assert "Variant main@node: graph classification" in text.getvalue()
    assert "| Rnd " in text.getvalue().split("Variant main@node")[1]


# ------------------------------------------------------------------ the site's example


def _documented_example() -> tuple[dict[str, str], list[str]]:
    """The files and commands of the site's "Benchmark your own explainer" page
    (docs/benchmarking/plugins.md): each python block is a file named by its first line
    (`# NAME.py`), each bash line a command."""
    section = (ROOT / "docs" / "benchmarking" / "plugins.md").read_text(encoding="utf-8")
    assert section.startswith("# Benchmark your own explainer\n")
    files: dict[str, str] = {}
    commands: list[str] = []
    for language, body in re.findall(r"```(\w+)\n(.*?)```", section, re.S):
        if language == "python":
            files[body.splitlines()[0].removeprefix("# ").strip()] = body
        elif language == "bash":
            commands += [line for line in body.splitlines() if line.strip()]
    return files, commands


@pytest.mark.big
def test_the_documented_example_runs_as_written(tmp_path: Path) -> None:
    files, commands = _documented_example()
    assert list(files) == ["my_explainer.py"] and len(commands) == 2
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    for command in commands:
        program, *argv = shlex.split(command)
        assert program == "gracrc" and "--plugin" in argv and "--level" in argv
        done = gracrc(*argv, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    records = _records(tmp_path / "out" / "mine")
    cells = {(r["explainer"], r["level"]): 0 for r in records}
    for r in records:
        assert r["status"] == "ok", r["error"]
        cells[(r["explainer"], r["level"])] += 1
    assert cells == {("Occlusion", "node"): 5, ("Rnd", "node"): 5, ("PGExplainer", "edge"): 5,
                     ("Occlusion", "edge"): 5}
    assert "Variant main@node" in done.stdout and "PGExplainer" in done.stdout
    # Instance figures re-run edge-level records only (Rnd ran at node level alone), the
    # trained PGExplainer trained again as the runner trained it: the same F1, no note.
    drawn = {p.name for p in (tmp_path / "out" / "mine").glob("instance_*.png")}
    assert drawn == {"instance_Occlusion.png", "instance_PGExplainer.png"}
    assert "note:" not in done.stdout


def test_one_pgexplainer_s_settings_never_become_the_next_one_s_defaults() -> None:
    # PyG keeps PGExplainer's coefficients in a class-level dict that `__init__` updates
    # (PyG's documented defaults: edge_size 0.05, edge_ent 1.0, temp [5, 2], bias 0.01).
    from gracr.explainers.library import pyg_algorithm

    swept = pyg_algorithm(PGExplainer, epochs=1, edge_size=0.5, bias=0.2)
    plain = pyg_algorithm(PGExplainer, epochs=1)
    assert (swept.coeffs["edge_size"], swept.coeffs["bias"]) == (0.5, 0.2)
    assert plain.coeffs == {"edge_size": 0.05, "edge_ent": 1.0, "temp": [5.0, 2.0],
                            "bias": 0.01}
    assert PGExplainer.coeffs == plain.coeffs and PGExplainer.coeffs is not plain.coeffs
