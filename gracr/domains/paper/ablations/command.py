"""`gracrc ablate NAME`: the registry of the paper's ablations, the command's flags and its
dispatch.

Each table or figure is declared in a module of its own (`table8` ... `table11`, `fig3`,
`fig4`); a table runs through `run_table`, a figure through its own `run`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from gracr.domains.paper.ablations import fig3, fig4, table8, table9, table10, table11
from gracr.domains.paper.ablations.declare import FigureAblation, TableAblation
from gracr.domains.paper.ablations.run_table import run_table_ablation
from gracr.bench.options import (DATASETS_HELP, add_budget_option, add_engine_options,
                                 add_keep_errors_option, add_plugin_option)
from gracr.errors import GracrError

TABLE_ABLATIONS: dict[str, TableAblation] = {
    module.ABLATION.name: module.ABLATION for module in (table8, table9, table10, table11)}
FIGURE_ABLATIONS: dict[str, FigureAblation] = {
    module.FIGURE.name: module.FIGURE for module in (fig3, fig4)}
ABLATIONS: tuple[str, ...] = (*TABLE_ABLATIONS, *FIGURE_ABLATIONS)


def add_ablate_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add `gracrc ablate NAME [flags]` to a `gracrc` subparsers object."""
    lines = [f"  {a.name:<8} {a.title}" for a in TABLE_ABLATIONS.values()]
    lines += [f"  {a.name:<8} {a.title}" for a in FIGURE_ABLATIONS.values()]
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "ablate", help="run one of the paper's ablations (Tables 8-11, Fig. 3, Fig. 4) and "
                       "print it beside the paper (resumable)",
        description="Run one of the paper's ablations and print it beside the paper.\n\n"
                    + "\n".join(lines),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", choices=ABLATIONS, metavar="NAME",
                        help="one of " + ", ".join(ABLATIONS))
    parser.add_argument("--seeds", default=None,
                        help="dataset seeds (default 0-4; fig4: 0)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="the first N positive instances per seed (default 100; fig4: "
                             "the first 20 positive graphs)")
    add_budget_option(parser)
    parser.add_argument("--jobs", type=int, default=1, metavar="K",
                        help="tables: worker processes (default 1)")
    parser.add_argument("--explainers", default=None,
                        help="tables: comma list of explainers, or all (default: those the "
                             "paper's table lists)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="results and report folder (required, e.g. out/ablations/NAME); "
                             "reruns resume")
    parser.add_argument("--reuse", action="append", default=[], metavar="DIR",
                        help="tables: copy matching records of DIR/results.jsonl (e.g. the "
                             "official `gracrc bench` run) before running (repeatable)")
    parser.add_argument("--datasets", default=None, metavar="DIR", help=DATASETS_HELP)
    parser.add_argument("--graphs", type=int, default=None, metavar="N",
                        help="graph tasks: dataset size (default 1000)")
    parser.add_argument("--targets", type=int, default=None, metavar="N",
                        help="node tasks: dataset size in positive targets (default 500)")
    parser.add_argument("--settings", choices=("tuned", "default"), default="tuned",
                        help="explainer settings: tuned where stored (default) or defaults")
    parser.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                        help="override one setting for both arms (repeatable)")
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
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    # `gracrc`'s main calls `run(args, out)` and turns a GracrError into its one-line message.
    parser.set_defaults(run=ablate_command)
    return parser


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


def run_ablation(args: argparse.Namespace, out: TextIO | None = None,
                 err: TextIO | None = None) -> int:
    """`ablate_command` on its own: a `GracrError` becomes one `gracrc: error:` line on `err`
    and exit status 2 (the CLI's convention), never a traceback."""
    try:
        return ablate_command(args, sys.stdout if out is None else out)
    except GracrError as error:
        print(f"gracrc: error: {error}", file=sys.stderr if err is None else err)
        return 2
