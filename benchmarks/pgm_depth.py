"""PGMExplainer's neighbourhood depth on node tasks: PyG's against the message-passing one.

    .venv/bin/python benchmarks/pgm_depth.py [--tasks ...] [--instances 20] [--seed 0]
        [--markdown FILE]

PyG's `PGMExplainer` perturbs the nodes within `get_num_hops(model)` hops of the
target, and `get_num_hops` counts the model's `MessagePassing` modules. Every layer
of a compiled model is one, also the layers whose neighbour matrix A is zero, so
on Majority2Hop (8 layers, 2 of which pass messages) PGM perturbs the 8-hop
neighbourhood, most of the graph, instead of the 2-hop computation graph. This
runs the benchmark's PGMExplainer (tuned settings) both ways on the same instances
and prints precision, recall, F1 and CPU seconds: a diagnostic for the gap to the
paper's PGMExplainer rows, not a change to the benchmark's explainer.
"""

from __future__ import annotations

import argparse
from unittest import mock

import torch
from arms import Arm, arm_means

from gracr.bench.explainers.subgraphx import message_passing_layers
from gracr.bench.runner import first_subjects
from gracr.bench.tables import print_table
from gracr.bench.tasks import TASKS
from gracr.dsl.ir import Kind

PYG_HOPS = "torch_geometric.contrib.explain.pgm_explainer.get_num_hops"


def _patched_hops(hops: int) -> Arm:
    return lambda _: mock.patch(PYG_HOPS, return_value=hops)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+",
                        default=[n for n, t in TASKS.items() if t.kind is Kind.NODE])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)  # as the runner's workers
    rows = []
    for task in args.tasks:
        subject = first_subjects(task, args.seed, 1)[0][1]
        hops = {"every layer (PyG)": subject.num_layers,
                "message-passing layers": message_passing_layers(subject)}
        arms: dict[str, Arm] = {name: _patched_hops(h) for name, h in hops.items()}
        means = arm_means("PGMExplainer", task, args.seed, args.instances, arms)
        for name, (p, r, f1, cpu) in means.items():
            rows.append([task, name, str(hops[name]), f"{p:.3f}", f"{r:.3f}", f"{f1:.3f}",
                         f"{cpu:.2f}"])
    headers = ["task", "depth", "hops", "precision", "recall", "F1", "CPU s"]
    print_table(f"PGMExplainer (tuned settings), seed {args.seed}, first {args.instances} "
                "positives", headers, rows, args.markdown)


if __name__ == "__main__":
    main()
