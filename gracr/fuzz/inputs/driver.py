"""Driving the input fuzzer: Hypothesis draws inputs, worker processes run them under a
time limit, a sample also runs through `gracrc`, and the tally becomes a table.

The parent draws every input and hands each to a free worker over a pipe. The seed fixes
where Hypothesis starts, but its generation adapts to what it has drawn, so two runs of
one seed can differ in a few inputs; a finding is saved with its input, and `replay`
runs it again exactly. A worker runs it through its kind's API stages
(`InputKind.run`); every `cli_every`-th input of each kind it also lays out as files and runs
`python -m gracr.cli` on them in a subprocess. An input whose worker has not answered
within the time limit is a finding: the worker is killed and replaced, so a hang costs
the limit and no more. A worker that dies (a crash in C, the memory limit) is a finding
too. Workers cap their address space (`WORKER_MEMORY`), so an allocation that escapes
every budget fails there rather than on the machine.

Findings are written to `<out>/findings/` with their input, one JSON file each, and the
slowest input to `<out>/slowest.json`.
"""

from __future__ import annotations

import base64
import importlib
import itertools
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from gracr.errors import GracrError
from gracr.fuzz.inputs.kinds import KINDS, STAGES, Finding, InputKind, Payload, Reached

# A worker's address space: far above what any budgeted input needs.
WORKER_MEMORY = 6 * 2**30
STARTUP_SECONDS = 120


@dataclass(frozen=True)
class FuzzInputsConfig:
    """`count` inputs drawn from `seed` over `kinds` (every registered kind when empty),
    run by `jobs` workers, each within `time_limit` seconds (twice that with its `gracrc`
    run), every `cli_every`-th of each kind also through `gracrc` (0: never)."""

    count: int
    seed: int = 0
    jobs: int = 1
    time_limit: float = 10.0
    cli_every: int = 100
    out: str | None = None
    kinds: tuple[str, ...] = ()
    progress: bool = False


@dataclass
class Tally:
    """One kind's inputs: how many reached each stage, were refused, ran through `gracrc`,
    and were findings."""

    inputs: int = 0
    reached: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    refused: int = 0
    cli_runs: int = 0
    findings: int = 0


@dataclass
class Slowest:
    seconds: float
    index: int
    kind: str
    description: str


@dataclass
class InputsReport:
    """The tally of a run, its findings (`index`, kind, problem) and its slowest input and
    `gracrc` run."""

    config: FuzzInputsConfig
    tallies: dict[str, Tally]
    findings: list[tuple[int, str, str]] = field(default_factory=list)
    slowest: Slowest | None = None
    slowest_cli: Slowest | None = None
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def inputs(self) -> int:
        return sum(tally.inputs for tally in self.tallies.values())


# ---------------------------------------------------------------- the worker


def _cli_problem(kind: InputKind, payload: Payload, reached: Reached,
                 time_limit: float) -> tuple[str, str] | None:
    """Run `gracrc` on the input laid out as files: the finding, if any."""
    package_root = str(Path(__file__).resolve().parents[3])  # the folder holding gracr/
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    with tempfile.TemporaryDirectory() as folder:
        spec = kind.cli(payload, Path(folder), reached)
        command = ["gracrc", *spec.argv]
        try:
            done = subprocess.run([sys.executable, "-m", "gracr.cli", *spec.argv], cwd=folder,
                                  capture_output=True, timeout=time_limit, env=env)
        except subprocess.TimeoutExpired:
            return "gracrc over the time limit", " ".join(command)
        err = done.stderr.decode("utf-8", "replace")
        said = f"{' '.join(command)}\nexit {done.returncode}\n{err[-3000:]}"
        if done.returncode not in (0, 2):
            return f"gracrc exited {done.returncode}", said
        if "Traceback" in err or "internal error" in err:
            return "gracrc printed a traceback", said
        if done.returncode == 2 and not err.strip():
            return "gracrc exited 2 without a message", said
        if spec.must_fail is True and done.returncode != 2:
            return "gracrc accepted what the API refused", said
        if spec.must_fail is False and done.returncode != 0:
            return "gracrc refused what the API accepted", said
        if done.returncode == 0 and spec.check_output is not None:
            try:
                spec.check_output(done.stdout.decode("utf-8", "replace"))
            except Finding as finding:
                return finding.problem, f"{said}\n{finding.detail}"
    return None


def run_one(kind: InputKind, payload: Payload, with_cli: bool,
            time_limit: float) -> dict[str, Any]:
    """Run one input (in a worker): the stages it reached, its refusal or finding, times."""
    reached = Reached()
    finding: tuple[str, str] | None = None
    start = time.perf_counter()
    try:
        kind.run(payload, reached)
    except GracrError as error:
        reached.refused = str(error)
    except Finding as found:
        finding = (found.problem, found.detail)
    except BaseException as error:  # anything else is what the fuzzer looks for
        finding = (f"{type(error).__name__} (not a GracrError)",
                   "".join(traceback.format_exception(error))[-4000:])
    seconds = time.perf_counter() - start
    cli_seconds = None
    if with_cli and finding is None:
        cli_start = time.perf_counter()
        finding = _cli_problem(kind, payload, reached, time_limit + kind.cli_seconds)
        cli_seconds = time.perf_counter() - cli_start
    return {"stages": reached.stages, "refused": reached.refused, "finding": finding,
            "seconds": seconds, "cli_seconds": cli_seconds}


def _worker(connection: Connection, modules: list[str]) -> None:
    for module in modules:
        importlib.import_module(module)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > WORKER_MEMORY:
        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, hard))
    connection.send("ready")
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        kind_name, payload, with_cli, time_limit = message
        connection.send(run_one(KINDS[kind_name], payload, with_cli, time_limit))


# ---------------------------------------------------------------- the parent


@dataclass
class _Job:
    index: int
    kind: str
    payload: Payload
    with_cli: bool
    deadline: float


class _Worker:
    def __init__(self, modules: list[str]) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child, modules), daemon=True)
        self.process.start()
        child.close()
        # Starting (imports) is not charged to the first input's time limit.
        if not self.connection.poll(STARTUP_SECONDS) or self.connection.recv() != "ready":
            raise RuntimeError(f"a fuzzing worker did not start in {STARTUP_SECONDS} s")
        self.job: _Job | None = None

    def submit(self, job: _Job, time_limit: float) -> None:
        self.job = job
        self.connection.send((job.kind, job.payload, job.with_cli, time_limit))

    def stop(self) -> None:
        if self.process.is_alive():
            try:
                self.connection.send(None)
            except OSError:
                pass
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _jsonable(payload: Payload) -> Any:
    """A payload as JSON: bytes as `{"base64": ...}`."""
    if isinstance(payload, bytes):
        return {"base64": base64.b64encode(payload).decode()}
    if isinstance(payload, dict):
        return {key: _jsonable(value) for key, value in payload.items()}
    if isinstance(payload, (list, tuple)):
        return [_jsonable(value) for value in payload]
    if isinstance(payload, float) and payload != payload:
        return "NaN"
    return payload


def _payload(saved: Any) -> Any:
    """A payload back from its JSON (`_jsonable`)."""
    if isinstance(saved, dict):
        if set(saved) == {"base64"}:
            return base64.b64decode(saved["base64"])
        return {key: _payload(value) for key, value in saved.items()}
    if isinstance(saved, list):
        return [_payload(value) for value in saved]
    return saved


def replay(path: str, time_limit: float = 10.0, with_cli: bool = True) -> dict[str, Any]:
    """Run a saved input (a finding, `slowest.json`) again, in this process: what
    `run_one` says of it now."""
    saved = json.loads(Path(path).read_text())
    return run_one(KINDS[saved["kind"]], _payload(saved["input"]), with_cli, time_limit)


class _Run:
    """The parent's side of a run: the workers, the tally, the findings on disk."""

    def __init__(self, config: FuzzInputsConfig, kinds: dict[str, InputKind]) -> None:
        self.config = config
        self.kinds = kinds
        self.modules = sorted({module for kind in kinds.values()
                               for module in (kind.run.__module__, *kind.warm_up)})
        self.workers = [_Worker(self.modules) for _ in range(max(1, config.jobs))]
        self.report = InputsReport(config, {name: Tally() for name in kinds})
        self.out = Path(config.out) if config.out else None
        self.drawn = 0
        # Counted per kind, so that every kind reaches `gracrc` however the draws mix them.
        self.drawn_of: dict[str, int] = {name: 0 for name in kinds}
        self.bar: Any = None

    def limit(self, job: _Job) -> float:
        if not job.with_cli:
            return self.config.time_limit
        return 2 * self.config.time_limit + self.kinds[job.kind].cli_seconds

    def dispatch(self, kind: str, payload: Payload) -> None:
        every = self.config.cli_every
        with_cli = every > 0 and self.drawn_of[kind] % every == every - 1
        job = _Job(self.drawn, kind, payload, with_cli, 0.0)
        self.drawn += 1
        self.drawn_of[kind] += 1
        worker = self.free_worker()
        job.deadline = time.monotonic() + self.limit(job)
        worker.submit(job, self.config.time_limit)

    def free_worker(self) -> _Worker:
        while True:
            for worker in self.workers:
                if worker.job is None:
                    return worker
            self.collect(block=True)

    def collect(self, block: bool) -> None:
        busy = [w for w in self.workers if w.job is not None]
        if not busy:
            return
        now = time.monotonic()
        timeout = max(0.0, min(w.job.deadline for w in busy if w.job) - now) if block else 0.0
        ready = wait([w.connection for w in busy], timeout=timeout)
        for worker in busy:
            job = worker.job
            assert job is not None
            if worker.connection in ready:
                try:
                    result = worker.connection.recv()
                except (EOFError, OSError):
                    worker.process.join(timeout=5)
                    code = worker.process.exitcode
                    self.replace(worker)
                    self.record(job, {"stages": [], "refused": None, "seconds": self.limit(job),
                                      "cli_seconds": None,
                                      "finding": (f"the worker died (exit {code})", "")})
                    continue
                worker.job = None
                self.record(job, result)
            elif time.monotonic() >= job.deadline:
                self.replace(worker)
                self.record(job, {"stages": [], "refused": None, "seconds": self.limit(job),
                                  "cli_seconds": None,
                                  "finding": ("over the time limit",
                                              f"no answer in {self.limit(job):g} s")})

    def replace(self, worker: _Worker) -> None:
        worker.process.kill()
        worker.process.join()
        self.workers[self.workers.index(worker)] = _Worker(self.modules)

    def record(self, job: _Job, result: dict[str, Any]) -> None:
        tally = self.report.tallies[job.kind]
        tally.inputs += 1
        for stage in result["stages"]:
            tally.reached[stage] += 1
        tally.refused += result["refused"] is not None
        tally.cli_runs += result["cli_seconds"] is not None
        kind = self.kinds[job.kind]
        seconds = result["seconds"]
        if self.report.slowest is None or seconds > self.report.slowest.seconds:
            self.report.slowest = Slowest(seconds, job.index, job.kind, kind.describe(job.payload))
            self.save("slowest.json", job, {"seconds": seconds})
        cli_seconds = result["cli_seconds"]
        if cli_seconds is not None and (self.report.slowest_cli is None
                                        or cli_seconds > self.report.slowest_cli.seconds):
            self.report.slowest_cli = Slowest(cli_seconds, job.index, job.kind,
                                              kind.describe(job.payload))
        if result["finding"] is not None:
            problem, detail = result["finding"]
            tally.findings += 1
            self.report.findings.append((job.index, job.kind, problem))
            self.save(f"findings/{job.index:06d}-{job.kind}.json", job,
                      {"problem": problem, "detail": detail})
            message = f"finding: input {job.index} ({job.kind}): {problem}"
            if self.bar is not None:
                self.bar.write(message, file=sys.stderr)
            else:
                print(message, file=sys.stderr)
        if self.bar is not None:
            self.bar.update()

    def save(self, name: str, job: _Job, extra: dict[str, Any]) -> None:
        if self.out is None:
            return
        path = self.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"index": job.index, "kind": job.kind, **extra,
                                    "input": _jsonable(job.payload)}, indent=1) + "\n")

    def finish(self) -> None:
        while any(w.job is not None for w in self.workers):
            self.collect(block=True)
        for worker in self.workers:
            worker.stop()


def fuzz_inputs(config: FuzzInputsConfig) -> InputsReport:
    """Run the fuzzer (see the module docstring); the report of its `count` inputs."""
    kinds = {name: KINDS[name] for name in (config.kinds or tuple(KINDS))}
    choices = [name for name, kind in kinds.items() for _ in range(max(1, round(2 * kind.share)))]
    strategies = {name: kind.strategy() for name, kind in kinds.items()}
    start, cpu_start = time.monotonic(), _cpu_seconds()
    run = _Run(config, kinds)
    if config.progress:
        from tqdm import tqdm

        run.bar = tqdm(total=config.count, desc="fuzzing", unit="input", dynamic_ncols=True)

    def draw_round(round_: int) -> None:
        @seed(config.seed + round_)
        @settings(max_examples=config.count - run.drawn, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(st.data())
        def draw_and_dispatch(data: st.DataObject) -> None:
            if run.drawn < config.count:
                name = data.draw(st.sampled_from(choices))
                run.dispatch(name, data.draw(strategies[name]))
            run.collect(block=False)

        draw_and_dispatch()

    try:
        # Hypothesis stops early when it has seen every input a small strategy can draw:
        # the next round starts from the next seed.
        for round_ in itertools.count():
            if run.drawn >= config.count:
                break
            draw_round(round_)
        run.finish()
    finally:
        for worker in run.workers:
            if worker.process.is_alive():
                worker.process.kill()
        if run.bar is not None:
            run.bar.close()
    run.report.wall_seconds = time.monotonic() - start
    run.report.cpu_seconds = _cpu_seconds() - cpu_start
    return run.report


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def report_table(report: InputsReport) -> str:
    """The run as Markdown: inputs per stage reached, refusals, `gracrc` runs and findings
    per kind, then the rate and the slowest input."""
    from gracr.bench.report.tables import render_table

    headers = ["kind", "inputs", *STAGES, "refused (exit 2)", "gracrc runs", "findings"]
    rows = []
    total = Tally()
    for name, tally in report.tallies.items():
        stages = KINDS[name].stages
        rows.append([name, str(tally.inputs),
                     *[str(tally.reached[s]) if s in stages else "—" for s in STAGES],
                     str(tally.refused), str(tally.cli_runs), str(tally.findings)])
        total.inputs += tally.inputs
        total.refused += tally.refused
        total.cli_runs += tally.cli_runs
        total.findings += tally.findings
        for stage in STAGES:
            total.reached[stage] += tally.reached[stage]
    rows.append(["all", str(total.inputs), *[str(total.reached[s]) for s in STAGES],
                 str(total.refused), str(total.cli_runs), str(total.findings)])
    lines = [render_table(headers, rows), ""]
    rate = report.inputs / report.wall_seconds if report.wall_seconds else 0.0
    lines.append(f"{report.inputs} inputs in {report.wall_seconds:.0f} s "
                 f"({rate:.0f} inputs/s, {report.config.jobs} worker(s)); "
                 f"{report.cpu_seconds:.0f} CPU s in all; time limit "
                 f"{report.config.time_limit:g} s per input")
    if report.slowest is not None:
        slowest = report.slowest
        lines.append(f"slowest input: {slowest.seconds:.2f} s, #{slowest.index} "
                     f"({slowest.kind}: {slowest.description})")
    if report.slowest_cli is not None:
        slowest = report.slowest_cli
        lines.append(f"slowest gracrc run: {slowest.seconds:.2f} s, #{slowest.index} "
                     f"({slowest.kind})")
    lines.append(f"findings: {len(report.findings)}")
    lines += [f"- #{index} {kind}: {problem}" for index, kind, problem in report.findings[:20]]
    return "\n".join(lines)
