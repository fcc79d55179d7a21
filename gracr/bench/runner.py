"""The GracrBench runner: explainers × tasks × compile variants × seeds (§5, App. H).

A job is one (task, variant, explainer, settings, seed). It explains the first
`limit` positive instances of the seed's dataset in dataset order (graph tasks:
the positive graphs; node tasks: each positive target of each graph in turn) and
scores each against its stored UPI with `plausibility`.

Jobs run in a process pool, one torch thread per worker. Every instance goes through
the per-instance loop of `gracr.bench.budget` (a budget of CPU seconds; App. H's
semantics: an instance over budget is recorded `oot` and the rest of that job is
skipped).

Results are appended to `<out>/results.jsonl` (`gracr.bench.record`), one line per
instance, keyed by
(task, variant, explainer, settings hash, seed, instance); a rerun skips every
key already there, so an interrupted run resumes. Only the parent writes the file.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any, Iterator, Mapping, Sequence

from tqdm import tqdm

from gracr.bench.datasets import load_or_build
from gracr.bench.tasks import task_files, task_named
from gracr.bench.budget import explain_each
from gracr.bench.options import missing_folders, remove_empty
from gracr.bench.record import RESULTS_FILE, Record, record_objects, start_results, write_record
from gracr.bench.instances import (PositiveInstance, compile_variant, positive_instances,
                                   subject_for, variant_named)
from gracr.errors import GracrError

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

    def wanted(self, positives: int) -> range:
        """The instance indices this job explains, of a dataset with `positives`."""
        return range(self.start, min(self.limit, positives))


_progress: Any = None


def _init_worker(progress: Any) -> None:
    import torch

    global _progress
    _progress = progress
    torch.set_num_threads(1)


def run_job(job: Job, done: frozenset[int], send: Any = None) -> int:
    """Explain the job's instances not in `done`; send each `Record` to `send` (the
    pool's queue by default). Returns how many records were sent."""
    from gracr.bench.explainers import explainer_seed

    emit = send if send is not None else _progress.put
    if job.task_file is not None:
        task_named(job.task_file)
    dataset = load_or_build(job.task, job.seed, job.dataset_size, job.datasets, progress=False)
    model = compile_variant(job.task, variant_named(job.variant), dataset)
    program = task_named(job.task).program()
    modules: dict[str, Any] = {}
    todo = (instance for instance in positive_instances(dataset)
            if instance.index >= job.start and instance.index not in done)
    sent = 0
    for instance, outcome in explain_each(
            _until(todo, job.limit), job.explainer, job.settings, job.budget,
            subject_of=lambda i: subject_for(dataset, program, model, i, modules),
            upi_of=lambda i: i.upi, seed_of=lambda i: explainer_seed(job.seed, i.index)):
        graph = dataset.instances[instance.graph].graph
        emit(Record.of(outcome, task=job.task, variant=job.variant, explainer=job.explainer,
                       config=job.settings, config_hash=job.settings_hash, seed=job.seed,
                       instance=instance.index, graph=instance.graph, target=instance.target,
                       upi_edges=int(instance.upi.sum()), edges=graph.num_edges))
        sent += 1
    return sent


def _until(instances: Iterator[PositiveInstance], limit: int) -> Iterator[PositiveInstance]:
    """The instances before index `limit` (positive instances come in index order)."""
    for instance in instances:
        if instance.index >= limit:
            return
        yield instance


# ---------------------------------------------------------------- the parent


def job_key(job: Job) -> tuple[Any, ...]:
    return (job.task, job.variant, job.explainer, job.settings_hash, job.seed)


def _record_key(record: Mapping[str, Any]) -> tuple[Any, ...]:
    return (record["task"], record["variant"], record["explainer"], record["config_hash"],
            record["seed"])


def read_done(results: Path) -> tuple[dict[tuple[Any, ...], set[int]], set[tuple[Any, ...]]]:
    """Which instances of which jobs already have a record, and which jobs stopped at OOT."""
    done: dict[tuple[Any, ...], set[int]] = {}
    stopped: set[tuple[Any, ...]] = set()
    if not results.exists():
        return done, stopped
    for place, record in record_objects(results):
        try:
            key = _record_key(record)
            instance = int(record["instance"])
        except (KeyError, TypeError, ValueError):
            raise GracrError(f"{place}: not a GracrBench result line") from None
        done.setdefault(key, set()).add(instance)
        if record.get("status") == "oot":
            stopped.add(key)
    return done, stopped


def run(jobs: list[Job], out: str, workers: int = 1, progress: bool = True) -> Path:
    """Run `jobs`, appending to `<out>/results.jsonl`; returns the results path."""
    folder = Path(out)
    results = folder / RESULTS_FILE
    created = missing_folders(folder)
    fresh = not results.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        start_results(results)
    except OSError as error:
        remove_empty(created)
        raise GracrError(f"{folder}: cannot write results there ({error.strerror})") from None
    try:
        _run(jobs, results, workers, progress)
    except BaseException:
        # A run that failed before its first record leaves nothing behind.
        if fresh and not any(True for _ in record_objects(results)):
            results.unlink(missing_ok=True)
            remove_empty(created)
        raise
    return results


def _run(jobs: list[Job], results: Path, workers: int, progress: bool) -> None:
    done, stopped = read_done(results)
    # Build every dataset once, here: workers building the same one would race.
    sizes: dict[tuple[str, int], int] = {}
    for job in jobs:
        key = (job.task, job.seed)
        if key not in sizes:
            dataset = load_or_build(job.task, job.seed, job.dataset_size, job.datasets,
                                    progress=progress)
            sizes[key] = sum(1 for _ in positive_instances(dataset))
    pending: list[tuple[Job, frozenset[int], int]] = []
    for job in jobs:
        wanted = job.wanted(sizes[(job.task, job.seed)])
        finished = frozenset(done.get(job_key(job), set())) & frozenset(wanted)
        if job_key(job) not in stopped and len(finished) < len(wanted):
            pending.append((job, finished, len(wanted) - len(finished)))
    total = sum(left for _, _, left in pending)
    bar = tqdm(total=total, desc="explaining", unit="instance", disable=not progress,
               dynamic_ncols=True)
    with open(results, "a", encoding="utf-8") as sink:
        def write(record: Record) -> None:
            write_record(sink, record)
            bar.update()
            if record.status != "ok":
                bar.write(f"{record.task} {record.variant} {record.explainer} seed "
                          f"{record.seed} instance {record.instance}: {record.status}"
                          + (f" ({record.error})" if record.error else ""))

        if workers <= 1:
            _init_worker(None)
            for job, finished, _ in pending:
                run_job(job, finished, send=write)
        else:
            context = multiprocessing.get_context("spawn")
            queue = context.Manager().Queue()
            with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                     initializer=_init_worker, initargs=(queue,)) as pool:
                futures: list[Future[int]] = [pool.submit(run_job, job, finished)
                                              for job, finished, _ in pending]
                while True:
                    try:
                        write(queue.get(timeout=0.5))
                        continue
                    except Empty:
                        pass
                    if all(future.done() for future in futures):
                        break
                while True:
                    try:
                        write(queue.get_nowait())
                    except Empty:
                        break
                for future in futures:
                    future.result()   # re-raise a worker's failure (not an explainer's)
    bar.close()


def plan_jobs(tasks: list[str], variants: list[str], explainers: list[str], seeds: list[int],
              limit: int, budget: float, dataset_size: Mapping[str, int | None],
              datasets: str | None = None, settings: str = "tuned",
              overrides: Mapping[str, Mapping[str, Any]] | None = None,
              start: int = 0, tuned: Sequence[str] = ()) -> list[Job]:
    """Every (task, variant, explainer, seed) job, with each explainer's settings for
    the task: its defaults, then its tuned settings (`settings="tuned"`; read from the
    `tuned` folders first), then `overrides[explainer]`. Variants that do not apply to a task are skipped. Each job
    explains positive instances `start` to `limit - 1`."""
    from gracr.bench.explainers import explainer_named, settings_for, settings_hash
    from gracr.bench.tuning import tuned_settings

    if limit <= 0:
        raise GracrError(f"--limit must be positive, got {limit}")
    if not 0 <= start < limit:
        raise GracrError(f"--start must be at least 0 and below --limit ({limit}), got {start}")
    if budget <= 0:
        raise GracrError(f"--budget must be positive, got {budget}")
    jobs = []
    files = task_files(tasks)
    for task in tasks:
        task_named(task)
        for variant_name in variants:
            variant = variant_named(variant_name)
            if variant.formula >= len(task_named(task).formula_files):
                continue
            for name in explainers:
                spec = explainer_named(name)
                chosen: dict[str, Any] = {}
                if settings == "tuned":
                    chosen.update(tuned_settings(name, task, tuned))
                chosen.update((overrides or {}).get(name, {}))
                merged = settings_for(spec, chosen)
                for seed in seeds:
                    jobs.append(Job(task, variant_name, name, merged, settings_hash(merged),
                                    seed, limit, budget, dataset_size.get(task), datasets,
                                    start, files.get(task)))
    return jobs
