"""`gracr.Benchmark`: GracrBench from Python, one typed front over the engine and the report.

What a run is (tasks x variants x explainers x seeds, and how each instance is explained)
is `gracr.bench.benchmark.BenchmarkSettings`; `Benchmark` adds running it (the paper's
study, `gracr.domains.paper.study.PaperStudy`) and reporting results folders (the report
engine with the paper's tables, `gracr.domains.paper.study.paper_tables`). `gracrc bench`
and `gracrc report` go through the same two, so the command line and Python run the same
thing. It sits with the CLI on top of the layers because what it runs and reports is a
domain's (the paper's).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gracr.bench.benchmark import BenchmarkSettings
from gracr.bench.runner import Engine
from gracr.bench.study import Execution
from gracr.domains.paper.study import PaperStudy, paper_tables
from gracr.limits import RAY_TIMEOUT


@dataclass(frozen=True)
class BenchmarkRun:
    """What `Benchmark.run` did: the results folder, its `results.jsonl` and how many
    jobs (task x variant x explainer x seed, and their negative twins) it ran."""

    folder: Path
    results: Path
    jobs: int


class Benchmark(BenchmarkSettings):
    """A GracrBench run: each explainer on the first `limit` positive instances of each
    seed's dataset of each task, compiled as each variant, scored against the exact UPI.
    Its fields, and their defaults (`gracrc bench`'s), are those of
    `gracr.bench.benchmark.BenchmarkSettings`.

    ```pycon
    >>> import gracr
    >>> bench = gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"], seeds=[0],
    ...                         limit=2, graphs=20)
    >>> [(job.task, job.explainer, job.seed) for job in bench.jobs()]
    [('Redundancy', 'Rnd', 0)]

    ```

    `bench.run("out/mine", jobs=2)` then runs it (resumable: a rerun skips what is
    recorded) and `bench.report("out/mine")` writes the report's tables beside it.
    """

    def run(self, out: str | Path, *, jobs: int = 1, engine: Engine = "process",
            address: str | None = None, ray_timeout: float = RAY_TIMEOUT,
            keep_errors: bool = False, progress: bool = True) -> BenchmarkRun:
        """Run every job, appending records to `<out>/results.jsonl` (a rerun resumes:
        recorded instances are skipped, error records retried unless `keep_errors`).
        `jobs` processes explaining: this one and a pool of `jobs - 1`, or with
        `engine="ray"` this one and Ray tasks (a local Ray of `jobs - 1` CPUs, or the
        cluster at `address`, waited for `ray_timeout` seconds)."""
        study = PaperStudy(out, self, Execution(jobs, engine, address, ray_timeout, progress),
                           keep_errors=keep_errors)
        study.run()
        return BenchmarkRun(study.folder, study.results, len(study.jobs))

    def report(self, *folders: str | Path, out: str | Path | None = None,
               instance_figures: bool = True, command: str | None = None,
               date: str | None = None) -> str:
        """Write the report of the results in `folders` (results folders of this
        benchmark, or `seeds.csv` files an earlier report wrote; several are merged) into
        `out` (default: the first folder) and return what `gracrc report` prints
        (`gracr.domains.paper.study.paper_tables`)."""
        return paper_tables(folders, self, out=out, instance_figures=instance_figures,
                            command=command, date=date)
