"""The tissue ground truth: what each stage costs from ≈ 300 to ≈ 3000 cells, and how the
exact ground truth (counterfactual set, Banzhaf and Shapley signs) agrees with the roles
the generator records.

    PYTHONPATH=. .venv/bin/python benchmarks/tissue_ground_truth.py [--sizes 300,1000,3000]
        [--samples 5,3,1] [--cap 60] [--skip-upi] [--agreement-samples 20] [--out DIR]

The acceptance figure (issue 38): `relevance` with the library's defaults takes < 10 s per
1 000-cell sample on 2 cores, every sampled value's standard error <= 0.01; the share table
says, per size, how many samples were exact and how many sampled, the largest standard
error and the slowest `relevance`.

Per sample (`TissueSettings.for_cells`, graph radius ratio 1, θ from `generate_dataset`
over max(samples, 2) samples of that size): generation seconds (placement, nests,
markers) and cells per second, the `cKDTree` radius graph, gracr's graph, the label by
the evaluator, then `gracr.bdd.relevance.relevance` (diagram build, counterfactual set,
Banzhaf, Shapley: exact up to 200 support variables, else Monte Carlo with its mean
standard error) and the node UPI (`upi_report(over="nodes")`), both at the library's
defaults. The two diagram runs are each made in a child process stopped after `--cap`
seconds; a stopped run says so in the table (never a silent gap), and so does a diagram
`relevance` refuses (its values are then sampled over the players `graph_term_players`
bounds, to a standard error of 0.01). `--skip-upi` leaves the UPI out (the table says
"skipped").

The agreement table: `gracr.domains.tissue.agreement.summarise` over `--agreement-samples`
samples of ≈ 300 cells, and every violation of the derived claims
(`gracr.domains.tissue.agreement.violations`) printed under it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import sys
import time
from collections import Counter
from typing import Any, Callable

import numpy as np

import gracr
from gracr.bdd.relevance import relevance
from gracr.bdd.upi import upi_report
from gracr.bench.report.tables import render_table, write_table
from gracr.domains.tissue import (CellTable, TissueSettings, generate_dataset, graph_json,
                           radius_graph, recompute_label, tissue_program)
from gracr.domains.tissue.agreement import (SUMMARY_HEADERS, agreement, differences, summarise,
                                     violations)

RATIO = 1.0
TIMING_HEADERS = ("cells", "sample", "label", "generate s", "cells/s", "radius graph s",
                  "gracr graph s", "label s", "diagram build s", "node UPI s",
                  "counterfactual s", "Banzhaf s", "Shapley s", "relevance s",
                  "Shapley method", "support", "diagram size", "min CF", "note")
SHARE_HEADERS = ("cells", "samples", "exact", "sampled", "largest s.e.", "permutations",
                 "slowest relevance s")


def _child(work: Callable[[], dict[str, Any]], out: Any) -> None:
    try:
        out.put(work())
    except Exception as error:  # reported in the table, not swallowed
        out.put({"error": f"{type(error).__name__}: {error}"})


def capped(work: Callable[[], dict[str, Any]], cap: float) -> dict[str, Any] | None:
    """`work()` in a forked child; None if it did not answer within `cap` seconds (the
    child is then terminated)."""
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_child, args=(work, out))
    child.start()
    try:
        result: dict[str, Any] = out.get(timeout=cap)
    except queue.Empty:
        child.terminate()
        child.join()
        return None
    child.join()
    return result


def fmt(seconds: float) -> str:
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def timing_rows(size: int, samples: int, cap: float, skip_upi: bool, seed: int,
                reduced: str) -> tuple[list[list[str]], list[str]]:
    rng = np.random.default_rng([seed, size])
    settings = TissueSettings.for_cells(size)
    count = max(samples, 2)
    start = time.perf_counter()
    tables, theta = generate_dataset(rng, settings, count)
    generate = (time.perf_counter() - start) / count
    prog = gracr.parse(tissue_program(theta))
    rows: list[list[str]] = []
    outcomes: list[Any] = []
    for k, table in enumerate(tables[:samples]):
        start = time.perf_counter()
        radius_graph(table, RATIO)
        radius_s = time.perf_counter() - start
        start = time.perf_counter()
        graph = gracr.Graph.from_json(graph_json(table, theta, RATIO), schema=prog.schema)
        graph_s = time.perf_counter() - start
        start = time.perf_counter()
        label = bool(gracr.evaluate(prog, graph))
        label_s = time.perf_counter() - start
        assert label == recompute_label(table, theta)
        notes = [f"θ = {theta}"] + ([reduced] if reduced else [])

        def run_relevance() -> dict[str, Any]:
            r = relevance(prog, graph)
            errors = [e for e in (r.shapley_stderr, r.banzhaf_stderr) if e is not None]
            stderr = max((float(e.max()) for e in errors), default=None)
            return {"build": r.build_seconds, "cf": r.counterfactual_seconds,
                    "banzhaf": r.banzhaf_seconds, "shapley": r.shapley_seconds,
                    "method": r.shapley_method, "stderr": stderr,
                    "support": r.support_size, "size": r.diagram_size,
                    "min_cf": r.min_counterfactual, "label": r.label,
                    "diagram": r.diagram, "reason": r.reason, "total": r.total_seconds,
                    "permutations": r.permutations}

        def run_upi() -> dict[str, Any]:
            u = upi_report(prog, graph, over="nodes", backend="cudd")
            return {"total": u.total_seconds, "label": u.label}

        rel = capped(run_relevance, cap)
        if skip_upi:
            upi_cell = "skipped (--skip-upi)"
        else:
            upi = capped(run_upi, cap)
            upi_cell = (f"stopped at {cap:g} s cap" if upi is None
                        else upi["error"] if "error" in upi else fmt(upi["total"]))
        if rel is None or "error" in rel:
            why = f"stopped at {cap:g} s cap" if rel is None else rel["error"]
            rest = [why, upi_cell] + ["not reached"] * 4 + ["–"] * 4
            outcomes.append("stopped")
        else:
            assert rel["label"] == int(label)
            method = ("exact" if rel["method"] == "exact"
                      else f"Monte Carlo, {rel['permutations']} perm., largest s.e. "
                           f"{rel['stderr']:.2g}")
            if rel["diagram"] != "built":
                method = (f"sampled, Shapley and Banzhaf ({rel['permutations']} perm.), "
                          f"largest s.e. {rel['stderr']:.2g}")
                notes.append(f"diagram refused: {rel['reason']}")
            outcomes.append(("exact" if rel["diagram"] == "built" and rel["method"] == "exact"
                             else "sampled", rel["stderr"], rel["permutations"], rel["total"]))
            rest = [fmt(rel["build"]) + ("" if rel["diagram"] == "built" else " (refused)"),
                    upi_cell, fmt(rel["cf"]), fmt(rel["banzhaf"]), fmt(rel["shapley"]),
                    fmt(rel["total"]), method, str(rel["support"]), str(rel["size"]),
                    str(rel["min_cf"])]
        rows.append([str(table.num_cells), str(k), "+" if label else "−", fmt(generate),
                     f"{table.num_cells / generate:.0f}", fmt(radius_s), fmt(graph_s),
                     fmt(label_s)] + rest + ["; ".join(notes)])
        print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows, share_row(size, outcomes)


def share_row(size: int, outcomes: list[Any]) -> list[str]:
    """One size's line of the share table: exact and sampled samples, the largest
    standard error, the permutations drawn and the slowest `relevance`."""
    done = [o for o in outcomes if o != "stopped"]
    errors = [o[1] for o in done if o[1] is not None]
    drawn = [o[2] for o in done if o[2] is not None]
    return [f"≈ {size}", str(len(outcomes)), str(sum(o[0] == "exact" for o in done)),
            str(sum(o[0] == "sampled" for o in done)) + (
                f" ({len(outcomes) - len(done)} stopped)" if len(done) < len(outcomes) else ""),
            f"{max(errors):.4f}" if errors else "– (all exact)",
            f"{min(drawn)}–{max(drawn)}" if drawn else "–",
            fmt(max(o[3] for o in done)) if done else "–"]


def agreement_study(count: int, seed: int) -> tuple[list[list[str]], list[str], Counter[str]]:
    rng = np.random.default_rng([seed, 300, 1])
    tables, theta = generate_dataset(rng, TissueSettings.for_cells(300), count)
    prog = gracr.parse(tissue_program(theta))
    found: list[str] = []
    kinds: Counter[str] = Counter()
    results = []
    for k, table in enumerate(tables):
        graph = gracr.Graph.from_json(graph_json(table, theta, RATIO), schema=prog.schema)
        a = agreement(table, relevance(prog, graph, backend="cudd", max_exact=200))
        results.append(a)
        if a.diagram != "built":
            found.append(f"sample {k}: diagram refused (no counterfactual set, sampled values)")
        found += [f"sample {k}: {v}" for v in violations(a)]
        for kind, _ in differences(a):
            kinds[kind] += 1
    return summarise(results), found, kinds


def parse_list(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="300,1000,3000", help="approximate cells per sample")
    parser.add_argument("--samples", default="5,3,1", help="samples per size (comma list)")
    parser.add_argument("--cap", type=float, default=60.0,
                        help="seconds each diagram run (relevance, UPI) may take per sample")
    parser.add_argument("--skip-upi", action="store_true", help="leave the node UPI out")
    parser.add_argument("--agreement-samples", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="also write timings.{md,csv} and agreement.{md,csv} here")
    args = parser.parse_args()
    sizes, samples = parse_list(args.sizes), parse_list(args.samples)
    if len(samples) != len(sizes):
        parser.error("--samples needs one value per size")
    reduced = {s: "" for s in sizes}
    for s, n in zip(sizes, samples):
        if s >= 1000 and n == 1:
            reduced[s] = "1 sample only"

    rows: list[list[str]] = []
    shares: list[list[str]] = []
    for size, n in zip(sizes, samples):
        size_rows, share = timing_rows(size, n, args.cap, args.skip_upi, args.seed, reduced[size])
        rows += size_rows
        shares.append(share)
    print(f"\nStage costs per sample (graph radius ratio {RATIO:g}, cudd, cap "
          f"{args.cap:g} s per diagram run)\n")
    print(render_table(TIMING_HEADERS, rows))
    print("\nExact and sampled signed ground truth per size (`relevance` at its defaults; "
          "goal: < 10 s at ≈ 1 000 cells, every s.e. <= 0.01)\n")
    print(render_table(SHARE_HEADERS, shares))

    summary, found, kinds = agreement_study(args.agreement_samples, args.seed)
    print(f"\nGround truth against the recorded roles ({args.agreement_samples} samples of "
          f"≈ 300 cells; shares of each role's cells)\n")
    print(render_table(SUMMARY_HEADERS, summary))
    kind_rows = [[k, str(v)] for k, v in sorted(kinds.items())]
    print("\nKinds of difference (class, kind: samples showing it)\n")
    print(render_table(("kind", "samples"), kind_rows))
    print(f"\nViolations of the derived claims and refused diagrams: {len(found)}")
    for line in found:
        print(f"- {line}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for name, headers, body in (("timings", TIMING_HEADERS, rows),
                                    ("shares", SHARE_HEADERS, shares),
                                    ("agreement", SUMMARY_HEADERS, summary),
                                    ("differences", ("kind", "samples"), kind_rows)):
            for ext in ("md", "csv"):
                write_table(os.path.join(args.out, f"{name}.{ext}"), headers, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
