"""The options several `gracrc` commands share, each declared once here (the compile
options, `--max-weights-bytes`, the diagram budgets, GRAPHS or `--molecules`), and what the
commands that read a `.gml` do with them: read it, compile it, read its graphs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from gracr.compiler.desugar import uses_comparison
from gracr.data.graph import Graph, read_placed_graphs
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN, compile_program, load
from gracr.limits import DEFAULT_MAX_BYTES, format_bytes, parse_bytes
from gracr.bench.options import (add_jobs_option, add_quiet_option, positive_integer,
                                 positive_number)


def add_compile_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("compile options")
    group.add_argument("--disjunction", choices=("demorgan", "flat"), default="demorgan",
                       help="'|', '->', '<->', '[]' via De Morgan (App. C.2, default) "
                            "or the flat n-ary gates of Eq. 7")
    group.add_argument("--comparison", choices=("expanded", "direct"), default="expanded",
                       help="more/same as Eq. 6 bounded by --max-degree (default) "
                            "or the direct aggregation of Eq. 8")
    group.add_argument("--max-degree", type=int, default=None, metavar="N",
                       help="the bound n of Eq. 6 (exact when >= the largest in-degree)")
    group.add_argument("--delta", type=positive_number, default=1e-3, metavar="D",
                       help="the margin of threshold atoms over numeric features: "
                            "'a.x > b' compiles to sigma((a.x - b)/D), exact on every node "
                            "whose a.x is outside (b, b + D) (default 0.001)")
    group.add_argument("--presence", action="store_true",
                       help="add the presence bit: a node whose features are zeroed then "
                            "behaves as a deleted node (costs a layer per modal level)")
    group.add_argument("--readout", choices=("threshold", "max", "soft-or"),
                       default="threshold",
                       help="graph classifiers: pool the nodes by the sum and thresholds "
                            "(default), the maximum (WOMBAT's Eq. 3) or the soft OR "
                            "1 - prod(1 - h) (Eq. 4); the last two for sentences of "
                            "'exists f'")
    add_max_weights_option(group, "refuse, before allocating, a model whose dense weights or "
                                  "a graph whose features and hidden states would exceed SIZE, "
                                  "e.g. 8GiB")


def add_max_weights_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                           help: str) -> None:
    """`--max-weights-bytes SIZE`: the memory a compiled model may take; `help` says what
    is refused over it."""
    parser.add_argument("--max-weights-bytes", type=byte_count, default=DEFAULT_MAX_BYTES,
                        metavar="SIZE", help=f"{help} (default {format_bytes(DEFAULT_MAX_BYTES)})")


def byte_count(text: str) -> int:
    try:
        return parse_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_bdd_budget_option(parser: argparse.ArgumentParser, counter: bool = False) -> None:
    """`--max-bdd-nodes`, and with `counter` `--max-counter-steps` (the commands that
    build one instance's diagram directly)."""
    from gracr.bdd.backend import MAX_BDD_NODES
    from gracr.bdd.build import MAX_COUNTER_STEPS

    parser.add_argument("--max-bdd-nodes", type=positive_integer, default=MAX_BDD_NODES,
                        metavar="N",
                        help=f"stop an instance whose ROBDD outgrows N nodes (default "
                             f"{MAX_BDD_NODES:.0e}, a few GB)")
    if not counter:
        return
    parser.add_argument("--max-counter-steps", type=positive_integer, default=MAX_COUNTER_STEPS,
                        metavar="N",
                        help=f"stop an instance whose linear count's counter takes more than "
                             f"N steps (default {MAX_COUNTER_STEPS:,}; relevance then samples "
                             f"the values)")


def add_formula_argument(parser: argparse.ArgumentParser, model: bool = False,
                         optional: bool = False) -> None:
    """FILE.gml: the formula a command reads (`read_program`), a file or a bundled name;
    with `model`, a model file (`gracrc compile`'s) too (`read_program_or_model`); with
    `optional`, it may be left out (`eval --molecules --patterns`)."""
    parser.add_argument("file", metavar="FILE.gml|MODEL" if model else "FILE.gml",
                        nargs="?" if optional else None,
                        help="a .gml file, or the name of a formula bundled with gracr "
                             "(a task's: Redundancy, Majority1Hop, ...; RedBlueLeaf-or)"
                             + ("; or a model file (.npz, from `gracrc compile`)" if model
                                else ""))


def read_program(path: str) -> Program:
    """The `.gml` file at `path`, its errors naming it as the user typed it; or, when no
    such file exists, the formula bundled with gracr under that name (`Majority1Hop`)."""
    if is_model_file(path):
        raise GracrError(f"{path}: a model file (compiled); this command reads the formula: "
                         "give its .gml file")
    bundled = bundled_formula(path)
    if bundled is not None:
        return parse(bundled, filename=f"gracr/formulas/{bundled.name}")
    if _could_be_a_name(path) and not os.path.lexists(path):
        from gracr.bench.tasks import formulas_folder

        names = sorted(formula.stem for formula in formulas_folder().glob("*.gml"))
        raise GracrError(f"{path}: no such file, nor a formula of gracr's "
                         f"({', '.join(names)})")
    return parse(Path(path), filename=path)


def read_program_or_model(path: str, max_bytes: int) -> tuple[Program, CompiledGNN | None]:
    """A formula (`read_program`), or a model file and the program it was compiled from
    (read back from the declarations and the formula it records)."""
    if not is_model_file(path):
        return read_program(path), None
    model = load(path, max_bytes)
    text = model.schema.declarations() + f"classify {model.formula}\n"
    try:
        return parse(text, filename=f"{path}'s formula"), model
    except GracrError as error:
        # A randomised control's or a cut-short formula (over 100 000 characters).
        raise GracrError(f"{path}: the formula this model records cannot be read back, so "
                         f"the model has no formula to evaluate: {error}") from None


# The first bytes of a model file: a NumPy .npz archive is a ZIP file.
_MODEL_MAGIC = b"PK\x03\x04"


def is_model_file(path: str) -> bool:
    """Whether `path` is a model file (`gracrc compile`'s .npz), by its first bytes."""
    if not os.path.isfile(path):   # a FIFO would block; what reading it says is said there
        return False
    try:
        with open(path, "rb") as file:
            return file.read(len(_MODEL_MAGIC)) == _MODEL_MAGIC
    except OSError:   # unreadable: what reading it says is said there
        return False


def bundled_formula(name: str) -> Path | None:
    """The package's formula named `name` (a task's or variant's: `Redundancy`,
    `RedBlueLeaf-or`), as tasks are named, when no file `name` exists: the documented
    commands work from an installed wheel too."""
    if os.path.lexists(name) or not _could_be_a_name(name):
        return None
    from gracr.bench.tasks import formulas_folder

    path = formulas_folder() / f"{name}.gml"
    return path if path.is_file() else None


def _could_be_a_name(text: str) -> bool:
    return not ("/" in text or "\\" in text or text.endswith(".gml"))


def compile_for(program: Program, args: argparse.Namespace,
                max_degree: int | None = None) -> CompiledGNN:
    """`program` compiled with the compile options in `args` (`max_degree` instead of
    `--max-degree` when given)."""
    return compile_program(program, disjunction=args.disjunction, comparison=args.comparison,
                           max_degree=args.max_degree if max_degree is None else max_degree,
                           presence=args.presence, max_weights_bytes=args.max_weights_bytes,
                           readout=args.readout, delta=args.delta)


def needs_degree_bound(program: Program, args: argparse.Namespace) -> bool:
    return (args.comparison == "expanded" and args.max_degree is None
            and uses_comparison(program.classifier))


def add_graph_inputs(parser: argparse.ArgumentParser) -> None:
    """GRAPHS, or `--molecules` instead: what `eval`, `upi` and `relevance` read."""
    parser.add_argument("graphs", metavar="GRAPHS", nargs="?", default=None,
                        help="JSON file: one graph object, a list of them, or JSON Lines")
    add_molecules_option(parser, several=False)


def add_molecules_option(parser: argparse.ArgumentParser, several: bool) -> None:
    """`--molecules FILE`: molecules read with RDKit (gracr[chem]); with `several`, one or
    more files, required (`chem-check`), else one file instead of GRAPHS."""
    formats = "SMILES (.smi), SDF (.sdf) or CSV/TSV with a SMILES column, optionally .gz"
    if several:
        parser.add_argument("--molecules", required=True, nargs="+", metavar="FILE",
                            help=f"molecule files: {formats}")
        return
    parser.add_argument("--molecules", default=None, metavar="FILE",
                        help=f"read molecules instead of GRAPHS: {formats} (needs "
                             "gracr[chem]); records RDKit cannot read are reported on stderr "
                             "and skipped")


def add_screen_options(parser: argparse.ArgumentParser, formula: bool = True) -> None:
    """How molecules are screened (`gracr.domains.chem.stream`): `--patterns`, `--jobs`,
    `--executor`, `--quiet`, and with `formula` `--formula-rate`."""
    group = parser.add_argument_group("molecule screening (with --molecules)")
    group.add_argument("--patterns", nargs="+", default=[], metavar="DIR|FILE",
                       help="more programs to run on the molecules at once: .gml files, or "
                            "folders of them; one column each in the output")
    add_jobs_option(group, help="worker processes, each screening chunks of molecules")
    group.add_argument("--executor", choices=("fused", "numpy"), default="fused",
                       help="the network's executor: the patterns' fused plan on the numba "
                            "kernel (default; float64, only the non-zero weights) or the "
                            "float64 numpy reference, one pattern at a time")
    if formula:
        group.add_argument("--formula-rate", type=_rate, default=1.0, metavar="R",
                           help="evaluate the formula (the reference semantics, vectorised "
                                "over each chunk) on an evenly spread share R of the "
                                "molecules (default 1: all; 0: the network only)")
    add_quiet_option(group, help="no progress bar")


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a rate lies in [0, 1], got {text}")
    return value


def inputs_for(program: Program, args: argparse.Namespace
               ) -> list[tuple[str, Graph, dict[str, str]]]:
    """The graphs `eval`, `upi` and `relevance` run on, each with its place and the keys its output
    line starts with: a graph file's graphs, or (`--molecules`) the molecules of a
    molecule file, whose skipped records are reported on stderr and counted."""
    if (args.graphs is None) == (args.molecules is None):
        raise GracrError("give either a GRAPHS file or --molecules FILE (not both)")
    if args.graphs is not None:
        # Every graph is checked against the declarations before any work.
        placed = read_placed_graphs(args.graphs, program.schema)
        return [(place, graph, {}) for place, graph in placed]
    try:
        from gracr.domains.chem.molecules import molecules_for
    except ImportError as error:
        raise GracrError(f"--molecules needs RDKit ({error}): pip install 'gracr[chem]'") from None
    molecules, skipped = molecules_for(program.schema, args.molecules, args.file)
    for record in skipped:
        print(f"gracrc: {record}", file=args.err)
    print(f"gracrc: {args.molecules}: {len(molecules)} molecules read, {len(skipped)} skipped",
          file=args.err)
    return [(m.place, m.graph, {"molecule": m.place, "smiles": m.smiles}) for m in molecules]
