"""`gracr.explainers.api`: `explain` one graph and `score` the explanation, without the
benchmark.

The expected values are worked out by hand on `tiny_models.NODE_GRAPH`, `<> red` at node
0: edges 1 -> 0 (red), 2 -> 0 (blue), 3 -> 2 (two hops out); the only sufficient
subgraph is {1 -> 0} over edges and {1} over nodes (deleting node 1 leaves no red
neighbour)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pytest
import torch
from torch_geometric.explain import Explanation

import gracr
from gracr.errors import GracrError
from gracr.explainers import EXPLAINERS, ExplainerTask, Subject, edge_scores, scores
from gracr.explainers.api import Score, explain, score
from tiny_models import GRAPH_GRAPH, NODE_GRAPH

ROOT = Path(__file__).resolve().parent.parent
NODE_SOURCE = "colors grey, red, blue\nclassify <> red"
EDGE_UPI = np.array([True, False, False])
NODE_UPI = np.array([False, True, False, False])


@dataclass(frozen=True)
class Truth:
    """Ground truth as `gracr.GroundTruth` holds it: masks, None where not asked."""

    edge_mask: np.ndarray | None
    node_mask: np.ndarray | None


class Constant:
    """An `Explainer` that is no `ExplainerSpec`: every edge and node scores the same."""

    name = "Constant"

    def supports(self, task: ExplainerTask) -> bool:
        return task.model == "compiled"

    def __call__(self, subject: Subject, settings: Mapping[str, Any],
                 seed: int) -> Explanation:
        value = float(settings.get("value", 1.0))
        return Explanation(edge_mask=torch.full((subject.num_edges,), value),
                           node_mask=torch.full((subject.num_nodes, 2), value))


@pytest.fixture(scope="module")
def node_model() -> tuple[gracr.Program, gracr.CompiledGNN]:
    program = gracr.parse(NODE_SOURCE)
    return program, gracr.compile(program)


def test_saliency_finds_the_one_relevant_edge(node_model: Any) -> None:
    program, model = node_model
    explanation = explain(model, NODE_GRAPH, "Saliency", target=0, program=program)
    assert isinstance(explanation, Explanation) and explanation.index == 0
    # Only the red neighbour's message moves `<> red`: a positive gradient, the others 0.
    assert explanation.edge_mask[0] > 0 and explanation.edge_mask[1:].tolist() == [0.0, 0.0]
    assert score(explanation, EDGE_UPI) == Score("f1", "edge", 1.0, 1.0, 1.0,
                                                 float(explanation.edge_mask[0]))
    assert score(explanation, EDGE_UPI, "auroc").value == 1.0
    assert score(explanation, EDGE_UPI, "average_precision").value == 1.0


def test_node_scores_leave_the_target_out(node_model: Any) -> None:
    program, model = node_model
    explanation = explain(model, NODE_GRAPH, "Saliency", target=0, program=program,
                          over="both")
    assert explanation.edge_mask.shape == (3,) and explanation.node_mask.shape == (4,)
    # Saliency of the features: the two in-neighbours' colours feed the same count, so
    # nodes 1 and 2 tie above 0 (node 3 is out of reach, node 0's own colour is not read).
    # Without the target, nodes 1, 2, 3 score (s, s, 0) against (yes, no, no): the best
    # threshold selects {1, 2}, precision 1/2, recall 1, F1 2/3.
    result = score(explanation, Truth(None, NODE_UPI))
    assert (result.level, result.precision, result.recall) == ("node", 0.5, 1.0)
    assert result.value == pytest.approx(2 / 3)
    # With both masks on both sides the edges are scored unless the nodes are asked.
    assert score(explanation, Truth(EDGE_UPI, NODE_UPI)).level == "edge"
    assert score(explanation, Truth(EDGE_UPI, NODE_UPI), level="node") == result


def test_an_explainer_object_runs_with_its_settings_as_given(node_model: Any) -> None:
    program, model = node_model
    explanation = explain(model, NODE_GRAPH, Constant(), target=0, over="both", value=2.0)
    assert explanation.edge_mask.tolist() == [2.0, 2.0, 2.0]
    assert explanation.node_mask.tolist() == [4.0] * 4   # [N, 2] -> sum of |values|
    # All three edges tie: every edge selected, precision 1/3, recall 1, F1 1/2; a tie
    # ranks the UPI edge half above the others: AUROC 1/2, average precision 1/3.
    assert score(explanation, EDGE_UPI) == Score("f1", "edge", 0.5, 1 / 3, 1.0, 2.0)
    assert score(explanation, EDGE_UPI, "auroc").value == 0.5
    assert score(explanation, EDGE_UPI, "average_precision").value == pytest.approx(1 / 3)


class EdgesOnly(Constant):
    def supports(self, task: ExplainerTask) -> bool:
        return task.level == "edge"


def test_an_explainer_object_is_asked_what_it_supports(node_model: Any) -> None:
    program, model = node_model
    assert explain(model, NODE_GRAPH, EdgesOnly(), target=0).edge_mask.tolist() == [1.0] * 3
    with pytest.raises(GracrError, match="Constant does not support this task: "
                                         "ExplainerTask\\(level='node'"):
        explain(model, NODE_GRAPH, EdgesOnly(), target=0, over="nodes")


def test_a_graph_classifier_is_explained_without_a_target() -> None:
    # `exists (black & <> red)`: only the black hub 0 with its red neighbour 1 makes it
    # true, through edge 1 -> 0 (edge 0); the red 3 -> grey 4 pair has no black node.
    program = gracr.parse("colors black, red, grey\nclassify exists (black & <> red)")
    explanation = explain(gracr.compile(program), GRAPH_GRAPH, "Saliency", program=program)
    assert getattr(explanation, "index", None) is None
    upi = np.array([True, False, False, False, False])
    assert score(explanation, upi) == Score("f1", "edge", 1.0, 1.0, 1.0,
                                            float(explanation.edge_mask[0]))
    with pytest.raises(GracrError, match="a graph classifier has no target node"):
        explain(gracr.compile(program), GRAPH_GRAPH, "Saliency", target=0)


def test_explain_is_the_lower_level_run(node_model: Any) -> None:
    program, model = node_model
    subject = Subject.of(model, program, NODE_GRAPH, 0)
    for name, settings in (("Rnd", {}), ("GNNExplainer", {"epochs": 5}), ("GraphSVX", {})):
        ours = explain(model, NODE_GRAPH, name, target=0, seed=7, program=program, **settings)
        assert torch.equal(ours.edge_mask, edge_scores(name, subject, settings, seed=7)), name
    node_level = explain(model, NODE_GRAPH, "LRP", target=0, over="nodes", program=program)
    assert torch.equal(node_level.node_mask,
                       scores("LRP", Subject.of(model, program, NODE_GRAPH, 0, level="node")))


def test_without_the_program_every_edge_is_in_the_receptive_field(node_model: Any) -> None:
    program, model = node_model
    with_program = explain(model, NODE_GRAPH, "Rnd", target=0, seed=3, program=program)
    without = explain(model, NODE_GRAPH, "Rnd", target=0, seed=3)
    # Rnd's coins: the same draw, kept on the receptive field only (edge 3 -> 2 is out).
    assert with_program.edge_mask[2] == 0.0
    assert with_program.edge_mask[:2].tolist() == without.edge_mask[:2].tolist()


def test_bad_requests_are_errors_that_name_the_problem(node_model: Any) -> None:
    program, model = node_model
    with pytest.raises(GracrError, match="has no settings 'epoch', 'rate'"):
        explain(model, NODE_GRAPH, "GNNExplainer", target=0, epoch=3, rate=1)
    with pytest.raises(GracrError, match="unknown explainer 'Nope'"):
        explain(model, NODE_GRAPH, "Nope", target=0)
    with pytest.raises(GracrError, match="a node classifier is explained at a node"):
        explain(model, NODE_GRAPH, "Rnd")
    with pytest.raises(GracrError, match="over must be one of edges, nodes, both"):
        explain(model, NODE_GRAPH, "Rnd", target=0, over="edge")  # type: ignore[arg-type]
    explanation = explain(model, NODE_GRAPH, "Rnd", target=0)
    with pytest.raises(GracrError, match="share no mask"):
        score(explanation, Truth(None, NODE_UPI))
    with pytest.raises(GracrError, match="unknown metric 'precision'"):
        score(explanation, EDGE_UPI, "precision")  # type: ignore[arg-type]
    with pytest.raises(GracrError, match="must be bool"):
        score(explanation, np.array([1, 0, 0]))


def test_supports_says_what_the_registered_explainers_explain() -> None:
    compiled = ExplainerTask("edge", "graph", "compiled", typed=False)
    trained = ExplainerTask("edge", "graph", "trained", typed=False)
    assert EXPLAINERS["LRP"].supports(compiled) and not EXPLAINERS["LRP"].supports(trained)
    assert EXPLAINERS["Saliency"].supports(trained)
    # Edge-only explainers give node scores from their edges; node-only ones no edge scores.
    assert EXPLAINERS["LRP"].supports(ExplainerTask("node", "node", "compiled", typed=True))
    import gracr.domains.tissue.explainers  # noqa: F401  (registers the tissue ones)

    assert not EXPLAINERS["AttentionRollout"].supports(
        ExplainerTask("node", "graph", "compiled", typed=False))
    assert not EXPLAINERS["AttentionRollout"].supports(trained)


def test_explaining_and_scoring_never_import_the_benchmark() -> None:
    script = textwrap.dedent(f"""
        import sys
        import numpy as np
        import gracr
        from gracr.explainers.api import explain, score
        program = gracr.parse({NODE_SOURCE!r})
        graph = gracr.Graph.from_edges(4, [["grey"], ["red"], ["blue"], ["red"]],
                                       [(1, 0), (2, 0), (3, 2)])
        explanation = explain(gracr.compile(program), graph, "Saliency", target=0,
                              program=program)
        print(score(explanation, np.array([True, False, False])).value)
        print(sorted(name for name in sys.modules if name.startswith("gracr.bench")))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1.0", "[]"]
