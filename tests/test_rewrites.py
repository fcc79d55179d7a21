"""Semantics-preserving rewrites: each one keeps the function (BDD equality), by hand
on small formulas and by Hypothesis on random formulas and graphs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gracr
from gracr.cli import main
from gracr.executor.model import CompiledGNN
from gracr.dsl import ir
from gracr.dsl.show import show_formula
from gracr.errors import GracrError
from gracr.fuzz.rewrites import (
    FAMILIES, FAMILY_REWRITES, Implementation, derive, equivalent_on, implementations,
    pad_layers, parse_families, rederive, same_weights,
)
from strategies import graph_sentences, graphs, node_formulas, program_for

ALL_LABELS = [label for family in FAMILIES for label in FAMILY_REWRITES[family]]
ALL_LABELS += [f"{label}#2" for label in ("expand-counting", "double-negation", "de-morgan",
                                          "reassociate", "swap")]


def prog(formula: str) -> gracr.Program:
    return gracr.parse(f"colors red, blue, green\nclassify {formula}")


def rewritten(label: str, formula: str, seed: int = 0) -> str:
    implementation = derive(label, prog(formula), seed)
    assert implementation is not None
    return show_formula(implementation.program.classifier)


# A target (0) with in-neighbours red 1, blue 2, red 3; 3 has a green in-neighbour 4.
GRAPH = gracr.Graph.from_edges(5, [["blue"], ["red"], ["blue"], ["red"], ["green"]],
                               [(1, 0), (2, 0), (3, 0), (4, 3), (0, 1)])


# ---------------------------------------------------------------- each rewrite by hand


@pytest.mark.parametrize("formula, expected", [
    ("exactly 2 red", "<2> red & !<3> red"),
    ("exactly 0 red", "!<1> red"),
    ("between 1 2 blue", "<1> blue & !<3> blue"),
    ("between 0 2 blue", "!<3> blue"),
    ("atmost 1 green", "!<2> green"),
    ("[] red", "!<1> !red"),
])
def test_counting_expansions_follow_app_c2(formula: str, expected: str) -> None:
    assert rewritten("expand-counting", formula) == expected


def test_exists_with_an_upper_bound_splits_into_two_thresholds() -> None:
    assert rewritten("expand-counting", "exists[1, 2] red") == \
        "exists red & !exists[3, inf] red"


@pytest.mark.parametrize("label, formula, expected", [
    ("de-morgan", "!(red & blue)", "!red | !blue"),
    ("de-morgan", "!(red | blue)", "!red & !blue"),
    ("de-morgan", "<1> (red | blue)", "<1> !(!red & !blue)"),
    ("remove-double-negation", "<1> !!red", "<1> red"),
    ("reassociate", "(red & blue) & green", "red & (blue & green)"),
    ("reassociate", "red | (blue | green)", "red | blue | green"),
    ("swap", "red & <1> blue", "<1> blue & red"),
    ("swap", "same(red, blue)", "same(blue, red)"),
])
def test_rewrite_at_one_of_its_positions(label: str, formula: str, expected: str) -> None:
    drawn = {rewritten(label, formula, seed) for seed in range(40)}
    assert expected in drawn, drawn


def test_double_negation_wraps_one_subformula() -> None:
    result = derive("double-negation", prog("<1> red & blue"), 0)
    assert result is not None
    formula = result.program.classifier
    inner = [sub for sub in ir.subformulas(formula)
             if isinstance(sub, ir.Not) and isinstance(sub.arg, ir.Not)]
    assert len(inner) == 1
    # removing that double negation gives the base back
    back = derive("remove-double-negation", dataclasses.replace(prog("red"), classifier=formula), 0)
    assert back is not None and show_formula(back.program.classifier) == "<1> red & blue"


def test_rewrites_that_do_not_apply_give_nothing() -> None:
    program = prog("<1> red")
    assert derive("flat", program, 0) is None  # no OR / NOT-AND gate to change
    assert derive("direct", program, 0) is None  # no more/same
    assert derive("expand-counting", program, 0) is None
    assert derive("remove-double-negation", program, 0) is None
    assert derive("swap", program, 0) is None
    assert derive("flat", prog("<1> red | blue"), 0) is not None
    assert derive("direct", prog("more(red, blue)"), 0) is not None


def test_positions_are_drawn_reproducibly() -> None:
    program = prog("(red & blue) | (green & <1> red) | (blue & <2> green)")
    first = derive("swap", program, 7)
    assert first == derive("swap", program, 7)
    drawn = {show_formula(d.program.classifier) for seed in range(20)
             if (d := derive("swap", program, seed)) is not None}
    assert len(drawn) > 1  # the seed does choose the position


def test_implementations_list_base_first_then_distinct_rewrites() -> None:
    program = prog("exactly 1 red & (blue | [] green) | more(red, blue)")
    impls = implementations(program, FAMILIES, seed=0, per_family=2)
    assert impls[0].label == "base" and impls[0].program == program
    identities = [i.identity for i in impls]
    assert len(identities) == len(set(identities))
    families = {i.family for i in impls}
    assert families == {"base", *FAMILIES}
    labels = {i.label for i in impls}
    assert {"flat", "direct", "pad-end-1", "pad-start-2"} <= labels
    only_padding = implementations(program, ["padding"], seed=0)
    assert [i.label for i in only_padding] == ["base", "pad-end-1", "pad-start-2"]


def test_rederive_follows_a_smaller_formula() -> None:
    big = prog("<1> (red | blue) & green")
    small = prog("<1> (red | blue)")
    for label in ("flat", "pad-end-1", "de-morgan", "double-negation"):
        implementation = derive(label, big, 3)
        assert implementation is not None
        again = rederive(implementation, small, 3)
        assert again is not None and again.label == label
        assert again.program.classifier == (derive(label, small, 3) or again).program.classifier
    alt = Implementation("alt:x.gml", "alternative", small)
    assert rederive(alt, small, 3) is None


def test_parse_families() -> None:
    assert parse_families("all") == FAMILIES
    assert parse_families("padding, negation") == ("padding", "negation")
    with pytest.raises(GracrError, match="unknown rewrite family 'nope'"):
        parse_families("padding,nope")


# ---------------------------------------------------------------- equivalence


def test_equivalent_on_tells_different_functions_apart() -> None:
    assert equivalent_on(prog("exactly 2 red"), prog("<2> red & !<3> red"), GRAPH, 0)
    # <1> red and <2> red differ at node 0: the subgraph with only 1 -> 0 tells them apart,
    # though on the whole graph both hold there.
    assert np.asarray(gracr.evaluate(prog("<1> red"), GRAPH))[0]
    assert np.asarray(gracr.evaluate(prog("<2> red"), GRAPH))[0]
    assert not equivalent_on(prog("<1> red"), prog("<2> red"), GRAPH, 0)
    # swapping the operands of `more` is not a rewrite: it is caught
    assert not equivalent_on(prog("more(red, blue)"), prog("more(blue, red)"), GRAPH, 0)
    # graph classifiers
    # nodes 0 (from 2) and 1 (from 0) have a blue in-neighbour: keeping both edges
    # makes "exactly one such node" false but "at least one" true
    sentence = gracr.parse("colors red, blue, green\nclassify exists[1, 1] <1> blue")
    other = gracr.parse("colors red, blue, green\nclassify exists <1> blue & "
                        "!exists[2, inf] <1> blue")
    different = gracr.parse("colors red, blue, green\nclassify exists <1> blue")
    assert equivalent_on(sentence, other, GRAPH, None)
    assert not equivalent_on(sentence, different, GRAPH, None)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_formulas, graphs(max_nodes=6, max_edges=12), st.integers(0, 2**16))
def test_every_rewrite_keeps_the_node_function(formula: ir.Formula, graph: gracr.Graph,
                                               seed: int) -> None:
    program = program_for(formula)
    for label in ALL_LABELS:
        implementation = derive(label, program, seed)
        if implementation is None or implementation.program.classifier == formula:
            continue
        for node in range(graph.num_nodes):
            assert equivalent_on(program, implementation.program, graph, node), \
                (label, show_formula(implementation.program.classifier), node)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_sentences, graphs(max_nodes=6, max_edges=12), st.integers(0, 2**16))
def test_every_rewrite_keeps_the_graph_function(sentence: ir.Formula, graph: gracr.Graph,
                                                seed: int) -> None:
    program = program_for(sentence)
    for label in ALL_LABELS:
        implementation = derive(label, program, seed)
        if implementation is None or implementation.program.classifier == sentence:
            continue
        assert equivalent_on(program, implementation.program, graph, None), \
            (label, show_formula(implementation.program.classifier))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node_formulas, graphs(max_nodes=6, max_edges=12))
def test_compiled_options_and_padding_predict_the_formula(formula: ir.Formula,
                                                          graph: gracr.Graph) -> None:
    program = program_for(formula)
    bound = max(1, int(graph.in_degrees().max(initial=0)))
    expected = gracr.evaluate(program, graph)
    for implementation in (Implementation("flat", "disjunction", program, disjunction="flat"),
                           Implementation("direct", "comparison", program, comparison="direct"),
                           Implementation("pad", "padding", program, padding=1, padding_before=2),
                           Implementation("all", "padding", program, "flat", "direct", 2, 1)):
        model = implementation.compile(bound)
        assert np.array_equal(model.predict(graph), expected), implementation.label
        # The fused inference module (SubgraphX, GraphSVX) skips the padded layers.
        assert np.array_equal(_fused_output(model, graph)[:, 0] > 0.5, expected), \
            implementation.label


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_sentences, graphs(max_nodes=6, max_edges=12))
def test_padded_graph_classifiers_predict_the_formula(sentence: ir.Formula,
                                                      graph: gracr.Graph) -> None:
    program = program_for(sentence)
    bound = max(1, int(graph.in_degrees().max(initial=0)))
    model = Implementation("pad", "padding", program, "flat", padding=2,
                           padding_before=1).compile(bound)
    assert model.predict(graph) == gracr.evaluate(program, graph)
    assert bool(_fused_output(model, graph)[0, 0] > 0.5) == gracr.evaluate(program, graph)


def _fused_output(model: CompiledGNN, graph: gracr.Graph) -> np.ndarray:
    module = model.to_pyg(fused=True)
    x = torch.as_tensor(graph.features(model.palette), dtype=torch.float32)
    return module(x, torch.as_tensor(graph.edge_index)).numpy()


# ---------------------------------------------------------------- padding


def test_pad_layers_adds_identity_layers_and_shifts_depths() -> None:
    model = gracr.compile(prog("red & <2> blue"))  # App. C.1's example: 2 layers
    padded = pad_layers(model, before=2, after=1)
    assert padded.num_layers == 5 and padded.width == model.width
    for layer in (padded.layers[0], padded.layers[1], padded.layers[4]):
        assert np.array_equal(layer.C, np.eye(model.width)) and not any(g.A.any() for g in layer.aggregations)
        assert not layer.b.any()
    assert padded.layers[2:4] == model.layers
    assert [c.depth for c in model.columns] == [0, 0, 1, 2]
    assert [c.depth for c in padded.columns] == [0, 0, 3, 4]
    assert [c.meaning for c in padded.columns] == [c.meaning for c in model.columns]
    assert pad_layers(model, 0, 0) is model
    assert not same_weights(model, padded) and same_weights(padded, pad_layers(model, 2, 1))
    with pytest.raises(GracrError):
        pad_layers(model, -1, 0)


def test_padded_torch_module_same_outputs_gradient_blocked_at_zero_atoms() -> None:
    model = gracr.compile(prog("red & <2> blue"))
    padded = pad_layers(model, before=1, after=2)
    graph = gracr.Graph.from_edges(4, [["red"], ["blue"], ["blue"], ["red"]],
                                   [(1, 0), (2, 0), (3, 0), (0, 3)])
    x = torch.as_tensor(graph.features(model.palette))
    edges = torch.as_tensor(graph.edge_index)
    outputs = []
    for compiled in (model, padded):
        features = x.clone().requires_grad_(True)
        out = compiled.to_pyg(surrogate=True)(features, edges)
        out[0, 0].backward()
        outputs.append((out.detach(), features.grad))
    assert torch.equal(outputs[0][0], outputs[1][0])
    assert outputs[0][0][0, 0] == 1.0
    original, padded_grad = outputs[0][1], outputs[1][1]
    assert original is not None and padded_grad is not None
    # Eq. 9 at an identity layer in front: z = h, so the gradient passes exactly where the
    # atom is 1. Node 3 is red, not blue, yet in the unpadded model its blue input gets
    # gradient 1 (the diamond's z = 1 > 0); the padded model blocks it.
    assert original[3].tolist() == [0.0, 1.0, 0.0]
    assert torch.equal(padded_grad, original * x)
    assert padded_grad[3].tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------- user alternatives


def test_a_non_equivalent_alternative_is_a_clear_error(tmp_path: object, capsys: object) -> None:
    import pathlib

    folder = pathlib.Path(str(tmp_path))
    base = folder / "base.gml"
    base.write_text("colors red, blue, green\nclassify exactly 1 red\n")
    same = folder / "same.gml"
    same.write_text("colors red, blue, green\nclassify <1> red & !<2> red\n")
    other = folder / "other.gml"
    other.write_text("colors red, blue, green\nclassify atmost 0 red | <2> red\n")
    assert main(["fuzz", str(base), "--alternative", str(same), "--explainers", "Rnd",
                 "--limit", "2", "--quiet"]) == 0
    assert main(["fuzz", str(base), "--alternative", str(other), "--explainers", "Rnd",
                 "--limit", "2", "--quiet"]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert f"{other}: the alternative formula is not equivalent to {base}" in err
    assert "instance graph 0" in err and "num_nodes" in err
