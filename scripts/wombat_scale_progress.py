"""How far the WOMBAT study at scale (`scripts/wombat_scale.sh`) has got: per explainer and
readout, the molecules explained per class (the fewest and the most over the patterns),
the CPU seconds they took, and the CPU the targets still need at the mean cost so far.

    PYTHONPATH=. .venv/bin/python scripts/wombat_scale_progress.py /work/runs/wombat/study \\
        [--markdown FILE]

The targets are the stages' (issue 40): Saliency, InputXGradient, IG and Rnd 1 000 per
class under r1 and r2; GNNExplainer and PGExplainer 300; ShapleySampling and SubgraphX
100 (SubgraphX: positives only); our threshold readout 300 for all but the slow two.
CPU seconds are the records' own (`cpu_seconds`: the explanation and its scoring, in the
worker); building the datasets, the node UPIs and training PGExplainer are not in them.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from gracr.bench.record import RESULTS_FILE, latest_records, read_records
from gracr.bench.report.tables import render_table
from gracr.files import write_text

PATTERNS = 14
GRADIENTS = ("Saliency", "InputXGradient", "IG", "Rnd")
MASKS = ("GNNExplainer", "PGExplainer")
SLOW = ("ShapleySampling", "SubgraphX")
READOUTS = {"max": "r1", "soft-or": "r2", "main": "threshold"}
# CPU seconds per molecule measured before the run (P01 and P02, a few molecules each, on
# the shared machine at nice 19): the estimate of a cell with no record yet (marked *).
MEASURED = {"Saliency": 0.03, "InputXGradient": 0.035, "IG": 0.08, "Rnd": 0.01,
            "GNNExplainer": 1.5, "PGExplainer": 0.08, "ShapleySampling": 3.0,
            "SubgraphX": 3.0}


def target(explainer: str, variant: str, sample: str) -> int:
    """The molecules per class and pattern the stages ask of `explainer` under `variant`."""
    if explainer in SLOW:
        if variant == "main" or (explainer == "SubgraphX" and sample == "negative"):
            return 0
        return 100
    if variant == "main":
        return 300
    return 1000 if explainer in GRADIENTS else 300


def progress(results: Path) -> tuple[str, float, float]:
    """The table, the CPU seconds spent and the CPU seconds the targets still need."""
    latest, _ = latest_records(read_records(results))
    done: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cpu: dict[tuple[str, str, str], float] = defaultdict(float)
    for record in latest:
        if record.status == "error":
            continue
        variant = record.variant.split("@")[0]
        key = (record.explainer, variant, record.sample)
        done[key][record.task] += 1
        cpu[key] += record.cpu_seconds
    rows = []
    spent = left = 0.0
    for explainer in (*GRADIENTS, *MASKS, *SLOW):
        for variant, label in READOUTS.items():
            for sample in ("positive", "negative"):
                wanted = target(explainer, variant, sample)
                key = (explainer, variant, sample)
                counts = [done[key].get(task, 0) for task in done[key]]
                counts += [0] * (PATTERNS - len(counts))
                total = sum(counts)
                if not wanted and not total:
                    continue
                mean = cpu[key] / total if total else MEASURED[explainer]
                missing = sum(max(0, wanted - n) for n in counts)
                spent += cpu[key]
                left += missing * mean
                rows.append([explainer, label, sample, str(wanted), f"{min(counts)}–{max(counts)}",
                             str(total), f"{mean:.3f}" + ("" if total else "*"),
                             f"{cpu[key] / 3600:.2f}", f"{missing * mean / 3600:.2f}"])
    table = render_table(["explainer", "readout", "class", "target per pattern",
                          "done per pattern (min–max)", "done", "CPU s per molecule",
                          "CPU h spent", "CPU h left (at that mean)"], rows)
    return table, spent, left


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study", help="the study folder (results.jsonl)")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    table, spent, left = progress(Path(args.study) / RESULTS_FILE)
    text = (table + f"\n* no record yet: the cost measured before the run (`MEASURED`).\n\n"
                    f"CPU spent in explanations: {spent / 3600:.2f} h; left to the targets: "
                    f"{left / 3600:.2f} h.\n")
    print(text)
    if args.markdown is not None:
        write_text(args.markdown, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
