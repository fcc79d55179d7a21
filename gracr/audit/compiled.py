"""gracr's compiled model of the intended rule as an audit reads it: the contrast App. B
draws. Its answer is the rule's (class 1 where the formula holds), its receptive field the
formula's modal depth."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gracr.data.graph import Graph
from gracr.dsl.ir import Kind
from gracr.executor.model import CompiledGNN

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class CompiledModel:
    """`gracr.audit.perturb.AuditModel` over a `CompiledGNN`."""

    network: CompiledGNN

    @property
    def depth(self) -> int:
        return len(self.network.layers)

    @property
    def kind(self) -> str:
        return "node" if self.network.kind is Kind.NODE else "graph"

    def predict(self, graphs: Sequence[Graph]) -> list[IntArray]:
        return [np.atleast_1d(np.asarray(self.network.predict(graph), dtype=np.int64))
                for graph in graphs]
