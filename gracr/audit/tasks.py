"""GracrBench tasks as audit data: gracr's own datasets, whose ground truth is exact.

A task (a paper task's name or a task file) is built through the benchmark's store
(`gracr.bench.datasets.load_or_build`); its labels are the rule's, its motif the exact UPI
(a graph task: the graph's; a node task: the union over the graph's positive targets, since
an audit keeps one motif per graph), and its compiled rule goes through the same checks as
the trained models: the contrast App. B draws.
"""

from __future__ import annotations

import numpy as np

from gracr.audit.data import AuditData
from gracr.bench.datasets import load_or_build
from gracr.bench.tasks import task_named
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program


def task_data(name: str, seed: int = 0, size: int | None = None,
              store: str | None = None) -> tuple[AuditData, Program]:
    """The task's dataset (seed, size: the benchmark's) as `AuditData`, and its rule."""
    task = task_named(name)
    dataset = load_or_build(name, seed, size, out=store, progress=False)
    graphs = tuple(i.graph for i in dataset.instances)
    if task.kind is Kind.GRAPH:
        labels = tuple(np.asarray([i.label], dtype=np.int64) for i in dataset.instances)
        motifs = tuple(np.asarray(i.upi[0], dtype=np.bool_) for i in dataset.instances)
    else:
        labels = tuple(np.asarray(i.node_labels, dtype=np.int64) for i in dataset.instances)
        motifs = tuple(np.logical_or.reduce([*i.upi, np.zeros(i.graph.num_edges, np.bool_)])
                       for i in dataset.instances)
    nodes = tuple(np.zeros(g.num_nodes, dtype=np.bool_) for g in graphs)
    data = AuditData(task.name, "graph" if task.kind is Kind.GRAPH else "node", graphs,
                     labels, motifs, nodes, True)
    return data, task.program()
