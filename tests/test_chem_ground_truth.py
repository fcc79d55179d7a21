"""WOMBAT's atom-level ground truth (`gracr.domains.chem.ground_truth`) on hand-made molecules,
and the node UPI of the compiled WOMBAT patterns beside it. Every expected atom set is
worked out by hand in the comments (atom indices are the SMILES order)."""

from __future__ import annotations

import pytest

import gracr
from gracr.domains.chem import read_smiles
from gracr.domains.chem.ground_truth import agreement, degree_constrained, wombat_ground_truth
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path
from rdkit import Chem

P06 = WOMBAT_PATTERNS[5]   # [CHD3][CHD3]
P12 = WOMBAT_PATTERNS[11]  # [!#1][CH]=O


def _atoms(mask: object) -> list[int]:
    return [i for i, value in enumerate(mask) if value]  # type: ignore[attr-defined]


def test_the_degree_constrained_atoms_of_a_query() -> None:
    assert degree_constrained(Chem.MolFromSmarts("[CHD3][CH2][CD3](=O)")) == {0, 2}
    assert degree_constrained(Chem.MolFromSmarts("[!#1][CH]=O")) == frozenset()


def test_matched_atoms_without_a_degree_constraint() -> None:
    # Propanal C0 C1 C2(=O3): [!#1] = C1, [CH] = C2, O3; C0 is in no match.
    assert _atoms(wombat_ground_truth(read_smiles("CCC=O").mol, P12.relaxed)) == [1, 2, 3]
    # Acetaldehyde: the whole molecule.
    assert _atoms(wombat_ground_truth(read_smiles("CC=O").mol, P12.relaxed)) == [0, 1, 2]
    # No aldehyde: all False.
    assert _atoms(wombat_ground_truth(read_smiles("CCO").mol, P12.relaxed)) == []


def test_a_degree_constraint_brings_in_every_neighbour() -> None:
    # C0 C1 C2(C3) C4(C5) C6: the match is C2-C4 (both CH, three heavy neighbours);
    # their neighbours 1, 3, 4 and 2, 5, 6 join; C0 does not.
    mol = read_smiles("CCC(C)C(C)C").mol
    assert _atoms(wombat_ground_truth(mol, P06.relaxed)) == [1, 2, 3, 4, 5, 6]


def test_every_mapping_counts_not_one_per_atom_set() -> None:
    # Butane C0 C1 C2 C3 against [CD2][CH2]: the mappings (1, 2) and (2, 1) share an atom
    # set. Every mapping: the neighbours of C1 (0, 2) and of C2 (1, 3): all four atoms.
    # RDKit's uniquify=True keeps one of the two, so one end is left out.
    mol = read_smiles("CCCC").mol
    assert _atoms(wombat_ground_truth(mol, "[CD2][CH2]")) == [0, 1, 2, 3]
    assert _atoms(wombat_ground_truth(mol, "[CD2][CH2]", uniquify=True)) in \
        ([0, 1, 2], [1, 2, 3])


def test_agreement_kinds() -> None:
    assert agreement([1, 0, 1], [1, 0, 1]) == "identical"
    assert agreement([1, 0, 0], [1, 0, 1]) == "UPI ⊂ WOMBAT"
    assert agreement([1, 1, 1], [1, 0, 1]) == "WOMBAT ⊂ UPI"
    assert agreement([1, 1, 0], [1, 0, 1]) == "other"


@pytest.mark.parametrize("pattern,smiles,atoms", [
    (P12, "CCC=O", [1, 2, 3]),
    (P06, "CCC(C)C(C)C", [1, 2, 3, 4, 5, 6]),
])
def test_the_node_upi_of_a_compiled_pattern_on_hand_made_molecules(
        pattern: object, smiles: str, atoms: list[int]) -> None:
    """The same sets as above from the other side: deleting C0 leaves each motif whole,
    deleting any other atom breaks it (an atom of the match, or a neighbour a `D3` counts)."""
    program = gracr.parse(wombat_formula_path(pattern))  # type: ignore[arg-type]
    truth = gracr.ground_truth(program, read_smiles(smiles).graph, over="nodes")
    assert truth.label == 1 and truth.node_mask is not None
    assert _atoms(truth.node_mask) == atoms


def test_p02s_tail_is_in_wombats_set_but_not_needed_by_the_relaxed_sentence() -> None:
    # C0 C1(C2 C3 ring ... C9) C11(=O12) C13 C14(C15)(C16) C17 C18(C19)(C20)C21: the match is
    # [CHD3] 1, C 11, O 12, [CH2] 13, C 14, [CH3] 15 16, [CH2] 17, [CD4] 18; the D
    # neighbours of 1 (0, 2, 11) and of 18 (17, 19, 20, 21) join. Without 18-21 the relaxed
    # sentence still holds: 14 serves the tail's [CD4] for the [CH2] 13 (whose parent
    # requirement C is 11), and 17 keeps its H2 to serve 14's parent branch.
    pattern = WOMBAT_PATTERNS[1]
    molecule = read_smiles("CC(CC1=CC(=O)C=CC1=O)C(=O)CC(C)(C)CC(C)(C)C")
    wombat = [0, 1, 2, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]
    assert _atoms(wombat_ground_truth(molecule.mol, pattern.relaxed)) == wombat
    program = gracr.parse(wombat_formula_path(pattern))
    truth = gracr.ground_truth(program, molecule.graph, over="nodes")
    assert truth.label == 1 and truth.node_mask is not None
    assert _atoms(truth.node_mask) == wombat[:-4]
    model = gracr.compile(program, presence=True)
    x = model.features(molecule.graph)
    x[[18, 19, 20, 21]] = 0.0
    edge_type = model.edge_types(molecule.graph)
    assert model.forward(x, molecule.graph.edge_index, edge_type=edge_type)[0, 0] == 1.0
    x[17] = 0.0
    assert model.forward(x, molecule.graph.edge_index, edge_type=edge_type)[0, 0] == 0.0
