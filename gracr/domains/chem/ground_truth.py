"""Atom-level ground truth of a motif: WOMBAT's definition, and how ours compares.

Ours is the node-level UPI of the compiled sentence (`gracr.ground_truth(program, graph,
over="nodes")`: deletion semantics, the ground truth of a model compiled with the
presence bit, on which zeroing an atom's features deletes it). WOMBAT's (§3.1 "Ground
Truths" and App. C.1 of the WOMBAT paper) is read off RDKit: the union of the atoms of
every match of the relaxed SMARTS, plus every neighbour of each matched atom whose SMARTS
atom carries a degree constraint `D` (those neighbours are required by it, so they count).

`wombat_ground_truth` takes the matches with `uniquify=False`, every mapping of the query
onto the molecule: `uniquify=True` (RDKit's default) keeps one mapping per atom set, and
which query atom an atom plays — so whether its neighbours join through a `D` — would then
depend on the mapping RDKit happens to keep. The atoms of the matches are the same either
way; `uniquify` is a parameter so that the two can be compared.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from rdkit import Chem

BoolArray = npt.NDArray[np.bool_]
Agreement = Literal["identical", "UPI ⊂ WOMBAT", "WOMBAT ⊂ UPI", "other"]
AGREEMENTS: tuple[Agreement, ...] = ("identical", "UPI ⊂ WOMBAT", "WOMBAT ⊂ UPI", "other")

# Enough for every bundled molecule: RDKit stops at `maxMatches` (1000 by default) silently.
MAX_MATCHES = 1_000_000


def degree_constrained(query: Any) -> frozenset[int]:
    """The atoms of an RDKit query molecule whose query tests the heavy degree (`D`,
    RDKit's `AtomExplicitDegree`; explicit = heavy on a molecule without H atoms)."""
    return frozenset(atom.GetIdx() for atom in query.GetAtoms()
                     if "AtomExplicitDegree" in atom.DescribeQuery())


def wombat_ground_truth(mol: Any, smarts: str, uniquify: bool = False) -> BoolArray:
    """WOMBAT's atom labels on `mol` (heavy atoms, as `gracr.domains.chem` reads it) for the
    relaxed SMARTS `smarts`: True on every atom of every RDKit match and on every
    neighbour of a matched atom whose SMARTS atom has a `D` constraint; all False when
    nothing matches."""
    query = Chem.MolFromSmarts(smarts)
    if query is None:
        raise ValueError(f"RDKit cannot parse the SMARTS {smarts!r}")
    constrained = degree_constrained(query)
    labels = np.zeros(mol.GetNumAtoms(), dtype=np.bool_)
    for match in mol.GetSubstructMatches(query, uniquify=uniquify, maxMatches=MAX_MATCHES):
        for query_atom, atom in enumerate(match):
            labels[atom] = True
            if query_atom in constrained:
                for neighbour in mol.GetAtomWithIdx(atom).GetNeighbors():
                    labels[neighbour.GetIdx()] = True
    return labels


def agreement(upi: npt.ArrayLike, wombat: npt.ArrayLike) -> Agreement:
    """How two atom sets relate: equal, one a proper subset of the other, or neither."""
    ours = np.asarray(upi, dtype=np.bool_)
    theirs = np.asarray(wombat, dtype=np.bool_)
    if np.array_equal(ours, theirs):
        return "identical"
    if not (ours & ~theirs).any():
        return "UPI ⊂ WOMBAT"
    if not (theirs & ~ours).any():
        return "WOMBAT ⊂ UPI"
    return "other"
