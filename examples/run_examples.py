"""The main job on the bundled examples: compile every formula file under every
option, run the compiled network against the reference evaluator on the bundled
graphs, compute the exact UPI of every positive instance, and print a table.

    .venv/bin/python examples/run_examples.py [--out out/main]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import gracr
from gracr.bench.report.tables import render_table, write_table
from gracr.dsl.ir import Kind

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {  # formula file -> bundled graphs
    "RedBlueLeaf": "RedBlueLeaf", "RedBlueLeaf-or": "RedBlueLeaf", "Redundancy": "Redundancy",
    "CompetingRedundancy": "CompetingRedundancy", "RedBlueLeaf-NC": "RedBlueLeaf-NC",
    "Majority1Hop": "Majority1Hop", "Majority2Hop": "Majority2Hop",
}
OPTIONS = [(d, c) for d in ("demorgan", "flat") for c in ("expanded", "direct")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/main")
    args = parser.parse_args()
    models_dir = Path(args.out) / "models"
    models_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, graphs_name in EXAMPLES.items():
        program = gracr.parse(ROOT / "gracr" / "formulas" / f"{name}.gml")
        graphs = list(gracr.read_graphs(str(ROOT / "examples" / "graphs" / f"{graphs_name}.jsonl")))
        shapes, agree = [], True
        for disjunction, comparison in OPTIONS:
            model = gracr.compile(program, disjunction=disjunction,  # type: ignore[arg-type]
                                  comparison=comparison, max_degree=50)  # type: ignore[arg-type]
            model.save(str(models_dir / f"{name}.{disjunction}.{comparison}.npz"))
            shapes.append(f"{model.num_layers}x{model.width}")
            for graph in graphs:
                agree &= bool(np.array_equal(np.asarray(model.predict(graph)),
                                             np.asarray(gracr.evaluate(program, graph))))
        instances, upi_sizes, start = 0, [], time.perf_counter()
        for graph in graphs:
            value = gracr.evaluate(program, graph)
            targets = [None] if program.kind is Kind.GRAPH else list(np.flatnonzero(value))
            for target in targets:
                truth = gracr.ground_truth(program, graph,
                                           target=None if target is None else int(target))
                if truth.label == 1 and truth.edge_mask is not None:
                    instances += 1
                    upi_sizes.append(int(truth.edge_mask.sum()))
        seconds = time.perf_counter() - start
        rows.append([name, program.kind.value, " / ".join(dict.fromkeys(shapes)), str(len(graphs)),
                     "yes" if agree else "NO", str(instances),
                     f"{np.mean(upi_sizes):.1f}" if upi_sizes else "-", f"{seconds:.2f}"])
        print(f"  {name}: done", flush=True)
    headers = ["formula", "kind", "layers x width (dm/exp, dm/dir, flat/exp, flat/dir)", "graphs",
               "GNN == formula (4 options)", "positive instances", "mean UPI edges", "UPI time (s)"]
    print()
    print(render_table(headers, rows))
    write_table(os.path.join(args.out, "examples.md"), headers, rows)
    write_table(os.path.join(args.out, "examples.csv"), headers, rows)
    print(f"\nmodels in {models_dir}/, tables in {args.out}/examples.md and .csv")


if __name__ == "__main__":
    main()
