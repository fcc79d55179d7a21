"""`gracrc audit`: the paper's shortcut audit (App. B) of a dataset with a planted ground
truth: shortcut probes, trained models, perturbation outside the motif, for molecules the
motif replaced by hydrogen (Table 7), and gracr's compiled rule when one is given (a
molecule audit's: its SMARTS's translation)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from gracr.bench.options import (add_quiet_option, non_negative_integer, parse_names,
                                 parse_seeds, positive_integer, positive_number, seed_number)
from gracr.cli.command import Command
from gracr.cli.options import read_program
from gracr.errors import GracrError


def _integers(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma list of integers, got '{text}'")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got '{text}'")
    return values


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.audit.data import AuditData
    from gracr.audit.figures import draw_degree_figure, draw_flip_figure
    from gracr.audit.models import ARCHITECTURES
    from gracr.audit.molecules import MoleculeAudit, molecule_audit
    from gracr.audit.report import markdown, to_json
    from gracr.audit.run import AuditSettings, audit
    from gracr.files import write_json, write_text

    settings = AuditSettings(
        folds=args.folds, seeds=tuple(parse_seeds(args.seeds)),
        architectures=tuple(parse_names(args.models, ARCHITECTURES, "architecture")),
        depths=args.depths, hidden=args.hidden, epochs=args.epochs,
        learning_rate=args.lr, train=not args.probes_only,
        perturb_limit=args.perturb_limit or None, remove_nodes=args.nodes,
        data_seed=args.data_seed)
    rule = read_program(args.rule) if args.rule else None

    def tick(step: str) -> None:
        if not args.quiet:
            print(f"audit: {step}", file=args.err, flush=True)

    if (args.data is None) == (args.molecules is None):
        raise GracrError("give either DATA or --molecules FILE --smarts S (not both)")
    if (args.molecules is None) != (args.smarts is None):
        raise GracrError("--molecules and --smarts go together")
    if args.molecules is not None:
        source: str | AuditData | MoleculeAudit = molecule_audit(args.molecules, args.smarts)
    else:
        source = args.data
    report = audit(source, settings, rule=rule, tick=tick)
    figure = flip_figure = None
    if args.out:
        folder = Path(args.out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise GracrError(f"{folder}: cannot create the folder ({error.strerror})") from None
        figure = draw_degree_figure(report.data, folder / "degrees.png").name
        flips = report.perturbation.examples if report.perturbation else ()
        if flips:
            assert report.perturbation is not None
            flip_figure = draw_flip_figure(report.data, flips[0], report.perturbation.depth,
                                           folder / "perturbation.png").name
        write_text(folder / "report.md", markdown(report, figure, flip_figure))
        write_json(folder / "audit.json", to_json(report))
    if args.json:
        print(json.dumps(to_json(report), indent=2), file=out)
    else:
        print(markdown(report, figure, flip_figure), file=out, end="")
    return 0


def _declare_audit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", metavar="DATA", nargs="?", default=None,
                        help="a graph file (JSON / JSON Lines; 'label' or 'node_labels', and "
                             "'motif_edges' and/or 'motif_nodes'), a built-in dataset "
                             "(BAShapes, Tree-Cycles, Tree-Grid, BAMultiShapes), a "
                             "GracrBench task, a WOMBAT pattern (P01 to P14: its dataset "
                             "from the bundled molecules, needs gracr[chem]) or 'tissue' "
                             "(60 generated tissue fields of about 300 cells)")
    parser.add_argument("--molecules", metavar="FILE", default=None,
                        help="instead of DATA: molecules (SMILES, SDF, CSV) labelled by "
                             "--smarts (needs gracr[chem])")
    parser.add_argument("--smarts", metavar="S", default=None,
                        help="the rule: a SMARTS pattern, or Benzene, FluorideCarbonyl, "
                             "AlkaneCarbonyl (App. B.2's, as gracr.audit.molecules writes "
                             "them), NO2 (Table 7's nitro group); its translation, when "
                             "gracr has one, is the compiled rule")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="write report.md, degrees.png (as App. B's Figs. 6-7), "
                             "perturbation.png (one flip, as Figs. 8-9) and audit.json there")
    parser.add_argument("--rule", metavar="FILE.gml", default=None,
                        help="the intended rule: its compiled model goes through the same "
                             "accuracy, perturbation (and for molecules replacement) checks")
    parser.add_argument("--models", default="gin",
                        help="comma list of architectures to train: gin, gcn, sage, gat, "
                             "pna, or all (default gin)")
    parser.add_argument("--depths", type=_integers, default=None, metavar="L,...",
                        help="message-passing layers of the grid (default: the dataset's "
                             "App. B settings; a file: 2,3)")
    parser.add_argument("--hidden", type=_integers, default=None, metavar="H,...",
                        help="widths of the grid (default: the dataset's; a file: 64)")
    parser.add_argument("--epochs", type=non_negative_integer, default=None,
                        help="training epochs (default: the dataset's; a file: 1000)")
    parser.add_argument("--lr", type=positive_number, default=None,
                        help="Adam's learning rate (default: the dataset's; a file: 0.001)")
    parser.add_argument("--seeds", default="0-2",
                        help="training seeds: 3, 0-4 or 0,2,5 (default 0-2)")
    parser.add_argument("--folds", type=positive_integer, default=5,
                        help="cross-validation folds of the probes (default 5)")
    parser.add_argument("--perturb-limit", type=non_negative_integer, default=200,
                        metavar="N", help="perturb at most N instances, a seeded sample "
                                          "(0: all; default 200)")
    parser.add_argument("--nodes", action="store_true",
                        help="also remove nodes outside the motif, one at a time")
    parser.add_argument("--data-seed", type=seed_number, default=0,
                        help="seeds a built-in, WOMBAT or tissue dataset, the folds and the "
                             "sample (default 0)")
    parser.add_argument("--probes-only", action="store_true",
                        help="run the probes alone: no training, no perturbation")
    add_quiet_option(parser, help="no progress lines")


COMMANDS = (
    Command("audit", "audit a dataset with a planted ground truth for shortcuts (App. B): "
                     "degree probes, trained models, perturbation outside the motif",
            _declare_audit, cmd_audit),
)
