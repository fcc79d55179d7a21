"""WOMBAT's fluorine-and-carbonyl whitebox (App. F.2, Table S2) and its anti-IG whitebox
of pattern 12 (App. F.3.4), compiled from their rules (`gracr.domains.chem.whiteboxes`):
their datasets as task folders, and their tables beside WOMBAT's numbers.

    PYTHONPATH=. .venv/bin/python scripts/wombat_whiteboxes.py --wombat /work/runs/wombat/data \\
        --out /work/runs/wombat/whiteboxes
    gracrc bench --tasks OUT/S2/S2.toml,OUT/AntiIG/AntiIG.toml --level node \\
        --variant max,soft-or --settings default --seeds 0 --graphs 20000 ... --out RESULTS
    PYTHONPATH=. .venv/bin/python scripts/wombat_whiteboxes.py --tables RESULTS \\
        --study /work/runs/wombat/study

S2's dataset is drawn as WOMBAT's (`gracr.domains.chem.datasets`) from the bundled sets:
every positive of the compiled rule (no graft: the sets hold some 1 500), `--negatives`
negatives of which up to half hard (Tversky to the ECFP4 of `CF.C=O`). AntiIG's is
pattern 12's own file (`--wombat`/P12), checked molecule by molecule: the anti-IG sentence
must answer as P12's does on each. `--tables` prints, per whitebox, readout and explainer,
the mean AUROC, the perfect explanations and the IQR success on negatives, beside Table
S2 (and App. F.3.4's IG); AntiIG's rows beside the study's P12 (`--study`) on the
molecules AntiIG explained: the same molecules under the six-layer network and under P12's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gracr.bench.record import RESULTS_FILE, read_records
from gracr.bench.report.ranking import RankingRow, ranking_rows
from gracr.bench.report.tables import print_text, render_table
from gracr.bench.task_writer import FileGraphs, TaskFile, write_task_file
from gracr.domains.chem.bundled import bundled_molecules
from gracr.domains.chem.check import predict_molecules
from gracr.domains.chem.datasets import DatasetSizes, drawn_dataset, write_task_folder
from gracr.domains.chem.molecules import read_smiles
from gracr.domains.chem.published import ANTI_IG as PUBLISHED_ANTI_IG
from gracr.domains.chem.published import FLUORINE_CARBONYL as PUBLISHED_S2
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path
from gracr.domains.chem.whiteboxes import (ANTI_IG, FLUORINE_CARBONYL,
                                           FLUORINE_CARBONYL_FINGERPRINT, whitebox_formula)
from gracr.dsl.parse import parse
from gracr.executor.model import compile_program
from gracr.files import read_json_lines, write_text

READOUTS = (("max", "r1"), ("soft-or", "r2"))


def _task(name: str, description: str, summary: str) -> TaskFile:
    return TaskFile(name=f"WOMBAT-{name}", formulas=(f"{name}.gml",),
                    graphs=FileGraphs("molecules.jsonl"), description=description,
                    comments=(f"Written by scripts/wombat_whiteboxes.py ({summary}); do not "
                              "edit by hand.",))


def build(out: Path, wombat: Path, negatives: int) -> None:
    formula = whitebox_formula(FLUORINE_CARBONYL)
    model = compile_program(parse(formula))
    pool = bundled_molecules()
    answers = predict_molecules(model, [m.graph for m in pool])
    positives = [m for m, yes in zip(pool, answers) if yes]
    negative_pool = [m for m, yes in zip(pool, answers) if not yes]
    dataset = drawn_dataset(FLUORINE_CARBONYL_FINGERPRINT, positives, negative_pool,
                            DatasetSizes(10_000, negatives, negatives // 2))
    task = write_task_folder(
        out / FLUORINE_CARBONYL, FLUORINE_CARBONYL, formula, dataset,
        lambda summary: _task(FLUORINE_CARBONYL, "WOMBAT App. F.2: a fluorine bonded to a "
                              "heavy atom and a carbonyl, in molecules of the bundled sets",
                              summary))
    print(f"{FLUORINE_CARBONYL}: {len(positives)} positives of {len(pool)} bundled molecules; "
          f"{task}", file=sys.stderr)

    # AntiIG: pattern 12's molecules, the six-layer sentence; it must answer as P12.
    p12 = WOMBAT_PATTERNS[11]
    source = wombat / p12.name / "molecules.jsonl"
    lines, note = read_json_lines(source)
    if note is not None:
        raise SystemExit(f"{source}: {note}")
    graphs = [read_smiles(str(line["x-smiles"])).graph for line in lines]
    anti = whitebox_formula(ANTI_IG)
    ours = predict_molecules(compile_program(parse(anti)), graphs)
    theirs = predict_molecules(compile_program(parse(wombat_formula_path(p12))), graphs)
    differ = sum(a != b for a, b in zip(ours, theirs))
    if differ:
        raise SystemExit(f"{ANTI_IG}: answers differ from P12's on {differ} molecules")
    folder = out / ANTI_IG
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / f"{ANTI_IG}.gml", anti)
    write_text(folder / "molecules.jsonl", source.read_text(encoding="utf-8"))
    task = write_task_file(folder / f"{ANTI_IG}.toml", _task(
        ANTI_IG, "WOMBAT App. F.3.4: pattern 12 as the six-layer anti-IG whitebox, on P12's "
                 "molecules", f"P12's {len(graphs)} molecules, {sum(ours)} positive, the "
                              "same answers as P12's sentence"))
    print(f"{ANTI_IG}: {len(graphs)} molecules, {sum(ours)} positive, answers as P12's; {task}",
          file=sys.stderr)


def _cells(row: RankingRow | None) -> list[str]:
    if row is None:
        return ["–", "–", "–"]
    defined = row.positives - row.undefined
    auroc = "–" if row.auroc is None else f"{row.auroc:.4f}"
    perfect = f"{row.perfect_count} / {defined}" + (
        f" ({row.perfect_count / defined:.2%})" if defined else "")
    iqr = "–" if not row.negatives or row.iqr_success is None else \
        f"{row.iqr_success:.4f} ({row.negatives})"
    return [auroc, perfect, iqr]


def tables(results: Path, study: Path | None) -> str:
    records = list(read_records(results / RESULTS_FILE))
    rows = {(r.task, r.variant, r.explainer): r for r in ranking_rows(records)}
    # The molecules AntiIG explained, per readout and explainer: P12's rows are drawn on
    # those alone (AntiIG's file is P12's, line for line, so a graph's place is the same
    # molecule in both; the study explains more of them than the whitebox stages do).
    anti_graphs: dict[tuple[str, str], set[int]] = {}
    for r in records:
        if r.task == f"WOMBAT-{ANTI_IG}":
            anti_graphs.setdefault((r.variant, r.explainer), set()).add(r.graph)
    out = []
    headers = ["explainer", "readout", "mean AUROC ours", "perfect ours", "IQR success ours (n)",
               "mean AUROC WOMBAT", "perfect WOMBAT", "IQR success WOMBAT"]
    table = []
    for explainer, (auroc, (perfect, total), iqr) in PUBLISHED_S2.items():
        for variant, label in READOUTS:
            table.append([explainer, label,
                          *_cells(rows.get((f"WOMBAT-{FLUORINE_CARBONYL}", f"{variant}@node",
                                            explainer))),
                          f"{auroc:.4f}", f"{perfect} / {total} ({perfect / total:.2%})",
                          "N/A" if iqr is None else f"{iqr:.4f}"])
    out.append("## Table S2: fluorine and carbonyl, compiled from the rule, beside WOMBAT's "
               "GINEConv whitebox\n\n" + render_table(headers, table) + "\n")
    p12 = {}
    if study is not None and (study / RESULTS_FILE).exists():
        p12 = {(r.variant, r.explainer): r for r in ranking_rows(
            r for r in read_records(study / RESULTS_FILE) if r.task == "WOMBAT-P12"
            and r.graph in anti_graphs.get((r.variant, r.explainer), set()))}
    headers = ["explainer", "readout", "mean AUROC AntiIG", "perfect AntiIG",
               "IQR success AntiIG (n)", "mean AUROC P12", "perfect P12", "IQR success P12 (n)",
               "WOMBAT AntiIG: mean AUROC, perfect share"]
    table = []
    explainers = sorted({e for (task, _, e) in rows if task == f"WOMBAT-{ANTI_IG}"})
    for explainer in explainers:
        for variant, label in READOUTS:
            published = PUBLISHED_ANTI_IG.get(explainer)
            table.append([explainer, label,
                          *_cells(rows.get((f"WOMBAT-{ANTI_IG}", f"{variant}@node", explainer))),
                          *_cells(p12.get((f"{variant}@node", explainer))),
                          "–" if published is None or variant != "soft-or"
                          else f"{published[0]:.2f}, {published[1]:.2%}"])
    out.append("## The anti-IG whitebox of pattern 12 (WOMBAT App. F.3.4), beside P12's "
               "compiled sentence on the same molecules\n\n" + render_table(headers, table)
               + "\n")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=None, help="write the task folders here")
    parser.add_argument("--wombat", default=None, help="scripts/wombat_datasets.py's folder "
                                                       "(P12's molecules)")
    parser.add_argument("--negatives", type=int, default=2000)
    parser.add_argument("--tables", default=None, metavar="RESULTS",
                        help="print the tables of this results folder instead")
    parser.add_argument("--study", default=None, help="the wombat-study folder (P12's rows)")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    args = parser.parse_args()
    if args.tables is not None:
        text = tables(Path(args.tables), None if args.study is None else Path(args.study))
        print_text(text, args.markdown)
        return 0
    if args.out is None or args.wombat is None:
        parser.error("give --out and --wombat (or --tables)")
    build(Path(args.out), Path(args.wombat), args.negatives)
    return 0


if __name__ == "__main__":
    sys.exit(main())
