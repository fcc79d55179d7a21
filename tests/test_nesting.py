"""Deep and shared formulas: at the nesting limit every stage runs in a bounded number of
Python frames (so a caller keeps most of the default recursion limit), one level over it
is a `GmlError` at the formula, and subformulas shared through `let` cost their size, not
the size of their text."""

from __future__ import annotations

import itertools
import pickle
import subprocess
import sys
import traceback
from typing import Any, Callable

import pytest

import gracr
from gracr.bdd.polarity import polarity
from gracr.data.graph import Graph
from gracr.dsl import ir
from gracr.errors import GmlError, GracrError
from gracr.limits import MAX_NESTING

L = MAX_NESTING
# Every stage must fit in this many frames above its caller: at most ~3 per level of
# nesting, so that a caller keeps well over half of Python's default limit of 1000.
FRAMES = 3 * L + 40


def _chain(operator: str) -> str:
    return f" {operator} ".join(["red"] * L + ["blue"])


# Formulas exactly `MAX_NESTING` operators deep, one per way of nesting.
SHAPES = {
    "not": "!(" * L + "red" + ")" * L,
    "diamond": "<1> " * L + "red",
    "and-chain": _chain("&"),
    "or-chain": _chain("|"),
    "iff-chain": _chain("<->"),
    "implies-chain": _chain("->"),
    "box": "[] " * L + "red",
    "between": "between 1 2 " * L + "red",
    "more": "more(" * L + "red" + ", blue)" * L,
    "same": "same(" * L + "red" + ", blue)" * L,
    "sentences": " <-> ".join(["exists red"] * L),
    "exists": "exists " + "!(" * (L - 1) + "red" + ")" * (L - 1),
}
GRAPH = Graph.from_edges(4, [["red"], ["blue"], ["red", "blue"], []],
                         [(0, 1), (1, 2), (2, 0), (3, 0), (0, 0)], target=0)


def _source(text: str) -> str:
    return f"colors red, blue\nclassify {text}\n"


def _in_frames(frames: int, stage: Callable[[], Any]) -> Any:
    """`stage()` with only `frames` frames left below the recursion limit."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(traceback.extract_stack()) + frames)
    try:
        return stage()
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_stage_runs_at_the_nesting_limit_in_bounded_frames(shape: str) -> None:
    text = SHAPES[shape]
    program = _in_frames(FRAMES, lambda: gracr.parse(_source(text)))
    assert ir.nesting(program.classifier) == L
    target = 0 if program.kind is ir.Kind.NODE else None
    value = _in_frames(FRAMES, lambda: gracr.evaluate(program, GRAPH))
    expected = value if target is None else bool(value[target])
    assert gracr.parse(_source(_in_frames(FRAMES, program.show))).classifier == program.classifier
    copy = _in_frames(FRAMES, lambda: pickle.loads(pickle.dumps(program)))
    assert copy.classifier == program.classifier
    _in_frames(FRAMES, lambda: polarity(program.classifier))
    for disjunction, comparison, presence in itertools.product(
            ("demorgan", "flat"), ("expanded", "direct"), (False, True)):
        try:
            # Deep models are wide too: a small budget refuses the largest once they are
            # scheduled, after every recursive pass, before their weights are allocated.
            model = _in_frames(FRAMES, lambda: gracr.compile(
                program, disjunction=disjunction, comparison=comparison,  # type: ignore[arg-type]
                max_degree=3, presence=presence, max_weights_bytes=2**25))
        except GracrError as error:
            assert "over --max-weights-bytes 32 MiB" in str(error)
            continue
        predicted = model.predict(GRAPH)
        assert (predicted if target is None else bool(predicted[target])) == expected
    for over in ("edges", "both"):
        label = _in_frames(FRAMES, lambda: gracr.ground_truth(program, GRAPH, target=target,
                                                              over=over)).label
        assert label == int(expected)


@pytest.mark.parametrize("shape", ["not", "and-chain", "sentences"])
def test_one_level_over_the_limit_is_an_error_at_the_formula(shape: str) -> None:
    text = {"not": "!(" + SHAPES["not"] + ")", "and-chain": "red & " + SHAPES["and-chain"],
            "sentences": "exists blue <-> " + SHAPES["sentences"]}[shape]
    with pytest.raises(GmlError) as caught:
        gracr.parse(_source(text))
    (problem,) = caught.value.problems
    assert (problem.span.line, problem.span.column) == (2, 10)
    assert problem.message.startswith(f"formula nested {L + 1} levels deep, over gracr's "
                                      f"limit of {L}")


def test_a_let_name_counts_the_depth_of_its_body() -> None:
    half = L // 2 + 1
    source = (f"colors red\nlet deep = {'!' * half}red\n"
              f"let fine = {'!' * (L - half)}deep\nclassify {'!' * half}deep\n")
    with pytest.raises(GmlError) as caught:
        gracr.parse(source)
    (problem,) = caught.value.problems
    assert problem.span.line == 4 and f"nested {2 * half} levels" in problem.message


@pytest.mark.parametrize("depth", [10_000])
def test_far_deeper_text_is_refused_without_recursing(depth: int) -> None:
    for text in ("!(" * depth + "red" + ")" * depth, " & ".join(["red"] * depth)):
        with pytest.raises(GmlError, match=f"nested {depth if '!' in text else depth - 1} "):
            _in_frames(60, lambda: gracr.parse(_source(text)))


def _doubling(levels: int, sentence: bool) -> str:
    """`let s1 = s0 & s0`, ...: a formula of `levels` + 1 subformulas whose text has
    2**levels leaves."""
    atom = "exists red" if sentence else "red"
    lines = [f"colors red\nlet s0 = {atom}"]
    lines += [f"let s{i} = s{i - 1} & s{i - 1}" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\nclassify s{levels}\n"


@pytest.mark.parametrize("sentence", [False, True], ids=["node", "graph"])
def test_shared_subformulas_cost_their_number_not_their_text(sentence: bool) -> None:
    program = gracr.parse(_doubling(60, sentence))      # 2**60 leaves written out
    assert len(ir.subformulas(program.classifier)) == 61 + sentence
    graph = Graph.from_edges(3, [["red"], [], ["red"]], [(0, 1), (2, 1)], target=1)
    value = gracr.evaluate(program, graph)
    target = None if sentence else 1
    expected = value if sentence else bool(value[1])
    for disjunction in ("demorgan", "flat"):
        model = gracr.compile(program, disjunction=disjunction)  # type: ignore[arg-type]
        assert model.formula.endswith("…") and len(model.formula) <= 100_001
        predicted = model.predict(graph)
        assert (predicted if sentence else bool(predicted[1])) == expected
    assert gracr.ground_truth(program, graph, target=target).label == int(expected)
    assert gracr.receptive_field(program, graph, target).shape == (2,)
    assert len(gracr.dsl.show.show_formula(program.classifier, max_chars=50)) == 51


def test_an_unpickled_formula_hashes_as_one_built_in_its_own_process() -> None:
    # String hashes differ between processes: a hash carried in the pickle would make the
    # unpickled formula miss in every dict of the process that reads it.
    program = gracr.parse(_source(SHAPES["and-chain"]))
    check = ("import pickle, sys, gracr\n"
             "program = pickle.loads(sys.stdin.buffer.read())\n"
             f"fresh = gracr.parse({_source(SHAPES['and-chain'])!r})\n"
             "assert {fresh.classifier: 1}[program.classifier] == 1\n")
    done = subprocess.run([sys.executable, "-c", check], input=pickle.dumps(program),
                          capture_output=True, env={"PYTHONHASHSEED": "12345",
                                                    "PYTHONPATH": ":".join(sys.path)})
    assert done.returncode == 0, done.stderr.decode()
