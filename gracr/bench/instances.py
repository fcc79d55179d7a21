"""The positive instances of a GracrBench dataset, the compiled model they are explained
on, their `Subject`s and their ground truth: what the runner, the tuner, the ablations and
the diagnostics all explain.

Graph tasks: each positive graph; node tasks: each positive target of each graph in
turn, in dataset order (the official protocol takes the first 100 of a seed).

The ground truth at edge level is the UPI stored with the dataset. At node level it is
the node UPI (`gracr.ground_truth(..., over="nodes")`, deletion semantics), which the stored
datasets do not hold (their files, and so their published content hashes, stay as they
are): it is computed when a run first needs it and kept beside the dataset in
`node_upi.jsonl`, one line per instance. Most paper instances take milliseconds, but a
Majority2Hop hub took 12 s (the first 100 instances of seed 0: 16 s), too much to repeat
per job.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import DiagramTooLarge
from gracr.bdd.upi import upi
from gracr.bench.datasets import Dataset, dataset_folder, load_or_build
from gracr.explainers.metric import Level, Sample
from gracr.bench.options import default_datasets
from gracr.bench.tasks import task_named
from gracr.bench.tasks import VARIANTS, Variant
from gracr.compiler.desugar import uses_comparison
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.files import atomic_writer, read_json_lines
from gracr.executor.model import CompiledGNN, compile_program

BoolArray = npt.NDArray[np.bool_]
# Eq. 6's bound n behind the paper's shapes of the expanded comparative (Majority1Hop
# 4 x 203, Majority2Hop 8 x 505, Table 8): every task compiles with it. The runner raises
# it to a dataset's largest in-degree when a hub exceeds it, so the compiled model stays
# exact on every graph.
PAPER_MAX_DEGREE = 50

NODE_UPI_FILE = "node_upi.jsonl"


@dataclass(frozen=True)
class ExplainedInstance:
    """One explained instance: a positive graph, or one positive target of a graph; or a
    negative graph (its `upi` all False: nothing is needed for a prediction of 0 to be 1)."""

    index: int            # position among the dataset's instances of its sample
    graph: int            # position of its graph in the dataset
    target: int | None
    upi: BoolArray


def positive_instances(dataset: Dataset) -> Iterator[ExplainedInstance]:
    """The dataset's positive instances in dataset order (the official protocol takes
    the first 100)."""
    count = 0
    for graph_index, instance in enumerate(dataset.instances):
        if instance.label is not None:
            if instance.label == 1:
                yield ExplainedInstance(count, graph_index, None, instance.upi[0])
                count += 1
            continue
        for target, mask in zip(instance.targets, instance.upi):
            yield ExplainedInstance(count, graph_index, target, mask)
            count += 1


def negative_instances(dataset: Dataset) -> Iterator[ExplainedInstance]:
    """The dataset's negative graphs in dataset order. Only graph classifiers have them as
    instances: a node task's dataset stores its positive targets only."""
    count = 0
    for graph_index, instance in enumerate(dataset.instances):
        if instance.label is None:
            raise GracrError(f"{dataset.task} is a node task: negative instances are "
                             f"explained for graph classifiers only (WOMBAT's IQR test)")
        if instance.label == 0:
            yield ExplainedInstance(count, graph_index, None,
                                    np.zeros(instance.graph.num_edges, dtype=np.bool_))
            count += 1


def explained_instances(dataset: Dataset, sample: Sample = "positive"
                        ) -> Iterator[ExplainedInstance]:
    """The dataset's positive (`positive_instances`) or negative (`negative_instances`)
    instances."""
    if sample == "negative":
        return negative_instances(dataset)
    return positive_instances(dataset)


def variant_named(name: str) -> Variant:
    if name not in VARIANTS:
        raise GracrError(f"unknown variant '{name}'; the variants are {', '.join(VARIANTS)}")
    return VARIANTS[name]


def variant_program(task_name: str, variant: Variant) -> Program:
    """The task's classifier that `variant` compiles (its own formula or the alternative)."""
    task = task_named(task_name)
    if variant.formula >= len(task.formula_files):
        raise GracrError(f"variant '{variant.name}' does not apply to {task_name}: it has "
                         "no alternative formula")
    return task.program(variant.formula)


def compile_variant(task_name: str, variant: Variant, dataset: Dataset,
                    level: Level = "edge") -> CompiledGNN:
    """The task's classifier compiled as `variant` says, exact on every graph of `dataset`.

    Scored at node level, the model carries the presence bit (`presence=True`): masking a
    node's features then deletes it, which is what the node UPI's deletion semantics
    assume (without it a zeroed node still counts, `!red` is true there, and a feature
    attribution is no deletion). Edge-level runs compile as the paper does, without it.
    """
    program = variant_program(task_name, variant)
    max_degree = None
    if variant.comparison == "expanded" and uses_comparison(program.classifier):
        largest = max((int(np.bincount(i.graph.targets, minlength=i.graph.num_nodes).max())
                       for i in dataset.instances if i.graph.num_edges), default=0)
        max_degree = max(PAPER_MAX_DEGREE, largest)
    return compile_program(program, disjunction=variant.disjunction,  # type: ignore[arg-type]
                           comparison=variant.comparison,  # type: ignore[arg-type]
                           max_degree=max_degree,
                           readout=variant.readout,  # type: ignore[arg-type]
                           presence=level == "node")


def subject_for(dataset: Dataset, program: Any, model: Any,
                instance: ExplainedInstance, modules: dict[str, Any],
                level: Level = "edge") -> Any:
    """The `Subject` of one instance for a compiled or a trained model (`modules` is
    shared between instances), asking for scores at `level`."""
    from gracr.explainers import Subject
    from gracr.explainers.base import TrainedModel

    graph = dataset.instances[instance.graph].graph
    if isinstance(model, TrainedModel):
        return Subject.of_trained(model, graph, instance.target, level)
    return Subject.of(model, program, graph, instance.target, modules, level)


def first_subjects(task_name: str, seed: int, count: int, size: int | None = None,
                   datasets: str | None = None, progress: bool = False,
                   model: CompiledGNN | None = None, level: Level = "edge"
                   ) -> list[tuple[ExplainedInstance, Any]]:
    """The first `count` positive instances of the (task, seed) dataset, each with its
    `Subject` on `model` (default: the `main` variant compiled on that dataset) at `level`:
    the sample that tuning, training and the benchmark diagnostics explain."""
    dataset = load_or_build(task_name, seed, size, datasets, progress=progress)
    if model is None:
        model = compile_variant(task_name, variant_named("main"), dataset, level)
    program = task_named(task_name).program()
    modules: dict[str, Any] = {}
    chosen = []
    for instance in positive_instances(dataset):
        if instance.index >= count:
            break
        chosen.append((instance, subject_for(dataset, program, model, instance, modules,
                                             level)))
    return chosen


def ground_truth(dataset: Dataset, instances: Iterable[ExplainedInstance], level: Level,
                 datasets: str | None = None, sample: Sample = "positive"
                 ) -> dict[int, BoolArray]:
    """Each instance's UPI at `level`, by instance index: the stored edge UPI, or the node UPI
    (module docstring), read from `node_upi.jsonl` in the dataset's folder under `datasets`
    (default the store of `load_or_build`) and computed (and added there) where missing.
    A negative instance's is empty at either level."""
    chosen = list(instances)
    if sample == "negative":
        return {instance.index: np.zeros(
            dataset.instances[instance.graph].graph.num_nodes if level == "node"
            else dataset.instances[instance.graph].graph.num_edges, dtype=np.bool_)
            for instance in chosen}
    if level == "edge":
        return {instance.index: instance.upi for instance in chosen}
    task = task_named(dataset.task)
    folder = dataset_folder(default_datasets() if datasets is None else datasets, task,
                            dataset.seed, int(dataset.meta.get("size", task.default_size)))
    path = folder / NODE_UPI_FILE
    stored = _read_node_upis(path)
    found: dict[int, BoolArray] = {}
    missing = []
    for instance in chosen:
        line = stored.get(instance.index)
        if line is not None and (line["graph"], line["target"]) == (instance.graph,
                                                                    instance.target):
            found[instance.index] = np.asarray(line["node_upi"], dtype=np.bool_)
        else:
            missing.append(instance)
    if missing:
        program = task.program()
        for instance in missing:
            graph = dataset.instances[instance.graph].graph
            try:
                label, mask = upi(program, graph, instance.target, over="nodes")
            except DiagramTooLarge as error:
                raise GracrError(f"{dataset.task} seed {dataset.seed} instance "
                                 f"{instance.index}, the UPI over nodes: {error}") from None
            if label != 1:
                raise GracrError(f"{dataset.task} seed {dataset.seed} instance "
                                 f"{instance.index}: not positive over nodes")
            found[instance.index] = mask
            stored[instance.index] = {"instance": instance.index, "graph": instance.graph,
                                      "target": instance.target,
                                      "node_upi": [int(v) for v in mask]}
        _write_node_upis(path, stored)
    return found


def stored_node_upi(dataset: Dataset, instance: ExplainedInstance, datasets: str | None
                    ) -> BoolArray | None:
    """The node UPI of a positive instance as the dataset's store holds it (`ground_truth`
    adds it there when a run scores at node level), or None where it is not stored; never
    computed here."""
    task = task_named(dataset.task)
    folder = dataset_folder(default_datasets() if datasets is None else datasets, task,
                            dataset.seed, int(dataset.meta.get("size", task.default_size)))
    line = _read_node_upis(folder / NODE_UPI_FILE).get(instance.index)
    if line is None or (line["graph"], line["target"]) != (instance.graph, instance.target):
        return None
    return np.asarray(line["node_upi"], dtype=np.bool_)


def _read_node_upis(path: Path) -> dict[int, dict[str, Any]]:
    # A cut last line (a run killed while writing) is dropped and its instance recomputed.
    lines, note = read_json_lines(path)
    if note is not None:
        print(f"gracrc: warning: {note}", file=sys.stderr)
    return {int(line["instance"]): line for line in lines}


def _write_node_upis(path: Path, stored: dict[int, dict[str, Any]]) -> None:
    """Write atomically, so that a reader never sees half a file."""
    with atomic_writer(path) as handle:
        for index in sorted(stored):
            handle.write(json.dumps(stored[index], separators=(",", ":")) + "\n")
