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

from unittest import mock

from arms import Arm, compare_arms_main

from gracr.bench.explainers.subgraphx import message_passing_layers
from gracr.bench.instances import first_subjects
from gracr.bench.tasks import TASKS
from gracr.dsl.ir import Kind

PYG_HOPS = "torch_geometric.contrib.explain.pgm_explainer.get_num_hops"


def _patched_hops(hops: int) -> Arm:
    return lambda _: mock.patch(PYG_HOPS, return_value=hops)


def _depth_arms(task: str) -> dict[str, Arm]:
    subject = first_subjects(task, 0, 1)[0][1]  # the depths are the model's, any seed
    hops = {"every layer (PyG)": subject.num_layers,
            "message-passing layers": message_passing_layers(subject)}
    return {f"{name}: {h} hops": _patched_hops(h) for name, h in hops.items()}


def main() -> None:
    compare_arms_main("PGMExplainer", __doc__.splitlines()[0], "depth", _depth_arms,
                      [n for n, t in TASKS.items() if t.kind is Kind.NODE])


if __name__ == "__main__":
    main()
