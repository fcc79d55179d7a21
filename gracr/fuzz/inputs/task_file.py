"""Task files: benchmark tasks put together from parts (a formula; a graph family with its
sizes and odds and motifs to plant, a graph file, or a generator; dataset sizes), then
edited the way a careless or hostile file is: unknown and misspelt keys, keys in the
wrong table, wrong types, huge, negative and non-finite numbers, missing keys, unicode
names, formulas that do not parse, are of the wrong kind or never fire, unknown families
and generators, missing or broken motif and graph files, tables nested where none
belong; and as text: cut, tokens inserted, lines doubled, arrays, inline tables and
dotted keys nested from 20 to 100 000 deep, integers of 5 000 digits, a byte-order mark.

An input runs as parsed (the file reads as TOML) -> checked (`Task.from_file` accepts
it) -> compiled (`load_or_build` builds its dataset of a few graphs into a scratch store,
and the formula compiles for the largest in-degree among them) -> evaluated (every built
graph: its stored labels and targets are the reference evaluator's,
`oracle.check_consistent` holds, each stored UPI lies inside its receptive field and, on
graphs of a few edges, equals the brute-force UPI; the dataset has the size and class
balance asked for, its graphs the sizes the task allows). A task that no edit touched
must be accepted; its build may still be refused (a formula that never fires).

Its size (500–600 lines) is one input kind: the parts of a valid task, fifteen hostile edits
of them and six of the text (written through the one task writer), and the oracle over a
built dataset.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from gracr.dsl.evaluate import evaluate_program
from gracr.bench.datasets import Dataset, export, load_or_build
from gracr.bench.graph_sources import GraphFile
from gracr.bench.task_writer import task_toml
from gracr.bench.tasks import TASKS, Task, formulas_folder, read_task_toml
from gracr.data.generators import GRAPH_FAMILIES
from gracr.dsl.ir import Kind
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.model import compile_program
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.oracle import (GRAPH_SPECS, PROGRAMS, check_consistent, check_upi,
                                      realise)
from gracr.limits import MAX_TASK_GRAPH

FILENAME = "task.toml"
FORMULA = "rule.gml"
VARIANT = "variant.gml"
MOTIF = "motif.json"
GRAPH_FILE = "graphs.jsonl"
# The ROBDD budget of every build: far above what a graph of a few nodes needs.
MAX_BDD_NODES = 100_000
# Dataset sizes: a few graphs or targets, so that an input builds in well under a second.
SIZES = st.integers(1, 4)
# A node task whose formula rarely fires accumulates hundreds of graphs without a target:
# all have their labels checked, the first few of them everything else (the time limit).
CHECKED_BARREN_GRAPHS = 8

# Formulas a task names: (text, whether it is a graph sentence). The oracle's programs,
# and a few of a task's own.
FORMULAS: tuple[tuple[str, bool], ...] = (
    *((source, "exists" in source) for source, *_ in PROGRAMS),
    ("colors red, blue\nclassify exists (red & atleast 1 blue)\n", True),
    ("colors red, blue\nclassify red & atleast 1 blue\n", False),
    ("colors red, green\nclassify exists[2, inf] red & !exists green\n", True),
    ("colors red, blue\nclassify more(red, blue)\n", False),
)
# The two of them that seldom fire on graphs of a few nodes (a red core with exactly two
# blue leaves; a carbon with a double bond to an oxygen): a task drawing its graphs would
# mostly draw 1000 and be refused, the costliest input there is, so they label graph
# files only, which are taken as they are.
RARELY_FIRING = (PROGRAMS[0][0], PROGRAMS[4][0])
# Formulas a task file may name that never fire, or always do: valid, but their builds
# are refused once the wanted class has not come up 1000 times in a row.
BARREN = (
    ("colors red, blue\nclassify exists (red & !red)\n", True),
    ("colors red\nclassify red & !red\n", False),
    ("colors red\nclassify exists true\n", True),
)
# Formula files gracr must refuse: not gml, undeclared or misspelt names, repeated
# declarations, nesting past the limit, not UTF-8, empty.
BAD_FORMULAS: tuple[str | bytes, ...] = (
    "colors red\nclassify atlest 2 red\n", "colors red\nclassify purple & red\n",
    "colors red, red\nclassify red\n", "colors red\nclassify " + "!(" * 3000 + "red" + ")" * 3000,
    "colors red\nlet a = red\n", "", b"\xff\xfecolors red\nclassify red\n",
    'name = "T"\n', "colors red\nclassify <2 red\n",
)
# The paper's graph tasks, whose generators name annotated nodes: valid with their own
# formula; their node tasks draw graphs of hundreds of nodes, too slow to check here.
PAPER = (("Redundancy.gml", "gracr.domains.paper.tasks:redundancy"),
         ("CompetingRedundancy.gml", "gracr.domains.paper.tasks:competing_redundancy"),
         ("RedBlueLeaf.gml", "gracr.domains.paper.tasks:red_blue_leaf"))
# Generators a hostile task names. Only functions that do no harm whatever they are
# called with: each is called as `function(rng, positive)` or `function(rng)`. Not the
# Majority tasks' generator: with a formula that never fires on its graphs, a build
# draws 1000 graphs of 500 nodes before it is refused, 1.5 s alone and 8.6 s on the
# loaded machine (10^5 run of cc16522), too near the time limit to tell a hang from load.
GENERATORS = ("gracr.domains.paper.tasks:red_blue_leaf_nc",
              "gracr.domains.paper.tasks:redundancy", "gracr.domains.paper.tasks:nope",
              "gracr.domains.paper.tasks", "builtins:len", "builtins:repr", "math:sqrt",
              "no.such.module:draw", ":", "gracr.domains.paper.tasks:_Seeds", "", 7,
              "gracr.domains.paper.tasks:redundancy:x", "é:f")

KNOWN_KEYS = {None: ("name", "formula", "description", "graphs", "plant", "dataset"),
              "graphs": ("family", "nodes", "colors", "attributes", "relations", "file",
                         "generator"),
              "plant": ("motif", "count", "links"),
              "dataset": ("graphs", "positive_fraction", "targets")}
MISSPELT = ("colour", "node", "familly", "Name", "x-note", "é", "", "formula ", "target",
            "plants", "count", "graphs")
# Values put where a key's value should be. Integers are small or past MAX_TASK_GRAPH: a
# task that may draw graphs of 10**5 nodes is valid, and slow by the user's own choice.
HOSTILE: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([0, -1, 1, 2**63 - 1, 2**64, -(2**63), 10**12, 1.5, -0.0,
                     float("inf"), float("nan"), True, "", "3", "tree", "red.gml", "é" * 3,
                     "\u202e", [], [1, "a"], {}, {"min": 1}, {"red": 0.5}, [{}], "x" * 400]),
    st.integers(max_value=8), st.integers(min_value=MAX_TASK_GRAPH + 1), st.text(max_size=6))
NUMBERS = st.sampled_from([0, -1, 1, 3, 2**31, 2**63 - 1, 2**64, 10**12, MAX_TASK_GRAPH + 1,
                           1.5, 0.5, -0.0, float("nan"), float("inf"), True, "3"])
NAMES = st.sampled_from(["Té", "名前", "\u202eevil", "a b", "", ".", "-x", "a/b", "x" * 300,
                         "Redundancy", "T" * 60, "A.b+c-d_e", "\x00", "tab\t"])
FAMILY_NAMES = st.sampled_from(["barabasi", "Tree", "erdos_renyi", "", "complete", 3,
                                ["tree"], {"name": "tree"}, "tree ", "watts-strogatz\n"])
BAD_GRAPH_FILES = ("", "{", "[]", '{"num_nodes": 2, "edges": [[0, 5]]}',
                   '{"num_nodes": 1, "colors": [["purple"]], "edges": []}',
                   '{"num_nodes": 1000000000000, "colors": [], "edges": []}',
                   '{"num_nodes": 0, "edges": []}')
TOKENS = ("[", "]", "=", '"', "'", "\n", "{", "}", "\x00", "#", ".", ",", "[[plant]]\n",
          "[graphs]\n", "\ufeff", "\u00e9", "inf", "-", '"""', "\\", "[dataset]\ngraphs = 2\n")


def _odds(draw: st.DrawFn, names: tuple[str, ...], whole: bool) -> dict[str, float]:
    """Probabilities for some of `names` (all of them when `whole`), summing to 1 or, now
    and then when not `whole`, to less."""
    chosen = names if whole else tuple(draw(st.lists(st.sampled_from(names), min_size=1,
                                                     unique=True)))
    weights = [draw(st.integers(1, 4)) for _ in chosen]
    scale = 1.0 if whole or draw(st.booleans()) else 0.5
    return {name: scale * w / sum(weights) for name, w in zip(chosen, weights)}


@st.composite
def _valid_task(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str | bytes], dict[str, Any]]:
    """A task file that must be accepted, with its files and what its dataset must be
    (`nodes`: the sizes its graphs may have; `size`: None when the task's own is small)."""
    files: dict[str, str | bytes] = {}
    expect: dict[str, Any] = {"nodes": None}
    source_kind = draw(st.sampled_from(["family"] * 5 + ["file", "generator"]))
    if source_kind == "generator":
        formula_file, generator = draw(st.sampled_from(PAPER))
        text = (formulas_folder() / formula_file).read_text(encoding="utf-8")
        graph_kind = True
    else:
        # One in about twenty tasks that draw their graphs names a formula that never fires.
        pool = [f for f in FORMULAS if source_kind == "file" or f[0] not in RARELY_FIRING]
        text, graph_kind = draw(st.sampled_from(pool * 3 + [draw(st.sampled_from(BARREN))]))
    files[FORMULA] = text
    schema = parse(text, filename=FORMULA).schema
    task: dict[str, Any] = {"name": draw(st.sampled_from(["T", "Mine", "a.b+c", "Task_2"])),
                            "formula": FORMULA}
    if draw(st.integers(0, 5)) == 0:
        task["description"] = draw(st.sampled_from(["a rule", "", "é ∧ ¬", "x" * 200]))
    if draw(st.integers(0, 5)) == 0:        # an equivalent variant, as RedBlueLeaf has
        files[VARIANT] = text
        task["formula"] = [FORMULA, VARIANT]
    graphs: dict[str, Any] = {}
    file_graphs = 0
    if source_kind == "generator":
        graphs["generator"] = generator
    elif source_kind == "file":
        objects = [realise(spec, schema).to_json()
                   for spec in draw(st.lists(GRAPH_SPECS, min_size=1, max_size=4))]
        files[GRAPH_FILE] = "".join(json.dumps(obj) + "\n" for obj in objects)
        graphs["file"] = GRAPH_FILE
        file_graphs = len(objects)
    else:
        graphs["family"] = draw(st.sampled_from(sorted(GRAPH_FAMILIES)))
        low = draw(st.integers(1, 6))
        high = low + draw(st.integers(0, 2))
        if low != high or draw(st.booleans()):
            graphs["nodes"] = {"min": low, "max": high} if low != high else low
        else:
            low = high = 25                   # the default background
            if draw(st.booleans()):
                low = high = draw(st.integers(1, 6))
                graphs["nodes"] = low
        # Each of colours, values and relations given odds or left to the default.
        if schema.palette:
            if draw(st.booleans()):
                graphs["colors"] = _odds(draw, schema.palette, whole=False)
        if schema.families:
            if draw(st.booleans()):
                graphs["attributes"] = {f.name: _odds(draw, f.values, whole=True)
                                        for f in schema.families}
        if schema.relations:
            if draw(st.booleans()):
                graphs["relations"] = _odds(draw, schema.relations, whole=True)
        plants = []
        for _ in range(draw(st.integers(0, 2)) if draw(st.booleans()) else 0):
            nodes, *rest = draw(GRAPH_SPECS)
            files[MOTIF] = json.dumps(realise((max(1, min(nodes, 4)), *rest), schema).to_json())
            plant: dict[str, Any] = {"motif": MOTIF}
            count = draw(st.sampled_from([None, 0, 1, 2, (0, 1), (1, 2)]))
            if isinstance(count, tuple):
                plant["count"] = {"min": count[0], "max": count[1]}
            elif count is not None:
                plant["count"] = count
            if draw(st.booleans()):
                plant["links"] = draw(st.integers(0, 2))
            plants.append(plant)
        if plants:
            task["plant"] = plants
            motif_nodes = json.loads(str(files[MOTIF]))["num_nodes"]
            high += sum(motif_nodes * (p.get("count", 1) if isinstance(p.get("count", 1), int)
                                       else p["count"]["max"]) for p in plants)
        expect["nodes"] = [low, high]
    task["graphs"] = graphs
    dataset: dict[str, Any] = {}
    if draw(st.booleans()):
        if graph_kind:
            dataset["graphs"] = draw(SIZES)
            if draw(st.booleans()):
                dataset["positive_fraction"] = draw(st.sampled_from([0, 0.25, 0.5, 1.0, 1]))
        else:
            dataset["targets"] = draw(SIZES)
    if dataset:
        task["dataset"] = dataset
    # The task's own size only when it is small: a file's graphs, or a [dataset] size.
    small_default = file_graphs or ("graphs" if graph_kind else "targets") in dataset
    expect["size"] = None if small_default and draw(st.booleans()) else \
        draw(st.integers(1, file_graphs)) if file_graphs else draw(SIZES)
    return task, files, expect


def _table(task: dict[str, Any], draw: st.DrawFn) -> dict[str, Any]:
    """One of the task's tables, made if missing (the top level among them)."""
    name = draw(st.sampled_from([None, "graphs", "plant", "dataset"]))
    if name is None:
        return task
    if name == "plant":
        plants = task.get("plant")
        if isinstance(plants, list) and plants and isinstance(plants[0], dict):
            return plants[0]
        task["plant"] = [{"motif": MOTIF}]
        return task["plant"][0]  # type: ignore[no-any-return]
    table = task.get(name)
    if not isinstance(table, dict):
        table = task[name] = {}
    return table


def _edit(draw: st.DrawFn, task: dict[str, Any], files: dict[str, str | bytes]) -> str:
    """One hostile edit of `task` or its files, in place; its name."""
    how = draw(st.sampled_from(["unknown-key", "wrong-table", "set", "number", "delete",
                                "unicode", "formula", "family", "generator", "source",
                                "motif", "plant", "odds", "dataset", "nested"]))
    graphs = task["graphs"] if isinstance(task.get("graphs"), dict) else {}
    match how:
        case "unknown-key":
            _table(task, draw)[draw(st.sampled_from(MISSPELT))] = draw(HOSTILE)
        case "wrong-table":            # a key of one table, put in any table
            home = draw(st.sampled_from(sorted(name for name in KNOWN_KEYS if name)))
            key = draw(st.sampled_from(KNOWN_KEYS[home]))
            _table(task, draw)[key] = graphs.pop(key, None) or draw(HOSTILE)
        case "set":
            every_key = [key for keys in KNOWN_KEYS.values() for key in keys]
            _table(task, draw)[draw(st.sampled_from(every_key))] = draw(HOSTILE)
        case "number":
            value = draw(NUMBERS)
            match draw(st.sampled_from(["nodes", "min", "max", "count", "links", "graphs",
                                        "targets", "positive_fraction", "odds"])):
                case "nodes":
                    graphs["nodes"] = value
                case "min" | "max" as end:
                    nodes = graphs.get("nodes")
                    graphs["nodes"] = {**(nodes if isinstance(nodes, dict) else
                                          {"min": 1, "max": 3}), end: value}
                case "count" | "links" as key:
                    _plant(task, files)[key] = value
                case "odds" if isinstance(graphs.get("colors"), dict) and graphs["colors"]:
                    graphs["colors"][next(iter(graphs["colors"]))] = value
                case key:
                    table = task.setdefault("dataset", {})
                    if isinstance(table, dict):
                        table[key] = value
        case "delete":
            chosen = _table(task, draw)
            if chosen:
                chosen.pop(draw(st.sampled_from(sorted(chosen))))
        case "unicode":
            match draw(st.sampled_from(["name", "formula", "colour"])):
                case "name":
                    task["name"] = draw(NAMES)
                case "formula":
                    name = draw(st.sampled_from(["rulé.gml", "规则.gml", "r u l e.gml",
                                                 "\u202erule.gml"]))
                    files[name] = files[FORMULA]
                    task["formula"] = name
                case _:
                    graphs["colors"] = {draw(st.sampled_from(["réd", "ＲＥＤ", "red ", "Red"])):
                                        0.5}
        case "formula":
            match draw(st.sampled_from(["bad", "barren", "kind", "list", "path"])):
                case "bad":
                    files[FORMULA] = draw(st.sampled_from(BAD_FORMULAS))
                case "barren":
                    files[FORMULA] = draw(st.sampled_from(BARREN))[0]
                case "kind":
                    files[VARIANT] = draw(st.sampled_from(FORMULAS))[0]
                    task["formula"] = [FORMULA, VARIANT]
                case "list":
                    task["formula"] = draw(st.sampled_from([[], [FORMULA, 3], [[FORMULA]],
                                                            {"main": FORMULA}, 1.5]))
                case _:
                    task["formula"] = draw(st.sampled_from(
                        ["../rule.gml", "rule.gml/", ".", "", "nope.gml", "x" * 300,
                         "a\x00b", FILENAME, MOTIF]))
        case "family":
            task["graphs"] = {**graphs, "family": draw(FAMILY_NAMES)}
        case "generator":
            task["graphs"] = {"generator": draw(st.sampled_from(GENERATORS))}
        case "source":
            match draw(st.sampled_from(["two", "none", "bad-file", "missing-file"])):
                case "two":
                    graphs.update({"family": "tree", "file": GRAPH_FILE})
                    files.setdefault(GRAPH_FILE, '{"num_nodes": 1, "edges": []}\n')
                case "none":
                    for key in ("family", "file", "generator"):
                        graphs.pop(key, None)
                case "bad-file":
                    task["graphs"] = {"file": GRAPH_FILE}
                    files[GRAPH_FILE] = draw(st.sampled_from(BAD_GRAPH_FILES))
                case _:
                    task["graphs"] = {"file": "missing.jsonl"}
        case "motif":
            _plant(task, files)
            files[MOTIF] = draw(st.sampled_from(BAD_GRAPH_FILES + (
                '{"num_nodes": 2, "edges": [[0, 1]]}', '[{"num_nodes": 1, "edges": []}, '
                '{"num_nodes": 1, "edges": []}]')))
        case "plant":
            task["plant"] = draw(st.sampled_from([{"motif": MOTIF}, [1], [[{"motif": MOTIF}]],
                                                  [{"count": 1}], "motif.json"]))
            files.setdefault(MOTIF, '{"num_nodes": 1, "colors": [[]], "edges": []}')
        case "odds":
            key = draw(st.sampled_from(["colors", "attributes", "relations"]))
            graphs[key] = draw(st.sampled_from([
                {}, {"red": 0.7, "blue": 0.7}, {"purple": 1.0}, [0.5], "red", {"red": -0.1},
                {"element": {"C": 0.5}}, {"element": {"C": 1.0, "X": 0.0}}, {"single": 1},
                {"red": "0.5"}, {"red": {"p": 1}}]))
        case "dataset":
            task["dataset"] = draw(st.sampled_from([{"targets": 2}, {"graphs": 2},
                                                    {"graphs": 2, "targets": 2}, [], "big",
                                                    {"positive_fraction": 2}]))
        case _:
            match draw(st.sampled_from(["nodes", "graphs", "array"])):
                case "nodes":
                    graphs["nodes"] = draw(st.sampled_from([
                        {"min": {"min": 1}, "max": 2}, {"min": 1}, {"min": 1, "max": 2, "mean": 1},
                        {"min": 3, "max": 1}, [1, 2]]))
                case "graphs":
                    task["graphs"] = {"graphs": graphs}
                case _:
                    task["graphs"] = [graphs]
    return how


def _plant(task: dict[str, Any], files: dict[str, str | bytes]) -> dict[str, Any]:
    """The task's first `[[plant]]` table, made (with a motif of one node) if missing."""
    plants = task.get("plant")
    if not (isinstance(plants, list) and plants and isinstance(plants[0], dict)):
        plants = task["plant"] = [{"motif": MOTIF}]
        files.setdefault(MOTIF, '{"num_nodes": 1, "colors": [[]], "edges": []}')
    return plants[0]  # type: ignore[no-any-return]


def _text_edit(draw: st.DrawFn, text: str) -> tuple[str, str]:
    """One edit of the task file's text; the text and its name. `deep-20` (a `description`
    nested 20 deep) is the one that keeps a valid file without a description valid."""
    how = draw(st.sampled_from(["cut", "insert", "double", "deep", "digits", "bom"]))
    at = draw(st.integers(0, len(text)))
    match how:
        case "cut":
            return text[:at], how
        case "insert":
            return text[:at] + draw(st.sampled_from(TOKENS)) + text[at:], how
        case "double":
            lines = text.splitlines(keepends=True)
            line = draw(st.integers(0, max(0, len(lines) - 1)))
            return "".join(lines[:line + 1] + lines[line:]), how
        case "deep":
            depth = draw(st.sampled_from([20, 33, 2000, 100_000]))
            value, nested = draw(st.sampled_from([
                (True, "description = " + "[" * depth + "0" + "]" * depth),
                (True, "description = " + "{a = " * depth + "0" + "}" * depth),
                (False, "x" + ".a" * depth + " = 0"), (False, "[" + "a." * depth + "b]")]))
            # A value nested 20 deep is valid (`description` takes anything); a key is not.
            return nested + "\n" + text, f"deep-{depth}" if value else f"deep-key-{depth}"
        case "digits":
            digits = draw(st.sampled_from(["7" * 5000, "1_" * 4400 + "1", "0x" + "f" * 5000]))
            return f"description = {digits}\n" + text, how
        case _:
            return "\ufeff" + text, how


def claims_valid(edits: list[str], task: dict[str, Any]) -> bool:
    """Whether a task from `_valid_task` is still one gracr must accept after `edits`: with
    none, or with only a `description` nested 20 deep put before it, unless it has a
    description already (a key given twice is a TOML error)."""
    return not edits or (edits == ["deep-20"] and "description" not in task)


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    task, files, expect = draw(_valid_task())
    edits = [_edit(draw, task, files) for _ in range(draw(st.sampled_from([0, 0, 1, 1, 1, 2])))]
    text = task_toml(task)
    for _ in range(draw(st.sampled_from([0] * 6 + [1, 2]))):
        text, how = _text_edit(draw, text)
        edits.append(how)
    intact = claims_valid(edits, task)
    if not intact:
        expect = {"nodes": None, "size": draw(SIZES)}
    files[FILENAME] = text
    return {"files": files, "edits": edits, "intact": intact,
            **expect,
            "seed": draw(st.sampled_from([0, 1, 2, 3, 0, 1, -1])),
            "options": draw(st.fixed_dictionaries({
                "disjunction": st.sampled_from(["demorgan", "flat"]),
                "comparison": st.sampled_from(["expanded", "direct"]),
                "presence": st.booleans()}))}


# ---------------------------------------------------------------- running one


def _write(files: dict[str, str | bytes], folder: Path) -> None:
    for name, content in files.items():
        path = folder / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def _built(path: Path, seed: int, size: int | None, store: Path) -> Dataset:
    """`load_or_build` as a fresh `gracrc dataset` runs it: the task registry as at start
    (each input names its own task, often by a name an earlier one took)."""
    known = dict(TASKS)
    try:
        return load_or_build(str(path), seed, size, str(store), progress=False,
                             max_bdd_nodes=MAX_BDD_NODES)
    finally:
        TASKS.clear()
        TASKS.update(known)


def run(payload: Payload, reached: Reached) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        _write(payload["files"], folder)
        path = folder / FILENAME
        try:
            read_task_toml(path)
            reached.passed("parsed")
            task = Task.from_file(path)
        except GracrError as error:
            if payload["intact"]:
                raise Finding("a valid task file was refused", str(error)) from None
            raise
        reached.passed("checked")
        try:
            dataset = _built(path, payload["seed"], payload["size"], folder / "store")
        except GracrError:
            if (folder / "store").exists():
                raise Finding("a failed build left a folder behind",
                              str(sorted(map(str, (folder / "store").rglob("*"))))) from None
            raise
        program = task.program()
    graphs = [instance.graph for instance in dataset.instances]
    try:
        model = compile_program(program, max_degree=max(g.max_in_degree() for g in graphs),
                                max_weights_bytes=FUZZ_BUDGET, **payload["options"])
    except GracrError as error:          # a formula of a few operators, graphs of a few nodes
        raise Finding("a built task's formula was refused by the compiler", str(error)) \
            from None
    reached.passed("compiled")
    try:
        _check_dataset(task, program, model, dataset, payload)
    except GracrError as error:
        raise Finding("a built dataset's graph was refused", str(error)) from None
    reached.passed("evaluated")


def _check_dataset(task: Task, program: Program, model: Any, dataset: Dataset,
                   payload: Payload) -> None:
    size = payload["size"] if payload["size"] is not None else task.default_size
    instances = dataset.instances
    graph_kind = program.kind is Kind.GRAPH
    from_file = isinstance(task.source, GraphFile)
    if (graph_kind or from_file) and len(instances) != size:
        raise Finding("the dataset has the wrong size",
                      f"{len(instances)} graphs, {size} asked for")
    if graph_kind and not from_file:       # drawn to the task's class balance
        positives = sum(instance.label == 1 for instance in instances)
        if positives != int(size * task.positive_fraction):
            raise Finding("the dataset has the wrong class balance",
                          f"{positives} positive of {size}, fraction {task.positive_fraction}")
    if not graph_kind and not from_file:   # drawn until there are enough targets
        found = sum(len(instance.targets) for instance in instances)
        if found < size:
            raise Finding("the dataset has too few targets", f"{found} of {size}")
    bounds = payload["nodes"]
    barren = 0
    for index, instance in enumerate(instances):
        graph = instance.graph
        if bounds is not None and not bounds[0] <= graph.num_nodes <= bounds[1]:
            raise Finding("a drawn graph has a size the task does not allow",
                          f"graph {index}: {graph.num_nodes} nodes, allowed {bounds}")
        value = np.asarray(evaluate_program(program, graph, max_bytes=FUZZ_BUDGET))
        if graph_kind:
            if instance.label != int(bool(value)):
                raise Finding("a stored label disagrees with the formula",
                              f"graph {index}: stored {instance.label}, formula {int(value)}")
            stored: list[tuple[int | None, int, Any]] = [(None, instance.label, instance.upi[0])]
        else:
            assert instance.node_labels is not None
            if not np.array_equal(instance.node_labels, value) or \
                    list(instance.targets) != np.flatnonzero(value).tolist():
                raise Finding("stored node labels disagree with the formula",
                              f"graph {index}: stored {instance.node_labels.astype(int).tolist()}"
                              f", formula {value.astype(int).tolist()}")
            stored = [(target, 1, mask) for target, mask in zip(instance.targets, instance.upi)]
            barren += not stored
            if barren > CHECKED_BARREN_GRAPHS:
                continue
        check_consistent(program, model, graph)
        for target, label, mask in stored:
            check_upi(program, graph, target, label, mask, "a stored UPI",
                      f"graph {index}, target {target}")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc dataset` on the task file, exporting what it built: exit 2 exactly when the
    API refused; the export the very dataset the API built."""
    _write(payload["files"], folder)
    size = payload["size"]
    argv = ["dataset", FILENAME, "--seed", str(payload["seed"]), "--out", "store", "--export",
            "export.jsonl", "--max-bdd-nodes", str(MAX_BDD_NODES)]
    if size is not None:
        argv += ["--graphs", str(size), "--targets", str(size)]
    check: Callable[[str], None] | None = None
    if "compiled" in reached.stages:
        api = folder / "api"
        api.mkdir()
        _write(payload["files"], api)
        dataset = _built(api / FILENAME, payload["seed"], size, api / "store")
        export(dataset, str(api / "export.jsonl"))

        def check(out: str) -> None:
            first = f"{dataset.task} seed {payload['seed']}: {len(dataset.instances)} graphs"
            if not out.startswith(first):
                raise Finding("gracrc dataset said another size", f"{out[:200]!r}, not {first!r}")
            exported = (folder / "export.jsonl").read_text(encoding="utf-8")
            if exported != (api / "export.jsonl").read_text(encoding="utf-8"):
                raise Finding("gracrc dataset built another dataset than the API",
                              exported[:500])

    return CliRun(argv, must_fail=reached.refused is not None, check_output=check)


def describe(payload: Payload) -> str:
    text = payload["files"][FILENAME]
    return f"{'+'.join(payload['edits']) or 'intact'}, {len(text)} characters: {text[:60]!r}"


KIND = InputKind("task-file", ("parsed", "checked", "compiled", "evaluated"), payloads, run,
                 cli, share=1.0, describe=describe)
