"""GracrBench's datasets and results: `dataset` (build one, or Table 15), `show` (draw one
instance, its UPI and an explainer's scores) and `report` (the tables and figures of bench
runs)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

import numpy as np

from gracr.cli.command import Command
from gracr.cli.options import add_bdd_budget_option
from gracr.bench.budget import DEFAULT_BUDGET
from gracr.bench.options import (DATASETS_HELP, add_budget_option, add_dataset_options,
                                 add_dataset_size_options, add_plugin_option,
                                 add_settings_options, parse_overrides, parse_seeds,
                                 seed_number)
from gracr.bench.report.html_page import DEFAULT_INSTANCES, HTML_FILE, PAGES_FOLDER
from gracr.errors import GracrError

if TYPE_CHECKING:
    from gracr.bench.report.html_graph import Depiction


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
    if args.html:
        return _html_report(args, tasks, out)
    settings = BenchmarkSettings(tasks=tasks, datasets=args.datasets, graphs=args.graphs,
                                 targets=args.targets, budget=args.budget, plugins=args.plugin)
    print(paper_tables(args.dirs, settings, out=args.out,
                       instance_figures=not args.no_instance_figures), end="", file=out)
    return 0


def _html_report(args: argparse.Namespace, tasks: Sequence[str], out: TextIO) -> int:
    import datetime
    import shlex

    from gracr.bench.report.html import HtmlSource, write_html_report
    from gracr.bench.report.instance_figure import DatasetSource
    from gracr.bench.tasks import task_named
    from gracr.domains.tissue.study_html import is_tissue_study, write_tissue_html
    from gracr.explainers import load_plugins

    if args.html_instances < 0:
        raise GracrError(f"--html-instances must be 0 or more, got {args.html_instances}")
    if args.plugin:   # nothing is re-run: explainers are only names here
        load_plugins(args.plugin)
    command = shlex.join(["gracrc", "report", "--html", *args.dirs]
                         + ([] if args.out is None else ["--out", args.out]))
    date = datetime.date.today().isoformat()
    tissue = [folder for folder in args.dirs if is_tissue_study(folder)]
    if tissue:
        if len(args.dirs) > 1:
            raise GracrError(f"{tissue[0]}: a tissue study's folder is reported alone")
        print(write_tissue_html(tissue[0], args.out, args.html_instances, command, date),
              end="", file=out)
        return 0
    # A WOMBAT study's folder names its task files and store (the command line's first).
    studies = [found for found in map(_wombat_inputs, args.dirs) if found is not None]
    datasets = args.datasets or next((store for _, store in studies), None)
    for task in [*tasks, *(file for files, _ in studies for file in files)]:
        task_named(task)   # records name their task only: a task file must be read
    source = HtmlSource(DatasetSource(datasets, args.graphs, args.targets, args.budget),
                        args.html_instances, _depictions())
    print(write_html_report(args.dirs, args.out, source, command, date), end="", file=out)
    return 0


def _wombat_inputs(folder: str) -> tuple[list[str], str] | None:
    """A WOMBAT study's task files and store, if `folder` is one's (its settings say so)."""
    if not os.path.isfile(os.path.join(folder, "settings.json")):
        return None
    try:
        from gracr.domains.chem.study import report_inputs
    except ImportError:   # no RDKit (the chem extra): no WOMBAT study was run with it
        return None
    return report_inputs(folder)


def _depictions() -> tuple[Depiction, ...]:
    """The domains' own drawings for the HTML report: molecules, where RDKit is there."""
    try:
        from gracr.domains.chem.depiction import MOLECULES
    except ImportError:   # the chem extra is not installed: molecules drawn as graphs
        return ()
    return (MOLECULES,)


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


def _declare_dataset(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", nargs="?", metavar="TASK",
                        help="RedBlueLeaf, Redundancy, CompetingRedundancy, RedBlueLeaf-NC, "
                             "Majority1Hop, Majority2Hop, or a task file (.toml)")
    parser.add_argument("--seed", type=seed_number, default=None,
                        help="the dataset's seed (default 0)")
    parser.add_argument("--seeds", default="0", help="seeds for --stats, e.g. 0-4")
    add_bdd_budget_option(parser)
    parser.add_argument("--out", "--datasets", default=None, metavar="DIR", help=DATASETS_HELP)
    add_dataset_size_options(parser)
    parser.add_argument("--export", default=None, metavar="FILE.jsonl",
                        help="also write the dataset as JSON Lines")
    parser.add_argument("--stats", action="store_true",
                        help="print Table 15 for --seeds (all tasks unless TASK is given)")
    parser.add_argument("--table", default=None, metavar="FILE",
                        help="with --stats: also write the table (.md or .csv)")


def _declare_report(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", metavar="DIR",
                        help="output folders of `gracrc bench` (each with results.jsonl), "
                             "or seeds.csv files an earlier report wrote; several are "
                             "merged (the last record of a duplicate kept; a seed given by "
                             "two inputs is an error)")
    parser.add_argument("--out", default=None, metavar="REPORT_DIR",
                        help="where to write the report files (default: the first DIR)")
    figures = parser.add_argument_group(
        "instance figures", "with raw records, one figure per explainer: its first finished "
                            "instance, re-run (the datasets must be stored)")
    add_dataset_options(figures, whose="the bench run's ")
    figures.add_argument("--tasks", dest="task_files", default=None, metavar="FILES",
                         help="the bench run's task files (comma list of .toml): records "
                              "name their task only, so a figure of a task defined in a "
                              "file needs that file")
    add_budget_option(figures, help="instance figures: CPU seconds for each re-run "
                                    f"explainer (default {DEFAULT_BUDGET:g})")
    figures.add_argument("--no-instance-figures", action="store_true",
                         help="draw no instance figures")
    html = parser.add_argument_group(
        "HTML report", "a browsable report instead of the tables: a sortable leaderboard per "
                       "task and a page per instance (drawn from the dataset store)")
    html.add_argument("--html", action="store_true",
                      help=f"write REPORT_DIR/{HTML_FILE} and its instance pages "
                           f"(REPORT_DIR/{PAGES_FOLDER}/) and print its path; DIR may also "
                           "be a `gracrc wombat-study` or `gracrc tissue-study` folder")
    html.add_argument("--html-instances", type=int, default=DEFAULT_INSTANCES, metavar="N",
                      help="instance pages for the first N positive instances of each task, "
                           f"variant and seed (default {DEFAULT_INSTANCES})")
    add_plugin_option(parser)


def _declare_show(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("task", metavar="TASK", help="the task (as `gracrc bench --tasks`)")
    parser.add_argument("--seed", type=seed_number, default=0,
                        help="the dataset's seed (default 0)")
    parser.add_argument("--instance", type=int, default=0, metavar="I",
                        help="the instance's position among the seed's positive instances "
                             "(default 0; as in the results' 'instance')")
    parser.add_argument("--explainer", default=None, metavar="EXPLAINER",
                        help="run this explainer on the instance and draw its scores "
                             "(default: the instance and its UPI only)")
    parser.add_argument("--variant", default="main",
                        help="the compile variant explained (default main)")
    add_dataset_options(parser)
    add_settings_options(parser, "of --explainer")
    add_budget_option(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FIGURE",
                        help="the image file to write (.png, .pdf, .svg)")
    add_plugin_option(parser)


COMMANDS = (
    Command("dataset", "build (or reuse) a GracrBench dataset with exact UPI; --stats prints "
                       "Table 15", _declare_dataset, cmd_dataset),
    Command("report", "tables (paper layout, beside the paper, times) and a figure from "
                      "GracrBench results", _declare_report, cmd_report),
    Command("show", "draw one positive instance of a GracrBench dataset: the graph (a node "
                    "task's receptive field), its UPI and an explainer's edge scores",
            _declare_show, cmd_show),
)
