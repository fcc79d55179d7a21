"""Question: what sets SubgraphX's RedBlueLeaf-NC cell? The size of the search's root (the
target's computation graph): `docs/results/gracrbench/differences.md` (SubgraphX, RedBlueLeaf-NC).

    .venv/bin/python studies/subgraphx_roots.py [--task RedBlueLeaf-NC] [--instances 100]
        [--seed 0] [--markdown FILE]

The search starts from the computation graph and prunes one node at a time, lowest
degree first, down to coalitions of at most `max_nodes` nodes. When the root is small
the chosen coalition is most of it; when it is large, the search must prune far and
the score can land anywhere. This runs the benchmark's SubgraphX (tuned settings, the
runner's per-instance seed, so the rows reproduce the official records of that seed)
on the first positives and groups them by the root's node count at the model's
message-passing depth. It also prints how large the roots would be one and two hops
deeper: a cell's mean is a mix of the groups, so a deeper root moves it.
"""

from __future__ import annotations

import numpy as np
from arms import diagnostic_parser, explain_and_score, parse_diagnostic, registered, summary

from gracr.explainers import explainer_named, settings_for
from gracr.explainers.subgraphx import in_neighbourhood, message_passing_layers
from gracr.bench.instances import first_subjects
from gracr.bench.report.tables import print_table
from gracr.bench.tuning import tuned_settings

# Upper bounds of the root-size groups (nodes); the last group is everything larger.
GROUP_BOUNDS = (20, 50, 100)


def main() -> None:
    parser = diagnostic_parser(summary(__doc__), instances=100)
    parser.add_argument("--task", default="RedBlueLeaf-NC")
    args = parse_diagnostic(parser)
    settings = settings_for(explainer_named("SubgraphX"), tuned_settings("SubgraphX", args.task))
    roots: list[tuple[int, int, int]] = []  # nodes at depth d, d + 1, d + 2
    results: list[tuple[float, ...]] = []  # precision, recall, F1, CPU s
    depth = 0
    for instance, subject in first_subjects(args.task, args.seed, args.instances):
        depth = message_passing_layers(subject)
        edge_index = subject.edge_index.numpy()
        num_nodes = int(subject.x.shape[0])
        sizes = [int(in_neighbourhood(edge_index, num_nodes, subject.target, depth + extra).sum())
                 for extra in range(3)]
        roots.append((sizes[0], sizes[1], sizes[2]))
        results.append(explain_and_score(registered("SubgraphX"), instance, subject,
                                         settings, args.seed)[:4])
    size = np.array(roots)
    values = np.array(results)
    lower = (0,) + GROUP_BOUNDS
    upper = GROUP_BOUNDS + (int(size.max()),)  # the last group ends at the largest root
    rows = []
    for low, high in zip(lower, upper):
        in_group = (size > low) & (size <= high)  # [instances, 3 depths]
        if not in_group.any():
            continue
        members = in_group[:, 0]
        measured = ([f"{v:.3f}" for v in values[members, :3].mean(axis=0)]
                    + [f"{values[members, 3].mean():.2f}"] if members.any() else ["-"] * 4)
        rows.append([f"{low + 1}–{high}", str(int(members.sum())), *measured,
                     *(f"{share:.2f}" for share in in_group.mean(axis=0))])
    p, r, f1, cpu = values.mean(axis=0)
    rows.append(["all", str(len(values)), f"{p:.3f}", f"{r:.3f}", f"{f1:.3f}", f"{cpu:.2f}",
                 "1.00", "1.00", "1.00"])
    print_table(f"SubgraphX (tuned) on {args.task}, seed {args.seed}, first {args.instances} "
                f"positives, by root size at the message-passing depth {depth}",
                ["root nodes", "instances", "precision", "recall", "F1", "CPU s",
                 f"share at depth {depth}", f"at {depth + 1}", f"at {depth + 2}"],
                rows, args.markdown)


if __name__ == "__main__":
    main()
