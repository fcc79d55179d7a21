"""The exact ground truth of one instance, in one frozen type: `ground_truth` -> `GroundTruth`.

The UPI masks come from `gracr.bdd.upi.upi_report` (Algorithm 1, over edges, nodes or
both), the signed values from `gracr.bdd.relevance.relevance` (counterfactuals,
Banzhaf, Shapley, over nodes). Those two stay the lower-level functions, with what each
run cost (diagram sizes, per-stage seconds, the Extend shortcut taken): `GroundTruth`
carries the answer only, so that a user compares explanations with one shape whatever
was asked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import MAX_BDD_NODES
from gracr.bdd.build import MAX_COUNTER_STEPS, Over
from gracr.bdd.relevance import MAX_EXACT, MAX_PLAYERS, MAX_STDERR, PERMUTATIONS, relevance
from gracr.bdd.upi import resolve_target, upi_report
from gracr.data.graph import Graph
from gracr.dsl.program import Program

BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
Computed = Literal["exact", "sampled"]


@dataclass(frozen=True)
class SignedMethod:
    """How the signed values of a `GroundTruth` were computed.

    `banzhaf` and `shapley` are `"exact"` (read off the ROBDD over nodes) or `"sampled"`:
    Shapley values are sampled from `samples` permutations with `seed` when the diagram's
    support is over `max_exact` nodes, and both indices, from the same permutations, when
    the diagram itself was refused (`diagram == "refused"`, `reason` says why). A sampled index has its standard error per node (`*_stderr`, 0 outside the
    players); an exact one has `None` there.
    """

    diagram: Literal["built", "refused"]
    banzhaf: Computed
    shapley: Computed
    banzhaf_stderr: FloatArray | None
    shapley_stderr: FloatArray | None
    samples: int | None
    seed: int | None
    reason: str | None


@dataclass(frozen=True)
class GroundTruth:
    """The exact explanation of one instance's label.

    `label` is the classifier's value (1 positive) on the whole graph (a graph
    classifier) or at `target` (a node classifier; `None` for a graph classifier).
    `edge_mask` (one bool per edge) and `node_mask` (one per node) are the union of the
    prime implicants of that label over the parts `over` removes: edges, nodes (deletion
    semantics; a node classifier's target is never removed, so never in it) or both; a
    mask not asked for is `None`.

    With `signed=True`, per node (deletion semantics, whatever `over`): `counterfactual`
    (in some inclusion-minimal removal that flips the label), `min_flip` (the size of the
    smallest such removal; `None` when none flips it), `banzhaf` and `shapley` (the
    game's indices; 0 for a node the label does not depend on), and `method`, how they
    were computed. Without a diagram (`method.diagram == "refused"`) `counterfactual` and
    `min_flip` are `None`, since they need it. Unsigned, all five are `None`.

    What a computation cost (ROBDD sizes, seconds per stage) is not here: ask the
    lower-level `gracr.bdd.upi.upi_report` and `gracr.bdd.relevance.relevance`.
    """

    label: int
    target: int | None
    over: Over
    edge_mask: BoolArray | None
    node_mask: BoolArray | None
    counterfactual: BoolArray | None = None
    min_flip: int | None = None
    banzhaf: FloatArray | None = None
    shapley: FloatArray | None = None
    method: SignedMethod | None = None


def ground_truth(program: Program, graph: Graph, *, target: int | None = None,
                 over: Over = "edges", signed: bool = False, backend: str = "cudd",
                 max_nodes: int | None = MAX_BDD_NODES,
                 max_counter_steps: int = MAX_COUNTER_STEPS, max_exact: int = MAX_EXACT,
                 permutations: int = PERMUTATIONS, seed: int = 0,
                 max_players: int = MAX_PLAYERS, max_stderr: float = MAX_STDERR) -> GroundTruth:
    """The exact ground-truth explanation of `program`'s label on `graph` (`GroundTruth`).

    `target` is the node a node classifier explains (default: `graph.target`); a graph
    classifier takes none. `backend` is the ROBDD engine (`"cudd"` or `"autoref"`),
    `max_nodes` its node budget (`None`: none) and `max_counter_steps` its linear counts'
    step budget: a UPI over either raises `DiagramTooLarge` / `CounterTooLarge`. With
    `signed`, Shapley values are exact up to `max_exact` support nodes, else sampled
    (rounds of `permutations` permutations with `seed` until every standard error is at
    most `max_stderr`); past `max_players` players, or a diagram over a budget, both
    indices are sampled (`gracr.bdd.relevance.relevance`).

    ```pycon
    >>> import gracr
    >>> program = gracr.parse("colors red, blue\\nclassify <1> red")
    >>> graph = gracr.Graph.from_json({"num_nodes": 3, "colors": [["red"], ["red"], ["blue"]],
    ...                                "edges": [[0, 2], [1, 2]], "target": 2})
    >>> truth = gracr.ground_truth(program, graph, over="both", signed=True)
    >>> truth.label, truth.edge_mask.tolist(), truth.node_mask.tolist(), truth.min_flip
    (1, [True, True], [True, True, False], 2)

    ```
    """
    node = resolve_target(program, graph, target)
    report = upi_report(program, graph, node, over, backend=backend, max_nodes=max_nodes,
                        max_counter_steps=max_counter_steps)
    truth = GroundTruth(label=report.label, target=node, over=over,
                        edge_mask=None if over == "nodes" else report.mask,
                        node_mask=None if over == "edges" else report.node_mask)
    if not signed:
        return truth
    signs = relevance(program, graph, node, backend=backend, max_exact=max_exact,
                      permutations=permutations, seed=seed, max_nodes=max_nodes,
                      max_counter_steps=max_counter_steps, max_players=max_players,
                      max_stderr=max_stderr)
    built = signs.diagram == "built"
    method = SignedMethod(
        diagram=signs.diagram, banzhaf="exact" if built else "sampled",
        shapley="exact" if signs.shapley_method == "exact" else "sampled",
        banzhaf_stderr=signs.banzhaf_stderr, shapley_stderr=signs.shapley_stderr,
        samples=signs.permutations, seed=signs.seed, reason=signs.reason)
    return replace(truth, counterfactual=signs.counterfactual,
                   min_flip=signs.min_counterfactual, banzhaf=signs.banzhaf,
                   shapley=signs.shapley, method=method)
