"""`gracrc tissue`, `gracrc relevance` and the margin report of `gracrc eval`, end to end.

The generated dataset is read back through gracr itself: its `.gml` parses, its graphs
fit the program's schema, the evaluator's label equals the label recomputed from the
cell table, and the compiled network agrees. `relevance` is checked against the
brute-force oracle on a hand-made graph with literal values.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import gracr
from gracr.domains.tissue import CellTable, recompute_label
from gracrc_cli import run

TINY_RULE = """features cd8, ck
relations near, far
let tumour = ck - cd8 > 0.5
let tcell  = cd8 - ck > 0.5
let engaged = tumour & <1>{near} tcell
classify count(engaged) > 0.5 * count(tumour)
"""
# Two tumour cells (0, 1), one T cell (2) near tumour 0: ratio 1/2, not above 0.5.
# Removing tumour 1 makes it 1/1: the only minimal flipping removal is {1}.
TINY_GRAPH = {"num_nodes": 3, "features": [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]],
              "edges": [[2, 0], [0, 2]], "relations": ["near", "near"]}


def test_tissue_writes_a_dataset_gracr_reads_back(tmp_path: Path) -> None:
    code, out, err = run("tissue", "--out", str(tmp_path), "--samples", "12", "--seed", "5")
    assert code == 0, err
    assert "12 samples" in out
    program = gracr.parse(tmp_path / "tissue.gml")
    model = gracr.compile(program)
    tables = [CellTable.from_json(json.loads(line))
              for line in (tmp_path / "cells.jsonl").read_text().splitlines()]
    theta = float(program.classifier.coefficients[1] * -1)  # count(e) - θ count(t) > 0
    graphs = list(gracr.read_graphs(str(tmp_path / "graphs.jsonl"), program.schema))
    assert len(graphs) == len(tables) == 12
    labels = [bool(gracr.evaluate(program, g)) for g in graphs]
    assert labels == [recompute_label(t, theta) for t in tables]
    assert labels == [model.predict(g) for g in graphs]
    assert 0 < sum(labels) < 12
    assert all(g.edge_attr is not None and g.edge_attr.shape == (g.num_edges, 1) for g in graphs)
    task = (tmp_path / "tissue.toml").read_text()
    assert 'formula = "tissue.gml"' in task and 'file = "graphs.jsonl"' in task


def test_tissue_refuses_too_few_samples(tmp_path: Path) -> None:
    code, _, err = run("tissue", "--out", str(tmp_path), "--samples", "1")
    assert code == 2 and "at least 2" in err


def test_relevance_prints_each_cell_and_how_it_was_computed(tmp_path: Path) -> None:
    rule = tmp_path / "tiny.gml"
    rule.write_text(TINY_RULE)
    graphs = tmp_path / "tiny.json"
    graphs.write_text(json.dumps(TINY_GRAPH))
    code, out, err = run("relevance", str(rule), str(graphs), "--all")
    assert code == 0, err
    assert "label 0; smallest counterfactual: 1 node(s)" in out
    assert "Shapley: exact" in out
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:5]]
            for line in out.splitlines() if line.startswith("| ") and "node" not in line}
    # v(S) = 1 only for S = {0, 2} (tumour 0 engaged by T cell 2, tumour 1 absent):
    # φ0 = φ2 = 1!1!/3! = 1/6 (joining {2}, resp. {0}); φ1 = -2!0!/3! = -1/3 (joining
    # {0, 2}); they sum to v(V) - v(∅) = 0. Banzhaf: ±1 on one of 4 subsets, ±1/4.
    shapley = {node: float(row[2]) for node, row in rows.items()}
    assert shapley == pytest.approx({"0": 1 / 6, "1": -1 / 3, "2": 1 / 6}, rel=1e-5)
    assert rows["1"][0] == "yes" and rows["0"][0] == "" and rows["2"][0] == ""
    banzhaf = {node: Fraction(row[1]).limit_denominator(100) for node, row in rows.items()}
    assert banzhaf == {"0": Fraction(1, 4), "1": Fraction(-1, 4), "2": Fraction(1, 4)}


def test_relevance_json_matches_the_brute_force(tmp_path: Path) -> None:
    from gracr.bdd.brute import brute_force_relevance

    rule = tmp_path / "tiny.gml"
    rule.write_text(TINY_RULE)
    graphs = tmp_path / "tiny.json"
    graphs.write_text(json.dumps(TINY_GRAPH))
    code, out, _ = run("relevance", str(rule), str(graphs), "--json")
    assert code == 0
    record = json.loads(out)
    program = gracr.parse(TINY_RULE)
    label, counterfactual, smallest, banzhaf, shapley = brute_force_relevance(
        program, gracr.Graph.from_json(TINY_GRAPH))
    assert (record["label"], record["min_counterfactual"]) == (label, smallest) == (0, 1)
    assert record["counterfactual"] == [int(c) for c in counterfactual] == [0, 1, 0]
    assert record["shapley"] == pytest.approx([float(v) for v in shapley])
    assert record["banzhaf"] == pytest.approx([float(v) for v in banzhaf])
    assert record["shapley_method"] == "exact"


def test_eval_names_the_nodes_inside_a_margin(tmp_path: Path) -> None:
    rule = tmp_path / "tiny.gml"
    rule.write_text(TINY_RULE)
    graph = dict(TINY_GRAPH, features=[[0.0, 0.5004], [0.0, 1.0], [1.0, 0.0]])
    graphs = tmp_path / "margin.json"
    graphs.write_text(json.dumps(graph))
    code, out, err = run("eval", str(rule), str(graphs))
    assert code == 0
    assert "1 node(s) inside the margin of a threshold atom (--delta 0.001)" in err
    assert err.rstrip().endswith(": 0")
    code, _, err = run("eval", str(rule), str(graphs), "--delta", "0.0001")
    assert code == 0 and "margin" not in err


@pytest.mark.parametrize("option, message", [
    (["--seed", "-1"], "--seed must lie in [0, 2**32), got -1"),
    (["--seed", str(2**32)], "--seed must lie in [0, 2**32)"),
    (["--cells", "1"], "--cells must be at least 40"),
    (["--cells", "20"], "--cells must be at least 40"),
])
def test_tissue_refuses_a_bad_seed_or_too_few_cells(tmp_path: Path, option: list[str],
                                                    message: str) -> None:
    code, _, err = run("tissue", "--out", str(tmp_path / "out"), "--samples", "4", *option)
    assert (code, err.count("\n")) == (2, 1), err
    assert message in err and "internal error" not in err
    assert not (tmp_path / "out").exists()


def test_tissue_says_when_no_theta_splits_the_samples(tmp_path: Path) -> None:
    # Seed 0 draws two 40-cell samples with the same engaged fraction, 1/2.
    code, _, err = run("tissue", "--out", str(tmp_path), "--samples", "2", "--cells", "40",
                       "--seed", "0")
    assert code == 2 and "no θ splits these 2 samples" in err and "1/2" in err, err


def test_tissue_overwrites_no_file(tmp_path: Path) -> None:
    kept = tmp_path / "graphs.jsonl"
    kept.write_text("mine\n")
    code, _, err = run("tissue", "--out", str(tmp_path), "--samples", "4", "--cells", "60")
    assert code == 2 and f"{kept}: already exists" in err, err
    assert kept.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graphs.jsonl"]


def test_tissue_run_again_keeps_the_same_dataset_and_adds_what_is_missing(
        tmp_path: Path) -> None:
    command = ("tissue", "--out", str(tmp_path), "--samples", "4", "--cells", "60")
    assert run(*command)[0] == 0
    (tmp_path / "tissue.toml").unlink()
    kept = {p.name: (p.stat().st_ino, p.read_bytes()) for p in tmp_path.iterdir()}
    code, out, err = run(*command)
    assert code == 0, err
    assert out.count("(already there)") == 3 and (tmp_path / "tissue.toml").exists()
    assert all((p.stat().st_ino, p.read_bytes()) == kept[p.name]   # not even rewritten
               for p in tmp_path.iterdir() if p.name in kept)


@pytest.mark.parametrize("option, message", [
    (["--seed", "-1"], "--seed must lie in [0, 2**32)"),
    (["--max-epochs", "-1"], "--max-epochs must be at least 0"),
    (["--cells", "20"], "--cells must be at least 40"),
    (["--model-seeds", "0,-1"], "a model seed must lie in [0, 2**32), got -1"),
])
def test_tissue_study_refuses_bad_options(tmp_path: Path, option: list[str],
                                          message: str) -> None:
    code, _, err = run("tissue-study", "--out", str(tmp_path / "study"), "--quiet", *option)
    assert code == 2 and message in err and "internal error" not in err, err
    assert not (tmp_path / "study").exists()


def test_tissue_sparse_refuses_a_field_too_narrow_for_its_motif(tmp_path: Path) -> None:
    # 40 cells pass the dataset's own floor, but their field (146 µm) cannot hold the
    # motif 75 µm from every edge.
    code, _, err = run("tissue-sparse", "--out", str(tmp_path / "sparse"), "--quiet",
                       "--cells", "40", "--samples", "12")
    assert code == 2 and "internal error" not in err, err
    assert "146 µm wide, too narrow for its motif" in err and "at least 43 cells" in err
    assert not (tmp_path / "sparse").exists()
