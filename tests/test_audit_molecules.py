"""The molecule side of the shortcut audit: the motif replaced by hydrogen (App. B, Table 7),
gracr's compiled rule from a SMARTS, F1 beside accuracy, PNA's degree histogram.

Every expected molecule and share is worked out by hand from the chemistry: which atoms a
SMARTS matches, how many hydrogens an attachment atom gains (one per order of each bond it
loses), and whether the rule still matches what is left. RDKit only writes the expected
SMILES in its canonical form.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

pytest.importorskip("rdkit")

from rdkit import Chem

from gracr.audit.molecules import molecule_audit
from gracr.audit.replacement import hydrogen_replacement, replace_motifs
from gracr.audit.run import AuditSettings, audit
from gracr.cli import main
from gracr.data.graph import Graph
from gracr.domains.chem.molecules import MoleculeError, parse_smiles
from gracr.domains.chem.replace import NOTHING_LEFT, attachments, replace_by_hydrogen

IntArray = npt.NDArray[np.int64]
RULE_ONLY = AuditSettings(train=False, folds=2, perturb_limit=None)


def _motif(smiles: str, smarts: str) -> tuple[object, set[int]]:
    mol = parse_smiles(smiles)
    query = Chem.MolFromSmarts(smarts)
    return mol, {atom for match in mol.GetSubstructMatches(query) for atom in match}


def _canonical(smiles: str) -> str:
    return str(Chem.MolToSmiles(Chem.MolFromSmiles(smiles)))


@pytest.mark.parametrize("smiles, smarts, expected, bonds", [
    # Toluene without its ring: the methyl carbon takes the lost bond's H: methane.
    ("Cc1ccccc1", "c1ccccc1", "C", 1),
    # Nitrobenzene without NO2: the ring carbon takes one H: benzene (Table 7's case).
    ("O=[N+]([O-])c1ccccc1", "[N+](=O)[O-]", "c1ccccc1", 1),
    # Both nitro groups of 1,3-dinitrobenzene go at once (two matches, two attachments).
    ("O=[N+]([O-])c1cccc([N+](=O)[O-])c1", "[N+](=O)[O-]", "c1ccccc1", 2),
    # Acetone without its carbonyl group falls apart: each methyl becomes methane.
    ("CC(C)=O", "[CX3]=[OX1]", "C.C", 2),
    # A double bond lost is two hydrogens: acetone without its O is propane.
    ("CC(C)=O", "[OX1]", "CCC", 1),
    # But-1-ene without its methyl: the CH2 next to it becomes CH3: propene.
    ("CCC=C", "[CH3]", "C=CC", 1),
])
def test_the_motif_is_replaced_by_hydrogen(smiles: str, smarts: str, expected: str,
                                           bonds: int) -> None:
    mol, atoms = _motif(smiles, smarts)
    assert attachments(mol, atoms) == bonds
    assert Chem.MolToSmiles(replace_by_hydrogen(mol, atoms)) == _canonical(expected)


def test_a_motif_that_is_the_whole_molecule_leaves_nothing() -> None:
    mol, atoms = _motif("c1ccccc1", "c1ccccc1")
    with pytest.raises(MoleculeError, match=NOTHING_LEFT):
        replace_by_hydrogen(mol, atoms)


NITRO = ("O=[N+]([O-])c1ccccc1 nitrobenzene\n"
         "O=[N+]([O-])c1cccc([N+](=O)[O-])c1 dinitrobenzene\n"
         "O=[N+]([O-])c1ccc(O)cc1 nitrophenol\n"
         "c1ccccc1 benzene\nOc1ccccc1 phenol\nNc1ccccc1 aniline\n")


def test_the_compiled_nitro_rule_is_exact_and_never_positive_once_replaced(
        tmp_path: Path) -> None:
    """NO2 translates (a star of three atoms: exact), so the compiled rule is right on every
    molecule; replacing every nitro group leaves no nitro group, so the rule turns negative
    on all three positives (0 % unchanged)."""
    path = tmp_path / "nitro.smi"
    path.write_text(NITRO)
    molecules = molecule_audit(str(path), "NO2")
    assert molecules.data.instance_labels.tolist() == [1, 1, 1, 0, 0, 0]
    assert molecules.rule is not None and molecules.no_rule is None
    report = audit(molecules, RULE_ONLY)
    assert report.compiled is not None and report.compiled.accuracy == 1.0
    assert report.compiled.perturbation.flipped == 0
    replaced = report.compiled.replacement
    assert replaced is not None
    assert (replaced.instances, replaced.replaced, replaced.unchanged, replaced.rule_unchanged,
            replaced.kept_without_motif, replaced.several_matches) == (3, 3, 0, 0, 0, 1)
    assert replaced.share == 0.0 and replaced.changed_share == 1.0


def test_the_compiled_rule_keeps_its_answer_exactly_where_a_new_match_appears(
        tmp_path: Path) -> None:
    """`[CH3]`: but-1-ene's methyl replaced leaves propene, which has a new CH3 (the rule
    stays positive); propane's two methyls replaced leave methane (negative). So 1 of 2."""
    path = tmp_path / "methyl.smi"
    path.write_text("CCC=C butene\nCCC propane\nc1ccccc1 benzene\nOc1ccccc1 phenol\n")
    molecules = molecule_audit(str(path), "[CH3]")
    assert molecules.data.instance_labels.tolist() == [1, 1, 0, 0]
    report = audit(molecules, RULE_ONLY)
    assert report.compiled is not None and report.compiled.accuracy == 1.0
    replaced = report.compiled.replacement
    assert replaced is not None
    assert (replaced.instances, replaced.replaced, replaced.unchanged,
            replaced.rule_unchanged, replaced.kept_without_motif) == (2, 2, 1, 1, 0)
    assert replaced.share == 0.5
    # Propane's motif is two matches with two attachment bonds; but-1-ene's one and one.
    assert (replaced.several_matches, replaced.several_attachments) == (1, 1)


class OxygenModel:
    """Positive exactly when the molecule has an oxygen atom: right on every nitro
    compound, but for a reason the nitro group shares with phenol's OH."""

    depth = 1

    def predict(self, graphs: Sequence[Graph]) -> list[IntArray]:
        return [np.asarray([int(g.attribute_mask("element", "O").any())], dtype=np.int64)
                for g in graphs]


def test_a_model_that_reads_oxygen_stays_positive_where_oxygen_remains(
        tmp_path: Path) -> None:
    """Its three correct positives become benzene, benzene and phenol: it keeps its answer
    on phenol alone (1 of 3), where the rule is negative."""
    path = tmp_path / "nitro.smi"
    path.write_text(NITRO)
    molecules = molecule_audit(str(path), "NO2")
    result = hydrogen_replacement(molecules.data, replace_motifs(molecules), OxygenModel())
    assert (result.instances, result.replaced, result.unchanged, result.rule_unchanged,
            result.kept_without_motif) == (3, 3, 1, 0, 1)
    assert result.share == pytest.approx(1 / 3)


def test_a_smarts_gracr_cannot_translate_has_no_compiled_rule(tmp_path: Path) -> None:
    path = tmp_path / "nitro.smi"
    path.write_text(NITRO)
    molecules = molecule_audit(str(path), "Benzene")
    assert molecules.rule is None
    assert molecules.no_rule is not None and "ring closure" in molecules.no_rule
    report = audit(molecules, RULE_ONLY)
    assert report.compiled is None and report.no_rule == molecules.no_rule


def test_gracrc_audit_reports_the_replacement_in_markdown_and_json(tmp_path: Path) -> None:
    path = tmp_path / "nitro.smi"
    path.write_text(NITRO)
    arguments = ["audit", "--molecules", str(path), "--smarts", "NO2", "--probes-only",
                 "--folds", "2", "--quiet"]
    out, err = io.StringIO(), io.StringIO()
    assert main([*arguments, "--json"], out, err) == 0, err.getvalue()
    compiled = json.loads(out.getvalue())["compiled"]
    assert compiled["accuracy"] == 1.0
    assert compiled["replacement"]["replaced"] == 3
    assert compiled["replacement"]["share_unchanged"] == 0.0
    out = io.StringIO()
    assert main(arguments, out, err) == 0, err.getvalue()
    assert "hydrogen replacement (compiled rule): stays positive on 0.0% of 3" in out.getvalue()


def test_f1_is_class_1s() -> None:
    from gracr.audit.models import positive_f1

    # Always negative on rare positives: accuracy 0.75, F1 0.
    assert positive_f1(np.asarray([1, 0, 0, 0]), np.asarray([0, 0, 0, 0])) == 0.0
    # 1 true positive, 1 false positive, 1 false negative: 2 / (2 + 1 + 1).
    assert positive_f1(np.asarray([1, 1, 0, 0]), np.asarray([1, 0, 1, 0])) == 0.5


def test_pna_counts_the_in_degrees_of_the_training_data() -> None:
    from gracr.audit.data import AuditData
    from gracr.audit.features import vocabulary_of
    from gracr.audit.models import batched, degree_histogram, training_degrees

    path = Graph.from_edges(3, None, [(0, 1), (1, 0), (1, 2), (2, 1)])    # degrees 1, 2, 1
    star = Graph.from_edges(4, None, [(0, 1), (1, 0), (0, 2), (2, 0), (0, 3), (3, 0)])
    data = AuditData("two", "graph", (path, star), (np.zeros(1, np.int64), np.ones(1, np.int64)),
                     (np.zeros(4, bool), np.zeros(6, bool)), (np.zeros(3, bool),
                                                              np.zeros(4, bool)), False)
    whole = batched(data.graphs, vocabulary_of(data))
    assert training_degrees(data, whole, np.asarray([1])).tolist() == [3, 1, 1, 1]
    assert degree_histogram(training_degrees(data, whole, np.asarray([0, 1]))).tolist() == \
        [0, 5, 1, 1]


# ---------------------------------------------------------------- WOMBAT's datasets

# WOMBAT P12, `[!#1][CH]=O`: an aldehyde whose carbon has a heavy neighbour. By hand: the
# positives and the atoms of their one match (heavy neighbour, CH, O), in SMILES order.
# Formaldehyde (no heavy neighbour), acetone and propanoic acid (no H on the C=O carbon)
# and the rest are negatives.
ALDEHYDES = {"CCC=O": {1, 2, 3}, "O=Cc1ccccc1": {0, 1, 2}, "CC(C)C=O": {1, 3, 4}}
NOT_ALDEHYDES = ("C=O", "CC(C)=O", "OC(=O)CC", "CCO", "Cc1ccccc1")


def test_a_wombat_pattern_is_audited_with_its_ground_truth_and_rule() -> None:
    import gracr
    from gracr.audit.wombat import pattern_named, wombat_data
    from gracr.domains.chem import read_smiles
    from gracr.domains.chem.datasets import DatasetSizes
    from gracr.domains.chem.ground_truth import wombat_ground_truth

    pattern = pattern_named("P12")
    pool = [read_smiles(s) for s in (*ALDEHYDES, *NOT_ALDEHYDES)]
    data, rule = wombat_data(pattern, pool, DatasetSizes(10, 10, 5), seed=0, min_positives=0)
    assert (data.name, data.kind, len(data.graphs)) == ("WOMBAT P12", "graph", 8)
    by_graph = {Chem.MolToSmiles(m.mol): m.graph for m in pool}
    canonical = {Chem.MolToSmiles(parse_smiles(s)): s for s in (*ALDEHYDES, *NOT_ALDEHYDES)}
    seen = set()
    for graph, label, motif, edges in zip(data.graphs, data.labels, data.motif_nodes,
                                          data.motif_edges):
        smiles = next(canonical[c] for c, g in by_graph.items() if g is graph)
        seen.add(smiles)
        assert label.tolist() == [int(smiles in ALDEHYDES)]
        assert set(np.flatnonzero(motif).tolist()) == ALDEHYDES.get(smiles, set())
        assert not edges.any()
        if smiles in ALDEHYDES:   # the ground truth's own functions agree with the hand's
            truth = gracr.ground_truth(rule, graph, over="nodes")
            assert truth.node_mask is not None
            assert np.array_equal(truth.node_mask, motif)
            assert np.array_equal(wombat_ground_truth(parse_smiles(smiles), pattern.relaxed),
                                  motif)
    assert seen == {*ALDEHYDES, *NOT_ALDEHYDES}
    report = audit(data, RULE_ONLY, rule=rule)
    assert report.compiled is not None
    assert report.compiled.accuracy == 1.0
    assert (report.compiled.perturbation.instances, report.compiled.perturbation.flipped) \
        == (3, 0)


def test_wombat_pattern_names() -> None:
    from gracr.audit.wombat import is_pattern_name, pattern_named

    assert all(is_pattern_name(n) for n in ("P01", "p14", "WOMBAT-P03", "wombat-p03"))
    assert not any(is_pattern_name(n) for n in ("P00", "P15", "P3", "BAShapes", "P03.gml"))
    assert pattern_named("wombat-p03").relaxed.startswith("[CHD3]C(=O)[N;H1,H2]")
