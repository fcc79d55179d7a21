"""CPU seconds per explained instance, old path beside new, and the official protocol's
projected total.

    .venv/bin/python benchmarks/protocol_cost.py [--before b3791c6] [--after working-tree]
        [--instances 5] [--tasks ...] [--explainers ...] [--seed 0] [--budget 180]
        [--datasets DIR] [--seeds-csv docs/results/gracrbench/seeds.csv] [--markdown FILE]

What it measures: every (task, explainer) cell of the official protocol (the explainers
and tasks of `--seeds-csv`, the `main` variant), on the first `--instances` positive
instances of dataset seed `--seed`, with the settings the new version's runner uses
(`gracr.bench.runner.plan_jobs(..., settings="tuned")`, asked of the new version and
given to both, so that the old path does the same work even where its tuned files
lack an entry) and the runner's per-instance seeds, explained by two versions of gracr: `--before` (default b3791c6) and `--after`
(default `working-tree`: this checkout as it is; else a commit). Each version runs in a
child process with `PYTHONPATH=<tree>` (asserted to import that tree's gracr; a commit
is checked out into a temporary `git worktree`, removed at the end) and explains through
`gracr.bench.budget.explain`, the runner's per-instance call, so a time is the CPU
seconds of one instance as a `gracrc bench` record would hold it (one torch thread, the
CPU budget; an instance over budget counts its budget's seconds, marked †).

Both children stay alive and are asked in turn, instance by instance, alternating which
version goes first, so that load from elsewhere falls on both alike. Before timing, each
child runs every explainer once untimed (imports, PyG's compiled templates), and builds
each cell's shared modules as the runner's earlier instances would have. The parent
compares the two versions' scores on every instance: `bit for bit`, or the largest
difference and whether the best F1 changed.

Projection: per cell, the new (and the old) mean CPU seconds per instance times the
instances the official run explained (the `ok` counts of `--seeds-csv`, summed over seeds
and settings), summed over the cells; beside it, the official run's own total (Σ of
`cpu_mean · ok` in `--seeds-csv`, tuning not counted). Cells left out with `--tasks` or
`--explainers` count with their official time in all three totals.

Cost: the old path's slowest cells set the pace (PyG's GraphMask on Majority2Hop, about
40 CPU s per instance at b3791c6; SubgraphX there, 6 to 165 s): the default of 5 instances
took 15 minutes on the shared 2-core machine at load 1 (12 minutes for 3), and will take
about twice that when the machine is busy; each further instance adds 3-5 minutes.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
from collections import defaultdict
from typing import Any

import numpy as np
from versions import (
    REPO,
    WORKING_TREE,
    VersionChild,
    assert_imports,
    checked_out,
    describe,
)

WARM_UP_TASK = "Redundancy"
OFFICIAL_CSV = os.path.join(REPO, "docs", "results", "gracrbench", "seeds.csv")


# ------------------------------------------------------------------ child (one version)

def child(args: argparse.Namespace) -> None:
    """Explain instances with the gracr found on `PYTHONPATH`.

    Prints `{"ready": true}` once warmed up, then answers each JSON request line:
    `{"settings": [task, explainer]}` with the settings this version's runner would
    use for that cell, `{"task", "explainer", "number", "settings"}` with the JSON
    outcome of instance `number` of that cell under those settings; exits on `done`.
    """
    import torch

    torch.set_num_threads(1)
    import gracr
    from gracr.bench.budget import explain
    try:
        from gracr.explainers import explainer_seed
    except ImportError:  # a version before the explainers left the benchmark (issue 36)
        from gracr.bench.explainers.base import explainer_seed  # type: ignore[no-redef]
    from gracr.bench.instances import first_subjects
    from gracr.bench.runner import plan_jobs

    assert_imports(args.tree)
    cells: dict[tuple[str, str], list[Any]] = {}

    def tuned(task: str, explainer: str) -> dict[str, Any]:
        job = plan_jobs([task], ["main"], [explainer], [args.seed], args.instances,
                        args.budget, {}, args.datasets, settings="tuned")[0]
        return dict(job.settings)

    def cell(task: str, explainer: str) -> list[Any]:
        if (task, explainer) not in cells:
            # One module cache per cell, as one runner job has; built before timing, as
            # the job's earlier instances would have built it.
            chosen = first_subjects(task, args.seed, args.instances, datasets=args.datasets)
            for derivative in ("surrogate", "exact"):
                chosen[0][1].module(derivative)
            cells[task, explainer] = chosen
        return cells[task, explainer]

    def run(task: str, explainer: str, number: int, settings: dict[str, Any]
            ) -> dict[str, Any]:
        instance, subject = cell(task, explainer)[number]
        outcome = explain(explainer, subject, instance.upi, settings,
                          explainer_seed(args.seed, instance.index), args.budget)
        return {"status": outcome.status, "error": outcome.error, "cpu": outcome.cpu_seconds,
                "wall": outcome.wall_seconds, "f1": outcome.f1, "instance": instance.index,
                "scores": None if outcome.scores is None else outcome.scores.tolist()}

    for explainer in args.explainers:
        cells.pop((WARM_UP_TASK, explainer), None)
        run(WARM_UP_TASK, explainer, 0, tuned(WARM_UP_TASK, explainer))
        cells.pop((WARM_UP_TASK, explainer), None)
    print(json.dumps({"ready": True, "version": gracr.__version__}), flush=True)
    for line in sys.stdin:
        if line.strip() == "done":
            break
        request = json.loads(line)
        if "settings" in request and "task" not in request:
            print(json.dumps(tuned(*request["settings"])), flush=True)
            continue
        print(json.dumps(run(request["task"], request["explainer"], request["number"],
                             request["settings"])), flush=True)


# ------------------------------------------------------------------ parent

def start_child(tree: str, args: argparse.Namespace) -> VersionChild:
    """One version's child process (`child`), answering one request per line."""
    command = [sys.executable, os.path.abspath(__file__), "--child", "--tree", tree,
               "--instances", str(args.instances), "--seed", str(args.seed),
               "--budget", str(args.budget), "--explainers", *args.explainers]
    if args.datasets:
        command += ["--datasets", os.path.abspath(args.datasets)]
    return VersionChild(command, tree)


def official_cells(path: str) -> dict[tuple[str, str], tuple[float, int]]:
    """Per (task, explainer) of the `main` variant: the official CPU seconds (Σ cpu_mean ·
    ok) and instances explained (Σ ok), over seeds and settings."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    with open(path, encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["variant"] != "main" or not row["ok"] or int(row["ok"]) == 0:
                continue
            totals = cells[row["task"], row["explainer"]]
            totals[0] += float(row["cpu_mean"]) * int(row["ok"])
            totals[1] += int(row["ok"])
    return {key: (seconds, int(count)) for key, (seconds, count) in cells.items()}


def compare(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, float | None]:
    """How the two versions' scores on one instance compare: 'same', 'close', 'differ'
    (or 'n/a' unless both finished), and the largest difference."""
    if old["scores"] is None or new["scores"] is None:
        return "n/a", None
    a, b = np.asarray(old["scores"]), np.asarray(new["scores"])
    if a.shape != b.shape:
        return "differ", float("inf")
    if np.array_equal(a, b):
        return "same", 0.0
    worst = float(np.abs(a - b).max())
    return ("close" if worst <= 1e-6 and old["f1"] == new["f1"] else "differ"), worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="b3791c6", help="the old path's commit")
    parser.add_argument("--after", default=WORKING_TREE,
                        help=f"the new path: a commit, or '{WORKING_TREE}' (this checkout)")
    parser.add_argument("--instances", type=int, default=5,
                        help="first positive instances explained per cell (default 5)")
    parser.add_argument("--tasks", nargs="+", default=None)
    parser.add_argument("--explainers", nargs="+", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=180.0)
    parser.add_argument("--datasets", default=None,
                        help="dataset store (default: gracr's; built on first use)")
    parser.add_argument("--seeds-csv", default=OFFICIAL_CSV,
                        help="the official run's per-seed summary (instances and times)")
    parser.add_argument("--markdown", default=None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    from gracr.bench.report import explainer_rank, task_rank
    from gracr.bench.report.tables import print_table

    official = official_cells(args.seeds_csv)
    tasks = args.tasks or sorted({t for t, _ in official}, key=task_rank)
    args.explainers = args.explainers or sorted({e for _, e in official}, key=explainer_rank)
    measured = [(t, e) for t in tasks for e in args.explainers]
    before, after = describe(args.before), describe(args.after)
    results: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    with checked_out({"old": args.before, "new": args.after}) as trees:
        children: dict[str, VersionChild] = {}
        try:
            for version in ("old", "new"):
                print(f"starting the {version} child ({trees[version]}) ...", file=sys.stderr,
                      flush=True)
                children[version] = start_child(trees[version], args)
            chosen = {cell: children["new"].ask({"settings": list(cell)}) for cell in measured}
            request = 0
            for number in range(args.instances):
                for task, explainer in measured:
                    order = ("old", "new") if request % 2 == 0 else ("new", "old")
                    request += 1
                    for version in order:
                        outcome = children[version].ask(
                            {"task": task, "explainer": explainer, "number": number,
                             "settings": chosen[task, explainer]})
                        results[task, explainer, version].append(outcome)
                    old, new = (results[task, explainer, v][-1] for v in ("old", "new"))
                    print(f"  instance {number} {task} {explainer}: old {old['cpu']:.2f} s "
                          f"({old['status']}), new {new['cpu']:.2f} s ({new['status']}), "
                          f"scores {compare(old, new)[0]}", file=sys.stderr, flush=True)
            for process in children.values():
                process.finish()
        finally:
            for process in children.values():
                process.kill()

    hours = {"official": 0.0, "old": 0.0, "new": 0.0}
    rows = []
    for task, explainer in sorted(official, key=lambda c: (task_rank(c[0]), explainer_rank(c[1]))):
        seconds, count = official[task, explainer]
        hours["official"] += seconds / 3600
        if (task, explainer) not in measured:
            hours["old"] += seconds / 3600
            hours["new"] += seconds / 3600
            continue
        means = {}
        for version in ("old", "new"):
            outcomes = results[task, explainer, version]
            means[version] = statistics.fmean(o["cpu"] for o in outcomes)
            hours[version] += means[version] * count / 3600
        comparisons = [compare(o, n) for o, n in zip(results[task, explainer, "old"],
                                                      results[task, explainer, "new"])]
        kinds = {kind for kind, _ in comparisons}
        worst = max((d for _, d in comparisons if d is not None), default=None)
        scores = ("bit for bit" if kinds == {"same"} else "n/a" if kinds == {"n/a"}
                  else f"{'≤1e-6' if 'differ' not in kinds else 'DIFFER'} (max {worst:.2g})")
        if "n/a" in kinds and kinds != {"n/a"}:
            scores += ", some n/a"
        marks = {version: " †" if any(o["status"] == "oot"
                                       for o in results[task, explainer, version]) else ""
                 for version in ("old", "new")}
        rows.append([task, explainer, f"{seconds / count:.3f}",
                     f"{means['old']:.3f}{marks['old']}", f"{means['new']:.3f}{marks['new']}",
                     f"{means['old'] / means['new']:.1f}x" if means["new"] > 0 else "—",
                     scores, str(count), f"{means['old'] * count / 3600:.2f}",
                     f"{means['new'] * count / 3600:.2f}"])
    headers = ["task", "explainer", "official CPU s/inst", "old CPU s/inst",
               "new CPU s/inst", "old / new", "scores old vs new", "protocol instances",
               "old h", "new h"]
    title = (f"CPU seconds per instance, first {args.instances} positive instances of seed "
             f"{args.seed} per cell, the new version's tuned settings for both, one torch "
             f"thread, budget {args.budget:g} s "
             f"(†: an instance over budget counts its budget); old = {before}, new = {after}, "
             f"interleaved in one run; projected hours = CPU s/inst x the instances the "
             f"official run explained ({os.path.relpath(args.seeds_csv, REPO)})")
    print_table(title, headers, rows, args.markdown)
    total = (f"\nProjected CPU hours of the official protocol: new {hours['new']:.1f} h, "
             f"old {hours['old']:.1f} h, official run {hours['official']:.1f} h "
             f"(new / official {hours['new'] / hours['official']:.2f})")
    majority = [r for r in rows if r[0] == "Majority2Hop" and float(r[3].rstrip(" †")) > 1.0]
    check = ("Majority2Hop cells above 1 CPU s per instance on the old path: "
             + ", ".join(f"{r[1]} {r[5]}" for r in majority))
    print(total)
    print(check)
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as handle:
            handle.write(f"{total}\n\n{check}\n")


if __name__ == "__main__":
    main()
