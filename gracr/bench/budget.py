"""The per-instance CPU budget of App. H, and the one per-instance loop that uses it.

`cpu_budget(seconds)` raises `OutOfTime` inside its block once the process has used
`seconds` of CPU time (`signal.ITIMER_PROF` counts this process's own CPU time, so a
busy machine does not make an explainer look slow). It installs its SIGPROF handler
on entry and puts the previous one back on exit: nothing else in gracr touches
signals.

`explain` runs one explainer on one instance under the budget and scores it at the
subject's level (`plausibility_at`: edge scores against the edge UPI, node scores against
the node UPI), turning an out-of-time run and an explainer's crash into results;
`explain_each` runs it over instances in order and stops after the first out-of-time
one (App. H: a seed halts at its first OOT instance). The runner, the tuner, the
figure ablations and the fuzzer all explain through these two.

`explain_each(..., batch=B)` explains up to B consecutive instances in one run of the
explainer when its spec has a batch path (`ExplainerSpec.batch`, `scores_together`): the
same scores, each instance with its own seed, scored and yielded one by one as before. A
batch's CPU time is shared evenly by its instances (`Outcome.batched` says by how many);
the budget is checked per batch, B x the per-instance budget, and a batch over it makes
each of its instances out of time (App. H's rule, applied to the batch: the loop then
stops). A batch that raises is explained again one instance at a time, so that an
explainer's crash is the record of the instance that caused it.
"""

from __future__ import annotations

import signal
import time
import traceback
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import (TYPE_CHECKING, Any, Callable, Generator, Iterable, Iterator, Literal,
                    Mapping, TypeVar)

import numpy as np
import numpy.typing as npt

from gracr.explainers.metric import Ranking, plausibility_at, ranking_at, uniform_attribution
from gracr.errors import GracrError

if TYPE_CHECKING:
    from gracr.explainers.base import ExplainerSpec, Subject

Status = Literal["ok", "oot", "error"]
BoolArray = npt.NDArray[np.bool_]
_T = TypeVar("_T")

# App. H's per-instance budget, in CPU seconds.
DEFAULT_BUDGET = 180.0
# The batch size (`explain_each`) of the runs that batch by default (`gracrc wombat-study`),
# measured by `benchmarks/batched_explanations.py`.
DEFAULT_BATCH = 32


class OutOfTime(BaseException):
    """The CPU budget ran out. A `BaseException`, like `KeyboardInterrupt`, because library
    code swallows `Exception`: PyG's GraphMaskExplainer wraps its gate calls in
    `try: ... except Exception:`, so an `Exception` raised there would be lost and the
    run would go on past its budget."""


def _out_of_time(signum: int, frame: FrameType | None) -> None:
    raise OutOfTime()


@contextmanager
def cpu_budget(seconds: float | None) -> Iterator[None]:
    """Raise `OutOfTime` inside the block once this process has used `seconds` of CPU
    (`None`: no budget)."""
    if seconds is None:
        with nullcontext():
            yield
        return
    previous = signal.signal(signal.SIGPROF, _out_of_time)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@dataclass(frozen=True)
class Outcome:
    """One explained instance: its status, scores and best-F1 point, and its cost."""

    status: Status
    error: str | None
    scores: npt.NDArray[np.float64] | None
    precision: float | None
    recall: float | None
    f1: float | None
    threshold: float | None
    cpu_seconds: float
    wall_seconds: float
    # WOMBAT's metrics (`gracr.explainers.metric`): on a positive instance its AUROC and average
    # precision (None where undefined); on a negative one whether it passes the IQR test.
    auroc: float | None = None
    average_precision: float | None = None
    uniform: bool | None = None
    # How many instances one run of the explainer explained together (`explain_each`'s
    # batch): the CPU and wall seconds are that run's, divided evenly among them.
    batched: int = 1

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _describe(error: BaseException) -> str:
    last = traceback.extract_tb(error.__traceback__)
    where = f" ({Path(last[-1].filename).name}:{last[-1].lineno})" if last else ""
    return f"{type(error).__name__}: {error}{where}"


def explain(explainer: str | ExplainerSpec, subject: Subject, upi_mask: BoolArray | None,
            settings: Mapping[str, Any] | None, seed: int, budget: float | None,
            negative: bool = False, scored: bool = True) -> Outcome:
    """Run `explainer` on `subject` within `budget` CPU seconds and score it against the UPI
    at the subject's level (`upi_mask`: the edge UPI, or at node level the node UPI): the
    best-F1 point, the AUROC and the average precision. A `negative` instance has no
    ground truth to score against; it gets WOMBAT's IQR test instead (`uniform`).

    The compiled model must predict a positive instance positive and a negative one
    negative (it always does on GracrBench instances; anything else is reported as an
    error). An explainer that raises is a result (`status="error"`), not a failure of
    the run. Not `scored` (a study that scores the kept `scores` against ground truth
    of its own, such as the tissue study's), nothing is checked or scored: the outcome
    carries the scores, the status and the cost.
    """
    from gracr.explainers.base import scores as explainer_scores

    def run() -> npt.NDArray[np.float64]:
        _check_prediction(subject, negative, scored)
        with cpu_budget(budget):
            return explainer_scores(explainer, subject, settings, seed=seed).numpy()

    cpu, wall = time.process_time(), time.perf_counter()
    return _scored(subject, upi_mask, negative, scored, run, cpu, wall)


def _check_prediction(subject: Subject, negative: bool, scored: bool) -> None:
    if scored and (subject.prediction >= 0.5) == negative:
        raise GracrError("the compiled model predicts this negative instance positive"
                         if negative else
                         "the compiled model does not predict this positive instance")


def _scored(subject: Subject, upi_mask: BoolArray | None, negative: bool, scored: bool,
            run: Callable[[], npt.NDArray[np.float64]], cpu: float, wall: float,
            batched: int = 1) -> Outcome:
    """The outcome of `run()` (the instance's scores, or a raise) on `subject`, scored as
    `explain` says; its cost counted from `cpu` and `wall`, plus, for an instance of a
    batch of `batched`, its share of the batch's cost already in those starting points."""
    status: Status = "ok"
    error: str | None = None
    scores = None
    point = None
    ranked = Ranking(None, None)
    uniform = None
    try:
        scores = run()
        if not scored:
            pass
        elif negative:
            uniform = uniform_attribution(scores)
        else:
            assert upi_mask is not None, "a scored positive instance needs its UPI"
            point = plausibility_at(subject.level, scores, upi_mask, subject.target)
            ranked = ranking_at(subject.level, scores, upi_mask, subject.target)
    except OutOfTime:
        status = "oot"
    except Exception as raised:  # an explainer crash is a result, not a run failure
        status, error = "error", _describe(raised)
    ok = status == "ok"
    return Outcome(status, error, scores if ok else None,
                   None if point is None else point.precision,
                   None if point is None else point.recall,
                   None if point is None else point.f1,
                   None if point is None else point.threshold,
                   round(time.process_time() - cpu, 4), round(time.perf_counter() - wall, 4),
                   ranked.auroc if ok else None, ranked.average_precision if ok else None,
                   uniform if ok else None, batched)


def explain_each(items: Iterable[_T], explainer: str | ExplainerSpec,
                 settings: Mapping[str, Any] | None,
                 budget: float | None, subject_of: Callable[[_T], Subject],
                 upi_of: Callable[[_T], BoolArray | None], seed_of: Callable[[_T], int],
                 negative: bool = False, scored: bool = True, batch: int = 1
                 ) -> Iterator[tuple[_T, Outcome]]:
    """`explain` over `items` in order, stopping after the first out-of-time one (or
    batch).

    `subject_of(item)`, `upi_of(item)` and `seed_of(item)` give each item's subject, UPI
    mask (at the subject's level) and explainer seed; `negative` says the items are
    negative instances, and `scored` whether they are scored (`explain`). With `batch`
    above 1, up to `batch` consecutive items whose subjects the explainer explains
    together (`batches`) are explained in one run (module docstring).
    """
    from gracr.explainers.base import spec_of
    from gracr.explainers.batch import batches

    if batch < 1:
        raise GracrError(f"the batch size must be at least 1, got {batch}")
    spec = spec_of(explainer)
    pending: list[tuple[_T, Subject]] = []

    def flush() -> Iterator[tuple[_T, Outcome]]:
        group = list(pending)
        pending.clear()
        if len(group) == 1:
            item, subject = group[0]
            yield item, explain(spec, subject, upi_of(item), settings, seed_of(item), budget,
                                negative, scored)
        elif group:
            yield from _explain_together(group, spec, settings, budget, upi_of, seed_of,
                                         negative, scored)

    for item in items:
        subject = subject_of(item)
        together = batch > 1 and batches(spec, subject)
        if not together and pending:
            # This one explains alone: the batch before it first, in order.
            if not (yield from _yielded(flush())):
                return
        pending.append((item, subject))
        if together and len(pending) < batch:
            continue
        if not (yield from _yielded(flush())):
            return
    yield from _yielded(flush())


def _yielded(outcomes: Iterator[tuple[_T, Outcome]]
             ) -> Generator[tuple[_T, Outcome], None, bool]:
    """Yield every outcome of one run (a batch's instances out of time are all recorded
    out of time); returns whether the loop goes on (no instance was out of time)."""
    going = True
    for done in outcomes:
        yield done
        going = going and done[1].status != "oot"
    return going


def _explain_together(group: list[tuple[_T, Subject]], spec: ExplainerSpec,
                      settings: Mapping[str, Any] | None, budget: float | None,
                      upi_of: Callable[[_T], BoolArray | None], seed_of: Callable[[_T], int],
                      negative: bool, scored: bool) -> Iterator[tuple[_T, Outcome]]:
    """The outcomes of `group` (consecutive items with their subjects, one model) from one
    run of the explainer's batch path, in order (module docstring)."""
    from gracr.explainers.batch import predict_together, scores_together

    cpu, wall = time.process_time(), time.perf_counter()
    subjects = [subject for _, subject in group]
    found: dict[int, npt.NDArray[np.float64]] = {}
    out_of_time = False
    try:
        with cpu_budget(None if budget is None else budget * len(group)):
            if scored:
                predict_together(subjects)
            # An instance the model mispredicts is an error of its own (`_check_prediction`).
            wanted = [index for index, subject in enumerate(subjects)
                      if not scored or (subject.prediction >= 0.5) != negative]
            values = scores_together(spec, [subjects[i] for i in wanted], settings,
                                     [seed_of(group[i][0]) for i in wanted])
            found = {i: v.numpy() for i, v in zip(wanted, values)}
    except OutOfTime:
        out_of_time = True
    except Exception:
        # An explainer's crash is the record of the instance that caused it: one by one.
        for item, subject in group:
            outcome = explain(spec, subject, upi_of(item), settings, seed_of(item), budget,
                              negative, scored)
            yield item, outcome
            if outcome.status == "oot":
                return
        return
    share_cpu = (time.process_time() - cpu) / len(group)
    share_wall = (time.perf_counter() - wall) / len(group)
    for index, (item, subject) in enumerate(group):
        def run(index: int = index, subject: Subject = subject) -> npt.NDArray[np.float64]:
            if out_of_time:
                raise OutOfTime()
            _check_prediction(subject, negative, scored)
            return found[index]

        yield item, _scored(subject, upi_of(item), negative, scored, run,
                            time.process_time() - share_cpu,
                            time.perf_counter() - share_wall, len(group))
