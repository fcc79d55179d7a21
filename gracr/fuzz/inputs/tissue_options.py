"""`gracrc tissue` options: small settings (2 to 6 samples of 5 to 80 cells — below 40 refused —, each
graph radius, any seed), then hostile values — negative, zero, one, huge, NaN, infinite,
not numbers at all — for `--seed`, `--cells`, `--samples` and `--ratio`.

An input runs as parsed (argparse reads the options) -> evaluated (`gracrc tissue` runs in this
process and writes its dataset: one graph a sample, a `.gml` rule that parses). A NaN,
an infinity or a negative number must be refused (exit 2); any other value may be refused or
accepted, never crash; `gracrc` in a subprocess must write the very same graphs.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

from gracr.dsl.parse import parse
from gracr.fuzz.inputs.commands import run_command
from gracr.fuzz.inputs.kinds import CliRun, Finding, InputKind, Payload, Reached

OUT = "tissue"
OPTIONS = ("samples", "cells", "ratio", "seed")
VALID = {"samples": st.integers(2, 6).map(str),
         "cells": st.sampled_from([5, 10, 20, 30, 50, 80]).map(str), "ratio": st.sampled_from(["1", "1.5", "2", "3"]), "seed": st.integers(0, 2**32).map(str)}
# "1_00" is Python's 100: a valid count written oddly. It stays small because a valid count
# is run, and two large ones together (1 000 samples of 1 000 cells) are a real minutes-long
# job, which the hang limit would report.
HOSTILE = ("-1", "-1", "-1", "0", "1", "1", "2", "20", "nan", "NaN", "inf", "-inf", "", "1e-300", "0.5", "1e308",
           "99999999999999999999", str(2**64), str(2**128), "1_00", " 3", "abc", "-0")
# Values any option must refuse: not finite, or below zero.
MUST_REFUSE = ("nan", "NaN", "inf", "-inf", "abc", "")


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    values = {name: draw(strategy) for name, strategy in VALID.items()}
    hostile = draw(st.integers(0, 2)) > 0
    if hostile:
        for name in draw(st.lists(st.sampled_from(OPTIONS), min_size=1, max_size=2,
                                  unique=True)):
            values[name] = draw(st.sampled_from(HOSTILE))
    return {"values": values, "hostile": hostile}


def argv(payload: Payload, out: str) -> list[str]:
    line = ["tissue", "--out", out]
    for name in OPTIONS:
        line += [f"--{name}={payload['values'][name]}"]
    return line


def must_refuse(payload: Payload) -> bool:
    """Whether a value is one no option can take: not a number, not finite, negative."""
    for value in payload["values"].values():
        if value in MUST_REFUSE:
            return True
        try:
            number = float(value)
        except ValueError:
            continue
        if not math.isfinite(number) or number < 0:
            return True
    return False


def run(payload: Payload, reached: Reached) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / OUT
        # Even a small valid draw may be refused: a few samples of a few cells may have
        # no θ between their ratios.
        run_command(argv(payload, str(out)), reached)
        if must_refuse(payload):
            raise Finding("gracrc tissue accepted a value it must refuse",
                          str(payload["values"]))
        _check_written(out, int(payload["values"]["samples"]))
    reached.passed("evaluated")


def _check_written(out: Path, samples: int) -> None:
    graphs = (out / "graphs.jsonl").read_text(encoding="utf-8").splitlines()
    if len(graphs) != samples:
        raise Finding("gracrc tissue wrote another number of samples",
                      f"{len(graphs)} graphs for --samples {samples}")
    parse((out / "tissue.gml").read_text(encoding="utf-8"), filename="tissue.gml")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc tissue` with the options: exit 2 exactly when the API refused them; the
    graphs it writes the API's."""
    accepted = "evaluated" in reached.stages
    check: Callable[[str], None] | None = None
    if accepted:
        api = folder / "api"
        run_command(argv(payload, str(api)))

        def check(out: str) -> None:
            written = (folder / OUT / "graphs.jsonl").read_bytes()
            if written != (api / "graphs.jsonl").read_bytes():
                raise Finding("gracrc tissue wrote other graphs than the API",
                              str(payload["values"]))

    return CliRun(argv(payload, OUT), must_fail=reached.refused is not None,
                  check_output=check)


def describe(payload: Payload) -> str:
    return " ".join(f"--{name}={value!r}" for name, value in payload["values"].items())


KIND = InputKind("tissue-options", ("parsed", "evaluated"), payloads, run, cli, share=1.0,
                 describe=describe)
