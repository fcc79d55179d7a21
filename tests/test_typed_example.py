"""The typed-graph example of the site's "Typed graphs" page runs and says what the page says
it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_typed_graph_example_runs() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "examples/typed/typed_graphs.py")],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    out = result.stdout
    assert "encode: Data(x=[5, 8], edge_index=[2, 8], edge_type=[8])" in out
    # A negative instance: the three single bonds make `atmost{single, aromatic} 2 true` fail.
    assert "label 0; UPI edges [0, 0, 0, 1, 0, 1, 0, 1], nodes [0, 0, 1, 1, 1]" in out
    # The carbonyl: its double bond, and over nodes its O (the target is never a variable).
    assert "label 1; UPI edges [0, 0, 0, 1], nodes [0, 0, 1]" in out
    # Zeroing an atom deletes it only under the presence bit.
    assert "atom 4 zeroed, presence=False: target 0 (formula with atom 4 deleted: 1)" in out
    assert "atom 4 zeroed, presence=True: target 1 (formula with atom 4 deleted: 1)" in out
