"""`gracrc`: compile `.gml` classifiers, inspect and run them, compute exact UPI.

Bad input of any kind (syntax, unknown names, type mixes, malformed graph JSON, a
colour outside the palette, a target out of range) is reported as one clear
message naming the place, with exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence, TextIO

import numpy as np
import numpy.typing as npt

from gracr.compiler.compile import compile_program
from gracr.compiler.desugar import uses_comparison
from gracr.compiler.model import CompiledGNN, load
from gracr.dsl.ir import Kind
from gracr.dsl.parse import Program, parse_file
from gracr.errors import GmlError, GracrError
from gracr.runtime.graph import Graph, read_placed_graphs

EXIT_BAD_INPUT = 2


def _add_compile_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("compile options")
    group.add_argument("--disjunction", choices=("demorgan", "flat"), default="demorgan",
                       help="'|', '->', '<->', '[]' via De Morgan (App. C.2, default) "
                            "or the flat n-ary gates of Eq. 7")
    group.add_argument("--comparison", choices=("expanded", "direct"), default="expanded",
                       help="more/same as Eq. 6 bounded by --max-degree (default) "
                            "or the direct aggregation of Eq. 8")
    group.add_argument("--max-degree", type=int, default=None, metavar="N",
                       help="the bound n of Eq. 6 (exact when >= the largest in-degree)")


def _compile(program: Program, args: argparse.Namespace,
             max_degree: int | None = None) -> CompiledGNN:
    return compile_program(program, disjunction=args.disjunction, comparison=args.comparison,
                           max_degree=args.max_degree if max_degree is None else max_degree)


def _needs_degree_bound(program: Program, args: argparse.Namespace) -> bool:
    return (args.comparison == "expanded" and args.max_degree is None
            and uses_comparison(program.classifier))


def _as_bits(values: npt.NDArray[np.bool_] | bool) -> list[int] | int:
    if isinstance(values, (bool, np.bool_)):
        return int(values)
    return [int(v) for v in values]


# ---------------------------------------------------------------- commands


def cmd_compile(args: argparse.Namespace, out: TextIO) -> int:
    program = parse_file(args.file)
    model = _compile(program, args)
    model.save(args.output)
    kind = "node" if model.kind is Kind.NODE else "graph"
    print(f"{args.output}: {kind} classifier, {model.num_layers} layers x {model.width} columns",
          file=out)
    return 0


def _format_weights(label: str, weights: list[tuple[str, float]], bias: float) -> str:
    terms = [f"{w:+g}*{name}" for name, w in weights]
    if bias:
        terms.append(f"{bias:+g}")
    return f"{label} = sigma({' '.join(terms) or '0'})"


def inspect_model(model: CompiledGNN) -> str:
    """Layer by layer: each column's meaning and its non-zero weights."""
    lines = [
        f"formula:  {model.formula}",
        f"kind:     {model.kind.value} classifier",
        f"palette:  {', '.join(model.palette) or '(empty)'}",
        f"options:  disjunction={model.options.disjunction} "
        f"comparison={model.options.comparison} max_degree={model.options.max_degree}",
        f"shape:    {model.num_layers} layers x {model.width} columns "
        f"(readout: {len(model.readout)} dense layers, not counted)",
        "",
        "columns:",
    ]

    def label(i: int) -> str:
        return f"h{i}"

    for i, column in enumerate(model.columns):
        named = f"  [{column.name}]" if column.name else ""
        lines.append(f"  h{i:<4} depth {column.depth:<3} {column.meaning}{named}")
    lines += ["", "input (layer 0):"]
    for i in range(model.width):
        sources = [model.palette[c] for c in np.flatnonzero(model.input_matrix[:, i])]
        if sources:
            lines.append(f"  h{i} = x[{sources[0]}]")
        elif model.input_bias[i]:
            lines.append(f"  h{i} = {model.input_bias[i]:g}")
    for number, layer in enumerate(model.layers, start=1):
        carried = [i for i in range(model.width) if layer.C[i, i] == 1 and
                   model.columns[i].depth < number]
        lines += ["", f"layer {number}:"]
        if carried:
            lines.append(f"  carry forward (C_ii = 1): {_ranges(carried)}")
        for i, column in enumerate(model.columns):
            if column.depth != number:
                continue
            weights = [(label(int(k)), float(layer.C[k, i]))
                       for k in np.flatnonzero(layer.C[:, i])]
            weights += [(f"sum_in({label(int(k))})", float(layer.A[k, i]))
                        for k in np.flatnonzero(layer.A[:, i])]
            lines.append(f"  {_format_weights(label(i), weights, float(layer.b[i]))}"
                         f"    # {column.meaning}")
    for number, dense in enumerate(model.readout, start=1):
        lines += ["", f"readout {number}:"]
        for i, column in enumerate(model.readout_columns):
            if column.depth != number - 1:
                continue
            source = "sum_nodes(h{})" if number == 1 else "r{}"
            weights = [(source.format(k), float(dense.W[k, i])) for k in np.flatnonzero(dense.W[:, i])]
            lines.append(f"  {_format_weights(f'r{i}', weights, float(dense.b[i]))}"
                         f"    # {column.meaning}")
    output = f"r{model.output_column}" if model.kind is Kind.GRAPH else f"h{model.output_column}"
    lines += ["", f"output: {output}"]
    return "\n".join(lines)


def _ranges(indices: list[int]) -> str:
    parts: list[str] = []
    start = previous = indices[0]
    for i in indices[1:] + [-2]:
        if i != previous + 1:
            parts.append(f"h{start}" if start == previous else f"h{start}-h{previous}")
            start = i
        previous = i
    return ", ".join(parts)


def cmd_inspect(args: argparse.Namespace, out: TextIO) -> int:
    if args.file.endswith(".gml"):
        model = _compile(parse_file(args.file), args)
    else:
        model = load(args.file)
    print(inspect_model(model), file=out)
    return 0


def _graphs_for(program: Program, path: str) -> list[Graph]:
    """Every graph of `path`, checked against the palette before any work starts."""
    graphs: list[Graph] = []
    for place, graph in read_placed_graphs(path):
        graph.check_palette(program.palette, where=place)
        graphs.append(graph)
    return graphs


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    program = parse_file(args.file)
    graphs = _graphs_for(program, args.graphs)
    fixed = None if _needs_degree_bound(program, args) else _compile(program, args)
    models: dict[int, CompiledGNN] = {}
    for graph in graphs:
        model = fixed
        if model is None:
            # Eq. 6 is exact once its bound reaches the largest in-degree: use that.
            bound = int(graph.in_degrees().max(initial=0))
            model = models.get(bound) or models.setdefault(bound, _compile(program, args, bound))
        record = {"formula": _as_bits(program.evaluate(graph)),
                  "gnn": _as_bits(model.predict(graph))}
        print(json.dumps(record), file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gracrc",
        description="Compile graded modal logic (.gml) into GNN weights and compute exact "
                    "ground-truth explanations.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    compile_cmd = commands.add_parser("compile", help="compile FILE.gml into a model file")
    compile_cmd.add_argument("file", metavar="FILE.gml")
    compile_cmd.add_argument("-o", "--output", required=True, metavar="OUT",
                             help="model file to write (.npz: weights + JSON metadata)")
    _add_compile_options(compile_cmd)
    compile_cmd.set_defaults(run=cmd_compile)

    inspect_cmd = commands.add_parser(
        "inspect", help="print a compiled model layer by layer (from FILE.gml or a model file)")
    inspect_cmd.add_argument("file", metavar="FILE.gml|MODEL")
    _add_compile_options(inspect_cmd)
    inspect_cmd.set_defaults(run=cmd_inspect)

    eval_cmd = commands.add_parser(
        "eval", help="evaluate the formula and the compiled GNN on graphs (one JSON line each)")
    eval_cmd.add_argument("file", metavar="FILE.gml")
    eval_cmd.add_argument("graphs", metavar="GRAPHS",
                          help="JSON file: one graph object, a list of them, or JSON Lines")
    _add_compile_options(eval_cmd)
    eval_cmd.set_defaults(run=cmd_eval)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        code: int = args.run(args, out)
        return code
    except GmlError as error:
        print(error, file=err)
        return EXIT_BAD_INPUT
    except GracrError as error:
        print(f"gracrc: error: {error}", file=err)
        return EXIT_BAD_INPUT
    except FileNotFoundError as error:
        print(f"gracrc: error: {error.filename}: no such file", file=err)
        return EXIT_BAD_INPUT
    except IsADirectoryError as error:
        print(f"gracrc: error: {error.filename}: is a directory", file=err)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError:
        print(f"gracrc: error: {getattr(args, 'file', '?')}: not a UTF-8 text file", file=err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
