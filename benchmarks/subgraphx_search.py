"""SubgraphX's search on node tasks: our pruning rule and root against GraphXAI's readings.

    .venv/bin/python benchmarks/subgraphx_search.py [--tasks ...] [--instances 20] [--seed 0]
        [--markdown FILE]

The SubgraphX paper (Yuan et al. 2021) and DIG's implementation search over
connected subgraphs that contain the explained node: a pruning step never removes it
and keeps the connected component that holds it. Ours does the same
(`SubgraphSearch.pruned`). GraphXAI's adaptation, the one the source paper ran
(App. H.1), changes both on node tasks: the explained node is a pruning candidate
like any other (the lowest-degree nodes go first), and a step keeps the *largest*
remaining component, as on graph tasks, whether or not it holds the target. Its
coalitions can therefore drift away from the target, while their value is still the
model's output at the target.

The root of the search is the target's computation graph, whose depth the paper does
not state for its models. Besides the two pruning rules, this runs our rule with a
root one hop deeper than the model's message-passing layers, and GraphXAI's rule with
`computation_depth=layers` (every layer's neighbourhood: GraphXAI counts
`MessagePassing` modules, and every compiled layer is one). All arms explain the same
instances with the benchmark's SubgraphX (tuned settings). A diagnostic, not a change
to the explainer; `subgraphx_roots.py` shows why the root's size matters.
"""

from __future__ import annotations

from unittest import mock

from arms import Arm, ArmSettings, compare_arms_main, unchanged

from gracr.bench.explainers import subgraphx
from gracr.bench.explainers.subgraphx import Coalition, SubgraphSearch, components


def _graphxai_pruned(search: SubgraphSearch, coalition: Coalition) -> list[Coalition]:
    """GraphXAI's children of `coalition`: remove one of the `expand_atoms` lowest-degree
    nodes, the target included, and keep the first of the largest components."""
    graph = search.graph
    degree = {node: len(graph.neighbours[node] & coalition) for node in coalition}
    candidates = sorted(coalition, key=lambda node: (-degree[node] if search.settings.high2low
                                                     else degree[node], node))
    children: list[Coalition] = []
    for removed in candidates[:search.settings.expand_atoms]:
        largest = max(components(graph, coalition - {removed}), key=len)
        if frozenset(largest) not in children:
            children.append(frozenset(largest))
    return children


def _graphxai_rule(_: object) -> mock._patch[object]:
    return mock.patch.object(SubgraphSearch, "pruned", _graphxai_pruned)


def _one_hop_deeper(_: object) -> mock._patch[object]:
    depth = subgraphx.message_passing_layers
    return mock.patch.object(subgraphx, "message_passing_layers",
                             lambda subject: depth(subject) + 1)


def main() -> None:
    arms: dict[str, Arm] = {
        "target kept (ours, DIG)": unchanged,
        "target prunable, largest component (GraphXAI)": _graphxai_rule,
        "target kept, root one hop deeper": _one_hop_deeper,
        "GraphXAI's rule, every layer's neighbourhood": _graphxai_rule}
    arm_settings: ArmSettings = {
        "GraphXAI's rule, every layer's neighbourhood": {"computation_depth": "layers"}}
    compare_arms_main("SubgraphX", __doc__.splitlines()[0], "search", arms,
                      ["RedBlueLeaf-NC", "Majority1Hop"], arm_settings)


if __name__ == "__main__":
    main()
