"""`gracrc ablate NAME`: the registry of the paper's ablations, the command's arguments
(added by `gracr.cli` to the one `gracrc` parser) and its dispatch.

Each table or figure is declared in a module of its own (`table8` ... `table11`, `fig3`,
`fig4`); a table runs through `run_table`, a figure through its own `run`.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from gracr.domains.paper.ablations import fig3, fig4, table8, table9, table10, table11
from gracr.domains.paper.ablations.declare import FigureAblation, TableAblation
from gracr.domains.paper.ablations.run_table import run_table_ablation
from gracr.bench.options import (add_budget_option, add_dataset_options, add_engine_options,
                                 add_jobs_option, add_keep_errors_option, add_plugin_option,
                                 add_quiet_option, add_settings_options)
from gracr.errors import GracrError

TABLE_ABLATIONS: dict[str, TableAblation] = {
    module.ABLATION.name: module.ABLATION for module in (table8, table9, table10, table11)}
FIGURE_ABLATIONS: dict[str, FigureAblation] = {
    module.FIGURE.name: module.FIGURE for module in (fig3, fig4)}
ABLATIONS: tuple[str, ...] = (*TABLE_ABLATIONS, *FIGURE_ABLATIONS)


def ablations_listed() -> str:
    """`gracrc ablate --help`'s description: every ablation with its title, one a line."""
    lines = [f"  {a.name:<8} {a.title}" for a in TABLE_ABLATIONS.values()]
    lines += [f"  {a.name:<8} {a.title}" for a in FIGURE_ABLATIONS.values()]
    return "Run one of the paper's ablations and print it beside the paper.\n\n" + "\n".join(lines)


def add_ablate_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `gracrc ablate NAME [flags]`, added to the subparser `gracrc` made
    for the command."""
    parser.add_argument("name", choices=ABLATIONS, metavar="NAME",
                        help="one of " + ", ".join(ABLATIONS))
    parser.add_argument("--seeds", default=None,
                        help="dataset seeds (default 0-4; fig4: 0)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="the first N positive instances per seed (default 100; fig4: "
                             "the first 20 positive graphs)")
    add_budget_option(parser)
    add_jobs_option(parser, help="tables: worker processes")
    parser.add_argument("--explainers", default=None,
                        help="tables: comma list of explainers, or all (default: those the "
                             "paper's table lists)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="results and report folder (required, e.g. out/ablations/NAME); "
                             "reruns resume")
    parser.add_argument("--reuse", action="append", default=[], metavar="DIR",
                        help="tables: copy matching records of DIR/results.jsonl (e.g. the "
                             "official `gracrc bench` run) before running (repeatable)")
    add_dataset_options(parser)
    add_settings_options(parser, "for both arms")
    parser.add_argument("--strengths", default=None, metavar="S1,S2,...",
                        help="fig3: L1 strengths (default 6 log-spaced points, 1e-4 ... 10; the "
                             "paper does not list its grid)")
    parser.add_argument("--max-k", type=int, default=None, metavar="K",
                        help="fig4: recolour at most K nodes per graph (default: all eligible)")
    add_plugin_option(parser)
    add_keep_errors_option(parser)
    add_engine_options(parser)
    parser.add_argument("--strict", action="store_true",
                        help="tables: exit with status 1 when a direction check fails")
    add_quiet_option(parser)


def _fill_defaults(args: argparse.Namespace) -> None:
    figure = FIGURE_ABLATIONS.get(args.name)
    if args.seeds is None:
        args.seeds = figure.default_seeds if figure else "0-4"
    if args.limit is None:
        args.limit = figure.default_limit if figure else 100
    if args.out is None:
        raise GracrError("name the results folder with --out DIR (nothing is written to the "
                         f"working folder unasked), e.g. --out out/ablations/{args.name}")
    if args.limit <= 0:
        raise GracrError(f"--limit must be positive, got {args.limit}")
    if args.budget <= 0:
        raise GracrError(f"--budget must be positive, got {args.budget}")
    if args.address is not None and args.engine != "ray":
        raise GracrError("--address needs --engine ray")
    if figure is not None:
        for flag, value in (("--explainers", args.explainers), ("--reuse", args.reuse or None),
                            ("--jobs", None if args.jobs == 1 else args.jobs),
                            ("--engine", None if args.engine == "process" else args.engine),
                            ("--address", args.address)):
            if value is not None:
                raise GracrError(f"{flag} applies to the table ablations, not to {args.name}")
    if args.name != "fig3" and args.strengths is not None:
        raise GracrError(f"--strengths applies to fig3 only, not to {args.name}")
    if args.name != "fig4" and args.max_k is not None:
        raise GracrError(f"--max-k applies to fig4 only, not to {args.name}")


def ablate_command(args: argparse.Namespace, out: TextIO) -> int:
    """`gracrc ablate NAME`: run the ablation, print it to `out`; bad input raises GracrError."""
    _fill_defaults(args)
    if args.name in TABLE_ABLATIONS:
        return run_table_ablation(TABLE_ABLATIONS[args.name], args, out)
    return FIGURE_ABLATIONS[args.name].run(args, out)
