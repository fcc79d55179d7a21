"""`gracrc tune`: explainer settings chosen by Optuna on a held-out seed (App. H).

For each (explainer, task) a TPE study samples the explainer's Table 16 space and
scores a trial by the mean F1 over the first `instances` positive instances of the
held-out seed's dataset (the paper: 50 trials × 50 instances; our default 20 × 20).
An instance over the CPU budget scores 0. Among the trials that reach the best F1,
the one with the least CPU time per instance is kept (our choice: the paper does not
say how it broke ties).

Tuned settings live in files `<explainer>.json` (one entry per task, with how it was
found). The settings of the official run ship in the package (`gracr/bench/tuned/`,
read only); `gracrc tune --write` stores new ones in `--out DIR`, else in the user's
configuration (`gracr.places.config_folder() / "tuned"`). A benchmark reads, per
(explainer, task), the first entry found in: the folders it is given (`--tuned DIR`),
the user's configuration, the package. Settings tuned at node level (`level="node"`,
scored against the node UPI) are entries of their own, `<task>@node`. An explainer that
must be trained is trained, in each trial, on the instances it is scored on (those of the
held-out seed, which the runner trains on too).
"""

from __future__ import annotations

import datetime
import json
import time
from contextlib import ExitStack
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from gracr.bench.budget import DEFAULT_BUDGET
from gracr.explainers.metric import Level
from gracr.bench.ray_session import ray_session
from gracr.places import config_folder
from gracr.errors import GracrError
from gracr.files import write_text
from gracr.limits import RAY_TIMEOUT

if TYPE_CHECKING:
    from gracr.explainers.base import ExplainerSpec

TUNED_FOLDER = Path(__file__).resolve().parent / "tuned"
HELD_OUT_SEED = 100   # the official seeds are 0-4


def user_tuned_folder() -> Path:
    """Where `gracrc tune --write` stores settings when not given `--out`."""
    return config_folder() / "tuned"


def tuned_entry(task: str, level: Level = "edge") -> str:
    """The name of the stored entry of `task` tuned at `level`."""
    return task if level == "edge" else f"{task}@{level}"


def tuned_settings(explainer: str, task: str, folders: Sequence[str | Path] = (),
                   level: Level = "edge") -> dict[str, Any]:
    """The tuned settings of `explainer` on `task` at `level`: the first entry found in
    `folders`, the user's configuration, then the package (empty when never tuned)."""
    entry = tuned_entry(task, level)
    places: list[Any] = [Path(f) for f in folders] + [user_tuned_folder()]
    places.append(resources.files("gracr").joinpath("bench", "tuned"))
    for place in places:
        resource = place / f"{explainer}.json"
        if not resource.is_file():
            continue
        try:
            entries = json.loads(resource.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise GracrError(f"{resource}: not a tuned-settings file ({error})") from None
        if entry in entries:
            settings: dict[str, Any] = entries[entry].get("settings", {})
            return settings
    return {}


def ready_explainer(explainer: str | ExplainerSpec, task_name: str, model: Any,
                    settings: Mapping[str, Any], seed: int, size: int | None = None,
                    datasets: str | None = None, level: Level = "edge") -> ExplainerSpec:
    """`explainer` (a name or an `ExplainerSpec`) ready to explain instances of `task_name`
    on `model`: as it is, or, if it must be trained (`ExplainerSpec.train`), trained on the
    first `training_instances` positive instances of the task's held-out seed
    (`HELD_OUT_SEED`), explained by `model` and seeded with `seed` (the dataset seed of the
    instances it will explain, so that a rerun trains it the same)."""
    from gracr.explainers import TRAINING_INSTANCES, trained
    from gracr.explainers.base import spec_of
    from gracr.bench.instances import first_subjects

    spec = spec_of(explainer)
    if spec.train is None:
        return spec
    training = first_subjects(task_name, HELD_OUT_SEED, int(settings[TRAINING_INSTANCES]),
                              size, datasets, model=model, level=level)
    return trained(spec, [subject for _, subject in training], settings, seed)


def _suggest(trial: Any, name: str, space: Any, chosen: Mapping[str, Any]) -> Any:
    from gracr.explainers.base import Choice, IntRange, LogUniform, Uniform

    if isinstance(space, Choice):
        return trial.suggest_categorical(name, list(space.values))
    if isinstance(space, LogUniform):
        return trial.suggest_float(name, space.low, space.high, log=True)
    if isinstance(space, Uniform):
        return trial.suggest_float(name, space.low, space.high)
    assert isinstance(space, IntRange)
    high = chosen[space.high] if isinstance(space.high, str) else space.high
    return trial.suggest_int(name, space.low, max(space.low, int(high)))


def defaults_in_space(defaults: Mapping[str, Any], space: Mapping[str, Any]) -> dict[str, Any]:
    """The default settings of the searched dimensions, each moved to the nearest point of
    its range (e.g. PyG GNNExplainer's `edge_ent = 1.0` becomes Table 16's upper bound 0.1);
    a `None` default (the library decides per input) is left out, for the sampler."""
    from gracr.explainers.base import Choice, IntRange, LogUniform, Uniform

    chosen: dict[str, Any] = {}
    for name, dimension in space.items():
        value = defaults[name]
        if value is None:
            # The library derives this default from the input (PGMExplainer's
            # max_subgraph_size = nodes / 20), so no point of the space stands for it:
            # Optuna samples the dimension in the enqueued trial.
            continue
        if isinstance(dimension, Choice):
            values = list(dimension.values)
            if value not in values:
                numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                              for v in values + [value])
                value = min(values, key=lambda v: abs(v - value)) if numeric else values[0]
        elif isinstance(dimension, (LogUniform, Uniform)):
            value = min(max(float(value), dimension.low), dimension.high)
        else:
            assert isinstance(dimension, IntRange)
            high = chosen.get(dimension.high) if isinstance(dimension.high, str) \
                else dimension.high
            if high is None:  # bounded by a dimension left to the sampler: so is this one
                continue
            value = min(max(int(value), dimension.low), max(dimension.low, int(high)))
        chosen[name] = value
    return chosen


# A Ray worker's studies: (explainer, its subjects and their ground truth), by study.
_STUDIES: dict[tuple[Any, ...], tuple[Any, list[tuple[Any, Any]]]] = {}


def _study_subjects(explainer: str, task: str, seed: int, instances: int,
                    dataset_size: int | None, datasets: str | None, level: Level
                    ) -> tuple[Any, list[tuple[Any, Any]]]:
    """The explainer's spec and the study's (subject, ground truth) pairs: the first
    `instances` positives of the held-out seed."""
    from gracr.bench.datasets import load_or_build
    from gracr.explainers import explainer_named
    from gracr.bench.instances import first_subjects, ground_truth

    key = (explainer, task, seed, instances, dataset_size, datasets, level)
    if key not in _STUDIES:
        chosen = first_subjects(task, seed, instances, dataset_size, datasets, False,
                                level=level)
        truth = ground_truth(load_or_build(task, seed, dataset_size, datasets, progress=False),
                             [instance for instance, _ in chosen], level, datasets)
        _STUDIES.clear()   # one study at a time: its subjects hold compiled modules
        _STUDIES[key] = (explainer_named(explainer),
                         [(subject, truth[instance.index]) for instance, subject in chosen])
    return _STUDIES[key]


def _trial_instance(study: tuple[Any, ...], chosen: Mapping[str, Any], index: int,
                    budget: float, plugins: tuple[str, ...]) -> tuple[float | None, str | None,
                                                                       float]:
    """A Ray task: one instance of one trial, as (F1, error, CPU seconds)."""
    import torch

    from gracr.bench.budget import explain
    from gracr.explainers import explainer_seed, load_plugins, trained

    torch.set_num_threads(1)
    load_plugins(plugins)
    spec, subjects = _study_subjects(*study)
    seed = study[2]
    # Trained explainers train in each task, on the same instances and seed as in-process.
    ready = trained(spec, [subject for subject, _ in subjects], chosen, seed)
    subject, upi_mask = subjects[index]
    outcome = explain(ready, subject, upi_mask, chosen, explainer_seed(seed, index), budget)
    return outcome.f1, outcome.error, outcome.cpu_seconds


def tune(explainer: str, task: str, trials: int = 20, instances: int = 20,
         seed: int = HELD_OUT_SEED, budget: float = DEFAULT_BUDGET, datasets: str | None = None,
         dataset_size: int | None = None, progress: bool = True,
         level: Level = "edge", engine: str = "process", address: str | None = None,
         workers: int = 1, plugins: Sequence[str] = (),
         ray_timeout: float = RAY_TIMEOUT) -> dict[str, Any]:
    """Run one study, scored at `level`; returns the entry stored for (explainer, task).

    With `engine="ray"` each trial's instances run as Ray tasks (`workers` CPUs on a local
    Ray, or the cluster at `address`, waited for `ray_timeout` seconds), with the same seeds and so the same scores; a
    trial's CPU seconds are then the sum of its instances' (training not counted), which
    only the tie-break between equally good settings reads."""
    import optuna
    import torch

    from gracr.bench.tasks import task_named
    from gracr.explainers import (check_level, explainer_named, explainer_seed,
                                        load_plugins, trained)
    from gracr.bench.budget import explain

    spec = explainer_named(explainer)
    check_level(spec, level)
    if not spec.space:
        raise GracrError(f"{explainer} has no tuning space (it runs with its defaults)")
    space = {name: s for name, s in spec.space.items()
             if not (name in spec.graph_only and task_named(task).kind.value == "node")}
    torch.set_num_threads(1)
    loaded = tuple(load_plugins(plugins))
    spec, subjects = _study_subjects(explainer, task, seed, instances, dataset_size, datasets,
                                     level)

    study_key = (explainer, task, seed, instances, dataset_size, datasets, level)

    def objective(trial: Any) -> float:
        chosen: dict[str, Any] = {}
        for name, dimension in space.items():
            chosen[name] = _suggest(trial, name, dimension, chosen)
        scores = []
        errors: list[str] = []
        if ray is not None:
            refs = [remote.remote(study_key, chosen, index, budget, loaded)
                    for index in range(len(subjects))]
            results = ray.get(refs)
            cpu = sum(cpu_seconds for _, _, cpu_seconds in results)
        else:
            start = time.process_time()
            ready = trained(spec, [subject for subject, _ in subjects], chosen, seed)
            results = []
            for index, (subject, upi_mask) in enumerate(subjects):
                outcome = explain(ready, subject, upi_mask, chosen, explainer_seed(seed, index),
                                  budget)
                results.append((outcome.f1, outcome.error, outcome.cpu_seconds))
            cpu = time.process_time() - start
        for f1, error, _ in results:
            # A setting the explainer cannot run scores 0, as one over budget does, and
            # the study goes on (a crash is a result in the runner too).
            scores.append(f1 if f1 is not None else 0.0)
            if error is not None:
                errors.append(error)
        trial.set_user_attr("cpu_seconds", cpu / len(subjects))
        trial.set_user_attr("errors", errors)
        return float(np.mean(scores))

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.TPESampler(seed=0))
    # Trial 0 is the explainer's own defaults (moved into the space where they fall
    # outside it), so a short study can never hand back settings that score worse
    # on the held-out seed than running the explainer untuned.
    study.enqueue_trial(defaults_in_space(spec.defaults, space))
    with ExitStack() as stack:
        ray: Any = None
        if engine == "ray":
            ray = stack.enter_context(ray_session(workers, address, ray_timeout))
            remote = ray.remote(num_cpus=1, max_retries=0)(_trial_instance)
        study.optimize(objective, n_trials=trials, show_progress_bar=progress)
    # Many settings often reach the same F1 (1.0 on several tasks); among them keep the
    # cheapest, so that tuning does not pick 1000 epochs where 50 do as well.
    finished = [(float(t.value), t) for t in study.trials if t.value is not None]
    if all(len(t.user_attrs["errors"]) == len(subjects) for _, t in finished):
        raise GracrError(f"{explainer} failed on every instance of every trial on {task}: "
                         f"{finished[0][1].user_attrs['errors'][0]}")
    top = max(value for value, _ in finished)
    best = min((t for value, t in finished if value >= top - 1e-9),
               key=lambda t: float(t.user_attrs.get("cpu_seconds", 0.0)))
    return {"settings": best.params, "mean_f1": round(float(top), 4),
            "cpu_seconds": round(float(best.user_attrs.get("cpu_seconds", 0.0)), 4),
            "trials": trials, "instances": len(subjects), "seed": seed,
            "failed_trials": sum(1 for _, t in finished if t.user_attrs["errors"]),
            "trial_f1": [round(value, 4) for value, _ in finished],
            "date": datetime.date.today().isoformat()}


def store(explainer: str, task: str, entry: Mapping[str, Any],
          folder: Path | None = None, level: Level = "edge") -> Path:
    """Record `entry` as the tuned settings of (explainer, task) at `level` in `folder`
    (default the user's configuration)."""
    folder = user_tuned_folder() if folder is None else folder
    path = folder / f"{explainer}.json"
    entries = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    entries[tuned_entry(task, level)] = dict(entry)
    folder.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(entries, indent=2, sort_keys=True) + "\n")
    return path
