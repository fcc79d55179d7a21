"""Molecules labelled by a SMARTS rule as audit data (App. B.2's synthetic molecular
benchmarks, rebuilt with exact labels): a molecule is positive when RDKit finds the pattern
in it, and the motif is every match's atoms and the bonds the pattern maps onto.

Each graph is the molecule's whole graph under the molecule schema (`gracr.domains.chem`),
but the trained models and the probes read the element alone (`AuditData.families`), as
the benchmarks' node features are the atom type (App. B.2); bond types stay as the graphs'
relations, which the audit's GNNs do not read (as GCN, GIN and GraphSAGE in Table 6 do
not). gracr's compiled rule reads the whole graph: it is the SMARTS's translation
(`gracr.domains.chem.translate`, what `gracrc smarts` writes) when the SMARTS is in the
subset gracr translates (connected, acyclic: no ring closure, no `.`, no `X` or `$(...)`),
and there is none otherwise (the reason is kept).

The rules of App. B.2's datasets, written from the paper's definitions, are in `RULES`,
with `NO2`, the nitro group of Table 7: there its labels are the rule's, exact, not
Mutagenicity's experimental ones.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gracr.audit.data import AuditData
from gracr.dsl.program import Program
from gracr.errors import GracrError

if TYPE_CHECKING:
    from gracr.domains.chem.molecules import Molecule

# App. B.2: Benzene, a six-carbon aromatic ring; FluorideCarbonyl, a fluoro group and a
# carbonyl group; AlkaneCarbonyl, a carbonyl group and a three-carbon single-bonded chain.
# A dot in SMARTS joins parts that need not be bonded to each other. Table 7: NO2, the
# nitro group in RDKit's charge-separated form (sanitisation writes N(=O)=O so too).
RULES: dict[str, str] = {
    "Benzene": "c1ccccc1",
    "FluorideCarbonyl": "[F].[CX3]=[OX1]",
    "AlkaneCarbonyl": "[CX4]-[CX4]-[CX4].[CX3]=[OX1]",
    "NO2": "[N+](=O)[O-]",
}
# What the trained models and the probes read of a molecule's atoms.
READ_FAMILIES = ("element",)


@dataclass(frozen=True, eq=False)
class MoleculeAudit:
    """Molecules labelled by `smarts`: the audit data, the molecules in its order (RDKit's,
    for the hydrogen replacement), RDKit's query of the SMARTS, and the SMARTS's compiled
    rule (`rule`, a program) or why there is none (`no_rule`)."""

    data: AuditData
    molecules: tuple[Molecule, ...]
    smarts: str
    query: Any
    rule: Program | None
    no_rule: str | None

    def matches(self, mol: Any) -> tuple[tuple[int, ...], ...]:
        """Every match of the SMARTS in `mol` (RDKit's, unique atom sets)."""
        return tuple(mol.GetSubstructMatches(self.query, maxMatches=1000))


def molecule_audit(path: str, smarts: str) -> MoleculeAudit:
    """The molecules of `path` (SMILES, SDF or CSV, as `gracrc` reads them), labelled by
    `smarts` (a name of `RULES` or a SMARTS pattern)."""
    from rdkit import Chem

    from gracr.domains.chem.molecules import read_molecules

    text = RULES.get(smarts, smarts)
    query = Chem.MolFromSmarts(text)
    if query is None:
        raise GracrError(f"--smarts {text!r}: RDKit cannot read this SMARTS pattern")
    pattern_bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in query.GetBonds()]
    molecules = read_molecules(path).molecules
    if not molecules:
        raise GracrError(f"{path}: no molecule read")
    labels, edges, nodes = [], [], []
    for molecule in molecules:
        graph = molecule.graph
        matches = molecule.mol.GetSubstructMatches(query, maxMatches=1000)
        node_mask = np.zeros(graph.num_nodes, dtype=np.bool_)
        pairs: set[frozenset[int]] = set()
        for match in matches:
            node_mask[list(match)] = True
            pairs.update(frozenset((match[a], match[b])) for a, b in pattern_bonds)
        edges.append(np.asarray([frozenset((s, t)) in pairs for s, t in graph.edges],
                                dtype=np.bool_))
        labels.append(np.asarray([int(bool(matches))], dtype=np.int64))
        nodes.append(node_mask)
    data = AuditData(f"{os.path.basename(path)} by {smarts}", "graph",
                     tuple(m.graph for m in molecules), tuple(labels), tuple(edges),
                     tuple(nodes), True, READ_FAMILIES)
    rule, no_rule = _translated(text)
    return MoleculeAudit(data, molecules, text, query, rule, no_rule)


def _translated(smarts: str) -> tuple[Program | None, str | None]:
    """The SMARTS's program (`gracrc smarts`'s), or why gracr has none."""
    from gracr.domains.chem.smarts import SmartsError
    from gracr.domains.chem.translate import translate_smarts

    try:
        return translate_smarts(smarts).program, None
    except SmartsError as error:
        return None, (f"the SMARTS {smarts!r} is outside the subset gracr translates: "
                      f"{error.reason.rstrip('.')}")
