"""WOMBAT's datasets per pattern (`gracr.domains.chem.datasets`) on small hand-made pools."""

from __future__ import annotations

import json
from pathlib import Path

import gracr
from gracr.bench.tasks import Task
from gracr.domains.chem import read_smiles
from gracr.domains.chem.datasets import (DatasetSizes, pattern_fingerprint, tversky_to_pattern,
                                 wombat_dataset, write_dataset)
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path
from rdkit import Chem
from rdkit.Chem import rdFingerprintGenerator

P12 = WOMBAT_PATTERNS[11]  # [!#1][CH]=O

POSITIVES = ["CC=O", "CCC=O", "O=CC", "CCCC=O", "OCC=O", "NCC=O"]    # "O=CC" is "CC=O" again
# Propene, ethanimine and enol share at least half of C[CH]=O's bits: the hard pool.
NEGATIVES = ["CCO", "CC(C)=O", "CCCC", "CC(=O)O", "c1ccccc1", "CCN", "CC=C", "CC=N",
             "CC=CO", "OCCO", "[Na+].[Cl-]"]


def _share_of_pattern_bits(smiles: str) -> float:
    """|pattern bits ∩ molecule bits| / |pattern bits|, from the bit lists themselves."""
    generator = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    pattern = set(generator.GetFingerprint(Chem.MolFromSmiles("C[CH]=O")).GetOnBits())
    molecule = set(generator.GetFingerprint(Chem.MolFromSmiles(smiles)).GetOnBits())
    return len(pattern & molecule) / len(pattern)


def test_the_tversky_index_is_the_share_of_the_pattern_bits() -> None:
    fingerprint = pattern_fingerprint(P12.original)   # [!#1][CH]=O -> C[CH]=O
    assert tversky_to_pattern(fingerprint, Chem.MolFromSmiles("CC=O")) == 1.0
    assert tversky_to_pattern(fingerprint, Chem.MolFromSmiles("[Na+].[Cl-]")) == 0.0
    for smiles in NEGATIVES:
        assert tversky_to_pattern(fingerprint, Chem.MolFromSmiles(smiles)) == \
            _share_of_pattern_bits(smiles)


def _dataset(sizes: DatasetSizes, seed: int = 0) -> tuple:  # type: ignore[type-arg]
    return wombat_dataset(P12, [read_smiles(s) for s in POSITIVES],
                          [read_smiles(s) for s in NEGATIVES], sizes, seed)


def test_the_dataset_draws_hard_negatives_first_then_random_ones() -> None:
    hard_pool = {Chem.CanonSmiles(s) for s in NEGATIVES if _share_of_pattern_bits(s) >= 0.5}
    assert hard_pool == {"C=CC", "CC=N", "CC=CO"}
    dataset = _dataset(DatasetSizes(positives=3, negatives=5, hard=2))
    kinds = [entry.kind for entry in dataset]
    assert kinds.count("positive") == 3
    assert kinds.count("hard negative") == 2 and kinds.count("random negative") == 3
    for entry in dataset:
        canonical = Chem.MolToSmiles(entry.molecule.mol)
        if entry.kind == "positive":
            assert entry.molecule.smiles in POSITIVES
        else:
            assert entry.molecule.smiles in NEGATIVES
        if entry.kind == "hard negative":
            assert canonical in hard_pool
    assert len({Chem.MolToSmiles(e.molecule.mol) for e in dataset}) == len(dataset)
    assert [e.molecule.smiles for e in _dataset(DatasetSizes(3, 5, 2))] == \
        [e.molecule.smiles for e in dataset]           # seeded


def test_the_pools_own_positives_come_before_the_grafted_ones() -> None:
    """Among the positives, in file order, every real molecule precedes every grafted one
    (the first N a study explains are real wherever the pool holds N), and the positives
    keep their places among the negatives."""
    from gracr.domains.chem.datasets import drawn_dataset
    from gracr.domains.chem.graft import GRAFTED, is_grafted
    from gracr.domains.chem.molecules import Molecule

    real = [read_smiles(s) for s in POSITIVES]
    made = [read_smiles(s) for s in ("CCCCC=O", "CC(C)C=O", "OCCC=O", "NCCC=O")]
    grafts = [Molecule(f"{GRAFTED} x:{k}", m.smiles, m.name, m.mol, m.graph)
              for k, m in enumerate(made)]
    negatives = [read_smiles(s) for s in NEGATIVES]
    for seed in range(5):
        dataset = drawn_dataset(P12.original, [*grafts, *real], negatives,
                                DatasetSizes(100, 100, 50), seed)
        flags = [is_grafted(e.molecule) for e in dataset if e.kind == "positive"]
        assert flags == sorted(flags) and any(flags) and not all(flags), seed
        assert any(e.kind != "positive" for e in dataset[:len(dataset) // 2]), seed


def test_caps_above_the_pools_take_every_distinct_molecule() -> None:
    dataset = _dataset(DatasetSizes(positives=100, negatives=100, hard=50))
    kinds = [entry.kind for entry in dataset]
    assert kinds.count("positive") == 5                # six SMILES, one of them twice
    assert kinds.count("hard negative") + kinds.count("random negative") == len(NEGATIVES)
    hard = {Chem.MolToSmiles(e.molecule.mol) for e in dataset if e.kind == "hard negative"}
    assert hard == {Chem.CanonSmiles(s) for s in NEGATIVES if _share_of_pattern_bits(s) >= 0.5}


def test_the_written_task_file_reads_and_its_labels_are_the_kinds(tmp_path: Path) -> None:
    dataset = _dataset(DatasetSizes(positives=4, negatives=4, hard=2))
    task_path = write_dataset(tmp_path / "P12", P12, dataset)
    task = Task.from_file(task_path)
    assert task.name == "WOMBAT-P12" and task.default_size == 8
    program = gracr.parse(wombat_formula_path(P12))
    lines = (tmp_path / "P12" / "molecules.jsonl").read_text().splitlines()
    for line, graph in zip(lines, task.source.graphs):  # type: ignore[union-attr]
        kind = json.loads(line)["x-kind"]
        assert gracr.evaluate(program, graph) is (kind == "positive"), line


def test_the_whiteboxes_compiled_from_their_rules_answer_as_the_rules() -> None:
    """Table S2's rule holds with a bonded fluorine and a C=O, not with either alone (nor
    with a fluoride ion); the anti-IG sentence answers as P12's on every molecule here
    and is written with its propagation layers C1..C5."""
    from gracr.domains.chem.whiteboxes import ANTI_IG, FLUORINE_CARBONYL, whitebox_formula
    from gracr.executor.model import compile_program

    rule = compile_program(gracr.parse(whitebox_formula(FLUORINE_CARBONYL)), presence=True)
    assert [rule.predict(read_smiles(s).graph) for s in
            ("FCC(=O)C", "O=C1CCC(F)CC1", "FCCC", "CC=O", "[F-].CC=O")] == \
        [True, True, False, False, False]
    anti = compile_program(gracr.parse(whitebox_formula(ANTI_IG)), presence=True)
    p12 = compile_program(gracr.parse(wombat_formula_path(P12).read_text()), presence=True)
    for smiles in [*POSITIVES, *NEGATIVES, "c1ccccc1C=O", "O=CC=O", "[CH]=O"]:
        graph = read_smiles(smiles).graph
        assert anti.predict(graph) == p12.predict(graph), smiles
    text = whitebox_formula(ANTI_IG)
    assert "let c5 = c4 & <1> c4" in text and "let a6 = a5 & <1>{double} b5" in text
