"""An `AuditReport` as Markdown (with the degree figure beside it) and as JSON."""

from __future__ import annotations

from typing import Any

from gracr.audit.models import ConfigResult
from gracr.audit.perturb import removal_text
from gracr.audit.published import published_test
from gracr.audit.probes import NEAR_PERFECT, OVER_MAJORITY, ProbeResult
from gracr.audit.replacement import Replacement
from gracr.audit.run import AuditReport
from gracr.bench.report.formatting import DASH, TABLE, NumberFormat
from gracr.bench.report.tables import render_table
from gracr.stats import Stat

PERCENT = NumberFormat(1, DASH)   # shares of instances, one decimal of a percent


def _probe_row(name: str, result: ProbeResult) -> list[str]:
    return [name, TABLE.mean_pm(result.accuracy, result.folds.std),
            TABLE.number(result.auc), TABLE.number(result.majority),
            "yes" if result.shortcut else "no"]


def _config(model: ConfigResult) -> str:
    s = model.settings
    head = ", MLP head" if s.mlp_head else ""
    return f"{s.architecture.upper()} {s.layers} layers × {s.hidden}{head}"


def _paper(report: AuditReport, model: ConfigResult) -> str:
    if model.settings.architecture != "gin":
        return TABLE.missing
    return TABLE.stat(published_test(report.data.name, model.settings.layers))


def _budget(report: AuditReport) -> str:
    s = report.settings
    limit = "all" if s.perturb_limit is None else f"a seeded sample of at most {s.perturb_limit}"
    parts = [f"data seed {s.data_seed}", f"probes {s.folds}-fold"]
    if s.train:
        parts += [f"models over seeds {', '.join(map(str, s.seeds))}",
                  f"perturbation of {limit} correct motif instances"
                  + (", edges and nodes" if s.remove_nodes else "")]
    return "; ".join(parts)


def markdown(report: AuditReport, figure: str | None = None,
             flip_figure: str | None = None) -> str:
    """The report; `figure` and `flip_figure` name the degree and perturbation figures
    written beside it, if any."""
    data = report.data
    instances = len(data.instance_labels)
    lines = [f"# Shortcut audit: {data.name}", "",
             f"A {data.kind} task: {len(data.graphs)} graph(s), {instances} instances, "
             f"classes {', '.join(map(str, data.classes))}, majority rate "
             f"{TABLE.number(data.majority_rate)}.", "",
             f"Budget: {_budget(report)}.", "",
             "## Shortcut probes", "",
             f"A depth-limited decision tree per probe, {report.settings.folds}-fold "
             f"stratified cross-validation (accuracy of the pooled out-of-fold answers ± its "
             f"sd over folds; macro one-vs-rest AUC). A probe is a shortcut when its accuracy "
             f"is ≥ the majority rate + {OVER_MAJORITY} and ≥ {NEAR_PERFECT} or within the "
             f"95 % confidence interval of the best trained model's test accuracy.", "",
             render_table(["probe", "accuracy", "AUC", "majority", "shortcut"],
                          [_probe_row(p.name, p) for p in report.probes]), ""]
    if report.pairs:
        lines += ["Separation of each pair of classes (the probe on their instances only, "
                  "as Fig. 6 reads it):", "",
                  render_table(["probe", "classes", "accuracy", "AUC", "majority"],
                               [[p.probe, f"{p.classes[0]}/{p.classes[1]}",
                                 TABLE.number(p.result.accuracy), TABLE.number(p.result.auc),
                                 TABLE.number(p.result.majority)] for p in report.pairs]), ""]
    if figure is not None:
        lines += [f"![degree distributions per class]({figure})", ""]
    if report.models:
        seeds = len(report.settings.seeds)
        best = report.best
        binary = data.classes == (0, 1)
        lines += ["## Trained models", "",
                  f"Test and validation accuracy, mean ± sd over {seeds} seed(s) "
                  f"(stratified 80/10/10 split per seed, the epoch of best validation "
                  f"accuracy kept); near-perfect: every seed ≥ {NEAR_PERFECT} on test"
                  + (f" (accuracy and, beyond App. B, class 1's F1 ≥ {NEAR_PERFECT} too, so "
                     f"that answering the majority class on rare positives is not "
                     f"near-perfect). Test F1 is class 1's, at the same epoch."
                     if binary else "."), "",
                  render_table(["model", "epochs", "lr", "test"]
                               + (["test F1"] if binary else [])
                               + ["validation", "near-perfect", "paper's test (App. B)"],
                               [[_config(m), str(m.settings.epochs),
                                 f"{m.settings.learning_rate:g}", TABLE.stat(m.test)]
                                + ([TABLE.stat(m.f1)] if binary else [])
                                + [TABLE.stat(m.validation), "yes" if m.near_perfect else "no",
                                   _paper(report, m)]
                                for m in report.models]), ""]
        if best is not None:
            f1 = f", test F1 {TABLE.stat(best.f1)}" if binary else ""
            lines += [f"Best: {_config(best)}, test {TABLE.stat(best.test)}{f1}.", ""]
    if report.perturbation is not None:
        p = report.perturbation
        lines += ["## Perturbation outside the motif", "",
                  f"The best model's best seed: of {p.instances} correctly classified motif "
                  f"instances, {p.flipped} ({PERCENT.percent(p.share)}) flip when one "
                  f"{'edge or node' if report.settings.remove_nodes else 'edge'} strictly "
                  f"outside the motif but inside the receptive field is removed "
                  f"({p.removals} single removals tried).", ""]
        for flip in p.examples:
            where = "the graph" if flip.node is None else f"node {flip.node}"
            lines.append(f"- graph {flip.graph}, {where}: removing "
                         f"{removal_text(flip.removed)} turns class {flip.before} into "
                         f"{flip.after}")
        lines.append("")
        if flip_figure is not None:
            lines += [f"![the first example, as Figs. 8–9]({flip_figure})", ""]
    if report.replacement is not None:
        lines += ["## The motif replaced by hydrogen (Table 7)", "",
                  "Every correctly classified positive molecule with its motif (every match "
                  "of the rule) deleted and each bond that joined it to a kept atom given "
                  "back to that atom as hydrogens (one for a single bond: Table 7's \"single "
                  "hydrogen\"; Kekulé bond orders). Table 7 reports the share whose "
                  "prediction changes; a model that reads the rule keeps its positive answer "
                  "exactly where the rule still matches.", "",
                  f"The best model's best seed: {_replacement_text(report.replacement)}", ""]
    if report.compiled is not None:
        c = report.compiled
        lines += ["## gracr's compiled rule", "",
                  f"Accuracy {TABLE.number(c.accuracy)}; {c.perturbation.flipped} of "
                  f"{c.perturbation.instances} correctly classified motif instances flip "
                  f"outside the motif ({PERCENT.percent(c.perturbation.share)}).", ""]
        if c.replacement is not None:
            lines += [f"The motif replaced by hydrogen: {_replacement_text(c.replacement)}",
                      ""]
    elif report.no_rule is not None:
        lines += ["## gracr's compiled rule", "", f"Not run: {report.no_rule}.", ""]
    lines += ["## Verdict", ""] + [f"- {line}" for line in verdicts(report)]
    return "\n".join(lines) + "\n"


def _replacement_text(r: Replacement) -> str:
    skipped = []
    if r.nothing_left:
        skipped.append(f"{r.nothing_left} were all motif")
    if r.failed:
        skipped.append(f"{r.failed} could not be replaced ({r.failure})")
    return (f"of {r.instances} correctly classified positives, {r.replaced} replaced"
            + (f" ({'; '.join(skipped)})" if skipped else "")
            + f"; {r.several_matches} of these had several matches, {r.several_attachments} "
            f"several attachment bonds. The answer stays positive on {r.unchanged} "
            f"({PERCENT.percent(r.share)}) and changes on {r.replaced - r.unchanged} "
            f"({PERCENT.percent(r.changed_share)}); the rule still matches {r.rule_unchanged} "
            f"({PERCENT.percent(r.rule_share)}); positive where the rule no longer is: "
            f"{r.kept_without_motif}.")


def _replacement_verdict(who: str, r: Replacement) -> str:
    if not r.replaced:
        return f"hydrogen replacement ({who}): no correctly classified positive to replace"
    return (f"hydrogen replacement ({who}): stays positive on "
            f"{PERCENT.percent(r.share)} of {r.replaced} positives with the motif replaced "
            f"(the rule: {PERCENT.percent(r.rule_share)}); "
            + (f"positive without the motif on {r.kept_without_motif}"
               if r.kept_without_motif else "never positive without the motif"))


def verdicts(report: AuditReport) -> list[str]:
    found = []
    shortcuts = report.shortcuts
    found.append(f"shortcut probes: {', '.join(shortcuts)}" if shortcuts
                 else "shortcut probes: none")
    if report.models:
        near = [m for m in report.models if m.near_perfect]
        found.append("trained models: " + (f"{_config(near[0])} reaches the near-perfect bar "
                                           "on every seed" if near else
                                           "no configuration reaches the near-perfect bar "
                                           "on every seed"))
    if report.perturbation is not None:
        p = report.perturbation
        found.append(f"perturbation: the best model depends on edges outside the motif for "
                     f"{PERCENT.percent(p.share)} of its correct motif instances"
                     if p.flipped else "perturbation: no flip outside the motif")
    if report.replacement is not None:
        found.append(_replacement_verdict("best model", report.replacement))
    if report.compiled is not None:
        found.append(f"compiled rule: accuracy {TABLE.number(report.compiled.accuracy)}, "
                     f"{report.compiled.perturbation.flipped} flips")
        if report.compiled.replacement is not None:
            found.append(_replacement_verdict("compiled rule", report.compiled.replacement))
    elif report.no_rule is not None:
        found.append(f"compiled rule: not run ({report.no_rule})")
    return found


def _replacement_json(r: Replacement | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"instances": r.instances, "replaced": r.replaced, "unchanged": r.unchanged,
            "share_unchanged": r.share, "share_changed": r.changed_share,
            "rule_unchanged": r.rule_unchanged, "kept_without_motif": r.kept_without_motif,
            "nothing_left": r.nothing_left, "failed": r.failed, "failure": r.failure,
            "several_matches": r.several_matches,
            "several_attachments": r.several_attachments}


def _stat(stat: Stat) -> dict[str, Any]:
    return {"mean": stat.mean, "std": stat.std, "n": stat.n, "ddof": stat.ddof}


def to_json(report: AuditReport) -> dict[str, Any]:
    data = report.data
    best = report.best
    return {
        "data": {"name": data.name, "kind": data.kind, "graphs": len(data.graphs),
                 "instances": int(len(data.instance_labels)), "classes": list(data.classes),
                 "majority": data.majority_rate},
        "probes": [{"name": p.name, "accuracy": p.accuracy, "folds": _stat(p.folds),
                    "auc": p.auc, "majority": p.majority, "shortcut": p.shortcut}
                   for p in report.probes],
        "pairs": [{"probe": p.probe, "classes": list(p.classes),
                   "accuracy": p.result.accuracy, "auc": p.result.auc} for p in report.pairs],
        "models": [{"architecture": m.settings.architecture, "layers": m.settings.layers,
                    "hidden": m.settings.hidden, "mlp_head": m.settings.mlp_head,
                    "pooling": m.settings.pooling, "epochs": m.settings.epochs,
                    "learning_rate": m.settings.learning_rate, "test": _stat(m.test),
                    "test_f1": None if m.f1 is None else _stat(m.f1),
                    "validation": _stat(m.validation), "near_perfect": m.near_perfect,
                    "runs": [{"seed": r.seed, "test": r.test_accuracy, "test_f1": r.test_f1,
                              "validation": r.validation_accuracy} for r in m.runs]}
                   for m in report.models],
        "best": None if best is None else {"architecture": best.settings.architecture,
                                           "layers": best.settings.layers,
                                           "hidden": best.settings.hidden},
        "perturbation": None if report.perturbation is None else {
            "instances": report.perturbation.instances,
            "flipped": report.perturbation.flipped, "share": report.perturbation.share,
            "removals": report.perturbation.removals,
            "examples": [{"graph": f.graph, "node": f.node, "removed": list(f.removed),
                          "before": f.before, "after": f.after}
                         for f in report.perturbation.examples]},
        "replacement": _replacement_json(report.replacement),
        "compiled": None if report.compiled is None else {
            "accuracy": report.compiled.accuracy,
            "instances": report.compiled.perturbation.instances,
            "flipped": report.compiled.perturbation.flipped,
            "replacement": _replacement_json(report.compiled.replacement)},
        "no_rule": report.no_rule,
        "verdicts": verdicts(report),
    }
