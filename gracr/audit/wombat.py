"""WOMBAT's datasets as audit data (`gracrc audit P03`): one pattern's molecules, labelled
by gracr's compiled sentence of the pattern, its exact ground truth the motif.

The dataset is the one `scripts/wombat_datasets.py` writes, drawn the same way
(`gracr.domains.chem.datasets`: `pattern_pools`, `wombat_dataset`; WOMBAT §3.1 and §3.3)
from the bundled molecule sets, but smaller: `AUDIT_SIZES` caps it at 250 positives and 250
negatives (125 hard), where WOMBAT's caps are 10 000 and 10 000 (5 000 hard), so that an
audit takes minutes on two cores.

- the label of a molecule is the compiled sentence's (the pattern's `.gml`, relaxed as
  WOMBAT's whitebox reads it), as the dataset's draw says (`kind == "positive"`);
- the motif of a positive is gracr's exact ground truth of the pattern, the node-level UPI
  (`gracr.ground_truth(program, graph, over="nodes")`, as `gracr.domains.chem.ground_truth`
  defines it); a negative has none (the perturbation reads positives alone). The motif has
  no edges, so the edges outside it are those touching no UPI atom;
- the compiled rule is the pattern's `.gml`: its labels are the data's, so its accuracy is
  1.0, and no bond between two atoms outside the UPI is read by it (a `D` constraint's
  neighbours are in the UPI), so nothing outside the motif flips it;
- the trained models and the probes read the element alone (`READ_FAMILIES`), as a
  molecule audit's do (App. B.2).

There is no hydrogen replacement (Table 7's measure needs a SMARTS match per positive; the
motif here is the UPI, not a match).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from gracr.audit.data import AuditData
from gracr.audit.molecules import READ_FAMILIES
from gracr.bdd.ground_truth import ground_truth
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.errors import GracrError

if TYPE_CHECKING:
    from gracr.domains.chem.datasets import DatasetSizes
    from gracr.domains.chem.molecules import Molecule
    from gracr.domains.chem.wombat import WombatPattern

# `P03`, or `WOMBAT-P03` (the name of its task in a benchmark run), any case.
PATTERN_NAME = re.compile(r"(?:wombat-)?p(\d\d)", re.IGNORECASE)


def is_pattern_name(text: str) -> bool:
    """Whether `text` names a WOMBAT pattern (`P01`…`P14`, `WOMBAT-P01`…), without
    importing RDKit."""
    found = PATTERN_NAME.fullmatch(text)
    return found is not None and 1 <= int(found.group(1)) <= 14


def pattern_named(text: str) -> WombatPattern:
    """The WOMBAT pattern `text` names (`is_pattern_name`)."""
    try:
        from gracr.domains.chem.wombat import WOMBAT_PATTERNS
    except ImportError as error:
        raise GracrError(f"a WOMBAT pattern's dataset needs RDKit ({error}): pip install "
                         f"'gracr[chem]'") from None
    found = PATTERN_NAME.fullmatch(text)
    for pattern in WOMBAT_PATTERNS:
        if found is not None and int(found.group(1)) == pattern.number:
            return pattern
    raise GracrError(f"{text}: not a WOMBAT pattern (P01 to P14)")


def audit_sizes() -> DatasetSizes:
    """The audit's caps (see the module docstring)."""
    from gracr.domains.chem.datasets import DatasetSizes

    return DatasetSizes(positives=250, negatives=250, hard=125)


def wombat_data(pattern: WombatPattern, pool: Sequence[Molecule] | None = None,
                sizes: DatasetSizes | None = None, seed: int = 0,
                min_positives: int | None = None) -> tuple[AuditData, Program]:
    """`pattern`'s dataset drawn from `pool` (None: the bundled molecule sets) with
    `sizes` (None: `audit_sizes()`) and `seed`, as `AuditData`, and its compiled rule.
    `min_positives` (None: the datasets' own) is where grafting starts."""
    try:
        from gracr.domains.chem.bundled import bundled_molecules
        from gracr.domains.chem.datasets import MIN_POSITIVES, pattern_pools, wombat_dataset
        from gracr.domains.chem.wombat import wombat_formula_path
    except ImportError as error:
        raise GracrError(f"a WOMBAT pattern's dataset needs RDKit ({error}): pip install "
                         f"'gracr[chem]'") from None

    molecules = bundled_molecules() if pool is None else pool
    pools = pattern_pools(pattern, molecules,
                          MIN_POSITIVES if min_positives is None else min_positives)
    drawn = wombat_dataset(pattern, pools.positives, pools.negatives,
                           audit_sizes() if sizes is None else sizes, seed)
    if not drawn:
        raise GracrError(f"WOMBAT {pattern.name}: no molecule drawn")
    program = parse(wombat_formula_path(pattern))
    graphs = tuple(entry.molecule.graph for entry in drawn)
    positive = [entry.kind == "positive" for entry in drawn]
    motifs = []
    for graph, yes in zip(graphs, positive):
        if yes:
            truth = ground_truth(program, graph, over="nodes")
            assert truth.node_mask is not None and truth.label == 1
            motifs.append(truth.node_mask)
        else:
            motifs.append(np.zeros(graph.num_nodes, dtype=np.bool_))
    data = AuditData(f"WOMBAT {pattern.name}", "graph", graphs,
                     tuple(np.asarray([int(yes)], dtype=np.int64) for yes in positive),
                     tuple(np.zeros(g.num_edges, dtype=np.bool_) for g in graphs),
                     tuple(motifs), True, READ_FAMILIES)
    return data, program
