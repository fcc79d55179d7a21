"""What a GracrBench run is (`BenchmarkSettings`): tasks x variants x explainers x seeds,
and how each instance is explained. One description, read by the paper's study
(`gracr.domains.paper.study.PaperStudy`, its settings) and by the public front
`gracr.Benchmark` (which adds `.run` and `.report` over that study); `gracrc bench` builds
one from its options.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from gracr.bench.budget import DEFAULT_BUDGET
from gracr.bench.runner import Job, plan_jobs
from gracr.bench.tasks import PAPER_TASKS, task_named
from gracr.errors import GracrError
from gracr.explainers.metric import Level
from gracr.limits import SEED_LIMIT


@dataclass(frozen=True)
class BenchmarkSettings:
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
    `.py` files that register explainers, loaded here and in every worker."""

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

    def to_json(self) -> dict[str, Any]:
        """The run as a JSON object (what a study's settings are,
        `gracr.bench.study.Settings`; the paper's study keeps none in its folder)."""
        converted: dict[str, Any] = json.loads(json.dumps(asdict(self), default=dict))
        return converted
