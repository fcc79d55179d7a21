"""ShapleySampling on graph tasks evaluates its perturbations through the subject's
inference module (`Subject.inference_module`, the fused module of a compiled model), not
through `module()`, which explainers that take gradients or PyG edge masks need. The two
must give the same Shapley values bit for bit, under every readout the compiler offers,
or the records of a study that switched modules halfway would not be one sample.

Compared in one run: the same subject explained twice, once with its shared modules
holding the full module under the inference key (what the explainer read before). The
property counts its non-trivial draws (some node with a Shapley value other than 0) and
asserts a floor on them."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gracr
from gracr.compiler.compile import readout_refusal
from gracr.dsl import ir
from gracr.executor.model import compile_program
from gracr.executor.torch_backend import CompiledModule, FusedCompiledModule
from gracr.explainers import Subject, scores
from tests.strategies import graph_sentences, graphs, program_for

TALLY: Counter[str] = Counter()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph_sentences, graphs(max_nodes=6, max_edges=12),
       st.sampled_from(("threshold", "max", "soft-or")), st.integers(0, 3))
def test_shapley_sampling_through_the_inference_module_changes_no_bit(
        sentence: ir.Formula, graph: gracr.Graph, readout: str, seed: int) -> None:
    program = program_for(sentence)
    assume(readout_refusal(program, readout) is None)  # type: ignore[arg-type]
    degree = max(1, int(graph.in_degrees().max(initial=0)))
    model = compile_program(program, presence=True, max_degree=degree,
                            readout=readout)  # type: ignore[arg-type]
    settings_ = {"n_samples": 6, "perturbations_per_eval": 5}
    fused = Subject.of(model, program, graph, None, level="node")
    assert isinstance(fused.inference_module(), FusedCompiledModule)
    full = Subject.of(model, program, graph, None, level="node")
    full.modules["inference"] = full.module("surrogate")
    assert isinstance(full.inference_module(), CompiledModule)
    got = scores("ShapleySampling", fused, settings_, seed=seed)
    assert torch.equal(got, scores("ShapleySampling", full, settings_, seed=seed))
    TALLY["draws"] += 1
    TALLY["non-zero"] += bool(got.abs().sum() > 0)


def test_the_draws_were_non_trivial() -> None:
    if not TALLY["draws"]:
        pytest.skip("runs after the property (the tally is its)")
    assert TALLY["non-zero"] >= 0.2 * TALLY["draws"], TALLY


def test_a_trained_models_inference_module_is_its_module() -> None:
    # Nothing to fuse: a trained model's one module serves outputs too.
    import numpy as np

    from gracr.domains.tissue.dataset import graph_json
    from gracr.domains.tissue.generator import TissueSettings, generate_sample
    from gracr.domains.tissue.trained import ModelSettings, build_model, explained

    table = generate_sample(np.random.default_rng(0), TissueSettings.for_cells(40))
    model = explained(build_model(ModelSettings(hidden=8, layers=1)), "gin")
    subject = Subject.of_trained(model, gracr.Graph.from_json(graph_json(table, 0.3, 1.0)),
                                 level="node")
    assert subject.inference_module() is subject.module()
