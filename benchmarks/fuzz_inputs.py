"""Hostile input, measured: `.gml` sources, graph JSON, model files, task files, SMARTS,
molecule files, tissue options, seeds.csv files, option values and output paths,
grammar-generated and mutated, thrown at the Python API and (a sample) at `gracrc`, each
within a time limit.

    .venv/bin/python benchmarks/fuzz_inputs.py --count 100000 [--seed 0] [--jobs 2]
        [--time-limit 10] [--cli-every 100] [--kinds gml,graph-json,smarts,...]
        [--out out/fuzz_inputs] [--markdown docs/results/fuzz_inputs.md]
    .venv/bin/python benchmarks/fuzz_inputs.py --replay out/fuzz_inputs/findings/*.json

Target (issue "Hostile input"): 0 findings at 10^5 inputs. A finding is anything that is
neither a refusal with a `GracrError` (exit 2 from `gracrc`, one message, no traceback) nor
a consistent result (evaluator == numpy forward == ROBDD label, UPI inside the receptive
field and equal to the brute force on small graphs; a task's built dataset labelled as the
evaluator labels it), or an input over the time limit; each is saved with its input under
`--out/findings/`. The table says how far inputs got. The command exits 1 when there is a
finding.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys

from gracr.fuzz.inputs import KINDS, FuzzInputsConfig, fuzz_inputs, replay, report_table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="inputs (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="Hypothesis seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--time-limit", type=float, default=10.0, metavar="SECONDS",
                        help="per input, and per gracrc run (default 10)")
    parser.add_argument("--cli-every", type=int, default=100, metavar="N",
                        help="run every N-th input of each kind through gracrc too (default 100; "
                             "0: never)")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help=f"comma list of input kinds (default {','.join(KINDS)})")
    parser.add_argument("--out", default="out/fuzz_inputs", metavar="DIR",
                        help="where findings and the slowest input go (default out/fuzz_inputs)")
    parser.add_argument("--markdown", default=None, metavar="FILE",
                        help="also write the table, with the command, date and machine")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--replay", nargs="+", default=None, metavar="FINDING.json",
                        help="run saved inputs (findings, slowest.json) again and say how "
                             "each ends now, instead of fuzzing")
    args = parser.parse_args()
    if args.replay:
        findings = 0
        for path in args.replay:
            result = replay(path, args.time_limit)
            findings += result["finding"] is not None
            ending = (f"finding: {result['finding'][0]}" if result["finding"] else
                      f"refused after {result['stages'] or 'no stage'}" if result["refused"]
                      else f"passed {result['stages']}")
            print(f"{path}: {ending} ({result['seconds']:.2f} s)")
        return 1 if findings else 0
    kinds = tuple(name for name in args.kinds.split(",") if name)
    unknown = [name for name in kinds if name not in KINDS]
    if unknown or args.count <= 0 or args.jobs <= 0:
        parser.error(f"unknown kinds {unknown}" if unknown
                     else "--count and --jobs must be positive")
    report = fuzz_inputs(FuzzInputsConfig(args.count, args.seed, args.jobs, args.time_limit,
                                          args.cli_every, args.out, kinds,
                                          progress=not args.quiet))
    table = report_table(report)
    print(f"\nInput fuzzer, {args.count} inputs, seed {args.seed}\n")
    print(table)
    if args.markdown:
        command = shlex.join([".venv/bin/python", *sys.argv])
        machine = (f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
                   f"{platform.release()}, Python {platform.python_version()}")
        os.makedirs(os.path.dirname(os.path.abspath(args.markdown)), exist_ok=True)
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(f"# Input fuzzer: {args.count} hostile inputs\n\n"
                         f"Command: `{command}`  \nDate: {datetime.date.today().isoformat()}  \n"
                         f"Machine: {machine}\n\n{table}\n")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
