"""Forward time of a compiled model over 4 relations against a PyG `RGCNConv` stack.

    .venv/bin/python benchmarks/typed_forward.py [--nodes 1000000] [--edges 5000000]
        [--repeats 3] [--disjunction demorgan] [--threads N] [--out DIR]

What it measures: one typed classifier (`PROGRAM` below: two colours, two attribute
families, `relations r0, r1, r2, r3`, relation-filtered modalities on all four
relations nested three deep; compiled width capped at 64) run on a random typed graph
of `--nodes` nodes and `--edges` directed edges (sources, targets and relations drawn
uniformly; colours Bernoulli(1/2), attribute values uniform). Timed, all under
`torch.no_grad()`: gracr's `CompiledModule` (surrogate derivative, narrow messages),
`FusedCompiledModule`, and a stack of the same shape built from PyG parts — an input
`Linear(features, width)`, then as many `RGCNConv(width, width, num_relations=4,
aggr="add")` + ReLU layers as the compiled model has message-passing layers, random
weights. All three read the same `x` / `edge_index` / `edge_type` tensors, which are
built directly with numpy in the layout of `gracr.data.schema` (no `Graph` of 10^6
strings); that layout is checked against `CompiledGNN.features` / `edge_types` on a
small graph, where the two compiled modules are also asserted to agree with the numpy
`CompiledGNN.forward` and with the reference evaluator `gracr.evaluate(program, graph)`, so a
wrong model is never timed. Times are the median of `--repeats` runs after one
warm-up, on the threads torch uses by default (`--threads N` to choose); the ratios
are from the same run. About 5-9 minutes on 2 cores with the defaults.

`RGCNConv` variant: without pyg-lib (`torch_geometric.typing.WITH_SEGMM` false) PyG
runs its default path, one masked `propagate` per relation followed by `h @ W_r`;
`is_sorted` only affects the segment-matmul path, so it changes nothing there.
`FastRGCNConv` gathers a `[E, width, width]` weight per edge (tens of GB at this
size) and is not run. The variant used is printed with the table.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np
import torch
import torch_geometric
import torch_geometric.typing
from torch import Tensor, nn
from torch_geometric.nn import RGCNConv

from compile_and_forward import median_seconds  # the benchmarks time forwards one way
import gracr
from gracr.bench.report.tables import render_table, write_table

MAX_WIDTH = 64

# Two colours, two attribute families, four relations; every relation is filtered on
# at depth 1 and again at depth 2 or 3 (t0..t2 nest the s-formulas).
PROGRAM = """
colors hub, leaf
attribute kind = a, b, c
attribute charge = neg, zero, pos
relations r0, r1, r2, r3

let s0 = <1>{r0} (kind=a & hub)
let s1 = atleast{r1} 2 (charge=pos | leaf)
let s2 = <1>{r2} kind=b & !<1>{r3} charge=neg
let s3 = exactly{r3} 1 (hub & charge=zero)
let t0 = <1>{r0, r1} (s0 & s1)
let t1 = atleast{r2} 2 (s2 | s3)
let t2 = []{r3} (s1 | kind=c)
classify <1>{r1} t0 & (t1 | <1>{r3} t2)
"""


class RGCNPeer(nn.Module):
    """The same shape from PyG parts: input map, then `layers` RGCNConv(d, d) + ReLU."""

    def __init__(self, features: int, width: int, layers: int, relations: int) -> None:
        super().__init__()
        self.input = nn.Linear(features, width)
        self.convs = nn.ModuleList(RGCNConv(width, width, num_relations=relations, aggr="add")
                                   for _ in range(layers))

    def forward(self, x: Tensor, edge_index: Tensor, edge_type: Tensor) -> Tensor:
        h: Tensor = self.input(x)
        for conv in self.convs:
            h = torch.relu(conv(h, edge_index, edge_type))
        return h


class RandomTypedGraph:
    """A random typed graph as plain arrays: colour bits, attribute value indices,
    edges and relation indices (what a `Graph` holds, without its strings)."""

    def __init__(self, schema: gracr.Schema, num_nodes: int, num_edges: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.schema = schema
        self.num_nodes = num_nodes
        self.colors = rng.random((num_nodes, len(schema.palette))) < 0.5
        self.values = [rng.integers(0, len(f.values), size=num_nodes) for f in schema.families]
        self.edge_index = rng.integers(0, num_nodes, size=(2, num_edges), dtype=np.int64)
        self.edge_type = rng.integers(0, len(schema.relations), size=num_edges, dtype=np.int64)

    def features(self, presence: bool) -> np.ndarray:
        """`x` in the layout of `gracr.data.schema`: colours, each family's one-hot
        block, then the presence column (checked against `CompiledGNN.features`)."""
        width = self.schema.num_features + (1 if presence else 0)
        x = np.zeros((self.num_nodes, width), dtype=np.float32)
        x[:, :len(self.schema.palette)] = self.colors
        rows = np.arange(self.num_nodes)
        for family, values in zip(self.schema.families, self.values):
            x[rows, self.schema.attribute_column(family.name, family.values[0]) + values] = 1.0
        if presence:
            x[:, -1] = 1.0
        return x

    def graph(self) -> gracr.Graph:
        """The same graph as a `gracr.Graph` (small graphs only: it holds strings)."""
        palette = self.schema.palette
        colors = [[palette[j] for j in np.flatnonzero(row)] for row in self.colors]
        attributes = {f.name: [f.values[i] for i in values]
                      for f, values in zip(self.schema.families, self.values)}
        relations = [self.schema.relations[r] for r in self.edge_type]
        return gracr.Graph.from_edges(self.num_nodes, colors, self.edge_index.T,
                                      attributes=attributes, relations=relations)


def checkout() -> str:
    """The commit of the gracr being timed, and whether its package has local changes."""
    folder = os.path.dirname(os.path.abspath(gracr.__file__))
    try:
        commit = subprocess.run(["git", "-C", folder, "rev-parse", "--short", "HEAD"],
                                check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", folder, "status", "--porcelain", "."],
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "an unknown commit"
    return commit + (" + uncommitted changes in gracr/" if dirty else "")


def check_small(program: gracr.Program, model: gracr.CompiledGNN, seed: int) -> None:
    """Layout and agreement on a small graph of the same density: assert, not time."""
    small = RandomTypedGraph(model.schema, 3000, 15000, seed)
    graph = small.graph()
    x_direct = small.features(model.presence)
    assert np.array_equal(model.features(graph), x_direct), "x layout differs from the schema's"
    edge_type = model.edge_types(graph)
    assert edge_type is not None and np.array_equal(edge_type, small.edge_type)
    expected = np.asarray(gracr.evaluate(program, graph), dtype=np.bool_)
    assert 0 < expected.sum() < expected.size, "the check graph must have both answers"
    numpy_out = model.forward(x_direct, small.edge_index, edge_type=small.edge_type)[:, 0]
    assert np.array_equal(numpy_out > 0.5, expected), "numpy forward != evaluator"
    assert np.all((numpy_out == 0) | (numpy_out == 1))
    x = torch.as_tensor(x_direct)
    edge_index = torch.as_tensor(small.edge_index)
    types = torch.as_tensor(small.edge_type)
    with torch.no_grad():
        for name, module in (("CompiledModule", model.to_pyg(surrogate=True)),
                             ("FusedCompiledModule", model.to_pyg(fused=True))):
            out = module.eval()(x, edge_index, edge_type=types)[:, 0].numpy()
            assert np.array_equal(out, numpy_out.astype(np.float32)), f"{name} != numpy forward"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10**6)
    parser.add_argument("--edges", type=int, default=5 * 10**6)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--disjunction", choices=["demorgan", "flat"], default="demorgan")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    parser.add_argument("--out", default=None, help="also write typed_forward.md/.csv here")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"gracr at {checkout()}, torch {torch.__version__}, torch_geometric "
          f"{torch_geometric.__version__}, {torch.get_num_threads()} threads", flush=True)

    program = gracr.parse(PROGRAM)
    model = gracr.compile(program, disjunction=args.disjunction)
    layers, width = model.num_layers, model.width
    assert len(model.relations) == 4 and width <= MAX_WIDTH, (model.relations, width)
    print(f"model: {layers} layers x {width} columns ({args.disjunction}), features "
          f"{', '.join(model.schema.feature_names(model.presence))}", flush=True)
    check_small(program, model, args.seed + 1)
    print("small-graph check passed: x / edge_type layout, CompiledModule == fused == "
          "numpy forward == gracr.evaluate", flush=True)

    big = RandomTypedGraph(model.schema, args.nodes, args.edges, args.seed)
    x = torch.as_tensor(big.features(model.presence))
    edge_index = torch.as_tensor(big.edge_index)
    edge_type = torch.as_tensor(big.edge_type)
    del big
    module = model.to_pyg(surrogate=True).eval()
    fused = model.to_pyg(fused=True).eval()
    peer = RGCNPeer(x.shape[1], width, layers, len(model.relations)).eval()
    variant = ("RGCNConv default path (per-relation masked propagate; "
               f"WITH_SEGMM={torch_geometric.typing.WITH_SEGMM}, is_sorted=False)")
    with torch.no_grad():
        expected = module(x, edge_index, edge_type=edge_type)
        assert torch.equal(fused(x, edge_index, edge_type=edge_type), expected)
        positives = float(expected.mean())
        del expected
        t_module = median_seconds(lambda: module(x, edge_index, edge_type=edge_type),
                                  args.repeats)
        print(f"  CompiledModule {t_module * 1000:.0f} ms", file=sys.stderr, flush=True)
        t_fused = median_seconds(lambda: fused(x, edge_index, edge_type=edge_type), args.repeats)
        print(f"  FusedCompiledModule {t_fused * 1000:.0f} ms", file=sys.stderr, flush=True)
        t_peer = median_seconds(lambda: peer(x, edge_index, edge_type), args.repeats)
        print(f"  RGCNConv {t_peer * 1000:.0f} ms", file=sys.stderr, flush=True)

    headers = ["nodes", "edges", "relations", "layers x width", "positives",
               "CompiledModule (ms)", "fused (ms)", "RGCNConv (ms)",
               "module / RGCNConv", "fused / RGCNConv", "fused / module"]
    rows = [[f"{args.nodes:,}", f"{args.edges:,}", str(len(model.relations)),
             f"{layers} x {width}", f"{positives:.3f}",
             f"{t_module * 1000:.0f}", f"{t_fused * 1000:.0f}", f"{t_peer * 1000:.0f}",
             f"{t_module / t_peer:.2f}", f"{t_fused / t_peer:.2f}", f"{t_fused / t_module:.2f}"]]
    table = render_table(headers, rows)
    title = (f"Typed forward (4 relations, uniform random graph), median of {args.repeats} "
             f"runs after a warm-up, no_grad, {torch.get_num_threads()} threads")
    print(f"\n{title}\n")
    print(table)
    print(f"\nPeer: {layers} x {variant}.")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "typed_forward.md"), "w", encoding="utf-8") as handle:
            handle.write(f"{title}\n\n{table}\n\nPeer: {layers} x {variant}.\n")
        write_table(os.path.join(args.out, "typed_forward.csv"), headers, rows)


if __name__ == "__main__":
    main()
