"""`gracr.Benchmark`: GracrBench from Python, one typed front over the engine and the report.

The engine (`gracr.bench.runner`: `plan_jobs`, then `run`) and the report engine
(`gracr.bench.report.write_report`, with the paper's tables as its sections,
`gracr.domains.paper.report.paper_report`) stay where they are; `Benchmark` holds what a
run is (tasks x variants x explainers x seeds, and how each instance is explained) and
calls them, and `gracrc bench` / `gracrc report` build one from their options, so the
command line and Python run the same thing. It sits with the CLI on top of the layers
because the report it writes is a domain's (the paper's tables).
"""

from __future__ import annotations

import datetime
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gracr.bench.budget import DEFAULT_BUDGET
from gracr.bench.runner import Engine, Job, plan_jobs, run
from gracr.bench.tasks import PAPER_TASKS, task_named
from gracr.errors import GracrError
from gracr.explainers.metric import Level
from gracr.limits import RAY_TIMEOUT, SEED_LIMIT


@dataclass(frozen=True)
class BenchmarkRun:
    """What `Benchmark.run` did: the results folder, its `results.jsonl` and how many
    jobs (task x variant x explainer x seed, and their negative twins) it ran."""

    folder: Path
    results: Path
    jobs: int


@dataclass(frozen=True)
class Benchmark:
    """A GracrBench run: each explainer on the first `limit` positive instances of each
    seed's dataset of each task, compiled as each variant, scored against the exact UPI.

    The defaults are `gracrc bench`'s. `tasks` are task names or task files (`.toml`;
    default the paper's six), `explainers` registered names (`None`: every registered one
    that reads the model, as `--explainers all`), `variants` compile variants. `start`
    skips the first instances (to split a seed between runs), `negatives` also explains
    that many negative graphs per seed (WOMBAT's IQR test). `budget` is each instance's
    CPU seconds, `level` what is scored (edge or node scores), `settings` each
    explainer's `"tuned"` settings (read from the `tuned` folders first) or its
    `"default"` ones, and `overrides` (explainer -> setting -> value) win over both.
    `datasets` is the dataset store (default the user cache), `graphs` / `targets` the
    dataset size of graph / node tasks (default 1000 / 500). `plugins` are modules or
    `.py` files that register explainers, loaded here and in every worker.

    >>> import gracr
    >>> bench = gracr.Benchmark(tasks=["Redundancy"], explainers=["Rnd"], seeds=[0],
    ...                         limit=2, graphs=20)
    >>> [(job.task, job.explainer, job.seed) for job in bench.jobs()]
    [('Redundancy', 'Rnd', 0)]

    `bench.run("out/mine", jobs=2)` then runs it (resumable: a rerun skips what is
    recorded) and `bench.report("out/mine")` writes the report's tables beside it.
    """

    tasks: Sequence[str] = PAPER_TASKS
    explainers: Sequence[str] | None = None
    seeds: Sequence[int] = (0, 1, 2, 3, 4)
    variants: Sequence[str] = ("main",)
    limit: int = 100
    start: int = 0
    negatives: int = 0
    budget: float = DEFAULT_BUDGET
    level: Level = "edge"
    settings: Literal["tuned", "default"] = "tuned"
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tuned: Sequence[str] = ()
    datasets: str | None = None
    graphs: int | None = None
    targets: int | None = None
    plugins: Sequence[str] = ()

    def jobs(self) -> list[Job]:
        """Every job of the run, with each explainer's settings resolved (`plan_jobs`);
        bad input (an unknown task, explainer, variant or setting) is a `GracrError` here,
        before anything runs."""
        from gracr.bench.options import parse_explainers
        from gracr.explainers import load_plugins

        load_plugins(self.plugins)
        outside = [seed for seed in self.seeds if not 0 <= seed < SEED_LIMIT]
        if outside:
            raise GracrError(f"seed {outside[0]} is not in [0, {SEED_LIMIT})")
        tasks = [task_named(task).name for task in self.tasks]
        explainers = (parse_explainers("all") if self.explainers is None
                      else list(self.explainers))
        unknown = [name for name in self.overrides if name not in explainers]
        if unknown:
            raise GracrError(f"overrides name {unknown[0]}, which is not among the "
                             f"explainers run")
        sizes = {name: task_named(name).size_of(self.graphs, self.targets) for name in tasks}
        return plan_jobs(tasks, list(self.variants), explainers, list(self.seeds), self.limit,
                         self.budget, sizes, self.datasets, self.settings, self.overrides,
                         self.start, self.tuned, self.level, self.negatives)

    def run(self, out: str | Path, *, jobs: int = 1, engine: Engine = "process",
            address: str | None = None, ray_timeout: float = RAY_TIMEOUT,
            keep_errors: bool = False, progress: bool = True) -> BenchmarkRun:
        """Run every job, appending records to `<out>/results.jsonl` (a rerun resumes:
        recorded instances are skipped, error records retried unless `keep_errors`).
        `jobs` worker processes, or Ray tasks with `engine="ray"` (a local Ray, or the
        cluster at `address`, waited for `ray_timeout` seconds)."""
        planned = self.jobs()
        if jobs <= 0:
            raise GracrError(f"--jobs must be positive, got {jobs}")
        if address is not None and engine != "ray":
            raise GracrError("--address needs --engine ray")
        results = run(planned, str(out), workers=jobs, progress=progress,
                      keep_errors=keep_errors, plugins=self.plugins, engine=engine,
                      address=address, ray_timeout=ray_timeout)
        return BenchmarkRun(Path(out), results, len(planned))

    def report(self, *folders: str | Path, out: str | Path | None = None,
               instance_figures: bool = True, command: str | None = None,
               date: str | None = None) -> str:
        """Write the report of the results in `folders` (results folders of this
        benchmark, or `seeds.csv` files an earlier report wrote; several are merged) into
        `out` (default: the first folder) and return what `gracrc report` prints: the
        paper's tables, the tables beside the paper's numbers, times, a ranking and, with
        `instance_figures`, one instance re-run and drawn per explainer (from this
        benchmark's `datasets`, `graphs`, `targets` and `budget`). `command` and `date` are
        the provenance the tables print (default: the `gracrc report` command that writes
        the same report, and today)."""
        from gracr.bench.report import write_report
        from gracr.bench.report.instance_figure import DatasetSource
        from gracr.domains.paper.report import paper_report

        if not folders:
            raise GracrError("name at least one results folder to report")
        if self.plugins:   # the explainers an instance figure re-runs (without: no torch)
            from gracr.explainers import load_plugins

            load_plugins(self.plugins)
        for task in self.tasks:   # records name their task only: a task file must be read
            task_named(task)
        inputs = [str(folder) for folder in folders]
        where = None if out is None else str(out)
        if command is None:
            command = shlex.join(["gracrc", "report", *inputs]
                                 + ([] if where is None else ["--out", where]))
        figures = (DatasetSource(self.datasets, self.graphs, self.targets, self.budget)
                   if instance_figures else None)
        return write_report(inputs, where, command,
                            date or datetime.date.today().isoformat(), paper_report, figures)
