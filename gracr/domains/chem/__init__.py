"""gracr.domains.chem: molecules as typed graphs, and SMARTS patterns as `.gml` classifiers.

An optional extra (`pip install 'gracr[chem]'`: RDKit, datamol). The parts:

- `schema`: the one fixed `MOLECULE_SCHEMA` every molecule is read into;
- `molecules`: SMILES, SDF and CSV/TSV files -> graphs, bad records skipped and named;
- `smarts`: the acyclic SMARTS subset -> `SmartsTree` (our parser; errors name the token);
- `translate`: `SmartsTree` -> `.gml` (`smarts_to_gml`: Hall-encoded branches, the root a
  centre of the tree);
- `reference`: the relaxed semantics decided independently over RDKit's query atoms, and
  the classifier of disagreements with RDKit;
- `check`: batched prediction over molecules and `gracrc chem-check`;
- `stream`: a molecule file screened against several patterns at once, in chunks, on
  worker processes (`gracrc eval --molecules`);
- `wombat`, `bundled`, `graft`: WOMBAT's 14 patterns, the molecule sets shipped in the
  packages, and grafted positives;
- `replace`: a motif's atoms replaced by hydrogen (the shortcut audit's Table 7 measure);
- `ground_truth`: WOMBAT's atom-level ground truth (RDKit matches plus the neighbours a
  `D` requires), beside the node UPI;
- `datasets`: WOMBAT's datasets per pattern (positives, hard negatives by Tversky, random
  negatives) as graph files and task files.
"""

from gracr.domains.chem.molecules import (Molecule, MoleculeError, MoleculeSet, Skipped, graph_of,
                                  iter_molecules, read_molecules, read_smiles)
from gracr.domains.chem.reference import RelaxedQuery, classify
from gracr.domains.chem.schema import MOLECULE_SCHEMA, molecule_declarations
from gracr.domains.chem.smarts import SmartsError, SmartsTree, parse_smarts
from gracr.domains.chem.translate import Translation, smarts_to_gml, translate_smarts

__all__ = [
    "MOLECULE_SCHEMA", "Molecule", "MoleculeError", "MoleculeSet", "RelaxedQuery", "Skipped",
    "SmartsError", "SmartsTree", "Translation", "classify", "graph_of", "iter_molecules",
    "molecule_declarations", "parse_smarts", "read_molecules", "read_smiles", "smarts_to_gml",
    "translate_smarts",
]
