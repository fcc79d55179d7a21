"""`gracrc fuzz`: explainers on logically equivalent rewrites of a formula, the spread of
their scores, every failure shrunk."""

from __future__ import annotations

import argparse
from typing import TextIO

from gracr.cli.command import Command
from gracr.cli.options import read_program
from gracr.bench.options import (add_budget_option, add_plugin_option, add_set_option,
                                 parse_explainers, parse_overrides, seed_number)
from gracr.errors import GracrError


def cmd_fuzz(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.explainers import load_plugins
    from tqdm import tqdm

    from gracr.fuzz.rewrites import alternative, parse_families
    from gracr.fuzz.run import (
        Failure, FuzzConfig, describe_failure, run_fuzz, summary_table, write_outputs,
    )

    load_plugins(args.plugin)
    # `all` leaves out the explainers that must be trained first (the fuzzer explains
    # rewrites with no held-out instances to train on); named, they get the fuzzer's reason.
    explainers = parse_explainers(args.explainers, trained=False)
    overrides = parse_overrides(args.set, explainers)
    if args.per_family <= 0:
        raise GracrError(f"--per-family must be positive, got {args.per_family}")
    config = FuzzConfig(tuple(explainers), parse_families(args.rewrites), args.limit, args.seed,
                        overrides, args.per_family, args.shrink, args.budget)
    program = read_program(args.file) if args.file else None
    alternatives = ([alternative(path, program) for path in args.alternative]
                    if program is not None else [])
    if args.alternative and program is None:
        raise GracrError("--alternative needs a FILE.gml to be an alternative to")

    def announce(failure: Failure) -> None:
        if not args.quiet:
            # Through tqdm, so that the progress bar is redrawn below the report.
            tqdm.write(describe_failure(failure), file=out)

    report = run_fuzz(config, program, alternatives, args.formulas, progress=not args.quiet,
                      announce=announce)
    what = (f"{len(report.formulas)} formulas" if program is None
            else f"'{report.formulas[0]}'")
    print(f"fuzzed {what}; {len(report.failures)} failures (F1 spread > 0.1)", file=out)
    print(summary_table(report), file=out)
    if args.out:
        write_outputs(report, args.out)
        print(f"results in {args.out}", file=out)
    return 0


def _declare_fuzz(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE.gml",
                        help="the formula to fuzz (default: --formulas random ones)")
    parser.add_argument("--explainers", default="Saliency,Deconv,GuidedBP,IG,LRP,GNNExplainer",
                        help="comma list of explainers, or all (default: the six fast ones)")
    parser.add_argument("--rewrites", default="all",
                        help="comma list of rewrite families: disjunction, comparison, "
                             "negation, association, padding, or all (default)")
    parser.add_argument("--alternative", action="append", default=[], metavar="OTHER.gml",
                        help="an equivalent formula written differently (repeatable); checked "
                             "with ROBDDs on every instance graph")
    parser.add_argument("--limit", type=int, default=10, metavar="N",
                        help="instances per formula (default 10)")
    parser.add_argument("--formulas", type=int, default=100, metavar="K",
                        help="without FILE: how many random formulas (default 100)")
    parser.add_argument("--seed", type=seed_number, default=0, metavar="S",
                        help="seeds formulas, graphs, rewrite positions and explainers "
                             "(default 0)")
    parser.add_argument("--per-family", type=int, default=1, metavar="K",
                        help="draws of each positional rewrite (default 1)")
    parser.add_argument("--shrink", choices=("all", "first", "none"), default="all",
                        help="shrink every failure (default), only the first per formula and "
                             "explainer, or none")
    add_budget_option(parser, default=30.0,
                      help="CPU seconds for one explainer run or one instance's UPI; over it "
                           "the run is recorded as an error, the instance skipped (default 30)")
    add_set_option(parser, "of an explainer run")
    add_plugin_option(parser)
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="write models.csv, summary.csv, summary.md, failures.md and "
                             "failures.jsonl there")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar and no per-failure printout")


COMMANDS = (
    Command("fuzz", "run explainers on logically equivalent rewrites of a formula and report "
                    "the spread of their scores; shrink every failure", _declare_fuzz, cmd_fuzz),
)
