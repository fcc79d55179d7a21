"""gracr.domains.chem part 1: molecule files -> typed graphs under the fixed molecule schema."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

pytest.importorskip("rdkit")

from gracr.domains.chem import MOLECULE_SCHEMA, MoleculeError, molecule_declarations, read_molecules, read_smiles
from gracr.cli import main
import gracr

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "molecules"


def test_the_schema_is_the_one_the_issue_fixes() -> None:
    families = {f.name: f.values for f in MOLECULE_SCHEMA.families}
    assert len(families["element"]) == 100
    assert families["element"][:8] == ("H", "He", "Li", "Be", "B", "C", "N", "O")
    assert families["element"][99] == "Fm"   # Z = 100
    assert families["hydrogens"] == tuple(f"H{n}" for n in range(10))
    assert families["charge"] == ("neg3", "neg2", "neg1", "zero", "pos1", "pos2", "pos3")
    assert families["aromatic"] == ("no", "yes")
    assert MOLECULE_SCHEMA.relations == ("single", "double", "triple", "aromatic")
    assert gracr.parse(molecule_declarations() + "classify element=Cl").schema == MOLECULE_SCHEMA


def test_a_molecule_is_its_heavy_atoms_with_both_directions_of_each_bond() -> None:
    # Acetaldehyde with an explicit hydrogen: RemoveAllHs folds it into the count.
    graph = read_smiles("[H]C(C)=O").graph
    assert graph.num_nodes == 3
    assert graph.attributes["element"] == ("C", "C", "O")
    assert graph.attributes["hydrogens"] == ("H1", "H3", "H0")
    assert graph.edges == [(0, 1), (1, 0), (0, 2), (2, 0)]
    assert graph.relations == ("single", "single", "double", "double")


def test_aromatic_atoms_bonds_and_charges() -> None:
    graph = read_smiles("C[N+](C)(C)c1ccccc1[O-]").graph
    assert graph.attributes["charge"][1] == "pos1" and graph.attributes["charge"][10] == "neg1"
    assert graph.attributes["aromatic"][:5] == ("no", "no", "no", "no", "yes")
    assert set(graph.relations or ()) == {"single", "aromatic"}
    assert read_smiles("C#N").graph.relations == ("triple", "triple")


@pytest.mark.parametrize("smiles,reason", [
    ("C1CC", "RDKit cannot parse the SMILES 'C1CC'"),
    ("C[N](C)(C)(C)C", "RDKit cannot sanitise it: Explicit valence for atom # 1 N, 5"),
    ("[Fe+4]", "atom 0 (Fe) has charge +4, outside the schema (-3..+3)"),
    ("*C", "atom 0 (*) has atomic number 0, outside the schema (1..100)"),
    ("[Md]", "atom 0 (Md) has atomic number 101, outside the schema (1..100)"),
    ("C[Cu]<-N", "is DATIVE, outside the schema (single, double, triple, aromatic)"),
])
def test_a_molecule_outside_rdkit_or_the_schema_is_a_molecule_error(smiles: str,
                                                                   reason: str) -> None:
    with pytest.raises(MoleculeError, match=reason.replace("(", r"\(").replace(")", r"\)")
                       .replace("+", r"\+").replace("*", r"\*").replace(".", r"\.")):
        read_smiles(smiles)


def test_a_smiles_file_skips_bad_lines_with_their_numbers() -> None:
    found = read_molecules(str(FIXTURES / "mixed.smi"))
    assert [(Path(m.place).name, m.smiles, m.name) for m in found.molecules] == [
        ("mixed.smi:2", "CCO", "ethanol"), ("mixed.smi:5", "c1ccccc1", "benzene")]
    assert [Path(s.place).name for s in found.skipped] == [
        "mixed.smi:4", "mixed.smi:6", "mixed.smi:7", "mixed.smi:8"]


def test_a_csv_file_finds_its_smiles_column_and_keeps_physical_lines() -> None:
    found = read_molecules(str(FIXTURES / "named.csv"))
    assert [(Path(m.place).name, m.smiles) for m in found.molecules] == [
        ("named.csv:2", "CCO"), ("named.csv:4", "CC(=O)O")]
    assert [Path(s.place).name for s in found.skipped] == ["named.csv:3"]


def test_a_headerless_tsv_reads_its_first_column_from_line_one() -> None:
    found = read_molecules(str(FIXTURES / "headerless.tsv"))
    assert [(Path(m.place).name, m.smiles) for m in found.molecules] == [
        ("headerless.tsv:1", "CCO"), ("headerless.tsv:2", "C[C@H](N)C(=O)O")]


def test_an_sdf_file_names_each_record_by_its_first_line() -> None:
    found = read_molecules(str(FIXTURES / "two.sdf"))
    assert [(Path(m.place).name, m.name, m.graph.num_nodes) for m in found.molecules] == [
        ("two.sdf:1", "sodium acetate", 5), ("two.sdf:23", "nitrogen", 2)]
    assert [(Path(s.place).name, s.reason) for s in found.skipped] == [
        ("two.sdf:16", "RDKit cannot parse this molfile record")]


def test_an_unknown_suffix_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mols.xyz"
    path.write_text("CCO\n")
    with pytest.raises(gracr.GraphError, match="unknown molecule file type '.xyz'"):
        read_molecules(str(path))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def _chloromethyl(tmp_path: Path) -> Path:
    # Hand-written: a CH2 with a Cl and exactly two heavy neighbours (WOMBAT's pattern 14).
    path = tmp_path / "p14.gml"
    path.write_text(molecule_declarations() +
                    "let root = element=C & aromatic=no & hydrogens=H2 & "
                    "<1>{single} (element=Cl & aromatic=no) & exactly 2 true\n"
                    "classify exists root\n")
    return path


def test_eval_reads_molecules_and_reports_skipped_lines(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("ClCC\nC(C\nCC(C)C\n")
    code, out, err = _run("eval", str(_chloromethyl(tmp_path)), "--molecules", str(molecules))
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"molecule": f"{molecules}:1", "smiles": "ClCC", "formula": 1, "gnn": 1},
        {"molecule": f"{molecules}:3", "smiles": "CC(C)C", "formula": 0, "gnn": 0}]
    lines = err.splitlines()
    assert lines[:2] == [
        f"gracrc: {molecules}:2: skipped: RDKit cannot parse the SMILES 'C(C'",
        f"gracrc: {molecules}: 2 molecules read, 1 skipped"]
    # The summary says what ran where: the network on every molecule, the formula too.
    assert "formula: the reference evaluator vectorised over each chunk, on every molecule" \
        in lines[2]
    assert lines[3] == "gracrc: p14: 1 positive; 0 where the gnn and the formula differ"


def test_upi_over_nodes_on_molecules(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("ClCCO\n")
    code, out, _ = _run("upi", str(_chloromethyl(tmp_path)), "--molecules", str(molecules),
                        "--over", "nodes")
    assert code == 0
    # Cl, the CH2 and its other neighbour are needed; the O beyond is not.
    assert json.loads(out) == {"molecule": f"{molecules}:1", "smiles": "ClCCO", "label": 1,
                               "node_mask": [1, 1, 1, 0]}


def test_a_program_that_cannot_read_molecules_is_an_error(tmp_path: Path) -> None:
    program = tmp_path / "red.gml"
    program.write_text("colors red\nclassify exists red\n")
    code, _, err = _run("eval", str(program), "--molecules", str(FIXTURES / "mixed.smi"))
    assert code == 2
    assert "cannot read molecules: it declares colours (red), and molecules have none" in err


def test_eval_needs_graphs_or_molecules_not_both(tmp_path: Path) -> None:
    code, _, err = _run("eval", str(_chloromethyl(tmp_path)))
    assert code == 2 and "give either a GRAPHS file or --molecules FILE" in err


def test_gzipped_files_are_read_and_a_damaged_one_is_an_error(tmp_path: Path) -> None:
    import gzip

    good = tmp_path / "m.smi.gz"
    good.write_bytes(gzip.compress(b"CCO one\nCC(C\n"))
    found = read_molecules(str(good))
    assert [(m.smiles, m.name) for m in found.molecules] == [("CCO", "one")]
    assert [Path(s.place).name for s in found.skipped] == ["m.smi.gz:2"]
    bad = tmp_path / "bad.smi.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(gracr.GraphError, match="bad.smi.gz: cannot read: Not a gzipped file"):
        read_molecules(str(bad))


def test_a_molecule_over_the_atom_limit_is_skipped_named_by_its_line(tmp_path: Path) -> None:
    from gracr.limits import MAX_MOLECULE_ATOMS

    # An explicit hydrogen counts: the limit is on the atoms RDKit parses.
    over = "C" * MAX_MOLECULE_ATOMS + "[H]"
    molecules = tmp_path / "m.smi"
    molecules.write_text(f"CCO\n{over} big\nCC\n")
    found = read_molecules(str(molecules))
    assert [Path(m.place).name for m in found.molecules] == ["m.smi:1", "m.smi:3"]
    assert [str(s) for s in found.skipped] == [
        f"{molecules}:2: skipped: the molecule has {MAX_MOLECULE_ATOMS + 1} atoms, over "
        f"gracr's limit of {MAX_MOLECULE_ATOMS} (gracr.limits.MAX_MOLECULE_ATOMS)"]


def test_an_over_limit_smiles_is_counted_in_its_text_and_never_parsed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # RDKit's SMILES parser is quadratic in the atoms: a 266 000-atom line of fused rings
    # (found by the input fuzzer) took minutes before it was counted and refused.
    from rdkit import Chem

    from gracr.domains.chem import molecules
    from gracr.limits import MAX_MOLECULE_ATOMS

    parsed: list[int] = []
    real = Chem.MolFromSmiles
    monkeypatch.setattr(molecules.Chem, "MolFromSmiles",
                        lambda text, **kw: parsed.append(len(text)) or real(text, **kw))
    rings = ".".join(["C1CCCCC1"] * (MAX_MOLECULE_ATOMS // 6 + 1))
    with pytest.raises(molecules.MoleculeError, match=f"has {6 * (MAX_MOLECULE_ATOMS // 6 + 1)} "
                                                      "atoms, over gracr's limit"):
        read_smiles(rings)
    assert parsed == []
    read_smiles("[13CH3]C(Cl)(Br)c1ccccc1")       # below the limit: parsed as before
    assert parsed == [len("[13CH3]C(Cl)(Br)c1ccccc1")]


def test_bonds_become_edges_in_rdkit_bond_order() -> None:
    # The bonds are collected through the atoms (linear); their order must stay RDKit's.
    molecule = read_smiles("OC1=CC(N)=CC(Cl)=C1C#N")
    expected = []
    for bond in molecule.mol.GetBonds():
        begin, end = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        expected += [(begin, end), (end, begin)]
    assert molecule.graph.edges == expected
