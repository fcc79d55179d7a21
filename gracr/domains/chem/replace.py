"""A motif replaced by hydrogen (App. B, Table 7): the molecule without the motif's atoms,
every bond that joined the motif to the rest given back to the atom that kept it as
hydrogens.

`replace_by_hydrogen(mol, atoms)`, step by step:

1. the molecule is read in RDKit's Kekulé form (`Chem.Kekulize`, aromatic flags cleared),
   so every bond has an order of 1, 2 or 3;
2. each kept atom bonded to the motif (an attachment atom) gains as many hydrogens as the
   orders of the bonds it loses: one for a single bond, which is the paper's "substituted
   with a single hydrogen" (a nitro group on a ring carbon becomes that carbon's H); two
   for a double bond. Every kept atom's hydrogen count is then fixed (RDKit's explicit
   count, `NoImplicit`), so no atom's valence changes and nothing else is guessed;
3. the motif's atoms are deleted, and the result is sanitised again (which perceives
   aromaticity anew: an intact ring stays aromatic, a ring cut open does not).

Several attachment atoms are each capped, and a molecule may fall apart into fragments
(acetone without its carbonyl group is two methanes, `C.C`): the fragments stay one
molecule, one graph. A ring cut across gets the hydrogens of RDKit's one Kekulé
structure. `MoleculeError` when nothing is left (the motif is the whole molecule), when
RDKit cannot kekulise or sanitise the molecule, or when the result is outside the molecule
schema.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rdkit import Chem

from gracr.domains.chem.molecules import MoleculeError, heavy_atoms

NOTHING_LEFT = "the motif is the whole molecule: nothing is left"


def attachments(mol: Any, atoms: Iterable[int]) -> int:
    """The bonds joining `atoms` to the rest of `mol`."""
    inside = set(atoms)
    return sum((bond.GetBeginAtomIdx() in inside) != (bond.GetEndAtomIdx() in inside)
               for bond in mol.GetBonds())


def replace_by_hydrogen(mol: Any, atoms: Iterable[int]) -> Any:
    """`mol` (sanitised, heavy atoms only) with `atoms` replaced by hydrogen, sanitised,
    heavy atoms only (module docstring); `MoleculeError` when it cannot be."""
    removed = set(atoms)
    if len(removed) >= mol.GetNumAtoms():
        raise MoleculeError(NOTHING_LEFT)
    edited = Chem.RWMol(mol)
    try:
        Chem.Kekulize(edited, clearAromaticFlags=True)
    except Exception as error:  # RDKit's kekulisation exceptions share no base class
        raise MoleculeError(f"RDKit cannot kekulise it: {error}") from None
    gained: Counter[int] = Counter()
    for bond in edited.GetBonds():
        begin, end = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        if (begin in removed) != (end in removed):
            gained[end if begin in removed else begin] += int(bond.GetBondTypeAsDouble())
    for atom in edited.GetAtoms():
        index = atom.GetIdx()
        if index not in removed:
            # The count of the sanitised input, not of the edited copy: kekulisation
            # leaves an atom's hydrogens as they were.
            atom.SetNumExplicitHs(mol.GetAtomWithIdx(index).GetTotalNumHs() + gained[index])
            atom.SetNoImplicit(True)
    edited.BeginBatchEdit()
    for index in removed:
        edited.RemoveAtom(index)
    edited.CommitBatchEdit()
    return heavy_atoms(edited.GetMol())
