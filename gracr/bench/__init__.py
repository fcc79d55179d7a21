"""GracrBench: tasks, datasets with exact ground truth, explainers, the runner and reports.

The names a user's own benchmark needs, importable from here: `Task.from_file` reads a
task file, `register_task` makes it known by name (to `gracrc`'s `--tasks`, the runner
and its workers), `load_or_build` builds or reuses its dataset, and `GroundTruthDataset` is it as a PyG
dataset. Explainers (of one's own too) live in
`gracr.explainers`, which does not need the benchmark. Reports: `gracr.bench.report` (read,
aggregate over seeds, tabulate; a domain's tables are its plug-in).
"""

from __future__ import annotations

from gracr.lazy import lazy_attributes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gracr.bench.datasets import Dataset, load_or_build
    from gracr.bench.pyg_dataset import GroundTruthData, GroundTruthDataset
    from gracr.bench.tasks import Task, TaskFileError, register_task, task_named

__all__ = ["Dataset", "GroundTruthData", "GroundTruthDataset", "Task", "TaskFileError",
           "load_or_build", "register_task", "task_named"]

# Where each name is defined. They are imported on first use (PEP 562): the datasets load
# numba and the PyG views torch-geometric, and `gracrc --help` (which reads the shared
# options in `gracr.bench.options`, so runs this file) and the light commands
# (`gracrc dataset`) stay without them.
_DEFINED_IN = {
    "Dataset": "gracr.bench.datasets", "load_or_build": "gracr.bench.datasets",
    "GroundTruthData": "gracr.bench.pyg_dataset",
    "GroundTruthDataset": "gracr.bench.pyg_dataset",
    "Task": "gracr.bench.tasks", "TaskFileError": "gracr.bench.tasks",
    "register_task": "gracr.bench.tasks", "task_named": "gracr.bench.tasks",
}

__getattr__ = lazy_attributes(__name__, _DEFINED_IN, globals())
