"""The one record type of GracrBench: one explained instance, as a line of a results file.

The runner writes `Record`s; the report, the tuner, the figure ablations and the
fuzzer read them. A results file written by this version starts with a header line,
`{"gracr-results": RECORD_VERSION}`. A file without one is read as version 1, the
layout of the records no header announces, so results files that carry none stay
readable.

`extra` carries the fields a study adds to the standard ones (the figure ablations'
L1 strength or recolouring step, their mean scores); they are written beside the
standard fields and read back into `extra`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from gracr.bench.budget import Outcome, Status
from gracr.bench.tables import read_json_lines
from gracr.data.fields import Fields
from gracr.errors import GracrError

RECORD_VERSION = 1
HEADER_KEY = "gracr-results"
RESULTS_FILE = "results.jsonl"
STATUSES: tuple[Status, ...] = ("ok", "oot", "error")
# The plausibility scores of an instance (§5), each in [0, 1]; an 'ok' record has all three.
SCORES: tuple[str, ...] = ("precision", "recall", "f1")

# The standard fields, in the order they are written.
FIELDS = ("task", "variant", "explainer", "config", "config_hash", "seed", "instance", "graph",
          "target", "status", "error", *SCORES, "threshold", "upi_edges", "edges", "cpu_seconds",
          "wall_seconds", "gracr_version")


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

    @property
    def key(self) -> tuple[str, str, str, str, int, int]:
        """Two records with the same key explain the same instance: the later one wins."""
        return (self.task, self.variant, self.explainer, self.config_hash, self.seed,
                self.instance)

    @classmethod
    def of(cls, outcome: Outcome, *, task: str, variant: str, explainer: str,
           config: Mapping[str, Any], config_hash: str, seed: int, instance: int, graph: int,
           target: int | None, upi_edges: int, edges: int,
           extra: Mapping[str, Any] | None = None) -> Record:
        """The record of one `Outcome` of the per-instance loop."""
        from gracr.version import __version__

        return cls(task, variant, explainer, dict(config), config_hash, seed, instance, graph,
                   target, outcome.status, outcome.error, outcome.precision, outcome.recall,
                   outcome.f1, outcome.threshold, upi_edges, edges, outcome.cpu_seconds,
                   outcome.wall_seconds, __version__, dict(extra or {}))

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
        scores = {name: fields.optional_number(name, 1.0) for name in SCORES}
        if status == "ok":
            for name, value in scores.items():
                if value is None:
                    raise GracrError(f"{place}: field '{name}' is null in an 'ok' record")
        config = fields.raw("config")
        if not isinstance(config, dict):
            raise fields.bad("config", "a JSON object")
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
            extra={k: v for k, v in obj.items() if k not in FIELDS}, place=place)


def header() -> dict[str, int]:
    """The first line of a results file written by this version."""
    return {HEADER_KEY: RECORD_VERSION}


def start_results(path: str | os.PathLike[str]) -> None:
    """Create `path` with its header line unless it exists (an existing file is appended to
    as it is, with or without a header)."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(header(), separators=(",", ":")) + "\n")


def record_objects(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The record objects of a results file with their places, the header line skipped and
    its version checked."""
    for number, obj in read_json_lines(path):
        place = f"{os.fspath(path)}:{number}"
        if HEADER_KEY in obj:
            if obj[HEADER_KEY] != RECORD_VERSION:
                raise GracrError(f"{place}: results version {obj[HEADER_KEY]!r} is not one this "
                                 f"gracr reads ({RECORD_VERSION})")
            continue
        yield place, obj


def read_records(path: str | os.PathLike[str]) -> Iterator[Record]:
    """Every record of a results file, checked."""
    for place, obj in record_objects(path):
        yield Record.from_json(obj, place)


def write_record(handle: Any, record: Record) -> None:
    handle.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
    handle.flush()
