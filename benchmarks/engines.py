"""One GracrBench run on 1 worker, on 2 worker processes and on Ray with 2 workers, and
`import gracr`, timed in one run (issue 38: `--jobs 2` and Ray >= 1.8x `--jobs 1`).

    PYTHONPATH=. .venv/bin/python benchmarks/engines.py [--repeats 5] [--limit 40]
        [--explainers SubgraphX,GraphMask] [--markdown FILE]

What it measures: `gracr.bench.runner.run` (what `gracrc bench` runs) on the first
`--limit` positive instances of seed 0 of Redundancy (100 graphs) and Majority1Hop (as
many targets as `--limit`), each explainer of `--explainers` with its tuned settings, CPU
budget 180 s: by default 2 tasks x 2 explainers x 40 = 160 instances, about 80 CPU
s of explaining on a quiet machine, so that the workers' start-up (imports of torch, PyG
and the explainers, a few seconds each) is small beside it. Each configuration
runs into a fresh results folder, wall-clock seconds from the call to its return (the
workers' start-up, imports included, is inside); the datasets are built before any timer.
The configurations alternate within each of `--repeats` rounds and the table shows each
one's median, and the speed-up of each over 1 worker from those medians. Ray's runs use the
local Ray instance the command starts (`ray_for_run`: the run's own process and a Ray
of `workers - 1` CPUs), started before the timer, as a cluster would be; its start-up is
printed apart, with the speed-up it would leave if counted (`gracrc bench --engine ray`
without --address pays it once per command). Every run's records must equal the first
one's in every field but the timings (`cpu_seconds`, `wall_seconds`): the script fails
otherwise.

`import gracr` is timed in fresh processes, `--repeats` times each: as `python -X
importtime` reports it (the cumulative microseconds of the `gracr` line) and as the wall
time of `python -c "import gracr"` beside `python -c pass`.

The machine must be quiet: the speed-up is the ratio of two wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

TASKS = ["Redundancy", "Majority1Hop"]
GRAPHS = 100
TIMING_FIELDS = ("cpu_seconds", "wall_seconds")
CONFIGURATIONS: list[tuple[str, int]] = [("process", 1), ("process", 2), ("ray", 2)]


def records(folder: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Each record of a results folder, its timings left out, by its key."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in (folder / "results.jsonl").read_text().splitlines()[1:]:
        record = json.loads(line)
        for name in TIMING_FIELDS:
            record.pop(name)
        key = (record["task"], record["variant"], record["explainer"], record["config_hash"],
               record["level"], record["sample"], record["seed"], record["instance"])
        assert key not in found, f"{folder}: two records of {key}"
        found[key] = record
    return found


def import_times(repeats: int) -> dict[str, float]:
    """Median seconds of `import gracr` in fresh processes: -X importtime's figure, the
    wall time of the process, and that of `python -c pass`."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    found: dict[str, list[float]] = {"importtime": [], "wall": [], "pass": []}
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import gracr"],
                              env=env, capture_output=True, text=True, check=True)
        lines = [line.split("|") for line in done.stderr.splitlines()
                 if line.startswith("import time:") and line.rstrip().endswith("| gracr")]
        found["importtime"].append(int(lines[-1][1]) / 1e6)
        for name, code in (("wall", "import gracr"), ("pass", "pass")):
            began = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], env=env, check=True)
            found[name].append(time.perf_counter() - began)
    return {name: statistics.median(values) for name, values in found.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--explainers", default="SubgraphX,GraphMask")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", default=None)
    args = parser.parse_args(argv)

    from gracr.bench.datasets import load_or_build
    from gracr.bench.instances import explained_instances
    from gracr.bench.runner import plan_jobs, ray_for_run, run

    sizes: dict[str, int | None] = {"Redundancy": GRAPHS, "Majority1Hop": args.limit}
    times: dict[tuple[str, int], list[float]] = {}
    ray_starts: list[float] = []
    reference: dict[tuple[Any, ...], dict[str, Any]] | None = None
    with tempfile.TemporaryDirectory() as scratch:
        store = str(Path(scratch) / "datasets")
        # The instances each explainer explains: the first `--limit` positives of a task
        # (fewer where the task has fewer).
        expected = 0
        for task in TASKS:
            dataset = load_or_build(task, 0, sizes[task], store, progress=False)
            positives = sum(1 for _ in explained_instances(dataset, "positive"))
            expected += min(args.limit, positives) * len(args.explainers.split(","))
        jobs = plan_jobs(TASKS, ["main"], args.explainers.split(","), [0], args.limit, 180.0,
                         sizes, store)
        count = 0
        for _ in range(args.repeats):
            for engine, workers in CONFIGURATIONS:
                with ExitStack() as stack:
                    if engine == "ray":
                        # The Ray instance the command would start, before the timer.
                        began = time.perf_counter()
                        stack.enter_context(ray_for_run(workers))
                        ray_starts.append(time.perf_counter() - began)
                    count += 1
                    folder = Path(scratch) / f"run{count}"
                    began = time.perf_counter()
                    run(jobs, str(folder), workers=workers, progress=False,
                        engine=engine)  # type: ignore[arg-type]
                    times.setdefault((engine, workers), []).append(
                        time.perf_counter() - began)
                found = records(folder)
                reference = reference if reference is not None else found
                assert found == reference, f"{engine} x {workers}: other records than the first run's"
    assert reference is not None
    assert len(reference) == expected, f"{len(reference)} records, not {expected}"
    imports = import_times(args.repeats)
    median = {key: statistics.median(values) for key, values in times.items()}
    one = median[("process", 1)]
    ray_start = statistics.median(ray_starts)
    lines = [
        f"GracrBench run: {', '.join(TASKS)} seed 0, first {args.limit} positives each, "
        f"{args.explainers.replace(',', ', ')}, tuned settings; {len(reference)} records, "
        f"identical (timings aside) in all {count} runs. Wall seconds from `run` to its "
        f"return, median of {args.repeats}; Ray's start-up (median {ray_start:.1f} s) "
        f"apart.", "",
        "| configuration | wall s | speed-up over --jobs 1 | goal |", "|---|---|---|---|",
        f"| --jobs 1 | {one:.1f} | 1.00x | |"]
    for engine, workers in CONFIGURATIONS[1:]:
        name = (f"--jobs {workers}" if engine == "process" else
                f"--engine ray --jobs {workers} (this process, a Ray of {workers - 1} CPU)")
        lines.append(f"| {name} | {median[(engine, workers)]:.1f} | "
                     f"{one / median[(engine, workers)]:.2f}x | >= 1.8x |")
        if engine == "ray":
            lines.append(f"| {name}, its start-up counted | "
                         f"{median[(engine, workers)] + ray_start:.1f} | "
                         f"{one / (median[(engine, workers)] + ray_start):.2f}x | |")
    lines += ["", f"`import gracr` in a fresh process, median of {args.repeats}:", "",
              "| measure | seconds |", "|---|---|",
              f"| `python -X importtime -c 'import gracr'`, cumulative of `gracr` | "
              f"{imports['importtime']:.3f} |",
              f"| wall, `python -c 'import gracr'` | {imports['wall']:.3f} |",
              f"| wall, `python -c pass` | {imports['pass']:.3f} |"]
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
