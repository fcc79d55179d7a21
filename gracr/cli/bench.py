"""GracrBench's runs: `bench` (explainers x tasks x variants x seeds, scored against the
exact UPI; resumable) and `tune` (explainer settings by Optuna on a held-out seed)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from gracr.cli.command import Command, sigterm_interrupts, stopped_by
from gracr.bench.options import (add_batch_option, add_budget_option, add_dataset_options,
                                 add_engine_options, add_jobs_option,
                                 add_keep_errors_option, add_level_option, add_plugin_option,
                                 add_quiet_option, add_settings_options, parse_explainers,
                                 parse_names, parse_overrides, parse_seeds, positive_integer,
                                 seed_number)
from gracr.errors import GracrError


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
                                 progress=not args.quiet, batch=args.batch),
                       keep_errors=args.keep_errors,
                       shown=Shown(lambda text: print(text, end="", file=out),
                                   tables=not args.no_report,
                                   instance_figures=not args.no_instance_figures))
    try:
        with sigterm_interrupts():
            study.run()
    except KeyboardInterrupt as stop:
        # The run has stopped its workers and kept every record written: one line, no
        # traceback, and the shell's status for a process ended by that signal.
        cause = stopped_by(stop)
        print(f"gracrc: bench stopped ({cause.name}); the records so far are in {args.out}: "
              f"the same command resumes the run", file=args.err)
        return 128 + cause
    return 0


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


def _declare_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", default="all",
                        help="comma list of tasks and task files (.toml), or all (the "
                             "paper's six)")
    parser.add_argument("--variant", default="main",
                        help="comma list of compile variants: main (the paper's tables), "
                             "flat, direct, or (RedBlueLeaf phi-or), max, soft-or (the "
                             "readouts of WOMBAT's Eq. 3 and 4, for sentences of "
                             "'exists f'); default main")
    parser.add_argument("--explainers", default="all",
                        help="comma list of explainers; paper (the eleven of Tables 2 "
                             "and 3 and Rnd); or all (every registered one)")
    parser.add_argument("--seeds", default="0-4", help="dataset seeds (default 0-4)")
    parser.add_argument("--limit", type=int, default=100, metavar="N",
                        help="the first N positive instances per seed (default 100, the "
                             "official protocol)")
    parser.add_argument("--negatives", type=int, default=0, metavar="N",
                        help="also explain the first N negative graphs of each seed "
                             "(graph tasks) for WOMBAT's IQR test of uniform scores; the "
                             "report's ranking.md shows the pass rate (default 0)")
    parser.add_argument("--start", type=int, default=0, metavar="K",
                        help="skip the first K of those instances, to split one seed "
                             "between runs; report merges the folders (default 0)")
    add_budget_option(parser)
    add_jobs_option(parser)
    add_batch_option(parser, default=1)
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="results folder (required); reruns resume")
    parser.add_argument("--tuned", action="append", default=[], metavar="DIR",
                        help="read tuned settings from DIR first (`gracrc tune --write "
                             "--out DIR`; repeatable), then the user config folder, then "
                             "the package's")
    add_dataset_options(parser)
    add_settings_options(parser, "of an explainer run")
    add_level_option(parser)
    add_plugin_option(parser)
    add_keep_errors_option(parser)
    add_engine_options(parser)
    parser.add_argument("--no-report", action="store_true",
                        help="do not print the report at the end")
    parser.add_argument("--no-instance-figures", action="store_true",
                        help="the report at the end draws no instance figures")
    add_quiet_option(parser)


def _declare_tune(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tasks", default="all",
                        help="comma list of tasks and task files (.toml), or all")
    parser.add_argument("--explainers", default="all",
                        help="comma list of tunable explainers, or all")
    parser.add_argument("--trials", type=positive_integer, default=20,
                        help="Optuna trials (default 20)")
    parser.add_argument("--instances", type=positive_integer, default=20,
                        help="instances scored per trial (default 20)")
    parser.add_argument("--paper", action="store_true",
                        help="the paper's budget: 50 trials x 50 instances")
    parser.add_argument("--seed", type=seed_number, default=100,
                        help="held-out dataset seed (default 100; the benchmark uses 0-4)")
    add_budget_option(parser, help="CPU seconds per instance; over budget scores 0")
    add_dataset_options(parser)
    parser.add_argument("--write", action="store_true",
                        help="store the best settings (in --out DIR, else in the user config "
                             "folder, where bench reads them)")
    parser.add_argument("--out", default=None, metavar="DIR",
                        help="with --write: the folder to store them in (give it to bench "
                             "as --tuned DIR)")
    add_level_option(parser)
    add_plugin_option(parser)
    add_engine_options(parser)
    add_jobs_option(parser, help="with --engine ray: CPUs of the local Ray instance")
    add_quiet_option(parser)


COMMANDS = (
    Command("bench", "run GracrBench: explainers x tasks x variants x seeds, scored against "
                     "the exact UPI (resumable)", _declare_bench, cmd_bench),
    Command("tune", "tune explainer settings with Optuna on a held-out seed (App. H)",
            _declare_tune, cmd_tune),
)
