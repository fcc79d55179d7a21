"""The PyG example of the site's "Use with PyG" page runs (small: 2 instances, 20 epochs) and shows
what the page says:
PyG's default GNNExplainer finds nothing on a compiled model, the paper's initialisation finds
the UPI, and the example's GracrBench row is the benchmark's GNNExplainer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gracr.bench.budget import explain
from gracr.explainers import explainer_seed
from gracr.bench.instances import first_subjects

ROOT = Path(__file__).resolve().parent.parent
TASK, SIZE, INSTANCES, EPOCHS = "RedBlueLeaf-NC", 20, 2, 20


@pytest.mark.big
def test_the_pyg_explainer_example_runs_and_scores_both_ways(tmp_path: Path) -> None:
    datasets = str(tmp_path / "datasets")
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples/pyg_explainer.py"), "--task", TASK, "--size",
         str(SIZE), "--instances", str(INSTANCES), "--epochs", str(EPOCHS), "--datasets",
         datasets], capture_output=True, text=True, check=True, cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines[0] == (f"{TASK} seed 0 ({SIZE} targets): the first {INSTANCES} positive "
                        f"instances, GNNExplainer {EPOCHS} epochs; means over instances")
    rows = {cells[0]: [float(v) for v in cells[1:]] for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in lines[3:])}
    assert list(rows) == ["PyG default", "paper init", "GracrBench"]
    # Columns: gracr precision, recall, F1 (best threshold); PyG precision, recall, F1 (0.5).
    # PyG's start (σ ≈ 0.5) leaves every score 0: gracr selects every edge (recall 1, F1 ≈
    # |UPI| / |E|), PyG's threshold none.
    assert rows["PyG default"][1] == 1.0 and rows["PyG default"][2] < 0.05
    assert rows["PyG default"][3:] == [0.0, 0.0, 0.0]
    assert rows["paper init"] == [1.0] * 6
    # Without the hard mask the edges the target never reads keep σ(5) ≈ 0.99 ≥ 0.5.
    assert rows["GracrBench"][:3] == [1.0, 1.0, 1.0]
    assert rows["GracrBench"][4] == 1.0 and rows["GracrBench"][5] < 0.05
    bench = [explain("GNNExplainer", subject, instance.upi, {"epochs": EPOCHS},
                     explainer_seed(0, instance.index), None)
             for instance, subject in first_subjects(TASK, 0, INSTANCES, SIZE, datasets)]
    assert [round(float(np.mean([getattr(o, name) for o in bench])), 2)
            for name in ("precision", "recall", "f1")] == rows["GracrBench"][:3]
