"""The tissue domain's commands: `tissue` (generate a dataset), `tissue-study` (the
tissue note's study, resumable), `tissue-sparse` (its sparse-driver label family,
resumable) and `tissue-seeds` (a metric's spread over studies of several dataset seeds)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

import numpy as np

from gracr.cli.command import Command
from gracr.bench.options import (add_batch_option, add_budget_option, add_engine_options,
                                 add_jobs_option, add_quiet_option, parse_explainers)
from gracr.domains.tissue.study_names import BATCH as TISSUE_BATCH
from gracr.domains.tissue.study_names import EXPLAINERS as STUDY_EXPLAINERS
from gracr.domains.tissue.study_names import METRICS as STUDY_METRICS
from gracr.errors import GracrError


def cmd_tissue(args: argparse.Namespace, out: TextIO) -> int:
    try:
        from gracr.domains.tissue import TissueSettings, generate_dataset, recompute_label
    except ImportError as error:
        raise GracrError(f"the tissue generator needs scipy ({error}): pip install "
                         "'gracr[spatial]'") from None
    from gracr.domains.tissue.dataset import DATASET_FILES, write_new_dataset
    from gracr.domains.tissue.generator import check_dataset_options

    check_dataset_options(args.cells, args.seed, samples=args.samples, ratios=(args.ratio,))
    folder = Path(args.out)
    settings = TissueSettings.for_cells(args.cells)
    rng = np.random.default_rng(args.seed)
    if args.samples >= 50:
        print(f"gracrc: generating {args.samples} samples of ~{args.cells} cells ...",
              file=args.err)
    tables, theta = generate_dataset(rng, settings, args.samples)
    taken = write_new_dataset(folder, tables, theta, args.ratio)
    positives = sum(1 for table in tables if recompute_label(table, theta))
    print(f"{folder}: {len(tables)} samples (~{args.cells} cells each, seed {args.seed}), "
          f"θ = {theta}, {positives} positive; graph radius {args.ratio:g} x 30 µm", file=out)
    for name in DATASET_FILES:
        print(f"  {folder / name}" + (" (already there)" if name in taken else ""), file=out)
    return 0


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
    if args.patience < 1 or not args.min_delta >= 0:
        raise GracrError(f"--patience must be at least 1 and --min-delta at least 0, got "
                         f"{args.patience} and {args.min_delta}")
    if args.address is not None and args.engine != "ray":
        raise GracrError("--address needs --engine ray")
    # The tissue domain's own explainers (IG-mean) are registered when their module is
    # imported: before the names are checked.
    import gracr.domains.tissue.explainers  # noqa: F401
    explainers = tuple(parse_explainers(args.explainers))
    settings = StudySettings(
        samples=args.samples, cells=args.cells, seed=args.seed,
        ratios=numbers(args.ratios, "--ratios"),
        model_seeds=integers(args.model_seeds, "--model-seeds"),
        test_limit=args.test_limit, explainers=explainers,
        epochs=integers(args.epochs, "--epochs"), budget=args.budget,
        training=replace(TrainingSettings(), max_epochs=args.max_epochs,
                         patience=args.patience, min_delta=args.min_delta))
    sparse = tuple(Path(v.strip()) for v in args.sparse.split(",") if v.strip())
    folder = TissueStudy(args.out, settings, Execution(
        workers=args.jobs, engine=args.engine, address=args.address,
        ray_timeout=args.ray_timeout, progress=not args.quiet, batch=args.batch),
        sparse=sparse, replace_stale=args.replace_stale).run()
    print(f"{folder}: tables in {folder / 'tables'}, figures in {folder / 'figures'}",
          file=out)
    return 0


def cmd_tissue_sparse(args: argparse.Namespace, out: TextIO) -> int:
    from dataclasses import replace

    from gracr.bench.study import Execution
    from gracr.domains.tissue.sparse import SparseSettings, SparseStudy
    from gracr.domains.tissue.trained import TrainingSettings

    try:
        seeds = tuple(int(v) for v in args.model_seeds.split(",") if v.strip())
        training = replace(TrainingSettings(), max_epochs=args.max_epochs,
                           patience=args.patience, min_delta=args.min_delta)
    except ValueError as error:
        raise GracrError(f"tissue-sparse: {error}") from None
    settings = SparseSettings(samples=args.samples, cells=args.cells, seed=args.seed,
                              model_seeds=seeds, training=training)
    folder = SparseStudy(args.out, settings, Execution(progress=not args.quiet)).run()
    print(f"{folder}: {folder / 'tables' / 'sparse.md'}", file=out)
    return 0


def cmd_tissue_seeds(args: argparse.Namespace, out: TextIO) -> int:
    from gracr.domains.tissue.study_seeds import (read_study, write_seed_headlines,
                                                  write_seed_spreads)

    studies = [read_study(folder) for folder in args.studies]
    table = write_seed_spreads(studies, args.out, args.metric,
                               say=lambda text: print(text, file=out))
    print(f"{table} (and .csv)", file=out)
    headlines, count = write_seed_headlines(studies, args.out)
    print(f"{headlines} (and .csv): the note's findings over the dataset seeds, {count}",
          file=out)
    return 0


def _add_dataset_options(parser: argparse.ArgumentParser, samples_use: str) -> None:
    """The tissue dataset's size and seed (`tissue`, `tissue-study`); `samples_use` says
    what the command does with the samples."""
    parser.add_argument("--samples", type=int, default=100, metavar="N",
                        help=f"samples in the dataset (default 100; {samples_use})")
    parser.add_argument("--cells", type=int, default=300, metavar="N",
                        help="about N cells per sample (default 300, at least 40)")
    parser.add_argument("--seed", type=int, default=0, help="the dataset's seed")


def _declare_tissue(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder to write tissue.gml, tissue.toml, graphs.jsonl, "
                             "cells.jsonl (one holding another dataset's is refused)")
    _add_dataset_options(parser, "θ balances the classes over them")
    parser.add_argument("--ratio", type=float, default=1.0, metavar="R",
                        help="graph radius = R x the 30 µm label radius (1, 1.5, 2, 3; "
                             "default 1)")


def _declare_study(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the study's folder (data, truth, models, attributions, "
                             "tables, figures); a rerun resumes")
    _add_dataset_options(parser, "split 0.6/0.2/0.2 for training")
    parser.add_argument("--ratios", default="1,1.5,2,3", metavar="R,...",
                        help="graph radius / label radius (default 1,1.5,2,3)")
    parser.add_argument("--model-seeds", default="0,1,2", metavar="S,...",
                        help="training seeds, each at every ratio; the controls take the "
                             "first (default 0,1,2)")
    parser.add_argument("--test-limit", type=int, default=10, metavar="N",
                        help="test samples explained per class (default 10)")
    parser.add_argument("--explainers", default=",".join(STUDY_EXPLAINERS),
                        metavar="NAMES", help="the explainers that read the model "
                                              f"(default {','.join(STUDY_EXPLAINERS)})")
    parser.add_argument("--epochs", default="30,100,200,400", metavar="E,...",
                        help="GNNExplainer's budgets for the epoch curve")
    parser.add_argument("--sparse", default="", metavar="DIR,...",
                        help="`gracrc tissue-sparse` folders whose models the report's "
                             "headline table reads for the note's sparse-driver finding")
    parser.add_argument("--replace-stale", action="store_true",
                        help="train again the models made with other settings even where "
                             "the folder explained them, moving those explanations to "
                             "attributions/replaced.jsonl (without it the study stops)")
    _add_training_options(parser)
    add_budget_option(parser)
    add_batch_option(parser, default=TISSUE_BATCH)
    add_jobs_option(parser)
    add_engine_options(parser)
    add_quiet_option(parser, "no progress")


def _add_training_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-epochs", type=int, default=300, metavar="N",
                        help="training epochs at most (early stopping on validation AUC)")
    parser.add_argument("--patience", type=int, default=40, metavar="N",
                        help="stop training after N epochs without a better validation "
                             "epoch (default 40)")
    parser.add_argument("--min-delta", type=float, default=0.0, metavar="D",
                        help="an epoch of equal validation AUC is better only when its "
                             "validation loss is lower by more than D (default 0)")


def _declare_sparse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="the study's folder (data, models, tables); a rerun resumes")
    _add_dataset_options(parser, "split 0.6/0.2/0.2 for training")
    parser.add_argument("--model-seeds", default="0,1,2", metavar="S,...",
                        help="training seeds of GIN and GATv2 (default 0,1,2)")
    _add_training_options(parser)
    add_quiet_option(parser, "no progress")


def _declare_seeds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("studies", nargs="+", metavar="STUDY",
                        help="tissue-study folders (one design, one dataset seed each)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="folder for seeds-<metric>.md and .csv, and "
                             "seeds-headlines.md and .csv (the note's findings over the "
                             "dataset seeds: reproduced only where every seed reproduces "
                             "them)")
    parser.add_argument("--metric", default="AP", choices=STUDY_METRICS,
                        help="the metric (default AP)")


COMMANDS = (
    Command("tissue", "generate a synthetic tissue dataset (gracr.domains.tissue): cell "
                      "tables, radius graphs, the ratio rule with its θ, and a task file",
            _declare_tissue, cmd_tissue),
    Command("tissue-study", "the tissue note's metrics, baselines and controls on the "
                            "compiled rule beside trained GIN and GATv2 (resumable)",
            _declare_study, cmd_tissue_study),
    Command("tissue-sparse", "the tissue note's sparse-driver label family: GIN and GATv2 "
                             "against a count of the motif (resumable)",
            _declare_sparse, cmd_tissue_sparse),
    Command("tissue-seeds", "a metric over several tissue studies of different dataset "
                            "seeds: the model-seed and the dataset-seed spread, separately",
            _declare_seeds, cmd_tissue_seeds),
)
