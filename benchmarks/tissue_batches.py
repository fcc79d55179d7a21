"""The batch path's saving on the tissue study: CPU seconds per sample of each explainer the
study batches, on each model family, one sample per run (`--batch 1`) beside B samples per
run, as the study's records count them (each instance's `cpu_seconds`, a batch's shared
evenly), and the ratio.

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_batches.py \\
        [--samples 16] [--cells 300] [--batches 8,16] [--families gin,gatv2,cnn,compiled]

The samples are drawn by the tissue generator (seed 0, `--cells` cells each, the study's
size); the models are built as the study builds them (`ModelSettings` of its GIN, GATv2
and CNN, randomly initialised: an explainer's cost does not depend on the weights, and a
randomised copy is the same architecture) and the compiled rule, at the ratio-1 graph
(the CNN: its image graph). Each sample is explained unscored through the runner's
per-instance loop (`explain_each`) with its explainer seed, in one process with one torch
and one BLAS thread as a study's worker; the models' modules are built before the clock
starts. The scores of the two paths are checked to agree (1e-5 relative to each sample's
largest score; GNNExplainer's 1e-4, its float32 rounding compounded over up to 400 Adam
steps) before a row is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Sequence

import numpy as np

from gracr.bench.budget import explain_each
from gracr.bench.report.tables import render_table
from gracr.explainers import explainer_named, explainer_seed, settings_for
from gracr.explainers.base import Subject

# The study's explainers that batch, with their settings (GNNExplainer at its epoch budgets).
RUNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Saliency", {}), ("IG", {}), ("IG-mean", {}),
    ("GNNExplainer", {"epochs": 30}), ("GNNExplainer", {"epochs": 100}),
    ("GNNExplainer", {"epochs": 200}), ("GNNExplainer", {"epochs": 400}))


def family_subjects(family: str, tables: Sequence[Any], theta: float) -> list[Subject]:
    """Node-level subjects of `tables` for one model family, as the study explains them."""
    import gracr
    from gracr.data.graph import Graph
    from gracr.domains.tissue.dataset import graph_json, tissue_program
    from gracr.domains.tissue.generator import TissueSettings
    from gracr.domains.tissue.image import image_graph_json
    from gracr.domains.tissue.phases import CNN_HIDDEN, CNN_LAYERS, CNN_PIXEL_UM
    from gracr.domains.tissue.trained import ModelSettings, build_model, explained
    from gracr.executor.model import compile_program

    graphs = [graph_json(table, theta, 1.0) for table in tables]
    if family == "compiled":
        program = gracr.parse(tissue_program(theta))
        compiled = compile_program(program, presence=True)
        modules: dict[str, Any] = {}
        return [Subject.of(compiled, program, Graph.from_json(g, schema=program.schema), None,
                           modules, level="node") for g in graphs]
    if family == "cnn":
        side = TissueSettings.for_cells(len(tables[0].types)).side_um
        settings = ModelSettings(architecture="cnn", hidden=CNN_HIDDEN, layers=CNN_LAYERS,
                                 pixel_um=CNN_PIXEL_UM, side_um=side)
        graphs = [image_graph_json(g) for g in graphs]
    else:
        settings = ModelSettings(architecture=family, hidden=64, layers=2)
    model = explained(build_model(settings, 0), family)
    return [Subject.of_trained(model, Graph.from_json(g), level="node") for g in graphs]


def cost_and_scores(subjects: Sequence[Subject], name: str, settings: dict[str, Any],
                    batch: int) -> tuple[float, list[Any]]:
    """CPU seconds per sample and each sample's scores, explained `batch` at a time."""
    spent, scores = 0.0, []
    for _, outcome in explain_each(range(len(subjects)), name, settings, None,
                                   subject_of=lambda i: subjects[i],
                                   upi_of=lambda i: None,
                                   seed_of=lambda i: explainer_seed(0, i),
                                   scored=False, batch=batch):
        if outcome.status != "ok":
            raise SystemExit(f"{name}: {outcome.status} {outcome.error}")
        spent += outcome.cpu_seconds
        scores.append(outcome.scores)
    return spent / len(subjects), scores


def main() -> int:
    import torch
    from threadpoolctl import threadpool_limits

    import gracr.domains.tissue.explainers  # noqa: F401  (registers IG-mean)
    from gracr.domains.tissue.generator import TissueSettings, generate_sample

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=16, metavar="N")
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--batches", default="8,16", metavar="B,...")
    parser.add_argument("--families", default="gin,gatv2,cnn,compiled")
    args = parser.parse_args()
    torch.set_num_threads(1)
    threadpool_limits(limits=1)
    sizes = [int(b) for b in args.batches.split(",")]
    rng = np.random.default_rng(0)
    tables = [generate_sample(rng, TissueSettings.for_cells(args.cells))
              for _ in range(args.samples)]
    started = time.perf_counter()
    rows = []
    for family in args.families.split(","):
        subjects = family_subjects(family, tables, 0.3)
        for derivative in ("surrogate", "exact"):
            subjects[0].module(derivative)  # type: ignore[arg-type]
        for name, overrides in RUNS:
            if name == "IG-mean" and family == "compiled":
                continue   # the study does not run it (its presence bit has no mean)
            settings = settings_for(explainer_named(name), overrides)
            # Torch's and Captum's first calls in a process cost more than the later ones.
            for batch in (1, 2):
                cost_and_scores(subjects[:2], name, settings, batch)
            cost, alone = cost_and_scores(subjects, name, settings, 1)
            for batch in sizes:
                batched_cost, together = cost_and_scores(subjects, name, settings, batch)
                # GNNExplainer's masks drift apart by float32 rounding over its epochs
                # (Adam divides by the root of tiny second moments): a few 1e-6 of the
                # largest score after 400 epochs on 300 cells.
                tolerance = 1e-4 if name == "GNNExplainer" else 1e-5
                for a, b in zip(alone, together):
                    if not np.allclose(b, a, rtol=0.0, atol=tolerance * float(np.abs(a).max())):
                        print(f"{family} {name}: batch {batch} scores differ by up to "
                              f"{float(np.abs(b - a).max()):.3g} of {float(np.abs(a).max()):.3g}",
                              file=sys.stderr)
                        return 1
                label = name + (f" ({overrides['epochs']} epochs)" if overrides else "")
                rows.append([family, label, f"{batch}", f"{cost:.4f}", f"{batched_cost:.4f}",
                             f"{cost / batched_cost:.1f}x"])
            print(f"{family} {name} {overrides}: done", file=sys.stderr, flush=True)
    print(render_table(["model", "explainer", "batch", "CPU s/sample alone", "batched",
                        "ratio"], rows))
    print(f"\n{args.samples} samples of ~{args.cells} cells; "
          f"{time.perf_counter() - started:.0f} s wall.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
