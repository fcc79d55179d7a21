"""Untyped forward (and edge-mask backward) before and after the executor change, in one run.

    .venv/bin/python benchmarks/executor_before_after.py [--before 979085d] [--after HEAD]
        [--graphs ba:500 uniform:10000 ba:100000] [--rounds 3] [--repeats 1]
        [--min-seconds 0.2] [--numpy-max-nodes 10000] [--threads N] [--out DIR]

What it measures: the paper's formulas (Majority2Hop with max_degree 50, i.e. 8 x 505;
CompetingRedundancy, 8 x 16; RedBlueLeaf-NC, 10 x 15; default options) compiled and
run by two versions of gracr: `--before` (default 979085d, the last commit before
`gracr/executor/`, when the modules lived in `gracr/runtime/torch_module.py` and
compiled by `gracr.compiler.compile.compile_program`), and `--after` (default HEAD;
`working-tree`: this checkout with its uncommitted changes), each checked out into a
temporary `git worktree` (removed at the end). Each version runs in its own child
process with `PYTHONPATH=<tree>` (asserted to import that tree's gracr), which imports
whichever API its tree has and times, on the same graphs: the PyG module
(`CompiledModule`, surrogate derivative, under `torch.no_grad()`), the fused module
(`FusedCompiledModule`), the numpy `CompiledGNN.forward` (graphs of at most
`--numpy-max-nodes` nodes), and one forward + backward through the PyG module with
respect to a PyG edge mask (`torch_geometric.explain.algorithm.utils.set_masks`, as
GNNExplainer does).

Both children stay alive and are asked in turn, cell by cell, alternating which version
goes first, so that load from elsewhere falls on both alike. Each request times
`--repeats` runs, or more while they add up to less than `--min-seconds`; every run was
warmed up once when the child built and checked its cells. A cell's time is the median
over its `--rounds` requests' runs. The graphs are generated once here
(`ba:N`: Barabási–Albert with attachment 2; `uniform:N`: 2N uniform random undirected
pairs; both directions listed; one colour per node, uniform over black, red, blue,
green, grey, silver) and passed to the children as one .npz. Each child asserts that its
PyG module, fused module and numpy forward agree; the parent asserts that both versions
give the same outputs and the same edge-mask gradients. The table prints before, after
and after / before (the target is ~1) per cell, all from the same run. About 5 minutes
on 2 cores with the defaults.

The children run with one torch and BLAS thread by default (`--threads 0`: the
libraries' defaults): the ratio is the point, and on a shared machine a second thread
mostly waits for a descheduled partner, which made two-thread cells differ by 10-100x
from one round to the next.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from versions import (
    REPO,
    WORKING_TREE,
    VersionChild,
    assert_imports,
    checked_out,
    describe,
)

FORMULAS = ("Majority2Hop.gml", "CompetingRedundancy.gml", "RedBlueLeaf-NC.gml")
COLOURS = ("black", "red", "blue", "green", "grey", "silver")
MAX_DEGREE = 50  # the bound the paper uses for the Majority formulas
MEASURES = ("module", "fused", "numpy", "backward")
MEASURE_NAMES = {"module": "PyG module", "fused": "fused", "numpy": "numpy forward",
                 "backward": "module fwd+bwd (edge mask)"}


# ------------------------------------------------------------------ child (one version)

def timed_runs(run: Callable[[], object], repeats: int, min_seconds: float) -> list[float]:
    """`repeats` timed runs, more (up to 100) while they add up to under `min_seconds`."""
    times: list[float] = []
    while len(times) < repeats or (sum(times) < min_seconds and len(times) < 100):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def child(args: argparse.Namespace) -> None:
    """Serve timings with the gracr found on `PYTHONPATH`.

    Prints one JSON line `{"api", "threads", "cells": {key: {"shape", "measures"}}}`
    once every model is compiled and checked, then answers each line `key measure`
    read from stdin with a JSON list of times in seconds (`timed_runs`; `add_cell` has
    run each once, the warm-up), and `done` by writing the outputs and edge-mask
    gradients to `--result`.npz and exiting.
    """
    import torch
    from torch_geometric.explain.algorithm.utils import clear_masks, set_masks

    assert_imports(args.tree)
    try:  # after the executor change
        from gracr.executor.model import compile_program
        from gracr.executor.torch_backend import CompiledModule, FusedCompiledModule
        api = "gracr.executor"
    except ImportError:  # before it
        from gracr.runtime.torch_module import CompiledModule, FusedCompiledModule  # type: ignore[no-redef]

        from gracr.compiler.compile import compile_program  # type: ignore[no-redef,attr-defined]
        api = "gracr.runtime.torch_module"
    from gracr.dsl.parse import parse

    if args.threads:
        torch.set_num_threads(args.threads)
    outputs: dict[str, np.ndarray] = {}
    runs: dict[tuple[str, str], Callable[[], object]] = {}
    cells: dict[str, dict[str, Any]] = {}
    with np.load(args.graphs_file) as data:
        graphs = {name: (data[f"{name}/edge_index"], data[f"{name}/colour"])
                  for name in args.graphs}

    def add_cell(model: Any, module: Any, fused: Any, key: str, edges: np.ndarray,
                 colour: np.ndarray) -> None:
        x_np = np.zeros((colour.shape[0], len(model.palette)), dtype=np.float32)
        for j, c in enumerate(model.palette):
            x_np[:, j] = colour == COLOURS.index(c)
        x = torch.as_tensor(x_np)
        edge_index = torch.as_tensor(edges)
        with torch.no_grad():
            out = module(x, edge_index)
            assert torch.equal(fused(x, edge_index), out), key
        outputs[f"{key}|out"] = out.numpy()
        measures = ["module", "fused"]

        def run_module() -> None:
            with torch.no_grad():
                module(x, edge_index)

        def run_fused() -> None:
            with torch.no_grad():
                fused(x, edge_index)

        runs[key, "module"], runs[key, "fused"] = run_module, run_fused
        if colour.shape[0] <= args.numpy_max_nodes:
            assert np.array_equal(model.forward(x_np, edges).astype(np.float32),
                                  out.numpy()), key
            runs[key, "numpy"] = lambda: model.forward(x_np, edges)
            measures.append("numpy")
        mask = torch.nn.Parameter(torch.full((edges.shape[1],), 2.0))

        def run_backward() -> None:
            mask.grad = None
            set_masks(module, mask, edge_index, apply_sigmoid=True)
            try:
                module(x, edge_index).sum().backward()
            finally:
                clear_masks(module)

        run_backward()
        assert mask.grad is not None
        outputs[f"{key}|grad"] = mask.grad.numpy().copy()
        runs[key, "backward"] = run_backward
        measures.append("backward")
        cells[key] = {"shape": f"{model.num_layers} x {model.width}", "measures": measures}

    for formula in FORMULAS:
        model = compile_program(parse(Path(REPO, "gracr", "formulas", formula).read_text()),
                                max_degree=MAX_DEGREE)
        module = CompiledModule(model, surrogate=True).eval()
        fused = FusedCompiledModule(model).eval()
        for name, (edges, colour) in graphs.items():
            add_cell(model, module, fused, f"{formula}|{name}", edges, colour)
    print(json.dumps({"api": api, "threads": torch.get_num_threads(), "cells": cells}),
          flush=True)
    # Every run was warmed up by `add_cell` (which checks it once).
    for line in sys.stdin:
        words = line.split()
        if words == ["done"]:
            break
        run = runs[words[0], words[1]]
        print(json.dumps(timed_runs(run, args.repeats, args.min_seconds)), flush=True)
    np.savez(args.result + ".npz", **outputs)  # type: ignore[arg-type]


# ------------------------------------------------------------------ parent

def make_graph(spec: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`ba:N` (Barabási–Albert, attachment 2) or `uniform:N` (2N random undirected
    pairs, no self-loops), both directions listed; one uniform colour index per node."""
    kind, size = spec.split(":")
    num_nodes = int(size)
    rng = np.random.default_rng(seed)
    if kind == "ba":
        from gracr.data.generators import barabasi_albert_edges
        edges = barabasi_albert_edges(num_nodes, 2, seed=seed)
    elif kind == "uniform":
        pairs = rng.integers(0, num_nodes, size=(2, 2 * num_nodes), dtype=np.int64)
        pairs = pairs[:, pairs[0] != pairs[1]]
        edges = np.ascontiguousarray(np.concatenate([pairs, pairs[::-1]], axis=1))
    else:
        raise SystemExit(f"unknown graph kind {kind!r} (ba:N or uniform:N)")
    colour = rng.integers(0, len(COLOURS), size=num_nodes)
    return edges.astype(np.int64), colour.astype(np.int64)


def start_child(tree: str, args: argparse.Namespace, graphs_path: str) -> VersionChild:
    """One version's child process (`child`), serving timings over its stdin/stdout."""
    command = [sys.executable, os.path.abspath(__file__), "--child", "--tree", tree,
               "--graphs-file", graphs_path, "--result", result_path(graphs_path, tree),
               "--repeats", str(args.repeats), "--min-seconds", str(args.min_seconds),
               "--numpy-max-nodes", str(args.numpy_max_nodes),
               "--threads", str(args.threads), "--graphs", *args.graphs]
    # numpy's BLAS too: the numpy forward is mostly `h @ A`.
    return VersionChild(command, tree, args.threads or None)


def result_path(graphs_path: str, tree: str) -> str:
    """Where the child of `tree` writes its outputs (`.npz` added)."""
    return os.path.join(os.path.dirname(graphs_path), os.path.basename(tree) or "tree")


def finish(version: VersionChild, graphs_path: str) -> dict[str, np.ndarray]:
    """Stop the child and read the outputs and gradients it wrote."""
    version.finish()
    with np.load(result_path(graphs_path, version.tree) + ".npz") as data:
        return {k: data[k] for k in data.files}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="979085d",
                        help="the commit measured first (default: the last one without "
                             "gracr/executor/)")
    parser.add_argument("--after", default="HEAD",
                        help=f"the commit after it, or '{WORKING_TREE}' for this checkout as is")
    parser.add_argument("--graphs", nargs="+", default=["ba:500", "uniform:10000", "ba:100000"])
    parser.add_argument("--repeats", type=int, default=1, help="timed runs per request")
    parser.add_argument("--rounds", type=int, default=3, help="requests per version and cell")
    parser.add_argument("--min-seconds", type=float, default=0.2,
                        help="a request repeats a fast cell until its runs take this long")
    parser.add_argument("--numpy-max-nodes", type=int, default=10000,
                        help="skip the numpy forward on larger graphs")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch and BLAS threads in the children (0: their defaults)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None,
                        help="also write executor_before_after.md/.csv in this folder")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--graphs-file", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    from gracr.bench.report.tables import render_table, write_table

    before_label, after_label = describe(args.before), describe(args.after)
    versions = ("before", "after")
    times: dict[tuple[str, str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="executor_before_after_") as scratch, \
            checked_out({"before": args.before, "after": args.after}) as trees:
        graphs_path = os.path.join(scratch, "graphs.npz")
        arrays: dict[str, np.ndarray] = {}
        for number, spec in enumerate(args.graphs):
            edges, colour = make_graph(spec, args.seed + number)
            arrays[f"{spec}/edge_index"], arrays[f"{spec}/colour"] = edges, colour
            print(f"graph {spec}: {colour.shape[0]:,} nodes, {edges.shape[1]:,} edges, "
                  f"max in-degree {int(np.bincount(edges[1]).max())}", flush=True)
        np.savez(graphs_path, **arrays)  # type: ignore[arg-type]
        children: dict[str, VersionChild] = {}
        try:
            for version in versions:
                children[version] = start_child(trees[version], args, graphs_path)
            cells = children["after"].ready["cells"]
            assert cells == children["before"].ready["cells"], "the versions' models differ"
            # Interleaved: each request of one version is next to the same request of the
            # other, alternating which goes first, so that load from elsewhere falls on both.
            for round_number in range(args.rounds):
                for number, (key, cell) in enumerate(cells.items()):
                    for measure in cell["measures"]:
                        flip = (round_number + number) % 2
                        for version in (versions[::-1] if flip else versions):
                            times.setdefault((version, key, measure), []).extend(
                                json.loads(children[version].request(f"{key} {measure}")))
                        print(f"  round {round_number + 1} {key} {measure}: " + ", ".join(
                            f"{v} {statistics.median(times[v, key, measure]) * 1000:.1f} ms"
                            for v in versions), file=sys.stderr, flush=True)
            outputs = {version: finish(children[version], graphs_path) for version in versions}
        finally:
            for process in children.values():
                process.kill()
    for name in outputs["before"]:
        a, b = outputs["before"][name], outputs["after"][name]
        if name.endswith("|out"):
            assert np.array_equal(a, b), f"{name}: outputs differ between versions"
        else:
            assert np.allclose(a, b, rtol=1e-5, atol=1e-6), f"{name}: mask gradients differ"

    headers = ["formula", "layers x width", "graph", "measure", "before (ms)", "after (ms)",
               "after / before"]
    rows = []
    for key, cell in cells.items():
        formula, graph = key.split("|")
        for measure in cell["measures"]:
            before = statistics.median(times["before", key, measure])
            after = statistics.median(times["after", key, measure])
            rows.append([formula.removesuffix(".gml"), cell["shape"], graph,
                         MEASURE_NAMES[measure], f"{before * 1000:.2f}", f"{after * 1000:.2f}",
                         f"{after / before:.2f}"])
    table = render_table(headers, rows)
    ready = {version: children[version].ready for version in versions}
    title = (f"Executor before ({before_label}, {ready['before']['api']}) / after "
             f"({after_label}, {ready['after']['api']}): median of "
             f"{args.rounds} x {args.repeats} interleaved runs after a warm-up, "
             f"{ready['after']['threads']} torch threads; outputs and edge-mask gradients "
             f"asserted equal")
    print(f"\n{title}\n")
    print(table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "executor_before_after.md"), "w",
                  encoding="utf-8") as handle:
            handle.write(f"{title}\n\n{table}\n")
        write_table(os.path.join(args.out, "executor_before_after.csv"), headers, rows)


if __name__ == "__main__":
    main()
