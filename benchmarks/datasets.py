"""Time to build every GracrBench dataset for one seed, split into generation
(drawing graphs, rejection sampling with the numba evaluator) and UPI.

    .venv/bin/python benchmarks/datasets.py [--seed 0] [--tasks ...] [--graphs N] [--targets N]
        [--markdown FILE]

Builds into a fresh temporary folder, so nothing cached is reused. Target
(issue "GracrBench datasets"): under 5 minutes per seed for all six tasks at the
paper's sizes (1000 graphs, 500 targets) on a 2-core machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from gracr.bench.datasets import load_or_build, size_stats
from gracr.bench.report.tables import print_table
from gracr.bench.tasks import TASKS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS))
    parser.add_argument("--graphs", type=int, default=None)
    parser.add_argument("--targets", type=int, default=None)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args()
    rows = []
    totals = [0.0, 0.0, 0.0]
    with tempfile.TemporaryDirectory() as folder:
        for name in args.tasks:
            task = TASKS[name]
            size = args.graphs if task.kind.value == "graph" else args.targets
            start = time.perf_counter()
            dataset = load_or_build(name, args.seed, size, folder)
            wall = time.perf_counter() - start
            stats = size_stats(dataset)
            instances = sum(len(i.targets) if i.label is None else int(i.label == 1)
                            for i in dataset.instances)
            generation, upi_time = dataset.meta["generation_seconds"], dataset.meta["upi_seconds"]
            totals = [totals[0] + generation, totals[1] + upi_time, totals[2] + wall]
            rows.append([name, str(stats.graphs), str(instances), f"{generation:.1f}",
                         f"{upi_time:.1f}", f"{wall:.1f}"])
            print(f"  {name}: {wall:.1f} s", flush=True)
    rows.append(["all", "", "", f"{totals[0]:.1f}", f"{totals[1]:.1f}", f"{totals[2]:.1f}"])
    headers = ["task", "graphs", "positive instances", "generation (s)", "UPI (s)", "total (s)"]
    print_table(f"Building the datasets of seed {args.seed}; target: all six under 300 s",
                headers, rows, args.markdown)


if __name__ == "__main__":
    main()
