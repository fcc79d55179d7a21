"""ShapleySampling on WOMBAT's compiled patterns through the two modules it could read:
`module()` (the full `CompiledModule`, which explainers taking gradients or PyG edge masks
need) and `inference_module()` (`to_pyg(fused=True)`, which it reads since 2026-12-05).
Per pattern and readout, the same molecules with the same seed through both: whether the
scores are equal bit for bit, and the CPU seconds per molecule of each.

    PYTHONPATH=. .venv/bin/python benchmarks/shapley_sampling_module.py \\
        --wombat /work/runs/wombat/data --study /work/runs/wombat/study \\
        [--patterns 1-14] [--molecules 2] [--markdown FILE]

The molecules are the first `--molecules` positives and negatives of the study's dataset
(`--study`'s `datasets` store, seed 0), compiled with the presence bit as the study
compiles them; ShapleySampling at its defaults (100 permutations, 64 a call).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gracr.bench.datasets import load_or_build
from gracr.bench.instances import (compile_variant, explained_instances, subject_for,
                                   variant_named)
from gracr.bench.options import parse_seeds
from gracr.bench.report.tables import print_text, render_table
from gracr.bench.tasks import task_named
from gracr.explainers import EXPLAINERS, scores

READOUTS = (("max", "r1"), ("soft-or", "r2"))


def _timed(subject: Any, seed: int) -> tuple[torch.Tensor, float]:
    started = time.process_time()
    values = scores("ShapleySampling", subject, EXPLAINERS["ShapleySampling"].defaults,
                    seed=seed)
    return values, time.process_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", required=True, help="scripts/wombat_datasets.py's folder")
    parser.add_argument("--study", required=True, help="the wombat-study folder (its "
                                                       "datasets store)")
    parser.add_argument("--patterns", default="1-14")
    parser.add_argument("--molecules", type=int, default=2, metavar="K",
                        help="positives and as many negatives per pattern (default 2)")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    torch.set_num_threads(1)
    datasets = str(Path(args.study) / "datasets")
    rows = []
    totals = [0.0, 0.0]
    for number in parse_seeds(args.patterns):
        task = task_named(str(Path(args.wombat) / f"P{number:02d}" / f"P{number:02d}.toml"))
        dataset = load_or_build(task.name, 0, None, datasets, progress=False)
        program = task.program()
        chosen = [i for sample in ("positive", "negative")
                  for i in list(explained_instances(dataset, sample))[:args.molecules]]
        for variant, label in READOUTS:
            model = compile_variant(task.name, variant_named(variant), dataset, "node")
            full_modules: dict[str, Any] = {}
            inference_modules: dict[str, Any] = {}
            equal, seconds, atoms = 0, [0.0, 0.0], []
            for seed, instance in enumerate(chosen):
                full = subject_for(dataset, program, model, instance, full_modules, "node")
                # What the explainer read before: the full module under the inference key.
                full_modules.setdefault("inference", full.module("surrogate"))
                fast = subject_for(dataset, program, model, instance, inference_modules, "node")
                fast.inference_module()   # built outside the timing, as the full module
                before, before_s = _timed(full, seed)
                after, after_s = _timed(fast, seed)
                equal += bool(torch.equal(before, after))
                seconds[0] += before_s
                seconds[1] += after_s
                atoms.append(full.num_nodes)
            totals[0] += seconds[0]
            totals[1] += seconds[1]
            count = len(chosen)
            rows.append([f"P{number:02d}", label, str(count), f"{np.mean(atoms):.1f}",
                         f"{model.num_layers}", f"{seconds[0] / count:.2f}",
                         f"{seconds[1] / count:.2f}", f"{seconds[0] / seconds[1]:.1f}x",
                         f"{equal} / {count}"])
            print(" ".join(rows[-1]), file=sys.stderr)
    text = render_table(["pattern", "readout", "molecules", "atoms (mean)", "layers",
                         "CPU s per molecule: module()", "inference_module()", "ratio",
                         "scores equal bit for bit"], rows)
    text += (f"\nIn all: {totals[0]:.0f} CPU s through module(), {totals[1]:.0f} through "
             f"inference_module() ({totals[0] / totals[1]:.1f}x).\n")
    print_text(text, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
