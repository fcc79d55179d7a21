"""CPU cost of one forward + backward through a PyG edge mask: the whole compiled
module against `TargetConeModule`, on the node tasks' official instances.

    .venv/bin/python benchmarks/target_cone.py [--tasks ...] [--instances 5]
        [--repeats 20] [--seed 0] [--markdown FILE]

What GNNExplainer does once per epoch: sigmoid edge mask on every message, output
at the target, gradient back to the mask. Prints per task the rows and widest layer
each module computes, CPU milliseconds per pass (mean over the instances of the
best of three timing rounds), their ratio, and whether the two gave the same output
and the same mask gradient on every instance (they must: `TargetConeModule`
computes the same function at the target).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import torch
from torch_geometric.explain.algorithm.utils import clear_masks, set_masks

from gracr.bench.instances import first_subjects
from gracr.bench.report.tables import print_table
from gracr.bench.tasks import TASKS
from gracr.dsl.ir import Kind

NODE_TASKS = [name for name, task in TASKS.items() if task.kind is Kind.NODE]


def _pass_cost(module: Any, subject: Any, logits: torch.Tensor, repeats: int
               ) -> tuple[float, float, torch.Tensor]:
    """CPU seconds per forward + backward (best of 3 rounds), the output, the gradient."""
    mask = torch.nn.Parameter(logits.clone())
    set_masks(module, mask, subject.edge_index, apply_sigmoid=True)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(repeats):
            mask.grad = None
            out = module(subject.x, subject.edge_index)[subject.target, 0]
            out.backward()
        best = min(best, (time.process_time() - start) / repeats)
    clear_masks(module)
    grad = mask.grad if mask.grad is not None else torch.zeros_like(logits)
    return best, float(out.detach()), grad


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=NODE_TASKS)
    parser.add_argument("--instances", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rows = []
    for task in args.tasks:
        whole_ms, cone_ms, cone_rows, same = [], [], [], True
        chosen = first_subjects(task, args.seed, args.instances)
        for _, subject in chosen:
            logits = torch.randn(subject.num_edges)
            cone = subject.fresh_target_module("surrogate")
            whole_cost, whole_out, whole_grad = _pass_cost(subject.fresh_module("surrogate"),
                                                           subject, logits, args.repeats)
            cone_cost, cone_out, cone_grad = _pass_cost(cone, subject, logits, args.repeats)
            whole_ms.append(whole_cost * 1e3)
            cone_ms.append(cone_cost * 1e3)
            cone_rows.append(len(cone.rows) + 1)
            same = same and whole_out == cone_out and torch.equal(whole_grad, cone_grad)
        whole, narrow = sum(whole_ms) / len(whole_ms), sum(cone_ms) / len(cone_ms)
        model, nodes = chosen[0][1].compiled, int(chosen[0][1].x.shape[0])
        rows.append([task, f"{model.num_layers} x {model.width}", f"{nodes}",
                     f"{sum(cone_rows) / len(cone_rows):.1f}", f"{whole:.2f}", f"{narrow:.2f}",
                     f"{whole / narrow:.1f}x", "yes" if same else "NO"])
    headers = ["task", "layers x width", "rows (whole)", "rows (cone, mean)",
               "whole ms", "cone ms", "speed-up", "same output and gradient"]
    print_table(f"CPU ms per forward + backward through a PyG edge mask, seed {args.seed}, "
                f"first {args.instances} positives, best of 3 x {args.repeats} passes",
                headers, rows, args.markdown)


if __name__ == "__main__":
    main()
