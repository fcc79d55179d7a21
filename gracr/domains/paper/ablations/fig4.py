"""Fig. 4: Deconv on Redundancy while background nodes away from the black node are recoloured
red one by one.

Redundancy's formula is `∃u. black(u) ∧ ◇≥1 red`: a red node that is not a neighbour of the
black node never satisfies it, so the UPI stays the same at every step — we recompute it
(Algorithm 1) and check. The paper's finding: Deconv's precision drops steadily as red nodes
are added (it highlights red nodes although they do not contribute). The paper shows one
graph; we average over the first `limit` positive graphs of each seed.

Each explained step is a `Record` of `fig4.jsonl` whose `extra` holds the step k, the
recoloured nodes and the dataset size; the log resumes on (config hash, dataset size, seed,
graph, k). Every step is explained, an out-of-time one included.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from gracr.bdd.upi import upi
from gracr.domains.paper.ablations.common import command_line, write_text
from gracr.domains.paper.ablations.declare import FigureAblation
from gracr.domains.paper.ablations.figures import (FigureLog, figure_canvas, figure_settings,
                                                  finish_figure, first_positives,
                                           pooled_stats, save_figure)
from gracr.bench.budget import explain
from gracr.bench.instances import compile_variant
from gracr.bench.options import parse_overrides, parse_seeds
from gracr.bench.record import Record
from gracr.bench.report import CSV, DDOF, PAPER, Provenance, render_table
from gracr.stats import Stat
from gracr.bench.tasks import TASKS, VARIANTS
from gracr.data.graph import Graph
from gracr.errors import GracrError

BoolArray = npt.NDArray[np.bool_]
TASK = "Redundancy"
EXPLAINER = "Deconv"
ANCHOR_COLOUR = "black"
RECOLOUR = "red"
KEY_FIELDS = ("config_hash", "dataset_size", "seed", "graph", "k")
METRICS = ("precision", "recall", "f1")

Row = tuple[int, int, dict[str, Stat | None]]


def recolourable(graph: Graph) -> list[int]:
    """The nodes Fig. 4 may recolour red: not black, not red, and neither an in- nor an
    out-neighbour of a black node — so that the new red nodes can never satisfy ◇≥1 red at a
    black node and `∃u. black(u) ∧ ◇≥1 red` keeps its UPI."""
    black = graph.color_mask(ANCHOR_COLOUR)
    near = black.copy()
    near[graph.sources[black[graph.targets]]] = True
    near[graph.targets[black[graph.sources]]] = True
    red = graph.color_mask(RECOLOUR)
    return [int(v) for v in np.flatnonzero(~near & ~red)]


def recolour_order(graph: Graph, seed: int, graph_index: int) -> list[int]:
    """`recolourable(graph)` in a random order drawn from (seed, graph index)."""
    rng = np.random.default_rng([seed, graph_index])
    nodes = recolourable(graph)
    return [nodes[i] for i in rng.permutation(len(nodes))]


def recoloured(graph: Graph, nodes: Iterable[int]) -> Graph:
    """`graph` with each of `nodes` recoloured red (its other colours dropped: one-hot)."""
    colours = [graph.node_colors(v) for v in range(graph.num_nodes)]
    for node in nodes:
        colours[node] = frozenset({RECOLOUR})
    return dataclasses.replace(graph, colors=tuple(colours))


def checked_upi(program: Any, graph: Graph, expected: BoolArray, where: str) -> None:
    """Recompute the UPI of `graph` (Algorithm 1) and fail loudly unless it is positive and
    equal to `expected`: Fig. 4 relies on the recolouring leaving the ground truth alone."""
    label, mask = upi(program, graph, order="computation")
    if label != 1 or not np.array_equal(mask, expected):
        raise AssertionError(f"{where}: recolouring changed the UPI (label {label}, "
                             f"{int(mask.sum())} UPI edges instead of {int(expected.sum())})")


def fig4_rows(records: Sequence[Record]) -> list[Row]:
    """Per k: how many graphs reached k recoloured nodes, and mean ± std over those graphs
    (all seeds pooled) of precision, recall and F1."""
    by_k: dict[int, list[Record]] = defaultdict(list)
    for record in records:
        if record.status == "ok":
            by_k[int(record.extra["k"])].append(record)
    rows: list[Row] = []
    for k in sorted(by_k):
        stats: dict[str, Stat | None] = {name: pooled_stats(by_k[k], name) for name in METRICS}
        rows.append((k, len(by_k[k]), stats))
    return rows


def run_fig4(args: argparse.Namespace, out: TextIO) -> int:
    """Deconv on the first `limit` positive Redundancy graphs while k = 0, 1, 2, … background
    nodes away from the black node are recoloured red (Fig. 4), the UPI checked at every k."""
    # The explainer registry loads torch and PyG; `gracrc --help` imports this module.
    from gracr.explainers import Subject, explainer_seed, settings_hash

    seeds = parse_seeds(args.seeds)
    if args.max_k is not None and args.max_k < 0:
        raise GracrError(f"--max-k must be 0 or more, got {args.max_k}")
    settings = figure_settings(EXPLAINER, TASK, args.settings,
                               parse_overrides(args.set, [EXPLAINER]))
    config_hash = settings_hash(settings)
    folder = Path(args.out)
    log = FigureLog(folder / "fig4.jsonl", KEY_FIELDS, TASK, EXPLAINER, args.keep_errors)
    program = TASKS[TASK].program()
    started = time.perf_counter()
    plans = []
    for seed, dataset, size, chosen in first_positives(TASK, seeds, args.limit, args.graphs,
                                                       args.datasets, progress=not args.quiet):
        for instance in chosen:
            graph = dataset.instances[instance.graph].graph
            order = recolour_order(graph, seed, instance.graph)
            steps = len(order) if args.max_k is None else min(len(order), args.max_k)
            plans.append((seed, dataset, size, instance, order[:steps]))
    todo = sum(1 for seed, _, size, instance, order in plans for k in range(len(order) + 1)
               if (config_hash, size, seed, instance.graph, k) not in log)
    bar = tqdm(total=todo, desc="fig4", unit="step", disable=args.quiet, dynamic_ncols=True)
    models: dict[int, Any] = {}
    for seed, dataset, size, instance, order in plans:
        if seed not in models:
            models[seed] = compile_variant(TASK, VARIANTS["main"], dataset)
        base = dataset.instances[instance.graph].graph
        for k in range(len(order) + 1):
            if (config_hash, size, seed, instance.graph, k) in log:
                continue
            graph = recoloured(base, order[:k])
            checked_upi(program, graph, instance.upi,
                        f"Redundancy seed {seed} graph {instance.graph}, k = {k}")
            outcome = explain(EXPLAINER, Subject.of(models[seed], program, graph, None),
                              instance.upi, settings, explainer_seed(seed, instance.index),
                              args.budget)
            log.add(Record.of(
                outcome, task=TASK, variant="main", explainer=EXPLAINER, config=settings,
                config_hash=config_hash, seed=seed, instance=instance.index,
                graph=instance.graph, target=None, upi_edges=int(instance.upi.sum()),
                edges=graph.num_edges,
                extra={"k": k, "recoloured": order[:k], "dataset_size": size}))
            bar.update()
    bar.close()
    records = log.wanted({(config_hash, size, seed, instance.graph, k)
                          for seed, _, size, instance, order in plans
                          for k in range(len(order) + 1)})
    rows = fig4_rows(records)
    extra = [] if args.max_k is None else ["--max-k", str(args.max_k)]
    provenance = Provenance(command_line(args, table=False, extra=extra),
                            datetime.date.today().isoformat(),
                            tuple(sorted({r.gracr_version for r in records})))
    text = _markdown(args, rows, sum(r.status == "oot" for r in records),
                     sum(r.status == "error" for r in records), provenance)
    write_text(folder / "fig4.md", text)
    csv_headers = ["k", "graphs"] + [f"{m}_{w}" for m in METRICS for w in ("mean", "std")]
    csv_rows = [[str(k), str(n)] + [CSV.number(None if stats[m] is None
                                               else getattr(stats[m], w))
                                    for m in METRICS for w in ("mean", "std")]
                for k, n, stats in rows]
    return finish_figure("fig4", folder, text, csv_headers, csv_rows,
                         lambda path: plot_fig4(rows, path), started, out)


def _markdown(args: argparse.Namespace, rows: Sequence[Row], oot: int, errors: int,
              provenance: Provenance) -> str:
    headers = ["k recoloured", "graphs", "precision", "recall", "F1"]
    body = [[str(k), str(n), *(PAPER.stat(stats[m]) for m in METRICS)] for k, n, stats in rows]
    return "\n".join([
        "Fig. 4: Deconv on Redundancy as background nodes are recoloured red", "",
        f"Seeds {args.seeds}, first {args.limit} positive graphs per seed; at step k the first "
        "k nodes of a seeded random order of the nodes that are neither black, red nor a "
        "neighbour of the black node are red. The UPI was recomputed (Algorithm 1) and found "
        "unchanged at every step. The paper shows one graph; we average over graphs.", "",
        render_table(headers, body), "",
        f"Mean ± std (ddof={DDOF}) over the graphs that reached k (all seeds pooled)"
        + (f"; {oot} out-of-time steps left out" if oot else "")
        + (f"; {errors} steps where Deconv failed left out" if errors else "")
        + ". The paper: precision "
        "drops steadily as red nodes are added (Deconv highlights red nodes although they "
        "do not contribute).", "", provenance.line()]) + "\n"


def plot_fig4(rows: Sequence[tuple[int, int, Mapping[str, Stat | None]]], path: Path) -> None:
    """Mean precision (bold, with ± std band) and recall, F1 (thin) against k."""
    figure, (axis,) = figure_canvas(1, 6.0, 3.6)
    ks = [row[0] for row in rows]

    def values(name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        stats = [row[2][name] for row in rows]
        return (np.asarray([math.nan if s is None else s.mean for s in stats]),
                np.asarray([0.0 if s is None or s.std is None else s.std for s in stats]))

    mean, std = values("precision")
    axis.plot(ks, mean, marker="o", linewidth=2.0, label="precision")
    axis.fill_between(ks, mean - std, mean + std, alpha=0.2)
    for name, label in (("recall", "recall"), ("f1", "F1")):
        axis.plot(ks, values(name)[0], linewidth=1.0, linestyle="--", label=label)
    axis.set_xlabel("background nodes recoloured red (k)")
    axis.set_ylabel("metric")
    axis.set_ylim(-0.03, 1.05)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower left")
    axis.set_title("Deconv on Redundancy (Fig. 4)")
    save_figure(figure, path)


FIGURE = FigureAblation("fig4", "Deconv as red nodes are added to Redundancy graphs (Fig. 4)",
                        run_fig4, "0", 20)
