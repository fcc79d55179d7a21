"""The positive instances of a GracrBench dataset, the compiled model they are explained
on, and their `Subject`s: what the runner, the tuner, the ablations and the diagnostics
all explain.

Graph tasks: each positive graph; node tasks: each positive target of each graph in
turn, in dataset order (the official protocol takes the first 100 of a seed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt

from gracr.bench.datasets import Dataset, load_or_build
from gracr.bench.tasks import task_named
from gracr.bench.paper import PAPER_MAX_DEGREE
from gracr.bench.tasks import VARIANTS, Variant
from gracr.compiler.desugar import uses_comparison
from gracr.dsl.parse import Program
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN, compile_program

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class PositiveInstance:
    """One explained instance: a positive graph, or one positive target of a graph."""

    index: int            # position among the dataset's positive instances
    graph: int            # position of its graph in the dataset
    target: int | None
    upi: BoolArray


def positive_instances(dataset: Dataset) -> Iterator[PositiveInstance]:
    """The dataset's positive instances in dataset order (the official protocol takes
    the first 100)."""
    count = 0
    for graph_index, instance in enumerate(dataset.instances):
        if instance.label is not None:
            if instance.label == 1:
                yield PositiveInstance(count, graph_index, None, instance.upi[0])
                count += 1
            continue
        for target, mask in zip(instance.targets, instance.upi):
            yield PositiveInstance(count, graph_index, target, mask)
            count += 1


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


def compile_variant(task_name: str, variant: Variant, dataset: Dataset) -> CompiledGNN:
    """The task's classifier compiled as `variant` says, exact on every graph of `dataset`."""
    program = variant_program(task_name, variant)
    max_degree = None
    if variant.comparison == "expanded" and uses_comparison(program.classifier):
        largest = max((int(np.bincount(i.graph.targets, minlength=i.graph.num_nodes).max())
                       for i in dataset.instances if i.graph.num_edges), default=0)
        max_degree = max(PAPER_MAX_DEGREE, largest)
    return compile_program(program, disjunction=variant.disjunction,  # type: ignore[arg-type]
                           comparison=variant.comparison,  # type: ignore[arg-type]
                           max_degree=max_degree)


def subject_for(dataset: Dataset, program: Any, model: CompiledGNN,
                instance: PositiveInstance, modules: dict[str, Any]) -> Any:
    """The `Subject` of one positive instance (`modules` is shared between instances)."""
    from gracr.bench.explainers import Subject

    graph = dataset.instances[instance.graph].graph
    return Subject.of(model, program, graph, instance.target, modules)


def first_subjects(task_name: str, seed: int, count: int, size: int | None = None,
                   datasets: str | None = None, progress: bool = False
                   ) -> list[tuple[PositiveInstance, Any]]:
    """The first `count` positive instances of the (task, seed) dataset, each with its
    `Subject` on the `main` compiled model: the sample that tuning and the benchmark
    diagnostics explain."""
    dataset = load_or_build(task_name, seed, size, datasets, progress=progress)
    model = compile_variant(task_name, variant_named("main"), dataset)
    program = task_named(task_name).program()
    modules: dict[str, Any] = {}
    chosen = []
    for instance in positive_instances(dataset):
        if instance.index >= count:
            break
        chosen.append((instance, subject_for(dataset, program, model, instance, modules)))
    return chosen
