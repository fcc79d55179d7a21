"""Figure S8 of the WOMBAT paper on our compiled patterns: how many atoms have a non-zero
final-layer representation (S8a), and the loose upper bound on the AUROC of any explainer
that scores edges from their terminals' final-layer representations, as PGExplainer does
(S8b; `gracr.explainers.bound`), beside our PGExplainer's mean AUROC from the study.

    PYTHONPATH=. .venv/bin/python benchmarks/wombat_pgexplainer_bound.py \\
        --wombat /work/runs/wombat/data --study /work/runs/wombat/study --sample 300 \\
        [--patterns 1-14] [--markdown FILE] [--json FILE]

Per pattern and readout (r1 = `max`, r2 = `soft-or`): the first `--sample` positives of the
study's dataset (`--study`'s `datasets` store, seed 0) and as many negatives, each
compiled with the presence bit as the study compiles it; the node UPI is the ground truth.
`--json` (default: `pgexplainer_bound.jsonl` in `--study`) gets one line per pattern and
readout, the fields of `gracr.domains.chem.headlines.PatternBound`, which
`gracrc wombat-study --tables-only --bounds FILE` reads for the headline table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from gracr.bench.datasets import load_or_build
from gracr.bench.instances import (compile_variant, explained_instances, ground_truth,
                                   subject_for, variant_named)
from gracr.bench.options import parse_seeds
from gracr.bench.record import RESULTS_FILE, read_records
from gracr.bench.report.ranking import ranking_rows
from gracr.bench.report.tables import print_text, render_table
from gracr.bench.tasks import task_named
from gracr.domains.chem.headlines import PatternBound
from gracr.explainers.bound import active_nodes, terminal_bound
from gracr.files import write_text

READOUTS = (("max", "r1"), ("soft-or", "r2"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", required=True, help="scripts/wombat_datasets.py's folder")
    parser.add_argument("--study", required=True, help="the wombat-study folder (its "
                                                       "datasets store and results)")
    parser.add_argument("--patterns", default="1-14")
    parser.add_argument("--sample", type=int, default=300, metavar="N")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="the bounds as JSON lines (default: pgexplainer_bound.jsonl in "
                             "--study)")
    args = parser.parse_args()
    datasets = str(Path(args.study) / "datasets")
    results = Path(args.study) / RESULTS_FILE
    pgexplainer = {}
    if results.exists():
        records = [r for r in read_records(results)
                   if r.explainer == "PGExplainer" and r.instance < args.sample]
        pgexplainer = {(row.task, row.variant): row for row in ranking_rows(records)}
    started = time.process_time()
    table = []
    found: list[PatternBound] = []
    for number in parse_seeds(args.patterns):
        task = task_named(str(Path(args.wombat) / f"P{number:02d}" / f"P{number:02d}.toml"))
        dataset = load_or_build(task.name, 0, None, datasets, progress=False)
        program = task.program()
        positives = [i for i in explained_instances(dataset) if i.index < args.sample]
        negatives = [i for i in explained_instances(dataset, "negative")
                     if i.index < args.sample]
        truth = ground_truth(dataset, positives, "node", datasets)
        for variant, label in READOUTS:
            model = compile_variant(task.name, variant_named(variant), dataset, "node")
            modules: dict[str, object] = {}
            bounds = [terminal_bound(subject_for(dataset, program, model, i, modules, "node"),
                                     truth[i.index]) for i in positives]
            active_negative = [active_nodes(subject_for(dataset, program, model, i, modules,
                                                        "node")) for i in negatives]
            defined = [b.auroc for b in bounds if b.auroc is not None]
            found.append(PatternBound(
                number, variant, len(bounds), len(defined), sum(a == 1.0 for a in defined),
                float(np.mean(defined)) if defined else None,
                sum(b.active for b in bounds) + sum(int(a.sum()) for a in active_negative),
                sum(b.nodes for b in bounds) + sum(a.size for a in active_negative)))
            ours = pgexplainer.get((task.name, f"{variant}@node"))
            table.append([
                f"P{number:02d}", label, str(len(bounds)),
                f"{np.mean([b.active for b in bounds]):.2f} / "
                f"{np.mean([b.nodes for b in bounds]):.1f}",
                f"{np.mean([b.active_in_upi for b in bounds]):.2f} / "
                f"{np.mean([b.upi for b in bounds]):.1f}",
                f"{np.mean([a.sum() for a in active_negative]):.2f} / "
                f"{np.mean([a.size for a in active_negative]):.1f}",
                f"{np.mean(defined):.3f}" if defined else "–",
                str(sum(a == 1.0 for a in defined)),
                "–" if ours is None or ours.auroc is None
                else f"{ours.auroc:.3f} ({ours.positives})"])
            print(f"P{number:02d} {label}: bound {table[-1][6]}", file=sys.stderr)
    text = render_table(["pattern", "readout", "positives",
                         "active atoms / atoms (positives)",
                         "active / UPI atoms (positives)",
                         "active atoms / atoms (negatives)", "bound: mean AUROC",
                         "positives with bound 1", "our PGExplainer: mean AUROC (n)"], table)
    text += (f"\n{time.process_time() - started:.0f} CPU s (datasets already built).\n")
    write_text(args.json or Path(args.study) / "pgexplainer_bound.jsonl",
               "".join(json.dumps(asdict(bound)) + "\n" for bound in found))
    print_text(text, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
