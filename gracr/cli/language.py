"""The language's commands: `compile`, `inspect`, `eval` and `smarts` (a SMARTS written
as a `.gml` program)."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

import numpy as np
import numpy.typing as npt

from gracr.cli.command import Command
from gracr.cli.model_text import inspect_model
from gracr.cli.options import (add_compile_options, add_formula_argument, add_graph_inputs,
                               add_max_weights_option, add_screen_options, bundled_formula,
                               compile_for,
                               inputs_for, needs_degree_bound, read_program,
                               read_program_or_model)
from gracr.data.graph import Graph
from gracr.dsl.evaluate import evaluate_program
from gracr.dsl.ir import Kind
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN, compile_program, load
from gracr.files import write_text


def _as_bits(values: npt.NDArray[np.bool_] | bool) -> list[int] | int:
    if isinstance(values, (bool, np.bool_)):
        return int(values)
    return [int(v) for v in values]


def cmd_compile(args: argparse.Namespace, out: TextIO) -> int:
    program = read_program(args.file)
    model = compile_for(program, args)
    model.save(args.output)
    kind = "node" if model.kind is Kind.NODE else "graph"
    print(f"{args.output}: {kind} classifier, {model.num_layers} layers x {model.width} columns",
          file=out)
    return 0


def cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    if args.file.endswith(".gml") or bundled_formula(args.file) is not None:
        model = compile_for(read_program(args.file), args)
    else:
        model = load(args.file, args.max_weights_bytes)
    print(inspect_model(model), file=out)
    return 0


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    if args.molecules is not None and args.graphs is None:
        from gracr.cli.chem import eval_molecules

        return eval_molecules(args, out)
    if args.file is None or args.patterns:
        raise GracrError("eval: give FILE.gml|MODEL; --patterns screens molecules "
                         "(with --molecules FILE)")
    program, given = read_program_or_model(args.file, args.max_weights_bytes)
    graphs = inputs_for(program, args)
    # A model file is run as compiled; a formula is compiled with the options given.
    if given is not None:
        fixed: CompiledGNN | None = given
        delta = given.options.delta
    else:
        fixed = None if needs_degree_bound(program, args) else compile_for(program, args)
        delta = args.delta
    models: dict[int, CompiledGNN] = {}
    for place, graph, keys in graphs:
        try:
            model = fixed
            if model is None:
                # Eq. 6 is exact once its bound reaches the largest in-degree: use that.
                bound = graph.max_in_degree()
                model = models.get(bound) or models.setdefault(bound,
                                                                compile_for(program, args, bound))
            record = {**keys,
                      "formula": _as_bits(evaluate_program(program, graph,
                                                           max_bytes=args.max_weights_bytes)),
                      "gnn": _as_bits(model.predict(graph, args.max_weights_bytes))}
        except GracrError as error:
            raise GracrError(f"{place}: {error}") from None
        if program.features:
            _report_margin(program, graph, place, delta, args.err)
        print(json.dumps(record), file=out)
    return 0


def _report_margin(program: Program, graph: Graph, place: str, delta: float,
                   err: TextIO) -> None:
    """Name on stderr the nodes whose features lie inside a threshold atom's margin: there
    the compiled network may disagree with the formula (`gracr.dsl.evaluate.margin_nodes`)."""
    from gracr.dsl.evaluate import margin_nodes

    inside = np.flatnonzero(margin_nodes(program, graph, delta))
    if inside.size:
        shown = ", ".join(map(str, inside[:10])) + (", ..." if inside.size > 10 else "")
        print(f"gracrc: {place}: {inside.size} node(s) inside the margin of a threshold atom "
              f"(--delta {delta:g}) or within float32 rounding of it, where the network "
              f"may differ from the formula: "
              f"{shown}", file=err)

def cmd_smarts(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.chem.smarts import SmartsError
    from gracr.domains.chem.translate import translate_smarts

    translation = translate_smarts(args.smarts, root=args.root, node=args.node)
    # What is written must compile too: a program within the nesting limit can still
    # need more weights than the budget (six branches over four bond types do).
    try:
        compile_program(translation.program, max_weights_bytes=args.max_weights_bytes)
    except GracrError as error:
        raise SmartsError(args.smarts, 0, len(args.smarts),
                          f"the translation does not compile: {error}") from None
    text = translation.text
    if args.output is None:
        print(text, end="", file=out)
        return 0
    write_text(args.output, text)
    print(f"{args.output}: {args.smarts}", file=out)
    return 0


def _declare_compile(parser: argparse.ArgumentParser) -> None:
    add_formula_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="model file to write (.npz: weights + JSON metadata)")
    add_compile_options(parser)


def _declare_inspect(parser: argparse.ArgumentParser) -> None:
    add_formula_argument(parser, model=True)
    add_compile_options(parser)


def _declare_eval(parser: argparse.ArgumentParser) -> None:
    add_formula_argument(parser, model=True, optional=True)
    add_graph_inputs(parser)
    add_screen_options(parser)
    add_compile_options(parser)


def _declare_smarts(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("smarts", metavar="SMARTS")
    parser.add_argument("-o", "--output", default=None, metavar="FILE.gml",
                        help="write the program there (default: print it)")
    parser.add_argument("--root", type=int, default=None, metavar="I",
                        help="root the SMARTS tree at atom I (default: a centre, the "
                             "lowest-index atom of minimum eccentricity)")
    parser.add_argument("--node", action="store_true",
                        help="classify atoms (is this atom the root of a match) instead "
                             "of molecules (exists such an atom)")
    add_max_weights_option(parser, "refuse a translation whose compiled model would need "
                                   "more dense weights")


COMMANDS = (
    Command("compile", "compile FILE.gml into a model file", _declare_compile, cmd_compile),
    Command("inspect", "print a compiled model layer by layer (from FILE.gml or a model file)",
            _declare_inspect, cmd_inspect),
    Command("eval", "evaluate the formula and the compiled GNN on graphs (one JSON line each)",
            _declare_eval, cmd_eval),
    Command("smarts", "translate an acyclic SMARTS into a .gml classifier over molecules (the "
                      "relaxed semantics of the documentation's Molecules page)",
            _declare_smarts, cmd_smarts),
)
