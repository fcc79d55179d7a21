"""The one record type of GracrBench: one explained instance, as a line of a results file.

The runner writes `Record`s; the report, the tuner, the figure ablations and the
fuzzer read them. A results file written by this version starts with a header line,
`{"gracr-results": RECORD_VERSION}`. A file without one is read as version 1, the
layout of the records no header announces, so results files that carry none stay
readable. Version 2 added `level` (what was scored: `"edge"` or `"node"`); a record
without it, as every version-1 record, was scored at edge level. Version 3 added
`sample` (`"positive"`, or `"negative"` for WOMBAT's IQR test; part of the key) and
WOMBAT's metrics `auroc`, `average_precision` (positive instances) and `uniform`
(negative ones); a record without them explained a positive instance, unranked.

A rerun appends a new record for an instance it explains again (an error retried), so
of several records with one key the last one is the instance's result: `latest_records`
is that rule, for every reader.

`extra` carries the fields a study adds to the standard ones (the figure ablations'
L1 strength or recolouring step, their mean scores; the runner's `batched: B` on an
instance explained in a batch of B, whose `cpu_seconds` and `wall_seconds` are then the
batch's shared evenly, `gracr.bench.budget.explain_each`); they are written beside the
standard fields and read back into `extra`.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from gracr.bench.budget import Outcome, Status
from gracr.explainers.metric import LEVELS, SAMPLES, Level, Sample
from gracr.data.fields import Fields
from gracr.data.json_text import JsonError, parse_json
from gracr.errors import GracrError
from gracr.files import output_target

RECORD_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
HEADER_KEY = "gracr-results"
RESULTS_FILE = "results.jsonl"
STATUSES: tuple[Status, ...] = ("ok", "oot", "error")
# The plausibility scores of an instance (§5), each in [0, 1]; an 'ok' record has all three.
SCORES: tuple[str, ...] = ("precision", "recall", "f1")
# WOMBAT's ranking scores of a positive instance (§3.3 of the WOMBAT paper), in [0, 1], or
# null where undefined (every scored element in the ground truth).
RANKS: tuple[str, ...] = ("auroc", "average_precision")

# The standard fields, in the order they are written.
FIELDS = ("task", "variant", "explainer", "config", "config_hash", "seed", "instance", "graph",
          "target", "status", "error", *SCORES, "threshold", "upi_edges", "edges", "cpu_seconds",
          "wall_seconds", "gracr_version", "level", "sample", "auroc", "average_precision",
          "uniform")
RecordKey = tuple[str, str, str, str, str, str, int, int]


@dataclass(frozen=True)
class Record:
    """One explained instance: what was explained, how, and how it scored.

    `place` (`file:line`) is where a read record came from, for messages; it is not
    written.
    """

    task: str
    variant: str
    explainer: str
    config: Mapping[str, Any]
    config_hash: str
    seed: int
    instance: int
    graph: int
    target: int | None
    status: Status
    error: str | None
    precision: float | None
    recall: float | None
    f1: float | None
    threshold: float | None
    upi_edges: int
    edges: int
    cpu_seconds: float
    wall_seconds: float
    gracr_version: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    place: str = field(default="", compare=False)
    level: Level = "edge"
    sample: Sample = "positive"
    auroc: float | None = None
    average_precision: float | None = None
    uniform: bool | None = None
    # A scored record's explainer scores, carried from the worker that made it to the run,
    # which stores them beside the record (`gracr.bench.scores_log`); never in its line.
    kept_scores: tuple[float, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def scored(self) -> bool:
        """Whether the runner scored it; an unscored record (`Job.scored=False`) carries the
        raw `scores` (in `extra`) for a study to score, and no plausibility."""
        return "scores" not in self.extra

    @property
    def key(self) -> RecordKey:
        """Two records with the same key explain the same instance: the later one wins."""
        return (self.task, self.variant, self.explainer, self.config_hash, self.level,
                self.sample, self.seed, self.instance)

    @classmethod
    def of(cls, outcome: Outcome, *, task: str, variant: str, explainer: str,
           config: Mapping[str, Any], config_hash: str, seed: int, instance: int, graph: int,
           target: int | None, upi_edges: int, edges: int,
           extra: Mapping[str, Any] | None = None, level: Level = "edge",
           sample: Sample = "positive", keep_scores: bool = False) -> Record:
        """The record of one `Outcome` of the per-instance loop (with `keep_scores`, carrying
        its scores in `kept_scores`)."""
        from gracr.version import __version__

        return cls(task, variant, explainer, dict(config), config_hash, seed, instance, graph,
                   target, outcome.status, outcome.error, outcome.precision, outcome.recall,
                   outcome.f1, outcome.threshold, upi_edges, edges, outcome.cpu_seconds,
                   outcome.wall_seconds, __version__, dict(extra or {}), level=level,
                   sample=sample, auroc=outcome.auroc,
                   average_precision=outcome.average_precision, uniform=outcome.uniform,
                   kept_scores=None if not keep_scores or outcome.scores is None else
                   tuple(float(v) for v in outcome.scores))

    def to_json(self) -> dict[str, Any]:
        obj = {name: getattr(self, name) for name in FIELDS}
        obj["config"] = dict(self.config)
        obj.update(self.extra)
        return obj

    @classmethod
    def from_json(cls, obj: object, place: str) -> Record:
        """One record, checked field by field; problems name `place`."""
        if not isinstance(obj, dict):
            raise GracrError(f"{place}: not a JSON object")
        fields = Fields(obj, place)
        status = fields.text("status")
        if status not in STATUSES:
            raise fields.bad("status", "one of " + ", ".join(STATUSES))
        sample = obj.get("sample", "positive")
        if sample not in SAMPLES:
            raise fields.bad("sample", "one of " + ", ".join(SAMPLES))
        scores = {name: fields.optional_number(name, 1.0) for name in SCORES}
        ranks = {name: fields.optional_number(name, 1.0) if name in obj else None
                 for name in RANKS}
        uniform = None
        if obj.get("uniform") is not None:
            uniform = fields.boolean("uniform")
        unscored = "scores" in obj   # a study's record: raw scores, scored by the study
        if status == "ok" and sample == "positive" and not unscored:
            for name, value in scores.items():
                if value is None:
                    raise GracrError(f"{place}: field '{name}' is null in an 'ok' record")
        if status == "ok" and sample == "negative" and uniform is None and not unscored:
            raise GracrError(f"{place}: field 'uniform' is null in an 'ok' record of a "
                             f"negative instance")
        config = fields.raw("config")
        if not isinstance(config, dict):
            raise fields.bad("config", "a JSON object")
        level = obj.get("level", "edge")
        if level not in LEVELS:
            raise fields.bad("level", "one of " + ", ".join(LEVELS))
        return cls(
            task=fields.text("task"), variant=fields.text("variant"),
            explainer=fields.text("explainer"), config=config,
            config_hash=fields.text("config_hash"),
            seed=fields.integer("seed"), instance=fields.integer("instance"),
            graph=fields.integer("graph"), target=fields.optional_integer("target"),
            status=status,
            error=fields.optional_text("error"),
            precision=scores["precision"], recall=scores["recall"], f1=scores["f1"],
            threshold=fields.optional_real("threshold"),
            upi_edges=fields.integer("upi_edges"), edges=fields.integer("edges"),
            cpu_seconds=fields.number("cpu_seconds"), wall_seconds=fields.number("wall_seconds"),
            gracr_version=fields.text("gracr_version"),
            extra={k: v for k, v in obj.items() if k not in FIELDS}, place=place, level=level,
            sample=sample, auroc=ranks["auroc"], average_precision=ranks["average_precision"],
            uniform=uniform)


def header() -> dict[str, int]:
    """The first line of a results file written by this version."""
    return {HEADER_KEY: RECORD_VERSION}


# ---------------------------------------------------------------- torn last lines
#
# A run killed while it appends a line, or a disk that fills up under it, can leave the
# file's last line cut off. Every line is written whole by one `write` (`write_record`),
# so only the last line can be cut, and only by the end of the file: a last line without
# its newline that is not a whole JSON object. Readers skip it; a writer moves it to
# `<file>.torn` before appending (`start_results`), so the instance it held is recomputed
# and the file is whole again. Each cut line is reported once on stderr.

TORN_SUFFIX = ".torn"
_reported: set[tuple[str, int]] = set()


@dataclass(frozen=True)
class _Tail:
    """The last line of a file that has no newline at its end."""

    offset: int    # where it starts
    data: bytes

    @property
    def whole(self) -> bool:
        """Whether it is a whole JSON object (only its newline was lost)."""
        try:
            return isinstance(parse_json(self.data.decode("utf-8")), dict)
        except (UnicodeDecodeError, JsonError):
            return False


def _unterminated_tail(path: str | os.PathLike[str]) -> _Tail | None:
    """The last line of `path` if the file does not end with a newline (read from the end)."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        if end == 0:
            return None
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return None
        position, data = end, b""
        while position > 0:
            step = min(64 * 1024, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + data
            newline = data.rfind(b"\n")
            if newline >= 0:
                return _Tail(position + newline + 1, data[newline + 1:])
        return _Tail(0, data)


def _torn_tail(path: str | os.PathLike[str]) -> _Tail | None:
    tail = _unterminated_tail(path) if os.path.isfile(path) else None
    return None if tail is None or tail.whole else tail


def _report_torn(path: str | os.PathLike[str], tail: _Tail, what: str) -> None:
    key = (os.path.realpath(path), tail.offset)
    if key in _reported:
        return
    _reported.add(key)
    with open(path, "rb") as handle:
        line = 1 + sum(chunk.count(b"\n") for chunk in
                       iter(lambda: handle.read(min(1 << 20, tail.offset - handle.tell())), b""))
    print(f"gracrc: warning: {os.fspath(path)}:{line}: the last line was cut off (by a killed "
          f"run or a full disk): {what}", file=sys.stderr)


def start_results(path: str | os.PathLike[str]) -> None:
    """Make `path` ready for appending: a cut last line moved to `<path>.torn` (its
    instance is then recomputed), a lost final newline restored, and the header line
    written if the file is new or empty. `GracrError` if `path` (or its `.torn` file) is
    not a regular file: appending to a FIFO would hang, to a device lose the records."""
    output_target(path)
    output_target(os.fspath(path) + TORN_SUFFIX)
    if os.path.isfile(path):
        tail = _unterminated_tail(path)
        if tail is not None and tail.whole:
            with open(path, "ab") as handle:
                handle.write(b"\n")
        elif tail is not None:
            with open(os.fspath(path) + TORN_SUFFIX, "ab") as aside:
                aside.write(tail.data + b"\n")
            os.truncate(path, tail.offset)
            _report_torn(path, tail, f"set aside in {os.fspath(path)}{TORN_SUFFIX}; its "
                                     "instance is recomputed")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(header(), separators=(",", ":")) + "\n")


def record_objects(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The record objects of a results file with their places, the header line skipped and
    its version checked, and a cut last line left out (reported once)."""
    tail = _torn_tail(path)
    for number, obj in _json_lines(path, end=None if tail is None else tail.offset):
        place = f"{os.fspath(path)}:{number}"
        if HEADER_KEY in obj:
            if obj[HEADER_KEY] not in READABLE_VERSIONS:
                raise GracrError(f"{place}: results version {obj[HEADER_KEY]!r} is not one this "
                                 f"gracr reads ({', '.join(map(str, READABLE_VERSIONS))})")
            continue
        yield place, obj
    if tail is not None:
        _report_torn(path, tail, "it is left out (a run resuming here sets it aside and "
                                 "recomputes its instance)")


def read_records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Every record of a results file, checked."""
    for place, obj in record_objects(path):
        yield Record.from_json(obj, place)


def latest_records(records: Iterable[Record]) -> tuple[list[Record], list[Record]]:
    """Of several records with the same key, the last one; returns the kept records (each
    where its key last occurred) and the earlier ones they replaced."""
    latest: dict[RecordKey, Record] = {}
    replaced: list[Record] = []
    for record in records:
        if record.key in latest:
            replaced.append(latest.pop(record.key))
        latest[record.key] = record
    return list(latest.values()), replaced


def write_record(handle: Any, record: Record) -> None:
    """Append `record` as one line with one `write` to the file under `handle` (opened for
    appending), whatever its buffer holds flushed first: a kill leaves the line whole or
    absent, or at worst cut at the end of the file, where `start_results` finds it."""
    line = (json.dumps(record.to_json(), separators=(",", ":")) + "\n").encode("utf-8")
    handle.flush()
    written = os.write(handle.fileno(), line)
    if written != len(line):
        raise GracrError(f"{handle.name}: only {written} of the {len(line)} bytes of a record "
                         "were written (is the disk full?); a rerun resumes from here")


def append_records(path: str | os.PathLike[str], records: Iterable[Record]) -> None:
    """Append `records` to the results file `path` (made ready by `start_results`: a cut
    last line set aside, the header written if new), then fsync it, so records moved here
    from elsewhere are on disk before their source is changed."""
    start_results(path)
    with open(path, "a", encoding="utf-8") as sink:
        for record in records:
            write_record(sink, record)
        sink.flush()
        os.fsync(sink.fileno())


def _json_lines(path: str | os.PathLike[str], end: int | None = None
                ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a results file, with their line numbers; blank lines are skipped,
    anything else that is not a JSON object is a clear error (unlike
    `gracr.files.read_json_lines`, which reads a log whose last line a crash may have cut).
    With `end`, only the lines before that byte offset are read."""
    try:
        with open(path, "rb") as handle:
            offset = 0
            for number, raw in enumerate(handle, start=1):
                if end is not None and offset >= end:
                    return
                offset += len(raw)
                place = f"{os.fspath(path)}:{number}"
                try:
                    line = raw.decode("utf-8").strip()
                except UnicodeDecodeError:
                    raise GracrError(f"{place}: not UTF-8 text") from None
                if not line:
                    continue
                try:
                    obj = parse_json(line)
                except JsonError as error:
                    raise GracrError(f"{place}: not a JSON line ({error.message}"
                                     + (f" at column {error.column})" if error.line else ")")
                                     ) from None
                if not isinstance(obj, dict):
                    raise GracrError(f"{place}: not a JSON object")
                yield number, obj
    except OSError as error:
        raise GracrError(f"{os.fspath(path)}: cannot read ({error.strerror})") from None
