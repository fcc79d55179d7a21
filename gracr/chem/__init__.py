"""gracr.chem: molecules as typed graphs, and SMARTS patterns as `.gml` classifiers.

An optional extra (`pip install gracr[chem]`, RDKit): `read_molecules` turns SMILES,
SDF and CSV/TSV files into graphs under the one fixed `MOLECULE_SCHEMA`.
"""

from gracr.chem.molecules import (Molecule, MoleculeError, MoleculeSet, Skipped, graph_of,
                                  iter_molecules, read_molecules, read_smiles)
from gracr.chem.schema import MOLECULE_SCHEMA, molecule_declarations

__all__ = [
    "MOLECULE_SCHEMA", "Molecule", "MoleculeError", "MoleculeSet", "Skipped", "graph_of",
    "iter_molecules", "molecule_declarations", "read_molecules", "read_smiles",
]
