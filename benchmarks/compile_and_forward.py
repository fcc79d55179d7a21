"""Compile time of every formula file, and forward time of the compiled models against
a `torch_geometric.nn.GraphConv` stack of the same depth and width.

    .venv/bin/python benchmarks/compile_and_forward.py [--sizes 10000 100000 1000000]
        [--repeats 3] [--markdown out/compile_and_forward.md]

Targets (issue "The gracr compiler"): every formula compiles in under 50 ms; the
compiled forward is no slower than the GraphConv peer (ratio <= 1.0). Graphs are
Barabási–Albert with attachment 2 (`gracr.data.generators`); 10^6 nodes only
for widths <= 64 (memory). Times are the median of `--repeats` runs after one
warm-up, on the threads torch uses by default.
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from torch import Tensor, nn
from torch_geometric.nn import GraphConv

import gracr
from gracr.bench.report.tables import render_table
from gracr.compiler.desugar import uses_comparison
from gracr.data.generators import barabasi_albert_edges

OPTIONS = [("demorgan", "expanded"), ("demorgan", "direct"), ("flat", "expanded"), ("flat", "direct")]
MAX_DEGREE = 50  # the bound the paper uses for the Majority formulas


class GraphConvPeer(nn.Module):
    """The same shape built from PyG parts: input map, then `layers` GraphConv(d, d) + ReLU."""

    def __init__(self, features: int, width: int, layers: int) -> None:
        super().__init__()
        self.input = nn.Linear(features, width)
        self.convs = nn.ModuleList(GraphConv(width, width, aggr="add") for _ in range(layers))

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        h = self.input(x)
        for conv in self.convs:
            h = torch.relu(conv(h, edge_index))
        return h


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    run()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compile_table(paths: list[str], repeats: int) -> list[list[str]]:
    rows = []
    for path in paths:
        program = gracr.parse(Path(path))
        for disjunction, comparison in OPTIONS:
            if comparison == "direct" and not uses_comparison(program.classifier):
                continue  # the switch changes nothing for this formula
            def run() -> gracr.CompiledGNN:
                return gracr.compile(gracr.parse(Path(path)), disjunction=disjunction,  # type: ignore[arg-type]
                                     comparison=comparison, max_degree=MAX_DEGREE)  # type: ignore[arg-type]
            seconds = median_seconds(run, repeats)
            model = run()
            rows.append([os.path.basename(path), disjunction, comparison,
                         f"{model.num_layers} x {model.width}", f"{seconds * 1000:.1f}",
                         "yes" if seconds < 0.050 else "NO"])
    return rows


def forward_table(paths: list[str], sizes: list[int], repeats: int) -> list[list[str]]:
    models: dict[tuple[int, int], tuple[str, gracr.CompiledGNN]] = {}
    for path in paths:
        program = gracr.parse(Path(path))
        for disjunction, comparison in OPTIONS:
            model = gracr.compile(program, disjunction=disjunction,  # type: ignore[arg-type]
                                  comparison=comparison, max_degree=MAX_DEGREE)  # type: ignore[arg-type]
            label = f"{os.path.basename(path)} {disjunction}/{comparison}"
            if model.num_layers > 0:
                models.setdefault((model.num_layers, model.width), (label, model))
    rows = []
    for num_nodes in sizes:
        edge_index = torch.as_tensor(barabasi_albert_edges(num_nodes, 2, seed=0))
        for (layers, width), (label, model) in sorted(models.items(), key=lambda kv: kv[0][1]):
            if num_nodes >= 10**6 and width > 64:
                continue
            generator = np.random.default_rng(0)
            colors = generator.integers(0, len(model.palette), size=num_nodes)
            x = torch.zeros(num_nodes, len(model.palette))
            x[torch.arange(num_nodes), torch.as_tensor(colors)] = 1.0
            module = model.to_pyg(surrogate=True).eval()
            fused = model.to_pyg(fused=True).eval()
            peer = GraphConvPeer(len(model.palette), width, layers).eval()
            with torch.no_grad():
                expected = module(x, edge_index)
                assert torch.equal(fused(x, edge_index), expected)
                t_module = median_seconds(lambda: module(x, edge_index), repeats)
                t_fused = median_seconds(lambda: fused(x, edge_index), repeats)
                t_peer = median_seconds(lambda: peer(x, edge_index), repeats)
            rows.append([f"{num_nodes:,}", label, f"{layers} x {width}",
                         f"{t_module * 1000:.1f}", f"{t_fused * 1000:.1f}", f"{t_peer * 1000:.1f}",
                         f"{t_module / t_peer:.2f}", f"{t_fused / t_peer:.2f}"])
            # Printed as measured, so that a long run that is stopped keeps its rows.
            print("  " + " | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--markdown", default=None, help="also write the tables to this file")
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "gracr", "formulas", "*.gml")))
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads", flush=True)
    compile_rows = compile_table(paths, args.repeats)
    compile_md = render_table(["formula", "disjunction", "comparison", "layers x width",
                         "compile (ms)", "< 50 ms"], compile_rows)
    print("\nCompile time (median of repeats; expanded uses max_degree=50)\n")
    print(compile_md, flush=True)
    forward_rows = forward_table(paths, args.sizes, args.repeats)
    forward_md = render_table(["nodes", "model", "layers x width", "PyG module (ms)", "fused (ms)",
                         "GraphConv (ms)", "module / GraphConv", "fused / GraphConv"],
                        forward_rows)
    print("\nForward time on Barabási–Albert graphs (m = 2), median of repeats\n")
    print(forward_md)
    if args.markdown:
        os.makedirs(os.path.dirname(os.path.abspath(args.markdown)), exist_ok=True)
        with open(args.markdown, "w") as handle:
            handle.write("## Compile time\n\n" + compile_md + "\n\n## Forward time\n\n"
                         + forward_md + "\n")


if __name__ == "__main__":
    main()
