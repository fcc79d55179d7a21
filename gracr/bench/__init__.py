"""GracrBench: tasks, datasets with exact ground truth, explainers, the runner and reports.

The names a user's own benchmark needs, importable from here: `Task.from_file` reads a
task file, `register_task` makes it known by name (to `gracrc`'s `--tasks`, the runner
and its workers), `load_or_build` builds or reuses its dataset. For explainers of one's
own: `register` (with `ExplainerSpec`, `Subject`), `register_algorithm` (a PyG
`ExplainerAlgorithm`) and `load_plugins`; these are imported on first use, so that
importing a light part of the bench (the command-line options) does not load PyG.
"""

from __future__ import annotations

from typing import Any

from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.tasks import Task, TaskFileError, register_task, task_named

_EXPLAINER_API = ("ExplainerSpec", "Subject", "load_plugins", "register", "register_algorithm")

__all__ = ["Dataset", "Task", "TaskFileError", "load_or_build", "register_task", "task_named",
           *_EXPLAINER_API]


def __getattr__(name: str) -> Any:
    if name in _EXPLAINER_API:
        from gracr.bench import explainers

        return getattr(explainers, name)
    raise AttributeError(f"module 'gracr.bench' has no attribute '{name}'")
