"""GracrBench tasks: a formula, where its graphs come from, and how big its dataset is.

A task is a small TOML file beside its `.gml` (the paper's six ship in
`gracr/formulas/`; a user's may be anywhere):

    name = "TwoRedNoGreen"
    formula = "two_red.gml"          # or a list: the main formula, then equivalent variants
    [graphs]                         # exactly one of family / file / generator
    family = "barabasi-albert"       # a family of gracr.data.generators.GRAPH_FAMILIES
    nodes = { min = 20, max = 30 }   # background size, uniform in [min, max] (or one integer)
    colors = { red = 0.3, blue = 0.4, green = 0.3 }
    # attributes = { element = { C = 0.7, O = 0.3 } }     # per family, like colors
    # relations = { single = 0.8, double = 0.2 }          # per undirected edge
    # file = "graphs.jsonl"          # graphs taken as they are
    # generator = "package.module:function"              # a Python generator
    [[plant]]                        # only with family: motifs planted before labelling
    motif = "motif.json"             # a graph JSON (relative paths: beside the task file)
    count = { min = 0, max = 2 }     # copies per candidate
    links = 1                        # edges (both directions) from a random motif node
                                     # to a random background node, per copy
    [dataset]
    graphs = 1000                    # graph tasks, rejection-sampled to positive_fraction
    positive_fraction = 0.5
    # targets = 500                  # node tasks: graphs accumulate until this many positives

How colours, values and relations are drawn, and what a generator returns: see
`gracr.bench.graph_sources`. Task files are written by `gracr.bench.task_writer`.

The dataset of a task is a pure function of the task's files and the seed: its store key
(`Task.key`) hashes the task file, the main formula, the motif and graph files and a user
generator's module source (gracr's own generators are covered by `GENERATOR_VERSION`),
so an edited task never reuses a stale dataset.

Its size (600–700 lines) is one file format: its text measured before TOML reads it (the
nesting limit), every key checked with a message naming file, line and key, the limits
on what a task may draw, the compile variants and the registry of tasks by name.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import math
import re
import sys
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence


from gracr.bench.candidates import Candidate, Rng
from gracr.bench.graph_sources import (Between, GraphFile, Odds, Plant, PythonGenerator,
                                       RandomGraphs, Source)
from gracr.compiler.desugar import uses_comparison
from gracr.data.generators import GRAPH_FAMILIES
from gracr.data.graph import Graph, read_graphs
from gracr.dsl import ir
from gracr.dsl.parse import closest_word, parse
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.limits import MAX_TASK_GRAPH, MAX_TASK_NESTING

DEFAULT_GRAPHS = 1000       # App. F: graph task datasets
DEFAULT_TARGETS = 500       # App. F: positive targets of a node task
DEFAULT_POSITIVE_FRACTION = 0.5
DEFAULT_NODES = 25          # background nodes of a family's graphs
TASK_NAME = re.compile(r"[A-Za-z0-9][\w.+-]*")
"""A task's name (it names the task in results and folders)."""
ODDS_SLACK = 1e-9           # how far a table of probabilities may sum past 1 (or miss it)

_KEYS: dict[str | None, tuple[str, ...]] = {
    None: ("name", "formula", "description", "graphs", "plant", "dataset"),
    "graphs": ("family", "nodes", "colors", "attributes", "relations", "file", "generator"),
    "plant": ("motif", "count", "links"),
    "dataset": ("graphs", "positive_fraction", "targets"),
}


class TaskFileError(GracrError):
    """A task file that cannot be used; the message names the file, line and key."""


@dataclass(frozen=True)
class Task:
    """A benchmark task: its formula files (main one first), its graph source and its
    dataset size. `origin` is the task file; `key` the content hash its datasets are
    stored under."""

    name: str
    formulas: tuple[Path, ...]
    kind: ir.Kind
    source: Source
    graphs: int = DEFAULT_GRAPHS
    positive_fraction: float = DEFAULT_POSITIVE_FRACTION
    targets: int = DEFAULT_TARGETS
    origin: Path | None = None
    key: str = ""

    @classmethod
    def from_file(cls, path: str | Path) -> Task:
        """Read and check a task file; raise `TaskFileError` naming the file, line and key."""
        return _read_task(Path(path))

    @property
    def where(self) -> str:
        """How messages name the task: its task file, or its name."""
        return str(self.origin) if self.origin is not None else self.name

    @property
    def unit(self) -> str:
        """What the dataset size counts: `graphs` (graph tasks, graph files) or `targets`."""
        if self.kind is ir.Kind.GRAPH or isinstance(self.source, GraphFile):
            return "graphs"
        return "targets"

    @property
    def default_size(self) -> int:
        if isinstance(self.source, GraphFile):
            return len(self.source.graphs)
        return self.graphs if self.kind is ir.Kind.GRAPH else self.targets

    def size_of(self, graphs: int | None, targets: int | None) -> int | None:
        """The dataset size the command line asks of this task: `--graphs` or `--targets`
        as the task counts (`None`: the default size)."""
        return graphs if self.unit == "graphs" else targets

    @property
    def formula_files(self) -> tuple[str, ...]:
        return tuple(path.name for path in self.formulas)

    def program(self, variant: int = 0) -> Program:
        path = self.formulas[variant]
        return parse(path.read_text(encoding="utf-8"), filename=_shown(path))

    def variants(self) -> list[str]:
        """The variants that differ from `main` on this task (plus `main`)."""
        program = self.program()
        names = ["main", "flat"]
        if uses_comparison(program.classifier):
            names.append("direct")
        if len(self.formulas) > 1:
            names.append("or")
        return names

    def predicate(self) -> Program | None:
        """The node predicate φ of a graph task `exists φ` (for the exact-annotation rule);
        `None` when the classifier is another graph sentence."""
        program = self.program()
        if not isinstance(program.classifier, ir.Exists):
            return None
        return replace(program, classifier=program.classifier.arg, kind=ir.Kind.NODE)

    def draw(self, rng: Rng, positive: bool) -> Candidate:
        """One candidate graph (`positive`: the class a graph task's builder wants next)."""
        source = self.source
        if isinstance(source, RandomGraphs):
            return source.draw(rng)
        if isinstance(source, GraphFile):
            raise GracrError(f"{self.name}: a graph file source is not drawn from")
        try:
            drawn = source.function(rng, positive) if self.kind is ir.Kind.GRAPH \
                else source.function(rng)
        except GracrError:
            raise
        except Exception as error:  # the generator is the user's code: its failure is theirs
            called = "function(rng, positive)" if self.kind is ir.Kind.GRAPH \
                else "function(rng)"
            raise GracrError(f"{self.where}: graphs.generator: {source.reference} failed when "
                             f"called as {called}: {type(error).__name__}: {error}") from None
        if isinstance(drawn, Graph):
            drawn = Candidate(drawn)
        if not isinstance(drawn, Candidate):
            raise GracrError(f"{self.where}: the generator {source.reference} returned "
                             f"{type(drawn).__name__}, not a Graph or a Candidate")
        return drawn


def _shown(path: Path) -> str:
    """How a formula path is shown in messages: relative to the working folder if inside."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- reading a task file


class _Reader:
    """Checks one parsed task file; every error names the file, the line and the key."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def fail(self, table: str | None, key: str | None, message: str) -> TaskFileError:
        line, column = self._locate(table, key)
        where = ".".join(part for part in (table, key) if part)
        return TaskFileError(f"{self.path}:{line}:{column}: {where + ': ' if where else ''}"
                             f"{message}")

    def _locate(self, table: str | None, key: str | None) -> tuple[int, int]:
        """The line and column of `key` in `[table]` (or of the table), by a scan of the
        text: tomllib keeps no positions."""
        current: str | None = None
        header_line = 1
        for number, raw in enumerate(self.lines, start=1):
            line = raw.strip()
            header = re.fullmatch(r"\[\[?\s*([\w.-]+)\s*\]\]?.*", line)
            if header and not line.startswith("#"):
                current = header.group(1)
                if current == table:
                    header_line = number
                continue
            if current == table and key is not None:
                match = re.match(rf"\s*({re.escape(key)})\s*[=.]", raw)
                if match:
                    return number, match.start(1) + 1
        return header_line, 1

    def known(self, table: str | None, values: Mapping[str, Any]) -> None:
        for key in values:
            if key not in _KEYS[table]:
                home = [t for t, keys in _KEYS.items() if t is not None and key in keys]
                if home and table is None:
                    raise self.fail(table, key, f"belongs in the [{home[0]}] table")
                close = difflib.get_close_matches(key, _KEYS[table], n=1)
                hint = f"; did you mean '{close[0]}'?" if close else \
                    f"; the keys are {', '.join(_KEYS[table])}"
                raise self.fail(table, key, f"unknown key{hint}")

    def table(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise self.fail(None, name, "must be a table")
        self.known(name, value)
        return value

    def integer(self, table: str | None, values: Mapping[str, Any], key: str, default: int,
                low: int, within: str | None = None) -> int:
        """`values[key]`, an integer of at least `low`; `within`: the key whose inline
        table holds it (`nodes` of `nodes = { min = 0 }`), which the message names."""
        value = values.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            what = f"{key} must" if within else "must"
            raise self.fail(table, within or key, f"{what} be an integer of at least {low}, "
                                                  f"got {value!r}")
        return value

    def between(self, table: str, values: Mapping[str, Any], key: str, default: int,
                low: int) -> Between:
        value = values.get(key, default)
        if isinstance(value, dict):
            unknown = set(value) - {"min", "max"}
            if unknown or {"min", "max"} - set(value):
                raise self.fail(table, key, "write an integer or { min = A, max = B }")
            first = self.integer(table, value, "min", 0, low, within=key)
            last = self.integer(table, value, "max", 0, low, within=key)
            if last < first:
                raise self.fail(table, key, f"min {first} is above max {last}")
            return Between(first, last)
        single = self.integer(table, values, key, default, low)
        return Between(single, single)

    def odds(self, table: str, key: str, value: Any, allowed: Sequence[str],
             what: str, whole: bool) -> Odds:
        if not isinstance(value, dict) or not value:
            raise self.fail(table, key, f"write {{ {allowed[0] if allowed else 'name'} = 0.5, "
                                        "... }: a probability per name")
        for name, p in value.items():
            if name not in allowed:
                raise self.fail(table, key, f"'{name}' is not a {what} of the formula (the "
                                            f"{what}s are {', '.join(allowed) or 'none'})")
            if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
                raise self.fail(table, key, f"the probability of '{name}' must be a number "
                                            f"in [0, 1], got {p!r}")
        total = float(sum(value.values()))
        if total > 1 + ODDS_SLACK or (whole and not math.isclose(total, 1.0,
                                                                abs_tol=ODDS_SLACK)):
            need = "sum to 1" if whole else "sum to at most 1"
            raise self.fail(table, key, f"the probabilities must {need}, they sum to {total:g}")
        return tuple((str(name), float(p)) for name, p in value.items())

    def formula(self, path: Path) -> Program:
        """The program of a formula file the task names."""
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise self.fail(None, "formula", f"{path}: cannot read the formula ({error})") \
                from None
        return parse(text, filename=_shown(path))

    def file(self, table: str | None, key: str, value: Any) -> Path:
        if not isinstance(value, str) or not value:
            raise self.fail(table, key, "must be a file name")
        path = Path(value) if Path(value).is_absolute() else self.path.parent / value
        try:
            found = path.is_file()
        except OSError as error:   # is_file passes on a name too long, a loop of links
            raise self.fail(table, key, f"{path}: cannot use this path ({error.strerror})") \
                from None
        if not found:
            raise self.fail(table, key, f"{path}: no such file")
        return path


def read_task_toml(path: Path) -> tuple[bytes, str, dict[str, Any]]:
    """A task file's bytes, text and TOML tables, unchecked; `TaskFileError` naming the
    place if it is unreadable, not UTF-8, nested too deep or not TOML."""
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise TaskFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TaskFileError(f"{path}: cannot read the task file ({error})") from None
    depth, line = _deepest_nesting(text)
    if depth > MAX_TASK_NESTING:
        raise TaskFileError(f"{path}:{line}:1: nested {depth} deep (tables, arrays, inline "
                            f"tables and dotted keys); a task file nests at most "
                            f"{MAX_TASK_NESTING} deep")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        at = re.search(r"\(at line (\d+), column (\d+)\)", message)
        place = f"{at.group(1)}:{at.group(2)}" if at else "1:1"
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise TaskFileError(f"{path}:{place}: not TOML: {message}") from None
    except ValueError:
        # Python's limit on the digits of an integer it converts, hit inside tomllib.
        digits = sys.get_int_max_str_digits()
        long = re.search(rf"[0-9_]{{{digits + 1},}}", text)
        place = f"{text.count(chr(10), 0, long.start()) + 1}:1" if long else "1:1"
        raise TaskFileError(f"{path}:{place}: not TOML: an integer of more than {digits} "
                            "digits") from None
    return raw, text, data


def _read_task(path: Path) -> Task:
    raw, text, data = read_task_toml(path)
    reader = _Reader(path, text)
    reader.known(None, data)
    for key in ("name", "formula", "graphs"):
        if key not in data:
            raise reader.fail(None, None, f"missing '{key}'")
    name = data["name"]
    if not isinstance(name, str) or not TASK_NAME.fullmatch(name):
        raise reader.fail(None, "name", "must be a name of letters, digits, '-', '_', '.' or "
                                        "'+' (it names the task in results and folders)")
    listed = data["formula"] if isinstance(data["formula"], list) else [data["formula"]]
    if not listed:
        raise reader.fail(None, "formula", "name at least one .gml file")
    formulas = tuple(reader.file(None, "formula", value) for value in listed)
    program = reader.formula(formulas[0])
    for other in formulas[1:]:
        if reader.formula(other).kind is not program.kind:
            raise reader.fail(None, "formula", f"{other.name} is not the same kind of "
                                               "classifier as the main formula")
    graphs = reader.table(data, "graphs")
    plants = data.get("plant", [])
    if not isinstance(plants, list) or not all(isinstance(p, dict) for p in plants):
        raise reader.fail(None, "plant", "write each motif as a [[plant]] table")
    dataset = reader.table(data, "dataset")
    hashed = [raw, formulas[0].read_bytes()]
    source = _read_source(reader, graphs, plants, program, hashed)
    kind = program.kind
    wrong = ("targets",) if kind is ir.Kind.GRAPH else ("graphs", "positive_fraction")
    for key in wrong:
        if key in dataset:
            what = "graph" if kind is ir.Kind.GRAPH else "node"
            raise reader.fail("dataset", key, f"does not apply: the formula is a {what} "
                                              "classifier")
    fraction = dataset.get("positive_fraction", DEFAULT_POSITIVE_FRACTION)
    if not isinstance(fraction, (int, float)) or isinstance(fraction, bool) \
            or not 0 <= fraction <= 1:
        raise reader.fail("dataset", "positive_fraction", f"must be in [0, 1], got {fraction!r}")
    return Task(name, formulas, kind, source,
                graphs=reader.integer("dataset", dataset, "graphs", DEFAULT_GRAPHS, 1),
                positive_fraction=float(fraction),
                targets=reader.integer("dataset", dataset, "targets", DEFAULT_TARGETS, 1),
                origin=path.resolve(),
                key=hashlib.sha256(b"\0".join(hashed)).hexdigest()[:12])


def _deepest_nesting(text: str) -> tuple[int, int]:
    """How deep a TOML text nests, and the line where it is deepest: open brackets and
    braces plus the dots of the key being read, strings and comments skipped. A scan, not
    tomllib: tomllib is what a text too deep breaks (`MAX_TASK_NESTING`)."""
    deepest, deepest_line, line = 0, 1, 1
    open_brackets: list[str] = []
    in_key, dots = True, 0          # reading a key: a statement's, a header's, an entry's
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char in "\"'":
            quote = char * 3 if text.startswith(char * 3, at) else char
            close = at + len(quote)
            while close < end and not text.startswith(quote, close):
                if text[close] == "\n" and len(quote) == 1:
                    break                            # unterminated: tomllib says so
                close += 2 if char == '"' and text[close] == "\\" else 1
            if len(quote) == 3:                      # """a""""" ends with the last three
                for _ in range(2):
                    if text.startswith(quote, close + 1):
                        close += 1
            line += text.count("\n", at, close)
            at = close + len(quote) if text.startswith(quote, close) else close
            continue
        if char == "#":
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
            continue
        if char == "\n":
            line += 1
            if not open_brackets:
                in_key, dots = True, 0
        elif in_key and char == ".":
            dots += 1
        elif in_key and char == "=":
            in_key, dots = False, 0
        elif char in "[{":
            open_brackets.append(char)
            if char == "{":
                in_key, dots = True, 0
        elif char in "]}":
            if open_brackets:
                open_brackets.pop()
            in_key = in_key and char == "]"          # a header's `]`; a value goes on
        elif char == "," and open_brackets and open_brackets[-1] == "{":
            in_key, dots = True, 0
        depth = len(open_brackets) + dots
        if depth > deepest:
            deepest, deepest_line = depth, line
        at += 1
    return deepest, deepest_line


def _read_source(reader: _Reader, graphs: Mapping[str, Any], plants: list[dict[str, Any]],
                 program: Program, hashed: list[bytes]) -> Source:
    chosen = [key for key in ("family", "file", "generator") if key in graphs]
    if len(chosen) != 1:
        raise reader.fail("graphs", chosen[1] if len(chosen) > 1 else None,
                          "say where the graphs come from with exactly one of family, "
                          "file or generator")
    kind = chosen[0]
    extra = [key for key in graphs if key != kind and kind != "family"]
    if extra:
        raise reader.fail("graphs", extra[0], f"only applies with family, not with {kind}")
    if plants and kind != "family":
        raise reader.fail("plant", None, f"motifs are planted only with family, not {kind}")
    schema = program.schema
    if kind == "file":
        path = reader.file("graphs", "file", graphs["file"])
        hashed.append(path.read_bytes())
        return GraphFile(path, tuple(read_graphs(str(path), schema)))
    if kind == "generator":
        reference = graphs["generator"]
        function = _import_generator(reader, reference)
        module = reference.partition(":")[0]
        if not module.startswith("gracr."):
            spec = importlib.util.find_spec(module)
            if spec is not None and spec.origin and Path(spec.origin).is_file():
                hashed.append(Path(spec.origin).read_bytes())
        return PythonGenerator(reference, function)
    family = graphs["family"]
    if not isinstance(family, str):
        raise reader.fail("graphs", "family", f"must be a family name, got {family!r} (the "
                                              f"families are {', '.join(GRAPH_FAMILIES)})")
    if family not in GRAPH_FAMILIES:
        close = difflib.get_close_matches(family, GRAPH_FAMILIES, n=1)
        raise reader.fail("graphs", "family", f"unknown family '{family}'"
                          + (f"; did you mean '{close[0]}'?" if close else "")
                          + f" (the families are {', '.join(GRAPH_FAMILIES)})")
    colors = None
    if schema.palette:
        colors = reader.odds("graphs", "colors", graphs["colors"], schema.palette, "colour",
                             False) if "colors" in graphs else \
            tuple((c, 1 / len(schema.palette)) for c in schema.palette)
    elif "colors" in graphs:
        raise reader.fail("graphs", "colors", "the formula has no colours")
    declared = {f.name: f.values for f in schema.families}
    given = graphs.get("attributes", {})
    if not isinstance(given, dict):
        raise reader.fail("graphs", "attributes", "write { family = { value = p, ... } }")
    for family_name in given:
        if family_name not in declared:
            raise reader.fail("graphs", "attributes", f"'{family_name}' is not an attribute "
                              f"family of the formula (they are "
                              f"{', '.join(declared) or 'none'})")
    attributes = tuple(
        (f, reader.odds("graphs", "attributes", given[f], values, f"value of {f}", True)
         if f in given else tuple((v, 1 / len(values)) for v in values))
        for f, values in declared.items())
    relations = None
    if schema.relations:
        relations = reader.odds("graphs", "relations", graphs["relations"], schema.relations,
                                "relation", True) if "relations" in graphs else \
            tuple((r, 1 / len(schema.relations)) for r in schema.relations)
    elif "relations" in graphs:
        raise reader.fail("graphs", "relations", "the formula declares no relations")
    read_plants = []
    for entry in plants:
        reader.known("plant", entry)
        if "motif" not in entry:
            raise reader.fail("plant", None, "missing 'motif'")
        motif_path = reader.file("plant", "motif", entry["motif"])
        hashed.append(motif_path.read_bytes())
        try:
            motifs = list(read_graphs(str(motif_path), schema))
        except GracrError as error:
            raise reader.fail("plant", "motif", str(error)) from None
        if len(motifs) != 1 or motifs[0].num_nodes == 0:
            raise reader.fail("plant", "motif", f"{motif_path} must hold one graph with nodes")
        if schema.palette and motifs[0].colors is None:
            raise reader.fail("plant", "motif", f"{motif_path}: the motif needs 'colors'")
        read_plants.append(Plant(motifs[0], reader.between("plant", entry, "count", 1, 0),
                                 reader.integer("plant", entry, "links", 1, 0)))
    nodes = reader.between("graphs", graphs, "nodes", DEFAULT_NODES, 1)
    _check_drawn_size(reader, nodes, read_plants)
    return RandomGraphs(family, nodes, colors, attributes, relations, tuple(read_plants))


def _check_drawn_size(reader: _Reader, nodes: Between, plants: list[Plant]) -> None:
    """Refuse a task whose largest drawn graph is over `MAX_TASK_GRAPH`, before any draw
    allocates it."""
    planted_nodes = sum(p.count.high * p.motif.num_nodes for p in plants)
    if nodes.high + planted_nodes > MAX_TASK_GRAPH:
        where, key = ("plant", "count") if nodes.high <= MAX_TASK_GRAPH else ("graphs", "nodes")
        raise reader.fail(where, key, f"a drawn graph could have {nodes.high + planted_nodes} "
                                      f"nodes ({nodes.high} background, {planted_nodes} "
                                      f"planted); a task's graphs have at most {MAX_TASK_GRAPH}")
    planted_edges = sum(p.count.high * (p.motif.num_edges + 2 * p.links) for p in plants)
    if planted_edges > MAX_TASK_GRAPH:
        raise reader.fail("plant", "links", f"planting could add {planted_edges} edges to a "
                                            f"graph; a task's plants add at most "
                                            f"{MAX_TASK_GRAPH}")


def _import_generator(reader: _Reader, reference: Any) -> Callable[..., Any]:
    if not isinstance(reference, str) or reference.count(":") != 1:
        raise reader.fail("graphs", "generator", "write \"package.module:function\"")
    module_name, function_name = reference.split(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # any failure of the user's module is theirs to see
        raise reader.fail("graphs", "generator", f"cannot import {module_name}: "
                          f"{type(error).__name__}: {error}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise reader.fail("graphs", "generator", f"{module_name} has no function "
                                                 f"'{function_name}'")
    return function  # type: ignore[no-any-return]


# ---------------------------------------------------------------- variants


@dataclass(frozen=True)
class Variant:
    """One way of compiling a task's classifier; every variant runs on the task's graphs.

    `main` is the paper's main setting (Tables 2, 3: the first formula file, De
    Morgan, the comparative expanded by Eq. 6). The ablations change one thing:
    `flat` the disjunction (Table 10), `direct` the comparative (Table 8), `or`
    the formula (RedBlueLeaf φ∨, Table 11); `max`, `soft-or` the readout (WOMBAT's Eq. 3, 4).
    """

    name: str
    formula: int = 0
    disjunction: str = "demorgan"
    comparison: str = "expanded"
    readout: str = "threshold"


VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("main"), Variant("flat", disjunction="flat"), Variant("direct", comparison="direct"),
    Variant("or", formula=1), Variant("max", readout="max"), Variant("soft-or", readout="soft-or")]}


# ---------------------------------------------------------------- the registry


def formulas_folder() -> Path:
    """The package's `formulas/` folder: the paper's formulas and task files."""
    return Path(str(resources.files("gracr").joinpath("formulas")))


def load_formula(file_name: str) -> Program:
    """A formula of the package's `formulas/` folder."""
    path = formulas_folder() / file_name
    return parse(path.read_text(encoding="utf-8"), filename=f"gracr/formulas/{file_name}")


PAPER_TASKS = ("RedBlueLeaf", "Redundancy", "CompetingRedundancy", "RedBlueLeaf-NC",
               "Majority1Hop", "Majority2Hop")

TASKS: dict[str, Task] = {name: Task.from_file(formulas_folder() / f"{name}.toml")
                          for name in PAPER_TASKS}
"""The tasks known by name: the paper's six, then every registered task file."""


def register_task(task: Task) -> Task:
    """Make `task` known by its name (to the CLI's `--tasks`, the runner and its workers).
    Registering the same task again is harmless; another task under a taken name is an
    error."""
    known = TASKS.get(task.name)
    if known is not None and known.key != task.key:
        where = known.origin or "gracr"
        raise GracrError(f"{task.origin}: the task name '{task.name}' is taken by {where}; "
                         "rename one of them")
    TASKS[task.name] = task
    return task


def is_task_file(spec: str) -> bool:
    return spec.endswith(".toml") or "/" in spec or "\\" in spec


# Task files read by this process, by resolved path, with the file's modification time
# and size when read: a runner asks for its job's task file per job, and reading one can
# mean reading thousands of graphs (a molecule set), so it is read again only once edited.
_READ_FILES: dict[Path, tuple[tuple[int, int], Task]] = {}


def task_named(spec: str) -> Task:
    """A task by name, a task file (`.toml`), or a task's folder holding `<folder>.toml`;
    a file is read and registered (read once per process while it is unchanged)."""
    if spec in TASKS:
        return TASKS[spec]
    folder = Path(spec)
    if folder.is_dir() and (folder / f"{folder.name}.toml").is_file():
        # A task's folder stands for the task file named after it (`out/wombat/P06` for
        # `out/wombat/P06/P06.toml`, as `scripts/wombat_datasets.py` lays them out).
        spec = str(folder / f"{folder.name}.toml")
    if spec.lower().endswith(".gml"):
        # Read as TOML, a formula fails on its first line with a message about '='.
        stem = Path(spec).stem
        hint = f"; did you mean the task '{stem}'?" if stem in TASKS else ""
        raise GracrError(f"{spec}: a formula file, not a task file; a task is a .toml file "
                         f"(see 'Benchmark your own rule' in the documentation) or a task "
                         f"name: {', '.join(TASKS)}{hint}")
    if is_task_file(spec):
        path = Path(spec).resolve()
        try:
            status = path.stat()
            stamp = (status.st_mtime_ns, status.st_size)
        except OSError:
            stamp = None
        known = _READ_FILES.get(path)
        if stamp is not None and known is not None and known[0] == stamp \
                and TASKS.get(known[1].name) is known[1]:
            return known[1]
        task = register_task(Task.from_file(spec))
        if stamp is not None:
            _READ_FILES[path] = (stamp, task)
        return task
    meant = closest_word(spec, list(TASKS))
    raise GracrError(f"unknown task '{spec}'" + (f"; did you mean '{meant}'?" if meant else "")
                     + f"; the tasks are {', '.join(TASKS)}, or give a task file (.toml)")


def task_files(tasks: Sequence[str]) -> dict[str, str]:
    """For each named task read from a task file outside the package, that file: what a
    worker process must read to know the task."""
    files = {}
    for name in tasks:
        origin = task_named(name).origin
        if origin is not None and origin.parent != formulas_folder().resolve():
            files[name] = str(origin)
    return files


def task_names(text: str) -> list[str]:
    """`all` (the paper's six) or a comma list of task names and task files, as names."""
    if text == "all":
        return list(PAPER_TASKS)
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise GracrError(f"no task in '{text}': name tasks or task files, or 'all'")
    return [task_named(item).name for item in items]
