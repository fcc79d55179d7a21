"""Question: are the first N positives the official protocol explains a fair sample? Not on
the Majority tasks (hubs first): `docs/results/gracrbench/instance-sample.md`, `differences.md`.

    .venv/bin/python studies/instance_sample.py [--tasks ...] [--explainers ...]
        [--instances 50] [--seed 0] [--markdown FILE (sizes; scores to FILE-scores)]

The official protocol explains the first 100 positives of each dataset seed (the
paper explains all of them). On the node tasks the positives come in node order, and
in a Barabási–Albert graph the oldest nodes, with the lowest ids, are the hubs: the
first positives have larger receptive fields and UPIs than the average positive. This
prints, per task, the mean UPI and receptive-field sizes of the first N positives, of N
positives spread evenly over all of them (every k-th) and of all of them, then each
explainer's mean precision, recall and F1 on the first two samples (tuned settings, the
runner's seeds; `--explainers` with no name prints the sizes only).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from arms import diagnostic_parser, explain_and_score, parse_diagnostic, registered, summary

from gracr.explainers import explainer_named, settings_for
from gracr.bench.instances import first_subjects
from gracr.bench.report.tables import print_table
from gracr.bench.tuning import tuned_settings

# Enough to hold every positive of a node-task dataset (about 500–600 per seed).
ALL_POSITIVES = 1_000_000


def scores_path(markdown: str) -> Path:
    """Where `--markdown FILE` saves the scores table (FILE itself gets the sizes)."""
    path = Path(markdown)
    return path.with_stem(path.stem + "-scores")


def main() -> None:
    parser = diagnostic_parser(summary(__doc__), instances=50)
    parser.add_argument("--tasks", nargs="+", default=["Majority1Hop", "Majority2Hop"])
    parser.add_argument("--explainers", nargs="*",
                        default=["Rnd", "Saliency", "PGMExplainer", "GraphSVX", "FlowX"])
    args = parse_diagnostic(parser)
    size_rows, rows = [], []
    for task in args.tasks:
        positives = first_subjects(task, args.seed, ALL_POSITIVES)
        stride = max(1, len(positives) // args.instances)
        samples = {"first": positives[:args.instances],
                   "spread": positives[::stride][:args.instances]}
        for sample, pairs in {**samples, "all": positives}.items():
            upi = np.mean([instance.upi.sum() for instance, _ in pairs])
            field = np.mean([np.asarray(subject.receptive_field).sum() for _, subject in pairs])
            size_rows.append([task, f"{sample} {len(pairs)} of {len(positives)}", f"{upi:.2f}",
                              f"{field:.2f}"])
        for explainer in args.explainers:
            settings = settings_for(explainer_named(explainer), tuned_settings(explainer, task))
            for sample, pairs in samples.items():
                scored = np.array([explain_and_score(registered(explainer), instance, subject,
                                                     settings, args.seed)
                                   for instance, subject in pairs])
                p, r, f1, cpu = scored[:, :4].mean(axis=0)
                rows.append([task, f"{sample} {len(pairs)}", explainer, f"{p:.3f}", f"{r:.3f}",
                             f"{f1:.3f}", f"{cpu:.2f}"])
    print_table(f"Mean UPI and receptive-field sizes (edges) of the samples, seed {args.seed}",
                ["task", "sample", "UPI edges", "receptive field edges"], size_rows,
                args.markdown)
    if rows:
        print_table(f"The first positives against positives spread over the dataset, seed "
                    f"{args.seed}", ["task", "sample", "explainer", "precision", "recall", "F1",
                                     "CPU s"], rows,
                    None if args.markdown is None else str(scores_path(args.markdown)))


if __name__ == "__main__":
    main()
