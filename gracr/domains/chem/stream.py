"""Molecules as a stream: a molecule file screened against several patterns at once.

The file is read in chunks of records (`iter_records`, text only, in this process); each
chunk is parsed by RDKit and encoded as arrays (`codes_of`), laid out as one disjoint
union (node ids offset, a batch vector), and the patterns' compiled networks run on it,
on the fastest executor exact for them: the numba kernel over the patterns' fused plan,
one pass for all the patterns of one input layout and kind (float64, only the non-zero
weights; `gracr.executor.numba_backend`), or, when asked (`executor="numpy"`), the
float64 reference, one pass per pattern.
With `jobs` = N, chunks go to a pool of N - 1 worker processes and to this process,
which screens one itself whenever two are queued for each pool worker; they come back in
file order, and few are held at once, so memory does not grow with the file.

The reference evaluator (the oracle, `gracr.dsl.evaluate`) runs on the same union,
vectorised over it (`evaluate_batch`), on every molecule or, with `formula_rate` < 1, on
an evenly spread share of them (the molecule of record i is evaluated when
floor((i + 1) r) > floor(i r), the same in every run whatever the chunks and workers):
what is sampled is said in the summary.

Its size (500–600 lines) is one screen's life: the chunks handed out and taken back in
order, the worker's reading, encoding and grouping of a chunk, and the encodings of the
patterns' schemas, which share the worker's caches (models, fused programs, features).
"""

from __future__ import annotations

import gc
import multiprocessing
from collections import OrderedDict, deque
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
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
from gracr.executor.numba_backend import (SparseProgram, evaluate_columns, in_neighbour_csr,
                                          sparse_program)
from gracr.executor.numpy_backend import output_of_read, read_columns
from gracr.executor.plan import keeps_compiled_layout

Executor = Literal["fused", "numpy"]
Answer = bool | tuple[bool, ...]
"""A graph classifier's answer on a molecule, or a node classifier's per atom."""

# Nodes per forward pass: a chunk's union is cut into parts of about this many atoms, so
# a chunk of large molecules takes no more memory than one of small ones. The state of a
# part (14 WOMBAT patterns: 622 float64 columns) then fits the processor's cache better.
CHUNK_NODES = 5_000
CHUNK_RECORDS = 1_000
# Molecules parsed, encoded and freed together within a chunk (see `_Worker._chunk`).
ENCODE_BATCH = 64


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

    @cached_property
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
    worker = _worker_for(tuple(patterns), settings)
    if settings.jobs == 1:
        with _single_threaded(_needs_torch(patterns)):
            for records, first in tasks:
                yield worker.chunk(records, first)
        return
    # Forked workers start at once with this process's imports (RDKit, and torch where a
    # pattern needs it, took ~4 s a worker to import, as long as a 20 000-molecule screen
    # on one core); as PyTorch's own DataLoader workers, they run single-threaded.
    # Spawned where fork is unavailable.
    # Forked, they also start with the models and the fused programs compiled here
    # once (`prepare`), where each would compile them again (a quarter of a second for the
    # 14 WOMBAT patterns, a tenth of a 20 000-molecule screen on two workers); spawned
    # ones compile their own.
    methods = multiprocessing.get_all_start_methods()
    forked = "fork" in methods
    context = multiprocessing.get_context("fork" if forked else "spawn")
    if forked:
        worker.prepare()
    # This process is one of the `jobs` workers, beside a pool of `jobs - 1` (as the
    # benchmark runner's run is): it keeps two chunks queued for each pool worker and
    # screens the next chunk itself while they are, instead of a third process on two
    # cores reading and waiting (one worker then also pickles half the chunks). Results
    # leave in file order.
    ahead = 2 * (settings.jobs - 1)
    # Every object alive now (the caller's too: a benchmark's 20 000 answers) is moved out
    # of the collector's reach for the screen, as Python's documentation advises before
    # a fork: otherwise each worker's collections walk and touch them all (copying their
    # pages), and so do this process's between its chunks.
    gc.freeze()
    try:
        yield from _screen_in_pool(tasks, worker, patterns, settings, context, forked, ahead)
    finally:
        gc.unfreeze()


def _screen_in_pool(tasks: Iterator[tuple[list[Record | Skipped], int]], worker: _Worker,
                    patterns: Sequence[Pattern], settings: ScreenSettings, context: Any,
                    forked: bool, ahead: int) -> Iterator[ChunkResult]:
    with ProcessPoolExecutor(max_workers=settings.jobs - 1, mp_context=context,
                             initializer=_init_worker,
                             initargs=(tuple(patterns), settings, worker if forked else None)
                             ) as pool, _single_threaded(_needs_torch(patterns)):
        pending: deque[Future[ChunkResult] | ChunkResult] = deque()
        for records, first in tasks:
            if sum(1 for p in pending if isinstance(p, Future) and not p.done()) < ahead:
                pending.append(pool.submit(_run_chunk, records, first))
            else:
                pending.append(worker.chunk(records, first))
            # The finished results in order; and no more than a few chunks held, should
            # the pool fall behind this process.
            while pending and (not isinstance(pending[0], Future) or pending[0].done()
                               or len(pending) > 2 * ahead + 2):
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())


def _result(pending: Future[ChunkResult] | ChunkResult) -> ChunkResult:
    return pending.result() if isinstance(pending, Future) else pending


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


def _needs_torch(patterns: Sequence[Pattern]) -> bool:
    """Whether a pattern runs on the torch module: a given model without the compiled
    layout (the others run on the numba kernel or the numpy reference)."""
    return any(p.model is not None and not keeps_compiled_layout(p.model) for p in patterns)


@contextmanager
def _single_threaded(torch_too: bool) -> Iterator[None]:
    """One thread for BLAS (and torch, where a pattern runs on it): the products are
    narrow (a model's width), and threads only add synchronisation (fifty times slower
    on a loaded machine)."""
    from threadpoolctl import threadpool_limits

    if not torch_too:
        with threadpool_limits(limits=1, user_api="blas"):
            yield
        return
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(threads)


_worker: _Worker | None = None


def _init_worker(patterns: tuple[Pattern, ...], settings: ScreenSettings,
                 prepared: _Worker | None) -> None:
    global _worker
    from threadpoolctl import threadpool_limits

    if _needs_torch(patterns):
        import torch

        torch.set_num_threads(1)
    threadpool_limits(limits=1, user_api="blas")
    _worker = prepared if prepared is not None else _Worker(patterns, settings)


# The screeners of the last few screens, by the identity of their patterns and their
# settings (each holds its patterns, so the identities stay theirs): a screen of the
# same `Pattern` objects again (a notebook's, a benchmark's after its warm-up) reuses
# their compiled models and fused programs instead of compiling them again.
_WORKERS: OrderedDict[tuple[tuple[int, ...], ScreenSettings], _Worker] = OrderedDict()
_WORKERS_KEPT = 4


def _worker_for(patterns: tuple[Pattern, ...], settings: ScreenSettings) -> _Worker:
    key = (tuple(map(id, patterns)), settings)
    worker = _WORKERS.get(key)
    if worker is None:
        worker = _WORKERS[key] = _Worker(patterns, settings)
        while len(_WORKERS) > _WORKERS_KEPT:
            _WORKERS.popitem(last=False)
    _WORKERS.move_to_end(key)
    return worker


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

    def features(self, union: MoleculeUnion) -> npt.NDArray[np.float64]:
        """`CompiledGNN.features` of every molecule of `union`, stacked."""
        x = np.zeros((union.codes.num_atoms, self.width))
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
    and the modules that run them.

    The patterns that read one input layout (schema and presence bit) and are of one
    kind form a group, whose molecules are refused, cut into parts and encoded once.
    On the fused executor a group runs as one fused plan over its networks
    (`gracr.executor.plan.fused_plan`, exact for every network in it) on the numba
    kernel: each layer aggregates once for all of them, and the columns they share (an
    atom pattern, `<1>{single} ...`) are computed once (the 14 WOMBAT patterns: 50
    layers of 622 columns, where they ran 274 layers of 911 columns alone). A given model
    without the compiled layout (a randomisation control) runs alone, on the full torch
    module."""

    def __init__(self, patterns: tuple[Pattern, ...], settings: ScreenSettings) -> None:
        self.patterns = patterns
        self.settings = settings
        self.models: dict[tuple[int, int | None], CompiledGNN] = {}
        self.programs: dict[tuple[tuple[int, int | None], ...], SparseProgram] = {}
        self.modules: dict[tuple[int, int | None], Any] = {}
        self.encodings = [_Encoding(p.program.schema, p.model.presence if p.model is not None
                                    else bool(p.compile_options.get("presence", False)))
                          for p in patterns]
        # Whether each pattern's model has the compiled layout (checking it reads every
        # weight: once, not per part).
        self.compiled_layout = [p.model is None or keeps_compiled_layout(p.model)
                                for p in patterns]
        # The degree bound the models are compiled at: the largest in-degree seen so far.
        # A network compiled at bound D is exact on every graph of in-degree <= D, so a
        # part of smaller degrees reuses it, and a worker compiles once per new maximum.
        self.bound = 0
        groups: dict[tuple[Any, ...], list[int]] = {}
        for index, (pattern, encoding) in enumerate(zip(patterns, self.encodings)):
            alone = not self.compiled_layout[index]
            key = (encoding.schema, encoding.presence, pattern.program.kind,
                   index if alone else None)
            groups.setdefault(key, []).append(index)
        self.groups = [tuple(members) for members in groups.values()]
        # The features of the part last run, per (schema, presence).
        self.features: dict[tuple[Schema, bool], tuple[MoleculeUnion, npt.NDArray[np.float64]]] = {}

    def prepare(self) -> None:
        """Compile now every model and fused program that needs no degree bound (the
        others wait for the molecules' largest in-degree)."""
        for members in self.groups:
            if any(self.patterns[index].needs_degree_bound for index in members):
                continue
            if self.settings.executor == "fused" and self.compiled_layout[members[0]]:
                self.program(members, None)
            else:
                for index in members:
                    self.model(index, None)

    def key(self, index: int, bound: int | None) -> tuple[int, int | None]:
        return (index, bound if self.patterns[index].needs_degree_bound else None)

    def model(self, index: int, bound: int | None) -> CompiledGNN:
        """Pattern `index`'s model, compiled at `bound` when it needs one."""
        key = self.key(index, bound)
        if key not in self.models:
            pattern = self.patterns[index]
            model = pattern.model
            if model is None:
                options = dict(pattern.compile_options)
                if pattern.needs_degree_bound:
                    options["max_degree"] = bound
                model = compile_program(pattern.program, **options)
            self.models[key] = model
        return self.models[key]

    def program(self, members: tuple[int, ...], bound: int | None) -> SparseProgram:
        """The numba program of the group `members` at `bound` (their fused plan)."""
        key = tuple(self.key(index, bound) for index in members)
        if key not in self.programs:
            self.programs[key] = sparse_program([self.model(index, bound) for index in members])
        return self.programs[key]

    def module(self, index: int, bound: int | None) -> Any:
        """The torch module of a pattern whose model lacks the compiled layout."""
        key = self.key(index, bound)
        if key not in self.modules:
            self.modules[key] = self.model(index, bound).to_pyg(fused=True)
        return self.modules[key]

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
        readable: list[tuple[int, Record, str]] = []
        skipped: list[Skipped] = []
        unions: list[MoleculeUnion] = []
        batch: list[tuple[int, Record, Any, str]] = []
        for offset, record in enumerate(records):
            if isinstance(record, Skipped):
                skipped.append(record)
            else:
                try:
                    mol, smiles = parse_record(record)
                    batch.append((first + offset, record, mol, smiles))
                except MoleculeError as error:
                    skipped.append(Skipped(record.place, str(error)))
            if len(batch) == ENCODE_BATCH or (batch and offset == len(records) - 1):
                # Encoded a few dozen at a time and then let go: RDKit frees a molecule
                # read a moment ago in a fraction of the time it takes for one read a
                # thousand molecules earlier (its memory still in the processor's cache):
                # a quarter of reading and encoding.
                union, refused = encode_molecules([mol for _, _, mol, _ in batch],
                                                  bond_order=False)
                skipped += [Skipped(batch[m][1].place, str(error)) for m, error in refused.items()]
                readable += [(i, record, smiles) for m, (i, record, _, smiles) in enumerate(batch)
                             if m not in refused]
                unions.append(union)
                batch = []
        union = MoleculeUnion.joined(unions)
        # The chunk's parts per set of refused molecules (usually none), so that the
        # groups share them and their features.
        self.parts: dict[bytes, list[tuple[int, MoleculeUnion]]] = {}
        indices = np.fromiter((i for i, _, _ in readable), np.int64, len(readable))
        evaluated = sampled(indices, self.settings.formula_rate)
        gnn: list[list[Answer | None]] = [[] for _ in self.patterns]
        formula: list[list[Answer | None]] = [[] for _ in self.patterns]
        refusals: list[list[tuple[int, str]]] = [[] for _ in self.patterns]
        for members in self.groups:
            answers, truths, refused_here = self.group(members, union, evaluated)
            for index, column, truth in zip(members, answers, truths):
                gnn[index], formula[index] = column, truth
                refusals[index] = refused_here
        # Each pattern's refusals, in pattern order (then sorted by record, stably).
        for pattern, refused_by in zip(self.patterns, refusals):
            skipped += [Skipped(readable[m][1].place, f"{reason} (in {pattern.place})")
                        for m, reason in refused_by]
        rows = tuple(Row(i, record.place, smiles, record.name, g, f)
                     for (i, record, smiles), g, f in zip(readable, zip(*gnn), zip(*formula)))
        order = {record.place: n for n, record in enumerate(records)}
        return ChunkResult(rows, tuple(sorted(skipped, key=lambda s: order.get(s.place, 0))),
                           len(records))

    def group(self, members: tuple[int, ...], union: MoleculeUnion,
              evaluated: npt.NDArray[np.bool_]
              ) -> tuple[list[list[Answer | None]], list[list[Answer | None]],
                         list[tuple[int, str]]]:
        """The patterns `members` on every molecule of `union`: per pattern the network's
        answers and the formula's (where evaluated), and the molecules their schema
        refuses with the reason."""
        encoding = self.encodings[members[0]]
        refused = encoding.refused(union)
        refusals = [(int(m), _refusal(union, int(m), encoding.schema))
                    for m in np.flatnonzero(refused)]
        answers: list[list[Answer | None]] = [[None] * union.count for _ in members]
        truths: list[list[Answer | None]] = [[None] * union.count for _ in members]
        kept = np.flatnonzero(~refused)
        key = refused.tobytes()
        if key not in self.parts:
            self.parts[key] = list(parts(union.select(~refused), CHUNK_NODES))
        for start, part in self.parts[key]:
            where = kept[start:start + part.count]
            chosen = evaluated[where]
            for number, found in enumerate(self.run(members, encoding, part)):
                for m, answer in zip(where, found):
                    answers[number][m] = answer
                if chosen.any():
                    program = self.patterns[members[number]].program
                    for m, truth in zip(where[chosen], _formula(program, part.select(chosen))):
                        truths[number][m] = truth
        return answers, truths, refusals

    def run(self, members: tuple[int, ...], encoding: _Encoding, part: MoleculeUnion
            ) -> list[list[Answer]]:
        """Each pattern's network's answers on the molecules of `part` (one pass for the
        group on the fused executor, one per pattern on the numpy one)."""
        degree = int(np.bincount(part.codes.targets).max()) if part.codes.targets.size else 0
        self.bound = bound = max(self.bound, degree)
        models = [self.model(index, bound) for index in members]
        key = (encoding.schema, encoding.presence)
        cached = self.features.get(key)
        if cached is None or cached[0] is not part:
            cached = (part, encoding.features(part))
            self.features[key] = cached
        x = cached[1]
        edge_index = np.stack([part.codes.sources, part.codes.targets])
        edge_type = encoding.edge_types(part)
        if self.settings.executor == "numpy":
            output = np.concatenate([model.forward(x, edge_index, part.batch, edge_type=edge_type)
                                     for model in models], axis=1)
        elif self.compiled_layout[members[0]]:
            program = self.program(members, bound)
            state = evaluate_columns(program, x, *in_neighbour_csr(edge_index, len(x), edge_type))
            output = np.stack([output_of_read(model, state[:, columns[read_columns(model)]],
                                              part.batch)
                               for model, columns in zip(models, program.columns)], axis=1)
        else:
            import torch

            output = self.module(members[0], bound)(
                torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(edge_index),
                torch.as_tensor(part.batch),
                edge_type=None if edge_type is None else torch.as_tensor(edge_type)).numpy()
        decided = output > 0.5
        if models[0].kind is Kind.NODE:
            starts = (np.cumsum(part.sizes) - part.sizes).tolist()
            sizes = part.sizes.tolist()
            return [[tuple(column[start:start + size]) for start, size in zip(starts, sizes)]
                    for column in decided.T.tolist()]
        # Trailing molecules without atoms get no row (the readout sizes itself by the
        # batch vector): the empty molecule's answer is the network's on the empty graph.
        missing = part.count - decided.shape[0]
        found: list[list[Answer]] = []
        for model, column in zip(models, decided.T.tolist()):
            tail = [] if missing <= 0 else [bool(model.predict(
                encode_molecules([])[0].codes.graph()))] * missing
            found.append(column[:part.count] + tail)
        return found


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
