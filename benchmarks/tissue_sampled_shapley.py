"""How far a sampled Shapley explainer is from the exact Shapley values of the same game.

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_sampled_shapley.py [--samples 4]
        [--cells 300] [--permutations 25,100,400] [--seed 0] [--out DIR]

The game is the tissue rule's: v(S) = the label of the sample restricted to the cells S
(node deletion). The exact values come from the ROBDD (`gracr.bdd.relevance`, the
algorithm of Arenas et al., AAAI 2021). The explainer is gracr's `ShapleySampling`
(Captum's `ShapleyValueSampling`) at node level on the rule compiled with the presence
bit: its baseline zeroes a cell's features, which deletes it, and the compiled output
is the label exactly on every subset, so it samples *this* game and the gap is its
sampling error alone. (GraphSVX fits a surrogate on node and feature masks and
SubgraphX scores connected coalitions with zero-filled players: related games, not
this one, so they are not compared here.)

Per number of permutations: the mean absolute error over the cells with a non-zero exact
value, the largest error, Spearman's rank correlation with the exact values (averaged over
the samples where the estimates are not all equal; those are counted apart), the share of
those cells whose sign agrees, and the explainer's seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import spearmanr

import gracr
from gracr.bdd.relevance import relevance
from gracr.explainers.base import Subject, scores
from gracr.bench.report.tables import render_table, write_table
from gracr.domains.tissue import TissueSettings, generate_dataset, graph_json, tissue_program


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--permutations", default="25,100,400")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="also write the table as DIR/tissue_sampled_shapley.{md,csv}")
    args = parser.parse_args()
    counts = [int(p) for p in args.permutations.split(",")]
    rng = np.random.default_rng(args.seed)
    tables, theta = generate_dataset(rng, TissueSettings.for_cells(args.cells),
                                     max(2, args.samples))
    program = gracr.parse(tissue_program(theta))
    model = gracr.compile(program, presence=True)
    gathered: dict[int, list[tuple[float, float, float, float, float]]] = {c: [] for c in counts}
    for index, table in enumerate(tables[:args.samples]):
        graph = gracr.Graph.from_json(graph_json(table, theta, 1.0), schema=program.schema)
        exact = relevance(program, graph)
        support = np.flatnonzero(exact.shapley != 0) if exact.shapley_method == "exact" \
            else np.arange(graph.num_nodes)
        subject = Subject.of(model, program, graph, None, level="node")
        for count in counts:
            start = time.perf_counter()
            sampled = scores("ShapleySampling", subject, {"n_samples": count}, seed=index)
            seconds = time.perf_counter() - start
            estimate = sampled.numpy()
            error = np.abs(estimate[support] - exact.shapley[support])
            signed = np.abs(exact.shapley[support]) > 1e-9
            agree = float(np.mean(np.sign(estimate[support][signed])
                                  == np.sign(exact.shapley[support][signed])))
            # Undefined (nan) when every estimate is equal: few permutations on a negative
            # sample can leave them all 0. Reported apart, averaged over the rest.
            rho = float("nan") if np.ptp(estimate[support]) == 0 else \
                float(spearmanr(estimate[support], exact.shapley[support]).statistic)
            gathered[count].append((float(error.mean()), float(error.max()), rho, agree,
                                    seconds))
        print(f"sample {index}: {graph.num_nodes} cells, label {exact.label}, Shapley "
              f"{exact.shapley_method} over {exact.support_size} cells", flush=True)
    headers = ["permutations", "samples", "mean |error|", "max |error|", "Spearman",
               "constant estimates", "sign agrees", "seconds / sample"]
    rows = []
    for count in counts:
        values = np.array(gathered[count])
        rows.append([str(count), str(len(values)), f"{values[:, 0].mean():.4f}",
                     f"{values[:, 1].max():.4f}", f"{np.nanmean(values[:, 2]):.3f}",
                     str(int(np.isnan(values[:, 2]).sum())),
                     f"{values[:, 3].mean():.3f}", f"{values[:, 4].mean():.1f}"])
    print()
    print(render_table(headers, rows))
    if args.out:
        for suffix in (".md", ".csv"):
            write_table(f"{args.out}/tissue_sampled_shapley{suffix}", headers, rows)


if __name__ == "__main__":
    main()
