"""Seconds to explain one instance, per explainer and task, in Table 14's layout.

    .venv/bin/python benchmarks/explainer_times.py [--explainers ...] [--tasks ...]
        [--instances 10] [--seed 0] [--budget 180] [--out out/explainer_times]
        [--from DIR ...] [--markdown FILE]

Runs each explainer on the first `--instances` positive instances of each task
(one worker, one torch thread, the runner's CPU budget), or, with `--from`, reads
the per-instance times that a `gracrc bench` run already recorded. Prints rows =
tasks, columns = explainers, cells = wall-clock mean ± std over the instances that
finished (CPU seconds beside), and the paper's Table 14 value in brackets where it
has one (GNNExplainer, GraphMask, SubgraphX; the paper's hardware, not ours).
"""

from __future__ import annotations

import argparse

from gracr.explainers import EXPLAINERS
from gracr.domains.paper.published import paper_time
from gracr.bench.report import aggregate_seed_times, explainer_rank, load_inputs, task_rank
from gracr.bench.runner import plan_jobs, run
from gracr.bench.report.tables import print_table
from gracr.bench.tasks import TASKS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--explainers", nargs="+", default=list(EXPLAINERS))
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--instances", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=180.0)
    parser.add_argument("--out", default="out/explainer_times")
    parser.add_argument("--from", dest="sources", nargs="+", default=None, metavar="DIR",
                        help="read the times of earlier `gracrc bench` runs instead")
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    if args.sources:
        folders = args.sources
    else:
        jobs = plan_jobs(args.tasks, ["main"], args.explainers, [args.seed], args.instances,
                         args.budget, {}, settings="tuned")
        run(jobs, args.out)
        folders = [args.out]
    cells = [c for c in aggregate_seed_times(load_inputs(folders).seeds)
             if c.variant == "main" and c.task in args.tasks and c.explainer in args.explainers]
    explainers = sorted({c.explainer for c in cells}, key=explainer_rank)
    rows = []
    for task in sorted({c.task for c in cells}, key=task_rank):
        row = [task]
        for explainer in explainers:
            found = [c for c in cells if c.task == task and c.explainer == explainer]
            if not found:
                row.append("—")
                continue
            cell = found[0]
            if cell.out_of_time or cell.wall_seconds is None or cell.cpu_seconds is None:
                text = "OOT"
            else:
                text = (f"{cell.wall_seconds.mean:.3f} ± {cell.wall_seconds.std:.3f} "
                        f"(cpu {cell.cpu_seconds.mean:.3f})" + (" †" if cell.partial else ""))
            paper = paper_time(task, explainer)
            if paper is not None:
                text += f" [{paper.wall_seconds.mean:.3f}{' †' if paper.partial else ''}]"
            row.append(text)
        rows.append(row)
    headers = ["task", *explainers]
    print_table("Wall-clock seconds per explained instance, mean ± std over finished instances "
                "(CPU seconds); [Table 14]; †: some instance ran out of time",
                headers, rows, args.markdown)


if __name__ == "__main__":
    main()
