"""The molecule domain's commands: `chem-check` (a compiled SMARTS program against RDKit
and the relaxed reference) and `wombat-study` (WOMBAT's explainer study, resumable)."""

from __future__ import annotations

import argparse
from typing import TextIO

from gracr.cli.command import Command
from gracr.cli.options import add_compile_options, add_molecules_option, compile_for, read_program
from gracr.bench.options import (add_budget_option, add_engine_options, add_jobs_option,
                                 non_negative_integer, parse_explainers, parse_seeds)
from gracr.dsl.ir import Kind
from gracr.errors import GracrError


EXIT_UNEXPLAINED = 1


def cmd_chem_check(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.chem.check import check_file, tally, total_summary
    from gracr.domains.chem.reference import RelaxedQuery
    from gracr.domains.chem.smarts import SmartsError, parse_smarts
    from gracr.domains.chem.translate import translate_smarts

    program = read_program(args.file)
    if program.kind is not Kind.GRAPH:
        raise GracrError(f"{args.file}: chem-check needs a graph sentence (`classify exists "
                         f"...`, what `gracrc smarts` writes without --node)")
    tree = parse_smarts(args.smarts)   # refuses what the reference could not root either
    root = tree.centre() if args.root is None else args.root
    if not 0 <= root < len(tree.atoms):
        raise GracrError(f"--root {root} is not an atom of the SMARTS "
                         f"(atoms 0..{len(tree.atoms) - 1})")
    query = RelaxedQuery.from_smarts(args.smarts, root)
    # A difference between the model and the reference is gracr's only when the program
    # is the SMARTS's translation; otherwise it is the user's formula against the SMARTS.
    try:
        translation = translate_smarts(args.smarts, root).program
        translated = (translation.classifier == program.classifier
                      and translation.schema == program.schema)
    except SmartsError:   # a SMARTS `gracrc smarts` refuses has no translation
        translated = False
    model = compile_for(program, args)
    checks = []
    for path in args.molecules:
        check = check_file(model, query, path, program.schema, args.file, translated)
        checks.append(check)
        for record in check.skipped:
            print(f"gracrc: {record}", file=args.err)
        print(check.listing(args.show), file=out)
    total = tally([v for check in checks for v in check.verdicts])
    if len(checks) > 1:
        print(total_summary(total), file=out)
    if total["mismatch"]:
        print(f"gracrc: {args.file} is not the translation of the SMARTS {args.smarts!r} "
              f"(rooted at atom {root}): where its model and the relaxed reference differ "
              f"('mismatch'), the SMARTS and the formula disagree, which is no fault of "
              f"gracr; `gracrc smarts` writes the translation", file=args.err)
    return EXIT_UNEXPLAINED if total["unexplained"] or total["mismatch"] else 0


def cmd_wombat_study(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bench.study import Execution
    from gracr.domains.chem.study import WombatSettings, WombatStudy

    if args.jobs < 1:
        raise GracrError(f"--jobs must be positive, got {args.jobs}")
    if args.address is not None and args.engine != "ray":
        raise GracrError("--address needs --engine ray")
    defaults = WombatSettings()
    settings = WombatSettings(
        wombat=args.wombat, patterns=tuple(parse_seeds(args.patterns)),
        explainers=(defaults.explainers if args.explainers is None
                    else tuple(parse_explainers(args.explainers))),
        positives=args.positives, negatives=args.negatives,
        slow_positives=args.slow_positives, slow_negatives=args.slow_negatives,
        slow_variants=tuple(v for v in args.slow_variants.split(",") if v),
        budget=args.budget, datasets=args.datasets)
    study = WombatStudy(args.out, settings, Execution(
        workers=args.jobs, engine=args.engine, address=args.address,
        ray_timeout=args.ray_timeout), markdown=args.markdown)
    if args.tables_only:
        study.report(lambda text: print(text, file=out))
    else:
        study.run()
    return 0


def _declare_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.gml",
                        help="a graph sentence over the molecule schema")
    parser.add_argument("--smarts", required=True, metavar="SMARTS",
                        help="the SMARTS FILE.gml was translated from")
    add_molecules_option(parser, several=True)
    parser.add_argument("--root", type=int, default=None, metavar="I",
                        help="the root FILE.gml was translated with (default: the centre, "
                             "as `gracrc smarts`)")
    parser.add_argument("--show", type=int, default=20, metavar="N",
                        help="list at most N disagreeing molecules per file (-1: all; "
                             "default 20)")
    add_compile_options(parser)


def _declare_wombat(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wombat", default="out/wombat", metavar="DIR",
                        help="where scripts/wombat_datasets.py wrote Pnn/Pnn.toml "
                             "(default out/wombat)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the study's folder (results, datasets); a rerun, or a "
                             "run of other patterns, explainers or limits, adds what "
                             "is missing")
    parser.add_argument("--patterns", default="1-14", metavar="N-M,...",
                        help="pattern numbers (default 1-14)")
    parser.add_argument("--explainers", default=None, metavar="NAMES",
                        help="default: WOMBAT's seven and Rnd")
    parser.add_argument("--positives", type=non_negative_integer, default=100,
                        metavar="N", help="positive molecules per pattern (default 100)")
    parser.add_argument("--negatives", type=non_negative_integer, default=100,
                        metavar="N", help="negative molecules per pattern (default 100)")
    parser.add_argument("--slow-positives", type=non_negative_integer, default=20,
                        metavar="N", help="the same for ShapleySampling and SubgraphX "
                                          "(default 20)")
    parser.add_argument("--slow-negatives", type=non_negative_integer, default=20,
                        metavar="N", help="the same for ShapleySampling (default 20; "
                                          "SubgraphX explains no negatives)")
    parser.add_argument("--slow-variants", default="max,soft-or", metavar="V,...",
                        help="the variants the slow explainers run (default WOMBAT's "
                             "two)")
    add_budget_option(parser)
    add_jobs_option(parser, default=2)
    add_engine_options(parser)
    parser.add_argument("--datasets", default=None, metavar="DIR",
                        help="the dataset store (default: DIR/datasets of --out)")
    parser.add_argument("--tables-only", action="store_true",
                        help="draw the tables from --out without explaining anything")
    parser.add_argument("--markdown", default=None, metavar="FILE",
                        help="write the tables to FILE as well")


COMMANDS = (
    Command("chem-check", "compare a compiled SMARTS program with RDKit's HasSubstructMatch "
                          "and the relaxed reference, molecule by molecule (exit 1 if a "
                          "disagreement is not the relaxation's)",
            _declare_check, cmd_chem_check),
    Command("wombat-study", "WOMBAT's explainer study on the compiled patterns (Table 2, S7, "
                            "S8 of the WOMBAT paper), beside its numbers (resumable)",
            _declare_wombat, cmd_wombat_study),
)
