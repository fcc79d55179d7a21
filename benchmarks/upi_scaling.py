"""Table 12 (App. D.4): the cost of Algorithm 1 on complete graphs, against brute force.

Setup as in the paper: `G` is the complete directed graph on N nodes with
self-loops (N^2 edges, listed in lexicographic (s, t) order, which is the static
variable order), the classifier is the directed edge cover `exists[0, 0] !<1> true`
("no node is left without an incoming edge"), whose UPI is every edge. Engines:
CUDD with the static order, CUDD with dynamic reordering, dd's pure-Python
`autoref`, and the brute force of §4.2 (`gracr.bdd.brute`: every edge subset
through the reference evaluator). An engine whose run exceeds the budget (1 s) is
not run on larger sizes and shows `oot`. All engines that run at a size must
return the same label and mask, and the mask must be all edges.

    .venv/bin/python benchmarks/upi_scaling.py                # gracr's defaults (below)
    .venv/bin/python benchmarks/upi_scaling.py --order edges --no-shortcuts   # Table 12 as written
    .venv/bin/python benchmarks/upi_scaling.py --markdown out/table12.md

The default call is what `gracr.ground_truth` does by default: the exact shortcuts and the
computation variable order (`gracr.bdd.upi.computation_order`), up to N = 100 (10 000
edges). `--order edges --no-shortcuts` is Algorithm 1 as the paper wrote it, on the
edge-list order.

Each run happens in a child process (a fresh manager, a clean heap) after a
warm-up on N = 2 (imports and first allocations outside the timing); a run is the
wall-clock of one `upi_report` call (manager creation, Build, Extend, Extract), the
median of 3 when the first takes under the budget (one run otherwise). The last line
prints the acceptance figure: cudd, static, at the largest N, against 0.1 s, as wall-clock
and as the process's CPU time (which a loaded machine does not inflate).
A run longer than `--max-run` seconds is killed and shown as `>max-run`; a run that
fails shows `failed`. `nodes` is the
size of the larger of the two diagrams Algorithm 1 works on (f and f^).
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

import gracr
from gracr.bdd.brute import brute_force_upi
from gracr.bdd.upi import VariableOrder, upi_report
from gracr.data.graph import Graph
from gracr.domains.paper import published

EDGE_COVER = "classify exists[0, 0] !<1> true"

# (label, backend, reorder); backend None is the brute force.
ENGINES: tuple[tuple[str, str | None, bool], ...] = (
    ("cudd, static", "cudd", False),
    ("cudd, dynamic", "cudd", True),
    ("autoref", "autoref", False),
    ("brute force", None, False),
)

PAPER = published.TABLE12


def complete_graph(n: int) -> Graph:
    """Complete directed graph with self-loops, edges in lexicographic (s, t) order."""
    return Graph.from_edges(n, [[] for _ in range(n)],
                            [(s, t) for s in range(n) for t in range(n)])


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float  # the process's CPU time over the same call: what load cannot inflate
    nodes: int | None
    label: int
    mask: tuple[bool, ...]


def _measure(n: int, backend: str | None, reorder: bool, shortcuts: bool,
             order: VariableOrder, within: float) -> Run:
    prog = gracr.parse(EDGE_COVER)
    graph = complete_graph(n)

    def once() -> tuple[float, float, int | None, int, Any]:
        start, cpu = time.perf_counter(), time.process_time()
        if backend is None:
            label, mask = brute_force_upi(prog, graph, max_variables=30)
            return (time.perf_counter() - start, time.process_time() - cpu, None, label,
                    mask)
        report = upi_report(prog, graph, backend=backend, reorder=reorder,
                            shortcuts=shortcuts, order=order)
        return (time.perf_counter() - start, time.process_time() - cpu, report.nodes,
                report.label, report.mask)

    seconds, cpu_seconds, nodes, label, mask = once()
    if seconds < within:
        runs = [(seconds, cpu_seconds)] + [once()[:2] for _ in range(2)]
        seconds = statistics.median(wall for wall, _ in runs)
        cpu_seconds = statistics.median(cpu for _, cpu in runs)
    return Run(seconds, cpu_seconds, nodes, label, tuple(bool(m) for m in mask))


def _child(connection: Connection, n: int, backend: str | None, reorder: bool,
           shortcuts: bool, order: VariableOrder, within: float) -> None:
    _measure(2, backend, reorder, shortcuts, order, 0.0)  # warm-up: imports, first allocations
    connection.send(_measure(n, backend, reorder, shortcuts, order, within))
    connection.close()


def run_isolated(n: int, backend: str | None, reorder: bool, shortcuts: bool,
                 order: VariableOrder, max_run: float, within: float) -> Run | None:
    """One measurement in a child process; None when it fails or exceeds `max_run` seconds."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child,
                              args=(sender, n, backend, reorder, shortcuts, order, within))
    process.start()
    sender.close()
    result: Run | None = None
    if receiver.poll(max_run):
        try:
            result = receiver.recv()
        except EOFError:  # the child died (its traceback is on stderr)
            result = None
    else:
        process.kill()
    process.join()
    return result


def compact(count: int | None) -> str:
    if count is None:
        return "-"
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def _line(row: list[str]) -> str:
    """A printed row: N, |E|, then (time, nodes) per diagram engine and a brute-force time."""
    cells = iter(row[2:])
    text = f"{row[0]:>4} {row[1]:>4}  "
    for _, backend, _ in ENGINES:
        text += f"{next(cells):>9}"
        if backend:
            text += f" {next(cells):>7}   "
    return text


def sizes(max_n: int) -> list[int]:
    small = list(range(3, min(12, max_n) + 1))
    larger = list(range(16, min(32, max_n) + 1, 4)) + list(range(48, max_n + 1, 16))
    return small + larger + ([max_n] if max_n > 32 and max_n not in larger else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-shortcuts", dest="shortcuts", action="store_false",
                        help="Algorithm 1 as written (default: with the exact shortcuts)")
    parser.add_argument("--budget", type=float, default=1.0,
                        help="seconds; an engine over it is not run on larger sizes")
    parser.add_argument("--max-n", type=int, default=100, help="largest N to try (default 100)")
    parser.add_argument("--max-run", type=float, default=300.0,
                        help="seconds before one run is killed")
    parser.add_argument("--order", default="computation", choices=("edges", "computation"),
                        help="static variable order: gracr.bdd.upi.computation_order "
                             "(default) or the edge list (the paper's)")
    parser.add_argument("--markdown", help="also write the table to this Markdown file")
    args = parser.parse_args(argv)

    mode = "with the exact shortcuts" if args.shortcuts else "Algorithm 1 as written"
    if args.order == "computation":
        mode += ", computation variable order"
    title = (f"Table 12: UPI of `{EDGE_COVER.removeprefix('classify ')}` on complete directed "
             f"graphs with self-loops, {mode}; budget {args.budget:g} s")
    header = ["N", "|E|"]
    for name, backend, _ in ENGINES:
        header += [f"{name} (s)"] + ([f"{name} nodes"] if backend else [])
    rows: list[list[str]] = []
    out_of_time: set[str] = set()
    largest: Run | None = None  # cudd, static at N = --max-n: the acceptance figure
    print(title, flush=True)
    groups = "".join(f"{name:<{20 if backend else 10}}" for name, backend, _ in ENGINES)
    print(f"{'':11}{groups}")
    print(f"{'N':>4} {'|E|':>4}  " + "".join(
        f"{'time (s)':>9} {'nodes':>7}   " if backend else f"{'time (s)':>9}"
        for _, backend, _ in ENGINES), flush=True)
    for n in sizes(args.max_n):
        if len(out_of_time) == len(ENGINES):
            break
        row = [str(n), str(n * n)]
        answers: dict[str, Run] = {}
        for name, backend, reorder in ENGINES:
            if name in out_of_time:
                row += ["oot"] + (["-"] if backend else [])
                continue
            started = time.perf_counter()
            run = run_isolated(n, backend, reorder, args.shortcuts, args.order, args.max_run,
                               args.budget)
            if run is None:
                out_of_time.add(name)
                failed = time.perf_counter() - started < args.max_run
                row += ["failed" if failed else f">{args.max_run:g}"] + (["-"] if backend else [])
                continue
            answers[name] = run
            if n == args.max_n and name == "cudd, static":
                largest = run
            if run.seconds > args.budget:
                out_of_time.add(name)
            row += [f"{run.seconds:.4f}"] + ([compact(run.nodes)] if backend else [])
        masks = {(run.label, run.mask) for run in answers.values()}
        assert len(masks) <= 1, f"N={n}: engines disagree: {sorted(answers)}"
        for run in answers.values():  # App. D.4: the UPI of the edge cover is every edge
            assert run.label == 1 and all(run.mask), f"N={n}: UPI is not all edges"
        rows.append(row)
        print(_line(row), flush=True)

    if largest is not None:
        print(f"\nN = {args.max_n}, cudd static: {largest.seconds:.4f} s wall, "
              f"{largest.cpu_seconds:.4f} s CPU (goal: under 0.1 s wall)")
    print("\nThe paper's Table 12 (AMD Ryzen 9 7950X; brute force queries the compiled GNN):")
    print(f"{'N':>4}  {'static (s)':>10} {'nodes':>6}  {'dynamic (s)':>11} {'nodes':>6}  "
          f"{'autoref (s)':>11} {'nodes':>6}  {'brute (s)':>9}")
    for n, (st, sn, dy, dn, au, an, bf) in PAPER.items():
        brute = "oot" if bf is None else f"{bf:.3f}"
        print(f"{n:>4}  {st:>10.3f} {sn:>6}  {dy:>11.3f} {dn:>6}  {au:>11.3f} {an:>6}  "
              f"{brute:>9}")

    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(f"{title}\n\n| " + " | ".join(h.replace("|", "\\|") for h in header)
                         + " |\n")
            handle.write("|" + "---|" * len(header) + "\n")
            for row in rows:
                handle.write("| " + " | ".join(row) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
