"""Trained GIN, GATv2 and the CNN on the tissue rule: how well they learn it, how long it
takes, and whether a linear probe reads the engaged flag of tumour cells off their node
embeddings.

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_training.py [--samples 200]
        [--cells 300] [--ratios 1] [--seeds 0] [--models gin,gatv2,cnn] [--hidden 64]
        [--layers 2] [--max-epochs 300] [--patience 40] [--learning-rate 0.01[,0.001]]
        [--pixels 5,10] [--data-seed 0] [--shuffle-control] [--threads 1] [--markdown FILE]

The CNN (`cnn`) is the study's (`gracr.domains.tissue.phases`: its hidden channels and
blocks, not `--hidden` and `--layers`) on the field rendered at each of `--pixels` µm per
pixel, on the image graphs at ratio 1 (`--ratios` does not apply to it). The study's CNN
settings (10 µm, Adam at 1e-3) were chosen with

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_training.py --samples 600 --models cnn \
        --pixels 5,10 --learning-rate 0.01,0.001 --max-epochs 40 --patience 40

and GIN's rate (1e-3; `gracr.domains.tissue.trained.LEARNING_RATES`), for D = 0, 1, 2, with

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_training.py --samples 600 --models gin \
        --seeds 0,1,2 --data-seed D --learning-rate 0.01,0.001 --max-epochs 300 --patience 50

One dataset (`generate_dataset`, `TissueSettings.for_cells(--cells)`, data seed
`--data-seed`), graphs at each graph radius ratio (`tissue_graphs`), and per seed a
seeded 60/20/20 split, model initialisation and batch order (`train_model`; the defaults
are `ModelSettings` and `TrainingSettings`'s: hidden 64, 2 layers, mean pooling, batches
of 16, at most 300 epochs, patience 40; Adam at each architecture's own rate, `training_for`,
unless `--learning-rate` lists others). Per run: the
epochs run, the best validation AUC, the test AUC of the model kept, seconds of training,
and the linear probe's test AUC (`linear_probe`: engaged flag of tumour cells, fitted on
the training split's tumour cells) for the trained model and for the same architecture at
its initial random weights (`build_model` with the run's seed). `--shuffle-control` adds
a run per model trained, and early-stopped, on shuffled training and validation labels
(its test AUC should sit near 0.5).

Torch runs on `--threads` threads (default 1: on a busy two-core machine two threads made
a small scatter ~200 times slower in a probe run).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from torch_geometric.data import Data

from gracr.bench.report.tables import print_table
from gracr.domains.tissue import TissueSettings, generate_dataset
from gracr.domains.tissue.image import image_graphs
from gracr.domains.tissue.phases import CNN_HIDDEN, CNN_LAYERS
from gracr.domains.tissue.probes import linear_probe
from gracr.domains.tissue.trained import (ModelSettings, TrainingSettings, build_model,
                                          split_graphs, tissue_graphs, train_model,
                                          training_for)

HEADERS = ("model", "ratio", "pixel µm", "learning rate", "seed", "labels", "epochs", "best epoch", "val AUC", "test AUC",
           "seconds", "probe AUC trained", "probe AUC random")


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--cells", type=int, default=300, help="approximate cells per sample")
    parser.add_argument("--ratios", default="1", help="graph radius / label radius (list)")
    parser.add_argument("--seeds", default="0", help="split, init and batch-order seeds")
    parser.add_argument("--data-seed", type=int, default=0)
    parser.add_argument("--models", default="gin,gatv2")
    parser.add_argument("--hidden", type=int, default=ModelSettings.hidden)
    parser.add_argument("--layers", type=int, default=ModelSettings.layers)
    parser.add_argument("--max-epochs", type=int, default=TrainingSettings.max_epochs)
    parser.add_argument("--patience", type=int, default=TrainingSettings.patience)
    parser.add_argument("--batch-size", type=int, default=TrainingSettings.batch_size)
    parser.add_argument("--learning-rate", default="",
                        help="Adam's learning rate (a list: each in turn; default: each "
                             "architecture's own, as the study trains it)")
    parser.add_argument("--pixels", default="10", help="the CNN's µm per pixel (list)")
    parser.add_argument("--shuffle-control", action="store_true",
                        help="also train each model on shuffled training and validation labels")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    start = time.perf_counter()
    tables, theta = generate_dataset(np.random.default_rng(args.data_seed),
                                     TissueSettings.for_cells(args.cells), args.samples)
    generated = time.perf_counter() - start
    cells = np.mean([t.num_cells for t in tables])
    print(f"{args.samples} samples, mean {cells:.0f} cells, θ = {theta}, "
          f"generated in {generated:.1f} s")

    rows: list[list[str]] = []
    side_um = TissueSettings.for_cells(args.cells).side_um
    names = [name.strip() for name in args.models.split(",")]
    # (model, ratio, pixel): the graph models at every ratio, the CNN at each pixel size.
    runs: list[tuple[str, float, float | None]] = [(name, ratio, None) for ratio in floats(args.ratios) for name in names
            if name != "cnn"]
    runs += [("cnn", 1.0, pixel) for pixel in floats(args.pixels) if "cnn" in names]
    graphs_at: dict[tuple[float, bool], list[Data]] = {}
    for name, ratio, pixel in runs:
        image = pixel is not None
        if (ratio, image) not in graphs_at:
            graphs_at[ratio, image] = (image_graphs(tables, theta) if image
                                       else tissue_graphs(tables, theta, ratio))
        model_settings = (ModelSettings("cnn", hidden=CNN_HIDDEN, layers=CNN_LAYERS,
                                        pixel_um=pixel, side_um=side_um)
                          if pixel is not None else
                          ModelSettings(name, hidden=args.hidden, layers=args.layers))
        for seed in ints(args.seeds):
            splits = split_graphs(graphs_at[ratio, image], seed)
            own = training_for(name, TrainingSettings()).learning_rate
            for rate in floats(args.learning_rate) or [own]:
                for shuffled in ((False, True) if args.shuffle_control else (False,)):
                    settings = TrainingSettings(max_epochs=args.max_epochs,
                                                patience=args.patience,
                                                batch_size=args.batch_size,
                                                learning_rate=rate, seed=seed,
                                                shuffle_labels=shuffled)
                    model, record = train_model(model_settings, splits, settings)
                    trained = linear_probe(model, splits.train, splits.test)
                    random = linear_probe(build_model(model_settings, seed), splits.train,
                                          splits.test)
                    rows.append([name, "image" if image else f"{ratio:g}",
                                 f"{pixel:g}" if image else "–", f"{rate:g}", str(seed),
                                 "shuffled" if shuffled else "true", str(record.epochs),
                                 str(record.best_epoch), f"{record.best_validation_auc:.3f}",
                                 f"{record.test_auc:.3f}", f"{record.seconds:.1f}",
                                 f"{trained:.3f}", f"{random:.3f}"])
                    print(" | ".join(rows[-1]), flush=True)
    print_table(f"Trained models on the tissue rule ({args.samples} samples of ≈ {args.cells} "
                f"cells, split 60/20/20, graph models: hidden {args.hidden}, {args.layers} "
                f"layers, mean pooling; total {time.perf_counter() - start:.0f} s)", HEADERS, rows,
                args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
