"""GracrBench: tasks, datasets with exact ground truth, explainers, the runner and reports.

The names a user's own benchmark needs, importable from here: `Task.from_file` reads a
task file, `register_task` makes it known by name (to `gracrc`'s `--tasks`, the runner
and its workers), `load_or_build` builds or reuses its dataset, and `GroundTruthDataset` is it as a PyG
dataset. Explainers (of one's own too) live in
`gracr.explainers`, which does not need the benchmark. Reports: `gracr.bench.report` (read,
aggregate over seeds, tabulate; a domain's tables are its plug-in).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.tasks import Task, TaskFileError, register_task, task_named

if TYPE_CHECKING:
    from gracr.bench.pyg_dataset import GroundTruthData, GroundTruthDataset

__all__ = ["Dataset", "GroundTruthData", "GroundTruthDataset", "Task", "TaskFileError",
           "load_or_build", "register_task", "task_named"]


def __getattr__(name: str) -> Any:
    # The PyG views load torch-geometric: only when asked for, so that the light commands
    # (`gracrc dataset`) stay without it.
    if name in ("GroundTruthData", "GroundTruthDataset"):
        from gracr.bench import pyg_dataset

        return getattr(pyg_dataset, name)
    raise AttributeError(f"module 'gracr.bench' has no attribute '{name}'")
