"""GracrBench datasets: generate a task's graphs from a seed, compute the exact UPI of
every instance, store them once and reuse them.

A dataset is keyed by task, seed, size option, generator version and the task's
content key (`Task.key`: its task file, main formula, motif and graph files) — never by
a compile variant — so that every compile variant of a task is scored on the same
graphs and the same UPI, and an edited task file never reuses a stale dataset. On disk
(under `--datasets`, default the user cache folder of `gracr.bench.options`):

    <store>/<task>/seed<S>-<graphs|targets><N>-gen<V>-<key>/dataset.jsonl   one line per graph
    <store>/<task>/seed<S>-<graphs|targets><N>-gen<V>-<key>/meta.json       what was built,
                                                 and dataset.jsonl's line count and SHA-256
    <store>/<task>/seed<S>-<graphs|targets><N>-gen<V>-<key>/.lock           held by a build

Each line is the documented graph object (`Graph.from_json`) plus, for graph tasks,
`"label"` (0/1) and `"upi"` (0/1 per edge: the UPI of the graph's label), and for node tasks
`"node_labels"` (0/1 per node), `"targets"` (the positive nodes) and `"upi"` (one
0/1-per-edge list per target, aligned with `"targets"`). `--export` writes the
same lines.

Its size (500–600 lines) is the store's whole contract: building, the checksummed meta
file, validation and rebuilding of damaged datasets, and the lock that makes concurrent
builds safe, which only make sense together.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from gracr.dsl.evaluate import evaluate_program
from gracr.bdd.backend import MAX_BDD_NODES, DiagramTooLarge
from gracr.bdd.upi import receptive_field, upi
from gracr.bench.options import default_datasets, missing_folders, remove_empty
from gracr.bench.graph_sources import GraphFile
from gracr.bench.candidates import GENERATOR_VERSION, Candidate
from gracr.bench.tasks import Task, task_named
from gracr.executor.model import compile_program
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.files import atomic_writer, write_json
from gracr.data.graph import GRAPH_KEYS, Graph
from gracr.data.schema import Schema
from gracr.executor.numba_backend import SparseProgram, evaluate_columns, in_neighbour_csr, sparse_program

BoolArray = npt.NDArray[np.bool_]
# A graph task whose rejection sampler keeps failing has a generator bug: stop.
MAX_REJECTIONS_PER_GRAPH = 1000


@dataclass(frozen=True)
class Instance:
    """One stored graph with its labels and exact ground truth."""

    graph: Graph
    label: int | None = None                       # graph tasks
    node_labels: BoolArray | None = None           # node tasks
    targets: tuple[int, ...] = ()                  # node tasks: the positive nodes
    upi: tuple[BoolArray, ...] = ()                # graph: (mask,); node: one per target

    def to_json(self) -> dict[str, Any]:
        obj = self.graph.to_json()
        if self.label is not None:
            obj["label"] = self.label
            obj["upi"] = [int(v) for v in self.upi[0]]
        else:
            assert self.node_labels is not None
            obj["node_labels"] = [int(v) for v in self.node_labels]
            obj["targets"] = list(self.targets)
            obj["upi"] = [[int(v) for v in mask] for mask in self.upi]
        return obj

    @classmethod
    def from_json(cls, obj: dict[str, Any], schema: Schema | None = None,
                  where: str = "dataset line") -> Instance:
        graph = Graph.from_json({k: obj[k] for k in GRAPH_KEYS if k in obj}, where, schema)
        if "label" in obj:
            return cls(graph, label=int(obj["label"]),
                       upi=(np.asarray(obj["upi"], dtype=np.bool_),))
        return cls(graph, node_labels=np.asarray(obj["node_labels"], dtype=np.bool_),
                   targets=tuple(int(t) for t in obj["targets"]),
                   upi=tuple(np.asarray(mask, dtype=np.bool_) for mask in obj["upi"]))


@dataclass(frozen=True)
class Dataset:
    task: str
    seed: int
    instances: tuple[Instance, ...]
    meta: dict[str, Any] = field(default_factory=dict)

    def to_pyg(self) -> list[Any]:
        """One PyG `GroundTruthData` per graph (`gracr.bench.pyg_dataset`, which lists the
        fields and how they batch): `x`, `edge_index`, `task`, `index`, and `y` + `upi`
        (graph tasks) or `y` + `targets` + `upi_index` + `receptive_field_index` (node
        tasks: the per-target masks as the entries of a sparse `[T, E]` matrix).
        `GroundTruthDataset(dataset)` collects them into an `InMemoryDataset`."""
        import torch

        from gracr.bench.pyg_dataset import GroundTruthData, target_edge_index

        task = task_named(self.task)
        program = task.program()
        data_list = []
        for index, instance in enumerate(self.instances):
            graph = instance.graph
            data = GroundTruthData(x=torch.as_tensor(graph.features(program.schema)),
                                   edge_index=torch.as_tensor(graph.edge_index),
                                   task=self.task, index=index)
            if instance.label is not None:
                data.y = torch.tensor([instance.label])
                data.upi = torch.as_tensor(instance.upi[0])
            else:
                assert instance.node_labels is not None
                data.y = torch.as_tensor(instance.node_labels.astype(np.int64))
                data.targets = torch.tensor(instance.targets, dtype=torch.long)
                no_target = np.zeros((0, graph.num_edges), dtype=np.bool_)
                upi_masks = np.stack(instance.upi) if instance.upi else no_target
                fields = [receptive_field(program, graph, t) for t in instance.targets]
                field_masks = np.stack(fields) if fields else no_target
                data.upi_index = target_edge_index(torch.as_tensor(upi_masks))
                data.receptive_field_index = target_edge_index(torch.as_tensor(field_masks))
            data_list.append(data)
        return data_list


# ---------------------------------------------------------------- building


def _rng(task: Task, seed: int) -> np.random.Generator:
    # crc32 of the name, not hash(): the same stream on every machine and run.
    return np.random.default_rng([seed, zlib.crc32(task.name.encode())])


@dataclass(frozen=True)
class _FastPredicate:
    """A node formula compiled for the numba evaluator (`direct`: exact at any degree)."""

    program: Program
    sparse: SparseProgram
    column: int

    @classmethod
    def of(cls, program: Program) -> _FastPredicate:
        model = compile_program(program, disjunction="flat", comparison="direct")
        sparse = sparse_program(model)
        return cls(program, sparse, int(sparse.columns[0][model.output_column]))

    def __call__(self, graph: Graph) -> BoolArray:
        schema = self.program.schema
        indptr, sources, types = in_neighbour_csr(graph.edge_index, graph.num_nodes,
                                                  graph.edge_types(schema))
        features = graph.features(schema).astype(np.float64)
        values = evaluate_columns(self.sparse, features, indptr, sources, types)[:, self.column]
        result: BoolArray = values > 0.5
        return result


class _Labeller:
    """The formula's label of a graph task's candidate, and the exact-annotation check.

    A candidate that names where φ must fire is accepted when φ fires exactly there (the
    paper's generators; φ runs in the numba evaluator); any other when the classifier's
    label (the reference evaluator) is the one wanted."""

    def __init__(self, task: Task) -> None:
        self.program = task.program()
        self.predicate = task.predicate()
        self._fires: _FastPredicate | None = None

    def label(self, candidate: Candidate) -> int:
        return int(bool(evaluate_program(self.program, candidate.graph)))

    def accepts(self, candidate: Candidate, wanted: int) -> bool:
        if candidate.annotated is None:
            return self.label(candidate) == wanted
        if self.predicate is None:
            raise GracrError("a generator names annotated nodes, but the classifier is not "
                             "'exists φ': there is no φ to check them against")
        if self._fires is None:
            self._fires = _FastPredicate.of(self.predicate)
        firing = frozenset(int(v) for v in np.flatnonzero(self._fires(candidate.graph)))
        return firing == candidate.annotated and candidate.label == wanted


def _graph_instances(task: Task, seed: int, count: int,
                     progress: bool) -> Iterator[tuple[Candidate, int]]:
    """`count` accepted candidates, `positive_fraction` of them positive, and how many
    were rejected for each."""
    rng = _rng(task, seed)
    positives = int(count * task.positive_fraction)
    labels = np.array([1] * positives + [0] * (count - positives))
    rng.shuffle(labels)
    labeller = _Labeller(task)
    drawn = [0, 0]   # negative, positive candidates drawn so far (annotation rule: rejected)
    for label in tqdm(labels, desc=f"{task.name} seed {seed}: graphs", disable=not progress,
                      leave=False):
        for rejected in range(MAX_REJECTIONS_PER_GRAPH):
            candidate = task.draw(rng, bool(label))
            if labeller.accepts(candidate, int(label)):
                yield candidate, rejected
                break
            if candidate.annotated is None:
                drawn[1 - int(label)] += 1
        else:
            wanted = "positive" if label else "negative"
            raise GracrError(
                f"{task.where}: formula: no {wanted} graph in {MAX_REJECTIONS_PER_GRAPH} "
                f"draws in a row (rejected so far: {drawn[1]} positive, {drawn[0]} negative); "
                f"the formula (almost) never {'fires' if label else 'fails'} on these graphs: "
                "change [graphs] or [[plant]], or [dataset] positive_fraction")


def _node_graphs(task: Task, seed: int, size: int) -> list[Graph]:
    """Graphs drawn until they hold at least `size` positive targets (or the file's)."""
    if isinstance(task.source, GraphFile):
        return list(task.source.graphs[:size])
    rng = _rng(task, seed)
    fires = _FastPredicate.of(task.program())
    graphs: list[Graph] = []
    total = 0
    barren = 0
    while total < size:
        graph = task.draw(rng, True).graph
        found = int(fires(graph).sum())
        graphs.append(graph)
        total += found
        barren = 0 if found else barren + 1
        if barren >= MAX_REJECTIONS_PER_GRAPH:
            raise GracrError(
                f"{task.where}: formula: no positive node in {MAX_REJECTIONS_PER_GRAPH} "
                f"graphs in a row ({total} positive targets in {len(graphs)} graphs, "
                f"{size} wanted); the formula (almost) never fires on these graphs: change "
                "[graphs] or [[plant]], or ask for fewer [dataset] targets")
    return graphs


def build_instances(task: Task, seed: int, size: int, progress: bool = True,
                    max_bdd_nodes: int | None = MAX_BDD_NODES
                    ) -> tuple[list[Instance], dict[str, Any]]:
    """Generate a task's graphs from `seed` and compute the UPI of each instance.

    Graph tasks: `size` graphs, `positive_fraction` positive, rejection-sampled (the
    paper's: φ fires only inside the motif of a positive graph and nowhere in a negative
    one); the UPI of every graph's label. Node tasks: graphs accumulated until at least
    `size` positive targets; the UPI of every positive target. A graph file: its first
    `size` graphs as they are. An instance whose ROBDD outgrows `max_bdd_nodes` stops
    the build with an error naming it.
    """
    program = task.program()

    def exact(graph: Graph, index: int, target: int | None = None) -> tuple[int, BoolArray]:
        try:
            return upi(program, graph, target, max_nodes=max_bdd_nodes)
        except DiagramTooLarge as error:
            where = f"graph {index}" + ("" if target is None else f", target {target}")
            raise GracrError(f"{task.name} seed {seed}, {where}: {error}") from None

    instances: list[Instance] = []
    rejections = 0
    start = time.perf_counter()
    if task.kind is Kind.GRAPH:
        if isinstance(task.source, GraphFile):
            candidates = [(Candidate(g), 0) for g in task.source.graphs[:size]]
        else:
            candidates = list(_graph_instances(task, seed, size, progress))
        generation = time.perf_counter() - start
        start = time.perf_counter()
        for index, (candidate, rejected) in enumerate(tqdm(
                candidates, desc=f"{task.name} seed {seed}: UPI", disable=not progress,
                leave=False)):
            rejections += rejected
            label, mask = exact(candidate.graph, index)
            assert candidate.label is None or label == candidate.label, \
                "the formula disagrees with the annotation"
            instances.append(Instance(candidate.graph, label=label, upi=(mask,)))
        upi_seconds = time.perf_counter() - start
    else:
        fires = _FastPredicate.of(program)
        drawn = [(graph, fires(graph)) for graph in _node_graphs(task, seed, size)]
        total = sum(int(labels.sum()) for _, labels in drawn)
        generation = time.perf_counter() - start
        start = time.perf_counter()
        bar = tqdm(total=total, desc=f"{task.name} seed {seed}: UPI", disable=not progress,
                   leave=False)
        for index, (graph, labels) in enumerate(drawn):
            targets = tuple(int(v) for v in np.flatnonzero(labels))
            masks = []
            for target in targets:
                label, mask = exact(graph, index, target)
                assert label == 1
                masks.append(mask)
                bar.update()
            instances.append(Instance(graph, node_labels=labels, targets=targets,
                                      upi=tuple(masks)))
        bar.close()
        upi_seconds = time.perf_counter() - start
    meta = {"rejected_candidates": rejections, "generation_seconds": round(generation, 3),
            "upi_seconds": round(upi_seconds, 3)}
    return instances, meta


# ---------------------------------------------------------------- the store


def dataset_identity(task: Task, size: int | None) -> str:
    """What a task's datasets are made from, whatever the seed: the size (default the
    task's), the generator version and the task's content key."""
    size = task.default_size if size is None else size
    return f"{task.unit}{size}-gen{GENERATOR_VERSION}-{task.key}"


def dataset_folder(out: str, task: Task, seed: int, size: int) -> Path:
    return Path(out) / task.name / f"seed{seed}-{dataset_identity(task, size)}"


DATA_FILE, META_FILE, LOCK_FILE = "dataset.jsonl", "meta.json", ".lock"
# A lock on a dataset folder that keeps vanishing under us (other processes' failed builds
# removing it) this many times in a row is a broken store, not a race to wait out.
MAX_LOCK_ATTEMPTS = 100


def load_or_build(task_name: str, seed: int, size: int | None = None, out: str | None = None,
                  progress: bool = True, max_bdd_nodes: int | None = MAX_BDD_NODES) -> Dataset:
    """The stored dataset for (task, seed, size), building and storing it on first use.

    `task_name` is a task's name or a task file; `out` the store (default
    `default_datasets()`). A stored dataset is used only if `meta.json` is valid and
    `dataset.jsonl` has the line count and SHA-256 recorded there; a damaged one, or one
    whose meta records neither (stored by an older gracr), is reported on stderr and
    rebuilt: the store is a cache. Builds hold an exclusive lock (`fcntl.flock` on
    `.lock` in the dataset's folder), so processes building the same dataset at once
    build it once; a build that fails removes only what it created.
    """
    task = task_named(task_name)
    if seed < 0:
        raise GracrError(f"the seed must be a non-negative integer, got {seed}")
    size = task.default_size if size is None else size
    if size <= 0:
        raise GracrError(f"the dataset size must be positive, got {size}")
    if isinstance(task.source, GraphFile) and size > len(task.source.graphs):
        raise GracrError(f"{task.source.path} holds {len(task.source.graphs)} graphs; "
                         f"{size} asked for")
    folder = dataset_folder(default_datasets() if out is None else out, task, seed, size)
    schema = task.program().schema
    # Unlocked first: a store shared read-only, and workers reading at once, need no lock.
    # Both files are replaced whole, so a read racing a build sees a mismatch, not a mix.
    stored, _ = _read_stored(task, seed, folder, schema)
    if stored is not None:
        return stored
    with _locked(folder):
        stored, problem = _read_stored(task, seed, folder, schema)
        if stored is not None:         # built by another process while we waited
            return stored
        if problem is not None:
            print(f"gracrc: {problem}; rebuilding the dataset", file=sys.stderr)
        return _build_into(task, seed, size, folder, progress, max_bdd_nodes)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `folder/LOCK_FILE` (a file, not the folder: NFS locks
    only files open for writing), made with its folder if missing. A lock file removed
    while we waited for it (another build failed and cleaned up) is made and locked
    again. The lock file stays beside a stored dataset; on an exception it is removed
    with the folders this process created."""
    lock_file = folder / LOCK_FILE
    for _ in range(MAX_LOCK_ATTEMPTS):
        created = missing_folders(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except FileNotFoundError:
            continue                   # a parent removed by another failed build: again
        except OSError as error:
            remove_empty(created)
            raise GracrError(f"{folder}: cannot write the dataset there "
                             f"({error.strerror})") from None
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            except OSError as error:
                print(f"gracrc: warning: {lock_file}: cannot lock ({error.strerror}); "
                      "building without a lock", file=sys.stderr)
            try:
                current = os.stat(lock_file, follow_symlinks=False)
            except FileNotFoundError:
                continue
            held = os.fstat(descriptor)
            if (current.st_dev, current.st_ino) != (held.st_dev, held.st_ino):
                continue
            try:
                yield
            except BaseException:
                # A failed build leaves no folder behind: the lock file goes too (a waiter
                # holding it sees it gone and starts again).
                lock_file.unlink(missing_ok=True)
                remove_empty(created)
                raise
            return
        finally:
            os.close(descriptor)       # closing releases the lock
    raise GracrError(f"{lock_file}: removed {MAX_LOCK_ATTEMPTS} times while waiting to lock "
                     "it; is another program deleting the dataset store?")


def _read_stored(task: Task, seed: int, folder: Path,
                 schema: Schema) -> tuple[Dataset | None, str | None]:
    """The stored dataset in `folder`, or None and what is wrong with it (None: nothing
    stored). Anything short of a dataset whose line count and checksum match its
    `meta.json` is a problem: the store is a cache, rebuilt rather than trusted."""
    data_file, meta_file = folder / DATA_FILE, folder / META_FILE
    if not data_file.exists() and not meta_file.exists():
        return None, None
    if not meta_file.exists():
        return None, f"{meta_file}: missing (a build was stopped)"
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not valid JSON"
        return None, f"{meta_file}: {reason or 'unreadable'}"
    if not isinstance(meta, dict):
        return None, f"{meta_file}: not a JSON object"
    lines, digest = meta.get("dataset_lines"), meta.get("dataset_sha256")
    if not isinstance(lines, int) or not isinstance(digest, str):
        return None, (f"{meta_file}: records no line count and checksum of {DATA_FILE} "
                      "(stored by an older gracr, or damaged)")
    try:
        with open(data_file, "rb") as handle:
            raw = handle.readlines()
    except OSError as error:
        return None, f"{data_file}: {error.strerror}"
    found = hashlib.sha256(b"".join(raw)).hexdigest()
    if len(raw) != lines or found != digest:
        return None, (f"{data_file}: {len(raw)} lines, sha256 {found[:12]}…, but {meta_file} "
                      f"records {lines} lines, sha256 {digest[:12]}… (the file is cut or "
                      "changed)")
    try:
        stored = tuple(Instance.from_json(json.loads(line), schema, f"{data_file}:{n}")
                       for n, line in enumerate(raw, start=1))
    except (GracrError, ValueError, KeyError, TypeError, RecursionError) as error:
        return None, f"{data_file}: not a dataset this gracr reads ({error})"
    return Dataset(task.name, seed, stored, meta), None


def _build_into(task: Task, seed: int, size: int, folder: Path, progress: bool,
                max_bdd_nodes: int | None) -> Dataset:
    """Build the dataset into `folder` (locked by this process), replacing what was there;
    on failure remove what this build wrote."""
    data_file, meta_file = folder / DATA_FILE, folder / META_FILE
    if not os.access(folder, os.W_OK):     # fail before the build, not after it
        raise GracrError(f"{folder}: cannot write the dataset there (permission denied)")
    written: list[Path] = []
    try:
        for stale in (meta_file, data_file):   # meta first: never a stale meta over new data
            stale.unlink(missing_ok=True)
        instances, meta = build_instances(task, seed, size, progress, max_bdd_nodes)
        from gracr.version import __version__

        written.append(data_file)
        lines, digest = _write_lines(data_file, instances)
        meta = {"task": task.name, "seed": seed, "size": size, "task_key": task.key,
                "generator_version": GENERATOR_VERSION, "gracr_version": __version__,
                "graphs": len(instances), "dataset_lines": lines, "dataset_sha256": digest,
                **meta}
        written.append(meta_file)
        write_json(meta_file, meta)
    except BaseException as error:
        for path in written:
            path.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise GracrError(f"{folder}: cannot write the dataset there "
                             f"({error.strerror})") from None
        raise
    return Dataset(task.name, seed, tuple(instances), meta)


def _write_lines(path: Path, instances: list[Instance] | tuple[Instance, ...]) -> tuple[int, str]:
    """Write atomically (a half-written file must never look like a stored dataset);
    returns the line count and the SHA-256 of what was written."""
    digest = hashlib.sha256()
    with atomic_writer(path) as handle:
        for instance in instances:
            line = json.dumps(instance.to_json(), separators=(",", ":")) + "\n"
            handle.write(line)
            digest.update(line.encode("utf-8"))
    return len(instances), digest.hexdigest()


def export(dataset: Dataset, path: str) -> None:
    """Write the dataset as JSON Lines (the store's own line format)."""
    _write_lines(Path(path), dataset.instances)


# ---------------------------------------------------------------- Table 15


@dataclass(frozen=True)
class SizeStats:
    """Table 15 for one dataset: averages over its positive samples."""

    graphs: int
    nodes: float
    edges: float
    upi_edges: float
    upi_fraction: float


def size_stats(dataset: Dataset) -> SizeStats:
    """Nodes, edges, UPI edges and UPI fraction averaged over the positive samples;
    the fraction's denominator is |E| for graph tasks and the target's receptive
    field for node tasks (Table 15)."""
    task = task_named(dataset.task)
    program = task.program()
    nodes, edges, upi_edges, fractions = [], [], [], []
    for instance in dataset.instances:
        graph = instance.graph
        if instance.label is not None:
            if instance.label != 1:
                continue
            samples = [(instance.upi[0], graph.num_edges)]
        else:
            samples = [(mask, int(receptive_field(program, graph, target).sum()))
                       for target, mask in zip(instance.targets, instance.upi)]
        for mask, denominator in samples:
            nodes.append(graph.num_nodes)
            edges.append(graph.num_edges)
            upi_edges.append(int(mask.sum()))
            fractions.append(int(mask.sum()) / denominator if denominator else 0.0)
    return SizeStats(len(dataset.instances), float(np.mean(nodes)), float(np.mean(edges)),
                     float(np.mean(upi_edges)), float(np.mean(fractions)))
