"""Fig. 3: GNNExplainer's L1 penalty (PyG `edge_size`) swept on Redundancy.

Per strength, the plausibility and the mean edge score on UPI edges vs the other edges (the
figure's two panels), over seeds × the first `limit` positive graphs. The paper does not list
its grid; ours defaults to 6 log-spaced points from 1e-4 to 10. The paper's finding: precision
and recall stay perfect at every strength, and the redundant UPI edges are not sparsified.

Each explained instance is a `Record` of `fig3.jsonl` whose `extra` holds the L1 strength, the
dataset size and the mean scores on UPI and on other edges; the log resumes on (config hash,
dataset size, seed, instance). A seed halts at its first out-of-time instance (App. H).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from tqdm import tqdm

from gracr.domains.paper.ablations.common import command_line, write_text
from gracr.domains.paper.ablations.declare import FigureAblation
from gracr.domains.paper.ablations.figures import (FigureLog, figure_canvas, figure_settings,
                                                  finish_figure, first_positives,
                                           save_figure, seed_stats)
from gracr.bench.budget import Outcome, explain_each
from gracr.bench.instances import ExplainedInstance, compile_variant, subject_for
from gracr.bench.options import parse_overrides, parse_seeds
from gracr.bench.record import Record
from gracr.bench.report import (CSV, DDOF, MISSING, PAPER, NumberFormat, Provenance,
                                render_table)
from gracr.stats import Stat
from gracr.bench.tasks import TASKS, VARIANTS
from gracr.errors import GracrError

TASK = "Redundancy"
EXPLAINER = "GNNExplainer"
DEFAULT_STRENGTHS: tuple[float, ...] = tuple(float(v) for v in np.logspace(-4, 1, 6))
KEY_FIELDS = ("config_hash", "dataset_size", "seed", "instance")
SCORES = ("precision", "recall", "f1", "upi_score", "other_score")
# The mean edge scores, written to three decimals (the scores, to the paper's two).
EDGE_SCORES = NumberFormat(3, MISSING)

Row = tuple[float, int, int, dict[str, Stat | None]]


def parse_strengths(text: str | None) -> list[float]:
    """`--strengths 1e-4,0.01,1` -> floats, each positive (a log axis)."""
    if text is None:
        return list(DEFAULT_STRENGTHS)
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise GracrError(f"bad --strengths '{text}': write positive numbers, e.g. "
                         "1e-4,1e-2,1") from None
    if not values or min(values) <= 0 or not all(math.isfinite(v) for v in values):
        raise GracrError(f"bad --strengths '{text}': the strengths must be positive numbers")
    return sorted(set(values))


def fig3_rows(records: Sequence[Record], strengths: Sequence[float]) -> list[Row]:
    """Per strength: seeds in the means, 'ok' instances, and mean ± std over seeds of
    precision, recall, F1 and the mean edge score on UPI edges and on the others."""
    rows = []
    for strength in strengths:
        mine = [r for r in records if float(r.extra["strength"]) == strength]
        oot = {r.seed for r in mine if r.status == "oot"}
        kept = [r for r in mine if r.seed not in oot]
        stats = {name: seed_stats(kept, name) for name in SCORES}
        seeds = len({r.seed for r in kept if r.status == "ok"})
        rows.append((strength, seeds, sum(r.status == "ok" for r in kept), stats))
    return rows


def _edge_means(outcome: Outcome, upi: Any) -> dict[str, float | None]:
    """The mean score on UPI edges and on the other edges (None without scores or others)."""
    if outcome.scores is None:
        return {"upi_score": None, "other_score": None}
    return {"upi_score": float(outcome.scores[upi].mean()),
            "other_score": float(outcome.scores[~upi].mean()) if (~upi).any() else None}


def run_fig3(args: argparse.Namespace, out: TextIO) -> int:
    """GNNExplainer's L1 strength swept on Redundancy (Fig. 3): plausibility and the mean edge
    score on UPI edges vs the others, per strength, over seeds × first `limit` positives."""
    # The explainer registry loads torch and PyG; `gracrc --help` imports this module.
    from gracr.explainers import explainer_seed, settings_hash

    seeds, strengths = parse_seeds(args.seeds), parse_strengths(args.strengths)
    base = figure_settings(EXPLAINER, TASK, args.settings, parse_overrides(args.set, [EXPLAINER]))
    folder = Path(args.out)
    log = FigureLog(folder / "fig3.jsonl", KEY_FIELDS, TASK, EXPLAINER, args.keep_errors)
    program = TASKS[TASK].program()
    started = time.perf_counter()
    work = first_positives(TASK, seeds, args.limit, args.graphs, args.datasets,
                           progress=not args.quiet)
    settings_of = {s: {**base, "edge_size": s} for s in strengths}
    hash_of = {s: settings_hash(settings_of[s]) for s in strengths}
    todo = sum(1 for s in strengths for seed, _, size, chosen in work for i in chosen
               if (hash_of[s], size, seed, i.index) not in log)
    bar = tqdm(total=todo, desc="fig3", unit="instance", disable=args.quiet, dynamic_ncols=True)
    for seed, dataset, size, chosen in work:
        model = compile_variant(TASK, VARIANTS["main"], dataset)
        modules: dict[str, Any] = {}
        for strength in strengths:
            config_hash = hash_of[strength]
            missing: list[ExplainedInstance] = []
            for instance in chosen:
                logged = log.get((config_hash, size, seed, instance.index))
                if logged is None:
                    missing.append(instance)
                elif logged.status == "oot":
                    break       # App. H: a seed halts at its first out-of-time instance
            explained = explain_each(
                missing, EXPLAINER, settings_of[strength], args.budget,
                lambda i: subject_for(dataset, program, model, i, modules),
                lambda i: i.upi, lambda i: explainer_seed(seed, i.index))
            for instance, outcome in explained:
                graph = dataset.instances[instance.graph].graph
                log.add(Record.of(
                    outcome, task=TASK, variant="main", explainer=EXPLAINER,
                    config=settings_of[strength], config_hash=config_hash, seed=seed,
                    instance=instance.index, graph=instance.graph, target=None,
                    upi_edges=int(instance.upi.sum()), edges=graph.num_edges,
                    extra={"strength": strength, "dataset_size": size,
                           **_edge_means(outcome, instance.upi)}))
                bar.update()
                if outcome.status == "oot":
                    bar.write(f"fig3 strength {strength:g} seed {seed} instance "
                              f"{instance.index}: oot (rest of the seed skipped)")
    bar.close()
    records = log.wanted({(hash_of[s], size, seed, i.index) for s in strengths
                          for seed, _, size, chosen in work for i in chosen})
    rows = fig3_rows(records, strengths)
    extra = [] if args.strengths is None else ["--strengths", args.strengths]
    provenance = Provenance(command_line(args, table=False, extra=extra),
                            datetime.date.today().isoformat(),
                            tuple(sorted({r.gracr_version for r in records})))
    text = _markdown(args, base, strengths, rows,
                     sum(r.status == "error" for r in records), provenance)
    write_text(folder / "fig3.md", text)
    csv_headers = ["edge_size", "seeds", "instances"] + [
        f"{n}_{w}" for n in SCORES for w in ("mean", "std")]
    csv_rows = [[f"{strength:g}", str(seeds_in), str(count)] + [
        CSV.number(None if stats[n] is None else getattr(stats[n], w))
        for n in SCORES for w in ("mean", "std")] for strength, seeds_in, count, stats in rows]
    return finish_figure("fig3", folder, text, csv_headers, csv_rows,
                         lambda path: plot_fig3(rows, path), started, out)


def _markdown(args: argparse.Namespace, base: Mapping[str, Any], strengths: Sequence[float],
              rows: Sequence[Row], errors: int, provenance: Provenance) -> str:
    headers = ["edge_size (L1)", "seeds", "instances", "precision", "recall", "F1",
               "mean score UPI edges", "mean score other edges"]
    body = [[f"{strength:g}", str(seeds_in), str(count),
             *(PAPER.stat(stats[n]) for n in ("precision", "recall", "f1")),
             EDGE_SCORES.stat(stats["upi_score"]), EDGE_SCORES.stat(stats["other_score"])]
            for strength, seeds_in, count, stats in rows]
    other = {k: v for k, v in base.items() if k != "edge_size"}
    return "\n".join([
        "Fig. 3: GNNExplainer's L1 penalty (PyG edge_size) on Redundancy", "",
        f"Seeds {args.seeds}, first {args.limit} positive graphs per seed, {args.budget:g} CPU s "
        f"per instance; other settings ({args.settings}): {json.dumps(other, sort_keys=True)}.",
        "The paper does not list its grid of strengths; ours: "
        + ", ".join(f"{s:g}" for s in strengths) + ".", "",
        render_table(headers, body), "",
        f"Mean ± std (ddof={DDOF}) over seeds of per-seed means; a seed with an out-of-time "
        "instance is left out"
        + (f"; {errors} failed instances left out" if errors else "")
        + ". Edge scores are GNNExplainer's mask values in [0, 1]. The paper: "
        "precision and recall stay perfect at every strength and the redundant UPI edges "
        "are not sparsified.", "", provenance.line()]) + "\n"


def plot_fig3(rows: Sequence[Row], path: Path) -> None:
    """Top: precision, recall, F1 vs strength; bottom: mean score on UPI vs other edges."""
    figure, (top, bottom) = figure_canvas(2, 6.0, 6.0)
    strengths = [row[0] for row in rows]

    def series(name: str) -> tuple[list[float], list[float]]:
        stats = [row[3][name] for row in rows]
        return ([math.nan if s is None else s.mean for s in stats],
                [0.0 if s is None or s.std is None else s.std for s in stats])

    for name, label, marker in (("precision", "precision", "o"), ("recall", "recall", "s"),
                                ("f1", "F1", "^")):
        means, stds = series(name)
        top.errorbar(strengths, means, yerr=stds, marker=marker, capsize=3, label=label)
    top.set_ylabel("metric")
    top.set_ylim(-0.03, 1.05)
    top.legend(loc="lower left")
    top.grid(alpha=0.3)
    for name, label, marker in (("upi_score", "UPI edges", "o"),
                                ("other_score", "other edges", "s")):
        means, stds = series(name)
        bottom.errorbar(strengths, means, yerr=stds, marker=marker, capsize=3, label=label)
    bottom.set_ylabel("mean edge score")
    bottom.set_xlabel("L1 penalty strength (edge_size)")
    bottom.set_xscale("log")
    bottom.set_ylim(-0.03, 1.05)
    bottom.legend(loc="center left")
    bottom.grid(alpha=0.3)
    figure.suptitle("GNNExplainer on Redundancy (Fig. 3)")
    save_figure(figure, path)


FIGURE = FigureAblation("fig3", "GNNExplainer's L1 strength on Redundancy (Fig. 3)", run_fig3,
                        "0-4", 100)
