"""The GracrBench runner: explainers × tasks × compile variants × seeds (§5, App. H).

A job is one (task, variant, explainer, settings, level, seed). It explains the first
`limit` positive instances of the seed's dataset in dataset order (graph tasks:
the positive graphs; node tasks: each positive target of each graph in turn) and
scores each against its UPI at the job's level (`plausibility_at`: edge scores against
the stored UPI, node scores against the node UPI). An explainer that must be trained
(`ExplainerSpec.train`) is trained once per job, first, on the first positive instances
of the task's held-out tuning seed (`HELD_OUT_SEED`), explained by the job's model.

Jobs run in chunks (`plan_chunks`): consecutive instances of one job that one worker
explains in one go, loading the job's dataset and model once for them (and keeping them,
`_job_context`, for its next chunk of the job). A job is cut into chunks that shrink along the run
(each the estimated work left over twice the workers, `SHRINK`), the longest jobs first
(by `estimated_cost`), and every process takes the next chunk when it is free, so that
the run ends on short chunks and no worker is left alone with a long one. The datasets are read once, by the run, and sent once to each worker
(the pool's initializer; on Ray, put once in the object store, which workers map). How
the work is cut and ordered changes no record: each instance's explainer seed is its own
(`explainer_seed`), and a trained explainer is trained from the job's seed in each worker
that explains its instances. One worker (`workers=1`) explains each whole job in turn in
the run's own process; with more, the run's own process is one of them, beside a pool of
`workers - 1` (`_run_in_pool`).

The pool's workers are processes, one torch thread each. A worker ends with the run: it
ignores SIGINT (Ctrl-C reaches the whole process group; the run stops its workers itself,
`_run_in_pool`), and it is killed when the run's process ends however it ends (SIGKILL
too: `_end_with_run`). The workers send their records to the run through a queue that
needs no server process (a `multiprocessing.Manager` would be one more process to
outlive a killed run). On Linux the workers are forked
(`START_METHOD`): they start with the run's imports and know every explainer the run
knows, one registered in the caller's own script too. Elsewhere they are spawned, and
see only the explainers registered on import: each one loads the plugins the parent
loaded (`gracr.explainers.plugins`) before it runs a job, and a job whose explainer
a worker still cannot find fails the run (a `GracrError`, re-raised in the parent) rather
than recording an error per instance (Ray's workers are as spawned ones). Every instance goes through the per-instance loop
of `gracr.bench.budget` (a budget of CPU seconds; App. H's semantics: an instance over
budget is recorded `oot` and the rest of that job is skipped; with `Job.batch`, up to that
many consecutive instances of a chunk are explained in one run of an explainer that has a
batch path, `ExplainerSpec.batch`, their records carrying `batched` and a share of its
cost, and a batch out of time makes each of its instances so): a chunk stops at its first
out-of-time instance, and the run then cancels the job's later chunks not yet started
(ones already running keep their records; the report leaves the seed out either way).

With `engine="ray"` the same chunks run as Ray tasks beside the run's own process, which
takes chunks as in the pool (`_run_on_ray`): on a local Ray instance the run starts and
stops (`workers - 1` CPUs, `ray_for_run`), or on the cluster at `address`. Records,
resumption, the CPU budget and App. H's OOT rule are the process pool's. Ray is an
optional extra (`pip install 'gracr[ray]'`); a cluster's workers need gracr installed.

Results are appended to `<out>/results.jsonl` (`gracr.bench.record`), one line per
instance, keyed by (task, variant, explainer, settings hash, level, seed, instance); a
rerun skips every key already there, so an interrupted run resumes. A key whose last
record is an error counts as not done, so a rerun retries it (`keep_errors=True` keeps it
instead); readers take each key's last record. Only the parent writes the file. Keys do
not name the dataset, so `<out>/datasets.json` binds the folder to its tasks' datasets
(`bound_datasets`): a rerun on other datasets (another size, an edited task file) is refused.
Each scored record's explainer scores go to `<out>/scores.jsonl` just before it
(`gracr.bench.scores_log`), for the HTML report.

Its size (1000–1100 lines) is one run's life: planning the jobs and their chunks, binding
the folder to its datasets, and the two ways the run's own process shares the chunks with
other workers (the process pool, with its workers' lifetime and signals, and Ray's tasks);
splitting them would pass the run's state between modules.
"""

from __future__ import annotations

import ctypes
import json
import multiprocessing
import math
import os
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from collections import OrderedDict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from multiprocessing import resource_tracker
from pathlib import Path
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Iterator, Literal, Mapping,
                    NamedTuple, Sequence, TypeVar)

from tqdm import tqdm

from gracr.bench.datasets import Dataset, dataset_identity, load_or_build
from gracr.explainers.metric import Level, Sample
from gracr.dsl.ir import Kind
from gracr.bench.tasks import task_files, task_named
from gracr.bench.budget import explain_each
from gracr.bench.options import missing_folders, remove_empty
from gracr.bench.ray_session import ray_session
from gracr.bench.record import (RESULTS_FILE, Record, latest_records, read_records,
                                record_objects, start_results, write_record)
from gracr.compiler.compile import readout_refusal
from gracr.bench.instances import (ExplainedInstance, compile_variant, explained_instances,
                                   ground_truth, subject_for, variant_named)
from gracr.errors import GracrError
from gracr.bench.scores_log import SCORES_FILE, scores_line
from gracr.files import line_log, output_target, write_json

if TYPE_CHECKING:
    from gracr.explainers.base import ExplainerSpec
from gracr.limits import RAY_TIMEOUT

Engine = Literal["process", "ray"]
# In a results folder: the datasets its results were computed on (`bound_datasets`).
DATASETS_FILE = "datasets.json"
ENGINES: tuple[Engine, ...] = ("process", "ray")

# ---------------------------------------------------------------- the worker


@dataclass(frozen=True)
class Job:
    task: str
    variant: str
    explainer: str
    settings: Mapping[str, Any]
    settings_hash: str
    seed: int
    limit: int
    budget: float
    dataset_size: int | None
    datasets: str | None
    # Positive instances before `start` are left to another run: one seed's job can
    # be split across machines or sessions, and `gracrc report` merges the folders.
    start: int = 0
    # The task file of a task that is not the package's: a spawned worker reads it to
    # know the task by name.
    task_file: str | None = None
    level: Level = "edge"
    # Positive instances (scored against their ground truth) or negative ones (the IQR test).
    sample: Sample = "positive"
    # A model file to explain instead of compiling `variant` (`gracr.bench.models`: a
    # compiled .npz or a registered trained format); `variant` then names it in the records.
    model: str | None = None
    # Unscored, an instance is explained whatever the model predicts and its record keeps
    # the raw scores for a study that scores them against ground truth of its own.
    scored: bool = True
    # Up to this many consecutive instances of a chunk explained in one run of an
    # explainer with a batch path (`explain_each`); the same scores, the cost shared.
    batch: int = 1

    def wanted(self, available: int) -> range:
        """The instance indices this job explains, of a dataset with `available` instances
        of its sample."""
        return range(self.start, min(self.limit, available))


_progress: Any = None
_worker_failure: GracrError | None = None
# The datasets the run sent this worker (`_init_worker`), by `_dataset_key`.
_sent: dict[tuple[Any, ...], Dataset] = {}


def _init_worker(progress: Any, plugins: tuple[str, ...] = (),
                 run_pid: int | None = None,
                 datasets: Mapping[tuple[Any, ...], Dataset] | None = None) -> None:
    """Ready this process to run jobs: `progress` is the pool's record queue (None when the
    caller collects the records), `run_pid` the process id of the run in a pool worker,
    `datasets` the run's datasets (by `_dataset_key`), read once by the run and sent here
    so that the worker does not read them again."""
    import torch
    from threadpoolctl import threadpool_limits

    from gracr.explainers import load_plugins

    global _progress, _worker_failure
    _progress = progress
    _sent.update(datasets or {})
    if run_pid is not None:
        _end_with_run(run_pid)
        # Ctrl-C is the run's to handle (it stops the workers): a worker that raised
        # KeyboardInterrupt would only print its traceback. The run spawned this worker
        # with SIGINT blocked, so a Ctrl-C while it started up is dropped here too.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    torch.set_num_threads(1)
    # NumPy's and SciPy's BLAS (OpenBLAS) get one thread as well: their threads spin
    # after each call, and beside a second worker they took its core (the instances of a
    # 2-process run took 82 CPU s in all against 69 with one BLAS thread;
    # benchmarks/engines.py).
    threadpool_limits(limits=1)
    try:
        load_plugins(plugins)
    except GracrError as error:
        # Raised by the first job instead: a failing initializer only breaks the pool,
        # and its message would never reach the user.
        _worker_failure = error
    if run_pid is not None:
        from gracr.explainers import EXPLAINERS   # registers the explainers we ship

        progress.put(WorkerReady(frozenset(EXPLAINERS) if _worker_failure is None
                                 else frozenset()))


# prctl(2)'s option: the signal this process gets when the thread that started it ends.
_PR_SET_PDEATHSIG = 1


def _end_with_run(run_pid: int) -> None:
    """End this pool worker when the run (process `run_pid`, its parent) ends. A run
    killed with SIGKILL cannot stop its workers, and a worker waiting for its next job
    would wait for ever (every worker holds the job queue open)."""
    # On Linux the kernel kills the worker (even one busy in native code). The pool
    # spawns its workers from the thread that runs `_run_in_pool`, which outlives them.
    if not (sys.platform == "linux" and
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0):
        threading.Thread(target=_watch_run, args=(run_pid,), daemon=True).start()
    if os.getppid() != run_pid:   # the run ended before the above took effect
        os._exit(1)


def _watch_run(run_pid: int) -> None:
    while os.getppid() == run_pid:
        time.sleep(1.0)
    os._exit(1)


def _registered_explainer(job: Job) -> ExplainerSpec:
    """The job's explainer, or a `GracrError` if this process does not know it."""
    from gracr.explainers import explainer_named

    if _worker_failure is not None:
        raise _worker_failure
    try:
        return explainer_named(job.explainer)
    except GracrError:
        raise _unregistered(job) from None


def _unregistered(job: Job) -> GracrError:
    return GracrError(
        f"explainer '{job.explainer}' is not registered in the worker process that runs "
        f"{job.task} seed {job.seed}: register it in a plugin that every worker imports "
        f"(--plugin MODULE_OR_FILE.py, or `plugins` of gracr.bench.runner.run)")


@dataclass(frozen=True)
class WorkerReady:
    """A pool worker's first message: the explainers it knows (registered by gracr, the
    entry points and the run's plugins), so the run knows which of its own records a
    worker could have made (`_run_in_pool`)."""

    explainers: frozenset[str]


def run_job(job: Job, done: frozenset[int], send: Any = None) -> int:
    """Explain the job's instances not in `done`; send each `Record` to `send` (the
    pool's queue by default). Returns how many records were sent."""
    from gracr.explainers import derives_node_scores, explainer_seed

    emit = send if send is not None else _progress.put
    if job.task_file is not None:
        task_named(job.task_file)
    explainer = _registered_explainer(job)   # before any work, so a failure is quick
    dataset, model, explainer, program, modules = _job_context(job, explainer)
    todo = list(_until((instance for instance in explained_instances(dataset, job.sample)
                        if instance.index >= job.start and instance.index not in done),
                       job.limit))
    truth = (ground_truth(dataset, todo, job.level, job.datasets, job.sample) if job.scored
             else {})
    # Node scores an edge-only explainer gives are derived from its edge scores: say so.
    extra: dict[str, Any] = {"node_scores": "max over incident edges"} \
        if job.level == "node" and derives_node_scores(explainer) else {}
    sent = 0
    for instance, outcome in explain_each(
            todo, explainer, job.settings, job.budget,
            subject_of=lambda i: subject_for(dataset, program, model, i, modules, job.level),
            upi_of=lambda i: truth.get(i.index),
            seed_of=lambda i: explainer_seed(job.seed, i.index),
            negative=job.sample == "negative", scored=job.scored, batch=job.batch):
        graph = dataset.instances[instance.graph].graph
        kept: dict[str, Any] = ({} if job.scored else
                                {"scores": None if outcome.scores is None else
                                 [float(v) for v in outcome.scores]})
        if outcome.batched > 1:
            # Its cpu_seconds and wall_seconds are the batch's, shared evenly.
            kept["batched"] = outcome.batched
        emit(Record.of(outcome, task=job.task, variant=job.variant, explainer=job.explainer,
                       config=job.settings, config_hash=job.settings_hash, seed=job.seed,
                       instance=instance.index, graph=instance.graph, target=instance.target,
                       upi_edges=int(instance.upi.sum()), edges=graph.num_edges,
                       extra={**extra, **kept}, level=job.level, sample=job.sample,
                       keep_scores=job.scored))
        sent += 1
        if outcome.status != "ok":
            # The job's instances share their modules (`Subject.of`): one an explainer
            # left midway (an error, out of time) may still hold its masks.
            modules.clear()
    return sent


# What a worker keeps for its next jobs (`_kept`): job contexts, datasets and models.
_KEPT: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_KEPT_VALUES = 12


def _kept(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    """`make()`, kept for the next job that asks with the same key (the last few kept)."""
    if key in _KEPT:
        _KEPT.move_to_end(key)
        return _KEPT[key]
    value = _KEPT[key] = make()
    while len(_KEPT) > _KEPT_VALUES:
        _KEPT.popitem(last=False)
    return value


def _context_key(job: Job) -> tuple[Any, ...]:
    return ("context", job.task, job.variant, job.seed, job.dataset_size, job.datasets,
            job.explainer, job.settings_hash, job.level, job.task_file, job.model)


def _job_context(job: Job, explainer: ExplainerSpec) -> tuple[Any, ...]:
    """The job's dataset, compiled model, ready (trained) explainer, program and module
    cache; kept for the job's next instances when the work comes one instance at a time.
    Jobs that differ in explainer or sample share the dataset and the model: a molecule
    set of 10 000 graphs takes seconds to read, a deep pattern a second to compile."""
    from gracr.bench.tuning import ready_explainer

    def make() -> tuple[Any, ...]:
        key = _dataset_key(job)
        dataset = _kept(key, lambda: _sent[key] if key in _sent else
                        load_or_build(job.task, job.seed, job.dataset_size, job.datasets,
                                      progress=False))
        if job.model is not None:
            from gracr.bench.models import load_model_file

            file = job.model
            model = _kept(("model file", file), lambda: load_model_file(file))
        else:
            model = _kept(("model", job.task, job.seed, job.dataset_size, job.datasets,
                           job.variant, job.level),
                          lambda: compile_variant(job.task, variant_named(job.variant),
                                                  dataset, job.level))
        ready = ready_explainer(explainer, job.task, model, job.settings, job.seed,
                                job.dataset_size, job.datasets, job.level)
        return (dataset, model, ready, task_named(job.task).program(), {})

    context: tuple[Any, ...] = _kept(_context_key(job), make)
    return context


def _dataset_key(job: Job) -> tuple[Any, ...]:
    return ("dataset", job.task, job.seed, job.dataset_size, job.datasets)


def explain_chunk(chunk: Chunk, plugins: tuple[str, ...], shared: list[Any]) -> list[Record]:
    """A Ray task: the records of `chunk`. `shared` holds the reference of the chunk's
    dataset in the object store (in a list, so that Ray does not fetch it for a worker
    that keeps it from an earlier chunk)."""
    global _prepared
    if _prepared != plugins:   # a Ray worker outlives one run: the next may bring plugins
        _init_worker(None, plugins)
        _prepared = plugins
    import ray

    _kept(_dataset_key(chunk.job), lambda: ray.get(shared[0]))
    records: list[Record] = []
    run_job(chunk.job, chunk.done, send=records.append)
    return records


_prepared: tuple[str, ...] | None = None


def _until(instances: Iterator[ExplainedInstance], limit: int) -> Iterator[ExplainedInstance]:
    """The instances before index `limit` (instances come in index order)."""
    for instance in instances:
        if instance.index >= limit:
            return
        yield instance


# ---------------------------------------------------------------- the parent


def job_key(job: Job) -> tuple[Any, ...]:
    """The key of the job's records, less the instance (`Record.key[:-1]`)."""
    return (job.task, job.variant, job.explainer, job.settings_hash, job.level, job.sample,
            job.seed)


def read_done(results: Path, keep_errors: bool = False
              ) -> tuple[dict[tuple[Any, ...], set[int]], set[tuple[Any, ...]]]:
    """Which instances of which jobs are done, and which jobs stopped at OOT, by each key's
    last record. An instance whose last record is an error is not done (a rerun retries it)
    unless `keep_errors`."""
    done: dict[tuple[Any, ...], set[int]] = {}
    stopped: set[tuple[Any, ...]] = set()
    if not results.exists():
        return done, stopped
    latest, _ = latest_records(read_records(results))
    for record in latest:
        job = record.key[:-1]
        if record.status != "error" or keep_errors:
            done.setdefault(job, set()).add(record.instance)
        if record.status == "oot":
            stopped.add(job)
    return done, stopped


def run(jobs: list[Job], out: str, workers: int = 1, progress: bool = True,
        keep_errors: bool = False, plugins: Sequence[str] = (), engine: Engine = "process",
        address: str | None = None, ray_timeout: float = RAY_TIMEOUT) -> Path:
    """Run `jobs`, appending to `<out>/results.jsonl`; returns the results path.

    Error records are retried unless `keep_errors`. `plugins` (modules or `.py` files that
    register explainers) are loaded here and, with every plugin loaded before, in each
    worker process. `ray_timeout`: the seconds to wait for the Ray cluster at `address`."""
    from gracr.explainers import load_plugins

    worker_plugins = tuple(load_plugins(plugins))
    folder = Path(out)
    results = folder / RESULTS_FILE
    binding = folder / DATASETS_FILE
    wanted = bound_datasets(binding, jobs)
    created = missing_folders(folder)
    scores = output_target(folder / SCORES_FILE)   # refused now if not a regular file
    fresh = not results.exists()
    unbound = not binding.exists()
    unscored = not scores.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        start_results(results)
        write_json(binding, wanted)
    except OSError as error:
        remove_empty(created)
        raise GracrError(f"{folder}: cannot write results there ({error.strerror})") from None
    try:
        _run(jobs, results, workers, progress, keep_errors, worker_plugins, engine, address,
             ray_timeout)
    except BaseException:
        # A run that failed before its first record leaves nothing behind.
        if fresh and not any(True for _ in record_objects(results)):
            results.unlink(missing_ok=True)
            if unscored:
                scores.unlink(missing_ok=True)
            if unbound:
                binding.unlink(missing_ok=True)
            remove_empty(created)
        raise
    return results


def bound_datasets(binding: Path, jobs: Sequence[Job]) -> dict[str, str]:
    """The datasets a results folder is bound to (`DATASETS_FILE`: task -> its datasets'
    `dataset_identity`), with this run's tasks added. Records are keyed without the
    dataset, so a resume on other datasets (another `--graphs`, an edited task file) would
    mix two datasets' instances under one key: `GracrError` naming what differs."""
    bound: Any = {}
    if output_target(binding).exists():      # refused first if not a regular file
        try:
            bound = json.loads(binding.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            bound = None
        if not isinstance(bound, dict) or not all(isinstance(v, str) for v in bound.values()):
            raise GracrError(f"{binding}: not the JSON object of task -> datasets gracr "
                             "writes; the folder's results cannot be matched to datasets")
    wanted: dict[str, str] = dict(bound)
    for job in jobs:
        wanted[job.task] = dataset_identity(task_named(job.task), job.dataset_size)
    differ = [f"{task}: {bound[task]} there, {wanted[task]} now" for task in sorted(wanted)
              if task in bound and bound[task] != wanted[task]]
    if differ:
        raise GracrError(
            f"{binding.parent}: its results were computed on other datasets than this run's "
            f"({'; '.join(differ)}: another --graphs/--targets, task file or generator); "
            "resuming would mix instances of both. Use another --out, or the first run's "
            "settings")
    return wanted


def _run(jobs: list[Job], results: Path, workers: int, progress: bool, keep_errors: bool,
         worker_plugins: tuple[str, ...], engine: Engine = "process",
         address: str | None = None, ray_timeout: float = RAY_TIMEOUT) -> None:
    from gracr.bench.tuning import HELD_OUT_SEED

    done, stopped = read_done(results, keep_errors)
    # Build every dataset once, here: workers building the same one would race. The
    # workers are then sent them rather than reading them again.
    datasets: dict[tuple[Any, ...], Dataset] = {}
    for job in jobs:
        key = _dataset_key(job)
        if key not in datasets:
            datasets[key] = load_or_build(job.task, job.seed, job.dataset_size, job.datasets,
                                          progress=progress)
    pending: list[Pending] = []
    for job in jobs:
        dataset = datasets[_dataset_key(job)]
        wanted = job.wanted(sum(1 for _ in explained_instances(dataset, job.sample)))
        finished = frozenset(done.get(job_key(job), set())) & frozenset(wanted)
        if job_key(job) not in stopped and len(finished) < len(wanted):
            pending.append(Pending(job, finished,
                                   tuple(i for i in wanted if i not in finished)))
            # The node-level UPI and the held-out training data, likewise made once here.
            if job.level != "edge" and job.sample == "positive" and job.scored:
                ground_truth(dataset, (i for i in explained_instances(dataset)
                                       if i.index in wanted and i.index not in finished),
                             job.level, job.datasets)
            if _needs_training(job.explainer):
                load_or_build(job.task, HELD_OUT_SEED, job.dataset_size, job.datasets,
                              progress=progress)
    total = sum(len(left) for _, _, left in pending)
    bar = tqdm(total=total, desc="explaining", unit="instance", disable=not progress,
               dynamic_ncols=True)
    # Unscored jobs (a study's) keep their scores in their records: no scores file then.
    scores_log = (line_log(results.parent / SCORES_FILE) if any(job.scored for job in jobs)
                  else nullcontext(_no_line))
    with open(results, "a", encoding="utf-8") as sink, scores_log as log_scores:
        def write(record: Record) -> None:
            # The scores first, so every record written has them (a kill between the two
            # lines leaves a scores line whose instance is explained again).
            if record.kept_scores is not None:
                log_scores(scores_line(record, record.kept_scores))
            write_record(sink, record)
            bar.update()
            if record.status != "ok":
                bar.write(f"{record.task} {record.variant} {record.explainer} seed "
                          f"{record.seed} instance {record.instance}: {record.status}"
                          + (f" ({record.error})" if record.error else ""))

        if engine == "ray":
            _run_on_ray(plan_chunks(pending, datasets, workers), datasets, write, workers,
                        address, worker_plugins, ray_timeout)
        elif workers <= 1:
            _init_worker(None, worker_plugins)
            for job, finished, _ in pending:
                run_job(job, finished, send=write)
        else:
            used = {_dataset_key(job) for job, _, _ in pending}
            _run_in_pool(plan_chunks(pending, datasets, workers), write, workers,
                         worker_plugins, {key: datasets[key] for key in used})
    bar.close()


def _no_line(line: str) -> None:
    """Where an unscored run's scores lines would go: nowhere (it makes none)."""


class Pending(NamedTuple):
    """A job with work left: the instances already done (in its range) and those left."""

    job: Job
    done: frozenset[int]
    left: tuple[int, ...]


@dataclass(frozen=True)
class Chunk:
    """Consecutive instances of one job that one worker explains in one go: `job`
    narrowed to them (its `start` and `limit`), `done` the ones among them recorded
    already."""

    job: Job
    done: frozenset[int]


# How the pool starts its workers. A spawned worker imports torch, PyG and the explainers
# before its first chunk (about 3 s on a quiet 2-core machine, 6 s under load: as much as
# a tenth of a 2-worker bench run of a minute, `benchmarks/engines.py`); a forked one
# starts with the run's. Forking a process that has used torch is what PyTorch's own
# DataLoader workers do on Linux; each worker sets one torch thread before any work
# (`_init_worker`). macOS and Windows spawn (fork is unsafe or absent there).
START_METHOD = "fork" if sys.platform == "linux" else "spawn"

# Chunks shrink along the run's order (guided self-scheduling): each closes once it
# reaches the estimated cost left in the run (its own included) over `SHRINK` x workers,
# so the first ones are long (a worker sets up each job it touches, dataset, model, a
# trained explainer, for many instances) and the last ones short (the workers end
# together: equal chunks of a quarter of a worker's share left one worker idle for up to
# a chunk at the end, a tenth of a 2-worker run). None closes below the run's cost over
# `CHUNKS_PER_WORKER` x workers, which bounds their number.
SHRINK = 2
CHUNKS_PER_WORKER = 16

# The estimate's relative cost of one instance of an explainer, per edge of its graph:
# the official run's CPU milliseconds per Redundancy instance (the task whose instances
# are all alike; `docs/results/protocol_cost.md`, official column). An explainer not
# listed (a plugin's) is taken as `UNLISTED_COST`, GNNExplainer's order.
RELATIVE_COST: Mapping[str, float] = {
    "Saliency": 8, "IG": 157, "Deconv": 8, "GuidedBP": 8, "GNNExplainer": 270,
    "GraphMask": 893, "SubgraphX": 1587, "PGMExplainer": 582, "GraphSVX": 53, "FlowX": 42,
    "LRP": 2, "Rnd": 2, "GraphMask-clean": 125}
UNLISTED_COST = 270.0


def estimated_cost(explainer: str, edges: int) -> float:
    """What one instance is estimated to cost, in the units of `RELATIVE_COST`: its
    explainer's relative cost times the edges of its receptive field (at least one; the
    edges that can change its prediction: a graph task's whole graph, a node task's
    target's neighbourhood to the classifier's depth, `gracr.bdd.upi.receptive_field`).
    Only the order and size of the chunks follow from it, never a record: a wrong
    estimate costs time."""
    return RELATIVE_COST.get(explainer, UNLISTED_COST) * max(1, edges)


def plan_chunks(pending: Sequence[Pending], datasets: Mapping[tuple[Any, ...], Dataset],
                workers: int) -> list[Chunk]:
    """`pending`'s instances cut into chunks: each job's instances left, in order, closed
    into a chunk once they reach the estimated cost left in the run over `SHRINK` x
    `workers`, and at least the run's over `CHUNKS_PER_WORKER` x `workers` (a job's last
    chunk may be smaller). The jobs come longest (by estimate) first, so that the short
    ones and the short chunks fill the workers' ends; a job's chunks in the order of its
    instances, so that an instance out of time (App. H: the rest of the job is skipped)
    finds most of the job's later chunks not yet started."""
    from gracr.bdd.upi import receptive_field

    fields: dict[tuple[Any, ...], int] = {}   # by dataset, sample and instance
    costs: list[list[float]] = []
    for job, _, left in pending:
        dataset = datasets[_dataset_key(job)]
        program = task_named(job.task).program()
        for instance in _until(explained_instances(dataset, job.sample), max(left) + 1):
            key = (_dataset_key(job), job.sample, instance.index)
            if key not in fields:
                graph = dataset.instances[instance.graph].graph
                fields[key] = int(receptive_field(program, graph, instance.target).sum())
        costs.append([estimated_cost(job.explainer,
                                     fields[(_dataset_key(job), job.sample, index)])
                      for index in left])
    remaining = sum(map(sum, costs))
    smallest = remaining / (max(1, workers) * CHUNKS_PER_WORKER)
    chunks: list[Chunk] = []
    for (job, done, left), cost in sorted(zip(pending, costs), key=lambda p: -sum(p[1])):
        first, total = 0, 0.0
        # A chunk of a batching job holds whole batches: a batch of B costs about what a
        # few instances alone do, so a chunk cut shorter only loses that saving.
        whole = job.batch if job.batch > 1 and _batches(job.explainer) else 1
        for position, index in enumerate(left):
            total += cost[position]
            # The job's own instances left bound the chunk too: an estimate can be off by
            # a factor for a whole job (PyG's GraphMask trains on the whole graph of a node
            # task, not the receptive field the estimate counts), and a job cut by count
            # as well still ends on single instances.
            count = position + 1 - first
            if (count % whole == 0 and (
                    total >= max(smallest, remaining / (SHRINK * max(1, workers)))
                    or count >= math.ceil((len(left) - first) / (SHRINK * max(1, workers))))) \
                    or position == len(left) - 1:
                narrowed = replace(job, start=left[first], limit=index + 1)
                chunks.append(Chunk(narrowed, frozenset(
                    i for i in done if narrowed.start <= i < narrowed.limit)))
                remaining -= total
                first, total = position + 1, 0.0
    return chunks


Handle = TypeVar("Handle")


def _halted(record: Record, order: list[Chunk], started: Mapping[Handle, Chunk]
            ) -> list[Handle]:
    """App. H: a seed halts at its first OOT instance. For an OOT `record`, the seed's later
    chunks are taken out of `order` (not yet given to a process), and the handles of those
    `started` are returned, for the engine to cancel; for any other record, nothing."""
    if record.status != "oot":
        return []

    def later(chunk: Chunk) -> bool:
        return job_key(chunk.job) == record.key[:-1] and chunk.job.start > record.instance

    order[:] = [chunk for chunk in order if not later(chunk)]
    return [handle for handle, chunk in started.items() if later(chunk)]


def _run_in_pool(chunks: list[Chunk], write: Callable[[Record], None], workers: int,
                 plugins: tuple[str, ...],
                 datasets: Mapping[tuple[Any, ...], Dataset]) -> None:
    """`chunks` on `workers` processes, each record written as it arrives: this one and a
    pool of `workers - 1`, each sent `datasets` once. The chunks wait in the run's order
    until a process is free: the pool is given one chunk per worker and topped up as its
    chunks end (`give`), never a queue of them, so that no chunk waits behind a long one
    in a busy worker while another process has nothing to do; this process too takes
    the next chunk of the order when it is free (`claim`), so that the run ends on its
    shortest chunks (`plan_chunks`). A
    spawned worker (`START_METHOD`) first imports torch, PyG and the explainers (seconds,
    more than many chunks take), and even a forked one starts after this process has
    begun: this process explains from the first moment. Its records are held until a
    worker has said which explainers it knows (`WorkerReady`): an explainer a worker
    cannot see fails the run with no record of it, as it would with the pool alone.
    Interrupted (Ctrl-C, or SIGTERM where the caller raises on it) or failing here, the
    run stops its workers before it returns: a run is left with no process."""
    context = multiprocessing.get_context(START_METHOD)
    # A SimpleQueue's `put` writes to its pipe before it returns, so a chunk's records are
    # all readable once its future is done, and before anything put after it.
    messages = context.SimpleQueue()
    pool = ProcessPoolExecutor(max_workers=workers - 1, mp_context=context,
                               initializer=_init_worker,
                               initargs=(messages, plugins, os.getpid(), datasets))
    # One message at a time, from the pool's (`drain`) or this process's own work; and
    # which process a chunk goes to (`give`, `claim`) is decided under it too.
    lock = threading.Lock()
    order = list(chunks)                  # the chunks no process has been given yet
    futures: dict[Future[int], Chunk] = {}
    known: list[frozenset[str]] = []      # what the first worker ready knows
    ready = threading.Event()
    held: list[Record] = []               # this process's records until then
    refused: list[Job] = []               # its jobs whose explainer the pool cannot see

    def halt(record: Record) -> None:     # under the lock
        for future in _halted(record, order, futures):
            future.cancel()

    def take(record: Record) -> None:     # under the lock
        write(record)
        halt(record)

    def receive(message: Record | WorkerReady) -> None:
        with lock:
            if isinstance(message, Record):
                take(message)
            elif not known:
                known.append(message.explainers)
                ready.set()
                for record in held:
                    if record.explainer in message.explainers:
                        take(record)
                held.clear()

    def own(record: Record) -> None:
        with lock:
            if not known:
                held.append(record)
                halt(record)
            elif record.explainer in known[0]:
                take(record)

    def broken() -> bool:                 # under the lock
        """Whether a worker failed; the run then gives out no further chunk (the running
        ones finish and keep their records)."""
        if not any(f.done() and not f.cancelled() and f.exception() for f in futures):
            return False
        for future in futures:
            future.cancel()
        order.clear()
        return True

    def give() -> None:                   # under the lock
        """A chunk to each pool worker without one, from the start of the order."""
        busy = sum(not future.done() for future in futures)
        while order and busy < workers - 1 and not broken():
            chunk = order.pop(0)
            futures[pool.submit(run_job, chunk.job, chunk.done)] = chunk
            busy += 1

    def claim() -> Chunk | None:
        """The next chunk to run here; None when none is left or a worker failed."""
        with lock:
            if broken() or not order:
                return None
            return order.pop(0)

    stop = threading.Event()

    def drain() -> None:
        # Polled, not a blocking `get`: a worker killed while it held the queue's lock
        # must not leave this thread waiting for ever. Between messages it tops the pool up.
        while not stop.is_set():
            if messages.empty():
                with lock:
                    give()
                stop.wait(0.05)
            else:
                receive(messages.get())

    drainer = threading.Thread(target=drain, name="gracr-records", daemon=True)
    try:
        with _sigint_blocked(), lock:
            # The workers start here, in the first submits, and inherit the blocked SIGINT.
            give()
        drainer.start()
        _init_worker(None, plugins, datasets=datasets)
        while (chunk := claim()) is not None:
            if known and chunk.job.explainer not in known[0]:
                refused.append(chunk.job)
                with lock:
                    order.clear()
                break
            run_job(chunk.job, chunk.done, send=own)
        while True:   # the pool's chunks, given and still to give
            with lock:
                running = [future for future in futures if not future.done()]
                if not running and (broken() or not order):
                    break
            if running:
                wait(running, timeout=0.2, return_when=FIRST_COMPLETED)
            else:
                time.sleep(0.05)
        # A worker says what it knows as it starts, even one left without a chunk.
        while held and not ready.wait(0.2):
            if not any(process.is_alive() for process in pool._processes.values()):
                break
        stop.set()
        drainer.join()
        while not messages.empty():
            receive(messages.get())
        for future in futures:
            if not future.cancelled():
                future.result()   # re-raise a worker's failure (not an explainer's)
        refused.extend(chunk.job for chunk in futures.values()
                       if known and chunk.job.explainer not in known[0])
        if refused or held:
            raise _unregistered(refused[0] if refused else next(
                chunk.job for chunk in chunks if chunk.job.explainer == held[0].explainer))
    except BaseException:
        # Not after their chunks: now. The records they have sent so far are written.
        for process in list(pool._processes.values()):
            process.kill()
        raise
    finally:
        stop.set()
        if drainer.is_alive():
            drainer.join()
        pool.shutdown(wait=True, cancel_futures=True)
        messages.close()


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back (not lost) in this thread for the block, so that the processes
    started in it start with SIGINT blocked, until they choose to ignore it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # The resource tracker is started now if not yet, outside the block: starting it
    # unblocks SIGINT in this thread (bpo-33613).
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def ray_for_run(workers: int, address: str | None = None,
                ray_timeout: float = RAY_TIMEOUT) -> ContextManager[Any]:
    """The Ray session a run of `workers` uses (`_run_on_ray`): a local Ray instance of
    `workers - 1` CPUs, since the run's own process is the other worker, as in the pool;
    or the cluster at `address`. Start it before a run to time the run alone
    (`benchmarks/engines.py`): a run leaves a Ray it did not start as it is."""
    return ray_session(workers - 1, address, ray_timeout)


def _run_on_ray(chunks: list[Chunk], datasets: Mapping[tuple[Any, ...], Dataset],
                write: Callable[[Record], None], workers: int, address: str | None,
                plugins: tuple[str, ...], ray_timeout: float) -> None:
    """`chunks` as Ray tasks and in this process, as in the pool (`_run_in_pool`): this
    process takes the next chunk of the order whenever it is free, and a thread keeps one
    Ray task per CPU of the Ray session running (`give`) and writes each task's records as
    it ends. A Ray worker is a fresh interpreter that imports torch, PyG and the
    explainers before its first chunk (seconds); this process has them and explains from
    the first moment. The chunks' datasets are put once in the object store, when a chunk
    of theirs first goes to Ray."""
    with ray_for_run(workers, address, ray_timeout) as ray:
        task = ray.remote(num_cpus=1, max_retries=0)(explain_chunk)
        capacity = int(ray.cluster_resources().get("CPU", 0))
        lock = threading.Lock()
        order = list(chunks)                 # the chunks not yet given to a process
        running: dict[Any, Chunk] = {}       # Ray's tasks, by their object reference
        shared: dict[tuple[Any, ...], Any] = {}
        failures: list[BaseException] = []

        def halt(record: Record) -> None:    # under the lock
            for ref in _halted(record, order, running):
                ray.cancel(ref)

        def take(record: Record) -> None:
            with lock:
                write(record)
                halt(record)

        def give() -> None:                  # under the lock
            while order and len(running) < capacity and not failures:
                chunk = order.pop(0)
                key = _dataset_key(chunk.job)
                if key not in shared:
                    shared[key] = ray.put(datasets[key])
                running[task.remote(chunk, plugins, [shared[key]])] = chunk

        def fail(error: BaseException) -> None:
            """A worker's failure (not an explainer's: that is a record) fails the run, as
            in the pool: no further chunk is given, the running ones are cancelled."""
            with lock:
                failures.append(error)
                order.clear()
                for ref in running:
                    ray.cancel(ref)
                running.clear()

        def collect(ref: Any) -> None:
            try:
                records = ray.get(ref)
            except ray.exceptions.TaskCancelledError:
                records = []
            for record in records:
                take(record)
            with lock:
                running.pop(ref, None)

        stop = threading.Event()

        def tend() -> None:
            try:
                while not stop.is_set():
                    with lock:
                        give()
                        refs = list(running)
                    if not refs:
                        stop.wait(0.05)
                        continue
                    ready, _ = ray.wait(refs, num_returns=1, timeout=0.2)
                    for ref in ready:
                        collect(ref)
            except BaseException as error:   # a task's failure, or Ray's own
                fail(error)

        def claim() -> Chunk | None:
            with lock:
                return order.pop(0) if order and not failures else None

        with lock:
            give()   # Ray's first chunks, the longest, before this process takes one
        tender = threading.Thread(target=tend, name="gracr-ray", daemon=True)
        tender.start()
        try:
            _init_worker(None, plugins, datasets=datasets)
            while (chunk := claim()) is not None:
                run_job(chunk.job, chunk.done, send=take)
            while True:   # Ray's tasks, running and still to give
                with lock:
                    if not running and (failures or not order):
                        break
                time.sleep(0.05)
        finally:
            stop.set()
            tender.join()
            for ref in list(running):   # left running only when this process failed
                ray.cancel(ref)
        if failures:
            error = failures[0]
            cause = getattr(error, "cause", None)
            if isinstance(cause, GracrError):
                raise GracrError(str(cause)) from None
            raise error


def _batches(explainer: str) -> bool:
    """Whether the explainer has a batch path (`ExplainerSpec.batch`)."""
    from gracr.explainers import explainer_named

    return explainer_named(explainer).batch is not None


def _needs_training(explainer: str) -> bool:
    from gracr.explainers import explainer_named

    return explainer_named(explainer).train is not None


def plan_jobs(tasks: list[str], variants: list[str], explainers: list[str], seeds: list[int],
              limit: int, budget: float, dataset_size: Mapping[str, int | None],
              datasets: str | None = None, settings: str = "tuned",
              overrides: Mapping[str, Mapping[str, Any]] | None = None,
              start: int = 0, tuned: Sequence[str] = (), level: Level = "edge",
              negatives: int = 0, batch: int = 1) -> list[Job]:
    """Every (task, variant, explainer, seed) job, with each explainer's settings for
    the task: its defaults, then its tuned settings (`settings="tuned"`, at `level`; read
    from the `tuned` folders first), then `overrides[explainer]`. Variants that do not
    apply to a task are skipped. Each job explains positive instances `start` to
    `limit - 1`, scored at `level`; an explainer that gives no scores at `level` is an
    error here, before anything runs. With `negatives`, each job of a graph task has a
    twin that explains the first `negatives` negative graphs for WOMBAT's IQR test (node
    tasks store no negative instances: an error). `batch`: up to that many instances of
    a chunk explained in one run where the explainer can (`Job.batch`)."""
    from gracr.explainers import check_level, explainer_named, settings_for, settings_hash
    from gracr.bench.tuning import tuned_settings

    if limit <= 0:
        raise GracrError(f"--limit must be positive, got {limit}")
    if not 0 <= start < limit:
        raise GracrError(f"--start must be at least 0 and below --limit ({limit}), got {start}")
    if budget <= 0:
        raise GracrError(f"--budget must be positive, got {budget}")
    if negatives < 0:
        raise GracrError(f"--negatives must be 0 or more, got {negatives}")
    if batch < 1:
        raise GracrError(f"--batch must be at least 1, got {batch}")
    jobs = []
    files = task_files(tasks)
    for task in tasks:
        task_named(task)
        for variant_name in variants:
            variant = variant_named(variant_name)
            # A variant that does not apply to the task is left out, as the `or` formula
            # of a task with one formula, or a readout its sentence cannot use.
            if variant.formula >= len(task_named(task).formula_files) or \
                    readout_refusal(task_named(task).program(),
                                    variant.readout) is not None:  # type: ignore[arg-type]
                continue
            for name in explainers:
                spec = explainer_named(name)
                check_level(spec, level)
                chosen: dict[str, Any] = {}
                if settings == "tuned":
                    chosen.update(tuned_settings(name, task, tuned, level))
                chosen.update((overrides or {}).get(name, {}))
                merged = settings_for(spec, chosen)
                for seed in seeds:
                    job = Job(task, variant_name, name, merged, settings_hash(merged), seed,
                              limit, budget, dataset_size.get(task), datasets, start,
                              files.get(task), level, batch=batch)
                    jobs.append(job)
                    if negatives:
                        jobs.append(replace(job, limit=negatives, start=0,
                                            sample="negative"))
        if negatives and task_named(task).kind is Kind.NODE:
            raise GracrError(f"--negatives: {task} is a node task, whose datasets store "
                             f"positive targets only; negative instances are explained for "
                             f"graph classifiers (WOMBAT's IQR test)")
    return jobs
