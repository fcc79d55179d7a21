"""IG on the compiled tissue rule: how many cells get a non-zero score, by IG's step count
and derivative, on a tissue study's explained test samples.

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_ig_steps.py out/tissue-study
        [--samples 4] [--steps 50,500,5000]

The study explains the compiled model with IG's defaults (50 steps, the exact derivative
of the truncated ReLU) and every score came out 0. This measures whether more steps
change that (a Riemann sum can step over a narrow ramp), beside the surrogate derivative
of Eq. 9 at 50 steps. Prints one row per sample: its label, then per setting the cells
with a non-zero score and the seconds.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from gracr.explainers.base import Subject, scores
from gracr.bench.report.tables import render_table
from gracr.data.graph import Graph
from gracr.dsl.parse import parse
from gracr.executor.model import load
from gracr.domains.tissue.dataset import tissue_program
from gracr.domains.tissue.study import read_truth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study", type=Path, help="a gracrc tissue-study folder")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--steps", default="50,500,5000")
    args = parser.parse_args()
    torch.set_num_threads(1)
    theta = json.loads((args.study / "data" / "split.json").read_text())["theta"]
    program = parse(tissue_program(theta))
    model = load(str(args.study / "models" / "compiled.npz"))
    truth = read_truth(args.study)
    lines = (args.study / "data" / "r1" / "graphs.jsonl").read_text().splitlines()
    settings = [(int(s), "exact") for s in args.steps.split(",")] + [(50, "surrogate")]
    headers = ["sample", "label", "cells"] + [f"{n} steps, {d}" for n, d in settings]
    body = []
    for sample in sorted(truth)[:args.samples]:
        graph = Graph.from_json(json.loads(lines[sample]), schema=program.schema)
        subject = Subject.of(model, program, graph, None, level="node")
        row = [str(sample), str(truth[sample]["label"]), str(graph.num_nodes)]
        for steps, derivative in settings:
            start = time.perf_counter()
            values = scores("IG", subject, {"n_steps": steps, "derivative": derivative})
            row.append(f"{int((values != 0).sum())} ({time.perf_counter() - start:.1f} s)")
        body.append(row)
        print(render_table(headers, body[-1:]), flush=True)
    print("\nnon-zero IG scores (seconds)\n")
    print(render_table(headers, body))


if __name__ == "__main__":
    main()
