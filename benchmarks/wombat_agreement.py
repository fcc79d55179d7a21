"""WOMBAT's 14 relaxed patterns (gracr/formulas/wombat) against RDKit on every bundled
molecule set, and the analogue of WOMBAT's Table S9 (original vs relaxed SMARTS).

    PYTHONPATH=. .venv/bin/python benchmarks/wombat_agreement.py [--patterns 1,6,10]
        [--markdown out/wombat_agreement.md]

Prints three tables:

1. per pattern and set: molecules, RDKit positives (relaxed SMARTS), compiled positives,
   disagreements the relaxation predicts (`relaxed`) and the others (`unexplained`,
   required to be 0; the script exits 1 otherwise);
2. Table S9's analogue: molecules whose detection differs between RDKit on the original
   KRFP SMARTS and RDKit on the relaxed one (detection only: atom sets are part 4);
3. throughput: molecules per second to read and encode every set, and per pattern for the
   compiled forward pass alone (batched, `gracr.domains.chem.check.predict_molecules`), for read +
   encode + forward, and for the whole check (forward, reference matcher and RDKit).

Patterns with fewer than 200 RDKit positives on the bundled sets get grafted ones (the
set "grafted"): the KRFP motif attached to bundled molecules in file order
(`gracr.domains.chem.graft`), each confirmed by RDKit on both the original and the relaxed
SMARTS, as many as the 200 lack.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import gracr
from gracr.bench.report.tables import render_table
from gracr.domains.chem import read_molecules
from gracr.domains.chem.bundled import bundled_sets
from gracr.domains.chem.check import check_molecules, predict_molecules
from gracr.domains.chem.graft import grafted_positives
from gracr.domains.chem.reference import RelaxedQuery
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path


MIN_POSITIVES = 200


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patterns", default=None, help="comma list of pattern numbers")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    wanted = None if args.patterns is None else {int(p) for p in args.patterns.split(",")}
    patterns = [p for p in WOMBAT_PATTERNS if wanted is None or p.number in wanted]

    start = time.perf_counter()
    sets = [(name, read_molecules(path).molecules) for name, path in bundled_sets()]
    read_seconds = time.perf_counter() - start
    total = sum(len(molecules) for _, molecules in sets)
    print(f"read and encoded {total} molecules of {len(sets)} sets in {read_seconds:.1f} s",
          file=sys.stderr)

    agreement, s9, speed = [], [], []
    unexplained = 0
    for pattern in patterns:
        model = gracr.compile(gracr.parse(wombat_formula_path(pattern)))
        relaxed = RelaxedQuery.from_smarts(pattern.relaxed)
        original = RelaxedQuery.from_smarts(pattern.original)
        totals: Counter[str] = Counter()
        forward_seconds = 0.0
        natural = sum(relaxed.rdkit_matches(m.mol) for _, molecules in sets
                      for m in molecules)
        hosts = (m for _, molecules in sets for m in molecules)
        grafted = list(grafted_positives(pattern.original, hosts,
                                         max(0, MIN_POSITIVES - natural),
                                         also=[pattern.relaxed]))
        for name, molecules in sets + ([("grafted", grafted)] if grafted else []):
            tick = time.perf_counter()
            verdicts = check_molecules(model, relaxed, molecules)
            forward_seconds += time.perf_counter() - tick
            counts = Counter(v.kind for v in verdicts)
            rdkit = sum(v.rdkit for v in verdicts)
            compiled = sum(v.compiled for v in verdicts)
            originals = [original.rdkit_matches(m.mol) for m in molecules]
            differs = sum(o != v.rdkit for o, v in zip(originals, verdicts))
            totals.update({"molecules": len(molecules), "rdkit": rdkit, "compiled": compiled,
                           "relaxed": counts["relaxed"], "unexplained": counts["unexplained"],
                           "original": sum(originals), "differs": differs})
            agreement.append([pattern.name, name, str(len(molecules)), str(rdkit),
                              str(compiled), str(counts["relaxed"]),
                              str(counts["unexplained"])])
        unexplained += totals["unexplained"]
        agreement.append([pattern.name, "all sets", str(totals["molecules"]),
                          str(totals["rdkit"]), str(totals["compiled"]),
                          str(totals["relaxed"]), str(totals["unexplained"])])
        share = 100 * totals["differs"] / max(1, totals["original"] + totals["rdkit"])
        s9.append([pattern.name, str(totals["original"]), str(totals["rdkit"]),
                   str(totals["differs"]), f"{share:.2f}"])
        graphs = [m.graph for _, molecules in sets for m in molecules]
        tick = time.perf_counter()
        predict_molecules(model, graphs)
        alone = time.perf_counter() - tick
        # Reading and encoding is the same for every pattern: its time per molecule
        # (measured once, above) plus this pattern's forward pass per molecule.
        whole = len(graphs) / (read_seconds * len(graphs) / total + alone)
        speed.append([pattern.name, f"{model.num_layers} x {model.width}",
                      f"{len(graphs) / alone:.0f}", f"{whole:.0f}",
                      f"{totals['molecules'] / forward_seconds:.0f}"])
        print(f"{pattern.name}: {totals['rdkit']} RDKit positive, {totals['relaxed']} relaxed, "
              f"{totals['unexplained']} unexplained", file=sys.stderr)

    tables = [
        ("Compiled relaxed patterns vs RDKit (relaxed SMARTS) per bundled set",
         ["pattern", "set", "molecules", "RDKit +", "compiled +", "relaxed", "unexplained"],
         agreement),
        ("Table S9 analogue: RDKit on the original vs the relaxed SMARTS (detection)",
         ["pattern", "original +", "relaxed +", "disagree", "% of positives of either"], s9),
        (f"Throughput (molecules/s) on the {total} bundled molecules: read + encode "
         f"{total / read_seconds:.0f}; per pattern the compiled forward pass alone (batched, "
         f"one BLAS thread), read + encode + forward, and the whole check (forward, "
         f"reference matcher and RDKit, grafted positives included)",
         ["pattern", "layers x width", "forward", "read + encode + forward", "check"],
         speed),
    ]
    text = "\n\n".join(f"{title}\n\n{render_table(headers, rows)}"
                       for title, headers, rows in tables)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
