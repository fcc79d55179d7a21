"""Seed summaries (`seeds.csv`, what `gracrc report` writes and reads back): valid files
of a few seeds of a few cells, then edited — counts and numbers of thousands of digits,
fields of 200 000 characters (over the CSV module's limit), NaN, negative and infinite
values, fields missing or added, the header changed, quotes left open, NUL bytes, a
byte-order mark, rows doubled, the text cut.

An input runs as parsed (`load_inputs` reads it as `gracrc report` does) -> evaluated (`gracrc report` on it,
in this process, writes its report, whose own `seeds.csv` holds the same summaries). A
file no edit touched must get through.
"""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from gracr.bench.report.inputs import (SEEDS_CSV_COLUMNS, load_inputs, read_seeds_csv,
                                       seeds_csv_rows)
from gracr.errors import GracrError
from gracr.fuzz.inputs.commands import run_command
from gracr.fuzz.inputs.kinds import CliRun, Finding, InputKind, Payload, Reached

FILENAME = "seeds.csv"
REPORT = "report"
CELLS = (("RedBlueLeaf", "main", "Saliency", "920a3853"),
         ("RedBlueLeaf", "main", "Rnd", "bf21a9e8"), ("Redundancy", "flat", "IG", "b33c755f"))
SCORE = st.floats(0.0, 1.0, allow_nan=False)
TIME = st.floats(0.0, 1e4, allow_nan=False)
HOSTILE = ("9" * 5000, "9" * 5000, "x" * 200_000, "1" + "0" * 30, "-1", "nan", "inf", "-inf", "1e308", "1e-320", "",
           " 1", "0x10", "1_0", "²", "x" * 200_000, "é\u202e", "1.5", "True", "\x00")


@st.composite
def rows(draw: st.DrawFn) -> list[list[str]]:
    """Each cell's seeds 0.. with their summaries (finished instances with their scores)."""
    lines = []
    for cell in draw(st.lists(st.sampled_from(CELLS), min_size=1, max_size=3, unique=True)):
        for seed in range(draw(st.integers(1, 3))):
            ok = draw(st.integers(0, 100))
            scores = [repr(draw(SCORE)) if ok else "" for _ in range(3)]
            lines.append([*cell, str(seed), str(ok), str(draw(st.integers(0, 1))),
                          str(draw(st.integers(0, 5))), *scores,
                          *(repr(draw(TIME)) for _ in range(4)), "0.1.0",
                          draw(st.sampled_from(["", "ValueError: x", "a, \"quoted\" error"]))])
    return lines


def seeds_csv_text(lines: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([list(SEEDS_CSV_COLUMNS), *lines])
    return buffer.getvalue()


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    lines = draw(rows())
    edits: list[str] = []
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        how = draw(st.sampled_from(["field", "field", "drop", "add", "header", "double"]))
        edits.append(how)
        line = lines[draw(st.integers(0, len(lines) - 1))]
        match how:
            case "field":       # a count (seed, ok, out_of_time, errors) half the time
                column = draw(st.one_of(st.integers(4, 7), st.integers(0, len(line) - 1)))
                line[min(column, len(line) - 1)] = draw(st.sampled_from(HOSTILE))
            case "drop":
                line.pop(draw(st.integers(0, len(line) - 1)))
            case "add":
                line.append(draw(st.sampled_from(HOSTILE)))
            case "double":
                lines.append(list(line))
            case _:
                lines.insert(0, [c.upper() for c in SEEDS_CSV_COLUMNS])
    text = seeds_csv_text(lines)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1]))):
        how = draw(st.sampled_from(["cut", "quote", "bom", "nul"]))
        edits.append(how)
        at = draw(st.integers(0, len(text)))
        text = {"cut": text[:at], "quote": text[:at] + '"' + text[at:], "bom": "\ufeff" + text,
                "nul": text[:at] + "\x00" + text[at:]}[how]
    return {"text": text, "edits": edits}


def run(payload: Payload, reached: Reached) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / FILENAME
        path.write_text(payload["text"], encoding="utf-8")
        try:
            summaries = load_inputs([str(path)]).seeds
            reached.passed("parsed")
            run_command(["report", str(path), "--out", str(Path(scratch) / REPORT),
                         "--no-instance-figures"])
        except GracrError as error:
            if not payload["edits"]:
                raise Finding("a valid seeds.csv was refused", str(error)) from None
            raise
        again = read_seeds_csv(str(Path(scratch) / REPORT / FILENAME))
    if seeds_csv_rows(again) != seeds_csv_rows(summaries):
        raise Finding("the report's seeds.csv holds other summaries than its input",
                      seeds_csv_text(seeds_csv_rows(again))[:1000])
    reached.passed("evaluated")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc report` on the file: exit 2 exactly when the API refused it."""
    (folder / FILENAME).write_text(payload["text"], encoding="utf-8")
    return CliRun(["report", FILENAME, "--out", REPORT, "--no-instance-figures"],
                  must_fail=reached.refused is not None)


def describe(payload: Payload) -> str:
    return f"{'+'.join(payload['edits']) or 'valid'}, {len(payload['text'])} characters"


KIND = InputKind("seeds-csv", ("parsed", "evaluated"), payloads, run, cli, share=1.0,
                 describe=describe)
