"""The streamed molecule screen (`gracr.domains.chem.stream`) and the array encoder
(`codes_of`) against their references: the per-atom reading they replaced (kept here as
the oracle), the float64 numpy executor, the reference evaluator one graph at a time."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("rdkit")

from rdkit import Chem  # noqa: E402

import gracr  # noqa: E402
from gracr.cli import main  # noqa: E402
from gracr.domains.chem.bundled import bundled_sets  # noqa: E402
from gracr.domains.chem.molecules import (Molecule, encode_molecules,  # noqa: E402
                                          iter_molecules, molecules_for, parse_smiles,
                                          read_smiles)
from gracr.domains.chem.schema import CHARGES, ELEMENTS  # noqa: E402
from gracr.domains.chem.stream import Pattern, ScreenSettings, sampled, screen  # noqa: E402
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path  # noqa: E402

RELATION = {Chem.BondType.SINGLE: "single", Chem.BondType.DOUBLE: "double",
            Chem.BondType.TRIPLE: "triple", Chem.BondType.AROMATIC: "aromatic"}


def per_atom(mol: Any) -> tuple[dict[str, list[str]], list[tuple[int, int, str]]]:
    """The oracle: the molecule read atom by atom and bond by bond, as gracr did before
    the array encoder."""
    attributes: dict[str, list[str]] = {"element": [], "hydrogens": [], "charge": [],
                                        "aromatic": []}
    for atom in mol.GetAtoms():
        attributes["element"].append(ELEMENTS[atom.GetAtomicNum() - 1])
        attributes["hydrogens"].append(f"H{atom.GetTotalNumHs()}")
        attributes["charge"].append(CHARGES[atom.GetFormalCharge() + 3])
        attributes["aromatic"].append("yes" if atom.GetIsAromatic() else "no")
    edges = []
    for index in range(mol.GetNumBonds()):
        bond = mol.GetBondWithIdx(index)
        a, b, relation = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx(), RELATION[bond.GetBondType()]
        edges += [(a, b, relation), (b, a, relation)]
    return attributes, edges


def _sample(every: int = 40) -> list[Molecule]:
    molecules: list[Molecule] = []
    for _, path in bundled_sets():
        found = [m for m in iter_molecules(path) if isinstance(m, Molecule)]
        molecules += found[::every]
    return molecules


def test_the_array_encoder_reads_every_atom_and_bond_as_the_per_atom_oracle() -> None:
    molecules = _sample()
    assert len(molecules) > 400
    for molecule in molecules:
        attributes, edges = per_atom(molecule.mol)
        graph = molecule.graph
        assert {k: list(v) for k, v in graph.attributes.items()} == attributes, molecule.place
        assert list(zip(graph.sources.tolist(), graph.targets.tolist(),
                        graph.relations or ())) == edges, molecule.place


def test_a_molecule_with_explicit_hydrogens_loses_them_as_before() -> None:
    # [2H] and [H] are atoms until RemoveAllHs; the oracle reads RDKit's own removal.
    mol = Chem.RemoveAllHs(Chem.MolFromSmiles("[2H]C([H])(Cl)O", sanitize=True))
    molecule = read_smiles("[2H]C([H])(Cl)O")
    assert {k: list(v) for k, v in molecule.graph.attributes.items()} == per_atom(mol)[0]
    assert molecule.graph.num_nodes == 3


def test_atoms_outside_the_schema_are_named_as_before() -> None:
    with pytest.raises(gracr.GracrError, match=r"atom 1 \(Fe\) has charge \+5"):
        read_smiles("C[Fe+5]")
    with pytest.raises(gracr.GracrError, match=r"atom 0 \(\*\) has atomic number 0"):
        read_smiles("*C")


def _wombat(numbers: tuple[int, ...]) -> list[Pattern]:
    return [Pattern(p.name, str(wombat_formula_path(p)), gracr.parse(wombat_formula_path(p)),
                    compile_options={"comparison": "expanded"})
            for p in WOMBAT_PATTERNS if p.number in numbers]


def _first_5k() -> str:
    return next(path for name, path in bundled_sets() if name == "NCI first_5K")


@pytest.mark.parametrize("executor", ["fused", "numpy"])
def test_streamed_answers_are_the_reference_ones(executor: str) -> None:
    patterns = _wombat((6, 10, 14))
    path = _first_5k()
    rows = [row for result in screen(path, patterns, ScreenSettings(executor=executor,  # type: ignore[arg-type]
                                                                    chunk=300))
            for row in result.rows][:1500]
    for k, pattern in enumerate(patterns):
        model = gracr.compile(pattern.program)
        molecules, _ = molecules_for(pattern.program.schema, path)
        by_place = {m.place: m for m in molecules}
        for row in rows:
            graph = by_place[row.place].graph
            expected = bool(model.predict(graph))      # the float64 numpy reference
            assert row.gnn[k] == expected, (pattern.name, row.place)
            assert row.formula[k] == gracr.evaluate(pattern.program, graph), row.place


def test_two_workers_give_the_rows_of_one(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    lines = Path(_first_5k()).read_text().splitlines()[:600]
    molecules.write_text("\n".join(lines + ["C(C", "C[Fe+5]"]) + "\n")
    patterns = _wombat((10, 11))
    one = list(screen(str(molecules), patterns, ScreenSettings(chunk=100)))
    two = list(screen(str(molecules), patterns, ScreenSettings(chunk=100, jobs=2)))
    assert [r.rows for r in one] == [r.rows for r in two]
    assert [r.skipped for r in one] == [r.skipped for r in two]
    assert [s.reason for r in one for s in r.skipped][-2:] == [
        "RDKit cannot parse the SMILES 'C(C'",
        "atom 1 (Fe) has charge +5, outside the schema (-3..+3)"]


def test_the_formula_is_sampled_at_the_rate_asked() -> None:
    indices = np.arange(1000)
    assert int(sampled(indices, 0.1).sum()) == 100
    assert not sampled(indices, 0.0).any() and sampled(indices, 1.0).all()


def test_eval_screens_several_patterns_into_one_table(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("CC(C)C\nC(C\nClCC(C)C\n")
    folder = tmp_path / "patterns"
    folder.mkdir()
    for pattern in WOMBAT_PATTERNS:
        if pattern.number in (10, 14):
            (folder / f"{pattern.name}.gml").write_text(wombat_formula_path(pattern).read_text())
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", "--molecules", str(molecules), "--patterns", str(folder)],
                out=out, err=err) == 0
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [
        {"molecule": f"{molecules}:1", "smiles": "CC(C)C",
         "formula": {"P10": 1, "P14": 0}, "gnn": {"P10": 1, "P14": 0}},
        {"molecule": f"{molecules}:3", "smiles": "ClCC(C)C",
         "formula": {"P10": 1, "P14": 1}, "gnn": {"P10": 1, "P14": 1}}]
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", "--molecules", str(molecules), "--patterns", str(folder),
                 "--formula-rate", "0"], out=out, err=err) == 0
    assert "formula" not in out.getvalue()
    assert "sampled at rate 0: 0 of 2 molecules" in err.getvalue()


def test_chem_check_runs_every_pattern_of_a_folder_against_its_header(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("CC(C)C\nClCC(C)C\nC1CC1\n")
    folder = tmp_path / "patterns"
    folder.mkdir()
    for pattern in WOMBAT_PATTERNS:
        if pattern.number in (10, 14):
            (folder / f"{pattern.name}.gml").write_text(wombat_formula_path(pattern).read_text())
    table = tmp_path / "table.tsv"
    out, err = io.StringIO(), io.StringIO()
    assert main(["chem-check", "--patterns", str(folder), "--molecules", str(molecules),
                 "--table", str(table)], out=out, err=err) == 0
    # Hand-checked: isobutane and 1-chloro-2-methylpropane have a CH with three heavy
    # neighbours (P10); only the latter a CH2Cl with a heavy neighbour (P14).
    assert table.read_text().splitlines() == [
        "molecule\tsmiles\tP10\tP14",
        f"{molecules}:1\tCC(C)C\t1\t0",
        f"{molecules}:2\tClCC(C)C\t1\t1",
        f"{molecules}:3\tC1CC1\t0\t0"]
    assert "| P14     | 3         | 1              | 1                 | 3     |" in out.getvalue()


def test_the_screens_bond_reading_gives_each_molecule_the_oracles_bonds_in_another_order() -> None:
    # The screen reads bonds from RDKit's adjacency matrix (`bond_order=False`): the same
    # edges per molecule as the oracle, only ordered by atom pair. Beside the bundled
    # sample: a dative, a quadruple and a zero-order bond (outside the schema; the matrix
    # would show the dative as single and drop the zero-order one), a molecule above the
    # matrix's size limit, and aromatic rings.
    odd = ["C->[Fe]", "[Cu]<-N", "C$C", "C" * 200 + "c1ccccc1"]
    zero = Chem.RWMol(Chem.MolFromSmiles("CO"))
    zero.GetBondWithIdx(0).SetBondType(Chem.BondType.ZERO)
    Chem.SanitizeMol(zero)
    assert zero.GetBondWithIdx(0).GetBondType() == Chem.BondType.ZERO
    mols = [m.mol for m in _sample()] + [parse_smiles(s) for s in odd] + [zero]
    in_order, refused_in_order = encode_molecules(mols)
    dense, refused_dense = encode_molecules(mols, bond_order=False)
    assert {m: str(e) for m, e in refused_dense.items()} == \
        {m: str(e) for m, e in refused_in_order.items()}
    assert sorted(refused_dense) == [len(mols) - 5, len(mols) - 4, len(mols) - 3, len(mols) - 1]
    assert "DATIVE" in str(refused_dense[len(mols) - 5]) and "ZERO" in str(refused_dense[len(mols) - 1])
    kept = [mol for m, mol in enumerate(mols) if m not in refused_dense]
    assert dense.count == len(kept) and np.array_equal(dense.sizes, in_order.sizes)
    assert np.array_equal(dense.codes.atoms, in_order.codes.atoms)
    node_start = np.cumsum(dense.sizes) - dense.sizes
    edge_start = np.cumsum(dense.edge_counts) - dense.edge_counts
    reordered = 0
    names = ("single", "double", "triple", "aromatic")
    for k, mol in enumerate(kept):
        edges = slice(edge_start[k], edge_start[k] + dense.edge_counts[k])
        ours = list(zip((dense.codes.sources[edges] - node_start[k]).tolist(),
                        (dense.codes.targets[edges] - node_start[k]).tolist(),
                        [names[r] for r in dense.codes.relations[edges]]))
        oracle = per_atom(mol)[1]
        assert sorted(ours) == sorted(oracle), k
        reordered += ours != oracle
    assert reordered > 100   # the other order was in fact taken
