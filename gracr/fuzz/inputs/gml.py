"""`.gml` sources: written from the grammar, and mutated from programs like the paper's.

Grammar-generated sources use every construct of the language (each modality with and
without relation filters, `exists` with ranges, attribute atoms, `Col(...)`, lets, shared
lets that double at every line) with hostile numbers (2**24 + 1, a thousand digits, `-0`)
and hostile depths (wrapped 99 to 10 000 levels deep, chains of 10 000 operators).
Mutated sources take a seed program and insert, delete, duplicate or replace pieces of
it with tokens, unicode and control characters.

An input runs as parse -> check -> compile (with drawn options, under `FUZZ_BUDGET`)
-> evaluate, the last on graphs drawn with it and fitted to the program's declarations
(`oracle.realise`), each checked by `oracle.check_consistent`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from hypothesis import strategies as st

from gracr.compiler.desugar import uses_comparison
from gracr.dsl.parse import check_tree, syntax_tree
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.model import compile_program
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.oracle import GRAPH_SPECS, check_consistent, realise
from gracr.limits import MAX_COUNT, format_bytes

FILENAME = "input.gml"
PALETTE = ("red", "blue", "green", "black")
FAMILIES = {"element": ("C", "N", "O"), "charge": ("neg", "pos")}
RELATIONS = ("single", "double")

# Seeds for mutation: programs of the paper's shapes and of the typed language.
SEEDS = (
    "colors red, blue, green\nlet leaf = blue & exactly 1 true\n"
    "let core = red & exactly 2 leaf\nclassify core & <1> core\n",
    "colors black, red, grey, silver\nclassify exists (black & <1> red)\n",
    "colors red, blue, green\nclassify more(red, blue)\n",
    "colors red, blue, green\nclassify more(more(red, blue), more(blue, red))\n",
    "colors black, red, blue, green\n"
    "classify exists (black & (<1> red | <2> blue | <3> green))\n",
    "colors marked\nattribute element = C, N, O\nrelations single, double\n"
    "let carbonyl = element=C & <1>{double} O\n"
    "classify carbonyl & atmost{single} 2 true & []{double} !marked\n",
    "Col(red) & <2> Col(blue) | [] !Col(green)\n",
    "classify exists[2, 5] (<> true) & !exists[0, 0] between 1 3 true\n",
)

# Formula text is drawn once over placeholders, which `programs` fills in from what the
# program declares: `@c0`..`@c2` colours, `@C` a `Col(...)` atom, `@l0`, `@l1` lets, `@s`
# the last of a doubling chain, `@a` an attribute atom, `@v` a bare value, `@r0`, `@r1`
# relations; and the hostile ones, which only a hostile program gets (the rest get a
# harmless stand-in): `@u` an undeclared name, `@n` a count at or past the limits, `@f`
# a bad relation filter, `@w` odd whitespace. One strategy serves every program, and
# most programs that are not hostile are valid.
COUNTS = st.sampled_from(["0", "1", "1", "2", "3", "1", "2", "@n"])
SPACE = st.sampled_from([" "] * 9 + ["@w"])
FILTERS = st.sampled_from([""] * 6 + ["{@r0}", "{@r1}", "{@r0, @r1}", "@f"])
LEAVES = st.sampled_from(["@c0", "@c1", "@c2", "@c0", "@c1", "true", "@l0", "@l1", "false",
                          "@a", "@v", "@s", "@C", "@u"])
HOSTILE = {
    "@u": ("purple", "Red", "rde", "atlest", "exsits", "éclair", "x" * 300, "_", "true_", "inf"),
    "@n": (str(MAX_COUNT), str(MAX_COUNT + 1), "00002", "-0", "-1", "50", "9" * 30,
           "1" + "0" * 4400),
    "@f": ("{@r0, @r0}", "{}", "{triple}", "{@r0,}"),
    "@w": ("  ", "\t", "\n", " # note\n", "\u00a0", "\r\n", "\u2003"),
}
HARMLESS = {"@u": "@c0", "@n": "2", "@f": "", "@w": " "}


def _extend(child: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def unary(template: str) -> st.SearchStrategy[str]:
        return st.builds(lambda f, n, m, x, s: template.format(f=f, n=n, m=m, x=x, s=s),
                         FILTERS, COUNTS, COUNTS, child, SPACE)

    def binary(operator: str) -> st.SearchStrategy[str]:
        return st.builds(lambda a, b, s: f"{a}{s}{operator}{s}{b}", child, child, SPACE)

    return st.one_of(
        unary("!{x}"), unary("not {x}"), unary("<{n}>{f} {x}"), unary("< {n} >{s}{x}"),
        unary("<>{f} {x}"), unary("atleast{f} {n} {x}"), unary("atmost{f} {n} {x}"),
        unary("exactly{f} {n} {x}"), unary("[]{f} {x}"),
        st.builds(lambda f, low, more, x: f"between{f} {low} "
                                          f"{low if low == '@n' else int(low) + more} {x}",
                  FILTERS, COUNTS, st.integers(0, 2), child),
        unary("box {x}"), unary("({x})"), binary("&"), binary("|"), binary("->"),
        binary("<->"),
        st.builds(lambda f, a, b: f"more{f}({a}, {b})", FILTERS, child, child),
        st.builds(lambda f, a, b: f"same{f}({a}, {b})", FILTERS, child, child),
    )


NODE_FORMULAS = st.recursive(LEAVES, _extend, max_leaves=8)


def _sentence(child: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda s: f"!{s}", child), st.builds(lambda s: f"({s})", child),
        st.builds(lambda a, b, o: f"{a} {o} {b}", child, child,
                  st.sampled_from(["&", "|", "->", "<->"])))


# Graph sentences: `exists` over node formulas, combined by the Boolean connectives (an
# `exists` under a modality, which the checker refuses, comes from mutation).
SENTENCES = st.recursive(
    st.builds(lambda how, f: how.format(f=f),
              st.sampled_from(["exists {f}", "exists ({f})", "exists[@n, 3] ({f})",
                               "exists[0, 0] {f}", "exists[2, inf] ({f})", "exists[1, 2] {f}"]),
              NODE_FORMULAS),
    _sentence, max_leaves=3)


def _deepen(text: str, how: str, depth: int) -> str:
    if len(text) * depth > 100_000:
        text = "@c0"                                     # deep, but not megabytes long
    if how == "not":
        return "!(" * depth + text + ")" * depth
    if how == "modal":
        return "<1> " * depth + f"({text})"
    return " & ".join([f"({text})"] * depth)


# Formulas wrapped or chained to a depth around the nesting limit and far past it.
DEEP = st.builds(_deepen, NODE_FORMULAS, st.sampled_from(["not", "modal", "chain"]),
                 st.sampled_from([20, 98, 99, 100, 101, 1000, 10_000]))


def _filled(text: str, palette: list[str], family: str | None, relations: list[str],
            lets: list[str], salt: int, hostile: bool) -> str:
    """`text` with its placeholders replaced by what the program declares."""
    for placeholder, choices in HOSTILE.items():
        if placeholder in text:
            text = text.replace(placeholder, choices[salt % len(choices)] if hostile
                                else HARMLESS[placeholder])
    # Without a `colors` line the palette is the colours written `Col(...)`.
    raw = palette or ["red", "blue", "green"]
    colours = palette or [f"Col({c})" for c in raw]
    values = FAMILIES[family] if family else ()
    if not relations and not hostile:  # a filter needs a `relations` line
        for written in ("{@r0}", "{@r1}", "{@r0, @r1}"):
            text = text.replace(written, "")
    names = {
        **{f"@c{i}": colours[i % len(colours)] for i in range(3)},
        "@C": f"Col({raw[salt % len(raw)]})",
        "@a": f"{family}={values[salt % len(values)]}" if family else colours[0],
        "@v": values[(salt // 3) % len(values)] if family else colours[-1],
        **{f"@l{i}": (lets[i % len(lets)] if lets else colours[0]) for i in range(2)},
        "@s": "s8" if "s8" in lets else colours[-1],
        **{f"@r{i}": (relations[i % len(relations)] if relations else "single")
           for i in range(2)},
    }
    for placeholder in sorted(names, key=len, reverse=True):
        text = text.replace(placeholder, names[placeholder])
    return text


@st.composite
def programs(draw: st.DrawFn) -> str:
    """A whole program: declarations, lets (now and then a doubling chain), a classify; three
    in ten are hostile (undeclared names, counts past the limits, repeated declarations,
    odd whitespace, formulas nested past the limit)."""
    hostile = draw(st.integers(0, 9)) < 3
    salt = draw(st.integers(0, 2**16))
    lines: list[str] = []
    palette: list[str] = []
    if draw(st.integers(0, 9)):
        palette = draw(st.lists(st.sampled_from(PALETTE), min_size=1, max_size=5,
                                unique=not hostile))
        lines.append("colors " + ", ".join(palette))
    family = None
    if draw(st.integers(0, 3)) == 0:
        family = draw(st.sampled_from(sorted(FAMILIES)))
        lines.append(f"attribute {family} = " + ", ".join(FAMILIES[family]))
    relations: list[str] = []
    if draw(st.integers(0, 3)) == 0:
        relations = draw(st.lists(st.sampled_from(RELATIONS), min_size=1, max_size=3,
                                  unique=not hostile))
        lines.append("relations " + ", ".join(relations))
    lets: list[str] = []
    declared = (list(dict.fromkeys(palette)), family, list(dict.fromkeys(relations)))

    def formula(sentence: bool = False) -> str:
        chosen = DEEP if hostile and draw(st.integers(0, 3)) == 0 else \
            SENTENCES if sentence else NODE_FORMULAS
        return _filled(draw(chosen), *declared, lets, salt, hostile)

    for name in draw(st.lists(st.sampled_from(["leaf", "core"]), max_size=2,
                              unique=not hostile)):
        lines.append(f"let {name} = {formula()}")
        lets.append(name)
    if draw(st.integers(0, 7)) == 0:
        lines.append(f"let s0 = {formula()}")
        lines += [f"let s{i} = s{i - 1} & s{i - 1}" for i in range(1, 9)]
        lets.append("s8")
    statements = draw(st.sampled_from([1, 0, 2])) if hostile else 1
    sentence = draw(st.integers(0, 3)) == 0
    lines += [f"classify {formula(sentence)}" for _ in range(statements)]
    if not lines or draw(st.integers(0, 9)) == 0:
        return formula(sentence)                         # a bare formula, as in App. C.1
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n", " # end\n"]))


PROGRAMS = programs()


TOKENS = ("&", "|", "!", "->", "<->", "<", ">", "<>", "<2>", "[]", "(", ")", "[", "]", "{",
          "}", ",", "=", "#", "\n", " ", "classify", "let", "colors", "exists", "atleast",
          "more(", "inf", "0", "-1", "99999999999", "∧", "¬", "→", "é", "\u202e", "\x00",
          "\t", "🙂", "\ufeff", "Col(", "relations", "attribute")


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A seed program (or a generated one) with a few pieces inserted, deleted, doubled or
    replaced."""
    text = draw(st.one_of(st.sampled_from(SEEDS), PROGRAMS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        span = draw(st.integers(1, 12))
        match draw(st.sampled_from(["insert", "delete", "double", "replace", "cut"])):
            case "insert":
                text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
            case "delete":
                text = text[:at] + text[at + span:]
            case "double":
                text = text[:at + span] + text[at:]
            case "replace":
                text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at + span:]
            case "cut":
                text = text[:at]
    return text


MUTATED = mutated()
OPTIONS = st.fixed_dictionaries({
    "disjunction": st.sampled_from(["demorgan", "flat"]),
    "comparison": st.sampled_from(["expanded", "direct"]),
    "max_degree": st.sampled_from([None, 0, 1, 2, 3, 14, 50, 10_000, 10**9]),
    "presence": st.booleans(),
})


def payloads() -> st.SearchStrategy[Payload]:
    return st.fixed_dictionaries({
        "source": st.one_of(PROGRAMS, PROGRAMS, PROGRAMS, MUTATED),
        "options": OPTIONS,
        "graphs": st.lists(GRAPH_SPECS, min_size=1, max_size=3),
    })


def run(payload: Payload, reached: Reached) -> None:
    source = payload["source"]
    tree = syntax_tree(source, FILENAME)
    reached.passed("parsed")
    program = check_tree(tree, FILENAME, source)
    reached.passed("checked")
    options = payload["options"]
    model = compile_program(program, max_weights_bytes=FUZZ_BUDGET, **options)
    reached.passed("compiled")
    for spec in payload["graphs"]:
        try:
            check_consistent(program, model, realise(spec, program.schema))
        except GracrError as error:   # a few nodes, fitted to the program: nothing to refuse
            raise Finding("a valid graph was refused", str(error)) from None
    reached.passed("evaluated")


def _options_argv(options: dict[str, Any]) -> list[str]:
    argv = ["--disjunction", options["disjunction"], "--comparison", options["comparison"],
            "--max-weights-bytes", format_bytes(FUZZ_BUDGET).replace(" ", "")]
    if options["max_degree"] is not None:
        argv += ["--max-degree", str(options["max_degree"])]
    return argv + (["--presence"] if options["presence"] else [])


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc eval` on the source and its graphs: exit 2 exactly when the source itself is
    refused; the compile options may refuse in one and not the other (`eval` bounds Eq. 6
    by each graph's in-degree when no --max-degree is given)."""
    source = payload["source"]
    (folder / FILENAME).write_text(source, encoding="utf-8")
    try:
        program: Program | None = check_tree(syntax_tree(source, FILENAME), FILENAME, source)
    except GracrError:
        program = None
    graphs = [realise(spec, program.schema) for spec in payload["graphs"]] if program else []
    (folder / "graphs.jsonl").write_text(
        "".join(json.dumps(g.to_json()) + "\n" for g in graphs) or '{"num_nodes": 0, '
        '"edges": []}\n')
    options = dict(payload["options"])
    check: Callable[[str], None] | None = None
    if program is not None:
        def check(out: str) -> None:
            _check_eval_output(program, options, graphs, out)
    return CliRun(["eval", FILENAME, "graphs.jsonl", *_options_argv(options)],
                  must_fail=True if program is None else None, check_output=check)


def _check_eval_output(program: Program, options: dict[str, Any], graphs: list[Any],
                       out: str) -> None:
    lines = out.splitlines()
    if len(lines) != len(graphs):
        raise Finding("gracrc eval printed a line per graph wrongly",
                      f"{len(lines)} lines for {len(graphs)} graphs")
    for graph, line in zip(graphs, lines):
        record = json.loads(line)
        bound_by_graph = options["max_degree"] is None
        exact = (bound_by_graph or options["comparison"] == "direct"
                 or not uses_comparison(program.classifier)
                 or options["max_degree"] >= graph.max_in_degree())
        if exact and record["formula"] != record["gnn"]:
            raise Finding("gracrc eval: the network disagrees with the formula", line)


def describe(payload: Payload) -> str:
    source = payload["source"]
    return f"{len(source)} characters: {source[:60]!r}"


KIND = InputKind("gml", ("parsed", "checked", "compiled", "evaluated"), payloads, run, cli,
                 share=5.0, describe=describe)
