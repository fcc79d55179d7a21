"""Graph readouts (compile option `readout`): ours (`threshold`, the sum and thresholds),
WOMBAT's r1 (`max`, Eq. 3) and r2 (`soft-or`, Eq. 4, 1 − Π_v (1 − h_v)).

That every executor decides as the evaluator under each readout (and `CompiledGNN.predict`
too) is `tests/test_executors_conform.py`'s `readouts` family. Here: the gradients on
hand-built cases whose expected values are worked out by hand, and the readout option
through the model file, the command line and the bench.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import gracr
from gracr.cli import main
from gracr.data.graph import Graph
from gracr.errors import GracrError
from gracr.executor.model import compile_program

READOUTS = ("threshold", "max", "soft-or")


# ---------------------------------------------------------------- gradients, by hand

EXISTS_RED = "colors red, blue\nclassify exists red"
PATH = [[0, 1], [1, 0], [1, 2], [2, 1]]


def _gradient(readout: str, red: list[float], surrogate: bool) -> tuple[float, list[float]]:
    """Output and ∂output/∂x[v, red] of `exists red` on a 3-node path whose node v has
    x[v] = (red[v], 1 − red[v]). `exists red` has no layer: h_v = x[v, red]."""
    model = gracr.compile(gracr.parse(EXISTS_RED), readout=readout)  # type: ignore[arg-type]
    assert model.num_layers == 0
    x = torch.tensor([[r, 1.0 - r] for r in red], requires_grad=True)
    output = model.to_pyg(surrogate=surrogate)(x, torch.tensor(PATH).t())
    (gradient,) = torch.autograd.grad(output.sum(), x)
    assert gradient[:, 1].abs().sum() == 0  # blue is not read
    return float(output.detach()), [round(float(g), 6) for g in gradient[:, 0]]


# Continuous h = (0.9, 0.6, 0):
#   threshold: z = 0.9 + 0.6 + 0 − 1 + 1 = 1.5, σ = 1; surrogate 1{z > 0} = 1 for every
#              node; exact derivative of clamp at 1.5 is 0.
#   max:       r = 0.9, only the maximal node 0 gets 1.
#   soft-or:   r = 1 − 0.1·0.4·1 = 0.96; ∂r/∂h_0 = (1 − 0.6)(1 − 0) = 0.4,
#              ∂r/∂h_1 = (1 − 0.9)(1 − 0) = 0.1, ∂r/∂h_2 = 0.1·0.4 = 0.04.
CONTINUOUS = [
    ("threshold", True, 1.0, [1.0, 1.0, 1.0]),
    ("threshold", False, 1.0, [0.0, 0.0, 0.0]),
    ("max", True, 0.9, [1.0, 0.0, 0.0]),
    ("max", False, 0.9, [1.0, 0.0, 0.0]),
    ("soft-or", True, 0.96, [0.4, 0.1, 0.04]),
    ("soft-or", False, 0.96, [0.4, 0.1, 0.04]),
]

# Boolean, two red nodes h = (1, 1, 0):
#   threshold: z = 2; surrogate 1 everywhere, exact 0 everywhere.
#   max:       the two maximal nodes share the gradient: 1/2 each.
#   soft-or:   ∂r/∂h_v = Π_{u≠v}(1 − h_u) holds a factor (1 − 1) for every v: all 0
#              (WOMBAT's collapse of Saliency under r2).
# Boolean, one red node h = (1, 0, 0): soft-or ∂r/∂h_0 = 1·1 = 1, ∂r/∂h_1 = (1 − 1)·1 = 0.
BOOLEAN = [
    ("threshold", [1.0, 1.0, 0.0], True, [1.0, 1.0, 1.0]),
    ("threshold", [1.0, 1.0, 0.0], False, [0.0, 0.0, 0.0]),
    ("max", [1.0, 1.0, 0.0], True, [0.5, 0.5, 0.0]),
    ("soft-or", [1.0, 1.0, 0.0], True, [0.0, 0.0, 0.0]),
    ("soft-or", [1.0, 0.0, 0.0], True, [1.0, 0.0, 0.0]),
    ("soft-or", [1.0, 0.0, 0.0], False, [1.0, 0.0, 0.0]),
    ("max", [1.0, 0.0, 0.0], False, [1.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("readout,surrogate,value,gradient", CONTINUOUS)
def test_gradients_through_each_readout_on_continuous_states(
        readout: str, surrogate: bool, value: float, gradient: list[float]) -> None:
    output, got = _gradient(readout, [0.9, 0.6, 0.0], surrogate)
    assert output == pytest.approx(value, abs=1e-6)
    assert got == pytest.approx(gradient, abs=1e-6)


@pytest.mark.parametrize("readout,red,surrogate,gradient", BOOLEAN)
def test_gradients_through_each_readout_on_boolean_states(
        readout: str, red: list[float], surrogate: bool, gradient: list[float]) -> None:
    output, got = _gradient(readout, red, surrogate)
    assert output == 1.0
    assert got == gradient


def test_the_numpy_readouts_are_the_same_functions() -> None:
    graph = Graph.from_edges(3, [["red"], ["red"], ["blue"]], [tuple(e) for e in PATH])
    x = np.array([[0.9, 0.1], [0.6, 0.4], [0.0, 1.0]])
    # Sum 1.5 thresholded at 1; max 0.9; 1 − 0.1 · 0.4 · 1.
    for readout, value in (("threshold", 1.0), ("max", 0.9), ("soft-or", 0.96)):
        model = gracr.compile(gracr.parse(EXISTS_RED), readout=readout)  # type: ignore[arg-type]
        assert model.forward(x, graph.edge_index)[0, 0] == pytest.approx(value)
        # Two graphs in one batch: nodes 0, 1 and node 2 (h = 0: every readout gives 0).
        batched = model.forward(x, np.zeros((2, 0), dtype=np.int64), batch=[0, 0, 1])
        assert batched[:, 0] == pytest.approx([value, 0.0])
        module = model.to_pyg()
        with torch.no_grad():
            out = module(torch.tensor(x, dtype=torch.float32), torch.zeros((2, 0), dtype=torch.long),
                         torch.tensor([0, 0, 1]))
        assert out[:, 0].tolist() == pytest.approx([value, 0.0])


# ---------------------------------------------------------------- where they apply


@pytest.mark.parametrize("readout", ["max", "soft-or"])
def test_a_count_above_one_needs_the_threshold_readout(readout: str) -> None:
    for text, count in (("exists[2, inf] red", 2), ("exists[1, 2] red", 3),
                        ("exists red & exists[0, 3] blue", 4)):
        program = gracr.parse(f"colors red, blue\nclassify {text}")
        with pytest.raises(GracrError, match=f"counts at least {count} nodes"):
            gracr.compile(program, readout=readout)  # type: ignore[arg-type]
    with pytest.raises(GracrError, match="applies to graph classifiers"):
        gracr.compile(gracr.parse("colors red\nclassify red"), readout=readout)  # type: ignore[arg-type]


def test_an_unknown_readout_is_refused() -> None:
    with pytest.raises(GracrError, match="readout must be 'threshold', 'max' or 'soft-or'"):
        gracr.compile(gracr.parse(EXISTS_RED), readout="mean")  # type: ignore[arg-type]


def test_the_model_file_records_the_readout(tmp_path: Path) -> None:
    path = tmp_path / "m.npz"
    gracr.compile(gracr.parse(EXISTS_RED), readout="soft-or").save(str(path))
    with np.load(str(path), allow_pickle=False) as archive:
        meta = json.loads(str(archive["metadata"]))
    assert meta["format_version"] == 5 and meta["options"]["readout"] == "soft-or"
    loaded = gracr.load(str(path))
    assert loaded.options.readout == "soft-or"
    x = np.array([[0.9, 0.1], [0.6, 0.4], [0.0, 1.0]])
    assert loaded.forward(x, np.zeros((2, 0)))[0, 0] == pytest.approx(0.96)


def test_a_version_3_file_loads_with_the_threshold_readout(tmp_path: Path) -> None:
    from gracr.compiler.network import checksum

    path = tmp_path / "m.npz"
    gracr.compile(gracr.parse(EXISTS_RED)).save(str(path))
    with np.load(str(path), allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    meta = json.loads(str(arrays.pop("metadata")))
    meta["format_version"] = 3
    del meta["options"]["readout"]
    meta["checksum"] = checksum(arrays, meta)
    np.savez(str(path), metadata=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    assert gracr.load(str(path)).options.readout == "threshold"


def test_the_command_line_takes_the_readout(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    formula = tmp_path / "f.gml"
    formula.write_text(EXISTS_RED + "\n")
    graphs = tmp_path / "g.json"
    graphs.write_text(json.dumps({"num_nodes": 2, "colors": [["red"], ["red"]],
                                  "edges": [[0, 1]]}) + "\n")
    model = tmp_path / "m.npz"
    assert main(["compile", str(formula), "-o", str(model), "--readout", "max"]) == 0
    assert gracr.load(str(model)).options.readout == "max"
    assert main(["inspect", str(model)]) == 0
    shown = capsys.readouterr().out
    assert "readout=max" in shown and "max_nodes(h0)" in shown
    assert main(["eval", str(formula), str(graphs), "--readout", "soft-or"]) == 0
    assert json.loads(capsys.readouterr().out) == {"formula": 1, "gnn": 1}
    bad = tmp_path / "node.gml"
    bad.write_text("colors red\nclassify red\n")
    assert main(["eval", str(bad), str(graphs), "--readout", "max"]) == 2
    assert "applies to graph classifiers" in capsys.readouterr().err


@pytest.mark.parametrize("readout", ["max", "soft-or"])
def test_lrp_and_flowx_refuse_a_readout_they_do_not_model(readout: str) -> None:
    from gracr.explainers.flowx import IncrementalNetwork
    from gracr.explainers.lrp import lrp_relevance

    model = gracr.compile(gracr.parse(EXISTS_RED), readout=readout)  # type: ignore[arg-type]
    x = np.array([[1.0, 0.0], [0.0, 1.0]])
    edges = np.array([[0], [1]])
    with pytest.raises(GracrError, match="sum pooling"):
        lrp_relevance(model, x, edges, None)
    with pytest.raises(GracrError, match="sum-pooled readout"):
        IncrementalNetwork(model, x, edges, None)


def test_the_readouts_are_bench_variants_of_the_tasks_they_apply_to() -> None:
    from gracr.bench.instances import compile_variant, variant_named
    from gracr.bench.runner import plan_jobs

    # Redundancy is `exists (black & <1> red)`; Majority1Hop a node classifier.
    jobs = plan_jobs(["Redundancy", "Majority1Hop"], ["main", "max", "soft-or"], ["Rnd"], [0],
                     1, 10.0, {}, settings="default")
    assert sorted((job.task, job.variant) for job in jobs) == [
        ("Majority1Hop", "main"), ("Redundancy", "main"), ("Redundancy", "max"),
        ("Redundancy", "soft-or")]

    class _NoGraphs:  # compile_variant reads the graphs only for Eq. 6's bound
        instances: list[Any] = []

    model = compile_variant("Redundancy", variant_named("soft-or"), _NoGraphs())  # type: ignore[arg-type]
    assert model.options.readout == "soft-or"


@pytest.mark.parametrize("readout", READOUTS)
def test_saliency_on_a_typed_molecule_is_the_gradient_under_each_readout(readout: str) -> None:
    """Captum's Saliency through PyG at node level on WOMBAT's P12 (typed: `edge_type`):
    the sum over a node's features of |∂ output / ∂ x|, taken here by autograd on the
    module itself. On malondialdehyde O=CC-C=O both CH are roots of `[!#1][CH]=O`, so under
    `soft-or` every node's gradient has a factor (1 − 1): all scores 0 (by hand, above)."""
    from gracr.explainers.base import Subject, scores
    from gracr.domains.chem import read_smiles
    from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path

    program = gracr.parse(wombat_formula_path(WOMBAT_PATTERNS[11]))
    model = compile_program(program, presence=True, readout=readout)  # type: ignore[arg-type]
    graph = read_smiles("O=CCC=O").graph
    got = scores("Saliency", Subject.of(model, program, graph, None, level="node"))
    x = torch.as_tensor(model.features(graph), dtype=torch.float32).requires_grad_(True)
    output = model.to_pyg(surrogate=True)(x, torch.as_tensor(graph.edge_index),
                                          edge_type=torch.as_tensor(model.edge_types(graph)))
    (gradient,) = torch.autograd.grad(output.sum(), x)
    assert got.tolist() == pytest.approx(gradient.abs().sum(dim=1).tolist())
    if readout == "soft-or":
        assert not got.any()
    else:
        assert got.any()
