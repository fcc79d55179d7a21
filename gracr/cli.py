"""`gracrc`: compile `.gml` classifiers, inspect and run them, compute exact UPI.

Bad input of any kind (syntax, unknown names, type mixes, malformed graph JSON, a
colour outside the palette, a target out of range) is reported as one clear
message naming the place, with exit status 2 — never a traceback.

Its size (1300–1400 lines) is one command line: a short function per subcommand and its
argparse declaration; the work happens in the packages they call.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Sequence, TextIO

import numpy as np
import numpy.typing as npt

from gracr.dsl.evaluate import evaluate_program
from gracr.bench.budget import DEFAULT_BUDGET
from gracr.bench.options import (DATASETS_HELP, add_budget_option, add_engine_options,
                                 add_keep_errors_option,
                                 add_level_option, add_plugin_option, parse_explainers,
                                 parse_names,
                                 non_negative_integer, parse_overrides, parse_seeds,
                                 positive_integer,
                                 positive_number, positive_seconds, seed_number)
from gracr.executor.model import compile_program
from gracr.compiler.desugar import uses_comparison
from gracr.executor.model import CompiledGNN, load
from gracr.executor.plan import keeps_compiled_layout
from gracr.dsl.ir import Kind
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.errors import GmlError, GracrError, os_error_message
from gracr.files import write_text
from gracr.data.graph import Graph, read_placed_graphs
from gracr.limits import DEFAULT_MAX_BYTES, format_bytes, parse_bytes
from gracr.domains.tissue.study_names import EXPLAINERS as STUDY_EXPLAINERS
from gracr.domains.tissue.study_names import METRICS as STUDY_METRICS

if TYPE_CHECKING:
    from gracr.bdd.relevance import Relevance

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 70  # sysexits.h EX_SOFTWARE


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
    group.add_argument("--max-weights-bytes", type=_byte_count, default=DEFAULT_MAX_BYTES,
                       metavar="SIZE",
                       help="refuse, before allocating, a model whose dense weights or a "
                            "graph whose features and hidden states would exceed SIZE "
                            f"(e.g. 8GiB; default {format_bytes(DEFAULT_MAX_BYTES)})")


def _byte_count(text: str) -> int:
    try:
        return parse_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_bdd_budget_option(parser: argparse.ArgumentParser, counter: bool = False) -> None:
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


def _read_program(path: str) -> Program:
    """The `.gml` file at `path`, its errors naming it as the user typed it."""
    return parse(Path(path), filename=path)


def _compile(program: Program, args: argparse.Namespace,
             max_degree: int | None = None) -> CompiledGNN:
    return compile_program(program, disjunction=args.disjunction, comparison=args.comparison,
                           max_degree=args.max_degree if max_degree is None else max_degree,
                           presence=args.presence, max_weights_bytes=args.max_weights_bytes,
                           readout=args.readout, delta=args.delta)


def _needs_degree_bound(program: Program, args: argparse.Namespace) -> bool:
    return (args.comparison == "expanded" and args.max_degree is None
            and uses_comparison(program.classifier))


def _as_bits(values: npt.NDArray[np.bool_] | bool) -> list[int] | int:
    if isinstance(values, (bool, np.bool_)):
        return int(values)
    return [int(v) for v in values]


# ---------------------------------------------------------------- commands


def cmd_compile(args: argparse.Namespace, out: TextIO) -> int:
    program = _read_program(args.file)
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
    """Layer by layer: each column's meaning and its non-zero weights. A compiled layer
    shows the columns it settles (the others it carries or leaves at 0); the layers of a
    network without that layout (a randomisation control, `gracr.explainers.randomisation`)
    show every column."""
    hidden_layout = keeps_compiled_layout(model)
    readout_layout = _readout_keeps_layout(model)
    lines = [
        f"formula:  {model.formula}",
        f"kind:     {model.kind.value} classifier",
        f"palette:  {', '.join(model.palette) or '(empty)'}",
        *[f"attribute {family.name} = {', '.join(family.values)}" for family in model.families],
        *([f"relations: {', '.join(model.relations)}"] if model.relations else []),
        f"features: {', '.join(model.feature_names) or '(none)'}",
        f"options:  disjunction={model.options.disjunction} "
        f"comparison={model.options.comparison} max_degree={model.options.max_degree} "
        f"presence={model.options.presence} readout={model.options.readout}",
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
    features = model.feature_names
    for i in range(model.width):
        sources = [features[c] for c in np.flatnonzero(model.input_matrix[:, i])]
        if not hidden_layout:
            weights = [(f"x[{features[int(c)]}]", float(model.input_matrix[c, i]))
                       for c in np.flatnonzero(model.input_matrix[:, i])]
            lines.append(f"  {_format_weights(label(i), weights, float(model.input_bias[i]))}")
        elif sources:
            lines.append(f"  h{i} = x[{sources[0]}]")
        elif model.input_bias[i]:
            lines.append(f"  h{i} = {model.input_bias[i]:g}")
    for number, layer in enumerate(model.layers, start=1):
        carried = [i for i in range(model.width) if layer.C[i, i] == 1 and
                   model.columns[i].depth < number] if hidden_layout else []
        lines += ["", f"layer {number}:"]
        if carried:
            lines.append(f"  carry forward (C_ii = 1): {_ranges(carried)}")
        for i, column in enumerate(model.columns):
            if column.depth != number and hidden_layout:
                continue
            weights = [(label(int(k)), float(layer.C[k, i]))
                       for k in np.flatnonzero(layer.C[:, i])]
            for aggregation in layer.aggregations:
                over = "" if aggregation.relation is None else f"{{{aggregation.relation}}}"
                weights += [(f"sum_in{over}({label(int(k))})", float(aggregation.A[k, i]))
                            for k in np.flatnonzero(aggregation.A[:, i])]
            lines.append(f"  {_format_weights(label(i), weights, float(layer.b[i]))}"
                         f"    # {column.meaning}")
    for number, dense in enumerate(model.readout, start=1):
        lines += ["", f"readout {number}:"]
        for i, column in enumerate(model.readout_columns):
            if column.depth != number - 1 and readout_layout:
                continue
            pooled = {"threshold": "sum_nodes", "max": "max_nodes",
                      "soft-or": "soft_or_nodes"}[model.options.readout]
            source = pooled + "(h{})" if number == 1 else "r{}"
            weights = [(source.format(k), float(dense.W[k, i])) for k in np.flatnonzero(dense.W[:, i])]
            lines.append(f"  {_format_weights(f'r{i}', weights, float(dense.b[i]))}"
                         f"    # {column.meaning}")
    output = f"r{model.output_column}" if model.kind is Kind.GRAPH else f"h{model.output_column}"
    lines += ["", f"output: {output}"]
    return "\n".join(lines)


def _readout_keeps_layout(model: CompiledGNN) -> bool:
    """Whether the readout is laid out as compiled: dense layer n settles the readout
    columns of depth n − 1, carries the earlier ones (W_ii = 1, nothing else into them,
    bias 0) and sends nothing into the later ones (bias ≤ 0)."""
    depths = np.array([column.depth for column in model.readout_columns], dtype=np.int64)
    for number, dense in enumerate(model.readout, start=1):
        later = depths > number - 1
        if np.any(dense.W[:, later]) or np.any(dense.b[later] > 0):
            return False
        if number > 1:
            earlier = depths < number - 1
            carried = np.ix_(np.ones(len(depths), dtype=np.bool_), earlier)
            identity = np.eye(len(depths), dtype=np.float32)
            if np.any(dense.W[carried] != identity[carried]) or np.any(dense.b[earlier]):
                return False
    return True


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
        model = _compile(_read_program(args.file), args)
    else:
        model = load(args.file, args.max_weights_bytes)
    print(inspect_model(model), file=out)
    return 0


def _placed_graphs_for(program: Program, path: str) -> list[tuple[str, Graph]]:
    """Every graph of `path` with its place, checked against the program's declarations
    (colours, attribute families, relations) before any work."""
    return list(read_placed_graphs(path, program.schema))


def _inputs_for(program: Program, args: argparse.Namespace
                ) -> list[tuple[str, Graph, dict[str, str]]]:
    """The graphs `eval` and `upi` run on, each with its place and the keys its output
    line starts with: a graph file's graphs, or (`--molecules`) the molecules of a
    molecule file, whose skipped records are reported on stderr and counted."""
    if (args.graphs is None) == (args.molecules is None):
        raise GracrError("give either a GRAPHS file or --molecules FILE (not both)")
    if args.graphs is not None:
        return [(place, graph, {}) for place, graph in _placed_graphs_for(program, args.graphs)]
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


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    program = _read_program(args.file)
    graphs = _inputs_for(program, args)
    fixed = None if _needs_degree_bound(program, args) else _compile(program, args)
    models: dict[int, CompiledGNN] = {}
    for place, graph, keys in graphs:
        try:
            model = fixed
            if model is None:
                # Eq. 6 is exact once its bound reaches the largest in-degree: use that.
                bound = graph.max_in_degree()
                model = models.get(bound) or models.setdefault(bound,
                                                                _compile(program, args, bound))
            record = {**keys,
                      "formula": _as_bits(evaluate_program(program, graph,
                                                           max_bytes=args.max_weights_bytes)),
                      "gnn": _as_bits(model.predict(graph, args.max_weights_bytes))}
        except GracrError as error:
            raise GracrError(f"{place}: {error}") from None
        if program.features:
            _report_margin(program, graph, place, args)
        print(json.dumps(record), file=out)
    return 0


def _report_margin(program: Program, graph: Graph, place: str, args: argparse.Namespace) -> None:
    """Name on stderr the nodes whose features lie inside a threshold atom's margin: there
    the compiled network may disagree with the formula (`gracr.dsl.evaluate.margin_nodes`)."""
    from gracr.dsl.evaluate import margin_nodes

    inside = np.flatnonzero(margin_nodes(program, graph, args.delta))
    if inside.size:
        shown = ", ".join(map(str, inside[:10])) + (", ..." if inside.size > 10 else "")
        print(f"gracrc: {place}: {inside.size} node(s) inside the margin of a threshold atom "
              f"(--delta {args.delta:g}) or within float32 rounding of it, where the network "
              f"may differ from the formula: "
              f"{shown}", file=args.err)


def cmd_relevance(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bdd.relevance import relevance, relevance_record

    program = _read_program(args.file)
    for place, graph, keys in _inputs_for(program, args):
        try:
            report = relevance(program, graph, args.node, backend=args.backend,
                               max_exact=args.max_exact, permutations=args.permutations,
                               seed=args.seed, max_nodes=args.max_bdd_nodes,
                               max_counter_steps=args.max_counter_steps)
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
                else "no diagram: the game evaluated on many subgraphs at once")
        how = (f"Monte Carlo, {report.permutations} permutations, seed {report.seed} "
               f"({report.support_size} players, {over}): value ± standard error")
    counterfactual = report.counterfactual
    if counterfactual is None:
        lines = [f"{place}: label {report.label}; no ROBDD ({report.reason})",
                 "  counterfactual: not computed (it needs the diagram)",
                 f"  Banzhaf: Monte Carlo, {report.permutations} uniform subsets of the "
                 f"players, seed {report.seed}: value ± standard error"]
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


def cmd_tissue_study(args: argparse.Namespace, out: TextIO) -> int:
    from dataclasses import replace

    from gracr.bench.study import Execution
    from gracr.domains.tissue.phases import StudySettings
    from gracr.domains.tissue.study import TissueStudy
    from gracr.domains.tissue.trained import TrainingSettings

    def numbers(text: str, flag: str) -> tuple[float, ...]:
        try:
            return tuple(float(v) for v in text.split(",") if v.strip())
        except ValueError:
            raise GracrError(f"{flag}: expected a comma list of numbers, got {text!r}") \
                from None

    def integers(text: str, flag: str) -> tuple[int, ...]:
        values = numbers(text, flag)
        if any(v != int(v) for v in values):
            raise GracrError(f"{flag}: expected whole numbers, got {text!r}")
        return tuple(int(v) for v in values)

    from gracr.domains.tissue.generator import check_dataset_options

    if args.jobs < 1:
        raise GracrError(f"--jobs must be positive, got {args.jobs}")
    check_dataset_options(args.cells, args.seed, samples=args.samples)
    if args.max_epochs < 0:
        raise GracrError(f"--max-epochs must be at least 0, got {args.max_epochs}")
    if args.address is not None and args.engine != "ray":
        raise GracrError("--address needs --engine ray")
    explainers = tuple(parse_explainers(args.explainers))
    settings = StudySettings(
        samples=args.samples, cells=args.cells, seed=args.seed,
        ratios=numbers(args.ratios, "--ratios"),
        model_seeds=integers(args.model_seeds, "--model-seeds"),
        test_limit=args.test_limit, explainers=explainers,
        epochs=integers(args.epochs, "--epochs"), budget=args.budget,
        training=replace(TrainingSettings(), max_epochs=args.max_epochs))
    folder = TissueStudy(args.out, settings, Execution(
        workers=args.jobs, engine=args.engine, address=args.address,
        ray_timeout=args.ray_timeout, progress=not args.quiet)).run()
    print(f"{folder}: tables in {folder / 'tables'}, figures in {folder / 'figures'}",
          file=out)
    return 0


def cmd_tissue_seeds(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.tissue.study_seeds import write_seed_spreads

    table = write_seed_spreads(args.studies, args.out, args.metric,
                               say=lambda text: print(text, file=out))
    print(f"{table} (and .csv)", file=out)
    return 0


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


def cmd_tissue(args: argparse.Namespace, out: TextIO) -> int:
    try:
        from gracr.domains.tissue import (TissueSettings, generate_dataset, recompute_label,
                                   write_dataset)
    except ImportError as error:
        raise GracrError(f"the tissue generator needs scipy ({error}): pip install "
                         "'gracr[spatial]'") from None
    from gracr.domains.tissue.dataset import DATASET_FILES, dataset_files, holds_text
    from gracr.domains.tissue.generator import check_dataset_options

    check_dataset_options(args.cells, args.seed, samples=args.samples, ratios=(args.ratio,))
    folder = Path(args.out)
    settings = TissueSettings.for_cells(args.cells)
    rng = np.random.default_rng(args.seed)
    progress = args.err if args.samples >= 50 else None
    if progress is not None:
        print(f"gracrc: generating {args.samples} samples of ~{args.cells} cells ...",
              file=progress)
    tables, theta = generate_dataset(rng, settings, args.samples)
    # A file already there is kept only if it holds what would be written (the same
    # command run again); any other is refused, never overwritten.
    files = dataset_files(tables, theta, args.ratio)
    taken = [name for name in DATASET_FILES if os.path.lexists(folder / name)]
    for name in taken:
        if not holds_text(folder / name, files[name]()):
            raise GracrError(f"{folder / name}: already exists and holds another dataset; "
                             f"gracrc tissue overwrites nothing: choose another --out or "
                             f"remove it first")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_dataset(folder, tables, theta, args.ratio, skip=taken)
    except OSError as error:
        raise GracrError(os_error_message(error, str(folder))) from None
    positives = sum(1 for table in tables if recompute_label(table, theta))
    print(f"{folder}: {len(tables)} samples (~{args.cells} cells each, seed {args.seed}), "
          f"θ = {theta}, {positives} positive; graph radius {args.ratio:g} x 30 µm", file=out)
    for name in DATASET_FILES:
        print(f"  {folder / name}" + (" (already there)" if name in taken else ""), file=out)
    return 0




def cmd_upi(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bdd.upi import upi_json

    program = _read_program(args.file)
    for place, graph, keys in _inputs_for(program, args):
        try:
            record = {**keys, **upi_json(program, graph, args.node, args.over,
                                         backend=args.backend, order=args.order,
                                         max_nodes=args.max_bdd_nodes,
                                         max_counter_steps=args.max_counter_steps)}
        except GracrError as error:
            raise GracrError(f"{place}: {error}") from None
        print(json.dumps(record), file=out)
    return 0


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


EXIT_UNEXPLAINED = 1


def cmd_chem_check(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.chem.check import check_file, mismatches, tally
    from gracr.domains.chem.reference import RelaxedQuery
    from gracr.domains.chem.smarts import SmartsError, parse_smarts
    from gracr.domains.chem.translate import translate_smarts

    program = _read_program(args.file)
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
    model = _compile(program, args)
    checks = []
    for path in args.molecules:
        check = check_file(model, query, path, program.schema, args.file, translated)
        checks.append(check)
        for record in check.skipped:
            print(f"gracrc: {record}", file=args.err)
        print(check.summary(), file=out)
        shown = check.disagreements() if args.show < 0 else check.disagreements()[:args.show]
        for verdict in shown:
            print(f"  {verdict.kind:<12} {verdict.molecule.place}  {verdict.molecule.smiles}",
                  file=out)
        hidden = len(check.disagreements()) - len(shown)
        if hidden:
            print(f"  ... and {hidden} more (--show -1 lists all)", file=out)
    total = tally([v for check in checks for v in check.verdicts])
    if len(checks) > 1:
        print(f"total: {total['molecules']} molecules: {total['rdkit positive']} RDKit "
              f"positive; {total['agree']} agree, {total['relaxed']} relaxed, "
              f"{total['unexplained']} unexplained{mismatches(total)}", file=out)
    if total["mismatch"]:
        print(f"gracrc: {args.file} is not the translation of the SMARTS {args.smarts!r} "
              f"(rooted at atom {root}): where its model and the relaxed reference differ "
              f"('mismatch'), the SMARTS and the formula disagree, which is no fault of "
              f"gracr; `gracrc smarts` writes the translation", file=args.err)
    return EXIT_UNEXPLAINED if total["unexplained"] or total["mismatch"] else 0


def cmd_dataset(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bench.datasets import export, load_or_build, size_stats
    from gracr.bench.tasks import PAPER_TASKS, task_named
    from gracr.bench.report.tables import render_table, write_table

    def size_for(name: str) -> int | None:
        return task_named(name).size_of(args.graphs, args.targets)

    if args.stats:
        names = [task_named(args.task).name] if args.task else list(PAPER_TASKS)
        seeds = parse_seeds(args.seeds)
        rows = []
        for name in names:
            per_seed = [size_stats(load_or_build(name, seed, size_for(name), args.out,
                                                 max_bdd_nodes=args.max_bdd_nodes))
                        for seed in seeds]
            graphs = sorted({s.graphs for s in per_seed})
            rows.append([name, str(graphs[0]) if len(graphs) == 1 else f"{graphs[0]}-{graphs[-1]}",
                         f"{np.mean([s.nodes for s in per_seed]):.0f}",
                         f"{np.mean([s.edges for s in per_seed]):.1f}",
                         f"{np.mean([s.upi_edges for s in per_seed]):.1f}",
                         f"{np.mean([s.upi_fraction for s in per_seed]):.2f}"])
        headers = ["dataset", "graphs", "nodes", "edges", "UPI edges", "UPI fraction"]
        print(f"Table 15 (seeds {args.seeds}; averages over positive samples)", file=out)
        print(render_table(headers, rows), file=out)
        if args.table:
            write_table(args.table, headers, rows)
        return 0
    if not args.task:
        raise GracrError("name a task (one of " + ", ".join(PAPER_TASKS) + ", or a task file) "
                         "or pass --stats")
    dataset = load_or_build(task_named(args.task).name,
                            parse_seeds(args.seeds)[0] if args.seed is None else args.seed,
                            size_for(args.task), args.out, max_bdd_nodes=args.max_bdd_nodes)
    stats = size_stats(dataset)
    print(f"{dataset.task} seed {dataset.seed}: {stats.graphs} graphs, "
          f"{sum(len(i.targets) if i.label is None else 1 for i in dataset.instances)} instances, "
          f"mean UPI {stats.upi_edges:.1f} edges ({stats.upi_fraction:.2f} of the field)", file=out)
    if args.export:
        export(dataset, args.export)
        print(f"exported to {args.export}", file=out)
    return 0


def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bench.benchmark import BenchmarkSettings
    from gracr.domains.paper.study import paper_tables

    # Records name their task only: a task defined in a file is read from `--tasks`.
    tasks = args.task_files.split(",") if args.task_files else ()
    settings = BenchmarkSettings(tasks=tasks, datasets=args.datasets, graphs=args.graphs,
                                 targets=args.targets, budget=args.budget, plugins=args.plugin)
    print(paper_tables(args.dirs, settings, out=args.out,
                       instance_figures=not args.no_instance_figures), end="", file=out)
    return 0

def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bench.datasets import load_or_build
    from gracr.bench.tasks import task_named
    from gracr.bench.report.instance_figure import draw_instance, explained_view
    from gracr.explainers import load_plugins
    from gracr.bench.runner import plan_jobs

    load_plugins(args.plugin)
    if args.instance < 0:
        raise GracrError(f"--instance must be at least 0, got {args.instance}")
    if args.set and not args.explainer:
        raise GracrError("--set needs --explainer")
    folder = os.path.dirname(args.output) or "."
    if not os.path.isdir(folder):   # say so now, not after the explainer has run
        raise GracrError(f"{args.output}: no such folder {folder}")
    task = task_named(args.task)
    size = task.size_of(args.graphs, args.targets)
    dataset = load_or_build(task.name, args.seed, size, args.datasets)
    settings = None
    if args.explainer:
        # The settings `gracrc bench` would explain this instance with.
        jobs = plan_jobs([task.name], [args.variant], [args.explainer], [args.seed],
                         args.instance + 1, args.budget, {task.name: size}, args.datasets,
                         args.settings, parse_overrides(args.set, [args.explainer]),
                         args.instance)
        # No job: the variant does not apply to the task, which explained_view reports.
        settings = jobs[0].settings if jobs else None
    view = explained_view(dataset, args.instance, args.variant, args.explainer, settings,
                          args.budget, args.datasets)
    draw_instance(view, args.output)
    print(f"{args.output}: {view.summary()}", file=out)
    return 0


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.bench.benchmark import BenchmarkSettings
    from gracr.bench.study import Execution
    from gracr.bench.tasks import VARIANTS, task_names
    from gracr.domains.paper.study import PaperStudy, Shown
    from gracr.explainers import load_plugins

    load_plugins(args.plugin)   # before the names are read: plugins register explainers
    tasks = task_names(args.tasks)
    explainers = parse_explainers(args.explainers)
    variants = parse_names(args.variant, list(VARIANTS), "variant")
    overrides = parse_overrides(args.set, explainers)
    settings = BenchmarkSettings(
        tasks=tasks, explainers=explainers, seeds=parse_seeds(args.seeds), variants=variants,
        limit=args.limit, start=args.start, negatives=args.negatives, budget=args.budget,
        level=args.level, settings=args.settings, overrides=overrides, tuned=args.tuned,
        datasets=args.datasets, graphs=args.graphs, targets=args.targets, plugins=args.plugin)
    study = PaperStudy(args.out, settings,
                       Execution(args.jobs, args.engine, args.address, args.ray_timeout,
                                 progress=not args.quiet),
                       keep_errors=args.keep_errors,
                       shown=Shown(lambda text: print(text, end="", file=out),
                                   tables=not args.no_report,
                                   instance_figures=not args.no_instance_figures))
    try:
        with _sigterm_interrupts():
            study.run()
    except KeyboardInterrupt as stop:
        # The run has stopped its workers and kept every record written: one line, no
        # traceback, and the shell's status for a process ended by that signal.
        cause = signal.SIGTERM if isinstance(stop, _Terminated) else signal.SIGINT
        print(f"gracrc: bench stopped ({cause.name}); the records so far are in {args.out}: "
              f"the same command resumes the run", file=args.err)
        return 128 + cause
    return 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM (`kill`, a cluster's time limit), raised where Ctrl-C raises: a run stops
    the same way for either."""


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises `_Terminated` in the block (where Python can handle a signal: in
    the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_tune(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.explainers import EXPLAINERS, check_level, load_plugins
    from gracr.bench.report.tables import render_table
    from gracr.bench.tasks import task_named, task_names
    from gracr.bench.tuning import store, tune

    load_plugins(args.plugin)
    tasks = task_names(args.tasks)
    tunable = [name for name, spec in EXPLAINERS.items() if spec.space]
    explainers = parse_names(args.explainers, tunable, "tunable explainer")
    for explainer in explainers:
        check_level(EXPLAINERS[explainer], args.level)
    trials, instances = (50, 50) if args.paper else (args.trials, args.instances)
    if args.address is not None and args.engine != "ray":
        raise GracrError("--address needs --engine ray")
    if args.jobs <= 0:
        raise GracrError(f"--jobs must be positive, got {args.jobs}")
    rows = []
    for explainer in explainers:
        for task in tasks:
            size = task_named(task).size_of(args.graphs, args.targets)
            entry = tune(explainer, task, trials, instances, args.seed, args.budget,
                         args.datasets, size, progress=not args.quiet, level=args.level,
                         engine=args.engine, address=args.address, workers=args.jobs,
                         plugins=args.plugin, ray_timeout=args.ray_timeout)
            where = store(explainer, task, entry, None if args.out is None else Path(args.out),
                          level=args.level) if args.write else None
            rows.append([explainer, task, f"{entry['mean_f1']:.3f}",
                         json.dumps(entry["settings"], sort_keys=True),
                         str(where) if where else "(not stored: pass --write)"])
            print(render_table(["explainer", "task", "mean F1", "settings", "stored"],
                               rows[-1:]), file=out)
    print(render_table(["explainer", "task", "mean F1", "settings", "stored"], rows), file=out)
    return 0


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
    program = _read_program(args.file) if args.file else None
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


def _add_graph_inputs(parser: argparse.ArgumentParser) -> None:
    """GRAPHS, or `--molecules` instead: what `eval`, `upi` and `relevance` read."""
    parser.add_argument("graphs", metavar="GRAPHS", nargs="?", default=None,
                        help="JSON file: one graph object, a list of them, or JSON Lines")
    parser.add_argument("--molecules", default=None, metavar="FILE",
                        help="read molecules instead of GRAPHS: SMILES (.smi), SDF (.sdf) or "
                             "CSV/TSV with a SMILES column, optionally .gz (needs gracr[chem]); "
                             "records RDKit cannot read are reported on stderr and skipped")


def _add_tissue_dataset_options(parser: argparse.ArgumentParser, samples_use: str) -> None:
    """The tissue dataset's size and seed (`tissue`, `tissue-study`); `samples_use` says
    what the command does with the samples."""
    parser.add_argument("--samples", type=int, default=100, metavar="N",
                        help=f"samples in the dataset (default 100; {samples_use})")
    parser.add_argument("--cells", type=int, default=300, metavar="N",
                        help="about N cells per sample (default 300, at least 40)")
    parser.add_argument("--seed", type=int, default=0, help="the dataset's seed")


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
    _add_graph_inputs(eval_cmd)
    _add_compile_options(eval_cmd)
    eval_cmd.set_defaults(run=cmd_eval)

    upi_cmd = commands.add_parser(
        "upi", help="the exact UPI of each graph's prediction (one JSON line each)")
    upi_cmd.add_argument("file", metavar="FILE.gml")
    _add_graph_inputs(upi_cmd)
    upi_cmd.add_argument("--node", type=int, default=None, metavar="V",
                         help="node classifiers: the node to explain (default: each graph's "
                              "'target')")
    upi_cmd.add_argument("--backend", choices=("cudd", "autoref"), default="cudd",
                         help="ROBDD engine (default cudd, static variable order)")
    upi_cmd.add_argument("--over", choices=("edges", "nodes", "both"), default="edges",
                         help="what a subgraph removes: edges (default; prints 'mask'), nodes "
                              "with their edges ('node_mask'; a node classifier's target stays) "
                              "or both (both masks)")
    upi_cmd.add_argument("--order", choices=("edges", "computation"), default="computation",
                         help="ROBDD variable order: the formula's computation (default; small "
                              "diagrams around hubs) or the edge list (the paper's, §4.3); the "
                              "mask is the same")
    _add_bdd_budget_option(upi_cmd, counter=True)
    upi_cmd.set_defaults(run=cmd_upi)

    relevance_cmd = commands.add_parser(
        "relevance", help="signed, exact node-level ground truth of each graph's label: "
                          "counterfactual set, Banzhaf and Shapley values (ROBDD)")
    relevance_cmd.add_argument("file", metavar="FILE.gml")
    _add_graph_inputs(relevance_cmd)
    relevance_cmd.add_argument("--node", type=int, default=None, metavar="V",
                               help="node classifiers: the node to explain (default: each "
                                    "graph's 'target'); it is never removed")
    relevance_cmd.add_argument("--backend", choices=("cudd", "autoref"), default="cudd",
                               help="ROBDD engine (default cudd)")
    relevance_cmd.add_argument("--max-exact", type=non_negative_integer, default=200, metavar="N",
                               help="exact Shapley values up to a support of N nodes, "
                                    "Monte Carlo beyond (default 200, at most 1000)")
    relevance_cmd.add_argument("--permutations", type=positive_integer, default=2000, metavar="N",
                               help="Monte Carlo: sampled permutations (default 2000)")
    relevance_cmd.add_argument("--seed", type=seed_number, default=0, help="Monte Carlo seed")
    relevance_cmd.add_argument("--json", action="store_true",
                               help="one JSON line per graph instead of the table")
    relevance_cmd.add_argument("--all", action="store_true",
                               help="list every node, also those with no relevance")
    _add_bdd_budget_option(relevance_cmd, counter=True)
    relevance_cmd.set_defaults(run=cmd_relevance)

    tissue_cmd = commands.add_parser(
        "tissue", help="generate a synthetic tissue dataset (gracr.domains.tissue): cell tables, "
                       "radius graphs, the ratio rule with its θ, and a task file")
    tissue_cmd.add_argument("--out", required=True, metavar="DIR",
                            help="folder to write tissue.gml, tissue.toml, graphs.jsonl, "
                                 "cells.jsonl (one holding another dataset's is refused)")
    _add_tissue_dataset_options(tissue_cmd, "θ balances the classes over them")
    tissue_cmd.add_argument("--ratio", type=float, default=1.0, metavar="R",
                            help="graph radius = R x the 30 µm label radius (1, 1.5, 2, 3; "
                                 "default 1)")
    tissue_cmd.set_defaults(run=cmd_tissue)

    study_cmd = commands.add_parser(
        "tissue-study", help="the tissue note's metrics, baselines and controls on the "
                             "compiled rule beside trained GIN and GATv2 (resumable)")
    study_cmd.add_argument("--out", required=True, metavar="DIR",
                           help="the study's folder (data, truth, models, attributions, "
                                "tables, figures); a rerun resumes")
    _add_tissue_dataset_options(study_cmd, "split 0.6/0.2/0.2 for training")
    study_cmd.add_argument("--ratios", default="1,1.5,2,3", metavar="R,...",
                           help="graph radius / label radius (default 1,1.5,2,3)")
    study_cmd.add_argument("--model-seeds", default="0,1,2", metavar="S,...",
                           help="training seeds at ratio 1; the other ratios take the first "
                                "(default 0,1,2)")
    study_cmd.add_argument("--test-limit", type=int, default=10, metavar="N",
                           help="test samples explained per class (default 10)")
    study_cmd.add_argument("--explainers", default=",".join(STUDY_EXPLAINERS),
                           metavar="NAMES", help="the explainers that read the model "
                                                 f"(default {','.join(STUDY_EXPLAINERS)})")
    study_cmd.add_argument("--epochs", default="30,100,200,400", metavar="E,...",
                           help="GNNExplainer's budgets for the epoch curve")
    study_cmd.add_argument("--max-epochs", type=int, default=300, metavar="N",
                           help="training epochs at most (early stopping on validation AUC)")
    add_budget_option(study_cmd)
    study_cmd.add_argument("--jobs", type=int, default=1, metavar="K",
                           help="worker processes (default 1)")
    add_engine_options(study_cmd)
    study_cmd.add_argument("--quiet", action="store_true", help="no progress")
    study_cmd.set_defaults(run=cmd_tissue_study)

    seeds_cmd = commands.add_parser(
        "tissue-seeds", help="a metric over several tissue studies of different dataset "
                             "seeds: the model-seed and the dataset-seed spread, separately")
    seeds_cmd.add_argument("studies", nargs="+", metavar="STUDY",
                           help="tissue-study folders (one design, one dataset seed each)")
    seeds_cmd.add_argument("--out", required=True, metavar="DIR",
                           help="folder for seeds-<metric>.md and .csv")
    seeds_cmd.add_argument("--metric", default="AP", choices=STUDY_METRICS,
                           help="the metric (default AP)")
    seeds_cmd.set_defaults(run=cmd_tissue_seeds)

    wombat_cmd = commands.add_parser(
        "wombat-study", help="WOMBAT's explainer study on the compiled patterns (Table 2, "
                             "S7, S8 of the WOMBAT paper), beside its numbers (resumable)")
    wombat_cmd.add_argument("--wombat", default="out/wombat", metavar="DIR",
                            help="where scripts/wombat_datasets.py wrote Pnn/Pnn.toml "
                                 "(default out/wombat)")
    wombat_cmd.add_argument("--out", required=True, metavar="DIR",
                            help="the study's folder (results, datasets); a rerun, or a "
                                 "run of other patterns, explainers or limits, adds what "
                                 "is missing")
    wombat_cmd.add_argument("--patterns", default="1-14", metavar="N-M,...",
                            help="pattern numbers (default 1-14)")
    wombat_cmd.add_argument("--explainers", default=None, metavar="NAMES",
                            help="default: WOMBAT's seven and Rnd")
    wombat_cmd.add_argument("--positives", type=non_negative_integer, default=100,
                            metavar="N", help="positive molecules per pattern (default 100)")
    wombat_cmd.add_argument("--negatives", type=non_negative_integer, default=100,
                            metavar="N", help="negative molecules per pattern (default 100)")
    wombat_cmd.add_argument("--slow-positives", type=non_negative_integer, default=20,
                            metavar="N", help="the same for ShapleySampling and SubgraphX "
                                              "(default 20)")
    wombat_cmd.add_argument("--slow-negatives", type=non_negative_integer, default=20,
                            metavar="N", help="the same for ShapleySampling (default 20; "
                                              "SubgraphX explains no negatives)")
    wombat_cmd.add_argument("--slow-variants", default="max,soft-or", metavar="V,...",
                            help="the variants the slow explainers run (default WOMBAT's "
                                 "two)")
    add_budget_option(wombat_cmd)
    wombat_cmd.add_argument("--jobs", type=int, default=2, metavar="K",
                            help="worker processes (default 2)")
    add_engine_options(wombat_cmd)
    wombat_cmd.add_argument("--datasets", default=None, metavar="DIR",
                            help="the dataset store (default: DIR/datasets of --out)")
    wombat_cmd.add_argument("--tables-only", action="store_true",
                            help="draw the tables from --out without explaining anything")
    wombat_cmd.add_argument("--markdown", default=None, metavar="FILE",
                            help="write the tables to FILE as well")
    wombat_cmd.set_defaults(run=cmd_wombat_study)

    smarts_cmd = commands.add_parser(
        "smarts", help="translate an acyclic SMARTS into a .gml classifier over molecules "
                       "(the relaxed semantics of the README's Molecules section)")
    smarts_cmd.add_argument("smarts", metavar="SMARTS")
    smarts_cmd.add_argument("-o", "--output", default=None, metavar="FILE.gml",
                            help="write the program there (default: print it)")
    smarts_cmd.add_argument("--root", type=int, default=None, metavar="I",
                            help="root the SMARTS tree at atom I (default: a centre, the "
                                 "lowest-index atom of minimum eccentricity)")
    smarts_cmd.add_argument("--node", action="store_true",
                            help="classify atoms (is this atom the root of a match) instead "
                                 "of molecules (exists such an atom)")
    smarts_cmd.add_argument("--max-weights-bytes", type=_byte_count, default=DEFAULT_MAX_BYTES,
                            metavar="SIZE",
                            help="refuse a translation whose compiled model would need more "
                                 f"dense weights (default {format_bytes(DEFAULT_MAX_BYTES)})")
    smarts_cmd.set_defaults(run=cmd_smarts)

    check_cmd = commands.add_parser(
        "chem-check", help="compare a compiled SMARTS program with RDKit's "
                           "HasSubstructMatch and the relaxed reference, molecule by "
                           "molecule (exit 1 if a disagreement is not the relaxation's)")
    check_cmd.add_argument("file", metavar="FILE.gml",
                           help="a graph sentence over the molecule schema")
    check_cmd.add_argument("--smarts", required=True, metavar="SMARTS",
                           help="the SMARTS FILE.gml was translated from")
    check_cmd.add_argument("--molecules", required=True, nargs="+", metavar="FILE",
                           help="molecule files (SMILES, SDF, CSV/TSV; optionally .gz)")
    check_cmd.add_argument("--root", type=int, default=None, metavar="I",
                           help="the root FILE.gml was translated with (default: the centre, "
                                "as `gracrc smarts`)")
    check_cmd.add_argument("--show", type=int, default=20, metavar="N",
                           help="list at most N disagreeing molecules per file (-1: all; "
                                "default 20)")
    _add_compile_options(check_cmd)
    check_cmd.set_defaults(run=cmd_chem_check)

    dataset_cmd = commands.add_parser(
        "dataset", help="build (or reuse) a GracrBench dataset with exact UPI; --stats prints Table 15")
    dataset_cmd.add_argument("task", nargs="?", metavar="TASK",
                             help="RedBlueLeaf, Redundancy, CompetingRedundancy, RedBlueLeaf-NC, "
                                  "Majority1Hop, Majority2Hop, or a task file (.toml)")
    dataset_cmd.add_argument("--seed", type=seed_number, default=None,
                             help="the dataset's seed (default 0)")
    dataset_cmd.add_argument("--seeds", default="0", help="seeds for --stats, e.g. 0-4")
    _add_bdd_budget_option(dataset_cmd)
    dataset_cmd.add_argument("--out", "--datasets", default=None, metavar="DIR",
                             help=DATASETS_HELP)
    dataset_cmd.add_argument("--graphs", type=int, default=None, metavar="N",
                      help="graph tasks: number of graphs (default 1000)")
    dataset_cmd.add_argument("--targets", type=int, default=None, metavar="N",
                      help="node tasks: accumulate graphs until N positive targets (default 500)")
    dataset_cmd.add_argument("--export", default=None, metavar="FILE.jsonl",
                             help="also write the dataset as JSON Lines")
    dataset_cmd.add_argument("--stats", action="store_true",
                             help="print Table 15 for --seeds (all tasks unless TASK is given)")
    dataset_cmd.add_argument("--table", default=None, metavar="FILE",
                             help="with --stats: also write the table (.md or .csv)")
    dataset_cmd.set_defaults(run=cmd_dataset)

    report_cmd = commands.add_parser(
        "report", help="tables (paper layout, beside the paper, times) and a figure from "
                       "GracrBench results")
    report_cmd.add_argument("dirs", nargs="+", metavar="DIR",
                            help="output folders of `gracrc bench` (each with results.jsonl), "
                                 "or seeds.csv files an earlier report wrote; several are "
                                 "merged (the last record of a duplicate kept; a seed given by "
                                 "two inputs is an error)")
    report_cmd.add_argument("--out", default=None, metavar="REPORT_DIR",
                            help="where to write the report files (default: the first DIR)")
    figures = report_cmd.add_argument_group(
        "instance figures", "with raw records, one figure per explainer: its first finished "
                            "instance, re-run (the datasets must be stored)")
    figures.add_argument("--datasets", default=None, metavar="DIR",
                         help="the bench run's " + DATASETS_HELP)
    figures.add_argument("--graphs", type=int, default=None, metavar="N",
                         help="the bench run's graph-task dataset size (default 1000)")
    figures.add_argument("--targets", type=int, default=None, metavar="N",
                         help="the bench run's node-task dataset size (default 500)")
    figures.add_argument("--tasks", dest="task_files", default=None, metavar="FILES",
                         help="the bench run's task files (comma list of .toml): records "
                              "name their task only, so a figure of a task defined in a "
                              "file needs that file")
    add_budget_option(report_cmd, help="instance figures: CPU seconds for each re-run "
                                       f"explainer (default {DEFAULT_BUDGET:g})")
    figures.add_argument("--no-instance-figures", action="store_true",
                         help="draw no instance figures")
    add_plugin_option(report_cmd)
    report_cmd.set_defaults(run=cmd_report)

    show_cmd = commands.add_parser(
        "show", help="draw one positive instance of a GracrBench dataset: the graph (a node "
                     "task's receptive field), its UPI and an explainer's edge scores")
    show_cmd.add_argument("task", metavar="TASK", help="the task (as `gracrc bench --tasks`)")
    show_cmd.add_argument("--seed", type=seed_number, default=0,
                          help="the dataset's seed (default 0)")
    show_cmd.add_argument("--instance", type=int, default=0, metavar="I",
                          help="the instance's position among the seed's positive instances "
                               "(default 0; as in the results' 'instance')")
    show_cmd.add_argument("--explainer", default=None, metavar="EXPLAINER",
                          help="run this explainer on the instance and draw its scores "
                               "(default: the instance and its UPI only)")
    show_cmd.add_argument("--variant", default="main",
                          help="the compile variant explained (default main)")
    show_cmd.add_argument("--datasets", default=None, metavar="DIR", help=DATASETS_HELP)
    show_cmd.add_argument("--graphs", type=int, default=None, metavar="N",
                          help="graph tasks: dataset size (default 1000)")
    show_cmd.add_argument("--targets", type=int, default=None, metavar="N",
                          help="node tasks: dataset size in positive targets (default 500)")
    show_cmd.add_argument("--settings", choices=("tuned", "default"), default="tuned",
                          help="explainer settings, as `gracrc bench --settings` (default tuned)")
    show_cmd.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                          help="override one setting of --explainer (repeatable)")
    add_budget_option(show_cmd)
    show_cmd.add_argument("-o", "--output", required=True, metavar="FIGURE",
                          help="the image file to write (.png, .pdf, .svg)")
    add_plugin_option(show_cmd)
    show_cmd.set_defaults(run=cmd_show)

    bench_cmd = commands.add_parser(
        "bench", help="run GracrBench: explainers x tasks x variants x seeds, scored against "
                      "the exact UPI (resumable)")
    bench_cmd.add_argument("--tasks", default="all",
                           help="comma list of tasks and task files (.toml), or all (the "
                                "paper's six)")
    bench_cmd.add_argument("--variant", default="main",
                           help="comma list of compile variants: main (the paper's tables), "
                                "flat, direct, or (RedBlueLeaf phi-or), max, soft-or (the "
                                "readouts of WOMBAT's Eq. 3 and 4, for sentences of "
                                "'exists f'); default main")
    bench_cmd.add_argument("--explainers", default="all",
                           help="comma list of explainers; paper (the eleven of Tables 2 "
                                "and 3 and Rnd); or all (every registered one)")
    bench_cmd.add_argument("--seeds", default="0-4", help="dataset seeds (default 0-4)")
    bench_cmd.add_argument("--limit", type=int, default=100, metavar="N",
                           help="the first N positive instances per seed (default 100, the "
                                "official protocol)")
    bench_cmd.add_argument("--negatives", type=int, default=0, metavar="N",
                           help="also explain the first N negative graphs of each seed "
                                "(graph tasks) for WOMBAT's IQR test of uniform scores; the "
                                "report's ranking.md shows the pass rate (default 0)")
    bench_cmd.add_argument("--start", type=int, default=0, metavar="K",
                           help="skip the first K of those instances, to split one seed "
                                "between runs; report merges the folders (default 0)")
    add_budget_option(bench_cmd)
    bench_cmd.add_argument("--jobs", type=int, default=1, metavar="K",
                           help="worker processes (default 1)")
    bench_cmd.add_argument("--out", required=True, metavar="DIR",
                           help="results folder (required); reruns resume")
    bench_cmd.add_argument("--tuned", action="append", default=[], metavar="DIR",
                           help="read tuned settings from DIR first (`gracrc tune --write "
                                "--out DIR`; repeatable), then the user config folder, then "
                                "the package's")
    bench_cmd.add_argument("--datasets", default=None, metavar="DIR", help=DATASETS_HELP)
    bench_cmd.add_argument("--graphs", type=int, default=None, metavar="N",
                           help="graph tasks: dataset size (default 1000)")
    bench_cmd.add_argument("--targets", type=int, default=None, metavar="N",
                           help="node tasks: dataset size in positive targets (default 500)")
    bench_cmd.add_argument("--settings", choices=("tuned", "default"), default="tuned",
                           help="explainer settings: tuned by `gracrc tune` where stored "
                                "(default), or each explainer's defaults")
    bench_cmd.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                           help="override one setting, e.g. GNNExplainer.edge_size=0.01 "
                                "(repeatable)")
    add_level_option(bench_cmd)
    add_plugin_option(bench_cmd)
    add_keep_errors_option(bench_cmd)
    add_engine_options(bench_cmd)
    bench_cmd.add_argument("--no-report", action="store_true",
                           help="do not print the report at the end")
    bench_cmd.add_argument("--no-instance-figures", action="store_true",
                           help="the report at the end draws no instance figures")
    bench_cmd.add_argument("--quiet", action="store_true", help="no progress bars")
    bench_cmd.set_defaults(run=cmd_bench)

    tune_cmd = commands.add_parser(
        "tune", help="tune explainer settings with Optuna on a held-out seed (App. H)")
    tune_cmd.add_argument("--tasks", default="all",
                          help="comma list of tasks and task files (.toml), or all")
    tune_cmd.add_argument("--explainers", default="all",
                          help="comma list of tunable explainers, or all")
    tune_cmd.add_argument("--trials", type=positive_integer, default=20,
                          help="Optuna trials (default 20)")
    tune_cmd.add_argument("--instances", type=positive_integer, default=20,
                          help="instances scored per trial (default 20)")
    tune_cmd.add_argument("--paper", action="store_true",
                          help="the paper's budget: 50 trials x 50 instances")
    tune_cmd.add_argument("--seed", type=seed_number, default=100,
                          help="held-out dataset seed (default 100; the benchmark uses 0-4)")
    add_budget_option(tune_cmd, help="CPU seconds per instance; over budget scores 0")
    tune_cmd.add_argument("--datasets", default=None, metavar="DIR", help=DATASETS_HELP)
    tune_cmd.add_argument("--graphs", type=int, default=None, metavar="N")
    tune_cmd.add_argument("--targets", type=int, default=None, metavar="N")
    tune_cmd.add_argument("--write", action="store_true",
                          help="store the best settings (in --out DIR, else in the user config "
                               "folder, where bench reads them)")
    tune_cmd.add_argument("--out", default=None, metavar="DIR",
                          help="with --write: the folder to store them in (give it to bench "
                               "as --tuned DIR)")
    add_level_option(tune_cmd)
    add_plugin_option(tune_cmd)
    add_engine_options(tune_cmd)
    tune_cmd.add_argument("--jobs", type=int, default=1, metavar="K",
                          help="with --engine ray: CPUs of the local Ray instance (default 1)")
    tune_cmd.add_argument("--quiet", action="store_true", help="no progress bars")
    tune_cmd.set_defaults(run=cmd_tune)

    fuzz_cmd = commands.add_parser(
        "fuzz", help="run explainers on logically equivalent rewrites of a formula and report "
                     "the spread of their scores; shrink every failure")
    fuzz_cmd.add_argument("file", nargs="?", metavar="FILE.gml",
                          help="the formula to fuzz (default: --formulas random ones)")
    fuzz_cmd.add_argument("--explainers", default="Saliency,Deconv,GuidedBP,IG,LRP,GNNExplainer",
                          help="comma list of explainers, or all (default: the six fast ones)")
    fuzz_cmd.add_argument("--rewrites", default="all",
                          help="comma list of rewrite families: disjunction, comparison, "
                               "negation, association, padding, or all (default)")
    fuzz_cmd.add_argument("--alternative", action="append", default=[], metavar="OTHER.gml",
                          help="an equivalent formula written differently (repeatable); checked "
                               "with ROBDDs on every instance graph")
    fuzz_cmd.add_argument("--limit", type=int, default=10, metavar="N",
                          help="instances per formula (default 10)")
    fuzz_cmd.add_argument("--formulas", type=int, default=100, metavar="K",
                          help="without FILE: how many random formulas (default 100)")
    fuzz_cmd.add_argument("--seed", type=seed_number, default=0, metavar="S",
                          help="seeds formulas, graphs, rewrite positions and explainers "
                               "(default 0)")
    fuzz_cmd.add_argument("--per-family", type=int, default=1, metavar="K",
                          help="draws of each positional rewrite (default 1)")
    fuzz_cmd.add_argument("--shrink", choices=("all", "first", "none"), default="all",
                          help="shrink every failure (default), only the first per formula and "
                               "explainer, or none")
    fuzz_cmd.add_argument("--budget", type=positive_seconds, default=30.0, metavar="SECONDS",
                          help="CPU seconds for one explainer run or one instance's UPI; "
                               "over it the run is recorded as an error, the instance skipped "
                               "(default 30)")
    fuzz_cmd.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                          help="override one setting, e.g. GNNExplainer.epochs=20 (repeatable)")
    add_plugin_option(fuzz_cmd)
    fuzz_cmd.add_argument("--out", default=None, metavar="DIR",
                          help="write models.csv, summary.csv, summary.md, failures.md and "
                               "failures.jsonl there")
    fuzz_cmd.add_argument("--quiet", action="store_true",
                          help="no progress bar and no per-failure printout")
    fuzz_cmd.set_defaults(run=cmd_fuzz)

    from gracr.domains.paper.ablations import add_ablate_parser

    add_ablate_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    err = sys.stderr if err is None else err
    if out is None and sys.stdout is None:
        # Python starts with no sys.stdout when file descriptor 1 is closed (`>&-`): unlike
        # a reader that went away (a broken pipe, quiet exit 0), nothing could ever be
        # written, so say so before any work is done.
        print("gracrc: error: standard output is closed: nothing can be written (redirect "
              "it to a file, or to /dev/null to discard it)", file=err)
        return EXIT_BAD_INPUT
    out = sys.stdout if out is None else out
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    args.err = err   # where a command reports what it skipped
    try:
        with _sigterm_interrupts():
            code: int = args.run(args, out)
        out.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`gracrc inspect model.npz | head -1`): what it wanted is
        # printed. Later writes, and Python's own flush at exit, go to /dev/null.
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except GmlError as error:
        print(error, file=err)
        return EXIT_BAD_INPUT
    except GracrError as error:
        print(f"gracrc: error: {error}", file=err)
        return EXIT_BAD_INPUT
    except OSError as error:  # the machine's answer (a missing folder, a full disk)
        message = (str(error.strerror or error) if error.filename is None
                   else os_error_message(error, os.fsdecode(error.filename)))
        print(f"gracrc: error: {message}", file=err)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError:
        print(f"gracrc: error: {getattr(args, 'file', '?')}: not a UTF-8 text file", file=err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as stop:
        # Ctrl-C or SIGTERM outside a run that says more (`bench`): one line, no traceback,
        # and the shell's status for a process ended by that signal.
        cause = signal.SIGTERM if isinstance(stop, _Terminated) else signal.SIGINT
        print(f"gracrc: {args.command} stopped ({cause.name})", file=err)
        return 128 + cause
    except Exception as error:  # a bug in gracr, not in the input: say where, briefly
        if os.environ.get("GRACR_TRACEBACK"):
            raise
        last = traceback.extract_tb(error.__traceback__)[-1]
        print(f"gracrc: internal error: {type(error).__name__}: {error} "
              f"({Path(last.filename).name}:{last.lineno}). This is a bug in gracr; please "
              f"report it with the command line. GRACR_TRACEBACK=1 shows the traceback.",
              file=err)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
