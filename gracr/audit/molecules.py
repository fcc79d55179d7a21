"""Molecules labelled by a SMARTS rule as audit data (App. B.2's synthetic molecular
benchmarks, rebuilt with exact labels): a molecule is positive when RDKit finds the pattern
in it, and the motif is every match's atoms and the bonds the pattern maps onto.

Nodes carry the element alone, as the benchmarks' node features are the atom type (App.
B.2); bond types stay as the graphs' relations, which the audit's GNNs do not read (as
GCN, GIN and GraphSAGE in Table 6 do not). The rules of App. B.2's datasets, written from
the paper's definitions, are in `RULES`.
"""

from __future__ import annotations

import os

import numpy as np

from gracr.audit.data import AuditData
from gracr.data.graph import Graph
from gracr.errors import GracrError

# App. B.2: Benzene, a six-carbon aromatic ring; FluorideCarbonyl, a fluoro group and a
# carbonyl group; AlkaneCarbonyl, a carbonyl group and a three-carbon single-bonded chain.
# A dot in SMARTS joins parts that need not be bonded to each other.
RULES: dict[str, str] = {
    "Benzene": "c1ccccc1",
    "FluorideCarbonyl": "[F].[CX3]=[OX1]",
    "AlkaneCarbonyl": "[CX4]-[CX4]-[CX4].[CX3]=[OX1]",
}


def molecule_data(path: str, smarts: str) -> AuditData:
    """The molecules of `path` (SMILES, SDF or CSV, as `gracrc` reads them), labelled by
    `smarts` (a name of `RULES` or a SMARTS pattern)."""
    from rdkit import Chem

    from gracr.domains.chem.molecules import read_molecules

    text = RULES.get(smarts, smarts)
    pattern = Chem.MolFromSmarts(text)
    if pattern is None:
        raise GracrError(f"--smarts {text!r}: RDKit cannot read this SMARTS pattern")
    pattern_bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in pattern.GetBonds()]
    molecules = read_molecules(path).molecules
    if not molecules:
        raise GracrError(f"{path}: no molecule read")
    graphs, labels, edges, nodes = [], [], [], []
    for molecule in molecules:
        full = molecule.graph
        graph = Graph.from_edges(full.num_nodes, None, full.edge_index.T,
                                 attributes={"element": full.attributes["element"]},
                                 relations=full.relations)
        matches = molecule.mol.GetSubstructMatches(pattern, maxMatches=1000)
        node_mask = np.zeros(graph.num_nodes, dtype=np.bool_)
        pairs: set[frozenset[int]] = set()
        for match in matches:
            node_mask[list(match)] = True
            pairs.update(frozenset((match[a], match[b])) for a, b in pattern_bonds)
        edge_mask = np.asarray([frozenset((s, t)) in pairs for s, t in graph.edges],
                               dtype=np.bool_)
        graphs.append(graph)
        labels.append(np.asarray([int(bool(matches))], dtype=np.int64))
        edges.append(edge_mask)
        nodes.append(node_mask)
    return AuditData(f"{os.path.basename(path)} by {smarts}", "graph", tuple(graphs), tuple(labels),
                     tuple(edges), tuple(nodes), True)
