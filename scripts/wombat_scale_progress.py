"""How far the WOMBAT study at scale (`scripts/wombat_scale.sh`) has got: per explainer and
readout, the molecules explained per class (the fewest and the most over the patterns),
the CPU seconds they took, and the CPU the targets still need at the mean cost so far.

    PYTHONPATH=. .venv/bin/python scripts/wombat_scale_progress.py /work/runs/wombat/study \\
        [--wombat /work/runs/wombat/data] [--markdown FILE]

The targets are the stages' (issue 40): Saliency, InputXGradient, IG and Rnd 1 000 per
class under r1 and r2; GNNExplainer and PGExplainer 300; ShapleySampling and SubgraphX
100 (SubgraphX: positives only); our threshold readout 300 for all but the slow two.
With `--wombat`, also per pattern: how many of the first 100, 300 and 1 000 positives
(the molecules the cells take, in file order) are the bundled sets' own and how many
grafted. CPU seconds are the records' own (`cpu_seconds`: the explanation and its scoring, in the
worker); building the datasets, the node UPIs and training PGExplainer are not in them.

The explainers with a batch path (`gracrc wombat-study --batch`, default 32) cost less per
molecule batched than one at a time: what is left of a cell is estimated at the mean of its
batched records, or, if it has none, at the mean of its records over the saving measured
(`SAVING`), or, with no record at all, at the batched cost measured (`MEASURED`).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from gracr.bench.record import RESULTS_FILE, latest_records, read_records
from gracr.bench.report.tables import print_text, render_table
from gracr.files import read_json_lines

PATTERNS = 14
GRADIENTS = ("Saliency", "InputXGradient", "IG", "Rnd")
MASKS = ("GNNExplainer", "PGExplainer")
SLOW = ("ShapleySampling", "SubgraphX")
READOUTS = {"max": "r1", "soft-or": "r2", "main": "threshold"}
# The batch path's saving: CPU per molecule one at a time over CPU per molecule in batches
# of 32, the mean over P01 (39 layers), P06 (12) and P10 (9) of
# `benchmarks/batched_explanations.py` (docs/results/wombat/scale.md, Cost).
SAVING = {"Saliency": 6.7, "InputXGradient": 5.6, "IG": 1.8, "Rnd": 3.4, "GNNExplainer": 14.3}
# CPU seconds per molecule measured before the run (P01 and P02, a few molecules each, on
# the shared machine at nice 19; the slow two on 2026-12-04: the records of
# `gracrc wombat-study --patterns 1,6,10` under r1, ShapleySampling on 3 positives and 3
# negatives a pattern, 0.33–2.9 s, SubgraphX on 2 positives, 0.07–1.9 s), over the batch
# path's saving where there is one: the estimate of a cell with no record yet (marked *).
MEASURED = {name: cost / SAVING.get(name, 1.0) for name, cost in {
    "Saliency": 0.03, "InputXGradient": 0.035, "IG": 0.08, "Rnd": 0.01, "GNNExplainer": 1.5,
    "PGExplainer": 0.08, "ShapleySampling": 1.4, "SubgraphX": 0.5}.items()}


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
    latest, _ = latest_records(read_records(results)) if results.exists() else ([], [])
    done: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    cpu: dict[tuple[str, str, str], float] = defaultdict(float)
    # The records of each cell explained in batches: how many, and their CPU seconds.
    batched: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for record in latest:
        if record.status == "error":
            continue
        variant = record.variant.split("@")[0]
        key = (record.explainer, variant, record.sample)
        done[key][record.task] += 1
        cpu[key] += record.cpu_seconds
        if record.extra.get("batched", 1) > 1:
            batched[key][0] += 1
            batched[key][1] += record.cpu_seconds
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
                count, seconds = batched[key]
                ahead = (seconds / count if count else
                         mean / SAVING.get(explainer, 1.0) if total else mean)
                missing = sum(max(0, wanted - n) for n in counts)
                spent += cpu[key]
                left += missing * ahead
                rows.append([explainer, label, sample, str(wanted), f"{min(counts)}–{max(counts)}",
                             str(total), f"{mean:.3f}" + ("" if total else "*"),
                             f"{ahead:.3f}" + ("" if total else "*"),
                             f"{cpu[key] / 3600:.2f}", f"{missing * ahead / 3600:.2f}"])
    table = render_table(["explainer", "readout", "class", "target per pattern",
                          "done per pattern (min–max)", "done", "CPU s per molecule",
                          "CPU s per molecule ahead", "CPU h spent", "CPU h left (at that)"],
                         rows)
    return table, spent, left


def grafts(wombat: Path) -> str:
    """Per pattern: the real and grafted molecules among its first positives."""
    rows = []
    for number in range(1, PATTERNS + 1):
        lines, _ = read_json_lines(wombat / f"P{number:02d}" / "molecules.jsonl")
        places = [str(line["x-place"]) for line in lines if line["x-kind"] == "positive"]
        cells = [f"P{number:02d}", str(len(places))]
        for first in (100, 300, 1000):
            chosen = places[:first]
            grafted = sum(place.startswith("grafted onto") for place in chosen)
            cells.append(f"{len(chosen) - grafted} / {grafted}")
        rows.append(cells)
    return render_table(["pattern", "positives in the file", "first 100: real / grafted",
                         "first 300: real / grafted", "first 1 000: real / grafted"], rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("study", help="the study folder (results.jsonl)")
    parser.add_argument("--wombat", default=None, help="scripts/wombat_datasets.py's folder")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    table, spent, left = progress(Path(args.study) / RESULTS_FILE)
    if args.wombat is not None:
        table = grafts(Path(args.wombat)) + "\n" + table
    text = (table + "\n* no record yet: the cost measured before the run (`MEASURED`); "
                    "ahead: the batched cost (`SAVING`).\n\n"
                    f"CPU spent in explanations: {spent / 3600:.2f} h; left to the targets: "
                    f"{left / 3600:.2f} h.\n")
    print_text(text, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
