"""The same small GracrBench run on 1 and 2 workers, in the process pool and on Ray.

    .venv/bin/python benchmarks/engines.py [--limit 24] [--explainers SubgraphX]

What it measures: `gracr.bench.runner.run` on the first `--limit` positives of seed 0 of
Redundancy and Majority1Hop (60 graphs / 30 targets), each configuration into a fresh
results folder, wall-clock seconds from the call to its return. Ray's runs use a local
Ray instance started before the timer (its start-up, printed apart, is paid once per
command); each configuration runs `--rounds` times, alternating, and the median is
shown, with the speed-up of 2 workers over 1 within each engine and of Ray over the
pool at equal workers, all from the same run. Every run's records must equal the
first one's (same scores).

Each worker process (and the pool's queue manager) imports torch and gracr when it
starts, a few CPU seconds each, which the timer includes for the pool (it starts its
workers inside `run`) and, at their first task, for Ray's: the default work (SubgraphX,
about 1.6 CPU s per Redundancy instance) is sized so that it outweighs that.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TASKS = ["Redundancy", "Majority1Hop"]
SIZES: dict[str, int | None] = {"Redundancy": 60, "Majority1Hop": 30}


def scores(folder: Path) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    found = {}
    for line in (folder / "results.jsonl").read_text().splitlines()[1:]:
        r = json.loads(line)
        found[(r["task"], r["explainer"], r["seed"], r["instance"])] = (
            r["status"], r["precision"], r["recall"], r["f1"])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=24)
    parser.add_argument("--explainers", default="SubgraphX")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args(argv)

    import ray

    from gracr.bench.datasets import load_or_build
    from gracr.bench.runner import plan_jobs, run

    with tempfile.TemporaryDirectory() as scratch:
        store = str(Path(scratch) / "datasets")
        for task in TASKS:
            load_or_build(task, 0, SIZES[task], store, progress=False)
        jobs = plan_jobs(TASKS, ["main"], args.explainers.split(","), [0], args.limit, 180.0,
                         SIZES, store)
        times: dict[tuple[str, int], list[float]] = {}
        starts: dict[int, float] = {}
        reference: dict[tuple[Any, ...], tuple[Any, ...]] | None = None
        count = 0
        for round_ in range(args.rounds):
            for engine, workers in [("process", 1), ("ray", 1), ("process", 2), ("ray", 2)]:
                if engine == "ray":
                    started = time.perf_counter()
                    ray.init(num_cpus=workers, include_dashboard=False,
                             configure_logging=False, log_to_driver=False)
                    starts[workers] = time.perf_counter() - started
                count += 1
                folder = Path(scratch) / f"run{count}"
                began = time.perf_counter()
                run(jobs, str(folder), workers=workers, progress=False,
                    engine=engine)  # type: ignore[arg-type]
                times.setdefault((engine, workers), []).append(time.perf_counter() - began)
                if engine == "ray":
                    ray.shutdown()
                found = scores(folder)
                reference = reference or found
                assert found == reference, f"{engine} x {workers}: different records"
        assert reference is not None
    median = {key: statistics.median(values) for key, values in times.items()}
    lines = [f"Small bench: {', '.join(TASKS)} seed 0, first {args.limit} positives, "
             f"{args.explainers}; {len(reference)} records; wall seconds, median of "
             f"{args.rounds}; Ray start-up (not included): "
             + ", ".join(f"{w} CPU {s:.1f} s" for w, s in sorted(starts.items())), "",
             "| engine | 1 worker | 2 workers | 2 / 1 speed-up |", "|---|---|---|---|"]
    for engine in ("process", "ray"):
        one, two = median[(engine, 1)], median[(engine, 2)]
        lines.append(f"| {engine} | {one:.1f} | {two:.1f} | {one / two:.2f}x |")
    lines.append(f"| ray / process | {median[('process', 1)] / median[('ray', 1)]:.2f}x | "
                 f"{median[('process', 2)] / median[('ray', 2)]:.2f}x | |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
