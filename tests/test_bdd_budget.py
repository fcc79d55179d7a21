"""The ROBDD node budget: an instance whose diagram outgrows it stops with a message
naming it (exit 2 on the command line), on both engines and by both of CUDD's stops."""

from __future__ import annotations

from pathlib import Path

import pytest

import gracr
import gracr.bdd.backend as backend
from gracr.bdd.backend import DiagramTooLarge
from gracr.bdd.upi import upi
from gracrc_cli import run

ROOT = Path(__file__).resolve().parent.parent
EDGE_COVER = gracr.parse("classify exists[0, 0] !<1> true")


def complete_graph(n: int) -> gracr.Graph:
    return gracr.Graph.from_edges(n, [[] for _ in range(n)],
                                  [(s, t) for s in range(n) for t in range(n)])


@pytest.mark.parametrize("engine", ["cudd", "autoref"])
def test_a_diagram_over_budget_stops(engine: str) -> None:
    graph = complete_graph(7)
    # Algorithm 1 as written on the edge order builds thousands of nodes here.
    label, mask = upi(EDGE_COVER, graph, backend=engine, shortcuts=False, order="edges",
                      max_nodes=None)
    assert label == 1 and mask.all()
    with pytest.raises(DiagramTooLarge, match="outgrew its budget of 500 nodes"):
        upi(EDGE_COVER, graph, backend=engine, shortcuts=False, order="edges", max_nodes=500)


def test_cudd_refuses_an_operation_past_its_memory_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # Never count: only CUDD's hard memory limit can stop the build.
    monkeypatch.setattr(backend, "MEMORY_FLOOR", 2**20)
    monkeypatch.setattr(backend.CuddBackend, "check_budget", lambda self: None)
    with pytest.raises(DiagramTooLarge):
        upi(EDGE_COVER, complete_graph(9), shortcuts=False, order="edges", max_nodes=2000)


def test_the_command_line_names_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = run("upi", "gracr/formulas/Redundancy.gml",
                         "examples/graphs/Redundancy.jsonl", "--max-bdd-nodes", "3")
    assert code == 2 and out == ""
    assert err == ("gracrc: error: examples/graphs/Redundancy.jsonl:1: the ROBDD outgrew its "
                   "budget of 3 nodes (--max-bdd-nodes); raise the budget if the machine has "
                   "the memory, or shrink the instance\n")


def test_a_dataset_build_names_the_instance_and_leaves_nothing(tmp_path: Path) -> None:
    code, _, err = run("dataset", "Majority1Hop", "--targets", "3", "--max-bdd-nodes", "3",
                       "--out", str(tmp_path / "store"))
    assert code == 2
    assert err.startswith("gracrc: error: Majority1Hop seed 0, graph 0, target ")
    assert "outgrew its budget of 3 nodes" in err
    assert not (tmp_path / "store").exists()
