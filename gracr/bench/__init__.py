"""GracrBench: tasks, datasets with exact ground truth, explainers, the runner and reports.

The names a user's own benchmark needs, importable from here: `Task.from_file` reads a
task file, `register_task` makes it known by name (to `gracrc`'s `--tasks`, the runner
and its workers), `load_or_build` builds or reuses its dataset. Explainers (of one's own too) live in
`gracr.explainers`, which does not need the benchmark. Reports: `gracr.bench.report` (read,
aggregate over seeds, tabulate; a domain's tables are its plug-in).
"""

from __future__ import annotations

from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.tasks import Task, TaskFileError, register_task, task_named

__all__ = ["Dataset", "Task", "TaskFileError", "load_or_build", "register_task", "task_named"]
