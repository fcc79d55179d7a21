"""What the input fuzzer throws, kind by kind: the `InputKind` interface and its registry.

A kind draws its inputs with Hypothesis, runs one through the Python API stage by stage
(in a worker process, under the fuzzer's time limit), and lays it out as files for a
run of `gracrc`. Running an input ends in one of three ways:

- it gets through every stage, each result consistent with the others (`Reached` with
  every stage);
- the input is refused with a `GracrError` (bad input: `gracrc` would exit 2), and
  `Reached` says how far it got first;
- anything else is a `Finding`: another exception, results that disagree, an input
  that a kind's own generator made valid but gracr refused.

A new kind (a task file, say) is an `InputKind` passed to `register_kind`; the driver,
the report and `benchmarks/fuzz_inputs.py` pick it up by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from hypothesis import strategies as st

# One input, as the strategy drew it and the worker runs it: JSON-like values and bytes,
# so that it pickles to a worker and saves with a finding.
Payload = Mapping[str, Any]

# The columns of the fuzzer's table: how far an input got, in pipeline order. A kind
# names the ones it has (a graph file is never compiled).
STAGES = ("parsed", "checked", "compiled", "evaluated")

# The byte budget every fuzzed compile and evaluation runs under: small enough that a
# refused input is refused at once and an accepted one runs in milliseconds.
FUZZ_BUDGET = 64 * 2**20


class Finding(Exception):
    """What the fuzzer reports: `problem` in a few words, `detail` at length."""

    def __init__(self, problem: str, detail: str = "") -> None:
        super().__init__(problem)
        self.problem = problem
        self.detail = detail


@dataclass
class Reached:
    """The stages an input got through (a prefix of its kind's stages), and whether it
    was refused as bad input after them (`refused`: the message)."""

    stages: list[str] = field(default_factory=list)
    refused: str | None = None

    def passed(self, stage: str) -> None:
        self.stages.append(stage)


@dataclass(frozen=True)
class CliRun:
    """A run of `gracrc` on an input laid out as files: its arguments, and what the API
    run says it must end in (`None`: either exit status is consistent)."""

    argv: list[str]
    must_fail: bool | None
    check_output: Callable[[str], None] | None = None


@dataclass(frozen=True)
class InputKind:
    """One kind of input.

    `strategy()` draws payloads; `run(payload, reached)` runs one through the API,
    recording each stage passed in `reached`, raising `GracrError` when the input is
    refused and `Finding` when something is wrong; `cli(payload, folder, reached)` writes
    the input's files into `folder` and says how to run `gracrc` on them, and what it must
    end in given how far the API run got (`reached`). `stages` are
    the columns of `STAGES` this kind reaches; `share` its weight among the kinds;
    `warm_up` modules a worker imports before its first input (heavy ones the kind's
    runs import, whose import time is not the input's); `cli_seconds` what its `gracrc`
    run may take beyond the time limit (a command that imports torch before it reads
    its options).
    """

    name: str
    stages: tuple[str, ...]
    strategy: Callable[[], st.SearchStrategy[Payload]]
    run: Callable[[Payload, Reached], None]
    cli: Callable[[Payload, Path, Reached], CliRun]
    share: float = 1.0
    describe: Callable[[Payload], str] = field(default=lambda payload: "")
    warm_up: tuple[str, ...] = ()
    cli_seconds: float = 0.0


KINDS: dict[str, InputKind] = {}


def register_kind(kind: InputKind) -> InputKind:
    """Add `kind` to the fuzzer (replacing one of the same name)."""
    unknown = set(kind.stages) - set(STAGES)
    if unknown:
        raise ValueError(f"unknown stages {sorted(unknown)}: a kind reaches some of {STAGES}")
    KINDS[kind.name] = kind
    return kind
