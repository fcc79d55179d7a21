"""Molecules as a stream: a molecule file screened against several patterns at once.

The file is read in chunks of records (`iter_records`, text only, in this process); each
chunk is parsed by RDKit and encoded as arrays (`codes_of`), laid out as one disjoint
union (node ids offset, a batch vector), and every pattern's compiled network runs once
on it, on the fastest executor exact for the network: the fused torch module (float32 is
exact here: a molecule's features are one-hot, and every unit is a clamp of a small
integer combination of them), or, when asked (`executor="numpy"`), the float64 reference.
Chunks go to worker processes (`jobs`) and come back in file order; at most two chunks
per worker are in flight, so memory does not grow with the file.

The reference evaluator (the oracle, `gracr.dsl.evaluate`) runs on the same union,
vectorised over it (`evaluate_batch`), on every molecule or, with `formula_rate` < 1, on
an evenly spread share of them (the molecule of record i is evaluated when
floor((i + 1) r) > floor(i r), the same in every run whatever the chunks and workers):
what is sampled is said in the summary.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Iterator, Literal, Sequence

import numpy as np
import numpy.typing as npt

from gracr.compiler.desugar import uses_comparison
from gracr.data.graph import Graph, IntArray
from gracr.data.schema import Schema
from gracr.domains.chem.molecules import (MoleculeError, MoleculeUnion, Record, Skipped,
                                          encode_molecules, iter_records, parse_record,
                                          require_molecule_schema)
from gracr.domains.chem.schema import BOND_RELATIONS, MOLECULE_SCHEMA
from gracr.dsl.evaluate import evaluate_batch
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.errors import GracrError, GraphError
from gracr.executor.model import CompiledGNN, compile_program

Executor = Literal["fused", "numpy"]
Answer = bool | tuple[bool, ...]
"""A graph classifier's answer on a molecule, or a node classifier's per atom."""

# Nodes per forward pass: a chunk's union is cut into parts of about this many atoms, so
# a chunk of large molecules takes no more memory than one of small ones.
CHUNK_NODES = 20_000
CHUNK_RECORDS = 1_000


@dataclass(frozen=True)
class Pattern:
    """A program to screen with: its name (a column of the table), the place it was
    read from, the program, and its model if one was given compiled (else it is compiled
    with `compile_options`, at the molecules' largest in-degree when Eq. 6 needs one)."""

    name: str
    place: str
    program: Program
    model: CompiledGNN | None = None
    compile_options: dict[str, Any] = field(default_factory=dict)

    @property
    def needs_degree_bound(self) -> bool:
        return (self.model is None and self.compile_options.get("comparison") == "expanded"
                and self.compile_options.get("max_degree") is None
                and uses_comparison(self.program.classifier))


@dataclass(frozen=True)
class ScreenSettings:
    executor: Executor = "fused"
    formula_rate: float = 1.0
    jobs: int = 1
    chunk: int = CHUNK_RECORDS


@dataclass(frozen=True)
class Row:
    """One readable molecule: per pattern the network's answer and the formula's (None
    where the formula was not sampled, or both None where the molecule has a value the
    pattern's program does not declare)."""

    index: int
    place: str
    smiles: str
    name: str | None
    gnn: tuple[Answer | None, ...]
    formula: tuple[Answer | None, ...]


@dataclass(frozen=True)
class ChunkResult:
    """A chunk's rows and skipped records, in file order (`skipped` carries each
    pattern's refusals too, `(in P01.gml)`), and how many records it held."""

    rows: tuple[Row, ...]
    skipped: tuple[Skipped, ...]
    records: int


def check_patterns(patterns: Sequence[Pattern]) -> None:
    """`GraphError` if some pattern cannot read molecules at all (`schema_mismatch`)."""
    if not patterns:
        raise GracrError("no pattern to screen with")
    for pattern in patterns:
        require_molecule_schema(pattern.program.schema, pattern.place)


def screen(path: str, patterns: Sequence[Pattern], settings: ScreenSettings = ScreenSettings(),
           smiles_column: str | int | None = None) -> Iterator[ChunkResult]:
    """Each chunk of `path`'s records screened against every pattern, in file order."""
    check_patterns(patterns)
    if settings.jobs < 1:
        raise GracrError(f"--jobs must be positive, got {settings.jobs}")
    if not 0.0 <= settings.formula_rate <= 1.0:
        raise GracrError(f"the formula's sampling rate must lie in [0, 1], got "
                         f"{settings.formula_rate}")
    tasks = _tasks(iter_records(path, smiles_column), settings.chunk)
    if settings.jobs == 1:
        worker = _Worker(tuple(patterns), settings)
        with _single_threaded():
            for records, first in tasks:
                yield worker.chunk(records, first)
        return
    # Forked workers start at once with this process's imports (torch and RDKit took
    # ~4 s a worker to import, as long as a 20 000-molecule screen on one core); as
    # PyTorch's own DataLoader workers, they run torch single-threaded. Spawned where
    # fork is unavailable.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=settings.jobs, mp_context=context,
                             initializer=_init_worker, initargs=(tuple(patterns), settings)
                             ) as pool:
        pending: deque[Future[ChunkResult]] = deque()
        for records, first in tasks:
            pending.append(pool.submit(_run_chunk, records, first))
            if len(pending) >= 2 * settings.jobs:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def _tasks(records: Iterator[Record | Skipped], size: int
           ) -> Iterator[tuple[list[Record | Skipped], int]]:
    """Chunks of `size` records, each with the index of its first record in the file."""
    first = 0
    while True:
        chunk = list(islice(records, size))
        if not chunk:
            return
        yield chunk, first
        first += len(chunk)


@contextmanager
def _single_threaded() -> Iterator[None]:
    """One thread for torch and BLAS: the products are narrow (a model's width), and
    threads only add synchronisation (fifty times slower on a loaded machine)."""
    import torch
    from threadpoolctl import threadpool_limits

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(threads)


_worker: _Worker | None = None


def _init_worker(patterns: tuple[Pattern, ...], settings: ScreenSettings) -> None:
    global _worker
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(1)
    threadpool_limits(limits=1, user_api="blas")
    _worker = _Worker(patterns, settings)


def _run_chunk(records: list[Record | Skipped], first: int) -> ChunkResult:
    assert _worker is not None, "the pool's initializer did not run"
    return _worker.chunk(records, first)


def sampled(indices: IntArray, rate: float) -> npt.NDArray[np.bool_]:
    """Whether the formula is evaluated on the molecules of these record indices: an
    evenly spread share `rate` of them (all at 1, none at 0)."""
    if rate >= 1.0:
        return np.ones(indices.shape, dtype=np.bool_)
    result: npt.NDArray[np.bool_] = np.floor((indices + 1) * rate) > np.floor(indices * rate)
    return result


def parts(union: MoleculeUnion, nodes: int) -> Iterator[tuple[int, MoleculeUnion]]:
    """Consecutive runs of the molecules of `union` of about `nodes` atoms (at least one
    molecule each), with the index of each run's first molecule."""
    start = 0
    while start < union.count:
        ends = np.cumsum(union.sizes[start:])
        stop = start + max(1, int(np.searchsorted(ends, nodes, side="right")))
        keep = np.zeros(union.count, dtype=np.bool_)
        keep[start:stop] = True
        yield start, union.select(keep)
        start = stop


class _Encoding:
    """How a program's schema reads molecule codes: per family the column of each value
    (-1: the value is not declared, which refuses the molecule), per relation its index
    in the program's relations (-1 likewise)."""

    def __init__(self, schema: Schema, presence: bool) -> None:
        self.schema = schema
        self.width = schema.num_features + (1 if presence else 0)
        self.presence = presence
        self.columns: list[tuple[int, npt.NDArray[np.int64]]] = []
        for k, family in enumerate(MOLECULE_SCHEMA.families):
            declared = next((f for f in schema.families if f.name == family.name), None)
            if declared is None:
                continue
            self.columns.append((k, np.array(
                [schema.attribute_column(family.name, v) if v in declared.values else -1
                 for v in family.values], dtype=np.int64)))
        self.relations = np.array([schema.relations.index(r) if r in schema.relations else -1
                                   for r in BOND_RELATIONS], dtype=np.int64)

    def refused(self, union: MoleculeUnion) -> npt.NDArray[np.bool_]:
        """Per molecule: does it have a value (or a relation) the schema does not declare?"""
        if self.schema.features:   # molecules carry no numeric features
            return np.ones(union.count, dtype=np.bool_)
        bad_node = np.zeros(union.codes.num_atoms, dtype=np.bool_)
        for k, column in self.columns:
            bad_node |= column[union.codes.atoms[:, k]] < 0
        refused = np.bincount(union.batch[bad_node], minlength=union.count) > 0
        if self.schema.relations:
            bad_edge = self.relations[union.codes.relations] < 0
            refused |= np.bincount(union.batch[union.codes.sources[bad_edge]],
                                   minlength=union.count) > 0
        result: npt.NDArray[np.bool_] = refused
        return result

    def features(self, union: MoleculeUnion) -> npt.NDArray[np.float32]:
        """`CompiledGNN.features` of every molecule of `union`, stacked."""
        x = np.zeros((union.codes.num_atoms, self.width), dtype=np.float32)
        rows = np.arange(union.codes.num_atoms)
        for k, column in self.columns:
            x[rows, column[union.codes.atoms[:, k]]] = 1.0
        if self.presence:
            x[:, -1] = 1.0
        return x

    def edge_types(self, union: MoleculeUnion) -> IntArray | None:
        if not self.schema.relations:
            return None
        result: IntArray = self.relations[union.codes.relations]
        return result


class _Worker:
    """Screens chunks: holds the patterns, their models (compiled once per degree bound)
    and their fused modules."""

    def __init__(self, patterns: tuple[Pattern, ...], settings: ScreenSettings) -> None:
        self.patterns = patterns
        self.settings = settings
        self.models: dict[tuple[int, int | None], tuple[CompiledGNN, Any]] = {}
        self.encodings = [_Encoding(p.program.schema, p.model.presence if p.model is not None
                                    else bool(p.compile_options.get("presence", False)))
                          for p in patterns]
        # The features of the part last run, per (schema, presence): the patterns of one
        # screen usually share them (WOMBAT's 14 all declare the molecule schema).
        self.features: dict[tuple[Schema, bool], tuple[MoleculeUnion, npt.NDArray[np.float32]]] = {}

    def model(self, index: int, bound: int | None) -> tuple[CompiledGNN, Any]:
        """Pattern `index`'s model (compiled at `bound` when it needs one) and the module
        that runs it (None: the numpy reference)."""
        pattern = self.patterns[index]
        key = (index, bound if pattern.needs_degree_bound else None)
        if key not in self.models:
            model = pattern.model
            if model is None:
                options = dict(pattern.compile_options)
                if pattern.needs_degree_bound:
                    options["max_degree"] = bound
                model = compile_program(pattern.program, **options)
            module = None if self.settings.executor == "numpy" else model.to_pyg(fused=True)
            self.models[key] = (model, module)
        return self.models[key]

    def chunk(self, records: list[Record | Skipped], first: int) -> ChunkResult:
        # The chunk makes thousands of short-lived RDKit wrappers, no reference cycles;
        # each allocation burst would start a collection that walks every object torch
        # and RDKit hold (a sixth of the time), so the collector waits until the end.
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._chunk(records, first)
        finally:
            if enabled:
                gc.enable()

    def _chunk(self, records: list[Record | Skipped], first: int) -> ChunkResult:
        parsed: list[tuple[int, Record, Any, str]] = []
        skipped: list[Skipped] = []
        for offset, record in enumerate(records):
            if isinstance(record, Skipped):
                skipped.append(record)
                continue
            try:
                mol, smiles = parse_record(record)
                parsed.append((first + offset, record, mol, smiles))
            except MoleculeError as error:
                skipped.append(Skipped(record.place, str(error)))
        union, refused = encode_molecules([mol for _, _, mol, _ in parsed])
        skipped += [Skipped(parsed[m][1].place, str(error)) for m, error in refused.items()]
        readable = [entry for m, entry in enumerate(parsed) if m not in refused]
        # The chunk's parts per set of refused molecules (usually none), so that the
        # patterns share them and their features.
        self.parts: dict[bytes, list[tuple[int, MoleculeUnion]]] = {}
        indices = np.fromiter((i for i, _, _, _ in readable), np.int64, len(readable))
        evaluated = sampled(indices, self.settings.formula_rate)
        gnn: list[list[Answer | None]] = [[] for _ in readable]
        formula: list[list[Answer | None]] = [[] for _ in readable]
        for index, pattern in enumerate(self.patterns):
            answers, truths, refusals = self.pattern(index, union, evaluated)
            for m in range(len(readable)):
                gnn[m].append(answers[m])
                formula[m].append(truths[m])
            for m, reason in refusals:
                skipped.append(Skipped(readable[m][1].place, f"{reason} (in {pattern.place})"))
        rows = tuple(Row(i, record.place, smiles, record.name, tuple(g), tuple(f))
                     for (i, record, _, smiles), g, f in zip(readable, gnn, formula))
        order = {record.place: n for n, record in enumerate(records)}
        return ChunkResult(rows, tuple(sorted(skipped, key=lambda s: order.get(s.place, 0))),
                           len(records))

    def pattern(self, index: int, union: MoleculeUnion, evaluated: npt.NDArray[np.bool_]
                ) -> tuple[list[Answer | None], list[Answer | None], list[tuple[int, str]]]:
        """One pattern on every molecule of `union`: the network's answers, the
        formula's (where evaluated), and the molecules refused with the reason."""
        pattern = self.patterns[index]
        schema = pattern.program.schema
        encoding = self.encodings[index]
        refused = encoding.refused(union)
        refusals = [(int(m), _refusal(union, int(m), schema)) for m in np.flatnonzero(refused)]
        answers: list[Answer | None] = [None] * union.count
        truths: list[Answer | None] = [None] * union.count
        kept = np.flatnonzero(~refused)
        key = refused.tobytes()
        if key not in self.parts:
            self.parts[key] = list(parts(union.select(~refused), CHUNK_NODES))
        for start, part in self.parts[key]:
            where = kept[start:start + part.count]
            for m, answer in zip(where, self.run(index, encoding, part)):
                answers[m] = answer
            chosen = evaluated[where]
            if chosen.any():
                for m, truth in zip(where[chosen], _formula(pattern.program,
                                                             part.select(chosen))):
                    truths[m] = truth
        return answers, truths, refusals

    def run(self, index: int, encoding: _Encoding, part: MoleculeUnion) -> list[Answer]:
        """The network's answers on the molecules of `part` (one forward pass)."""
        import torch

        bound = int(np.bincount(part.codes.targets).max()) if part.codes.targets.size else 0
        model, module = self.model(index, bound)
        key = (encoding.schema, encoding.presence)
        cached = self.features.get(key)
        if cached is None or cached[0] is not part:
            cached = (part, encoding.features(part))
            self.features[key] = cached
        x = cached[1]
        edge_index = np.stack([part.codes.sources, part.codes.targets])
        edge_type = encoding.edge_types(part)
        if module is None:
            output = model.forward(x, edge_index, part.batch, edge_type=edge_type)[:, 0]
        else:
            output = module(torch.as_tensor(x), torch.as_tensor(edge_index),
                            torch.as_tensor(part.batch),
                            edge_type=None if edge_type is None
                            else torch.as_tensor(edge_type))[:, 0].numpy()
        answer = output > 0.5
        if model.kind is Kind.NODE:
            ends = np.cumsum(part.sizes)
            return [tuple(bool(v) for v in answer[end - size:end])
                    for end, size in zip(ends, part.sizes)]
        # Trailing molecules without atoms get no row (the readout sizes itself by the
        # batch vector): the empty molecule's answer is the network's on the empty graph.
        missing = part.count - answer.shape[0]
        tail = [] if missing <= 0 else [bool(model.predict(encode_molecules([])[0].codes.graph()))] * missing
        answers: list[Answer] = [bool(v) for v in answer[:part.count]]
        return answers + tail


def _formula(program: Program, part: MoleculeUnion) -> list[Answer]:
    """The reference evaluator on every molecule of `part` at once (`evaluate_batch`)."""
    values = evaluate_batch(program, part.codes.graph(), part.batch, part.count)
    if program.kind is Kind.NODE:
        ends = np.cumsum(part.sizes)
        return [tuple(bool(v) for v in values[end - size:end])
                for end, size in zip(ends, part.sizes)]
    answers: list[Answer] = [bool(v) for v in values]
    return answers


def _refusal(union: MoleculeUnion, molecule: int, schema: Schema) -> str:
    """Why a program with `schema` refuses this molecule, in `Graph.check_schema`'s words."""
    keep = np.zeros(union.count, dtype=np.bool_)
    keep[molecule] = True
    try:
        union.select(keep).codes.graph().check_schema(schema, "molecule")
    except GraphError as error:
        return str(error)
    raise AssertionError("the molecule was refused, and its graph fits the schema")
