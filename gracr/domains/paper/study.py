"""GracrBench as a `gracr.bench.study.Study` (`gracrc bench`, `gracr.Benchmark.run`): its
settings are a run (`gracr.bench.benchmark.BenchmarkSettings`), its one phase explains
every job through the runner, and its report is the report engine with the paper's
tables (`paper_tables`, which `gracrc report` and `gracr.Benchmark.report` call for any
results folders and seed summaries).

A results folder keeps no settings file (`PaperStudy.claim`): every record names what
made it (task, variant, explainer, settings hash, level, sample, seed, instance) and
`datasets.json` binds the folder to its datasets (`gracr.bench.runner.bound_datasets`),
so any other setting may change on a resume (more explainers, seeds, tasks or instances,
a `--start` split, another budget), as it always could.
"""

from __future__ import annotations

import datetime
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from gracr.bench.benchmark import BenchmarkSettings
from gracr.bench.record import RESULTS_FILE, start_results
from gracr.bench.runner import DATASETS_FILE, Job, bound_datasets, run
from gracr.bench.study import Execution, Phase, Say, Study, explained
from gracr.bench.tasks import task_named
from gracr.errors import GracrError


@dataclass(frozen=True)
class Shown:
    """What a run shows when it ends (`gracrc bench`): `show` is given the line saying how
    many jobs it had and where their results are, then, with `tables`, the report
    (`paper_tables`, written into the folder; with `instance_figures`, one instance drawn
    per explainer)."""

    show: Callable[[str], None]
    tables: bool = True
    instance_figures: bool = True


class PaperStudy(Study[BenchmarkSettings]):
    """A GracrBench run in its results folder (see the module docstring). `keep_errors`:
    an instance recorded as an error is kept, not retried. `shown`: what the run shows
    when it ends (None: nothing, and no report is written)."""

    # `gracrc bench` has never printed its one phase: the runner's progress bar shows it.
    ANNOUNCES_PHASES = False

    def __init__(self, folder: str | Path, settings: BenchmarkSettings,
                 execution: Execution = Execution(), *, keep_errors: bool = False,
                 shown: Shown | None = None) -> None:
        super().__init__(folder, settings, execution)
        # The folder as given: the report's provenance quotes the command that writes it.
        self.given = str(folder)
        self.keep_errors = keep_errors
        self.shown = shown

    @cached_property
    def jobs(self) -> list[Job]:
        # The batch size is the execution's: it changes how instances run, not what.
        return [replace(job, batch=self.execution.batch) for job in self.settings.jobs()]

    @property
    def results(self) -> Path:
        return self.folder / RESULTS_FILE

    def claim(self) -> None:
        """Check the run before anything is written: its jobs (bad input is a
        `GracrError`) and how they run. No settings file is written or checked: a
        GracrBench folder has never had one and the records say what made them (the module
        docstring), so nothing a resume did before is refused, and a run refused or failed
        before its first record leaves nothing behind (the runner's rule)."""
        self.jobs   # planned here, first: bad input is refused before anything is written
        execution = self.execution
        if execution.workers <= 0:
            raise GracrError(f"--jobs must be positive, got {execution.workers}")
        if execution.address is not None and execution.engine != "ray":
            raise GracrError("--address needs --engine ray")

    def phases(self) -> list[Phase]:
        def complete() -> bool:
            # The runner's checks and repairs first (other datasets refused; a results
            # file that is not a regular file refused before it is read, a cut last line
            # set aside), so that a folder said complete is one the runner would accept
            # and find nothing to do in.
            bound_datasets(self.folder / DATASETS_FILE, self.jobs)
            if not os.path.lexists(self.results):
                return False   # the runner starts the folder, even for no job
            start_results(self.results)
            return explained(self.jobs, self.results)

        def explain(say: Say) -> None:
            execution = self.execution
            run(self.jobs, str(self.folder), workers=execution.workers,
                progress=execution.progress, keep_errors=self.keep_errors,
                plugins=self.settings.plugins, engine=execution.engine,
                address=execution.address, ray_timeout=execution.ray_timeout)

        return [Phase("explain", complete, explain)]

    def report(self, say: Say) -> None:
        if self.shown is None:
            return
        self.shown.show(f"{len(self.jobs)} jobs; results in {self.results}\n")
        if self.shown.tables:
            self.shown.show(paper_tables([self.given], self.settings,
                                         instance_figures=self.shown.instance_figures))


def paper_tables(inputs: Sequence[str | Path], settings: BenchmarkSettings, *,
                 out: str | Path | None = None, instance_figures: bool = True,
                 command: str | None = None, date: str | None = None) -> str:
    """Write the report of `inputs` (results folders of `settings`' runs, or `seeds.csv`
    files an earlier report wrote; several are merged) into `out` (default: the first
    input's folder) and return what `gracrc report` prints: the paper's tables, the
    tables beside the paper's numbers, times, a ranking and, with `instance_figures`, one
    instance re-run and drawn per explainer (from `settings`' `datasets`, `graphs`,
    `targets` and `budget`). `command` and `date` are the provenance the tables print
    (default: the `gracrc report` command that writes the same report, and today)."""
    from gracr.bench.report import write_report
    from gracr.bench.report.instance_figure import DatasetSource
    from gracr.domains.paper.report import paper_report

    if not inputs:
        raise GracrError("name at least one results folder to report")
    if settings.plugins:   # the explainers an instance figure re-runs (without: no torch)
        from gracr.explainers import load_plugins

        load_plugins(settings.plugins)
    for task in settings.tasks:   # records name their task only: a task file must be read
        task_named(task)
    named = [str(name) for name in inputs]
    where = None if out is None else str(out)
    if command is None:
        command = shlex.join(["gracrc", "report", *named]
                             + ([] if where is None else ["--out", where]))
    figures = (DatasetSource(settings.datasets, settings.graphs, settings.targets,
                             settings.budget) if instance_figures else None)
    return write_report(named, where, command, date or datetime.date.today().isoformat(),
                        paper_report, figures)
