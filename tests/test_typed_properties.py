"""Typed programs: the presence bit and the relations a module requires.

That every executor equals the reference evaluator on random typed programs and graphs,
and that zeroed features under the presence bit delete the node on every executor, is
`tests/test_executors_conform.py` (its `typed` and `deleted-nodes` families). Here: a
zeroed node still counts without the bit, and a typed module refuses a missing or
misshapen `edge_type`.
"""

from __future__ import annotations

import pytest
import torch

from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl import ir
from gracr.executor.model import CompiledGNN, compile_program
from tests.strategies import typed_program_for


def _tensors(model: CompiledGNN, graph: Graph
             ) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    features = model.features(graph)
    edge_type = model.edge_types(graph)
    kwargs = {} if edge_type is None else {"edge_type": torch.as_tensor(edge_type)}
    return (torch.as_tensor(features, dtype=torch.float32),
            torch.as_tensor(graph.edge_index, dtype=torch.long), kwargs)


def test_without_the_presence_bit_a_zeroed_node_still_counts() -> None:
    """`!red` holds at a node with no features: without the bit it is counted."""
    program = typed_program_for(Schema(palette=("red",)), ir.AtLeast(1, ir.Not(ir.Color("red"))))
    graph = Graph.from_edges(2, [["red"], ["red"]], [(1, 0)])
    for presence, counted in ((False, 1.0), (True, 0.0)):
        model = compile_program(program, presence=presence)
        x = model.features(graph)
        x[1] = 0.0
        assert model.forward(x, graph.edge_index)[0, 0] == counted


def test_a_typed_module_requires_edge_type() -> None:
    program = typed_program_for(Schema(families=(), relations=("single", "double")),
                                ir.AtLeast(1, ir.Top()))  # declares relations, filters none
    model = compile_program(program)
    graph = Graph.from_edges(2, None, [(1, 0)], relations=["single"])
    x, edge_index, kwargs = _tensors(model, graph)
    for module in (model.to_pyg(), model.to_pyg(fused=True)):
        with pytest.raises(ValueError, match="declares the relations single, double"):
            module(x, edge_index)
        with pytest.raises(ValueError, match="one relation index per edge"):
            module(x, edge_index, edge_type=torch.zeros(2, dtype=torch.long))
        assert module(x, edge_index, **kwargs)[0, 0] == 1.0
