"""Writing task files: a typed description of one (`TaskFile`) rendered to the TOML text
`Task.from_file` reads (`gracr.bench.tasks`, whose docstring describes the format).

Every task file gracr writes is rendered here: the chem and tissue domains' datasets, the
fuzzer's inputs. Writing refuses, with a `TaskFileError` naming the key, every value the
reader would refuse whatever the other files hold (a name it does not accept, a
probability outside [0, 1], a range whose min is above its max, motifs planted into a
graph file, both `graphs` and `targets` asked of one dataset...), so that no file is
written that cannot be read. What only the other files decide is left to the reader:
whether the formula, graph and motif files exist, whether the colours, attribute values
and relations are the formula's, whether the dataset's size is the one its formula's
kind counts, and whether a generator imports.

The layout is fixed, so that the same description always gives the same bytes (a task
file's bytes key its stored datasets, `Task.key`): `# ` comment lines, then `name`,
`formula`, `description`, then the `[graphs]` table, one `[[plant]]` table per motif and
the `[dataset]` table, each after a blank line, keys in the order the format lists them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gracr.bench.graph_sources import Between, Odds
from gracr.bench.tasks import (DEFAULT_NODES, ODDS_SLACK, TASK_NAME, TaskFileError)
from gracr.data.generators import GRAPH_FAMILIES
from gracr.files import PathLike, write_text
from gracr.limits import MAX_TASK_GRAPH

# TOML's integers are 64-bit signed.
_LARGEST_INTEGER = 2**63 - 1
# A generator reference: a dotted module path, a colon, a function name.
_GENERATOR = re.compile(r"[^\W\d]\w*(\.[^\W\d]\w*)*:[^\W\d]\w*")
# What a TOML comment may not hold: control characters but the tab.
_NOT_IN_COMMENT = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@dataclass(frozen=True)
class FamilyGraphs:
    """`[graphs]` drawn from a random graph family. `None` (or no attributes): the key
    is not written and the reader's default applies (25 nodes; every colour, value and
    relation of the formula equally likely)."""

    family: str
    nodes: Between | None = None
    colors: Odds | None = None
    attributes: tuple[tuple[str, Odds], ...] = ()
    relations: Odds | None = None


@dataclass(frozen=True)
class FileGraphs:
    """`[graphs]` taken as they are from a graph file (relative: beside the task file)."""

    file: str


@dataclass(frozen=True)
class GeneratorGraphs:
    """`[graphs]` from a Python generator, `package.module:function`."""

    generator: str


GraphsTable = FamilyGraphs | FileGraphs | GeneratorGraphs


@dataclass(frozen=True)
class PlantTable:
    """One `[[plant]]` table: a motif file planted `count` times per graph, tied by
    `links` edges. `None`: the reader's default (1 copy, 1 link)."""

    motif: str
    count: Between | None = None
    links: int | None = None


@dataclass(frozen=True)
class DatasetTable:
    """The `[dataset]` table; `None`: the reader's default (1000 graphs at a positive
    fraction of 0.5 for a graph task, 500 targets for a node task)."""

    graphs: int | None = None
    positive_fraction: float | None = None
    targets: int | None = None


@dataclass(frozen=True)
class TaskFile:
    """What a task file says: its name, its formula files (main first; relative paths
    are beside the task file), where its graphs come from, the motifs planted, the
    dataset's size, a description and comment lines heading the file."""

    name: str
    formulas: tuple[str, ...]
    graphs: GraphsTable
    plants: tuple[PlantTable, ...] = ()
    dataset: DatasetTable = DatasetTable()
    description: str | None = None
    comments: tuple[str, ...] = ()


# ---------------------------------------------------------------- TOML text


def toml_string(text: str) -> str:
    """`text` as a TOML basic string."""
    # JSON's escapes are TOML's, but for DEL, which TOML wants escaped.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    """A TOML value (string, number, boolean, array, inline table), written as given:
    no check that a task file may hold it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else "inf" if value == math.inf else \
            "-inf" if value == -math.inf else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict), value
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_key(key: str) -> str:
    """A TOML key: bare when it may be, else quoted."""
    bare = key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key)
    return key if bare else toml_string(key)


def task_toml(task: Mapping[str, Any], comments: Sequence[str] = ()) -> str:
    """`task` (the tables a task file's TOML reads as) as text in the task file layout:
    `graphs` and `dataset` as tables when they are tables, each entry of a `plant` list
    of tables as a `[[plant]]`, everything else inline. Unchecked: the fuzzer writes
    wrong task files with it on purpose; `task_file_text` writes right ones."""
    tables = {key: value for key, value in task.items()
              if (key in ("graphs", "dataset") and isinstance(value, dict))
              or (key == "plant" and isinstance(value, list) and value
                  and all(isinstance(entry, dict) for entry in value))}
    lines = [f"# {line}" if line else "#" for line in comments]
    lines += [f"{toml_key(key)} = {toml_value(value)}" for key, value in task.items()
              if key not in tables]
    for key, value in tables.items():
        for entry in value if isinstance(value, list) else [value]:
            lines.append(f"\n[[{key}]]" if key == "plant" else f"\n[{key}]")
            lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- checked task files


def task_file_text(task: TaskFile, where: str | None = None) -> str:
    """The text of `task`'s file; `TaskFileError` naming `where` (default: the task) and
    the key for a value the reader would refuse."""
    return task_toml(_checked_tables(task, where or f"task {task.name!r}"), task.comments)


def write_task_file(path: PathLike, task: TaskFile) -> Path:
    """Write `task`'s file at `path`, whole or not at all (`gracr.files`); returns it."""
    write_text(path, task_file_text(task, str(path)))
    return Path(path)


class _Check:
    """The checks of one description; every refusal names `where` and the key."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, key: str, message: str) -> TaskFileError:
        return TaskFileError(f"{self.where}: {key}: {message}")

    def text(self, key: str, value: object) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {value!r}")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail(key, f"{value!r} is not Unicode text (a lone surrogate)") from None
        return value

    def file(self, key: str, value: object) -> str:
        name = self.text(key, value)
        if not name or "\x00" in name:
            raise self.fail(key, f"must be a file name, got {name!r}")
        return name

    def integer(self, key: str, value: object, low: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool) \
                or not low <= value <= _LARGEST_INTEGER:
            raise self.fail(key, f"must be an integer from {low} to {_LARGEST_INTEGER}, "
                                 f"got {value!r}")
        return value

    def between(self, key: str, value: Between, low: int) -> int | dict[str, int]:
        first = self.integer(f"{key}.min", value.low, low)
        last = self.integer(f"{key}.max", value.high, low)
        if last < first:
            raise self.fail(key, f"min {first} is above max {last}")
        return first if first == last else {"min": first, "max": last}

    def odds(self, key: str, odds: Odds, whole: bool) -> dict[str, float]:
        if not odds:
            raise self.fail(key, "give a probability to at least one name")
        table: dict[str, float] = {}
        for name, p in odds:
            self.text(key, name)
            if name in table:
                raise self.fail(key, f"'{name}' is given twice")
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
                raise self.fail(key, f"the probability of '{name}' must be a number in "
                                     f"[0, 1], got {p!r}")
            table[name] = float(p)
        # Summed as the reader sums what it reads: the same floats in the same order.
        total = float(sum(table.values()))
        if total > 1 + ODDS_SLACK or (whole and not math.isclose(total, 1.0,
                                                                 abs_tol=ODDS_SLACK)):
            need = "sum to 1" if whole else "sum to at most 1"
            raise self.fail(key, f"the probabilities must {need}, they sum to {total:g}")
        return table


def _checked_tables(task: TaskFile, where: str) -> dict[str, Any]:
    """The TOML tables of `task`, every value checked as the reader checks it."""
    check = _Check(where)
    name = check.text("name", task.name)
    if not TASK_NAME.fullmatch(name):
        raise check.fail("name", f"{name!r} is not a task name: letters, digits, '-', '_', "
                                 "'.' or '+' (it names the task in results and folders)")
    if not task.formulas:
        raise check.fail("formula", "name at least one .gml file")
    formulas = [check.file("formula", formula) for formula in task.formulas]
    tables: dict[str, Any] = {"name": name,
                              "formula": formulas[0] if len(formulas) == 1 else formulas}
    if task.description is not None:
        tables["description"] = check.text("description", task.description)
    for line in task.comments:
        if _NOT_IN_COMMENT.search(check.text("comment", line)):
            raise check.fail("comment", f"{line!r}: a comment line holds no line break or "
                                        "other control character but the tab")
    tables["graphs"] = _graphs_table(check, task.graphs)
    if task.plants and not isinstance(task.graphs, FamilyGraphs):
        raise check.fail("plant", "motifs are planted only into a graph family's graphs")
    if task.plants:
        tables["plant"] = [_plant_table(check, plant) for plant in task.plants]
    if isinstance(task.graphs, FamilyGraphs):
        _check_drawn_size(check, task.graphs, task.plants)
    dataset = _dataset_table(check, task.dataset)
    if dataset:
        tables["dataset"] = dataset
    return tables


def _graphs_table(check: _Check, graphs: GraphsTable) -> dict[str, Any]:
    if isinstance(graphs, FileGraphs):
        return {"file": check.file("graphs.file", graphs.file)}
    if isinstance(graphs, GeneratorGraphs):
        reference = check.text("graphs.generator", graphs.generator)
        if not _GENERATOR.fullmatch(reference):
            raise check.fail("graphs.generator", f"{reference!r}: write "
                                                 "\"package.module:function\"")
        return {"generator": reference}
    family = check.text("graphs.family", graphs.family)
    if family not in GRAPH_FAMILIES:
        raise check.fail("graphs.family", f"unknown family {family!r} (the families are "
                                          f"{', '.join(GRAPH_FAMILIES)})")
    table: dict[str, Any] = {"family": family}
    if graphs.nodes is not None:
        table["nodes"] = check.between("graphs.nodes", graphs.nodes, 1)
    if graphs.colors is not None:
        table["colors"] = check.odds("graphs.colors", graphs.colors, whole=False)
    if graphs.attributes:
        attributes: dict[str, Any] = {}
        for family_name, odds in graphs.attributes:
            check.text("graphs.attributes", family_name)
            if family_name in attributes:
                raise check.fail("graphs.attributes", f"'{family_name}' is given twice")
            attributes[family_name] = check.odds(f"graphs.attributes.{family_name}", odds,
                                                 whole=True)
        table["attributes"] = attributes
    if graphs.relations is not None:
        table["relations"] = check.odds("graphs.relations", graphs.relations, whole=True)
    return table


def _plant_table(check: _Check, plant: PlantTable) -> dict[str, Any]:
    table: dict[str, Any] = {"motif": check.file("plant.motif", plant.motif)}
    if plant.count is not None:
        table["count"] = check.between("plant.count", plant.count, 0)
    if plant.links is not None:
        table["links"] = check.integer("plant.links", plant.links, 0)
    return table


def _check_drawn_size(check: _Check, graphs: FamilyGraphs,
                      plants: Sequence[PlantTable]) -> None:
    """Refuse a family whose graphs are over `MAX_TASK_GRAPH` whatever the motifs: each
    motif has at least one node (the reader counts their nodes and edges)."""
    counts = [1 if plant.count is None else plant.count.high for plant in plants]
    nodes = DEFAULT_NODES if graphs.nodes is None else graphs.nodes.high
    if nodes + sum(counts) > MAX_TASK_GRAPH:
        key = "graphs.nodes" if nodes > MAX_TASK_GRAPH else "plant.count"
        raise check.fail(key, f"a drawn graph could have over {MAX_TASK_GRAPH} nodes ({nodes} "
                              f"background, at least {sum(counts)} planted)")
    links = sum(count * 2 * (1 if plant.links is None else plant.links)
                for count, plant in zip(counts, plants))
    if links > MAX_TASK_GRAPH:
        raise check.fail("plant.links", f"planting could add {links} edges to a graph; a "
                                        f"task's plants add at most {MAX_TASK_GRAPH}")


def _dataset_table(check: _Check, dataset: DatasetTable) -> dict[str, Any]:
    table: dict[str, Any] = {}
    if dataset.graphs is not None:
        table["graphs"] = check.integer("dataset.graphs", dataset.graphs, 1)
    fraction = dataset.positive_fraction
    if fraction is not None:
        if not isinstance(fraction, (int, float)) or isinstance(fraction, bool) \
                or not 0 <= fraction <= 1:
            raise check.fail("dataset.positive_fraction", f"must be in [0, 1], got "
                                                          f"{fraction!r}")
        table["positive_fraction"] = float(fraction)
    if dataset.targets is not None:
        if table:
            raise check.fail("dataset.targets", "a graph task's dataset counts graphs (at a "
                                                "positive fraction), a node task's targets: "
                                                "not both")
        table["targets"] = check.integer("dataset.targets", dataset.targets, 1)
    return table
