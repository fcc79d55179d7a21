"""Stage-crossing properties of untyped programs: a saved model behaves as the original,
and a printed formula parses back to itself. (That every executor equals the reference
evaluator on them is `tests/test_executors_conform.py`.)
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gracr
from gracr.dsl.ir import Formula
from strategies import graph_sentences, graphs, node_formulas, program_for

OPTIONS = [(d, c) for d in ("demorgan", "flat") for c in ("expanded", "direct")]


@settings(max_examples=100, deadline=None)
@given(node_formulas, graphs(), st.sampled_from(OPTIONS))
def test_saved_model_behaves_like_the_original(formula: Formula, graph: gracr.Graph,
                                               option: tuple[str, str]) -> None:
    program = program_for(formula)
    model = gracr.compile(program, disjunction=option[0],  # type: ignore[arg-type]
                          comparison=option[1], max_degree=8)  # type: ignore[arg-type]
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        model.save(path)
        loaded = gracr.load(path)
    assert (loaded.num_layers, loaded.width, loaded.columns) == \
        (model.num_layers, model.width, model.columns)
    np.testing.assert_array_equal(np.asarray(loaded.predict(graph)),
                                  np.asarray(model.predict(graph)))


@settings(max_examples=300, deadline=None)
@given(st.one_of(node_formulas, graph_sentences))
def test_printed_formula_parses_back_to_itself(formula: Formula) -> None:
    assert program_for(formula).classifier == formula
