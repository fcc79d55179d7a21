"""The UPI of fixed instances, byte for byte as gracr computed it before the speed work of
issue 38 (commit 6910e0f): `tests/golden/upi_reports.jsonl`, made once from that commit and
never regenerated. Per instance of each of the six tasks (3 explained instances, drawn as
`benchmarks/upi_stages.py` draws them, seed 7) and the Table 12 edge cover (N = 7, 30),
over edges, nodes and both: the label, the masks, and the sizes of the diagrams (of `f`,
of `f^`, and what the manager holds after Build), which the bottom-up counters, the
computation order's walk and the value at the full graph must leave as they were."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import gracr
from gracr.bdd.upi import upi_report
from gracr.data.graph import Graph

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = [json.loads(line) for line in
          (ROOT / "tests" / "golden" / "upi_reports.jsonl").read_text().splitlines()]


def _name(record: dict[str, object]) -> str:
    formula = str(record["formula"])
    return Path(formula).stem if formula.endswith(".gml") else "edge-cover"


@pytest.mark.parametrize("record", GOLDEN, ids=[f"{_name(r)}-{i}" for i, r in enumerate(GOLDEN)])
def test_upi_reports_are_as_before(record: dict[str, object]) -> None:
    formula = str(record["formula"])
    prog = gracr.parse(ROOT / formula if formula.endswith(".gml") else formula)
    graph = Graph.from_json(record["graph"])
    for case in record["cases"]:  # type: ignore[attr-defined]
        report = upi_report(prog, graph, case["target"], case["over"])
        assert (report.label, np.flatnonzero(report.mask).tolist(),
                np.flatnonzero(report.node_mask).tolist()) == (
            case["label"], case["mask"], case["node_mask"]), case["over"]
        assert (report.nodes_built, report.nodes_extended, report.manager_nodes) == (
            case["nodes_built"], case["nodes_extended"], case["manager_nodes"]), case["over"]
