"""Running a table ablation as GracrBench runs (§5, App. H).

Each arm is a GracrBench run (`arm_runs`: a `gracr.bench.benchmark.BenchmarkSettings`, so
resumable and under the official protocol: seeds, the first `limit` positive instances, a
CPU budget per instance, tuned settings); records of earlier runs that describe the same
instances can be copied in first (`--reuse`); then each arm runs as the paper's study
(`gracr.domains.paper.study.PaperStudy`) into the one folder, and the table is rendered
and written.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from gracr.domains.paper.ablations.common import command_line, write_text
from gracr.domains.paper.ablations.declare import SIDES, Side, TableAblation
from gracr.domains.paper.ablations.render import ArmKey, Shape, render_table_ablation
from gracr.domains.paper.study import PaperStudy
from gracr.bench.benchmark import BenchmarkSettings
from gracr.bench.datasets import load_or_build
from gracr.bench.instances import compile_variant, positive_instances, variant_named
from gracr.bench.options import parse_names, parse_overrides, parse_seeds
from gracr.bench.record import RESULTS_FILE, Record, read_records, record_objects, start_results
from gracr.bench.report import Provenance, aggregate, load_results
from gracr.bench.runner import Job, job_key
from gracr.bench.scores_log import SCORES_FILE, read_scores, scores_line
from gracr.bench.report.tables import write_table
from gracr.bench.study import Execution
from gracr.bench.tasks import TASKS
from gracr.errors import GracrError
from gracr.files import append_lines


def explainer_list(text: str | None, ablation: TableAblation) -> list[str]:
    """`--explainers` (None: those the paper's table lists), within the ablation's own."""
    # The explainer registry loads torch and PyG; `gracrc --help` imports this module.
    from gracr.explainers import EXPLAINERS

    allowed = list(ablation.only_explainers or EXPLAINERS)
    if text is None:
        return [e for e in ablation.default_explainers if e in allowed]
    try:
        return parse_names(text, allowed, "explainer")
    except GracrError as error:
        raise GracrError(f"{ablation.name}: {error}") from None


def _sizes(tasks: Iterable[str], graphs: int | None, targets: int | None) -> dict[str, int | None]:
    return {t: TASKS[t].size_of(graphs, targets) for t in tasks}


def arm_runs(ablation: TableAblation, explainers: Sequence[str], seeds: Sequence[int],
             limit: int, budget: float, datasets: str, graphs: int | None,
             targets: int | None, settings: Literal["tuned", "default"],
             overrides: Mapping[str, Mapping[str, Any]], plugins: Sequence[str] = ()
             ) -> dict[Side, BenchmarkSettings]:
    """Each arm as a GracrBench run of the ablation's tasks: its variant, and its overrides
    applied over the user's `--set` ones (an arm's setting is what the ablation is about)
    for the explainers run."""
    runs: dict[Side, BenchmarkSettings] = {}
    for side in SIDES:
        arm = ablation.arm(side)
        merged: dict[str, dict[str, Any]] = {name: dict(values)
                                             for name, values in overrides.items()}
        for name, values in arm.overrides.items():
            if name in explainers:
                merged.setdefault(name, {}).update(values)
        runs[side] = BenchmarkSettings(
            tasks=ablation.tasks, explainers=explainers, seeds=seeds, variants=(arm.variant,),
            limit=limit, budget=budget, settings=settings, overrides=merged,
            datasets=datasets, graphs=graphs, targets=targets, plugins=plugins)
    return runs


def plan_ablation(runs: Mapping[Side, BenchmarkSettings]
                  ) -> tuple[list[Job], dict[ArmKey, str]]:
    """The runner's jobs of both arms (a job both arms share once), and each arm's config
    hash per (task, explainer)."""
    jobs: list[Job] = []
    seen: set[tuple[Any, ...]] = set()
    hashes: dict[ArmKey, str] = {}
    for side in SIDES:
        for job in runs[side].jobs():
            hashes[(side, job.task, job.explainer)] = job.settings_hash
            if job_key(job) not in seen:
                seen.add(job_key(job))
                jobs.append(job)
    return jobs, hashes


@dataclass(frozen=True)
class Reused:
    copied: int
    mismatched: int
    sources: tuple[str, ...]


def reuse_records(sources: Sequence[str], jobs: Sequence[Job], out: Path) -> Reused:
    """Copy into `out/results.jsonl` every record of the `sources` folders whose key matches a
    planned job (task, variant, explainer, config hash, level, seed) and an instance within its
    limit, unless `out` has it already; a rerun then skips those instances (the runner resumes).

    A record is copied only if it describes the same instance of our dataset (its graph,
    target and number of UPI edges): a folder run on datasets of another size is not reused.
    Its explainer scores (`gracr.bench.scores_log`) go with it where the source keeps them.
    """
    planned = {job_key(job): job for job in jobs}
    target = out / RESULTS_FILE
    have: set[tuple[Any, ...]] = set()
    if target.exists():
        for record in read_records(target):
            have.add(record.key)
    instances: dict[tuple[str, int], list[tuple[int, int | None, int]]] = {}
    copied = mismatched = 0
    used: list[str] = []
    lines: list[str] = []
    scores: list[str] = []
    for source in sources:
        folder = Path(source)
        path = folder if folder.is_file() else folder / RESULTS_FILE
        if not path.is_file():
            raise GracrError(f"--reuse {source}: no {RESULTS_FILE} there")
        if path.resolve() == target.resolve():
            continue
        used.append(str(path))
        stored, _ = read_scores(path)
        for place, obj in record_objects(path):
            record = Record.from_json(obj, place)
            key = record.key
            job = planned.get(key[:-1])
            if job is None or key in have or int(obj["instance"]) >= job.limit:
                continue
            where = (job.task, job.seed)
            if where not in instances:
                dataset = load_or_build(job.task, job.seed, job.dataset_size, job.datasets,
                                        progress=False)
                instances[where] = [(i.graph, i.target, int(i.upi.sum()))
                                    for i in positive_instances(dataset)]
            index = int(obj["instance"])
            ours = instances[where][index] if index < len(instances[where]) else None
            if ours != (obj.get("graph"), obj.get("target"), obj.get("upi_edges")):
                mismatched += 1
                continue
            have.add(key)
            lines.append(json.dumps(obj, separators=(",", ":")) + "\n")
            if key in stored:
                scores.append(scores_line(record, stored[key]))
            copied += 1
    if lines:
        try:
            out.mkdir(parents=True, exist_ok=True)
            if scores:   # before the records, as the runner writes them
                append_lines(out / SCORES_FILE, scores)
            start_results(target)
            with open(target, "a", encoding="utf-8") as handle:
                handle.writelines(lines)
        except OSError as error:
            raise GracrError(f"{target}: cannot write ({error.strerror})") from None
    return Reused(copied, mismatched, tuple(used))


def model_shapes(ablation: TableAblation, seed: int, sizes: Mapping[str, int | None],
                 datasets: str) -> dict[tuple[str, Side], Shape]:
    """Both arms' compiled sizes per task, compiled as the runner does on the first seed's
    dataset (Eq. 6's bound rises to the dataset's largest in-degree when it exceeds 50)."""
    shapes: dict[tuple[str, Side], Shape] = {}
    for task in ablation.tasks:
        dataset = load_or_build(task, seed, sizes.get(task), datasets, progress=False)
        for side in SIDES:
            model = compile_variant(task, variant_named(ablation.arm(side).variant), dataset)
            bound = model.options.max_degree if model.options.comparison == "expanded" \
                else None
            shapes[(task, side)] = Shape(model.num_layers, model.width, bound)
    return shapes


def run_table_ablation(ablation: TableAblation, args: argparse.Namespace, out: TextIO) -> int:
    """Plan both arms, copy reusable records, run what is missing, render and write."""
    from gracr.explainers import load_plugins

    load_plugins(args.plugin)
    seeds = parse_seeds(args.seeds)
    explainers = explainer_list(args.explainers, ablation)
    overrides = parse_overrides(args.set, explainers)
    if args.jobs <= 0:
        raise GracrError(f"--jobs must be positive, got {args.jobs}")
    runs = arm_runs(ablation, explainers, seeds, args.limit, args.budget, args.datasets,
                    args.graphs, args.targets, args.settings, overrides, args.plugin)
    jobs, hashes = plan_ablation(runs)
    folder = Path(args.out)
    started = time.perf_counter()
    if args.reuse:
        reused = reuse_records(args.reuse, jobs, folder)
        print(f"reused {reused.copied} records from {', '.join(reused.sources) or 'nothing'}"
              + (f"; {reused.mismatched} left out (another dataset size?)"
                 if reused.mismatched else ""), file=out)
    # Each arm is a GracrBench run into the one folder: the second finds what the arms
    # share already recorded.
    execution = Execution(args.jobs, args.engine, args.address, args.ray_timeout,
                          progress=not args.quiet)
    for side in SIDES:
        PaperStudy(folder, runs[side], execution, keep_errors=args.keep_errors).run()
    results = folder / RESULTS_FILE
    sizes = _sizes(ablation.tasks, args.graphs, args.targets)
    shapes = model_shapes(ablation, seeds[0], sizes, args.datasets)
    planned = {(job.task, job.variant, job.explainer, job.settings_hash) for job in jobs}
    loaded = load_results([str(results)])
    wanted = [r for r in loaded.records
              if (r.task, r.variant, r.explainer, r.config_hash) in planned
              and r.seed in seeds and r.instance < args.limit]
    cells = aggregate(wanted)
    provenance = Provenance(command_line(args, table=True), datetime.date.today().isoformat(),
                            tuple(sorted({r.gracr_version for r in wanted})))
    header = [f"Protocol: seeds {args.seeds}, first {args.limit} positive instances per seed, "
              f"{args.budget:g} CPU s per instance, settings {args.settings}"
              + (f", --set {' '.join(args.set)}" if args.set else "") + "."]
    rendered = render_table_ablation(ablation, cells, hashes, explainers, shapes, header,
                                     provenance)
    write_text(folder / f"{ablation.name}.md", rendered.markdown)
    write_table(str(folder / f"{ablation.name}.csv"), rendered.csv_headers, rendered.csv_rows)
    write_table(str(folder / f"{ablation.name}_checks.csv"),
                ["ablation", "explainer", "task", "kind", "metric", "status", "detail"],
                [[r.ablation, r.check.explainer, r.task, r.check.kind, r.check.metric, r.status,
                  r.detail] for r in rendered.checks])
    print(rendered.markdown, end="", file=out)
    print(f"wrote {ablation.name}.md, {ablation.name}.csv, {ablation.name}_checks.csv to "
          f"{folder} ({time.perf_counter() - started:.1f} s)", file=out)
    if args.strict and any(r.status == "FAIL" for r in rendered.checks):
        return 1
    return 0
