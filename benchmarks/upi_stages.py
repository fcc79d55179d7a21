"""Table 13 (App. D.5): the three stages of Algorithm 1 on instances of the six GracrBench tasks.

For each task, positive instances are drawn from the dataset builder's generators
(`gracr.bench.tasks`, App. F), and Algorithm 1 is run on
each explained instance: one graph for a graph classifier, one positive target
node for a node classifier. Reported, as in Table 13: |V|, |E|, the mean receptive
field |E_T|, the ROBDD size (mean and max, nodes of the larger of f and f^; and
the nodes the manager holds after Build, memoised sub-diagrams and variables
included: the paper does not say which of the two it counts), and the wall-clock of Build (manager creation, variables, Algorithms 4/5), Extend
(Algorithm 2) and Extract (Algorithm 3), mean ± std. The mean UPI size is shown
too (Table 15: 22.0, 6.0, 6.0, 10.7, 2.3, 17.1). The paper's row follows ours.

    .venv/bin/python benchmarks/upi_stages.py                          # gracr's defaults
    .venv/bin/python benchmarks/upi_stages.py --no-shortcuts --order edges   # as written
    .venv/bin/python benchmarks/upi_stages.py --before f22c171 --markdown docs/results/table13.md

Harness: each instance runs in a fresh child process (`--start fork`, the default, or
`spawn`, a new interpreter), which first makes one untimed run on the task's smallest
instance (so that imports, such as scipy's graph orderings for a graph classifier, and
the first allocations stay outside the timing), then times the instance 3 times and
reports the run of median total. A child that takes over `--max-run` seconds is killed
and counted as oot.

The default call is what `gracr.ground_truth` does by default: the exact shortcuts and the
computation variable order. `--no-shortcuts --order edges` is Algorithm 1 as the paper
wrote it. `--before REV` also runs, task by task in the same run, the same instances
under gracr at commit REV (checked out into a temporary `git worktree`, run in a child
process with `PYTHONPATH=<tree>`) with `--before-flags` (default: that version's
default call, `--no-shortcuts --order edges`), and prints its row and the ratio of the
mean totals under ours.

The static variable order is the edge order, and it matters: by default edges are
sorted by source, as PyG's coalesced `edge_index` is (this reproduces the paper's
largest Majority2Hop diagram, about 3M nodes); `--edge-order target` keeps each
node's in-edges together, which keeps every diagram small.

Formulas are read from `gracr/formulas/<Task>.gml`.
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import shlex
import statistics
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Any, Iterator

import numpy as np
from versions import checked_out, environment

import gracr
from gracr.bdd.upi import UpiReport, receptive_field, upi_report
from gracr.bench.tasks import TASKS, Task
from gracr.domains.paper import published
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind

PAPER = published.TABLE13


# ---------------------------------------------------------------- instances


def reorder_edges(graph: Graph, order: str) -> Graph:
    """The graph with its edge list sorted as `--edge-order` asks (the mask is per edge,
    so only the static variable order changes)."""
    if order == "source":  # PyG's coalesced edge_index: sorted by (source, target)
        keep = np.lexsort((graph.targets, graph.sources))
    elif order == "target":  # the in-edges of each node contiguous (the dataset builder's)
        keep = np.lexsort((graph.sources, graph.targets))
    else:
        return graph
    return Graph(graph.num_nodes, graph.colors, graph.sources[keep], graph.targets[keep])


def instances(task: Task, count: int, rng: np.random.Generator,
              order: str) -> Iterator[tuple[Graph, int | None]]:
    """Explained instances from the dataset builder's generators (`gracr.bench.tasks`):
    positive graphs accepted by App. F's rejection test, or positive target nodes in
    random order, graph after graph (in node order the first ones would all be hubs)."""
    program = task.program()
    produced = 0
    # Versions before task files drew with `draw_graph(rng, positive)` / `draw_nodes(rng)`.
    draw = getattr(task, "draw", None) or (
        (lambda r, positive: task.draw_graph(r, positive)) if task.kind is Kind.GRAPH  # type: ignore[attr-defined]
        else (lambda r, positive: task.draw_nodes(r)))  # type: ignore[attr-defined]
    if task.kind is Kind.GRAPH:
        fires = task.predicate()
        assert fires is not None
        while produced < count:
            candidate = draw(rng, True)
            firing = np.flatnonzero(np.asarray(gracr.evaluate(fires, candidate.graph)))
            if frozenset(int(v) for v in firing) == candidate.annotated:
                produced += 1
                yield reorder_edges(candidate.graph, order), None
        return
    while produced < count:
        graph = reorder_edges(draw(rng, True).graph, order)
        positives = np.flatnonzero(np.asarray(gracr.evaluate(program, graph)))
        chosen = rng.permutation(positives)[:count - produced]
        for target in chosen:
            produced += 1
            yield graph, int(target)


# ---------------------------------------------------------------- the table


def mean_std(values: list[float]) -> str:
    std = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.4f} ± {std:.4f}"


def compact(count: float) -> str:
    if count < 1000:
        return f"{count:.0f}"
    if count < 1_000_000:
        return f"{count / 1000:.1f}k" if count < 10_000 else f"{count / 1000:.0f}k"
    return f"{count / 1_000_000:.1f}M"


COLUMNS = ("dataset", "|V|", "|E|", "|E_T|", "UPI", "num. nodes", "manager", "Build",
           "Algorithm 2", "Algorithm 3", "total", "oot")
WIDTHS = (20, 4, 5, 6, 5, 12, 12, 16, 16, 16, 16, 4)


def line(cells: tuple[str, ...]) -> str:
    return " ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}"
                    for i, (c, w) in enumerate(zip(cells, WIDTHS)))


TIMED_RUNS = 3  # per instance; the run of median total is reported


def _child(connection: Connection, prog: gracr.Program, warm_up: tuple[Graph, int | None],
           graph: Graph, target: int | None, options: dict[str, Any]) -> None:
    # One untimed run on the task's first instance first: the imports a first call makes
    # (scipy's graph orderings for a graph classifier: 0.16 s), the first manager's fresh
    # memory pages (tens of ms with CUDD) and Python's first calls stay out of the timing.
    upi_report(prog, *warm_up, **options)
    runs = sorted((upi_report(prog, graph, target, **options) for _ in range(TIMED_RUNS)),
                  key=lambda report: report.total_seconds)
    connection.send(runs[len(runs) // 2])
    connection.close()


def run_isolated(prog: gracr.Program, warm_up: tuple[Graph, int | None], graph: Graph,
                 target: int | None, options: dict[str, Any], max_run: float,
                 start: str) -> UpiReport | None:
    """One instance in a fresh child process (`start`: fork or spawn), after a warm-up run
    on `warm_up`: the report of the median of `TIMED_RUNS` runs; None when the child takes
    over `max_run` seconds."""
    context = multiprocessing.get_context(start)
    receiver, sender = context.Pipe(duplex=False)
    gc.freeze()  # the child's collector then leaves the parent's pages alone (no copy-on-write)
    process = context.Process(target=_child,
                              args=(sender, prog, warm_up, graph, target, options))
    process.start()
    sender.close()
    report: UpiReport | None = None
    if receiver.poll(max_run):
        try:
            report = receiver.recv()
        except EOFError:  # the child died: counted with the ones out of time
            report = None
    else:
        process.kill()
    process.join()
    return report


def measure(task: Task, count: int, seed: int, options: dict[str, Any], edge_order: str,
            max_run: float, start: str) -> tuple[tuple[str, ...], float | None]:
    """The task's row of the table, and its mean total seconds (None: every run oot)."""
    prog = task.program()
    rng = np.random.default_rng(seed)
    reports: list[UpiReport] = []
    sizes: list[tuple[int, int, int]] = []
    out_of_time = 0
    drawn = list(instances(task, count, rng, edge_order))
    # The warm-up instance: the smallest, so that no child waits long on it.
    warm_up = min(drawn, key=lambda instance: int(receptive_field(prog, *instance).sum()))
    for graph, target in drawn:
        report = run_isolated(prog, warm_up, graph, target, options, max_run, start)
        if report is None:
            out_of_time += 1
            continue
        assert report.label == 1, f"{task.name}: an explained instance must be positive"
        field = receptive_field(prog, graph, target)
        assert not (report.mask & ~field).any()
        reports.append(report)
        sizes.append((graph.num_nodes, graph.num_edges, int(field.sum())))
    if not reports:
        return (task.name,) + ("-",) * (len(COLUMNS) - 2) + (f"{out_of_time}",), None
    nodes = [r.nodes for r in reports]
    held = [r.manager_nodes for r in reports]
    return (
        task.name,
        f"{statistics.fmean(s[0] for s in sizes):.0f}",
        f"{statistics.fmean(s[1] for s in sizes):.0f}",
        f"{statistics.fmean(s[2] for s in sizes):.1f}",
        f"{statistics.fmean(float(r.mask.sum()) for r in reports):.1f}",
        f"{compact(statistics.fmean(nodes))} ({compact(max(nodes))})",
        f"{compact(statistics.fmean(held))} ({compact(max(held))})",
        mean_std([r.build_seconds for r in reports]),
        mean_std([r.extend_seconds for r in reports]),
        mean_std([r.extract_seconds for r in reports]),
        mean_std([r.total_seconds for r in reports]),
        str(out_of_time),
    ), statistics.fmean(r.total_seconds for r in reports)


def measure_before(tree: str, revision: str, task: str, args: argparse.Namespace
                   ) -> tuple[tuple[str, ...], float | None]:
    """The task's row under the gracr of `tree` (a checkout of `revision`)."""
    command = [sys.executable, os.path.abspath(__file__), "--json-row", "--tasks", task,
               "--instances", str(args.instances), "--seed", str(args.seed),
               "--backend", args.backend, "--edge-order", args.edge_order,
               "--max-run", str(args.max_run), "--start", args.start,
               *shlex.split(args.before_flags)]
    done = subprocess.run(command, env=environment(tree, threads=None), cwd=tree, capture_output=True, text=True,
                          check=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    row = tuple(answer["row"])
    return (f"  ({revision})",) + row[1:], answer["total"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instances", type=int, default=200,
                        help="explained instances per task (the paper: the first 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="cudd", choices=("cudd", "autoref"))
    parser.add_argument("--reorder", action="store_true", help="dynamic variable reordering")
    parser.add_argument("--edge-order", default="source", choices=("source", "target", "built"),
                        help="edge list order: sorted by source as PyG coalesces it "
                             "(default), by target, or as the dataset builder lists them "
                             "(which is by target)")
    parser.add_argument("--order", default="computation", choices=("edges", "computation"),
                        help="static variable order: gracr.bdd.upi.computation_order "
                             "(default) or the edge list (§4.3)")
    parser.add_argument("--max-run", type=float, default=30.0,
                        help="seconds before one instance is stopped and counted as oot")
    parser.add_argument("--start", default="fork", choices=("fork", "spawn"),
                        help="how each instance's child process starts: a fork of this "
                             "one (default) or a new interpreter (spawn)")
    parser.add_argument("--no-shortcuts", dest="shortcuts", action="store_false",
                        help="Algorithm 1 as written (default: with the exact shortcuts)")
    parser.add_argument("--before", metavar="REV", default=None,
                        help="also run each task's instances under gracr at commit REV")
    parser.add_argument("--before-flags", default="--no-shortcuts --order edges",
                        help="this script's flags for the --before run (default: the "
                             "paper's Algorithm 1, the defaults before 2026-12)")
    parser.add_argument("--json-row", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tasks", nargs="*", default=list(TASKS),
                        choices=list(TASKS))
    parser.add_argument("--markdown", help="also write the table to this Markdown file")
    args = parser.parse_args(argv)

    options = {"backend": args.backend, "reorder": args.reorder, "order": args.order,
               "shortcuts": args.shortcuts}
    if args.json_row:  # a --before child: one task's row, as JSON
        (task,) = [TASKS[name] for name in args.tasks]
        row, total = measure(task, args.instances, args.seed, options, args.edge_order,
                             args.max_run, args.start)
        print(json.dumps({"row": row, "total": total}))
        return 0

    mode = "with the exact shortcuts" if args.shortcuts else "Algorithm 1 as written"
    engine = (f"{args.backend}, {'dynamic' if args.reorder else 'static'} variable order "
              f"({'edge list' if args.order == 'edges' else 'computation order'})")
    title = (f"Table 13: stages of Algorithm 1, {engine}, {mode}; edge lists sorted by "
             f"{args.edge_order}; {args.instances} explained instances per task, seed "
             f"{args.seed}; times in seconds, mean ± std over the instances done within "
             f"{args.max_run:g} s (oot: the others). Harness: each instance in a fresh "
             f"child process ({args.start}), after one untimed run on the task's smallest "
             f"instance (imports and first allocations outside the timing); per instance "
             f"the run of median total of {TIMED_RUNS}")
    if args.before:
        title += (f"; '({args.before})' rows: the same instances under gracr {args.before} "
                  f"with `{args.before_flags}`, run in turn with ours")
    print(title)
    print(line(COLUMNS))
    lines: list[tuple[str, ...]] = []
    with checked_out({"before": args.before} if args.before else {}) as trees:
        for task in TASKS.values():
            if task.name not in args.tasks:
                continue
            row, total = measure(task, args.instances, args.seed, options,
                                 args.edge_order, args.max_run, args.start)
            lines.append(row)
            print(line(row), flush=True)
            v, e, et, nodes, build, ext, extr, paper_total = PAPER[task.name]
            lines.append(("  (paper)", v, e, et, "", nodes, "", build, ext, extr,
                          paper_total, ""))
            print(line(lines[-1]), flush=True)
            if args.before:
                before, before_total = measure_before(trees["before"], args.before, task.name,
                                                      args)
                ratio = (f"{before_total / total:.1f}x faster" if before_total and total
                         else "-")
                lines.append(before[:-1] + (f"{before[-1]}; {ratio}",))
                print(line(before) + f"   ours {ratio}", flush=True)

    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(f"{title}\n\n| " + " | ".join(c.replace("|", "\\|") for c in COLUMNS)
                         + " |\n|" + "---|" * len(COLUMNS) + "\n")
            for cells in lines:
                handle.write("| " + " | ".join(cells) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
