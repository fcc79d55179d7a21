"""Task files written by `gracr.bench.task_writer`: the domains' files byte for byte as
their template code wrote them, every description written then read back as the same
task, and the writer refusing exactly what the reader refuses."""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gracr.bench.graph_sources import Between, GraphFile, PythonGenerator, RandomGraphs
from gracr.bench.task_writer import (DatasetTable, FamilyGraphs, FileGraphs, GeneratorGraphs,
                                     PlantTable, TaskFile, task_file_text, task_toml,
                                     toml_string, write_task_file)
from gracr.bench.tasks import Task, TaskFileError
from gracr.dsl import ir
from gracr.errors import GracrError

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures"))
from make_task_file_goldens import GOLDEN, task_files  # noqa: E402


def test_the_domains_write_the_task_files_their_templates_wrote(tmp_path: Path) -> None:
    written = task_files(tmp_path)
    assert sorted(written) == sorted(path.name for path in GOLDEN.iterdir())
    for name, data in written.items():
        assert data == (GOLDEN / name).read_bytes(), name


# ---------------------------------------------------------------- the files a case needs

# The formulas every drawn task names: a palette, an attribute family and relations, as a
# graph classifier and as a node classifier.
DECLARATIONS = "colors red, blue, green\nattribute element = C, O\nrelations single, double\n"
FORMULA = {ir.Kind.GRAPH: DECLARATIONS + "classify exists (red & <1>{single} blue)\n",
           ir.Kind.NODE: DECLARATIONS + "classify red & <1>{single} blue\n"}
PALETTE, ELEMENTS, RELATIONS = ("red", "blue", "green"), ("C", "O"), ("single", "double")
GRAPH = json.dumps({"num_nodes": 2, "colors": [["red"], ["blue"]],
                    "attributes": {"element": ["C", "O"]}, "edges": [[0, 1], [1, 0]],
                    "relations": ["single", "double"]})
GRAPHS_IN_FILE = 3
GENERATORS = ("gracr.domains.paper.tasks:red_blue_leaf", "gracr.domains.paper.tasks:majority")

# Characters a TOML string must escape or that a careless template would break on.
TRICKY = ['"', "\\", "'", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u0085", "\u2028",
          "é", "名", "🙂", "#", "=", "[", "]", "{", "}", ",", " ", '"""', "\\u0041", "a"]
NEEDS_ESCAPE = set('"\\') | {chr(c) for c in range(0x20)} | {"\x7f"}


def _texts(alphabet: list[str], max_size: int) -> st.SearchStrategy[str]:
    """Strings of the tricky pieces and any other Unicode characters, mixed."""
    unicode = st.characters(codec="utf-8")       # no lone surrogate
    return st.lists(st.one_of(st.sampled_from(alphabet), unicode), max_size=max_size) \
        .map("".join)


def _file_names(prefix: str) -> st.SearchStrategy[str]:
    # A file name holds neither '/' nor NUL; a prefix keeps the roles apart.
    usable = [piece for piece in TRICKY if "\x00" not in piece]
    return _texts(usable, 8).map(lambda text: prefix + text.replace("/", "").replace("\x00", ""))


def _comments() -> st.SearchStrategy[str]:
    # A comment line holds no control character but the tab.
    allowed = [piece for piece in TRICKY if not any(
        (ord(c) < 0x20 and c != "\t") or c == "\x7f" for c in piece)]
    return st.lists(st.one_of(st.sampled_from(allowed),
                              st.characters(codec="utf-8", exclude_categories=["Cc"])),
                    max_size=20).map("".join)


NAMES = st.tuples(st.sampled_from("Aa9Z"),
                  st.text(st.sampled_from(list("bZ0_.+-é名ßΣ٣")), max_size=10)) \
    .map("".join)


@st.composite
def odds(draw: st.DrawFn, names: tuple[str, ...], whole: bool) -> tuple[tuple[str, float], ...]:
    """Probabilities in tenths, summing to 1 when `whole` (as floats: not exactly 1)."""
    chosen = names if whole else tuple(draw(st.lists(st.sampled_from(names), min_size=1,
                                                     unique=True)))
    tenths = [draw(st.integers(0, 10)) for _ in chosen]
    if whole:
        tenths[-1] = 0
        spare = 10
        for index in range(len(tenths) - 1):
            tenths[index] = min(tenths[index], spare)
            spare -= tenths[index]
        tenths[-1] = spare
    else:
        while sum(tenths) > 10:
            tenths[tenths.index(max(tenths))] -= 1
    return tuple((name, tenth / 10) for name, tenth in zip(chosen, tenths))


def _between(low: int, high: int) -> st.SearchStrategy[Between | None]:
    return st.one_of(st.none(), st.tuples(st.integers(low, high), st.integers(0, 3)).map(
        lambda pair: Between(pair[0], pair[0] + pair[1])))


@st.composite
def graphs_tables(draw: st.DrawFn) -> tuple[Any, tuple[PlantTable, ...]]:
    kind = draw(st.sampled_from(["family", "file", "generator"]))
    if kind == "file":
        return FileGraphs(draw(_file_names("g-"))), ()
    if kind == "generator":
        return GeneratorGraphs(draw(st.sampled_from(GENERATORS))), ()
    attributes = draw(st.sampled_from([(), (("element", draw(odds(ELEMENTS, True))),)]))
    family = FamilyGraphs(
        draw(st.sampled_from(["tree", "barabasi-albert", "erdos-renyi"])),
        nodes=draw(_between(1, 30)),
        colors=draw(st.one_of(st.none(), odds(PALETTE, False))),
        attributes=attributes,
        relations=draw(st.one_of(st.none(), odds(RELATIONS, True))))
    plants = tuple(draw(st.lists(st.builds(
        PlantTable, _file_names("m-"), _between(0, 3),
        st.one_of(st.none(), st.integers(0, 3))), max_size=2)))
    return family, plants


@dataclass(frozen=True)
class Case:
    task: TaskFile
    kind: ir.Kind


@st.composite
def cases(draw: st.DrawFn) -> Case:
    kind = draw(st.sampled_from([ir.Kind.GRAPH, ir.Kind.NODE]))
    graphs, plants = draw(graphs_tables())
    maybe = st.one_of(st.none(), st.integers(1, 2000))
    if kind is ir.Kind.GRAPH:
        dataset = DatasetTable(graphs=draw(maybe), positive_fraction=draw(
            st.one_of(st.none(), st.sampled_from([0.0, 0.25, 1.0, 1 / 3, 0.1]))))
    else:
        dataset = DatasetTable(targets=draw(maybe))
    formulas = tuple(draw(st.lists(_file_names("f-"), min_size=1, max_size=3)))
    return Case(TaskFile(
        name=draw(NAMES), formulas=formulas, graphs=graphs, plants=plants, dataset=dataset,
        description=draw(st.one_of(st.none(), _texts(TRICKY, 20))),
        comments=tuple(draw(st.lists(_comments(), max_size=3)))), kind)


def _files(case: Case, folder: Path) -> None:
    """The formula, graph and motif files `case.task` names, in `folder`."""
    for formula in case.task.formulas:
        (folder / formula).write_text(FORMULA[case.kind], encoding="utf-8")
    if isinstance(case.task.graphs, FileGraphs):
        (folder / case.task.graphs.file).write_text((GRAPH + "\n") * GRAPHS_IN_FILE,
                                                    encoding="utf-8")
    for plant in case.task.plants:
        (folder / plant.motif).write_text(GRAPH, encoding="utf-8")


def _uniform(names: tuple[str, ...]) -> tuple[tuple[str, float], ...]:
    return tuple((name, 1 / len(names)) for name in names)


def _check_read_back(case: Case, read: Task, folder: Path) -> None:
    """`read` is the task `case.task` describes: every expectation from the description
    and the format's documented defaults, none from the writer."""
    task = case.task
    assert read.name == task.name
    assert read.formulas == tuple(folder / formula for formula in task.formulas)
    assert read.kind is case.kind
    assert read.graphs == (1000 if task.dataset.graphs is None else task.dataset.graphs)
    assert read.targets == (500 if task.dataset.targets is None else task.dataset.targets)
    fraction = task.dataset.positive_fraction
    assert read.positive_fraction == (0.5 if fraction is None else fraction)
    source = read.source
    if isinstance(task.graphs, FileGraphs):
        assert isinstance(source, GraphFile) and source.path == folder / task.graphs.file
        assert len(source.graphs) == GRAPHS_IN_FILE
    elif isinstance(task.graphs, GeneratorGraphs):
        assert source == PythonGenerator(task.graphs.generator, print)
    else:
        assert isinstance(source, RandomGraphs)
        family = task.graphs
        assert source.family == family.family
        assert source.nodes == (family.nodes or Between(25, 25))
        assert source.colors == (family.colors or _uniform(PALETTE))
        assert source.attributes == (("element", dict(family.attributes).get(
            "element", _uniform(ELEMENTS))),)
        assert source.relations == (family.relations or _uniform(RELATIONS))
        assert len(source.plants) == len(task.plants)
        for plant, drawn in zip(task.plants, source.plants):
            assert drawn.count == (plant.count or Between(1, 1))
            assert drawn.links == (1 if plant.links is None else plant.links)
            assert drawn.motif.num_nodes == 2


def _needs_escaping(task: TaskFile) -> bool:
    strings = [*task.formulas, task.description or ""]
    if isinstance(task.graphs, FileGraphs):
        strings.append(task.graphs.file)
    strings += [plant.motif for plant in task.plants]
    return any(c in NEEDS_ESCAPE for text in strings for c in text)


def test_a_task_written_then_read_is_the_task_described() -> None:
    drawn: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(case=cases())
    def round_trip(case: Case) -> None:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            _files(case, folder)
            path = write_task_file(folder / "task.toml", case.task)
            _check_read_back(case, Task.from_file(path), folder)
            # What the reader keeps no trace of, TOML gives back as written.
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            assert data.get("description") == case.task.description
            lines = path.read_text(encoding="utf-8").split("\n")
            assert lines[:len(case.task.comments)] == \
                [f"# {line}" if line else "#" for line in case.task.comments]
        drawn["cases"] += 1
        drawn["a string TOML must escape"] += _needs_escaping(case.task)
        drawn["non-ASCII text"] += any(not c.isascii() for c in
                                       case.task.name + (case.task.description or ""))
        drawn["a family with plants"] += bool(case.task.plants)
        drawn[f"graphs from {type(case.task.graphs).__name__}"] += 1
        drawn["more than one formula"] += len(case.task.formulas) > 1

    round_trip()
    # How often the cases that matter were drawn (pytest -s shows it).
    print(f"\nround trip: {dict(drawn)}")
    share = drawn["a string TOML must escape"] / drawn["cases"]
    assert share >= 0.3, drawn
    assert drawn["a family with plants"] >= 20 and drawn["non-ASCII text"] >= 50, drawn
    assert min(drawn[f"graphs from {kind}"] for kind in
               ("FamilyGraphs", "FileGraphs", "GeneratorGraphs")) >= 40, drawn


# ---------------------------------------------------------------- refusing what the reader refuses

# A motif of one node and no edge: the fewest a motif has, so that the writer's bound on
# a drawn graph's size (it does not read the motif) is the reader's.
ONE_NODE = json.dumps({"num_nodes": 1, "colors": [["red"]], "attributes": {"element": ["C"]},
                       "edges": [], "relations": []})
NAN = math.nan
BIG = 10**6     # MAX_TASK_GRAPH


def _mutations(case: Case) -> list[tuple[str, TaskFile]]:
    """Descriptions one value away from `case.task`, each wrong or right whatever the
    other files hold (so that the writer can tell): a value of every check the reader
    makes on the file's own content, with values on both sides of each limit."""
    task = case.task
    changed: list[tuple[str, TaskFile]] = []
    for name in ["", "a b", "-x", ".x", 'a"b', "a/b", "名", "x\n", "A", "A名+.-_"]:
        changed.append((f"name {name!r}", replace(task, name=name)))
    changed.append(("no formula", replace(task, formulas=())))
    changed.append(("an empty formula name", replace(task, formulas=("",))))
    for line in ["\x01", "\x7f", "a\x1bb", "tab\tok"]:
        changed.append((f"comment {line!r}", replace(task, comments=(line,))))
    graphs = task.graphs
    if isinstance(graphs, FileGraphs):
        changed.append(("an empty graph file name", replace(task, graphs=FileGraphs(""))))
    if isinstance(graphs, GeneratorGraphs):
        for reference in ["nocolon", "a:b:c", ":red_blue_leaf", "gracr.domains.paper.tasks:",
                          "gracr..domains:f", "1gracr:f"]:
            changed.append((f"generator {reference!r}",
                            replace(task, graphs=GeneratorGraphs(reference))))
    plant = PlantTable("one-node.json")
    if not isinstance(graphs, FamilyGraphs):
        changed.append(("a plant into another source", replace(task, plants=(plant,))))
        return changed
    for family in ["nope", "Tree", "tree "]:
        changed.append((f"family {family!r}", replace(task, graphs=replace(graphs,
                                                                          family=family))))
    for low, high in [(0, 3), (5, 3), (1, BIG), (1, BIG + 1), (-1, -1), (True, True),
                      (1.5, 2), (3, 3)]:
        changed.append((f"nodes {low}..{high}", replace(
            task, graphs=replace(graphs, nodes=Between(low, high)))))  # type: ignore[arg-type]
    for colors in [(("red", 1.5),), (("red", -0.1),), (("red", NAN),), (("red", True),), (),
                   (("red", 0.6), ("blue", 0.6)), (("red", 0.5), ("blue", 0.5 + 1e-10)),
                   (("red", 0.5), ("blue", 0.5 + 1e-8)), (("red", 1),)]:
        changed.append((f"colors {colors}", replace(
            task, graphs=replace(graphs, colors=colors))))
    for values in [(("C", 0.5),), (("C", 0.5), ("O", 0.5 + 5e-10)),
                   (("C", 0.5), ("O", 0.5 - 5e-9)), (("C", 1.0), ("O", 0.0))]:
        changed.append((f"attributes {values}", replace(
            task, graphs=replace(graphs, attributes=(("element", values),)))))
    for relations in [(("single", 0.3),), (("single", 0.3), ("double", 0.7)),
                      (("single", 1.2), ("double", -0.2))]:
        changed.append((f"relations {relations}", replace(
            task, graphs=replace(graphs, relations=relations))))
    for count, links in [(Between(-1, 0), None), (Between(2, 1), None), (None, -1),
                         (Between(0, 0), 10**7), (Between(1, 1), BIG // 2),
                         (Between(1, 1), BIG // 2 + 1), (Between(0, BIG), 0),
                         (None, True), (Between(0, 2), 2.0)]:
        changed.append((f"plant count {count} links {links}", replace(task, graphs=replace(
            graphs, nodes=Between(1, 1)), plants=(replace(plant, count=count,
                                                          links=links),))))  # type: ignore[arg-type]
    changed.append(("nodes at the limit with a plant", replace(
        task, graphs=replace(graphs, nodes=Between(1, BIG - 1)), plants=(plant,))))
    changed.append(("nodes over the limit with a plant", replace(
        task, graphs=replace(graphs, nodes=Between(1, BIG)), plants=(plant,))))
    return changed


def _dataset_mutations(case: Case) -> list[tuple[str, TaskFile]]:
    """The dataset sizes its formula's kind counts, right and wrong, and both kinds'."""
    task = case.task
    sizes: list[DatasetTable] = [DatasetTable(graphs=1, targets=1),
                                 DatasetTable(positive_fraction=0.5, targets=3)]
    if case.kind is ir.Kind.GRAPH:
        sizes += [DatasetTable(graphs=value)  # type: ignore[arg-type]
                  for value in (0, -3, True, 2.5, 1)]
        sizes += [DatasetTable(positive_fraction=value)
                  for value in (1.5, -0.1, NAN, True, 0, 1, 0.999)]
    else:
        sizes += [DatasetTable(targets=value) for value in (0, -1, False, 7.0, 1)]  # type: ignore[arg-type]
    return [(f"dataset {size}", replace(task, dataset=size)) for size in sizes]


def _raw(value: Any) -> Any:
    """A description's value as TOML reads it, unchecked."""
    if isinstance(value, Between):
        return value.low if value.low == value.high else {"min": value.low, "max": value.high}
    if isinstance(value, tuple):        # odds: (name, probability) pairs
        return {name: p for name, p in value}
    return value


def _raw_tables(task: TaskFile) -> dict[str, Any]:
    """The tables a description stands for, built from the format's documentation and
    not checked: what a hand-written file with the same values would hold."""
    tables: dict[str, Any] = {"name": task.name, "formula": task.formulas[0]
                              if len(task.formulas) == 1 else list(task.formulas)}
    graphs = task.graphs
    if isinstance(graphs, FileGraphs):
        tables["graphs"] = {"file": graphs.file}
    elif isinstance(graphs, GeneratorGraphs):
        tables["graphs"] = {"generator": graphs.generator}
    else:
        table = {"family": graphs.family, "nodes": graphs.nodes, "colors": graphs.colors,
                 "attributes": {family: _raw(odds) for family, odds in graphs.attributes}
                 or None, "relations": graphs.relations}
        tables["graphs"] = {key: _raw(value) for key, value in table.items()
                            if value is not None}
    if task.plants:
        tables["plant"] = [{key: _raw(value) for key, value in
                            (("motif", plant.motif), ("count", plant.count),
                             ("links", plant.links)) if value is not None}
                           for plant in task.plants]
    dataset = {key: value for key, value in (("graphs", task.dataset.graphs),
                                             ("positive_fraction",
                                              task.dataset.positive_fraction),
                                             ("targets", task.dataset.targets))
               if value is not None}
    if dataset:
        tables["dataset"] = dataset
    return tables


def test_the_writer_refuses_what_the_reader_refuses() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(case=cases())
    def agree(case: Case) -> None:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            _files(case, folder)
            (folder / "one-node.json").write_text(ONE_NODE, encoding="utf-8")
            for what, task in _mutations(case) + _dataset_mutations(case):
                try:
                    task_file_text(task)
                    written = True
                except TaskFileError:
                    written = False
                path = folder / "by-hand.toml"
                text = task_toml(_raw_tables(task), task.comments)
                path.write_text(text, encoding="utf-8")
                try:
                    Task.from_file(path)
                    read = True
                except GracrError:
                    read = False
                assert written is read, (what, text)
                outcomes["written and read" if read else "refused by both"] += 1

    agree()
    print(f"\nwriter and reader agree: {dict(outcomes)}")
    assert outcomes["refused by both"] >= 200 and outcomes["written and read"] >= 50, outcomes


@pytest.mark.parametrize("task, key", [
    (TaskFile("T", ("f.gml",), FileGraphs("g.jsonl"), dataset=DatasetTable(graphs=2**63)),
     "dataset.graphs"),
    (TaskFile("T", ("f.gml",), FamilyGraphs("tree", colors=(("red", 0.5), ("red", 0.5)))),
     "graphs.colors"),
    (TaskFile("T", ("f.gml",), FileGraphs("g.jsonl"), comments=("one\n# two",)), "comment"),
    (TaskFile("T", ("f\ud800.gml",), FileGraphs("g.jsonl")), "formula"),
    (TaskFile("T", ("f.gml",), FileGraphs("g\x00.jsonl")), "graphs.file"),
    (TaskFile("T", ("f.gml",), FileGraphs("g.jsonl"),
              description=3), "description"),  # type: ignore[arg-type]
])
def test_what_toml_cannot_say_as_described_is_refused(task: TaskFile, key: str,
                                                     tmp_path: Path) -> None:
    # Beyond the reader's checks: an integer past TOML's 64 bits, a name given twice (a
    # TOML error), a comment that would be two lines, text that is not Unicode, a file
    # name no file has, a description that is not text. Nothing is written.
    with pytest.raises(TaskFileError, match=f"^{re.escape(str(tmp_path / 'task.toml'))}: "
                                            f"{re.escape(key)}: "):
        write_task_file(tmp_path / "task.toml", task)
    assert not (tmp_path / "task.toml").exists()


def test_a_refusal_names_the_task_and_the_key() -> None:
    task = TaskFile("T", ("f.gml",), FamilyGraphs("tree", nodes=Between(5, 3)))
    with pytest.raises(TaskFileError) as caught:
        task_file_text(task)
    assert str(caught.value) == "task 'T': graphs.nodes: min 5 is above max 3"


def test_toml_strings_escape_what_toml_wants_escaped() -> None:
    for text in TRICKY + ["".join(TRICKY), "\U0010ffff", ""]:
        assert tomllib.loads(f"x = {toml_string(text)}")["x"] == text
