"""Grafted positives: a SMARTS motif attached to bundled molecules with RDKit.

Few bundled molecules contain WOMBAT's larger patterns (1-5 have almost none), so the
proof against RDKit also runs on molecules made to contain them. `motif_smiles` turns
an acyclic SMARTS of WOMBAT's kind into a SMILES: each `[!#1]` or `*` becomes a dummy
atom `*` (an attachment point), each bracket atom of the form `[XH<n>]` the bare
element `X` (whose implicit hydrogens are then what the H count asks for, as in
WOMBAT's patterns), and any other bracket atom is kept. `graft` bonds the motif's
first attachment point's neighbour to one hydrogen-bearing aliphatic carbon of a host
(in place of the dummy atom) and makes every other dummy atom a carbon; the result
must sanitise, lie in the molecule schema, and match the SMARTS by RDKit's
`HasSubstructMatch`, else there is no graft.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from rdkit import Chem, rdBase

from gracr.domains.chem.molecules import Molecule, MoleculeError, graph_of, heavy_atoms

# How a grafted molecule's place begins (`is_grafted`).
GRAFTED = "grafted onto"
_WILDCARD = re.compile(r"\[!#1\]|\*")
_WITH_H = re.compile(r"\[([A-Z][a-z]?)H\d?\]")


def motif_smiles(smarts: str) -> str:
    """The SMILES of a SMARTS motif, its wildcards as dummy atoms (module docstring)."""
    return _WITH_H.sub(r"\1", _WILDCARD.sub("*", smarts))


def graft(host: Any, motif: Any, queries: Iterable[Any]) -> Any | None:
    """`host` (an RDKit molecule, heavy atoms only) with `motif` (from `motif_smiles`)
    attached at the host's first aliphatic carbon that takes it, or `None`. Every
    query of `queries` must match the result (`HasSubstructMatch`)."""
    stars = [atom.GetIdx() for atom in motif.GetAtoms() if atom.GetAtomicNum() == 0]
    if not stars:
        return None
    anchor = stars[0]
    joined_to = motif.GetAtomWithIdx(anchor).GetNeighbors()[0].GetIdx()
    wanted = list(queries)
    for atom in host.GetAtoms():
        if atom.GetSymbol() != "C" or atom.GetIsAromatic() or atom.GetTotalNumHs() == 0 \
                or atom.GetNumExplicitHs():
            continue
        grafted = _joined(host, motif, atom.GetIdx(), anchor, joined_to, stars[1:])
        if grafted is not None and all(grafted.HasSubstructMatch(q) for q in wanted):
            return grafted
    return None


def _joined(host: Any, motif: Any, host_atom: int, anchor: int, joined_to: int,
            other_stars: list[int]) -> Any | None:
    combined = Chem.RWMol(Chem.CombineMols(host, motif))
    offset = host.GetNumAtoms()
    combined.AddBond(host_atom, offset + joined_to, Chem.BondType.SINGLE)
    for star in other_stars:
        combined.GetAtomWithIdx(offset + star).SetAtomicNum(6)
    combined.RemoveAtom(offset + anchor)
    with rdBase.BlockLogs():
        try:
            mol = heavy_atoms(combined.GetMol())
            graph_of(mol)
        except MoleculeError:
            return None
    return mol


def is_grafted(molecule: Molecule) -> bool:
    """Whether `molecule` was made by `grafted_positives` (its place says so)."""
    return molecule.place.startswith(GRAFTED)


def grafted_positives(smarts: str, hosts: Iterable[Molecule], count: int,
                      also: Iterable[str] = ()) -> Iterator[Molecule]:
    """Up to `count` molecules: `smarts`'s motif grafted onto successive hosts (one
    graft per host), each matching `smarts` and every SMARTS of `also` by RDKit. The
    place names the host: `grafted onto file:line`."""
    motif = Chem.MolFromSmiles(motif_smiles(smarts))
    if motif is None:
        return
    queries = [Chem.MolFromSmarts(s) for s in (smarts, *also)]
    made = 0
    for host in hosts:
        if made == count:
            return
        mol = graft(host.mol, motif, queries)
        if mol is None:
            continue
        made += 1
        yield Molecule(f"{GRAFTED} {host.place}", Chem.MolToSmiles(mol), host.name, mol,
                       graph_of(mol))
