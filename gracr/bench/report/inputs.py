"""What `gracrc report` reads: result folders and seed summaries (`seeds.csv`).

A result folder holds the runner's `results.jsonl`, read as `Record`s by
`gracr.bench.record.read_records` (the record format is defined there and only there); of
several records of one instance the last one is kept (`gracr.bench.record.latest_records`).

The report needs only one summary per seed (`gracr.bench.report.aggregation`), so
`gracrc report` also writes them as `seeds.csv`, a few KB that can be committed, and reads such
a file back as an input beside result folders: a long run split over sessions (or machines) is
reported whole from its parts' summaries even after the raw records are gone. A seed may come
from one input only (an error otherwise).

Every function here is pure except those that read inputs (`load_*`, `read_*`, `results_file`).
"""

from __future__ import annotations

import csv
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gracr.bench.record import RESULTS_FILE, SCORES, Record, latest_records, read_records
from gracr.bench.report.aggregation import SeedKey, SeedSummary, cell_rank, summarise_seeds
from gracr.errors import GracrError, quoted
from gracr.stats import Moments

SEEDS_FILE = "seeds.csv"
SEEDS_CSV_COLUMNS: tuple[str, ...] = (
    "task", "variant", "explainer", "config_hash", "seed", "ok", "out_of_time", "errors",
    *SCORES, "cpu_mean", "cpu_m2", "wall_mean", "wall_m2", "gracr_versions", "first_error")


@dataclass(frozen=True)
class LoadedResults:
    """The records of several output folders, duplicates resolved (the last one kept);
    `duplicates` does not count retried error records."""

    records: tuple[Record, ...]
    duplicates: int
    files: tuple[str, ...]


def results_file(folder: str) -> str:
    """`FOLDER/results.jsonl` (a path to a `.jsonl` file is taken as it is)."""
    if os.path.isfile(folder):
        return folder
    if not os.path.isdir(folder):
        raise GracrError(f"{folder}: no such folder")
    path = os.path.join(folder, RESULTS_FILE)
    if not os.path.isfile(path):
        raise GracrError(f"{folder}: no {RESULTS_FILE} in this folder (run `gracrc bench` first)")
    return path


def _read_file(path: str) -> list[Record]:
    records = list(read_records(path))
    if not records:
        raise GracrError(f"{path}: no results (the file is empty)")
    return records


def load_results(folders: Sequence[str]) -> LoadedResults:
    """Every record of `FOLDER/results.jsonl` for each folder, in order; of several records with
    the same key (task, variant, explainer, config hash, level, seed, instance) the last one is
    kept."""
    if not folders:
        raise GracrError("name at least one results folder")
    files = tuple(results_file(folder) for folder in folders)
    latest, replaced = latest_records(record for path in files for record in _read_file(path))
    # An error record replaced by a later one is a retry (what a rerun does), not a duplicate.
    duplicates = sum(record.status != "error" for record in replaced)
    return LoadedResults(tuple(latest), duplicates, files)


def read_results(folders: Sequence[str]) -> list[Record]:
    """The records of several output folders merged (see `load_results`)."""
    return list(load_results(folders).records)


@dataclass(frozen=True)
class LoadedInputs:
    """What `gracrc report` reads: result folders (records merged as `load_results` does) and
    seed summaries (`seeds.csv`), as one list of seed summaries."""

    seeds: tuple[SeedSummary, ...]
    records: int             # records read from result folders
    duplicates: int          # duplicate records among them (the last one kept)
    files: tuple[str, ...]
    raw: tuple[Record, ...] = ()   # those records (none when every input is a seeds.csv)


def is_seeds_file(path: str) -> bool:
    return path.endswith(".csv")


def load_inputs(paths: Sequence[str]) -> LoadedInputs:
    """Seed summaries of every input: a `.csv` path is a `seeds.csv`; anything else a result
    folder (or `.jsonl` file). A seed found in two inputs is an error that names both: a summary
    cannot be merged with other records of its seed, and choosing one silently could report a
    run twice."""
    if not paths:
        raise GracrError(f"name at least one results folder or {SEEDS_FILE}")
    folders = [path for path in paths if not is_seeds_file(path)]
    loaded = load_results(folders) if folders else LoadedResults((), 0, ())
    seeds: dict[SeedKey, SeedSummary] = {}
    files = list(loaded.files)
    summaries = summarise_seeds(loaded.records)
    for path in paths:
        if is_seeds_file(path):
            summaries += read_seeds_csv(path)
            files.append(path)
    for summary in summaries:
        earlier = seeds.get(summary.key)
        if earlier is not None:
            task, variant, explainer, config_hash, seed = summary.key
            raise GracrError(
                f"{summary.place}: seed {seed} of {task} / {variant} / {explainer} "
                f"[{config_hash}] is also in {earlier.place}; give each seed once")
        seeds[summary.key] = summary
    return LoadedInputs(tuple(seeds.values()), len(loaded.records), loaded.duplicates,
                        tuple(files), loaded.records)


def seeds_csv_rows(summaries: Iterable[SeedSummary]) -> list[list[str]]:
    """The rows of `seeds.csv`, columns `SEEDS_CSV_COLUMNS`; floats in full (`repr`), so that a
    report from the file equals the report from the records."""
    def real(value: float | None) -> str:
        return "" if value is None else repr(value)

    ordered = sorted(summaries, key=lambda s: (cell_rank(s.key[:4]), s.seed))
    return [[s.task, s.variant, s.explainer, s.config_hash, str(s.seed), str(s.ok),
             str(int(s.out_of_time)), str(s.errors), real(s.precision), real(s.recall),
             real(s.f1), real(s.cpu.mean), real(s.cpu.m2), real(s.wall.mean), real(s.wall.m2),
             ";".join(s.versions), s.first_error or ""] for s in ordered]


def read_seeds_csv(path: str) -> list[SeedSummary]:
    """The seed summaries of a `seeds.csv`, each problem reported as `file:line: message`."""
    rows: list[tuple[int, list[str]]] = []   # each row with the line it starts on
    reader = None
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.reader(handle)
            # A quoted field may hold line breaks: a row starts after the previous one ends.
            ended = 0
            for row in reader:
                rows.append((ended + 1, row))
                ended = reader.line_num
    except OSError as error:
        raise GracrError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise GracrError(f"{path}: not UTF-8 text") from None
    except csv.Error as error:
        # Python's csv reader refuses a field over its size limit (128 KiB by default);
        # nothing `gracrc report` writes comes near it.
        line = reader.line_num if reader is not None else 1
        raise GracrError(f"{path}:{line}: not a seed summary: {error}") from None
    if not rows or tuple(rows[0][1]) != SEEDS_CSV_COLUMNS:
        raise GracrError(f"{path}:1: not a seed summary (`gracrc report` writes {SEEDS_FILE} with "
                         f"the columns {', '.join(SEEDS_CSV_COLUMNS)})")
    summaries = []
    for number, row in rows[1:]:
        place = f"{path}:{number}"
        if len(row) != len(SEEDS_CSV_COLUMNS):
            raise GracrError(f"{place}: {len(row)} fields, expected {len(SEEDS_CSV_COLUMNS)}")
        field = _CsvRow(dict(zip(SEEDS_CSV_COLUMNS, row)), place)
        ok = field.count("ok")
        scores = [field.optional_number(name, 1.0) for name in SCORES]
        if ok and None in scores:
            raise GracrError(f"{place}: a seed with finished instances needs its three scores")
        cpu, wall = (Moments(ok, field.number(f"{clock}_mean"), field.number(f"{clock}_m2"))
                     for clock in ("cpu", "wall"))
        summaries.append(SeedSummary(
            field.text("task"), field.text("variant"), field.text("explainer"),
            field.text("config_hash"), field.count("seed"), ok=ok,
            out_of_time=bool(field.count("out_of_time")), errors=field.count("errors"),
            precision=scores[0], recall=scores[1], f1=scores[2], cpu=cpu, wall=wall,
            versions=tuple(v for v in field.row["gracr_versions"].split(";") if v),
            first_error=field.row["first_error"] or None, place=place))
    return summaries


class _CsvRow:
    """Typed access to one `seeds.csv` row, each problem reported as `file:line: message`
    (the CSV counterpart of the field checks of `Record.from_json`)."""

    def __init__(self, row: Mapping[str, str], place: str) -> None:
        self.row = row
        self.place = place

    def text(self, name: str) -> str:
        if not self.row[name]:
            raise GracrError(f"{self.place}: field '{name}' is empty")
        return self.row[name]

    def count(self, name: str) -> int:
        text = self.row[name]
        # ASCII digits only (`isdigit` takes '²', which `int` refuses), and few enough for
        # `int` to convert (it refuses more than 4300 digits).
        if not re.fullmatch(r"[0-9]{1,20}", text):
            raise GracrError(f"{self.place}: field '{name}' should be a count, got "
                             f"{quoted(text)}")
        return int(text)

    def number(self, name: str, high: float = math.inf) -> float:
        text = self.row[name]
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not 0 <= value <= high:
            raise GracrError(f"{self.place}: field '{name}' should be a number in "
                             f"[0, {high:g}], got {quoted(text)}")
        return value

    def optional_number(self, name: str, high: float = math.inf) -> float | None:
        return None if self.row[name] == "" else self.number(name, high)
