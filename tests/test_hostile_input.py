"""Inputs a careless or hostile user gives `gracrc`: each row of the issue's table, and its
neighbours, ends in one clear message and exit 2 (or, for a closed stdout, quietly with 0);
never a traceback, a hang, or a misleading place."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import gracr
from gracr.cli import main
from gracr.errors import GmlError, GracrError, GraphError
from gracrc_cli import run

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def at_repository_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _bad_input(code: int, out: str, err: str) -> str:
    """The message of a run that must have failed cleanly on its input."""
    assert code == 2 and out == ""
    assert "Traceback" not in err and "internal error" not in err
    assert err.count("\n") <= 4, "one message, not a dump"
    return err


# ---------------------------------------------------------------- nesting


@pytest.mark.parametrize("depth", [3000, 10_000])
def test_thousands_of_nested_negations_stop_at_the_nesting_limit(tmp_path: Path,
                                                                 depth: int) -> None:
    source = tmp_path / "deep.gml"
    source.write_text("colors red\nclassify " + "!(" * depth + "red" + ")" * depth + "\n")
    err = _bad_input(*run("compile", str(source), "-o", str(tmp_path / "m.npz")))
    assert f"deep.gml:2:10: formula nested {depth} levels deep, over gracr's limit of 100" in err
    with pytest.raises(GmlError, match="limit of 100"):
        gracr.parse(source.read_text())


# ---------------------------------------------------------------- graph sizes


def _graph_file(tmp_path: Path, obj: object) -> str:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(obj))
    return str(path)


def test_a_graph_declaring_a_trillion_nodes_in_a_few_bytes_is_refused_at_once(
        tmp_path: Path) -> None:
    program = tmp_path / "true.gml"
    program.write_text("classify true\n")       # no colours: no list has to match num_nodes
    graphs = _graph_file(tmp_path, {"num_nodes": 10**12, "edges": []})
    err = _bad_input(*run("eval", str(program), graphs))
    assert "graph.json: evaluating the formula would take" in err
    assert "(1000000000000 nodes, 0 edges), over --max-weights-bytes 4 GiB" in err


def test_declared_sizes_that_disagree_with_the_lists_are_refused_before_building(
        tmp_path: Path) -> None:
    graphs = _graph_file(tmp_path, {"num_nodes": 10**12, "colors": [], "edges": []})
    err = _bad_input(*run("eval", "gracr/formulas/Redundancy.gml", graphs))
    assert "'colors' has 0 entries but the graph has 1000000000000 nodes" in err


def test_an_edge_end_beyond_int64_is_out_of_range_not_a_crash(tmp_path: Path) -> None:
    graphs = _graph_file(tmp_path, {"num_nodes": 2, "colors": [[], []],
                                    "edges": [[0, 2**70]]})
    err = _bad_input(*run("eval", "gracr/formulas/Redundancy.gml", graphs))
    assert f"edge 0 [0, {2**70}] has target {2**70}, out of range for 2 nodes" in err


def test_the_features_of_a_huge_graph_are_refused_before_allocation() -> None:
    model = gracr.compile(gracr.parse("colors red\nclassify <1> red"))
    graph = gracr.Graph(10**10, None, model.input_bias[:0].astype("int64"),
                        model.input_bias[:0].astype("int64"))
    with pytest.raises(GraphError, match=r"its features would take 37\.3 GiB"):
        model.features(graph)
    with pytest.raises(GraphError, match="the forward pass would take"):
        model.predict(graph)


# ---------------------------------------------------------------- weight budget


def test_a_model_over_the_weights_budget_is_refused_with_its_size_and_remedies(
        tmp_path: Path) -> None:
    source = tmp_path / "more.gml"
    source.write_text("colors red\nclassify more(red, !red)\n")
    err = _bad_input(*run("compile", str(source), "--max-degree", "100000",
                          "-o", str(tmp_path / "m.npz")))
    assert "the compiled model would hold at least 2.62 TiB of dense weights" in err
    assert "over --max-weights-bytes 4 GiB" in err
    assert "--comparison direct" in err and "a lower --max-degree (now 100000)" in err
    assert not (tmp_path / "m.npz").exists()


def test_the_weights_budget_is_exact_once_the_model_is_scheduled(tmp_path: Path) -> None:
    program = gracr.parse("colors red\nclassify more(red, !red)")
    # Eq. 6 with n = 40: red, !red, and for m = 1..40 <m> red, <m> !red, !<m> !red and their
    # conjunction, then the disjunction: 2 + 4 * 40 + 1 = 163 columns, 5 layers deep. Each
    # layer holds C and A (163 x 163) and b; the input map one row (red) and a bias.
    size = 4 * (5 * (2 * 163**2 + 163) + 163 + 163)
    model = gracr.compile(program, max_degree=40, max_weights_bytes=size)
    assert (model.num_layers, model.width) == (5, 163)
    with pytest.raises(GracrError, match=f"would hold {size / 2**20:.3g} MiB of dense weights "
                                         r"\(5 layers x 163 columns\)"):
        gracr.compile(program, max_degree=40, max_weights_bytes=size - 1)
    err = _bad_input(*run("compile", "gracr/formulas/Majority1Hop.gml", "--max-degree", "40",
                          "--max-weights-bytes", "512KiB", "-o", str(tmp_path / "m.npz")))
    assert "over --max-weights-bytes 512 KiB" in err


# ---------------------------------------------------------------- the command line


def test_a_closed_stdout_ends_quietly_with_exit_0(tmp_path: Path) -> None:
    model = tmp_path / "big.npz"
    assert run("compile", "gracr/formulas/Majority2Hop.gml", "--max-degree", "200",
               "-o", str(model))[0] == 0
    inspect = subprocess.Popen([sys.executable, "-m", "gracr.cli", "inspect", str(model)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert inspect.stdout is not None and inspect.stderr is not None
    first = inspect.stdout.readline()               # `| head -1`: one line, then the pipe closes
    inspect.stdout.close()
    err = inspect.stderr.read()
    assert inspect.wait() == 0
    assert first.startswith(b"formula:") and err == b""


def test_a_text_file_given_as_a_model_says_what_it_is_not(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    err = _bad_input(*run("inspect", str(notes)))
    assert "notes.txt: not a gracr model file: it is not an .npz archive" in err
    assert "pickle" not in err


def test_writing_into_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "x.npz"
    err = _bad_input(*run("compile", "gracr/formulas/Redundancy.gml", "-o", str(target)))
    assert err == f"gracrc: error: {target}: no such folder {target.parent}\n"


def test_a_misspelt_keyword_is_named_with_what_it_is_closest_to(tmp_path: Path) -> None:
    source = tmp_path / "typo.gml"
    source.write_text("colors red, fed\nclassify atlest 2 fed\n")
    err = _bad_input(*run("compile", str(source), "-o", str(tmp_path / "m.npz")))
    assert err.splitlines() == [
        f"{source}:2:10: unknown word 'atlest'; did you mean 'atleast'?",
        "    classify atlest 2 fed",
        "             ^^^^^^"]


def test_an_unclosed_modality_is_pointed_at(tmp_path: Path) -> None:
    source = tmp_path / "unclosed.gml"
    source.write_text("colors red, blue\nclassify <2 blue\n")
    err = _bad_input(*run("compile", str(source), "-o", str(tmp_path / "m.npz")))
    assert err.splitlines() == [
        f"{source}:2:10: unclosed modality '<2': write '<2> f' (or 'atleast 2 f')",
        "    classify <2 blue",
        "             ^^"]


def test_a_report_reads_a_results_file_whose_last_line_was_cut(tmp_path: Path) -> None:
    out = tmp_path / "bench"
    code = main(["bench", "--tasks", "Redundancy", "--explainers", "Rnd", "--seeds", "0",
                 "--limit", "3", "--graphs", "6", "--datasets", str(tmp_path / "d"),
                 "--out", str(out), "--quiet", "--no-report"], out=io.StringIO())
    assert code == 0
    results = out / "results.jsonl"
    text = results.read_text()
    results.write_text(text[:len(text) - 40])       # the last line cut by a kill
    err = io.StringIO()
    assert main(["report", str(out)], out=io.StringIO(), err=err) == 0


# ---------------------------------------------------------------- numbers beyond float32

THRESHOLD = "features a, b\nclassify !(a - b > 0.5)\n"


@pytest.mark.parametrize("row,node,feature,shown", [
    ([[1e308, 1e308]], 0, "a", "1e+308"),
    ([[0, 0], [0, -1e39]], 1, "b", "-1e+39"),
])
def test_a_feature_beyond_float32_is_refused_at_the_graph_check(
        tmp_path: Path, row: list[list[float]], node: int, feature: str, shown: str) -> None:
    """The network holds x in float32: 1e308 would be inf, inf - inf NaN, and its output
    disagree with the formula on a node it does not flag."""
    source = tmp_path / "t.gml"
    source.write_text(THRESHOLD)
    graphs = _graph_file(tmp_path, {"num_nodes": len(row), "edges": [], "features": row})
    err = _bad_input(*run("eval", str(source), graphs))
    assert (f"graph.json: node {node} has the numeric feature '{feature}' = {shown}, beyond "
            f"float32") in err
    with pytest.raises(GraphError, match=f"node {node} has the numeric feature '{feature}'"):
        gracr.Graph.from_json({"num_nodes": len(row), "edges": [], "features": row},
                              schema=gracr.parse(THRESHOLD).schema)


def test_features_whose_products_with_the_weights_pass_float32_are_refused(
        tmp_path: Path) -> None:
    """1e37 is a float32, but times the weight 1/δ = 1000 it is not: the torch executors
    compute h⁽⁰⁾ in float32."""
    source = tmp_path / "t.gml"
    source.write_text(THRESHOLD)
    graphs = _graph_file(tmp_path, {"num_nodes": 2, "edges": [],
                                    "features": [[0, 0], [1e37, 1e37]]})
    err = _bad_input(*run("eval", str(source), graphs))
    assert "node 1's numeric features times the weights of '1*a + -1*b > 0.5' reach 2e+40" in err


def test_every_node_where_the_network_and_the_formula_differ_is_named(tmp_path: Path) -> None:
    """Features far larger than their difference: float32 rounds 1e30 + 1e20 to 1e30, so
    the network sees a - b = 0 where the formula sees 1e20 > 0.5. The node is named."""
    source = tmp_path / "t.gml"
    source.write_text(THRESHOLD)
    graphs = _graph_file(tmp_path, {"num_nodes": 3, "edges": [],
                                    "features": [[0, 0], [1.0000000001e30, 1e30], [1, 0]]})
    code, out, err = run("eval", str(source), graphs)
    assert code == 0
    record = json.loads(out)
    differ = [v for v, (f, g) in enumerate(zip(record["formula"], record["gnn"])) if f != g]
    assert differ == [1]
    assert "1 node(s) inside the margin of a threshold atom (--delta 0.001) or within float32 " \
           "rounding of it, where the network may differ from the formula: 1" in err


@pytest.mark.parametrize("text,delta,place,what", [
    ("features a, b\nclassify a - b > 0.5\n", "1e-39", "2:10", "weight 1/δ = 1e+39"),
    ("features a\nclassify 1234567890123456789012345678901234567890 * a > 0\n", "0.001",
     "2:10", "weight 1234567890123456789012345678901234567890/δ = 1.23e+42"),
    ("features a\nlet big = a <= -1234567890123456789012345678901234567890\nclassify big\n",
     "0.001", "2:11", "bias -1234567890123456789012345678901234567890/δ = -1.23e+42"),
])
def test_a_threshold_weight_beyond_float32_is_refused_at_compile(
        tmp_path: Path, text: str, delta: str, place: str, what: str) -> None:
    """Else `gracrc compile` writes a model file (an inf weight) its own loader refuses."""
    source = tmp_path / "t.gml"
    source.write_text(text)
    model = tmp_path / "m.npz"
    err = _bad_input(*run("compile", str(source), "--delta", delta, "-o", str(model)))
    assert f"t.gml:{place}: the threshold atom" in err
    assert f"needs the {what} (--delta {float(delta):g}), beyond float32" in err
    assert not model.exists()
    with pytest.raises(GracrError, match="beyond float32"):
        gracr.compile(gracr.parse(text), delta=float(delta))


def test_a_linear_count_coefficient_beyond_exact_float32_integers_is_refused(
        tmp_path: Path) -> None:
    source = tmp_path / "t.gml"
    source.write_text("colors red\nclassify count(red) > "
                      "1234567890123456789012345678901234567890 * count(!red)\n")
    model = tmp_path / "m.npz"
    err = _bad_input(*run("compile", str(source), "-o", str(model)))
    assert "t.gml:2:10: " in err and "over 16777216" in err
    assert not model.exists()


# ---------------------------------------------------------------- long declarations


@pytest.mark.parametrize("line", ["colors", "relations", "features", "attribute element ="])
def test_a_declaration_over_the_name_limit_is_refused_with_its_place(line: str) -> None:
    from gracr.limits import MAX_DECLARED_NAMES

    names = ", ".join(f"n{i}" for i in range(MAX_DECLARED_NAMES + 1))
    with pytest.raises(GmlError) as caught:
        gracr.parse(f"{line} {names}\nclassify true\n")
    column = len(f"{line} ") + len(", ".join(f"n{i}" for i in range(MAX_DECLARED_NAMES))) + 3
    assert (f"<string>:1:{column}: a declaration of {MAX_DECLARED_NAMES + 1} names, over "
            f"gracr's limit of {MAX_DECLARED_NAMES} (MAX_DECLARED_NAMES)") in str(caught.value)


def test_a_colors_line_of_150000_names_is_refused_in_linear_time(tmp_path: Path) -> None:
    """Each name was compared with every earlier one: 150 000 took minutes. The guard is a
    hard timeout on the subprocess, far above what a linear read takes."""
    source = tmp_path / "wide.gml"
    source.write_text("colors " + ", ".join(f"c{i}" for i in range(150_000)) +
                      "\nclassify c0\n")
    done = subprocess.run([sys.executable, "-m", "gracr.cli", "compile", str(source), "-o",
                           str(tmp_path / "m.npz")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "a declaration of 150000 names, over gracr's limit of 10000" in done.stderr
