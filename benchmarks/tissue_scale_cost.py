"""The tissue study's cost at scale, measured in CPU seconds: one explanation per
explainer, model and radius ratio, and one training epoch per architecture and ratio, on
a study folder's own samples (docs/results/tissue/scale/README.md, "What it costs").

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_scale_cost.py STUDY [--samples 2]
        [--train 480] [--epochs 2]

STUDY is a `gracrc tissue-study` folder after its data phase (its `data/cells.jsonl`).
Explanations: the first `--samples` tables, each explainer at its defaults (GNNExplainer
also at 400 epochs) on the compiled model, a GIN, a GATv2 (at every ratio) and the CNN
(its image graph), models at their initial weights (an explanation's cost does not
depend on what the weights learned). Training: `--epochs` epochs of `train_model` on the
first `--train` tables, split 3:1 into training and validation. `time.process_time`
throughout and one torch thread, so a busy machine moves the numbers little.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gracr.bench.report.tables import render_table
from gracr.data.graph import Graph
from gracr.dsl.parse import parse
from gracr.executor.model import compile_program
from gracr.explainers.base import Subject, scores
from gracr.domains.tissue.dataset import graph_json, tissue_program
from gracr.domains.tissue.image import image_graph_json, image_graphs
from gracr.domains.tissue.table import CellTable
from gracr.domains.tissue.trained import (ModelSettings, Splits, TrainingSettings, build_model,
                                          explained, tissue_graphs, train_model)

RATIOS = (1.0, 1.5, 2.0, 3.0)
EXPLAINERS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("IG", {}), ("IG-mean", {}), ("Saliency", {}), ("GNNExplainer", {}),
    ("GNNExplainer", {"epochs": 400}), ("GraphSVX", {}), ("AttentionRollout", {}))


def model_settings(architecture: str) -> ModelSettings:
    return (ModelSettings(architecture="cnn", hidden=32) if architecture == "cnn"
            else ModelSettings(architecture=architecture))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path)
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--train", type=int, default=480)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    import gracr.domains.tissue.explainers  # noqa: F401  (registers IG-mean, the rollout)

    lines = (args.study / "data" / "cells.jsonl").read_text().splitlines()
    tables = [CellTable.from_json(json.loads(line)) for line in lines]
    theta = float(json.loads((args.study / "data" / "split.json").read_text())["theta"])
    program = parse(tissue_program(theta))
    compiled = compile_program(program, presence=True)

    rows = []
    for ratio in RATIOS:
        kinds = ["compiled", "gin", "gatv2", "cnn"] if ratio == 1.0 else ["gin", "gatv2"]
        for kind in kinds:
            subjects = []
            for table in tables[:args.samples]:
                made = graph_json(table, theta, ratio)
                if kind == "compiled":
                    graph = Graph.from_json(made, schema=program.schema)
                    subjects.append(Subject.of(compiled, program, graph, None, level="node"))
                else:
                    graph = Graph.from_json(image_graph_json(made) if kind == "cnn" else made,
                                            schema=program.schema)
                    model = explained(build_model(model_settings(kind)), kind)
                    subjects.append(Subject.of_trained(model, graph, level="node"))
            cells = []
            for name, settings in EXPLAINERS:
                if (name == "AttentionRollout" and kind != "gatv2") or (
                        name == "IG-mean" and kind == "compiled"):
                    cells.append("–")
                    continue
                seconds = []
                for subject in subjects:
                    start = time.process_time()
                    scores(name, subject, settings, seed=0)
                    seconds.append(time.process_time() - start)
                cells.append(f"{np.mean(seconds):.2f}")
            rows.append([kind, f"{ratio:g}", *cells])
            print(rows[-1], flush=True)
    headers = ["model", "ratio", *(f"{n} {s['epochs']}" if s else n for n, s in EXPLAINERS)]
    print(f"\nCPU seconds per explanation (mean of {args.samples} samples)\n")
    print(render_table(headers, rows))

    training_rows = []
    reference = tables[:args.train]
    cut = len(reference) * 3 // 4
    for ratio in (*RATIOS, 0.0):
        graphs = (image_graphs(reference, theta) if ratio == 0.0
                  else tissue_graphs(reference, theta, ratio))
        splits = Splits(graphs[:cut], graphs[cut:], graphs[:1])
        for kind in (("cnn",) if ratio == 0.0 else ("gin", "gatv2")):
            start = time.process_time()
            train_model(model_settings(kind), splits,
                        TrainingSettings(max_epochs=args.epochs, patience=args.epochs + 1))
            per_epoch = (time.process_time() - start) / args.epochs
            training_rows.append([kind, "image" if ratio == 0.0 else f"{ratio:g}",
                                  f"{per_epoch:.1f}"])
            print(training_rows[-1], flush=True)
    print(f"\nCPU seconds per training epoch ({cut} training, {len(reference) - cut} "
          f"validation samples)\n")
    print(render_table(["model", "ratio", "CPU s / epoch"], training_rows))


if __name__ == "__main__":
    main()
