"""gracr's compiled model of the intended rule as an audit reads it: the contrast App. B
draws. Its answer is the rule's (class 1 where the formula holds).

Its receptive field is the formula's modal depth, not the network's layer count: the
compiler spends several layers on one modality (a comparison, a desugared connective), and
the answer at a node depends on nothing farther than the formula reads (`gracr.bdd.upi`).
Comparisons are compiled `direct` (exact at every degree, no degree bound to guess)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.bdd.upi import admitted_by_depth
from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.executor.model import CompiledGNN, compile_program

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class CompiledModel:
    """`gracr.audit.perturb.AuditModel` over a `CompiledGNN` of a formula of modal depth
    `depth`."""

    network: CompiledGNN
    depth: int

    @staticmethod
    def of(program: Program, presence: bool = False) -> CompiledModel:
        """The program compiled; with `presence`, with the presence bit, so that deleting a
        node is what the formula reads as deleting it."""
        network = compile_program(program, comparison="direct", presence=presence)
        return CompiledModel(network, len(admitted_by_depth(program.classifier)))

    @property
    def kind(self) -> str:
        return "node" if self.network.kind is Kind.NODE else "graph"

    def predict(self, graphs: Sequence[Graph]) -> list[IntArray]:
        return [np.atleast_1d(np.asarray(self.network.predict(graph), dtype=np.int64))
                for graph in graphs]
