"""How the gradient explainers of the WOMBAT study fare on positives with one atom rooting
a match against those with several, per readout: the evidence for the reading that r2's
Saliency and Input x Gradient fail where two atoms root a match and IG's r1 failures sit
there too (`docs/results/wombat_explainers.md`, § Agreement, differences and their
reasons, items 1 and 2; the mechanism itself is tested on hand-built readouts in
`tests/test_difference_mechanisms.py`).

    PYTHONPATH=. .venv/bin/python scripts/wombat_roots.py --wombat RUNS/data \\
        --study RUNS/study [--patterns 1-14] [--markdown FILE]

A pattern's sentence is `exists match` (`scripts/wombat_formulas.py`); the atoms rooting a
match are those where the reference evaluator (`gracr.evaluate`'s node semantics) makes
`match` true. Every scored positive record of the study's results is read (each pattern,
readout and explainer at whatever count the run reached); a molecule is perfect when its
AUROC against the node UPI is 1. The script checks that each positive it reads has at
least one root, so a record pointing at the wrong molecule would stop it.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from gracr.bench.options import parse_seeds
from gracr.bench.record import RESULTS_FILE, read_records
from gracr.bench.report.aggregation import scored_variant
from gracr.bench.report.tables import print_text, render_table
from gracr.data.graph import read_graphs
from gracr.dsl import ir
from gracr.dsl.evaluate import evaluate_node
from gracr.dsl.parse import parse

EXPLAINERS = ("Saliency", "InputXGradient", "IG")
READOUTS = {"max": "r1", "soft-or": "r2", "main": "threshold"}


def root_counts(folder: Path, wanted: set[int]) -> dict[int, int]:
    """Per molecule (its place in the pattern's file) of `wanted`, the number of atoms
    where the pattern's `match` holds."""
    program = parse(next(folder.glob("P*.gml")))
    sentence = program.classifier
    if not isinstance(sentence, ir.Exists):
        raise SystemExit(f"{folder}: the sentence is not `exists match`")
    counts = {}
    last = max(wanted, default=-1)
    for place, graph in enumerate(read_graphs(str(folder / "molecules.jsonl"),
                                              program.schema)):
        if place > last:
            break   # the study reads each file's first molecules only
        if place in wanted:
            counts[place] = int(np.count_nonzero(evaluate_node(sentence.arg, graph)))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", type=Path, required=True)
    parser.add_argument("--study", type=Path, required=True)
    parser.add_argument("--patterns", default="1-14")
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    numbers = set(parse_seeds(args.patterns))

    perfect: Counter[tuple[str, str, bool]] = Counter()
    seen: Counter[tuple[str, str, bool]] = Counter()
    roots_of: dict[int, dict[int, int]] = {}   # pattern -> molecule -> atoms rooting a match
    wanted: dict[int, dict[tuple[str, str, int], bool]] = {}
    for r in read_records(args.study / RESULTS_FILE):
        if (r.status != "ok" or not r.scored or r.sample != "positive" or r.auroc is None
                or r.explainer not in EXPLAINERS or not r.task.startswith("WOMBAT-P")):
            continue
        number = int(r.task.removeprefix("WOMBAT-P"))
        readout = READOUTS.get(scored_variant(r.variant, r.level).removesuffix("@node"))
        if number not in numbers or readout is None:
            continue
        wanted.setdefault(number, {})[(r.explainer, readout, r.graph)] = r.auroc == 1.0
    for number in sorted(wanted):
        folder = args.wombat / f"P{number:02d}"
        counts = roots_of[number] = root_counts(folder,
                                                {graph for _, _, graph in wanted[number]})
        for graph, roots in counts.items():
            if roots == 0:
                raise SystemExit(f"{folder}: positive molecule {graph} has no atom rooting "
                                 "a match; the records do not point at this file")
        for (explainer, readout, graph), ok in wanted[number].items():
            key = (explainer, readout, counts[graph] >= 2)
            seen[key] += 1
            perfect[key] += ok
        print(f"P{number:02d}: {len(counts)} positives read", file=sys.stderr)

    def share(key: tuple[str, str, bool]) -> str:
        return f"{perfect[key]} of {seen[key]}" if seen[key] else "–"

    rows = [[explainer, readout, share((explainer, readout, False)),
             share((explainer, readout, True))]
            for explainer in EXPLAINERS for readout in READOUTS.values()
            if seen[(explainer, readout, False)] or seen[(explainer, readout, True)]]
    text = ("Perfect positives (AUROC = 1), by how many atoms root a match\n\n"
            + render_table(["explainer", "readout", "one root", "two or more roots"], rows)
            + "\n\nPositives read per pattern, and how many have two or more roots\n\n"
            + render_table(["pattern", "positives", "two or more roots"],
                           [[f"P{n:02d}", str(len(c)), str(sum(v >= 2 for v in c.values()))]
                            for n, c in sorted(roots_of.items())]) + "\n")
    print_text(text, str(args.markdown) if args.markdown else None)


if __name__ == "__main__":
    main()
