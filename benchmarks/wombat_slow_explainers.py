"""WOMBAT's two slow explainers (ShapleySampling, SubgraphX) on the compiled patterns,
before and after a change, in one run: the CPU seconds per molecule of each version,
whether their scores are equal bit for bit, and, for the molecules the study has already
explained, whether the version after gives the scores the study stored (its records made
before a change stay in the study).

    PYTHONPATH=. .venv/bin/python benchmarks/wombat_slow_explainers.py \\
        --wombat /work/runs/wombat/data --study /work/runs/wombat/study \\
        [--before 218201c] [--after working-tree] [--patterns 1-14] [--molecules 2] \\
        [--explainers ShapleySampling,SubgraphX] [--markdown FILE]

`--before` defaults to 218201c, the last commit before ShapleySampling read the subject's
inference module and the fused module held its state transposed (2026-12-05). Each
version runs in its own child process (`versions.py`: a temporary worktree, one torch
thread), both alive, asked in turn molecule by molecule with the order alternating, so
that load from elsewhere falls on both alike. Per pattern and readout (r1 = `max`,
r2 = `soft-or`), the first `--molecules` positives and as many negatives (SubgraphX:
positives only, as the study runs it) of the study's dataset (`--study`'s `datasets`
store, seed 0), compiled with the presence bit as the study compiles them, with the
study's seed per molecule and the explainers' defaults (the study's settings). A child
builds a pattern's model and modules before its first timed molecule, as a study job does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from versions import VersionChild, assert_imports, checked_out, describe

READOUTS = (("max", "r1"), ("soft-or", "r2"))


def child(args: argparse.Namespace) -> None:
    """Answer `{"pattern", "variant", "explainer", "sample", "number"}` with
    `{"cpu", "scores", "atoms", "task", "instance"}` for that molecule, with the gracr on
    `PYTHONPATH`."""
    import time

    import torch

    torch.set_num_threads(1)
    from gracr.bench.datasets import load_or_build
    from gracr.bench.instances import (compile_variant, explained_instances, subject_for,
                                       variant_named)
    from gracr.bench.tasks import task_named
    from gracr.explainers import EXPLAINERS, scores
    from gracr.explainers.base import explainer_seed

    assert_imports(args.tree)
    cells: dict[tuple[int, str], Any] = {}

    def instance_task(pattern: int) -> str:
        path = Path(args.wombat) / f"P{pattern:02d}" / f"P{pattern:02d}.toml"
        return str(task_named(str(path)).name)

    def cell(pattern: int, variant: str) -> Any:
        if (pattern, variant) not in cells:
            cells.clear()   # one pattern at a time: its modules are large
            path = Path(args.wombat) / f"P{pattern:02d}" / f"P{pattern:02d}.toml"
            task = task_named(str(path))
            dataset = load_or_build(task.name, 0, None, args.datasets, progress=False)
            model = compile_variant(task.name, variant_named(variant), dataset, "node")
            chosen = {sample: list(explained_instances(dataset, sample))[:args.molecules]
                      for sample in ("positive", "negative")}
            modules: dict[str, Any] = {}
            subjects = {sample: [(i, subject_for(dataset, task.program(), model, i, modules,
                                                 "node")) for i in instances]
                        for sample, instances in chosen.items()}
            first = subjects["positive"][0][1]
            first.module("surrogate")
            if hasattr(first, "inference_module"):
                first.inference_module()
            cells[pattern, variant] = subjects
        return cells[pattern, variant]

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip() == "done":
            break
        request = json.loads(line)
        instance, subject = cell(request["pattern"], request["variant"])[
            request["sample"]][request["number"]]
        name = request["explainer"]
        started = time.process_time()
        values = scores(name, subject, EXPLAINERS[name].defaults,
                        seed=explainer_seed(0, instance.index))
        cpu = time.process_time() - started
        print(json.dumps({"cpu": cpu, "scores": values.tolist(), "atoms": subject.num_nodes,
                          "task": instance_task(request["pattern"]),
                          "instance": instance.index}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wombat", required=True, help="scripts/wombat_datasets.py's folder")
    parser.add_argument("--study", required=True, help="the wombat-study folder (its "
                                                       "datasets store)")
    parser.add_argument("--before", default="218201c")
    parser.add_argument("--after", default="working-tree")
    parser.add_argument("--patterns", default="1-14")
    parser.add_argument("--molecules", type=int, default=2, metavar="K",
                        help="positives and as many negatives per pattern (default 2)")
    parser.add_argument("--explainers", default="ShapleySampling,SubgraphX")
    parser.add_argument("--markdown", default=None, metavar="FILE")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default="", help=argparse.SUPPRESS)
    parser.add_argument("--datasets", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return 0
    import numpy as np

    from gracr.bench.options import parse_seeds
    from gracr.bench.report.tables import print_text, render_table
    from gracr.bench.scores_log import read_scores

    # The study's own scores of these molecules, where it has explained them: the new
    # version must give them again (the records made before a change stay in the study).
    stored_by_key, _ = read_scores(args.study)
    stored = {(key[0], key[1], key[2], key[5], key[7]): values
              for key, values in stored_by_key.items()
              if key[2] in args.explainers.split(",")}

    datasets = os.path.abspath(str(Path(args.study) / "datasets"))
    explainers = args.explainers.split(",")
    rows, totals = [], {"old": 0.0, "new": 0.0}
    with checked_out({"old": args.before, "new": args.after}) as trees:
        children: dict[str, VersionChild] = {}
        try:
            for version in ("old", "new"):
                command = [sys.executable, os.path.abspath(__file__), "--child",
                           "--tree", trees[version], "--wombat", os.path.abspath(args.wombat),
                           "--study", args.study, "--datasets", datasets,
                           "--molecules", str(args.molecules)]
                children[version] = VersionChild(command, trees[version])
            request = 0
            for pattern in parse_seeds(args.patterns):
                for variant, label in READOUTS:
                    for explainer in explainers:
                        samples = ("positive",) if explainer == "SubgraphX" else (
                            "positive", "negative")
                        cpu = {"old": 0.0, "new": 0.0}
                        equal = count = atoms = kept = again = 0
                        for sample in samples:
                            for number in range(args.molecules):
                                order = ("old", "new") if request % 2 == 0 else ("new", "old")
                                request += 1
                                answers = {}
                                for version in order:
                                    answers[version] = children[version].ask(
                                        {"pattern": pattern, "variant": variant,
                                         "explainer": explainer, "sample": sample,
                                         "number": number})
                                    cpu[version] += answers[version]["cpu"]
                                equal += answers["old"]["scores"] == answers["new"]["scores"]
                                new = answers["new"]
                                key = (new["task"], variant, explainer, sample, new["instance"])
                                if key in stored:
                                    kept += 1
                                    again += bool(np.array_equal(
                                        np.asarray(new["scores"], dtype="<f4"),
                                        stored[key].astype("<f4")))
                                count += 1
                                atoms += answers["new"]["atoms"]
                        totals["old"] += cpu["old"]
                        totals["new"] += cpu["new"]
                        rows.append([f"P{pattern:02d}", label, explainer, str(count),
                                     f"{atoms / count:.1f}", f"{cpu['old'] / count:.2f}",
                                     f"{cpu['new'] / count:.2f}",
                                     f"{cpu['old'] / cpu['new']:.1f}x", f"{equal} / {count}",
                                     f"{again} / {kept}" if kept else "–"])
                        print(" ".join(rows[-1]), file=sys.stderr, flush=True)
            for process in children.values():
                process.finish()
        finally:
            for process in children.values():
                process.kill()
    text = render_table(["pattern", "readout", "explainer", "molecules", "atoms (mean)",
                         f"CPU s per molecule: {describe(args.before)}",
                         describe(args.after), "ratio", "scores equal bit for bit",
                         "the study's stored scores given again"], rows)
    text += (f"\nIn all: {totals['old']:.0f} CPU s before, {totals['new']:.0f} after "
             f"({totals['old'] / totals['new']:.1f}x).\n")
    print_text(text, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
