"""WOMBAT's explainer study on gracr's compiled patterns (Table 2, S7 and S8 of the WOMBAT
paper): node scores of seven explainers on the 14 relaxed patterns under WOMBAT's two
readouts (and our threshold readout), scored against the node-level UPI, beside WOMBAT's
published numbers.

    PYTHONPATH=. .venv/bin/python scripts/wombat_datasets.py --out out/wombat
    PYTHONPATH=. .venv/bin/python benchmarks/wombat_explainers.py --wombat out/wombat \
        [--patterns 1-14] [--positives 100] [--negatives 100] [--slow-positives 20] \
        [--slow-negatives 20] [--slow-variants max,soft-or] \
        [--jobs 2] [--out out/wombat-explainers] [--markdown docs/results/wombat_explainers.md]

Each pattern's task file (written by `scripts/wombat_datasets.py`) runs through
`gracrc bench`'s runner at `--level node` (the presence bit compiled in, so a zeroed
atom is a deleted atom), variants `max` (r1, Eq. 3), `soft-or` (r2, Eq. 4) and `main`
(ours, the threshold readout), seed 0, the first `--positives` positive molecules and the
first `--negatives` negative ones of the (shuffled) file. The explainers whose cost is a
search or a sample per molecule (`--slow`: ShapleySampling, SubgraphX; WOMBAT App. B also
caps them, at 100 molecules per class) take `--slow-positives` and `--slow-negatives`;
SubgraphX's coalitions are never uniform, so as in WOMBAT App. B it explains no negatives;
the slow ones run WOMBAT's two readouts only (`--slow-variants`).
The runner resumes: a rerun (or a run of other `--patterns` into the same `--out`) adds
only what is missing, and the tables are drawn from everything in `--out`.

Printed (and written to `--markdown`): per pattern and explainer, our mean AUROC and AP
beside WOMBAT's (S7, S8) for r1 and r2; Table 2's check marks ours / WOMBAT's; and the
IQR success rate on negatives per explainer and readout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gracr.bench.options import parse_seeds
from gracr.bench.record import Record, read_records
from gracr.domains.paper.report.ranking import RankingRow, ranking_rows
from gracr.bench.runner import plan_jobs, run
from gracr.bench.tables import render_table
from gracr.bench.tasks import task_names
from gracr.domains.chem.published import (WOMBAT_EXPLAINERS, WOMBAT_READOUTS, published_auroc,
                                       published_average_precision,
                                       published_baseline_average_precision,
                                       published_perfect)

VARIANTS = ("max", "soft-or", "main")
SLOW = ("ShapleySampling", "SubgraphX")
# Explainers whose scores are a coalition (0/1), never uniform on a negative (WOMBAT App. B).
NO_NEGATIVES = ("SubgraphX",)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", default="out/wombat", metavar="FOLDER",
                        help="where scripts/wombat_datasets.py wrote Pnn/Pnn.toml")
    parser.add_argument("--patterns", default="1-14")
    parser.add_argument("--explainers", default=",".join((*WOMBAT_EXPLAINERS, "Rnd")))
    parser.add_argument("--positives", type=int, default=100)
    parser.add_argument("--negatives", type=int, default=100)
    parser.add_argument("--slow-positives", type=int, default=20)
    parser.add_argument("--slow-negatives", type=int, default=20)
    parser.add_argument("--slow-variants", default="max,soft-or",
                        help="the variants the slow explainers run (default WOMBAT's two)")
    parser.add_argument("--budget", type=float, default=180.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default="out/wombat-explainers")
    parser.add_argument("--datasets", default=None,
                        help="the dataset store (default: out/wombat-explainers/datasets)")
    parser.add_argument("--tables-only", action="store_true",
                        help="draw the tables from --out without explaining anything")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    numbers = parse_seeds(args.patterns)
    explainers = [name for name in args.explainers.split(",") if name]
    datasets = args.datasets or str(Path(args.out) / "datasets")
    files = [str(Path(args.wombat) / f"P{n:02d}" / f"P{n:02d}.toml") for n in numbers]
    missing = [path for path in files if not Path(path).is_file()]
    if missing:
        print(f"missing task files: {', '.join(missing)} (run scripts/wombat_datasets.py)",
              file=sys.stderr)
        return 2
    tasks = task_names(",".join(files))

    started = time.perf_counter()
    slow_variants = [v for v in args.slow_variants.split(",") if v]
    if not args.tables_only:
        # Every pattern with the quick explainers first, then the slow ones: a run cut
        # short still has whole tables for the former.
        for group in ([e for e in explainers if e not in SLOW],
                      [e for e in explainers if e in SLOW]):
            for task in tasks:
                jobs = []
                for name in group:
                    slow = name in SLOW
                    negatives = 0 if name in NO_NEGATIVES else \
                        (args.slow_negatives if slow else args.negatives)
                    jobs += plan_jobs([task], slow_variants if slow else list(VARIANTS),
                                      [name], [0],
                                      args.slow_positives if slow else args.positives,
                                      args.budget, {task: None}, datasets,
                                      settings="default", level="node", negatives=negatives)
                if jobs:
                    print(f"{task}: {len(jobs)} jobs", file=sys.stderr)
                    run(jobs, args.out, workers=args.jobs)
    elapsed = time.perf_counter() - started

    # The tables take each explainer's first instances up to this run's limits, so that
    # records an earlier, larger run left in --out do not make samples unequal.
    def limit(record: Record) -> int:
        slow = record.explainer in SLOW
        if record.sample == "negative":
            return args.slow_negatives if slow else args.negatives
        return args.slow_positives if slow else args.positives

    records = [r for r in read_records(Path(args.out) / "results.jsonl")
               if r.instance < limit(r)]
    rows = {(r.task, r.variant, r.explainer): r for r in ranking_rows(records)}
    text = _tables(rows, numbers, explainers)
    text += (f"\n{len(records)} records in {args.out}; this run {elapsed / 60:.1f} min "
             f"with {args.jobs} workers.\n")
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    return 0


def _row(rows: dict[tuple[str, str, str], RankingRow], number: int, variant: str,
         explainer: str) -> RankingRow | None:
    return rows.get((f"WOMBAT-P{number:02d}", f"{variant}@node", explainer))


def _tables(rows: dict[tuple[str, str, str], RankingRow], numbers: list[int],
            explainers: list[str]) -> str:
    out = []
    # S7 / S8 beside ours.
    headers = ["pattern", "explainer"]
    for readout, label in zip(WOMBAT_READOUTS, ("r1", "r2")):
        headers += [f"AUROC {label} ours", f"AUROC {label} WOMBAT", f"AP {label} ours",
                    f"AP {label} WOMBAT"]
    headers += ["AUROC threshold (ours)", "AP threshold (ours)", "positives (undefined)"]
    table = []
    for number in numbers:
        for explainer in explainers:
            cells = [f"P{number:02d}", explainer]
            for readout in WOMBAT_READOUTS:
                row = _row(rows, number, readout, explainer)
                published = explainer in WOMBAT_EXPLAINERS
                cells += [_number(row.auroc if row else None),
                          _number(published_auroc(number, explainer, readout))
                          if published else "–",
                          _number(row.average_precision if row else None),
                          _number(published_average_precision(number, explainer, readout))
                          if published else
                          f"{published_baseline_average_precision(number):.3f} (baseline)"]
            own = _row(rows, number, "main", explainer)
            first = _row(rows, number, WOMBAT_READOUTS[0], explainer)
            cells += [_number(own.auroc if own else None),
                      _number(own.average_precision if own else None),
                      f"{first.positives} ({first.undefined})" if first else "–"]
            table.append(cells)
    out.append("## Mean AUROC and AP on positives, ours beside WOMBAT's Tables S7 and S8\n\n"
               + render_table(headers, table) + "\n")

    # The "Mean" rows of S7 and S8, over the patterns run here (WOMBAT's over the same).
    headers = ["explainer", "readout", "patterns", "mean AUROC ours", "mean AUROC WOMBAT",
               "mean AP ours", "mean AP WOMBAT", "perfect patterns ours",
               "perfect patterns WOMBAT"]
    table = []
    for explainer in explainers:
        for readout in (*WOMBAT_READOUTS, "main"):
            found = [(n, r) for n in numbers
                     if (r := _row(rows, n, readout, explainer)) is not None
                     and r.auroc is not None and r.average_precision is not None]
            if not found:
                continue
            published = explainer in WOMBAT_EXPLAINERS and readout != "main"
            ours_auroc = sum(r.auroc or 0.0 for _, r in found) / len(found)
            ours_ap = sum(r.average_precision or 0.0 for _, r in found) / len(found)
            table.append([
                explainer, readout if readout != "main" else "threshold (ours)",
                str(len(found)), f"{ours_auroc:.3f}",
                f"{sum(published_auroc(n, explainer, readout) for n, _ in found) / len(found):.3f}"
                if published else "–",
                f"{ours_ap:.3f}",
                f"{sum(published_average_precision(n, explainer, readout) for n, _ in found) / len(found):.3f}"
                if published else "–",
                str(sum(r.perfect for _, r in found)),
                str(sum(published_perfect(n, explainer, readout) for n, _ in found))
                if published else "–"])
    out.append("## Means over the patterns (the 'Mean' rows of S7 and S8), and how many "
               "patterns are perfect (Table 2)\n\n" + render_table(headers, table) + "\n")

    # Table 2: perfect (every defined AUROC = 1). A cell holds ours under r1, r2 and the
    # threshold readout, then WOMBAT's under r1 and r2 ("·": not run here).
    headers = ["pattern", *explainers]
    table = []
    for number in numbers:
        cells = [f"P{number:02d}"]
        for explainer in explainers:
            ours = ""
            for readout in (*WOMBAT_READOUTS, "main"):
                row = _row(rows, number, readout, explainer)
                ours += "·" if row is None else ("✔" if row.perfect else "✗")
            theirs = "".join("✔" if published_perfect(number, explainer, readout) else "✗"
                             for readout in WOMBAT_READOUTS) \
                if explainer in WOMBAT_EXPLAINERS else ""
            cells.append(ours + (f" / {theirs}" if theirs else ""))
        table.append(cells)
    out.append("## Perfect explanations (AUROC = 1 on every positive), Table 2\n\n"
               "Each cell: ours under r1, r2 and our threshold readout / WOMBAT's under r1 "
               "and r2 (· not run).\n\n" + render_table(headers, table) + "\n")

    # The IQR test on negatives, pooled over the patterns.
    headers = ["explainer", "readout", "negatives", "IQR success", "patterns with a failure"]
    table = []
    for explainer in explainers:
        for readout in (*WOMBAT_READOUTS, "main"):
            tested = [(n, _row(rows, n, readout, explainer)) for n in numbers]
            counted = [(n, r) for n, r in tested if r is not None and r.negatives]
            total = sum(r.negatives for _, r in counted)
            if not total:
                continue
            passed = sum(round((r.iqr_success or 0.0) * r.negatives) for _, r in counted)
            failing = [f"P{n:02d}" for n, r in counted if (r.iqr_success or 0.0) < 1.0]
            table.append([explainer, readout, str(total), f"{passed / total:.4f}",
                          ", ".join(failing) or "none"])
    out.append("## IQR test on negatives (WOMBAT §3.3; WOMBAT: every explainer passes on every "
               "negative except PGExplainer, 1 of 140 000)\n\n" + render_table(headers, table)
               + "\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
