"""The batch path's saving on WOMBAT's study: CPU seconds per molecule of each batching
explainer, one molecule per run (`--batch 1`) beside B molecules per run, as the records of
`gracrc wombat-study` count them (each instance's `cpu_seconds`, a batch's shared evenly,
scoring included), and the ratio.

    PYTHONPATH=. .venv/bin/python benchmarks/batched_explanations.py \\
        --wombat /tmp/wombat/data --datasets /tmp/wombat/datasets \\
        [--patterns 1,6,10] [--variant max] [--positives 32] [--negatives 32] [--batches 32]

Per pattern: the first `--positives` positive and `--negatives` negative molecules of the
study's dataset (seed 0, from the `--datasets` store, which is read and, for the node UPI
of the positives, written: give a copy of a running study's), the pattern compiled as the
study compiles `--variant` (node level, the presence bit), each molecule explained through
the runner's per-instance loop (`explain_each`) with its explainer seed, in one process
with one torch and one BLAS thread as a runner's worker. The model's modules are built
before the clock starts (a job builds them once for thousands of molecules). The scores
of the two paths are checked to agree (1e-5 relative) before a row is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from gracr.bench.budget import DEFAULT_BATCH, explain_each
from gracr.bench.datasets import load_or_build
from gracr.bench.instances import (compile_variant, explained_instances, ground_truth,
                                   subject_for, variant_named)
from gracr.bench.options import parse_seeds
from gracr.bench.report.tables import render_table
from gracr.bench.tasks import task_named
from gracr.explainers import explainer_named, explainer_seed, settings_for

EXPLAINERS = ("Saliency", "InputXGradient", "IG", "Rnd", "GNNExplainer")


def main() -> int:
    import torch
    from threadpoolctl import threadpool_limits

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", required=True, help="scripts/wombat_datasets.py's folder")
    parser.add_argument("--datasets", required=True, help="the dataset store (a copy)")
    parser.add_argument("--patterns", default="1,6,10")
    parser.add_argument("--variant", default="max")
    parser.add_argument("--explainers", default=",".join(EXPLAINERS))
    parser.add_argument("--positives", type=int, default=32, metavar="N")
    parser.add_argument("--negatives", type=int, default=32, metavar="N")
    parser.add_argument("--batches", default=str(DEFAULT_BATCH), metavar="B,...",
                        help=f"batch sizes to measure (default {DEFAULT_BATCH})")
    args = parser.parse_args()
    torch.set_num_threads(1)
    threadpool_limits(limits=1)
    sizes = [int(b) for b in args.batches.split(",")]
    started = time.perf_counter()
    rows = []
    for number in parse_seeds(args.patterns):
        task = task_named(str(Path(args.wombat) / f"P{number:02d}" / f"P{number:02d}.toml"))
        dataset = load_or_build(task.name, 0, None, args.datasets, progress=False)
        model = compile_variant(task.name, variant_named(args.variant), dataset, "node")
        program = task.program()
        samples = {"positive": args.positives, "negative": args.negatives}
        for name in args.explainers.split(","):
            spec = explainer_named(name)
            settings = settings_for(spec, None)
            costs: dict[int, float] = {}
            found: dict[int, list[Any]] = {}
            # Torch's and Captum's first calls in a process cost more than the later ones.
            first = list(explained_instances(dataset))[:2]
            for batch in (1, 2):
                warm: dict[str, Any] = {}
                for _ in explain_each(first, spec, settings, None,
                                      subject_of=lambda i: subject_for(
                                          dataset, program, model, i, warm, "node"),
                                      upi_of=lambda i: None, seed_of=lambda i: 0,
                                      scored=False, batch=batch):
                    pass
            for batch in [1, *sizes]:
                modules: dict[str, Any] = {}
                spent, count, scores = 0.0, 0, []
                for sample, wanted in samples.items():
                    chosen = [i for i in explained_instances(dataset, sample)][:wanted]
                    truth = (ground_truth(dataset, chosen, "node", args.datasets, sample)
                             if chosen else {})
                    subjects = {i.index: subject_for(dataset, program, model, i, modules,
                                                     "node") for i in chosen}
                    # The modules built off the clock, as a job's first molecules build them.
                    for derivative in ("surrogate", "exact"):
                        if chosen:
                            subjects[chosen[0].index].module(derivative)  # type: ignore[arg-type]
                    for instance, outcome in explain_each(
                            chosen, spec, settings, None,
                            subject_of=lambda i: subjects[i.index],
                            upi_of=lambda i: truth.get(i.index),
                            seed_of=lambda i: explainer_seed(0, i.index),
                            negative=sample == "negative", batch=batch):
                        if outcome.status != "ok":
                            print(f"P{number:02d} {name} {sample} {instance.index}: "
                                  f"{outcome.status} {outcome.error}", file=sys.stderr)
                            return 1
                        spent += outcome.cpu_seconds
                        count += 1
                        scores.append(outcome.scores)
                costs[batch] = spent / max(1, count)
                found[batch] = scores
            for batch in sizes:
                agree = all(np.allclose(b, a, rtol=1e-5, atol=0.0)
                            for a, b in zip(found[1], found[batch]))
                if not agree:
                    print(f"P{number:02d} {name}: batch {batch} scores differ", file=sys.stderr)
                    return 1
                rows.append([f"P{number:02d}", f"{model.num_layers}", name,
                             f"{len(found[1])}", f"{batch}", f"{costs[1]:.4f}",
                             f"{costs[batch]:.4f}", f"{costs[1] / costs[batch]:.1f}x"])
            print(f"P{number:02d} {name}: done", file=sys.stderr, flush=True)
    print(render_table(["pattern", "layers", "explainer", "molecules", "batch",
                        "CPU s/molecule alone", "batched", "ratio"], rows))
    print(f"\n--variant {args.variant}, {args.positives} positives + {args.negatives} "
          f"negatives per pattern; {time.perf_counter() - started:.0f} s wall.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
