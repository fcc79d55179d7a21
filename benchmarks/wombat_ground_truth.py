"""Atom-level ground truth of WOMBAT's 14 relaxed patterns: the node-level UPI of the
compiled sentence against WOMBAT's definition, on every positive of the bundled sets and
of the grafted positives.

    PYTHONPATH=. .venv/bin/python benchmarks/wombat_ground_truth.py [--patterns 6,10]
        [--sample N] [--examples K] [--markdown docs/results/wombat_ground_truth.md]

Ours: `gracr.ground_truth(program, graph, over="nodes")` (deletion semantics: the ground truth of
the sentence compiled with the presence bit, whose positives are the molecules taken
here). WOMBAT's (§3.1 "Ground Truths", App. C.1 of the WOMBAT paper):
`gracr.domains.chem.ground_truth.wombat_ground_truth`, the atoms of every RDKit match of the
relaxed SMARTS (`uniquify=False`) plus the neighbours of each matched atom whose SMARTS
atom has a `D` constraint. Per pattern, the positives fall into `identical`,
`UPI ⊂ WOMBAT`, `WOMBAT ⊂ UPI` and `other`; the column `relaxed` counts the positives
RDKit does not match at all (WOMBAT's set is then empty), and `uniquify` the positives
whose WOMBAT set changes when RDKit's `uniquify=True` is used instead. `--sample N`
takes the first N positives of each pattern (all by default); `--examples K` prints up to
K molecules of each kind of difference to stderr, with the atoms each side has alone.

The grafted positives are those of `benchmarks/wombat_agreement.py`: patterns with fewer
than 200 RDKit positives on the bundled sets get the missing ones grafted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import numpy as np

import gracr
from gracr.bench.report.tables import render_table
from gracr.domains.chem import read_molecules
from gracr.domains.chem.bundled import bundled_sets
from gracr.domains.chem.check import predict_molecules
from gracr.domains.chem.graft import grafted_positives
from gracr.domains.chem.ground_truth import AGREEMENTS, agreement, wombat_ground_truth
from gracr.domains.chem.reference import RelaxedQuery
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path

MIN_POSITIVES = 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patterns", default=None, help="comma list of pattern numbers")
    parser.add_argument("--sample", type=int, default=None, metavar="N",
                        help="the first N positives of each pattern (default: all)")
    parser.add_argument("--examples", type=int, default=0, metavar="K")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    wanted = None if args.patterns is None else {int(p) for p in args.patterns.split(",")}
    patterns = [p for p in WOMBAT_PATTERNS if wanted is None or p.number in wanted]

    sets = [(name, read_molecules(path).molecules) for name, path in bundled_sets()]
    total = sum(len(molecules) for _, molecules in sets)
    print(f"read {total} molecules of {len(sets)} sets", file=sys.stderr)

    rows = []
    for pattern in patterns:
        start = time.perf_counter()
        program = gracr.parse(wombat_formula_path(pattern))
        # The presence bit changes no answer on a whole molecule (every atom is
        # present), only what zeroing an atom does: the positives are found without it,
        # which is several times faster on the deep patterns.
        model = gracr.compile(program)
        relaxed = RelaxedQuery.from_smarts(pattern.relaxed)
        bundled = [m for _, molecules in sets for m in molecules]
        natural = sum(relaxed.rdkit_matches(m.mol) for m in bundled)
        grafted = list(grafted_positives(pattern.original, iter(bundled),
                                         max(0, MIN_POSITIVES - natural),
                                         also=[pattern.relaxed]))
        candidates = bundled + grafted
        positives = [m for m, yes in zip(candidates,
                                         predict_molecules(model, [m.graph for m in candidates]))
                     if yes]
        if args.sample is not None:
            positives = positives[:args.sample]
        counts: Counter[str] = Counter()
        for molecule in positives:
            truth = gracr.ground_truth(program, molecule.graph, over="nodes")
            assert truth.label == 1 and truth.node_mask is not None, \
                f"{pattern.name}: {molecule.place} is positive for the model"
            mask = truth.node_mask
            wombat = wombat_ground_truth(molecule.mol, pattern.relaxed)
            kind = agreement(mask, wombat)
            counts[kind] += 1
            counts["relaxed"] += not relaxed.rdkit_matches(molecule.mol)
            counts["uniquify"] += not np.array_equal(
                wombat, wombat_ground_truth(molecule.mol, pattern.relaxed, uniquify=True))
            if kind != "identical" and counts[kind] <= args.examples:
                print(f"{pattern.name} {kind}: {molecule.place} {molecule.smiles}  "
                      f"UPI only {np.flatnonzero(mask & ~wombat).tolist()}, "
                      f"WOMBAT only {np.flatnonzero(wombat & ~mask).tolist()}", file=sys.stderr)
        seconds = time.perf_counter() - start
        rows.append([pattern.name, f"`{pattern.relaxed}`", str(len(positives)), str(len(grafted)),
                     *(str(counts[kind]) for kind in AGREEMENTS),
                     str(counts["relaxed"]), str(counts["uniquify"])])
        print(f"{pattern.name}: {len(positives)} positives in {seconds:.1f} s, "
              f"{dict(counts)}", file=sys.stderr)

    sample = "all positives" if args.sample is None else f"the first {args.sample} positives"
    text = (f"Node UPI (deletion semantics) vs WOMBAT's ground truth, {sample} of each "
            f"pattern (bundled sets + grafted)\n\n"
            + render_table(["pattern", "relaxed SMARTS", "positives", "grafted",
                            *AGREEMENTS, "relaxed", "uniquify"], rows))
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
