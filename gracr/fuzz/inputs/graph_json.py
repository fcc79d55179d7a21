"""Graph JSON: valid graphs for a fixed program, then edited the way a careless or hostile
file is: wrong types, huge or negative numbers, missing and unknown keys, unicode,
nesting thousands deep, integers of thousands of digits, cut text; as one object, a list
or JSON Lines.

An input runs as parsed (the JSON decodes) -> checked (every graph is built and fits the
program) -> evaluated (`oracle.check_consistent` on each graph, against the program's
network compiled exactly for it).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from gracr.data.graph import placed_graphs_in
from gracr.data.json_text import JsonError, parse_json
from gracr.executor.model import CompiledGNN, compile_program
from gracr.errors import GracrError
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.oracle import PROGRAMS, check_consistent, pool_program
from gracr.limits import format_bytes

FILENAME = "graphs.json"

# Values put where a field should be: every JSON type, at its edges.
HOSTILE: st.SearchStrategy[Any] = st.one_of(
    st.sampled_from([-1, 0, 2**31, 2**53 + 1, 2**63, 2**64, 10**12, 1.5, 3.0, float("inf"),
                     float("nan"), True, None, "", "3", "red", "\u202e", "é" * 3, [], {},
                     [[]], [None], [0], [[0, 1]], {"a": 1}, "x" * 10_000]),
    st.integers(), st.text(max_size=8),
    st.lists(st.one_of(st.integers(-3, 10), st.text(max_size=3)), max_size=4),
)
KEYS = ("num_nodes", "colors", "edges", "target", "attributes", "relations", "label", "upi")


@st.composite
def graph_objects(draw: st.DrawFn, program: int) -> dict[str, Any]:
    """A graph that fits program `program`, then maybe edited."""
    _, palette, families, relations = PROGRAMS[program]
    nodes = draw(st.integers(0, 7))
    node = st.integers(0, max(nodes - 1, 0))
    edges = draw(st.lists(st.tuples(node, node), max_size=12)) if nodes else []
    obj: dict[str, Any] = {"num_nodes": nodes, "edges": [list(e) for e in edges]}
    if palette:
        obj["colors"] = [draw(st.lists(st.sampled_from(palette), max_size=2))
                         for _ in range(nodes)]
    if families:
        obj["attributes"] = {name: [draw(st.sampled_from(values)) for _ in range(nodes)]
                             for name, values in families.items()}
    if relations:
        obj["relations"] = [draw(st.sampled_from(relations)) for _ in edges]
    if nodes and draw(st.booleans()):
        obj["target"] = draw(node)
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3]))):
        match draw(st.sampled_from(["set", "delete", "unknown", "colour", "edge", "deep"])):
            case "set":
                obj[draw(st.sampled_from(KEYS))] = draw(HOSTILE)
            case "delete":
                obj.pop(draw(st.sampled_from(KEYS)), None)
            case "unknown":
                key = draw(st.sampled_from(["colours", "x-note", "Colors", "ñ", ""]))
                obj[key] = draw(HOSTILE)
            case "colour" if isinstance(obj.get("colors"), list) and obj["colors"]:
                obj["colors"][draw(st.integers(0, len(obj["colors"]) - 1))] = draw(
                    st.one_of(HOSTILE, st.just(["purple"]), st.just(["red", 7])))
            case "edge" if isinstance(obj.get("edges"), list):
                obj["edges"].append(draw(st.sampled_from(
                    [[nodes, 0], [-1, 0], [0], [0, 1, 2], [0.5, 1], [True, 0], [2**70, 0],
                     "0-1", None, [0, nodes + 10**9]])))
            case "deep":
                depth = draw(st.sampled_from([50, 2000, 100_000]))
                obj[draw(st.sampled_from(KEYS))] = f"__DEEP_{depth}__"
    return obj


def _deep(text: str) -> str:
    """The `"__DEEP_n__"` placeholders as arrays nested n deep (too deep to build in Python)."""
    while '"__DEEP_' in text:
        start = text.index('"__DEEP_')
        end = text.index('__"', start + 8) + 3
        depth = int(text[start + 8:end - 3])
        text = text[:start] + "[" * depth + "0" + "]" * depth + text[end:]
    return text


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    program = draw(st.integers(0, len(PROGRAMS) - 1))
    objects = draw(st.lists(graph_objects(program), min_size=1, max_size=3))
    layout = draw(st.sampled_from(["object", "object", "list", "lines"]))
    if layout == "object":
        text = json.dumps(objects[0])
    elif layout == "list":
        text = json.dumps(objects)
    else:
        text = "\n".join(json.dumps(obj) for obj in objects) + "\n"
    text = _deep(text)
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        at = draw(st.integers(0, len(text)))
        match draw(st.sampled_from(["cut", "insert", "digits", "bom"])):
            case "cut":
                text = text[:at]
            case "insert":
                text = text[:at] + draw(st.sampled_from(
                    [",", "]", "}", "{", "NaN", "-Infinity", '"', "\\", "\x00", "\n", "//"]
                )) + text[at:]
            case "digits":
                text = text[:at] + "7" * draw(st.sampled_from([20, 4301, 100_000])) + text[at:]
            case "bom":
                text = "\ufeff" + text
    return {"program": program, "text": text}


@cache
def _model(index: int, bound: int) -> CompiledGNN:
    return compile_program(pool_program(index), max_degree=bound, max_weights_bytes=FUZZ_BUDGET)


def run(payload: Payload, reached: Reached) -> None:
    text = payload["text"]
    if _decodes(text):
        reached.passed("parsed")
    program = pool_program(payload["program"])
    graphs = [graph for _, graph in placed_graphs_in(text, FILENAME, program.schema)]
    if "parsed" not in reached.stages:
        raise Finding("text that is not JSON was read as graphs", text[:200])
    reached.passed("checked")
    for graph in graphs:
        model = _model(payload["program"], graph.max_in_degree())
        try:
            check_consistent(program, model, graph)
        except GracrError as error:
            if graph.num_nodes + graph.num_edges > SMALL:
                raise                                    # a budget refusing a huge graph
            raise Finding("a valid graph was refused", str(error)) from None
    reached.passed("evaluated")


def _decodes(text: str) -> bool:
    """Whether `text` is JSON, one value or one per line (JSON Lines)."""
    try:
        parse_json(text)
        return True
    except JsonError:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) <= 1:
            return False
        try:
            for line in lines:
                parse_json(line)
        except JsonError:
            return False
        return True


# Graphs up to this many nodes and edges are far inside every budget: one refused
# after it was read and fitted to the program is a finding.
SMALL = 10_000


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc eval` on the program and the graph file: exit 2 exactly when the API refused."""
    (folder / "program.gml").write_text(PROGRAMS[payload["program"]][0])
    (folder / FILENAME).write_text(payload["text"], encoding="utf-8")
    return CliRun(["eval", "program.gml", FILENAME, "--max-weights-bytes",
                   format_bytes(FUZZ_BUDGET).replace(" ", "")],
                  must_fail=reached.refused is not None)


def describe(payload: Payload) -> str:
    return f"program {payload['program']}, {len(payload['text'])} characters: " \
           f"{payload['text'][:60]!r}"


KIND = InputKind("graph-json", ("parsed", "checked", "evaluated"), payloads, run, cli,
                 share=3.0, describe=describe)
