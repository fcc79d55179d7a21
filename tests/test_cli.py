"""`gracrc`: golden files for error messages, exit codes, and the commands' output."""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

import gracr
from gracr.cli import main
from gracrc_cli import run

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path("tests/golden")
UPDATE = os.environ.get("GRACR_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def at_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # Messages name files by the path given on the command line: keep it relative.
    monkeypatch.chdir(ROOT)


def _check_golden(expected_path: Path, actual: str) -> None:
    if UPDATE:
        expected_path.write_text(actual)
    assert expected_path.exists(), f"no golden file {expected_path}; run with GRACR_UPDATE_GOLDEN=1"
    assert actual == expected_path.read_text()


@pytest.mark.parametrize("source", sorted((ROOT / GOLDEN / "errors").glob("*.gml")),
                         ids=lambda p: p.stem)
def test_error_messages_match_golden_files(source: Path, tmp_path: Path) -> None:
    relative = source.relative_to(ROOT)
    code, out, err = run("compile", str(relative), "-o", str(tmp_path / "model.npz"))
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    _check_golden(source.with_suffix(".txt"), err)


@pytest.mark.parametrize("graphs", sorted(p for p in (ROOT / GOLDEN / "graphs").iterdir()
                                          if p.suffix in (".json", ".jsonl")),
                         ids=lambda p: p.stem)
def test_graph_errors_match_golden_files(graphs: Path) -> None:
    code, out, err = run("eval", "gracr/formulas/Redundancy.gml", str(graphs.relative_to(ROOT)))
    assert code == 2
    assert "Traceback" not in err
    _check_golden(graphs.with_suffix(".txt"), err)


@pytest.mark.parametrize("graphs", sorted((ROOT / GOLDEN / "typed_graphs").glob("*.json")),
                         ids=lambda p: p.stem)
@pytest.mark.parametrize("command", ["eval", "upi"])
def test_typed_graph_errors_match_golden_files(graphs: Path, command: str) -> None:
    """A graph that does not fit the program's attribute families or relations."""
    code, out, err = run(command, "tests/golden/typed_graphs/program.gml",
                         str(graphs.relative_to(ROOT)))
    assert code == 2 and out == ""
    assert "Traceback" not in err
    _check_golden(graphs.with_suffix(".txt"), err)


def test_there_are_at_least_ten_golden_error_messages() -> None:
    assert len(list((ROOT / GOLDEN / "errors").glob("*.txt"))) >= 10


def test_missing_file_is_a_clear_error() -> None:
    code, _, err = run("eval", "gracr/formulas/nope.gml", "x.json")
    assert code == 2 and err == "gracrc: error: gracr/formulas/nope.gml: no such file\n"


def test_expanded_comparison_without_bound_is_a_clear_error(tmp_path: Path) -> None:
    code, _, err = run("compile", "gracr/formulas/Majority1Hop.gml", "-o", str(tmp_path / "m.npz"))
    assert code == 2 and "--max-degree" in err and "Traceback" not in err


def test_unreadable_model_file_is_a_clear_error(tmp_path: Path) -> None:
    bogus = tmp_path / "model.npz"
    bogus.write_text("not a model")
    code, _, err = run("inspect", str(bogus))
    assert code == 2 and "not a gracr model file" in err


def test_usage_errors_exit_2() -> None:
    assert run("frobnicate")[0] == 2
    assert run("compile", "gracr/formulas/Redundancy.gml")[0] == 2  # no -o


def test_compile_writes_a_model_that_loads(tmp_path: Path) -> None:
    path = tmp_path / "cr.npz"
    code, out, _ = run("compile", "gracr/formulas/CompetingRedundancy.gml", "-o", str(path),
                       "--disjunction", "flat")
    assert code == 0 and "3 layers x 9 columns" in out
    model = gracr.load(str(path))
    assert (model.num_layers, model.width) == (3, 9)
    assert model.options.disjunction == "flat"
    assert model.palette == ("black", "red", "blue", "green", "grey", "silver")
    assert model.columns[-1].meaning == "black & (<1> red | <2> blue | <3> green)"


def test_inspect_shows_each_column_and_its_weights() -> None:
    code, out, _ = run("inspect", "gracr/formulas/Majority1Hop.gml", "--comparison", "direct")
    assert code == 0
    assert "h2    depth 1   more(red, blue)" in out
    assert "h2 = sigma(+1*sum_in(h0) -1*sum_in(h1))" in out


def test_eval_prints_formula_and_gnn_per_graph(tmp_path: Path) -> None:
    graphs = [
        {"num_nodes": 3, "colors": [["red"], ["red"], ["blue"]], "edges": [[0, 2], [1, 2], [2, 0]]},
        {"num_nodes": 2, "colors": [["blue"], []], "edges": [[0, 1]]},
    ]
    path = tmp_path / "graphs.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in graphs) + "\n")
    code, out, _ = run("eval", "gracr/formulas/Majority1Hop.gml", str(path))
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines == [{"formula": [0, 0, 1], "gnn": [0, 0, 1]},
                     {"formula": [0, 0], "gnn": [0, 0]}]
    code, out, _ = run("eval", "gracr/formulas/Redundancy.gml", str(path))
    assert code == 2  # blue is not in Redundancy's palette


def test_upi_prints_label_and_mask_per_graph() -> None:
    code, out, _ = run("upi", "gracr/formulas/Redundancy.gml", "examples/graphs/Redundancy.jsonl")
    assert code == 0
    graphs = list(gracr.read_graphs("examples/graphs/Redundancy.jsonl"))
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["label"] for r in records] == [1, 0]
    # Positive graph: the UPI is exactly the edges from a red node into the black node.
    positive = graphs[0]
    expected = [int("red" in positive.colors[s] and "black" in positive.colors[t])
                for s, t in positive.edges]
    assert sum(expected) == 6
    assert records[0]["mask"] == expected
    # Negative graph, monotone formula: the empty subgraph explains it (Corollary 1).
    assert records[1]["mask"] == [0] * graphs[1].num_edges


def test_upi_of_a_node_classifier_needs_a_target_in_range() -> None:
    code, _, err = run("upi", "gracr/formulas/Majority1Hop.gml", "examples/graphs/Majority1Hop.jsonl")
    assert code == 2 and "needs a target node" in err and "Traceback" not in err
    code, _, err = run("upi", "gracr/formulas/Majority1Hop.gml", "examples/graphs/Majority1Hop.jsonl",
                       "--node", "300")
    assert code == 2 and "out of range" in err
    code, out, _ = run("upi", "gracr/formulas/Majority1Hop.gml", "examples/graphs/Majority1Hop.jsonl",
                       "--node", "3")
    assert code == 0 and set(json.loads(out)) == {"label", "mask"}


def test_dataset_errors_exit_2(tmp_path: Path) -> None:
    assert run("dataset", "Nope")[0] == 2
    assert run("dataset", "Redundancy", "--seed", "-1", "--out", str(tmp_path))[0] == 2
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run("dataset", "Redundancy", "--graphs", "2", "--out", str(blocker))
    assert code == 2 and "cannot write" in err


def test_a_bug_reads_as_one_line_naming_its_place(monkeypatch: pytest.MonkeyPatch) -> None:
    import gracr.cli

    def broken(args: object, out: object) -> int:
        raise TypeError("int() argument must be a number, not 'NoneType'")

    monkeypatch.setitem(gracr.cli.COMMANDS, "inspect",
                        replace(gracr.cli.COMMANDS["inspect"], run=broken))
    monkeypatch.delenv("GRACR_TRACEBACK", raising=False)
    code, out, err = run("inspect", "x.npz")
    assert code == 70 and out == "" and "Traceback" not in err
    assert err.startswith("gracrc: internal error: TypeError: int() argument")
    assert "(test_cli.py:" in err and err.count("\n") == 1
    monkeypatch.setenv("GRACR_TRACEBACK", "1")
    with pytest.raises(TypeError):
        run("inspect", "x.npz")


def test_inspect_shows_families_relations_features_and_typed_sums() -> None:
    code, out, err = run("inspect", "examples/typed/carbonyl.gml", "--presence")
    assert code == 0, err
    assert "attribute element = C, N, O, other" in out
    assert "relations: single, double, aromatic" in out
    assert ("features: marked, element=C, element=N, element=O, element=other, charge=neg, "
            "charge=zero, charge=pos, present") in out
    assert "presence=True" in out
    assert "sum_in{double}(" in out and "sum_in{single}(" in out and "sum_in{aromatic}(" in out


_LOADED = """
import runpy, sys
sys.argv = ["gracrc", *sys.argv[1:]]
try:
    runpy.run_module("gracr.cli", run_name="__main__")
except SystemExit:
    pass
print(sorted({name.split(".")[0] for name in sys.modules}))
"""

# What a command that needs none of them must not import: torch and PyG (seconds), numba
# (whose import loads scipy too) and scipy (a few tenths of a second each), RDKit.
_HEAVY = {"torch", "torch_geometric", "numba", "scipy", "rdkit", "sklearn", "matplotlib"}


@pytest.mark.parametrize(("argv", "may_load"), [
    (["--help"], set()),
    (["ablate", "--help"], set()),
    (["tissue-study", "--help"], set()),
    (["dataset", "task.toml", "--out", "store"], {"numba", "scipy"}),  # generates graphs
], ids=["help", "ablate-help", "tissue-help", "dataset"])
def test_gracrc_builds_its_parser_without_heavy_imports(argv: list[str], may_load: set[str],
                                                        tmp_path: Path) -> None:
    # Every call builds the whole parser; one subcommand's defaults once imported the tissue
    # study, and with it torch, so each `gracrc` call paid seconds before doing anything;
    # the task table's graph generators imported numba, and the tissue domain scipy.
    import ast
    import subprocess
    import sys

    (tmp_path / "task.toml").write_text('name = "Small"\nformula = "rule.gml"\n[graphs]\n'
                                        'family = "tree"\nnodes = 3\n[dataset]\ngraphs = 2\n')
    (tmp_path / "rule.gml").write_text("colors red, blue\nclassify exists (red & atleast 1 blue)\n")
    done = subprocess.run([sys.executable, "-c", _LOADED, *argv], cwd=tmp_path,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    loaded = set(ast.literal_eval(done.stdout.splitlines()[-1]))
    assert loaded & _HEAVY <= may_load
    if argv[0] == "dataset":
        assert (tmp_path / "store").is_dir()           # the command did run
        assert "numba" in loaded                        # the test can see a heavy import


# Each ends with an unknown option: argparse reports it only after converting every value,
# so a refused value is reported first, and a value the parser took (the code before these
# checks) ends in the unknown option's message instead of running the command.
_BUDGET_COMMANDS = [["bench"], ["tune"], ["show", "RedBlueLeaf"], ["report", "out"], ["fuzz"],
                    ["ablate", "table8"], ["tissue-study"]]


@pytest.mark.parametrize("command", _BUDGET_COMMANDS, ids=lambda argv: argv[0])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-1", "1e10", "x"])
def test_a_budget_must_be_a_positive_finite_number_of_seconds(
        command: list[str], value: str, capsys: pytest.CaptureFixture[str]) -> None:
    # Once `nan` and `inf` were taken, and every instance recorded as an explainer error.
    code, out, _ = run(*command, f"--budget={value}", "--not-an-option")
    err = capsys.readouterr().err   # argparse writes its usage errors to sys.stderr
    assert code == 2 and out == ""
    assert "argument --budget: " in err and "--not-an-option" not in err, err
    assert "seconds" in err and repr(value) in err, err


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--trials", "0", "must be a positive integer, got 0"),
    ("--instances", "0", "must be a positive integer, got 0"),
    ("--trials", "-3", "must be a positive integer, got -3"),
    ("--instances", "two", "not an integer: 'two'"),
    ("--seed", "-1", "a seed is an integer in [0, 2**32), got -1"),
    ("--seed", str(2**32), f"a seed is an integer in [0, 2**32), got {2**32}"),
])
def test_tune_refuses_counts_below_one_and_seeds_out_of_range(
        option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    # `--trials 0` and `--instances 0` were internal errors (exit 70) after the dataset
    # was built.
    code, out, _ = run("tune", f"{option}={value}", "--not-an-option")
    err = capsys.readouterr().err
    assert code == 2 and out == ""
    assert f"argument {option}: {message}" in err, err


def test_a_dataset_seed_out_of_range_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["dataset", "Redundancy", "--graphs", "2", "--out", str(tmp_path)],
                    ["show", "Redundancy", "-o", str(tmp_path / "x.png")]):
        code, _, _ = run(*command, "--seed", str(2**32))
        err = capsys.readouterr().err
        assert code == 2 and "argument --seed: a seed is an integer in [0, 2**32)" in err, err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("seeds", "message"), [
    ("0-100000000000", "seed 100000000000 is not below 2**32"),
    (f"0-{2**32}", f"seed {2**32} is not below 2**32"),
    ("0-1000000", "1000001 seeds, over gracr's limit of 100000 (MAX_SEEDS)"),
    ("0-99999,0-99999", "200000 seeds, over gracr's limit of 100000 (MAX_SEEDS)"),
    ("5-3", "the range 5-3 is empty"),
    ("9" * 5000, "write 3, 0-4 or 0,2,5"),
    ("x", "write 3, 0-4 or 0,2,5"),
    ("", "write 3, 0-4 or 0,2,5"),
])
def test_a_seed_list_is_bounded_before_it_is_expanded(seeds: str, message: str) -> None:
    from gracr.bench.options import parse_seeds
    from gracr.errors import GracrError

    with pytest.raises(GracrError, match=re.escape(message)):
        parse_seeds(seeds)
    assert parse_seeds("0-2,7") == [0, 1, 2, 7]
    assert parse_seeds(f"{2**32 - 1}") == [2**32 - 1]


@pytest.mark.parametrize("command", [["dataset", "--stats"], ["bench", "--out", "unused"],
                                     ["ablate", "table8", "--out", "unused"]],
                         ids=lambda argv: argv[0])
def test_a_seed_range_of_ten_to_the_eleven_is_one_message(command: list[str],
                                                          tmp_path: Path) -> None:
    # Once a MemoryError (exit 70): the range was expanded into a list first.
    argv = [part if part != "unused" else str(tmp_path / "out") for part in command]
    code, _, err = run(*argv, "--seeds", "0-100000000000")
    assert code == 2, err
    assert err == ("gracrc: error: bad seeds '0-100000000000': seed 100000000000 is not below "
                   "2**32 (a seed is an integer in [0, 4294967296))\n")


def test_a_closed_stdout_is_one_message_on_stderr_and_exit_2(tmp_path: Path) -> None:
    # `>&-` closes file descriptor 1: Python then starts with sys.stdout None (once an
    # internal error, exit 70, after the command had run and written its files).
    import subprocess
    import sys

    model = tmp_path / "model.npz"
    for argv in (["inspect", "gracr/formulas/Majority1Hop.gml", "--comparison", "direct"],
                 ["compile", "gracr/formulas/RedBlueLeaf.gml", "-o", str(model)]):
        done = subprocess.run(["sh", "-c", '"$0" -m gracr.cli "$@" >&-', sys.executable, *argv],
                              cwd=ROOT, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 2, done.stderr
        assert done.stderr == ("gracrc: error: standard output is closed: nothing can be "
                               "written (redirect it to a file, or to /dev/null to discard "
                               "it)\n")
    assert not model.exists()   # refused before any work


@pytest.mark.parametrize("command", [["dataset"], ["bench", "--out", "unused", "--tasks"]],
                         ids=lambda argv: argv[0])
def test_a_formula_file_given_as_a_task_says_what_a_task_is(command: list[str],
                                                            tmp_path: Path) -> None:
    argv = [part if part != "unused" else str(tmp_path / "out") for part in command]
    code, _, err = run(*argv, "gracr/formulas/Majority1Hop.gml")
    assert code == 2
    assert err.startswith("gracrc: error: gracr/formulas/Majority1Hop.gml: a formula file, "
                          "not a task file; a task is a .toml file (see 'Benchmark your own rule' "
                          "in the documentation) or a task name: RedBlueLeaf, "), err
    assert err.endswith("; did you mean the task 'Majority1Hop'?\n") and "TOML" not in err
    code, _, err = run("dataset", str(tmp_path / "mine.gml"))
    assert code == 2 and "mine.gml: a formula file, not a task file" in err
    assert "did you mean" not in err


@pytest.mark.parametrize(("argv", "hint"), [
    (["bench", "--explainers", "GNNexplainer"], "unknown explainer 'GNNexplainer' "
                                                "(did you mean 'GNNExplainer'?)"),
    (["bench", "--explainers", "Saliency,integratedgradient,Nope"],
     "unknown explainer 'integratedgradient', 'Nope'; choose from"),
    (["bench", "--explainers", "saliency,GNNExplaner"],
     "unknown explainer 'saliency' (did you mean 'Saliency'?), 'GNNExplaner' (did you mean "
     "'GNNExplainer'?); choose from"),
    (["tune", "--explainers", "gnnexplainer"], "unknown tunable explainer 'gnnexplainer' "
                                               "(did you mean 'GNNExplainer'?)"),
    (["fuzz", "--explainers", "IG,lrp"], "unknown explainer 'lrp' (did you mean 'LRP'?)"),
    (["bench", "--tasks", "majority2hop"], "unknown task 'majority2hop'; did you mean "
                                           "'Majority2Hop'?"),
], ids=["case slip", "no close name", "two slips", "tune", "fuzz", "task"])
def test_a_misspelt_name_gets_a_did_you_mean(argv: list[str], hint: str,
                                             tmp_path: Path) -> None:
    code, _, err = run(*argv, "--out", str(tmp_path / "out")) if argv[0] == "bench" \
        else run(*argv)
    assert code == 2 and hint in err, err
    assert not (tmp_path / "out").exists()


def test_a_misspelt_explainer_named_alone_gets_a_did_you_mean() -> None:
    from gracr.explainers import explainer_named
    from gracr.errors import GracrError

    with pytest.raises(GracrError, match=r"unknown explainer 'graphsvx' \(did you mean "
                                         r"'GraphSVX'\?\); the explainers are"):
        explainer_named("graphsvx")


@pytest.mark.parametrize(("arguments", "message"), [
    # Found by the input fuzzer's cli-options and tissue-options kinds: each was accepted,
    # ran for ever or was an internal error (exit 70) before.
    (["upi", "F", "G", "--max-bdd-nodes", str(2**63)], "argument --max-bdd-nodes: must be at most 2**62"),
    (["relevance", "F", "G", "--permutations", "0"], "argument --permutations: must be a positive integer"),
    (["relevance", "F", "G", "--max-exact", "-1"], "argument --max-exact: must be an integer of at least 0"),
    (["relevance", "F", "G", "--max-players", "-1"], "argument --max-players: must be an integer of at least 0"),
    (["relevance", "F", "G", "--max-stderr", "nan"], "argument --max-stderr: must be a positive, finite number"),
    (["relevance", "F", "G", "--seed", "-1"], "argument --seed: a seed is an integer in [0, 2**32)"),
    (["fuzz", "--seed", "-1"], "argument --seed: a seed is an integer in [0, 2**32)"),
    (["tissue", "--out", "DIR", "--ratio", "inf"], "--ratio must lie in [1, 10]"),
    (["tissue", "--out", "DIR", "--ratio", "nan"], "--ratio must lie in [1, 10]"),
    (["tissue", "--out", "DIR", "--samples", "99999999999999999999"], "--samples must be at least 2 (θ is chosen between the samples' ratios) and at most 100000"),
    (["tissue", "--out", "DIR", "--cells", "99999999999999999999"], "--cells must be at most 100000"),
    (["tissue-study", "--out", "DIR", "--ratios", "1,inf"], "ratio must lie in [1, 10]"),
])
def test_hostile_option_values_are_one_message(arguments: list[str], message: str,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    arguments = [str(tmp_path / "out") if a == "DIR" else a for a in arguments]
    code, out, said = run(*arguments)
    err = said + capsys.readouterr().err      # gracr's messages, and argparse's
    assert code == 2, err
    assert message in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_any_command_stopped_by_a_signal_says_so_in_one_line(
        signum: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or `kill` during any command (here `fuzz`, whose work is replaced by waiting
    for the signal) ends it with one line naming the command and the signal, and the
    shell's status 128 + signal, never a traceback."""
    import signal
    import time

    import gracr.cli

    number = signal.Signals[signum]

    def wait_for_the_signal(args: object, out: object) -> int:
        os.kill(os.getpid(), number)
        time.sleep(30)   # the signal arrives long before
        return 0

    monkeypatch.setitem(gracr.cli.COMMANDS, "fuzz",
                        replace(gracr.cli.COMMANDS["fuzz"], run=wait_for_the_signal))
    err = io.StringIO()
    # A process started in the background by a shell without job control inherits SIGINT
    # ignored (POSIX), and Python keeps it ignored (the suite run as `( ... & )` failed
    # here): for its length the test gives SIGINT Python's own handler, as gracrc run
    # from a terminal has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert main(["fuzz", "--quiet"], out=io.StringIO(), err=err) == 128 + number
    finally:
        signal.signal(signal.SIGINT, previous)
    assert err.getvalue() == f"gracrc: fuzz stopped ({signum})\n"


def test_a_bundled_formula_is_named_by_name(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`gracrc compile Redundancy` reads gracr/formulas/Redundancy.gml from the package
    (the documented commands work from a wheel, in any folder); a file of that name in the
    working folder is the user's and wins; an unknown name lists the bundled ones."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run("compile", "Redundancy", "-o", "m.npz")
    assert (code, out) == (0, "m.npz: graph classifier, 2 layers x 4 columns\n"), err
    code, out, err = run("inspect", "RedBlueLeaf-or")
    assert code == 0 and "kind:     graph classifier" in out, err
    (tmp_path / "Redundancy").write_text("colors red, blue\nclassify red\n")
    code, out, err = run("compile", "Redundancy", "-o", "own.npz")
    assert (code, out) == (0, "own.npz: node classifier, 0 layers x 1 columns\n"), err
    code, out, err = run("upi", "Redundancyy", "graphs.json")
    assert code == 2 and err.startswith("gracrc: error: Redundancyy: no such file, nor a "
                                        "formula of gracr's (CompetingRedundancy, ")
    assert "RedBlueLeaf-or, Redundancy)" in err


def test_a_report_of_the_users_tasks_only_has_no_empty_paper_tables(tmp_path: Path) -> None:
    """A run of none of the paper's tasks prints and writes its own table, not Tables 2
    and 3 with no results nor a comparison beside the paper of 0 values."""
    code, out, err = run("bench", "--tasks", "examples/tasks/TwoRedNoGreen.toml",
                         "--explainers", "Rnd", "--seeds", "0", "--limit", "2", "--graphs", "12",
                         "--datasets", str(tmp_path / "d"), "--out", str(tmp_path / "b"),
                         "--quiet", "--no-instance-figures")
    assert code == 0, err
    assert "Variant main: other tasks" in out and "| Rnd " in out
    for absent in ("Table 2", "Table 3", "no results for these tasks", "Beside the paper",
                   "0 of 0 compared values"):
        assert absent not in out
    written = {path.name for path in (tmp_path / "b").iterdir()}
    assert {"variants.md", "times.md"} <= written
    assert not {"table2.md", "table3.md", "beside_paper.md"} & written


def test_eval_upi_and_relevance_read_a_model_file_as_its_formula(tmp_path: Path) -> None:
    """A model file (`gracrc compile`'s) stands for the formula it was compiled from:
    eval runs the model as compiled beside the formula it records, upi and relevance
    read the formula back; what they print is what the .gml gives."""
    model = str(tmp_path / "carbonyl.npz")
    assert run("compile", "examples/typed/carbonyl.gml", "-o", model)[0] == 0
    graphs = "examples/typed/molecules.jsonl"
    for argv in (["eval"], ["upi", "--over", "both"], ["relevance", "--json"]):
        code, from_model, err = run(*argv, model, graphs)
        assert code == 0, err
        from_formula = run(*argv, "examples/typed/carbonyl.gml", graphs)[1]
        assert _untimed(from_model) == _untimed(from_formula)
    code, out, err = run("eval", model, graphs)
    assert out.splitlines()[:2] == ['{"formula": [0, 0, 0, 0, 0], "gnn": [0, 0, 0, 0, 0]}',
                                    '{"formula": [1, 0, 0], "gnn": [1, 0, 0]}']
    # Compiled with a degree bound, the model is run with it, not recompiled.
    bounded = str(tmp_path / "m1.npz")
    assert run("compile", "Majority1Hop", "--max-degree", "8", "-o", bounded)[0] == 0
    code, out, err = run("eval", bounded, "examples/graphs/Majority1Hop.jsonl")
    assert code == 0 and out.startswith('{"formula": ['), err
    code, out, err = run("compile", model, "-o", str(tmp_path / "again.npz"))
    assert (code, out) == (2, "") and err == (f"gracrc: error: {model}: a model file "
                                              "(compiled); this command reads the formula: "
                                              "give its .gml file\n")


def _untimed(lines: str) -> list[dict[str, object]]:
    """JSON lines without their `seconds` (what `relevance` took, never the same twice)."""
    records = [json.loads(line) for line in lines.splitlines()]
    return [{key: value for key, value in record.items() if key != "seconds"}
            for record in records]
