"""WOMBAT's datasets per pattern (§3.1 and §3.3 of the WOMBAT paper): positives, random
negatives and hard negatives by Tversky similarity, written as graph files with a task
file beside them (`scripts/wombat_datasets.py`), so that `gracrc bench --tasks
OUT/P06/P06.toml --level node` runs them like any task.

As WOMBAT builds them:

- a **pattern fingerprint**: the KRFP SMARTS with every wildcard `[!#1]` replaced by a
  carbon, read as a molecule (SMILES), ECFP4 = RDKit's Morgan fingerprint of radius 2
  (2048 bits); every KRFP SMARTS of the 14 is then a valid SMILES;
- a **hard negative** is a negative whose Tversky index to the pattern fingerprint, with
  α = 1 on the pattern and β = 0 on the molecule — the share of the pattern's bits the
  molecule has, `c / |pattern|` — is at least 0.5;
- the evaluation set (§3.3): up to 10 000 positives and 10 000 negatives, the negatives
  stratified: up to 5 000 hard negatives first, then random negatives until the 10 000;
  duplicates (same canonical SMILES) removed, a molecule drawn as both kept as hard.

Where we differ, and why: the pool is the bundled molecule sets (`gracr.domains.chem.bundled`)
plus the grafted positives, not PubChem (no download), so most patterns have far fewer
than 10 000 positives and the sizes are caps; positives and negatives are those of the
compiled (relaxed) sentence, which is the model being explained (it equals RDKit on the
relaxed SMARTS but where the relaxation predicts otherwise); the draws are seeded; the
file lists the molecules shuffled, so that its first N (`--graphs N`) hold both classes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import numpy as np
from rdkit import Chem, DataStructs
from rdkit.Chem import rdFingerprintGenerator

from gracr.bench.task_writer import FileGraphs, TaskFile, write_task_file
from gracr.domains.chem.check import predict_molecules
from gracr.domains.chem.graft import grafted_positives, is_grafted
from gracr.domains.chem.molecules import Molecule
from gracr.domains.chem.reference import RelaxedQuery
from gracr.domains.chem.wombat import WombatPattern, wombat_formula_path
from gracr.dsl.parse import parse
from gracr.executor.model import compile_program
from gracr.files import atomic_writer, write_text

Kind = Literal["positive", "hard negative", "random negative"]

MORGAN_RADIUS = 2        # ECFP4
FINGERPRINT_BITS = 2048
HARD_TVERSKY = 0.5       # §3.1: at least half of the pattern's bits
# Patterns with fewer RDKit positives than this in the pool get grafted ones
# (`grafted_positives`), as in `benchmarks/wombat_agreement.py`.
MIN_POSITIVES = 200


@dataclass(frozen=True)
class DatasetSizes:
    """Caps of one pattern's dataset (§3.3: 10 000 positives, 10 000 negatives of which up
    to 5 000 hard)."""

    positives: int = 10_000
    negatives: int = 10_000
    hard: int = 5_000


@dataclass(frozen=True)
class Labelled:
    """One molecule of a dataset: which of the three kinds it was drawn as, and its
    Tversky index to the pattern fingerprint."""

    molecule: Molecule
    kind: Kind
    tversky: float


def _generator() -> Any:
    return rdFingerprintGenerator.GetMorganGenerator(radius=MORGAN_RADIUS,
                                                     fpSize=FINGERPRINT_BITS)


def pattern_fingerprint(smarts: str) -> Any:
    """ECFP4 of the SMARTS read as a molecule, every `[!#1]` a carbon (§3.1, footnote 2)."""
    mol = Chem.MolFromSmiles(smarts.replace("[!#1]", "C"))
    if mol is None:
        raise ValueError(f"{smarts!r} with carbons for its wildcards is not a SMILES")
    return _generator().GetFingerprint(mol)


def tversky_to_pattern(pattern: Any, mol: Any) -> float:
    """Tversky(pattern, molecule) with α = 1, β = 0: the share of the pattern's bits set in
    the molecule's ECFP4."""
    return float(DataStructs.TverskySimilarity(pattern, _generator().GetFingerprint(mol),
                                               1.0, 0.0))


def _distinct(molecules: Sequence[Molecule]) -> list[Molecule]:
    seen: set[str] = set()
    kept = []
    for molecule in molecules:
        key = Chem.MolToSmiles(molecule.mol)
        if key not in seen:
            seen.add(key)
            kept.append(molecule)
    return kept


@dataclass(frozen=True)
class Pools:
    """The molecules a pattern's dataset is drawn from: those the compiled sentence says
    yes and no to, among the pool and the `grafted` positives made for it."""

    positives: tuple[Molecule, ...]
    negatives: tuple[Molecule, ...]
    grafted: int


def pattern_pools(pattern: WombatPattern, pool: Sequence[Molecule],
                  min_positives: int = MIN_POSITIVES) -> Pools:
    """`pool` split by the pattern's compiled sentence (the package's `.gml`), with
    grafted positives (the KRFP motif grafted onto the pool's molecules in order) when RDKit
    finds fewer than `min_positives` matches of the relaxed SMARTS in the pool."""
    model = compile_program(parse(wombat_formula_path(pattern)))
    query = RelaxedQuery.from_smarts(pattern.relaxed)
    natural = sum(query.rdkit_matches(m.mol) for m in pool)
    grafted = list(grafted_positives(pattern.original, iter(pool),
                                     max(0, min_positives - natural), also=[pattern.relaxed]))
    candidates = [*pool, *grafted]
    answers = predict_molecules(model, [m.graph for m in candidates])
    return Pools(tuple(m for m, yes in zip(candidates, answers) if yes),
                 tuple(m for m, yes in zip(candidates, answers) if not yes), len(grafted))


def wombat_dataset(pattern: WombatPattern, positives: Sequence[Molecule],
                   negatives: Sequence[Molecule], sizes: DatasetSizes = DatasetSizes(),
                   seed: int = 0) -> tuple[Labelled, ...]:
    """The dataset of `pattern` from the pools `positives` and `negatives` (molecules the
    compiled sentence says yes and no to): duplicates removed, up to `sizes.positives`
    positives at random; up to `sizes.hard` hard negatives at random among the negatives
    of Tversky ≥ 0.5, then random negatives among the rest until `sizes.negatives`;
    all of it shuffled, the pool's own positives before the grafted ones among the
    positives. Seeded by `seed`."""
    return drawn_dataset(pattern.original, positives, negatives, sizes, seed)


def drawn_dataset(smarts: str, positives: Sequence[Molecule], negatives: Sequence[Molecule],
                  sizes: DatasetSizes = DatasetSizes(), seed: int = 0) -> tuple[Labelled, ...]:
    """`wombat_dataset` of any rule: hard negatives by Tversky to the fingerprint of
    `smarts` (`pattern_fingerprint`)."""
    rng = np.random.default_rng(seed)
    fingerprint = pattern_fingerprint(smarts)
    pool_positive = _distinct(positives)
    pool_negative = _distinct(negatives)
    similarity = [tversky_to_pattern(fingerprint, m.mol) for m in pool_negative]
    chosen: list[Labelled] = []
    for index in rng.permutation(len(pool_positive))[:sizes.positives]:
        molecule = pool_positive[index]
        chosen.append(Labelled(molecule, "positive", tversky_to_pattern(fingerprint,
                                                                        molecule.mol)))
    hard_pool = [i for i, t in enumerate(similarity) if t >= HARD_TVERSKY]
    hard = [hard_pool[i] for i in rng.permutation(len(hard_pool))[:min(sizes.hard,
                                                                        sizes.negatives)]]
    chosen += [Labelled(pool_negative[i], "hard negative", similarity[i]) for i in hard]
    rest = sorted(set(range(len(pool_negative))) - set(hard))
    wanted = sizes.negatives - len(hard)
    chosen += [Labelled(pool_negative[rest[i]], "random negative", similarity[rest[i]])
               for i in rng.permutation(len(rest))[:wanted]]
    shuffled = [chosen[i] for i in rng.permutation(len(chosen))]
    # The positives' places in the file stay; the bundled sets' own positives take the
    # first of them, the grafted ones the rest (each group in its shuffled order), so that
    # the first N positives, which a study explains, are real wherever the pool holds N.
    slots = [k for k, entry in enumerate(shuffled) if entry.kind == "positive"]
    ordered = sorted((shuffled[k] for k in slots), key=lambda e: is_grafted(e.molecule))
    for k, entry in zip(slots, ordered):
        shuffled[k] = entry
    return tuple(shuffled)


def wombat_task(pattern: WombatPattern, summary: str) -> TaskFile:
    """The task file of `pattern`'s dataset, `summary` saying what was drawn."""
    return TaskFile(
        name=f"WOMBAT-{pattern.name}", formulas=(f"{pattern.name}.gml",),
        graphs=FileGraphs("molecules.jsonl"),
        description=f"WOMBAT {pattern.name}: positives, hard negatives (Tversky >= 0.5 to the "
                    "pattern's ECFP4) and random negatives of the bundled molecule sets",
        comments=(f"WOMBAT pattern {pattern.number} (App. H.1 of the WOMBAT paper), relaxed: "
                  f"{pattern.relaxed}",
                  f"Written by scripts/wombat_datasets.py ({summary}); do not edit by hand."))


def write_dataset(folder: Path, pattern: WombatPattern, dataset: Sequence[Labelled]) -> Path:
    """`folder/{name}.gml` (the package's formula), `folder/molecules.jsonl` (one graph
    JSON per molecule, with `x-smiles`, `x-place`, `x-kind` and `x-tversky`) and the task
    file `folder/{name}.toml`, which it returns."""
    return write_task_folder(folder, pattern.name,
                             wombat_formula_path(pattern).read_text(encoding="utf-8"),
                             dataset, lambda summary: wombat_task(pattern, summary))


def write_task_folder(folder: Path, name: str, formula: str, dataset: Sequence[Labelled],
                      task: Callable[[str], TaskFile]) -> Path:
    """`write_dataset` of any formula (`formula`, the text of `folder/{name}.gml`), the task
    file made by `task` from a summary of what was drawn."""
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / f"{name}.gml", formula)
    with atomic_writer(folder / "molecules.jsonl") as handle:
        for entry in dataset:
            obj = entry.molecule.graph.to_json()
            obj.update({"x-smiles": entry.molecule.smiles, "x-place": entry.molecule.place,
                        "x-kind": entry.kind, "x-tversky": round(entry.tversky, 4)})
            handle.write(json.dumps(obj, separators=(",", ":")) + "\n")
    counts = {kind: sum(e.kind == kind for e in dataset)
              for kind in ("positive", "hard negative", "random negative")}
    summary = ", ".join(f"{n} {kind}s" for kind, n in counts.items())
    return write_task_file(folder / f"{name}.toml", task(summary))
