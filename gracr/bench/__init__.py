"""GracrBench: tasks, datasets, explainers, the runner, the metric, reports, tuning.

The names a user plugging in an explainer needs are also reachable here
(`gracr.bench.register`, `register_algorithm`, `ExplainerSpec`, `Subject`,
`load_plugins`); they are imported on first use, so that importing a light part of
the bench (the command-line options) does not load torch and PyG.
"""

from __future__ import annotations

from typing import Any

_EXPLAINER_API = ("ExplainerSpec", "Subject", "load_plugins", "register", "register_algorithm")


def __getattr__(name: str) -> Any:
    if name in _EXPLAINER_API:
        from gracr.bench import explainers

        return getattr(explainers, name)
    raise AttributeError(f"module 'gracr.bench' has no attribute '{name}'")
