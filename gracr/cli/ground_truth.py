"""The ground-truth commands: `upi` (the exact UPI of each graph's prediction) and
`relevance` (counterfactual set, Banzhaf and Shapley values), with relevance's table."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, TextIO

import numpy as np
import numpy.typing as npt

from gracr.cli.command import Command
from gracr.cli.options import (add_bdd_budget_option, add_formula_argument, add_graph_inputs,
                               inputs_for, read_program_or_model)
from gracr.bench.options import (non_negative_integer, positive_integer, positive_number,
                                 seed_number)
from gracr.errors import GracrError
from gracr.limits import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from gracr.bdd.relevance import Relevance


def cmd_upi(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bdd.upi import upi_json

    program, _ = read_program_or_model(args.file, DEFAULT_MAX_BYTES)
    for place, graph, keys in inputs_for(program, args):
        try:
            record = {**keys, **upi_json(program, graph, args.node, args.over,
                                         backend=args.backend, order=args.order,
                                         max_nodes=args.max_bdd_nodes,
                                         max_counter_steps=args.max_counter_steps)}
        except GracrError as error:
            raise GracrError(f"{place}: {error}") from None
        print(json.dumps(record), file=out)
    return 0



def cmd_relevance(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bdd.relevance import relevance, relevance_record

    program, _ = read_program_or_model(args.file, DEFAULT_MAX_BYTES)
    for place, graph, keys in inputs_for(program, args):
        try:
            report = relevance(program, graph, args.node, backend=args.backend,
                               max_exact=args.max_exact, permutations=args.permutations,
                               seed=args.seed, max_nodes=args.max_bdd_nodes,
                               max_counter_steps=args.max_counter_steps,
                               max_players=args.max_players, max_stderr=args.max_stderr)
        except GracrError as error:
            raise GracrError(f"{place}: {error}") from None
        if args.json:
            print(json.dumps({**keys, **relevance_record(report)}), file=out)
        else:
            print(_relevance_table(place, report, args.all), file=out)
    return 0


def _relevance_table(place: str, report: "Relevance", every_node: bool) -> str:
    """The per-node table of `gracrc relevance`, with how each column was computed."""
    if report.shapley_method == "exact":
        how = (f"exact (Arenas et al. 2021 on the ROBDD, support of {report.support_size} "
               "nodes)")
    else:
        over = ("over --max-exact" if report.diagram == "built"
                else "no diagram: each game value updated around the player it adds")
        how = (f"Monte Carlo, {report.permutations} permutations, seed {report.seed} "
               f"({report.support_size} players, {over}; rounds until every standard "
               f"error is at most --max-stderr): value ± standard error")
    counterfactual = report.counterfactual
    if counterfactual is None:
        lines = [f"{place}: label {report.label}; no ROBDD ({report.reason})",
                 "  counterfactual: not computed (it needs the diagram)",
                 f"  Banzhaf: Monte Carlo, {report.permutations} uniform subsets of the "
                 f"players (prefixes of the same permutations), seed {report.seed}: "
                 "value ± standard error"]
    else:
        smallest = ("none (no removal flips it)" if report.min_counterfactual is None
                    else f"{report.min_counterfactual} node(s)")
        lines = [f"{place}: label {report.label}; smallest counterfactual: {smallest}",
                 "  counterfactual: the union of the minimal node sets whose removal flips "
                 "the label (exact, ROBDD)",
                 "  Banzhaf: exact, by weighted model counting on the ROBDD"]
    lines += [f"  Shapley: {how}", "",
              "| node | counterfactual | Banzhaf | Shapley |", "|---:|:---:|---:|---:|"]
    shown = 0
    for v in range(len(report.shapley)):
        member = "n/a" if counterfactual is None else ("yes" if counterfactual[v] else "")
        quiet = member in ("", "n/a") and report.banzhaf[v] == 0 and report.shapley[v] == 0
        if quiet and not every_node:
            continue
        shown += 1
        lines.append(f"| {v} | {member} | {_with_error(report.banzhaf[v], report.banzhaf_stderr, v)} | "
                     f"{_with_error(report.shapley[v], report.shapley_stderr, v)} |")
    if shown < len(report.shapley):
        lines.append(f"\n{len(report.shapley) - shown} other node(s): Banzhaf 0, Shapley 0"
                     + ("" if counterfactual is None else ", not in the counterfactual set")
                     + " (--all lists them)")
    return "\n".join(lines) + "\n"


def _with_error(value: float, errors: "npt.NDArray[np.float64] | None", v: int) -> str:
    return f"{value:.6g}" + ("" if errors is None else f" ± {errors[v]:.2g}")


def _declare_upi(parser: argparse.ArgumentParser) -> None:
    add_formula_argument(parser, model=True)
    add_graph_inputs(parser)
    _add_node_option(parser, "")
    parser.add_argument("--backend", choices=("cudd", "autoref"), default="cudd",
                        help="ROBDD engine (default cudd, static variable order)")
    parser.add_argument("--over", choices=("edges", "nodes", "both"), default="edges",
                        help="what a subgraph removes: edges (default; prints 'mask'), nodes "
                             "with their edges ('node_mask'; a node classifier's target stays) "
                             "or both (both masks)")
    parser.add_argument("--order", choices=("edges", "computation"), default="computation",
                        help="ROBDD variable order: the formula's computation (default; small "
                             "diagrams around hubs) or the edge list (the paper's, §4.3); the "
                             "mask is the same")
    add_bdd_budget_option(parser, counter=True)


def _declare_relevance(parser: argparse.ArgumentParser) -> None:
    add_formula_argument(parser, model=True)
    add_graph_inputs(parser)
    _add_node_option(parser, "; it is never removed")
    parser.add_argument("--backend", choices=("cudd", "autoref"), default="cudd",
                        help="ROBDD engine (default cudd)")
    parser.add_argument("--max-exact", type=non_negative_integer, default=200, metavar="N",
                        help="exact Shapley values up to a support of N nodes, "
                             "Monte Carlo beyond (default 200, at most 1000)")
    parser.add_argument("--permutations", type=positive_integer, default=2000, metavar="N",
                        help="Monte Carlo: sampled permutations per round (default 2000)")
    parser.add_argument("--max-players", type=non_negative_integer, default=200, metavar="N",
                        help="build the exact diagram only up to N players (nodes the label "
                             "can depend on; default 200), else sample")
    parser.add_argument("--max-stderr", type=positive_number, default=0.01, metavar="E",
                        help="without a diagram: sample rounds until every standard error "
                             "is at most E (default 0.01; at most 50 000 permutations)")
    parser.add_argument("--seed", type=seed_number, default=0, help="Monte Carlo seed")
    parser.add_argument("--json", action="store_true",
                        help="one JSON line per graph instead of the table")
    parser.add_argument("--all", action="store_true",
                        help="list every node, also those with no relevance")
    add_bdd_budget_option(parser, counter=True)


def _add_node_option(parser: argparse.ArgumentParser, more: str) -> None:
    parser.add_argument("--node", type=int, default=None, metavar="V",
                        help="node classifiers: the node to explain (default: each graph's "
                             f"'target'){more}")


COMMANDS = (
    Command("upi", "the exact UPI of each graph's prediction (one JSON line each)",
            _declare_upi, cmd_upi),
    Command("relevance", "signed, exact node-level ground truth of each graph's label: "
                         "counterfactual set, Banzhaf and Shapley values (ROBDD)",
            _declare_relevance, cmd_relevance),
)
