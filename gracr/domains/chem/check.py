"""The proof against RDKit (the molecules issue, part 3): a compiled model's prediction
beside RDKit's `HasSubstructMatch` and the relaxed reference, molecule by molecule.

`predict_molecules` runs a compiled model on many molecules at once: their graphs are
one disjoint union (features stacked, edges renumbered) with a `batch` vector, so one
forward pass answers them all — the same answer as one pass per graph, since a node's
value depends on its own component only and the readout sums per graph.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from gracr.domains.chem.molecules import Molecule, Skipped, molecules_for
from gracr.domains.chem.reference import Kind, RelaxedQuery, classify
from gracr.domains.chem.stream import CHUNK_NODES
from gracr.data.graph import Graph
from gracr.data.schema import Schema
from gracr.dsl.ir import Kind as FormulaKind
from gracr.executor.model import CompiledGNN
from gracr.executor.protocol import Batch



def predict_molecules(model: CompiledGNN, graphs: Sequence[Graph]) -> list[bool]:
    """A graph classifier's answer on each graph."""
    if model.kind is not FormulaKind.GRAPH:
        raise ValueError("predict_molecules needs a graph classifier; see predict_atoms")
    return [bool(answer) for answer in _predict(model, graphs)]


def predict_atoms(model: CompiledGNN, graphs: Sequence[Graph]) -> list[list[bool]]:
    """A node classifier's answer on each node of each graph."""
    if model.kind is not FormulaKind.NODE:
        raise ValueError("predict_atoms needs a node classifier; see predict_molecules")
    return [list(answer) for answer in _predict(model, graphs)]


def _predict(model: CompiledGNN, graphs: Sequence[Graph]) -> list[Any]:
    """Each graph's answer, on the fastest executor exact for the model: the fused torch
    module (float32 is exact on molecules, whose features are one-hot)."""
    import torch

    answers: list[Any] = []
    module = model.to_pyg(fused=True)
    threads = torch.get_num_threads()
    # The products are narrow (the model's width): threads only add synchronisation,
    # and on a loaded machine they made this pass fifty times slower.
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"), torch.no_grad():
            for chunk in _chunks(graphs):
                answers.extend(_predict_chunk(model, module, chunk))
    finally:
        torch.set_num_threads(threads)
    return answers


def _predict_chunk(model: CompiledGNN, module: Any, chunk: list[Graph]) -> list[Any]:
    """One forward pass over the disjoint union of `chunk`: per graph, its node answers
    (node classifier) or its answer (graph classifier)."""
    import torch

    batch = Batch.of(model, chunk)
    output = module(torch.as_tensor(batch.x), torch.as_tensor(batch.edge_index),
                    torch.as_tensor(batch.graph_of_node),
                    edge_type=None if batch.edge_type is None
                    else torch.as_tensor(batch.edge_type))[:, 0].numpy() > 0.5
    offsets = np.cumsum([0] + [g.num_nodes for g in chunk])
    if model.kind is FormulaKind.NODE:
        return [[bool(v) for v in output[offsets[i]:offsets[i + 1]]]
                for i in range(len(chunk))]
    # Trailing graphs without nodes get no row (the readout sizes itself by `batch`):
    # each is answered alone. An empty graph in the middle has its row, from the zero
    # sum, which is its answer.
    return [bool(output[i]) if i < output.shape[0] else bool(model.predict(graph))
            for i, graph in enumerate(chunk)]


def _chunks(graphs: Sequence[Graph]) -> list[list[Graph]]:
    chunks: list[list[Graph]] = [[]]
    nodes = 0
    for graph in graphs:
        if nodes + graph.num_nodes > CHUNK_NODES and chunks[-1]:
            chunks.append([])
            nodes = 0
        chunks[-1].append(graph)
        nodes += graph.num_nodes
    return [chunk for chunk in chunks if chunk]


@dataclass(frozen=True)
class Verdict:
    """One molecule: the compiled model's answer, the relaxed reference's, RDKit's, and
    whether the model's program is the translation of the SMARTS."""

    molecule: Molecule
    compiled: bool
    relaxed: bool
    rdkit: bool
    translated: bool = True

    @property
    def kind(self) -> Kind:
        return classify(self.compiled, self.relaxed, self.rdkit, self.translated)


def check_molecules(model: CompiledGNN, query: RelaxedQuery, molecules: Sequence[Molecule],
                    translated: bool = True) -> list[Verdict]:
    """Each molecule's verdict; `model` is a compiled graph sentence, the translation of
    `query` unless `translated` is False (then a difference is the two's, `mismatch`)."""
    compiled = predict_molecules(model, [m.graph for m in molecules])
    return [Verdict(m, bool(c), query.matches(m.mol), query.rdkit_matches(m.mol), translated)
            for m, c in zip(molecules, compiled)]


def tally(verdicts: Sequence[Verdict]) -> Counter[str]:
    """Counts: molecules, RDKit positives, compiled positives, and each kind."""
    counts: Counter[str] = Counter()
    for verdict in verdicts:
        counts["molecules"] += 1
        counts["rdkit positive"] += verdict.rdkit
        counts["compiled positive"] += verdict.compiled
        counts[verdict.kind] += 1
    return counts


@dataclass(frozen=True)
class FileCheck:
    """The verdicts on one molecule file, and what was skipped in it."""

    path: str
    verdicts: tuple[Verdict, ...]
    skipped: tuple[Skipped, ...]

    def summary(self) -> str:
        counts = tally(self.verdicts)
        return (f"{self.path}: {counts['molecules']} molecules ({len(self.skipped)} skipped): "
                f"{counts['rdkit positive']} RDKit positive, {counts['compiled positive']} "
                f"compiled positive; {counts['agree']} agree, {counts['relaxed']} relaxed, "
                f"{counts['unexplained']} unexplained{mismatches(counts)}")

    def disagreements(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.kind != "agree"]

    def listing(self, show: int) -> str:
        """`gracrc chem-check`'s lines for the file: the summary, then at most `show`
        disagreeing molecules (every one when `show` is negative), one a line."""
        disagreeing = self.disagreements()
        shown = disagreeing if show < 0 else disagreeing[:show]
        lines = [self.summary(),
                 *[f"  {v.kind:<12} {v.molecule.place}  {v.molecule.smiles}" for v in shown]]
        if len(disagreeing) > len(shown):
            lines.append(f"  ... and {len(disagreeing) - len(shown)} more (--show -1 lists all)")
        return "\n".join(lines)


def total_summary(counts: Counter[str]) -> str:
    """The line over several files' verdicts (`tally` of them all)."""
    return (f"total: {counts['molecules']} molecules: {counts['rdkit positive']} RDKit "
            f"positive; {counts['agree']} agree, {counts['relaxed']} relaxed, "
            f"{counts['unexplained']} unexplained{mismatches(counts)}")


def mismatches(counts: Counter[str]) -> str:
    """The summary's count of `mismatch` verdicts, when there are any."""
    return (f", {counts['mismatch']} where the SMARTS and the formula disagree"
            if counts["mismatch"] else "")


def check_file(model: CompiledGNN, query: RelaxedQuery, path: str, schema: Schema,
               program: str = "the program", translated: bool = True) -> FileCheck:
    """`check_molecules` on every molecule of `path` that the program can read."""
    molecules, skipped = molecules_for(schema, path, program)
    return FileCheck(path, tuple(check_molecules(model, query, molecules, translated)),
                     tuple(skipped))
