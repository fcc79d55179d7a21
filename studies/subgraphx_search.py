"""Question: do GraphXAI's pruning rule or a deeper root give the paper's SubgraphX node-task
rows? Not on both tasks: `docs/results/gracrbench/differences.md` (SubgraphX, RedBlueLeaf-NC).

    .venv/bin/python studies/subgraphx_search.py [--tasks ...] [--instances 20] [--seed 0]
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
instances with the benchmark's SubgraphX (tuned settings); GraphXAI's rule is a
`SubgraphSearch` subclass handed to the same steps. `subgraphx_roots.py` shows why the
root's size matters.
"""

from __future__ import annotations

from arms import ArmSettings, StudyArm, compare_arms_main, registered, subgraphx_variant, summary

from gracr.explainers.subgraphx import Coalition, SubgraphSearch, components


class GraphXAISearch(SubgraphSearch):
    """The search with GraphXAI's pruning rule on node tasks."""

    def pruned(self, coalition: Coalition) -> list[Coalition]:
        """GraphXAI's children of `coalition`: remove one of the `expand_atoms`
        lowest-degree nodes, the target included, and keep the first of the largest
        components."""
        graph = self.graph
        degree = {node: len(graph.neighbours[node] & coalition) for node in coalition}
        candidates = sorted(coalition, key=lambda node: (-degree[node] if self.settings.high2low
                                                         else degree[node], node))
        children: list[Coalition] = []
        for removed in candidates[:self.settings.expand_atoms]:
            largest = max(components(graph, coalition - {removed}), key=len)
            if frozenset(largest) not in children:
                children.append(frozenset(largest))
        return children


def main() -> None:
    arms: dict[str, StudyArm] = {
        "target kept (ours, DIG)": registered("SubgraphX"),
        "target prunable, largest component (GraphXAI)": subgraphx_variant(search=GraphXAISearch),
        "target kept, root one hop deeper": subgraphx_variant(extra_depth=1),
        "GraphXAI's rule, every layer's neighbourhood": subgraphx_variant(search=GraphXAISearch)}
    arm_settings: ArmSettings = {
        "GraphXAI's rule, every layer's neighbourhood": {"computation_depth": "layers"}}
    compare_arms_main("SubgraphX", summary(__doc__), "search", arms,
                      ["RedBlueLeaf-NC", "Majority1Hop"], arm_settings)


if __name__ == "__main__":
    main()
