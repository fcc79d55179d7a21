"""Task files: the paper's six as shipped files (same datasets as before they moved), a
user's own rule from a TOML file end to end, and bad task files named by file, line and
key."""

from __future__ import annotations

import hashlib
import json
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.bdd.oracle import upi_disagreements
from gracr.bench.datasets import dataset_folder, export, load_or_build
from gracr.bench.tasks import TASKS, Task, register_task, task_named
from gracr.errors import GracrError
from gracrc_cli import run

ROOT = Path(__file__).resolve().parent.parent
HASHES = json.loads((ROOT / "tests" / "fixtures" / "dataset_hashes.json").read_text())
EXAMPLE = ROOT / "examples" / "tasks" / "TwoRedNoGreen.toml"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the paper's six


@pytest.mark.parametrize("key", sorted(HASHES["small"]))
def test_the_paper_datasets_keep_their_content(key: str, tmp_path: Path) -> None:
    # Recorded from the Python task definitions before the tasks became task files.
    task, seed, size = key.split("/")
    dataset = load_or_build(task, int(seed.removeprefix("seed")), int(size.removeprefix("size")),
                            str(tmp_path), progress=False)
    export(dataset, str(tmp_path / "export.jsonl"))
    assert hashlib.sha256((tmp_path / "export.jsonl").read_bytes()).hexdigest() == \
        HASHES["small"][key]


def test_the_paper_tasks_are_package_files() -> None:
    for name in ("RedBlueLeaf", "Redundancy", "CompetingRedundancy", "RedBlueLeaf-NC",
                 "Majority1Hop", "Majority2Hop"):
        task = TASKS[name]
        assert task.origin is not None and task.origin.name == f"{name}.toml"
        assert task.origin.parent.name == "formulas" and task.origin.parent.parent.name == "gracr"
    assert TASKS["RedBlueLeaf"].formula_files == ("RedBlueLeaf.gml", "RedBlueLeaf-or.gml")
    assert (TASKS["Redundancy"].default_size, TASKS["Majority1Hop"].default_size) == (1000, 500)


# ---------------------------------------------------------------- a rule of one's own


NODE_TASK = """
    name = "RedFedBlue"
    formula = "red_fed.gml"
    [graphs]
    family = "tree"
    nodes = { min = 5, max = 7 }
    colors = { red = 0.5, blue = 0.5 }
    [dataset]
    targets = 12
"""


def test_a_node_task_file_round_trip(tmp_path: Path) -> None:
    write(tmp_path, "red_fed.gml", "colors red, blue\nclassify red & atleast 1 blue\n")
    task = Task.from_file(write(tmp_path, "RedFedBlue.toml", NODE_TASK))
    dataset = load_or_build(str(task.origin), 0, None, str(tmp_path / "store"), progress=False)
    export(dataset, str(tmp_path / "export.jsonl"))
    program = gracr.parse(tmp_path / "red_fed.gml")
    lines = [json.loads(line) for line in (tmp_path / "export.jsonl").read_text().splitlines()]
    checked = 0
    for line in lines:
        graph = gracr.Graph.from_json({k: line[k] for k in ("num_nodes", "colors", "edges")})
        assert 5 <= graph.num_nodes <= 7
        labels = [int(v) for v in gracr.evaluate(program, graph)]  # type: ignore[union-attr]
        assert line["node_labels"] == labels
        assert line["targets"] == [v for v, label in enumerate(labels) if label]
        for target, mask in zip(line["targets"], line["upi"]):
            _, problems = upi_disagreements(program, graph, target, backends=(), answers={
                f"the stored UPI of target {target}": (1, np.array(mask, dtype=np.bool_))})
            assert not problems, problems
            checked += 1
    assert checked >= 12 and sum(len(line["targets"]) for line in lines) == checked


SENTENCES = """
    colors red, blue
    classify exists (red & atleast 1 blue) & !exists[3, inf] blue
"""


def test_a_boolean_combination_of_sentences_is_a_task(tmp_path: Path) -> None:
    write(tmp_path, "mixed.gml", SENTENCES)
    task = Task.from_file(write(tmp_path, "Mixed.toml", """
        name = "Mixed"
        formula = "mixed.gml"
        [graphs]
        family = "erdos-renyi"
        nodes = { min = 4, max = 6 }
        colors = { red = 0.6, blue = 0.4 }
        [dataset]
        graphs = 16
        positive_fraction = 0.25
    """))
    assert task.predicate() is None
    dataset = load_or_build(str(task.origin), 2, None, str(tmp_path / "store"), progress=False)
    program = gracr.parse(tmp_path / "mixed.gml")
    labels = [instance.label for instance in dataset.instances]
    assert labels.count(1) == 4 and labels.count(0) == 12
    for instance in dataset.instances:
        assert int(bool(gracr.evaluate(program, instance.graph))) == instance.label
        if instance.graph.num_edges <= 14:
            _, problems = upi_disagreements(program, instance.graph, backends=(), answers={
                "the stored UPI": (instance.label, instance.upi[0])})
            assert not problems, problems


def test_a_planted_motif_task(tmp_path: Path) -> None:
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE.parent, folder)
    task = Task.from_file(folder / EXAMPLE.name)
    rng = np.random.default_rng(5)
    plain_sizes, planted = set(), 0
    for _ in range(60):
        graph = task.draw(rng, True).graph
        colours = [sorted(c) for c in graph.colors or []]
        edges = set(zip(graph.sources.tolist(), graph.targets.tolist()))
        # Motif copies follow the background: a background of n in [20, 30] nodes, then
        # zero or one red triangle of 3 nodes tied by one edge pair.
        if graph.num_nodes >= 23 and colours[-3:] == [["red"]] * 3:
            n = graph.num_nodes - 3
            triangle = {(n + a, n + b) for a in range(3) for b in range(3) if a != b}
            links = [(s, t) for s, t in edges if s >= n and t < n]
            if triangle <= edges and len(links) == 1 and (links[0][1], links[0][0]) in edges:
                planted += 1
                continue
        plain_sizes.add(graph.num_nodes)
    assert planted >= 15 and plain_sizes <= set(range(20, 31))
    dataset = load_or_build(str(folder / EXAMPLE.name), 0, 30, str(tmp_path / "store"),
                            progress=False)
    program = gracr.parse(folder / "two_red.gml")
    assert sorted(i.label for i in dataset.instances) == [0] * 15 + [1] * 15
    assert all(int(bool(gracr.evaluate(program, i.graph))) == i.label for i in dataset.instances)


def test_a_graph_file_is_taken_as_it_is(tmp_path: Path) -> None:
    write(tmp_path, "red.gml", "colors red, blue\nclassify exists (red & atleast 1 blue)\n")
    graphs = [{"num_nodes": 2, "colors": [["red"], ["blue"]], "edges": [[1, 0]]},
              {"num_nodes": 2, "colors": [["red"], ["red"]], "edges": [[1, 0], [0, 1]]},
              {"num_nodes": 3, "colors": [["blue"], ["red"], ["blue"]],
               "edges": [[0, 1], [2, 1]]}]
    (tmp_path / "mine.jsonl").write_text("\n".join(json.dumps(g) for g in graphs) + "\n")
    write(tmp_path, "Mine.toml", 'name = "Mine"\nformula = "red.gml"\n[graphs]\n'
                                 'file = "mine.jsonl"\n')
    dataset = load_or_build(str(tmp_path / "Mine.toml"), 0, None, str(tmp_path / "store"),
                            progress=False)
    assert [i.label for i in dataset.instances] == [1, 0, 1]
    assert [i.upi[0].tolist() for i in dataset.instances] == [[True], [False, False],
                                                               [True, True]]
    with pytest.raises(GracrError, match="holds 3 graphs; 5 asked for"):
        load_or_build("Mine", 0, 5, str(tmp_path / "store"), progress=False)


def test_an_edited_task_file_never_reuses_a_stale_dataset(tmp_path: Path) -> None:
    write(tmp_path, "red_fed.gml", "colors red, blue\nclassify red & atleast 1 blue\n")
    path = write(tmp_path, "RedFedBlue.toml", NODE_TASK)
    first = Task.from_file(path)
    path.write_text(path.read_text().replace("max = 7", "max = 9"))
    second = Task.from_file(path)
    (tmp_path / "red_fed.gml").write_text("colors red, blue\nclassify blue & atleast 1 red\n")
    third = Task.from_file(path)
    assert len({first.key, second.key, third.key}) == 3
    store = str(tmp_path / "store")
    assert len({dataset_folder(store, t, 0, 12) for t in (first, second, third)}) == 3


def test_register_task_refuses_a_taken_name(tmp_path: Path) -> None:
    write(tmp_path, "red.gml", "colors red\nclassify exists red\n")
    path = write(tmp_path, "Redundancy.toml", 'name = "Redundancy"\nformula = "red.gml"\n'
                                              '[graphs]\nfamily = "tree"\n')
    with pytest.raises(GracrError, match="the task name 'Redundancy' is taken"):
        register_task(Task.from_file(path))
    assert task_named("Redundancy") is TASKS["Redundancy"]


# ---------------------------------------------------------------- the command line


@pytest.mark.big
def test_dataset_and_bench_take_a_task_file(tmp_path: Path) -> None:
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE.parent, folder)
    store, results = str(tmp_path / "store"), str(tmp_path / "bench")
    code, out, err = run("dataset", str(folder / EXAMPLE.name), "--graphs", "20", "--out", store)
    assert code == 0, err
    assert out.startswith("TwoRedNoGreen seed 0: 20 graphs, 20 instances")
    code, out, err = run("bench", "--tasks", f"{folder / EXAMPLE.name},Redundancy",
                         "--explainers", "Saliency", "--seeds", "0", "--limit", "2",
                         "--graphs", "20", "--datasets", store, "--out", results, "--jobs", "2",
                         "--quiet", "--no-report")
    assert code == 0, err
    records = [json.loads(line) for line in
               (tmp_path / "bench" / "results.jsonl").read_text().splitlines()[1:]]
    assert sorted((r["task"], r["instance"], r["status"]) for r in records) == [
        ("Redundancy", 0, "ok"), ("Redundancy", 1, "ok"),
        ("TwoRedNoGreen", 0, "ok"), ("TwoRedNoGreen", 1, "ok")]


BAD_TASKS = [
    ('name = "Bad"\nformula = "red.gml"\ncolor = 1\n[graphs]\nfamily = "tree"\n',
     "Bad.toml:3:1: color: unknown key; the keys are name, formula, description, graphs"),
    ('name = "Bad"\nformula = "red.gml"\nfamily = "tree"\n[graphs]\nfamily = "tree"\n',
     "Bad.toml:3:1: family: belongs in the [graphs] table"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nnode = 5\n',
     "Bad.toml:5:1: graphs.node: unknown key; did you mean 'nodes'?"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "barabasi"\n',
     "Bad.toml:4:1: graphs.family: unknown family 'barabasi'; did you mean 'barabasi-albert'?"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\n'
     'colors = { red = 0.5, green = 0.5 }\n',
     "Bad.toml:5:1: graphs.colors: 'green' is not a colour of the formula"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\n[dataset]\ntargets = 5\n',
     "Bad.toml:6:1: dataset.targets: does not apply: the formula is a graph classifier"),
    ('name = "Bad"\nformula = "nope.gml"\n[graphs]\nfamily = "tree"\n',
     "Bad.toml:2:1: formula: "),
    ('name = "Bad"\nformula = "red.gml"\n[graphs\n', "Bad.toml:3:"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nfile = "x.jsonl"\n',
     "Bad.toml:5:1: graphs.file: say where the graphs come from with exactly one of"),
    # Hostile files the input fuzzer made: each was an internal error, a hang or an
    # allocation of terabytes, or named a key that is not in the file.
    ('description = ' + '[' * 3000 + ']' * 3000 + '\nname = "Bad"\n',
     "Bad.toml:1:1: nested 3000 deep (tables, arrays, inline tables and dotted keys); a task "
     "file nests at most 32 deep"),
    ('description = ' + '{a = ' * 3000 + '0' + '}' * 3000 + '\n', "Bad.toml:1:1: nested 3000 deep"),
    ('name = "Bad"\nx' + '.a' * 40 + ' = 0\n', "Bad.toml:2:1: nested 40 deep"),
    ('name = "Bad"\ndescription = ' + '7' * 5000 + '\n',
     "Bad.toml:2:1: not TOML: an integer of more than 4300 digits"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = ["tree"]\n',
     "Bad.toml:4:1: graphs.family: must be a family name, got ['tree'] (the families are "
     "barabasi-albert"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nnodes = 1000000000000\n',
     "Bad.toml:5:1: graphs.nodes: a drawn graph could have 1000000000000 nodes (1000000000000 "
     "background, 0 planted); a task's graphs have at most 1000000"),
    ('name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nnodes = { min = 0, max = 3 }\n',
     "Bad.toml:5:1: graphs.nodes: min must be an integer of at least 1, got 0"),
    # A name too long for a folder: refused, and the store it would have made removed.
    ('name = "' + "x" * 300 + '"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nnodes = 3\n',
     "store/" + "x" * 300 + "/seed0-graphs4-gen3-"),
    ('name = "Bad"\nformula = "' + "x" * 300 + '"\n[graphs]\nfamily = "tree"\n',
     "Bad.toml:2:1: formula: " + "x" * 300 + ": cannot use this path (File name too long)"),
]


@pytest.mark.parametrize("text, message", BAD_TASKS)
def test_a_bad_task_file_names_the_file_and_key(text: str, message: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "red.gml", "colors red, blue\nclassify exists red\n")
    write(tmp_path, "Bad.toml", text)
    code, out, err = run("dataset", "Bad.toml", "--graphs", "4", "--out", "store")
    assert code == 2 and out == ""
    assert err.startswith(f"gracrc: error: {message}"), err
    assert "Traceback" not in err and not (tmp_path / "store").exists()


def test_plants_too_large_to_draw_are_refused_before_any_draw(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "red.gml", "colors red, blue\nclassify exists red\n")
    (tmp_path / "dot.json").write_text('{"num_nodes": 2, "colors": [["red"], []], '
                                       '"edges": [[0, 1], [1, 0]]}')
    head = 'name = "Bad"\nformula = "red.gml"\n[graphs]\nfamily = "tree"\nnodes = 5\n' \
           '[[plant]]\nmotif = "dot.json"\n'
    for extra, message in [
            ("count = 1000000000000\n",
             "Bad.toml:8:1: plant.count: a drawn graph could have 2000000000005 nodes (5 "
             "background, 2000000000000 planted); a task's graphs have at most 1000000"),
            ("links = 1000000000000\n",
             "Bad.toml:8:1: plant.links: planting could add 2000000000002 edges to a graph; a "
             "task's plants add at most 1000000")]:
        write(tmp_path, "Bad.toml", head + extra)
        code, out, err = run("dataset", "Bad.toml", "--graphs", "4", "--out", "store")
        assert (code, out) == (2, "") and err.startswith(f"gracrc: error: {message}"), err


def test_a_generator_that_fails_is_named_with_how_it_was_called(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "red.gml", "colors red, blue\nclassify exists red\n")
    write(tmp_path, "Bad.toml", 'name = "Bad"\nformula = "red.gml"\n[graphs]\n'
                                'generator = "gracr.domains.paper.tasks:majority"\n')
    code, _, err = run("dataset", "Bad.toml", "--graphs", "4", "--out", "store")
    assert code == 2 and "internal error" not in err
    assert err.startswith(f"gracrc: error: {tmp_path / 'Bad.toml'}: graphs.generator: "
                          "gracr.domains.paper.tasks:majority failed when called as "
                          "function(rng, positive): TypeError: majority() takes 1 positional "
                          "argument but 2 were given"), err
    assert not (tmp_path / "store").exists()


def test_a_formula_file_that_is_not_utf8_is_refused(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "latin.gml").write_bytes(b"colors r\xe9d\nclassify exists r\xe9d\n")
    write(tmp_path, "Bad.toml", 'name = "Bad"\nformula = "latin.gml"\n[graphs]\n'
                                'family = "tree"\n')
    code, _, err = run("dataset", "Bad.toml", "--graphs", "4", "--out", "store")
    assert code == 2
    assert err.startswith("gracrc: error: Bad.toml:2:1: formula: latin.gml: cannot read the "
                          "formula ('utf-8' codec can't decode byte 0xe9"), err


def test_a_formula_that_never_fires_says_what_was_found(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "green.gml", "colors red, green\nclassify exists green\n")
    write(tmp_path, "Never.toml", 'name = "Never"\nformula = "green.gml"\n[graphs]\n'
                                  'family = "tree"\nnodes = 4\ncolors = { red = 1.0 }\n')
    code, _, err = run("dataset", "Never.toml", "--graphs", "4", "--out", "store")
    assert code == 2
    assert "Never.toml: formula: no positive graph in 1000 draws in a row" in err
    assert "rejected so far: 0 positive, 1000 negative" in err
    # A failed build leaves no folder behind.
    assert not (tmp_path / "store").exists()
    write(tmp_path, "green_node.gml", "colors red, green\nclassify green\n")
    write(tmp_path, "NeverNode.toml", 'name = "NeverNode"\nformula = "green_node.gml"\n'
                                      '[graphs]\nfamily = "tree"\nnodes = 4\n'
                                      'colors = { red = 1.0 }\n')
    code, _, err = run("dataset", "NeverNode.toml", "--targets", "4", "--out", "store")
    assert code == 2 and "no positive node in 1000 graphs in a row (0 positive targets" in err
    assert not (tmp_path / "store").exists()


def test_a_failed_bench_leaves_no_results_file(tmp_path: Path) -> None:
    code, _, err = run("bench", "--tasks", "Redundancy", "--explainers", "Saliency", "--seeds",
                       "0", "--limit", "1", "--graphs", "-3", "--out", str(tmp_path / "out" / "b"),
                       "--quiet")
    assert code == 2 and "the dataset size must be positive" in err
    assert not (tmp_path / "out").exists()


def test_a_separate_report_draws_a_task_file_s_instance_when_given_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "example"
    shutil.copytree(EXAMPLE.parent, folder)
    store, results = str(tmp_path / "store"), tmp_path / "bench"
    task_file = str(folder / EXAMPLE.name)
    code, _, err = run("bench", "--tasks", task_file, "--explainers", "Saliency", "--seeds", "0",
                       "--limit", "1", "--graphs", "20", "--datasets", store, "--out",
                       str(results), "--quiet", "--no-report")
    assert code == 0, err
    # A later `gracrc report` is a new process: the task file's task is not registered.
    monkeypatch.delitem(TASKS, "TwoRedNoGreen")
    options = ("--datasets", store, "--graphs", "20")
    code, out, err = run("report", str(results), "--out", str(tmp_path / "plain"), *options)
    assert (code, err) == (0, "")
    assert not list((tmp_path / "plain").glob("instance_*"))
    assert ("note: no instance figure for Saliency: the task TwoRedNoGreen is not one of "
            "gracr's: pass its task file with --tasks") in out
    code, out, err = run("report", str(results), "--out", str(tmp_path / "drawn"), *options,
                         "--tasks", task_file)
    assert (code, err) == (0, "")
    assert [p.name for p in (tmp_path / "drawn").glob("instance_*")] == ["instance_Saliency.png"]
    assert "note:" not in out


@pytest.mark.big
def test_bench_with_all_tasks_writes_its_report(tmp_path: Path) -> None:
    # The report `gracrc bench` writes at the end reads the bench's own arguments, where
    # `--tasks` is `all`, not the report's task files.
    code, out, err = run("bench", "--tasks", "all", "--explainers", "Rnd", "--seeds", "0",
                         "--limit", "1", "--graphs", "4", "--targets", "4", "--datasets",
                         str(tmp_path / "store"), "--out", str(tmp_path / "bench"), "--quiet")
    assert code == 0, err
    assert (tmp_path / "bench" / "table2.md").exists()
