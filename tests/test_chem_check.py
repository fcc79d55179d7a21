"""gracr.domains.chem part 3: `gracrc chem-check` and the batched prediction behind it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("rdkit")

import gracr
from gracr.domains.chem import read_smiles
from gracr.domains.chem.check import predict_atoms, predict_molecules
from gracr.domains.chem.translate import smarts_to_gml
from gracr.cli import main


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def _program(tmp_path: Path, smarts: str, node: bool = False) -> Path:
    path = tmp_path / "p.gml"
    path.write_text(smarts_to_gml(smarts, node=node))
    return path


def test_batched_prediction_is_one_pass_per_graph_alike() -> None:
    # An empty molecule ([H][H] has no heavy atom) between and after the others.
    graphs = [read_smiles(s).graph for s in ("ClCC", "[H][H]", "CCC", "ClCCCl", "[H][H]")]
    sentence = gracr.compile(gracr.parse(smarts_to_gml("[CH2]Cl")))
    assert predict_molecules(sentence, graphs) == [True, False, False, True, False]
    atoms = gracr.compile(gracr.parse(smarts_to_gml("[CH2]Cl", node=True)))
    assert predict_atoms(atoms, graphs) == [[False, True, False], [], [False, False, False],
                                            [False, True, True, False], []]


def test_chem_check_counts_agreement_and_lists_relaxed_cases(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    # Chain of four CH2: cyclopropane matches only relaxed; butane's inner atoms are CH2
    # but its ends CH3, so only the long chain matches exactly.
    molecules.write_text("C1CC1\nCCCC\nCCCCCC\n")
    smarts = "[CH2][CH2][CH2][CH2]"
    code, out, _ = _run("chem-check", str(_program(tmp_path, smarts)), "--smarts", smarts,
                        "--molecules", str(molecules))
    assert code == 0
    assert out.splitlines() == [
        f"{molecules}: 3 molecules (0 skipped): 1 RDKit positive, 2 compiled positive; "
        f"2 agree, 1 relaxed, 0 unexplained",
        f"  relaxed      {molecules}:1  C1CC1"]


def test_chem_check_calls_a_formula_that_is_not_the_smarts_translation_a_mismatch(
        tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("CCl\nClCC\n")
    # The program of [CH2]Cl checked against CCl: methyl chloride is a CCl but no CH2.
    # That is the user's formula against the user's SMARTS, not a bug of gracr.
    program = _program(tmp_path, "[CH2]Cl")
    code, out, err = _run("chem-check", str(program), "--smarts", "CCl",
                          "--molecules", str(molecules))
    assert code == 1
    assert out.splitlines() == [
        f"{molecules}: 2 molecules (0 skipped): 2 RDKit positive, 1 compiled positive; "
        f"1 agree, 0 relaxed, 0 unexplained, 1 where the SMARTS and the formula disagree",
        f"  mismatch     {molecules}:1  CCl"]
    assert err == (f"gracrc: {program} is not the translation of the SMARTS 'CCl' (rooted at "
                   f"atom 0): where its model and the relaxed reference differ ('mismatch'), "
                   f"the SMARTS and the formula disagree, which is no fault of gracr; "
                   f"`gracrc smarts` writes the translation\n")


def test_chem_check_exits_1_on_an_unexplained_disagreement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gracr.domains.chem.check as check

    molecules = tmp_path / "m.smi"
    molecules.write_text("CCl\nCC\n")
    # The program is the translation, so a model answering otherwise than the reference
    # would be gracr's bug: stand one in by inverting the model's answers.
    predict = check.predict_molecules
    monkeypatch.setattr(check, "predict_molecules",
                        lambda model, graphs: [not a for a in predict(model, graphs)])
    code, out, err = _run("chem-check", str(_program(tmp_path, "CCl")), "--smarts", "CCl",
                          "--molecules", str(molecules))
    assert code == 1 and err == ""
    assert out.splitlines()[1:] == [f"  unexplained  {molecules}:1  CCl",
                                    f"  unexplained  {molecules}:2  CC"]


def test_a_formula_and_smarts_difference_is_theirs_unless_rdkit_beats_the_reference() -> None:
    from gracr.domains.chem.reference import classify

    assert classify(True, False, False, translated=False) == "mismatch"
    assert classify(False, True, True, translated=False) == "mismatch"
    assert classify(False, True, False, translated=False) == "mismatch"
    assert classify(True, True, False, translated=False) == "relaxed"
    # RDKit matching where the relaxed reference does not is the reference's bug.
    assert classify(True, False, True, translated=False) == "unexplained"
    assert classify(True, False, False) == "unexplained"


def test_chem_check_needs_a_graph_sentence_and_a_supported_smarts(tmp_path: Path) -> None:
    molecules = tmp_path / "m.smi"
    molecules.write_text("CCl\n")
    code, _, err = _run("chem-check", str(_program(tmp_path, "CCl", node=True)),
                        "--smarts", "CCl", "--molecules", str(molecules))
    assert code == 2 and "chem-check needs a graph sentence" in err
    code, _, err = _run("chem-check", str(_program(tmp_path, "CCl")), "--smarts", "C1CC1",
                        "--molecules", str(molecules))
    assert code == 2 and "ring closure '1' is not supported" in err


def test_motif_smiles_turns_wildcards_into_attachment_points() -> None:
    from gracr.domains.chem.graft import motif_smiles

    assert motif_smiles("[!#1][CH]([NH]C(=O)[!#1])C(Cl)(Cl)Cl") == "*C(NC(=O)*)C(Cl)(Cl)Cl"
    assert motif_smiles("[!#1][N+]([CH3])([CH3])[CH3]") == "*[N+](C)(C)C"


def test_grafted_positives_match_by_rdkit_and_name_their_host() -> None:
    from rdkit import Chem

    from gracr.domains.chem.graft import grafted_positives

    hosts = [read_smiles(s, f"hosts.smi:{i}") for i, s in
             enumerate(["c1ccccc1", "CCO", "CC(=O)O", "CCN"], start=1)]
    original, relaxed = "[!#1][CH]([!#1])[CH]([!#1])[!#1]", "[CHD3][CHD3]"
    grafted = list(grafted_positives(original, hosts, 2, also=[relaxed]))
    # Benzene has no aliphatic carbon to graft on: the first two others are the hosts.
    assert [m.place for m in grafted] == ["grafted onto hosts.smi:2", "grafted onto hosts.smi:3"]
    for molecule in grafted:
        assert molecule.mol.HasSubstructMatch(Chem.MolFromSmarts(original))
        assert molecule.mol.HasSubstructMatch(Chem.MolFromSmarts(relaxed))
        assert molecule.graph.num_nodes == molecule.mol.GetNumAtoms()


def test_chem_check_lists_at_most_show_per_file_and_totals_several_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gracr.domains.chem.check as check

    first, second = tmp_path / "a.smi", tmp_path / "b.smi"
    first.write_text("CCl\nCC\nCCCl\n")
    second.write_text("CC\n")
    predict = check.predict_molecules
    monkeypatch.setattr(check, "predict_molecules",
                        lambda model, graphs: [not a for a in predict(model, graphs)])
    code, out, err = _run("chem-check", str(_program(tmp_path, "CCl")), "--smarts", "CCl",
                          "--molecules", str(first), str(second), "--show", "1")
    lines = out.splitlines()
    assert code == 1 and err == ""
    assert lines[1:3] == [f"  unexplained  {first}:1  CCl",
                          "  ... and 2 more (--show -1 lists all)"]
    assert lines[4:] == [f"  unexplained  {second}:1  CC",
                         "total: 4 molecules: 2 RDKit positive; 0 agree, 0 relaxed, "
                         "4 unexplained"]
