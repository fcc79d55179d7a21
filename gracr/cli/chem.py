"""The molecule domain's commands: `chem-check` (a compiled SMARTS program against RDKit
and the relaxed reference) and `wombat-study` (WOMBAT's explainer study, resumable)."""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from gracr.cli.command import Command
from gracr.cli.options import (add_compile_options, add_molecules_option, compile_for,
                               read_program, read_program_or_model)
from gracr.bench.options import (add_batch_option, add_budget_option, add_engine_options,
                                 add_jobs_option, non_negative_integer, parse_explainers,
                                 parse_seeds)
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor.model import compile_program


EXIT_UNEXPLAINED = 1


@dataclass(frozen=True)
class _Checked:
    """A program chem-check runs, with the SMARTS it is checked against."""

    name: str
    path: str
    program: Any
    smarts: str
    root: int


def cmd_chem_check(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.chem.check import FileCheck, check_molecules, tally, total_summary
    from gracr.domains.chem.molecules import fitting, iter_molecules, require_molecule_schema
    from gracr.domains.chem.reference import RelaxedQuery
    from gracr.domains.chem.smarts import SmartsError
    from gracr.domains.chem.translate import translate_smarts

    checked = _checked_programs(args)
    several = len(checked) > 1
    for entry in checked:
        require_molecule_schema(entry.program.schema, entry.path)
    # Each file is read once, whatever the number of patterns.
    records = {path: list(iter_molecules(path)) for path in args.molecules}
    status = 0
    table: list[list[str]] = []
    answers: dict[str, dict[str, str]] = {}
    for entry in checked:
        query = RelaxedQuery.from_smarts(entry.smarts, entry.root)
        # A difference between the model and the reference is gracr's only when the
        # program is the SMARTS's translation; otherwise it is the user's formula against
        # the SMARTS.
        try:
            translation = translate_smarts(entry.smarts, entry.root).program
            translated = (translation.classifier == entry.program.classifier
                          and translation.schema == entry.program.schema)
        except SmartsError:   # a SMARTS `gracrc smarts` refuses has no translation
            translated = False
        model = compile_for(entry.program, args)
        checks = []
        for path, found in records.items():
            molecules, skipped = fitting(entry.program.schema, found, entry.path)
            check = FileCheck(path, tuple(check_molecules(model, query, molecules, translated)),
                              tuple(skipped))
            checks.append(check)
            for record in check.skipped:
                print(f"gracrc: {record}", file=args.err)
            print((f"{entry.name}: " if several else "") + check.listing(args.show), file=out)
            for verdict in check.verdicts:
                cell = f"{int(verdict.compiled)}" + ("" if verdict.kind == "agree"
                                                     else f" {verdict.kind}")
                answers.setdefault(verdict.molecule.place, {"smiles": verdict.molecule.smiles})
                answers[verdict.molecule.place][entry.name] = cell
        total = tally([v for check in checks for v in check.verdicts])
        if len(checks) > 1:
            print((f"{entry.name}: " if several else "") + total_summary(total), file=out)
        table.append([entry.name, *(f"{total[k]}" for k in (
            "molecules", "rdkit positive", "compiled positive", "agree", "relaxed",
            "unexplained", "mismatch"))])
        if total["mismatch"]:
            print(f"gracrc: {entry.path} is not the translation of the SMARTS "
                  f"{entry.smarts!r} (rooted at atom {entry.root}): where its model and the "
                  f"relaxed reference differ ('mismatch'), the SMARTS and the formula "
                  f"disagree, which is no fault of gracr; `gracrc smarts` writes the "
                  f"translation", file=args.err)
        if total["unexplained"] or total["mismatch"]:
            status = EXIT_UNEXPLAINED
    if several:
        from gracr.bench.report.tables import render_table

        print(render_table(["pattern", "molecules", "RDKit positive", "compiled positive",
                            "agree", "relaxed", "unexplained", "mismatch"], table), file=out)
    if args.table is not None:
        _write_check_table(args.table, [entry.name for entry in checked], answers)
    return status


def _write_check_table(path: str, names: list[str], answers: dict[str, dict[str, str]]) -> None:
    """One row per molecule, one column per pattern: the compiled answer (1/0), followed
    by the kind of the verdict when it is not `agree` (`1 relaxed`); tab-separated."""
    from gracr.files import write_text

    lines = ["\t".join(["molecule", "smiles", *names])]
    lines += ["\t".join([place, cells["smiles"], *(cells.get(n, "") for n in names)])
              for place, cells in answers.items()]
    write_text(path, "\n".join(lines) + "\n")


def _checked_programs(args: argparse.Namespace) -> list[_Checked]:
    """FILE.gml with `--smarts` (or the SMARTS its header names), then each program of
    `--patterns`, checked against the SMARTS its header names (what `gracrc smarts` and
    scripts/wombat_formulas.py write)."""
    from gracr.domains.chem.smarts import parse_smarts
    from gracr.domains.chem.translate import smarts_of

    entries: list[_Checked] = []
    for path in ([] if args.file is None else [args.file]) + _pattern_files(args.patterns):
        program = read_program(path)
        if program.kind is not Kind.GRAPH:
            raise GracrError(f"{path}: chem-check needs a graph sentence (`classify exists "
                             f"...`, what `gracrc smarts` writes without --node)")
        if path == args.file and args.smarts is not None:
            tree = parse_smarts(args.smarts)   # refuses what the reference could not root
            root = tree.centre() if args.root is None else args.root
            if not 0 <= root < len(tree.atoms):
                raise GracrError(f"--root {root} is not an atom of the SMARTS "
                                 f"(atoms 0..{len(tree.atoms) - 1})")
            smarts = args.smarts
        else:
            header = smarts_of(Path(path).read_text(encoding="utf-8")
                               if os.path.isfile(path) else "")
            if header is None:
                raise GracrError(f"{path}: no SMARTS to check it against: give --smarts, or "
                                 f"a program `gracrc smarts` wrote (its header names the "
                                 f"SMARTS and the root)")
            smarts, root = header
            parse_smarts(smarts, path)
        entries.append(_Checked(Path(path).stem, path, program, smarts, root))
    if not entries:
        raise GracrError("chem-check: give FILE.gml --smarts SMARTS, or --patterns DIR|FILE")
    _unique_names([entry.name for entry in entries])
    return entries


def _pattern_files(entries: list[str]) -> list[str]:
    """`--patterns`: each folder's .gml files by name, each file itself."""
    paths: list[str] = []
    for entry in entries:
        if os.path.isdir(entry):
            found = sorted(str(p) for p in Path(entry).glob("*.gml"))
            if not found:
                raise GracrError(f"--patterns {entry}: no .gml file in this folder")
            paths += found
        else:
            paths.append(entry)
    return paths


def _unique_names(names: list[str]) -> None:
    repeated = [name for name in names if names.count(name) > 1]
    if repeated:
        raise GracrError(f"two patterns are named {repeated[0]!r} (a pattern's name is its "
                         f"file name): rename one")


def eval_molecules(args: argparse.Namespace, out: TextIO) -> int:
    """`gracrc eval --molecules FILE`: every pattern (FILE.gml and `--patterns`) on every
    molecule, streamed (`gracr.domains.chem.stream`); one JSON line per molecule, the
    skipped records and a summary on stderr."""
    import time

    from tqdm import tqdm

    try:
        from gracr.domains.chem.stream import ScreenSettings, screen
    except ImportError as error:
        raise GracrError(f"--molecules needs RDKit ({error}): pip install 'gracr[chem]'") from None
    patterns = patterns_for(args)
    several = len(patterns) > 1 or bool(args.patterns)
    settings = ScreenSettings(executor=args.executor, formula_rate=args.formula_rate,
                              jobs=args.jobs)
    names = [p.name for p in patterns]
    read = skipped = evaluated = 0
    positives = [0] * len(patterns)
    disagreements = [0] * len(patterns)
    start = time.perf_counter()
    with tqdm(desc="molecules", unit="mol", file=args.err, dynamic_ncols=True,
              disable=args.quiet or not args.err.isatty()) as bar:
        for result in screen(args.molecules, patterns, settings):
            for record in result.skipped:
                print(f"gracrc: {record}", file=args.err)
            skipped += result.records - len(result.rows)
            for row in result.rows:
                read += 1
                evaluated += any(f is not None for f in row.formula)
                for k, (gnn, formula) in enumerate(zip(row.gnn, row.formula)):
                    positives[k] += gnn is True or (isinstance(gnn, tuple) and any(gnn))
                    disagreements[k] += formula is not None and formula != gnn
                print(json.dumps(_row_line(row, names, several)), file=out)
            bar.update(result.records)
    seconds = time.perf_counter() - start

    def say(text: str) -> None:
        print(f"gracrc: {text}", file=args.err)

    say(f"{args.molecules}: {read} molecules read, {skipped} skipped")
    executor = ("the patterns' fused plan on the numba kernel (float64)"
                if args.executor == "fused" else "the float64 numpy reference")
    say(f"gnn: {executor}, on every molecule; formula: the reference evaluator vectorised "
        f"over each chunk, " + ("on every molecule" if args.formula_rate >= 1 else
                                 f"sampled at rate {args.formula_rate:g}: {evaluated} of "
                                 f"{read} molecules"))
    for pattern, found, differ in zip(patterns, positives, disagreements):
        say(f"{pattern.name}: {found} positive; {differ} where the gnn and the formula "
            f"differ")
    say(f"{seconds:.1f} s, {read / seconds if seconds > 0 else 0:.0f} molecules/s, "
        f"--jobs {args.jobs}")
    return 0


def _row_line(row: Any, names: list[str], several: bool) -> dict[str, Any]:
    """One output line: the molecule, then the network's and the formula's answers (one
    key each with one pattern, else an object keyed by pattern name)."""
    line: dict[str, Any] = {"molecule": row.place, "smiles": row.smiles}
    formula = {n: _bits(f) for n, f in zip(names, row.formula) if f is not None}
    gnn = {n: _bits(g) for n, g in zip(names, row.gnn) if g is not None}
    if several:
        if formula:
            line["formula"] = formula
        line["gnn"] = gnn
    else:
        line.update({"formula": formula[names[0]]} if formula else {})
        line["gnn"] = gnn[names[0]]
    return line


def _bits(answer: bool | tuple[bool, ...]) -> int | list[int]:
    return int(answer) if isinstance(answer, bool) else [int(v) for v in answer]


def patterns_for(args: argparse.Namespace) -> list[Any]:
    """The patterns a molecule screen runs: FILE.gml|MODEL if given, then each
    `--patterns` entry (a folder: its .gml files by name), each compiled with the compile
    options."""
    from gracr.domains.chem.stream import Pattern

    paths = ([] if args.file is None else [args.file]) + _pattern_files(args.patterns)
    if not paths:
        raise GracrError("eval --molecules: give FILE.gml|MODEL or --patterns DIR|FILE")
    options = dict(disjunction=args.disjunction, comparison=args.comparison,
                   max_degree=args.max_degree, presence=args.presence,
                   max_weights_bytes=args.max_weights_bytes, readout=args.readout,
                   delta=args.delta)
    patterns = []
    for path in paths:
        program, model = read_program_or_model(path, args.max_weights_bytes)
        name = Path(path).stem if path.endswith((".gml", ".npz")) else path
        pattern = Pattern(name, path, program, model, options)
        if model is None and not pattern.needs_degree_bound:
            compile_program(program, **options)   # a program that will not compile: now
        patterns.append(pattern)
    _unique_names([p.name for p in patterns])
    return patterns


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
        variants=tuple(v for v in args.variants.split(",") if v),
        budget=args.budget, datasets=args.datasets)
    study = WombatStudy(args.out, settings, Execution(
        workers=args.jobs, engine=args.engine, address=args.address,
        ray_timeout=args.ray_timeout, batch=args.batch), markdown=args.markdown,
        whiteboxes=args.whiteboxes, bounds=args.bounds, permutations=args.permutations)
    if args.tables_only:
        study.report(lambda text: print(text, file=out))
    else:
        study.run()
    return 0


def _declare_check(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE.gml", nargs="?", default=None,
                        help="a graph sentence over the molecule schema")
    parser.add_argument("--smarts", default=None, metavar="SMARTS",
                        help="the SMARTS FILE.gml was translated from (default: the one its "
                             "header names, as `gracrc smarts` writes it)")
    parser.add_argument("--patterns", nargs="+", default=[], metavar="DIR|FILE",
                        help="more programs to check at once (.gml files, or folders of "
                             "them), each against the SMARTS its header names")
    parser.add_argument("--table", default=None, metavar="FILE.tsv",
                        help="write one table, molecule x pattern: the compiled answer and "
                             "the verdict's kind where it is not `agree`")
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
    parser.add_argument("--variants", default="max,soft-or,main", metavar="V,...",
                        help="the variants the other explainers run (default WOMBAT's two "
                             "and ours, the threshold readout)")
    parser.add_argument("--slow-variants", default="max,soft-or", metavar="V,...",
                        help="the variants the slow explainers run (default WOMBAT's "
                             "two)")
    add_budget_option(parser)
    add_jobs_option(parser, default=2)
    add_engine_options(parser)
    add_batch_option(parser)
    parser.add_argument("--datasets", default=None, metavar="DIR",
                        help="the dataset store (default: DIR/datasets of --out)")
    parser.add_argument("--tables-only", action="store_true",
                        help="draw the tables from --out without explaining anything")
    parser.add_argument("--markdown", default=None, metavar="FILE",
                        help="write the tables to FILE as well")
    parser.add_argument("--whiteboxes", default=None, metavar="DIR",
                        help="the results folder of `gracrc bench` on Table S2's rule and "
                             "the anti-IG whitebox (scripts/wombat_whiteboxes.py's tasks), "
                             "for their headline rows")
    parser.add_argument("--bounds", default=None, metavar="FILE",
                        help="Figure S8's bound, as benchmarks/wombat_pgexplainer_bound.py "
                             "writes it (--json), for its headline row")
    parser.add_argument("--permutations", default=None, metavar="DIR",
                        help="the results folder of `gracrc bench` running ShapleySampling "
                             "at other numbers of permutations on the patterns' positives "
                             "(stage S7 of scripts/wombat_scale.sh), for Figure S7's "
                             "headline row")


COMMANDS = (
    Command("chem-check", "compare a compiled SMARTS program with RDKit's HasSubstructMatch "
                          "and the relaxed reference, molecule by molecule (exit 1 if a "
                          "disagreement is not the relaxation's)",
            _declare_check, cmd_chem_check),
    Command("wombat-study", "WOMBAT's explainer study on the compiled patterns (Table 2, S7, "
                            "S8 of the WOMBAT paper), beside its numbers (resumable)",
            _declare_wombat, cmd_wombat_study),
)
