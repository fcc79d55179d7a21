"""Several networks run as one (`gracr.executor.plan.fused_plan`, `FusedCompiledModule`
over a sequence of networks): column k of the joint output is network k's own output,
and the reference evaluator's, on random typed programs and graphs and on molecules
screened with WOMBAT's patterns. Each property counts its non-trivial draws (a network
true on some node or graph of the batch and false on another, and networks that share
columns) and asserts a floor on them."""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import islice
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import gracr
from gracr.compiler.compile import readout_refusal
from gracr.data.graph import Graph
from gracr.dsl import ir
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.executor.model import CompiledGNN, compile_program
from gracr.executor.plan import fused_plan
from gracr.executor.protocol import Batch, NumbaExecutor, NumpyExecutor
from gracr.executor.torch_backend import FusedCompiledModule
from tests.strategies import schemas, typed_graphs, typed_node_formulas, typed_program_for

Array = np.ndarray[Any, Any]
READOUTS = ("threshold", "max", "soft-or")
TALLY: Counter[str] = Counter()


def joint_outputs(models: list[CompiledGNN], graphs: list[Graph]) -> Array:
    """`[N or B, K]`: the fused module over every model, on the batch of `graphs`."""
    batch = Batch.of(models[0], graphs)
    module = FusedCompiledModule(models)
    output = module(torch.as_tensor(batch.x), torch.as_tensor(batch.edge_index),
                    torch.as_tensor(batch.graph_of_node),
                    edge_type=None if batch.edge_type is None else torch.as_tensor(batch.edge_type))
    result: Array = output.numpy().astype(np.float64)
    return result


def own_outputs(models: list[CompiledGNN], graphs: list[Graph]) -> Array:
    """The same, each model alone on the float64 numpy reference executor."""
    return np.stack([NumpyExecutor().run(model, Batch.of(model, graphs)) for model in models],
                    axis=1)


def oracle(programs: list[Program], graphs: list[Graph]) -> Array:
    """The reference evaluator's values, `[N or B, K]`."""
    return np.stack([np.concatenate([np.atleast_1d(np.asarray(gracr.evaluate(p, g),
                                                              dtype=np.float64))
                                     for g in graphs]) for p in programs], axis=1)


def tally(name: str, outputs: Array, shared: bool) -> None:
    """Count a draw, and whether it is non-trivial: some network's column holds both values."""
    varied = any(len(set(column.tolist())) > 1 for column in outputs.T)
    TALLY[f"{name} draws"] += 1
    TALLY[f"{name} varied"] += varied
    TALLY[f"{name} shared"] += shared
    event(f"{name}: " + ("some network varies" if varied else "every network constant"))
    event(f"{name}: " + ("networks share columns" if shared else "no shared column"))


@st.composite
def several_programs(draw: st.DrawFn) -> tuple[list[Program], list[dict[str, Any]], list[Graph]]:
    """2-4 typed programs of one kind over one schema, each with its own compile options
    (one presence bit for all: it changes the input layout), and a batch of 1-2 graphs."""
    schema = draw(schemas())
    graph_kind = draw(st.booleans())
    presence = draw(st.booleans())
    programs, options = [], []
    for _ in range(draw(st.integers(2, 4))):
        formula = draw(typed_node_formulas(schema, depth=draw(st.integers(1, 3)), top=True))
        if graph_kind:
            low = draw(st.integers(0, 2))
            formula = ir.Exists(low, draw(st.one_of(st.none(), st.integers(low, low + 2))),
                                formula)
        program = typed_program_for(schema, formula)
        readout = draw(st.sampled_from(READOUTS)) if graph_kind else "threshold"
        if readout_refusal(program, readout) is not None:
            readout = "threshold"
        programs.append(program)
        options.append({"disjunction": draw(st.sampled_from(["demorgan", "flat"])),
                        "comparison": draw(st.sampled_from(["expanded", "direct"])),
                        "presence": presence, "readout": readout})
    graphs = draw(st.lists(typed_graphs(schema, max_nodes=7, max_edges=14), min_size=1,
                           max_size=2))
    return programs, options, graphs


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(several_programs())
def test_several_networks_as_one_give_each_own_output(
        case: tuple[list[Program], list[dict[str, Any]], list[Graph]]) -> None:
    programs, options, graphs = case
    degree = max(int(np.bincount(g.targets, minlength=1).max()) if g.num_edges else 0
                 for g in graphs)
    models = [compile_program(p, max_degree=degree, **o) for p, o in zip(programs, options)]
    joint = joint_outputs(models, graphs)
    np.testing.assert_array_equal(joint, own_outputs(models, graphs))
    np.testing.assert_array_equal(joint > 0.5, oracle(programs, graphs) > 0.5)
    plan = fused_plan(models)
    tally("typed", joint, plan.width < sum(m.width for m in models))


def test_the_typed_draws_were_non_trivial() -> None:
    if not TALLY["typed draws"]:
        pytest.skip("runs after the property (the tally is its)")
    assert TALLY["typed varied"] >= 0.3 * TALLY["typed draws"], TALLY
    assert TALLY["typed shared"] >= 0.3 * TALLY["typed draws"], TALLY


# ---------------------------------------------------------------- molecules

pytest.importorskip("rdkit")

from rdkit import Chem  # noqa: E402

from gracr.domains.chem.bundled import bundled_sets  # noqa: E402
from gracr.domains.chem.molecules import Molecule, iter_molecules  # noqa: E402
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path  # noqa: E402


@cache
def wombat() -> tuple[tuple[Program, CompiledGNN], ...]:
    programs = [gracr.parse(wombat_formula_path(p)) for p in WOMBAT_PATTERNS]
    return tuple((p, compile_program(p, comparison="expanded")) for p in programs)


@cache
def molecules() -> tuple[Molecule, ...]:
    """Every 50th readable molecule of two bundled sets, and up to 8 positives of each
    WOMBAT pattern among them (most are rare; P01-P05 match none there)."""
    found: list[Molecule] = []
    for _, path in bundled_sets()[:2]:
        found += [m for m in iter_molecules(path) if isinstance(m, Molecule)]
    chosen = found[::50]
    for pattern in WOMBAT_PATTERNS:   # found by RDKit's matcher, the fast independent oracle
        query = Chem.MolFromSmarts(pattern.relaxed)
        chosen += list(islice((m for m in found if m.mol.HasSubstructMatch(query)), 8))
    return tuple(chosen)


@cache
def own_answers() -> Array:
    """`[molecule, pattern]`: each pattern's own network on every molecule of the pool,
    on the numba executor (float64, node by node: no code in common with the fused
    module; the numpy reference takes 16 s on these 50-layer networks)."""
    graphs = [m.graph for m in molecules()]
    return np.stack([NumbaExecutor().run(model, Batch.of(model, graphs))
                     for _, model in wombat()], axis=1)


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_wombat_patterns_as_one_give_each_own_answer(data: st.DataObject) -> None:
    pool = molecules()
    chosen = data.draw(st.lists(st.integers(0, len(pool) - 1), min_size=4, max_size=16))
    numbers = sorted(data.draw(st.sets(st.integers(0, len(WOMBAT_PATTERNS) - 1), min_size=2)))
    patterns = [wombat()[k] for k in numbers]
    models = [model for _, model in patterns]
    graphs = [pool[m].graph for m in chosen]
    joint = joint_outputs(models, graphs)
    np.testing.assert_array_equal(joint, own_answers()[np.ix_(chosen, numbers)])
    np.testing.assert_array_equal(joint > 0.5, oracle([p for p, _ in patterns], graphs) > 0.5)
    tally("molecules", joint, fused_plan(models).width < sum(m.width for m in models))


def test_the_molecule_draws_were_non_trivial() -> None:
    if not TALLY["molecules draws"]:
        pytest.skip("runs after the property (the tally is its)")
    assert TALLY["molecules varied"] >= 0.3 * TALLY["molecules draws"], TALLY
    assert TALLY["molecules shared"] >= 0.5 * TALLY["molecules draws"], TALLY


def test_the_fourteen_patterns_share_columns_and_layers() -> None:
    models = [model for _, model in wombat()]
    plan = fused_plan(models)
    assert plan.width < sum(m.width for m in models)
    assert len(plan.layers) == max(m.num_layers for m in models)
    assert all(len(columns) == model.width and (columns >= 0).all()
               for model, columns in zip(models, plan.columns))


def test_networks_run_as_one_must_share_kind_layout_and_compiled_layout() -> None:
    node = compile_program(gracr.parse("colors red, blue\nclassify <1> red"))
    graph = compile_program(gracr.parse("colors red, blue\nclassify exists <1> red"))
    other = compile_program(gracr.parse("colors red\nclassify <1> red"))
    with pytest.raises(ValueError, match="of one kind"):
        FusedCompiledModule([node, graph])
    with pytest.raises(ValueError, match="one input layout"):
        FusedCompiledModule([node, other])
    assert node.kind is Kind.NODE and graph.kind is Kind.GRAPH
