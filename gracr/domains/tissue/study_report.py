"""The tissue study's report: every unscored record of `DIR/attributions` scored against
the test samples' ground truth, class-stratified, beside the tissue note's numbers.

Per record (one model, explainer, settings and test sample; the scores signed as the
explainer gives them): average precision and AUROC against the counterfactual set (`None`
where the set is empty or the diagram was refused); Spearman's ρ against the Banzhaf and the Shapley
values; the share of |attribution| on decoys; deletion and insertion AUC over
`CURVE_STEPS` steps, on the record's model's pre-threshold output (a trained model's logit,
the compiled readout unit's pre-activation `z`) for the induced subgraph of the kept cells.

Tables (`DIR/tables/`, Markdown and CSV, each printed):

- `headlines`: each of the note's headline findings (`published.HEADLINES`), what this
  study measured for it, reproduced / not reproduced / not run, and the most likely reason
  where it differs, marked tested or untested (`gracr.domains.tissue.headlines`);
- `metric-ap`, `metric-auroc`, `metric-spearman-shapley`, `metric-spearman-banzhaf`, `metric-decoy-mass`,
  `metric-deletion`, `metric-insertion`: per model (not randomised) and explainer at its
  default settings, the metric for positives, negatives, pooled and balanced (weighted to the test split's share of
  positives), mean ± std over samples, with the note's pooled number of that explainer
  beside it only on the rows the note ran (trained GIN and GATv2, no controls, and the
  model-free baselines);
- `seeds`: the ratio-1 models' AP by class, mean ± std over model seeds (the dataset seed
  is one per study: run the study per dataset seed, then `gracr.domains.tissue.study_seeds`,
  `gracrc tissue-seeds`, for that spread);
- `cost`: what the folder's results cost: the ground truth and the training (wall
  seconds), the explanations per model kind (CPU seconds of the records), and the total;
- `randomisation`: Spearman between each explainer's attributions on a model and on each
  randomised copy (cascading top-k, independent layer) by class, mean over samples, and on
  how many samples the attributions changed at all (ρ is undefined on constant scores);
- `epochs`: GNNExplainer's AP and randomisation correlation (the model against its
  fully randomised copy) by class at each epoch budget;
- `between_class`: IG − Marker AP per sample, by class, and the share of its variance
  between the classes (the note's 92 %);
- `training` and `probes`: test AUC per trained model; the linear probe of the engaged
  property on frozen node embeddings, trained against random-init (the compiled model:
  its last hidden state against its fully randomised copy).

Its size (700–800 lines) is the scoring of each record, the rows kept from one report
to the next, and the tables above, each with the note's numbers beside it where the note
has them; the headline verdicts themselves are `gracr.domains.tissue.headlines`.

Every mean over samples carries its 95 % bootstrap interval in brackets
(`gracr.stats.bootstrap_interval`: the samples resampled, within each class for the
balanced mean and within each model seed for a mean over seeds). A column of the note's
values is filled only on rows of models the note ran; the randomisation and budget notes
only on trained models.

Every record's metrics also go to `DIR/metrics.jsonl` (one JSON line each, no scores).

Each record is scored once: its row of metrics (and, for a randomised model's record, the
Spearman of its scores against its base model's on the same sample, explainer and
settings, `ρ base`, and whether they `changed` at all, both computed while both records
hold their scores) is kept in `DIR/rows.jsonl` under the record's key and the digest of
its scores (`ROWS_FILE`, an append-only log: a key's last line is its row), and a later
report takes it from there while the record's scores are the same. So the tables can be
drawn from records without their raw scores (`scores: null` and their digest, an
archived record, `gracr.domains.tissue.study_archive`) whose rows were kept; only the
figures need scores, and the archive keeps the records they draw. A randomised record's
correlation is computed again when its base record's scores change (its base explained
again) and both records hold their scores.

Figures (`DIR/figures/`): the first positive and the first negative test sample with its
ground truth and the attributions of the compiled model (IG, GNNExplainer), the first GIN
and CNN (IG), the first GATv2 (attention rollout) and two baselines.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from gracr.explainers.randomisation import randomisation_correlation
from gracr.explainers.metric import (between_class_share, decoy_mass, deletion_curve,
                                insertion_curve, ranking, signed_rank_correlation, stratified,
                                Sample)
from gracr.bench.record import RESULTS_FILE, Record, RecordKey, latest_records, read_records
from gracr.bench.report import DASH, TABLE, NumberFormat, render_table, write_table

from gracr.data.graph import Graph
from gracr.errors import GracrError
from gracr.files import append_lines, atomic_writer, write_text
from gracr.domains.tissue.baselines import BASELINE_NAMES
from gracr.domains.headlines import counted
from gracr.domains.tissue.headlines import NOTE_HEADLINES, Evidence
from gracr.domains.tissue.phases import (CNN, COMPILED, IMAGE, ModelFile, StudyData, StudySettings,
                                 ARCHITECTURES as GRAPH_ARCHITECTURES,
                                 control_of, explained_positions, latest_by_model,
                                 name_architecture, ratio_name, read_jsonl, read_truth,
                                 trained_name)
from gracr.domains.tissue.study_names import ATTRIBUTIONS, METRICS
from gracr.stats import Interval, Stat, bootstrap_interval

CURVE_STEPS = 20
METRICS_FILE = "metrics.jsonl"
ROWS_FILE = "rows.jsonl"
DIGEST = "scores_sha256"   # an archived record's field: the digest of the scores it lost
SLUGS = {"AP": "ap", "AUROC": "auroc", "ρ Shapley": "spearman-shapley", "ρ Banzhaf": "spearman-banzhaf",
         "decoy mass": "decoy-mass", "deletion AUC": "deletion", "insertion AUC": "insertion"}
ABOUT = {"AP": "against the counterfactual set",
         "AUROC": "against the counterfactual set (the molecule task's node AUROC)",
         "ρ Shapley": "Spearman against the exact Shapley values",
         "ρ Banzhaf": "Spearman against the exact Banzhaf values",
         "decoy mass": "share of |attribution| on decoy T cells",
         "deletion AUC": f"{CURVE_STEPS} steps, on the logit or the compiled pre-activation; "
                         "lower is better",
         "insertion AUC": f"{CURVE_STEPS} steps, on the logit or the compiled "
                          "pre-activation; higher is better"}
# The note's findings (`published.HEADLINES` keys) each table shows: the table carries a
# verdict line for each, under it.
TABLE_FINDINGS: dict[str, tuple[str, ...]] = {
    "metric-ap": ("gnnexplainer-below-random", "rollout-above-random", "ig-best-graph-method",
                  "marker-above-graph-methods", "shuffled-controls-high", "untrained-better",
                  "ig-baselines"),
    "metric-decoy-mass": ("tdensity-on-decoys", "decoys-near-chance", "cnn-baseline"),
    "seeds": ("seed-ordering", "gnnexplainer-gatv2-never-above-random"),
    "randomisation": ("rollout-randomisation", "gnnexplainer-randomisation", "ig-only-survives",
                      "randomisation-grid"),
    "epochs": ("gnnexplainer-budgets-below-random", "gnnexplainer-budget-slope"),
    "between_class": ("class-split-reverses", "between-class-share"),
    "training": ("test-auc",),
    "probes": ("probe-random-init",),
    "ratios": ("randomisation-grid", "test-auc"),
}
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]


CLASS_PARTS = ("positives", "negatives", "pooled")
# Spreads over model and dataset seeds: the sample std, none for one seed (`gracr.stats`).
SEED_DDOF = 1
_PERCENT = NumberFormat(0, DASH)


def _stratified_cells(values: Sequence[float | None], classes: Sequence[Sample],
                      share: float, balanced: bool = True) -> list[str]:
    """`values` (one per sample) as table cells: positives, negatives, pooled and (when
    `balanced`) weighted to `share` positives (`metric.stratified`), each mean ± std over
    samples followed by its bootstrap interval (the balanced one resamples each class
    apart)."""
    parts = stratified(values, classes, share)
    known = [(float(v), c) for v, c in zip(values, classes) if v is not None]
    by_class = {label: [v for v, c in known if c == label] for label in ("positive", "negative")}
    intervals: list[Interval | None] = [bootstrap_interval(by_class["positive"]),
                                        bootstrap_interval(by_class["negative"]),
                                        bootstrap_interval([v for v, _ in known])]
    stats = [parts.positive, parts.negative, parts.pooled]
    if balanced:
        stats.append(parts.balanced)
        intervals.append(None if parts.balanced is None else bootstrap_interval(
            [v for v, _ in known], [c for _, c in known],
            {"positive": share, "negative": 1.0 - share}))
    return [TABLE.with_interval(TABLE.stat(stat), interval)
            for stat, interval in zip(stats, intervals)]


def _class_cells(values: Sequence[float | None], classes: Sequence[Sample]) -> list[str]:
    """`values` (one per sample) as table cells for `CLASS_PARTS`, with intervals."""
    return _stratified_cells(values, classes, 0.5, balanced=False)


def note_ran(model: ModelFile, explainer: str) -> bool:
    """Whether the note gives a number for this row: a trained GIN or GATv2 (any ratio,
    no shuffled-label or untrained control), or a model-free baseline (scored here on the
    compiled model's records, in the note on its own). Not the CNN: the note's numbers
    are of graph methods on the graph models, and of its CNN it says only that it sits
    above random on decoys."""
    if explainer in BASELINE_NAMES:
        return True
    return control_of(model.name) == "" and model.architecture in GRAPH_ARCHITECTURES


def _fully_randomised(models: Sequence[ModelFile], base: str) -> ModelFile | None:
    """The cascading copy of `base` that randomises every layer (the highest top-k)."""
    return max((m for m in models if m.base == base and m.mode == "cascading"),
               key=lambda m: int(str(m.variant).split("-")[-1]), default=None)


def _mean_std(values: Sequence[float | None]) -> str:
    """mean ± std over model seeds (`SEED_DDOF`), the known values only."""
    return TABLE.stat(Stat.of([v for v in values if v is not None], SEED_DDOF))


def _seed_interval(samples: Sequence[tuple[float, int]]) -> Interval | None:
    """The interval of the mean of the seeds' means of (value, seed) pairs: the samples
    resampled within each seed, every seed weighted alike."""
    seeds = {seed for _, seed in samples}
    return bootstrap_interval([v for v, _ in samples], [seed for _, seed in samples],
                              {seed: 1.0 for seed in seeds})


class Outputs:
    """The pre-threshold output of each model file on induced subgraphs of a test graph:
    `output(model, graph)(kept)` → one value per row of `kept` (`[K, N]`), the K subgraphs
    evaluated as one disjoint union."""

    def __init__(self, models: dict[str, ModelFile]) -> None:
        self.models = models
        self.loaded: dict[str, Any] = {}

    def output(self, name: str, graph: Any) -> Callable[[BoolArray], FloatArray]:
        import torch

        from gracr.bench.models import load_model_file
        from gracr.executor.model import CompiledGNN

        if name not in self.loaded:
            self.loaded[name] = load_model_file(self.models[name].path)
        model = self.loaded[name]
        compiled = isinstance(model, CompiledGNN)
        if compiled:
            module = model.to_pyg(surrogate=False)
            x = torch.as_tensor(model.features(graph))
            types = model.edge_types(graph)
        else:
            module = model.module
            x = torch.as_tensor(graph.feature_values, dtype=torch.float32)
            types = None
        sources, targets = graph.sources, graph.targets
        attributes = None if graph.edge_attr is None else graph.edge_attr

        def evaluate(kept: BoolArray) -> FloatArray:
            copies, n = kept.shape
            position = np.cumsum(kept, axis=1) - 1 + np.cumsum(
                np.concatenate([[0], kept.sum(axis=1)[:-1]]))[:, None]
            keep_edge = kept[:, sources] & kept[:, targets]
            copy_of, edge = np.nonzero(keep_edge)
            edge_index = torch.as_tensor(np.stack([position[copy_of, sources[edge]],
                                                   position[copy_of, targets[edge]]]))
            copy_of_node, node = np.nonzero(kept)
            batch = torch.as_tensor(copy_of_node)
            with torch.no_grad():
                if compiled:
                    kwargs = ({} if types is None
                              else {"edge_type": torch.as_tensor(types[edge])})
                    out = module.pre_activation(x[node], edge_index, batch,
                                                num_graphs=copies, **kwargs)
                else:
                    edge_attr = (None if attributes is None else
                                 torch.as_tensor(attributes[edge], dtype=torch.float32))
                    out = module(x[node], edge_index, edge_attr, batch, num_graphs=copies)
            values: FloatArray = out.reshape(-1).double().numpy()
            return values

        return evaluate


def score_records(records: Sequence[Record], truth: dict[int, dict[str, Any]],
                  data: StudyData, models: dict[str, ModelFile], graphs: dict[float, list[Any]],
                  curves: Callable[[ModelFile], bool]) -> list[dict[str, Any]]:
    """One row of metrics per record (see the module docstring; the records hold their
    scores); curves only for the models `curves` accepts (they cost a forward pass per
    step)."""
    outputs = Outputs(models)
    rows = []
    for record in records:
        scores = np.asarray(record.extra["scores"], dtype=np.float64)
        sample = truth[record.graph]
        table = data.tables[data.test[record.graph]]
        model = models[record.variant]
        counterfactual = sample["counterfactual"]
        ranked = None
        if counterfactual is not None and any(counterfactual):
            ranked = ranking(scores, np.asarray(counterfactual, dtype=np.bool_))
        row: dict[str, Any] = {
            "model": record.variant, "explainer": record.explainer,
            "config": record.config_hash, "epochs": record.config.get("epochs"),
            "sample": record.graph, "class": record.sample,
            "AP": None if ranked is None else ranked.average_precision,
            "AUROC": None if ranked is None else ranked.auroc,
            "ρ Shapley": signed_rank_correlation(scores, sample["shapley"]),
            "ρ Banzhaf": signed_rank_correlation(scores, sample["banzhaf"]),
            "decoy mass": decoy_mass(scores, table.decoy),
            "deletion AUC": None, "insertion AUC": None}
        if curves(model):
            graph = graphs[model.ratio][record.graph]
            output = outputs.output(record.variant, graph)
            row["deletion AUC"] = deletion_curve(scores, output, steps=CURVE_STEPS).auc
            row["insertion AUC"] = insertion_curve(scores, output, steps=CURVE_STEPS).auc
        rows.append(row)
    return rows


def read_rows(root: Path) -> dict[RecordKey, dict[str, Any]]:
    """The kept metric row of each record key (`ROWS_FILE`, its last line per key)."""
    path = root / ROWS_FILE
    rows: dict[RecordKey, dict[str, Any]] = {}
    for line in read_jsonl(path):
        key = line.get("key")
        if not isinstance(key, list) or len(key) != 8:
            raise GracrError(f"{path}: a line that is not a record's metric row; the file is "
                             "damaged (remove it and the report scores the records that "
                             "hold their scores again)")
        rows[(*key,)] = {name: value for name, value in line.items() if name != "key"}
    return rows


def base_key(record: Record, models: dict[str, ModelFile]) -> RecordKey | None:
    """The key of the record of the same instance on the model `record`'s model is a
    randomised copy of (None for a model not randomised)."""
    base = models[record.variant].base
    return None if base is None else (record.key[0], base, *record.key[2:])


def scores_digest(record: Record) -> str | None:
    """What names a record's scores: their sha256 (its first 16 hex digits) while it holds
    them, or the digest an archived record carries in their place (`DIGEST`); None for
    neither. A kept row is a record's only while they agree, so a record explained again
    is scored again."""
    scores = record.extra.get("scores")
    if scores is None:
        digest = record.extra.get(DIGEST)
        return digest if isinstance(digest, str) else None
    # 64 bits: it tells one explanation of a record from another, and is kept per record.
    return hashlib.sha256(json.dumps(scores, separators=(",", ":")).encode()).hexdigest()[:16]


def metric_rows(root: Path, records: Sequence[Record], truth: dict[int, dict[str, Any]],
                data: StudyData, models: dict[str, ModelFile],
                graphs: dict[float, list[Any]]) -> list[dict[str, Any]]:
    """The row of each of `records` (ok, on `models`) that has one: kept in `ROWS_FILE`
    for the same scores (`digest`), or scored now from its scores (`score_records`, curves
    on the models not randomised) and kept; a randomised record's row with `paired` (its
    base's record held scores when it was scored), `base` (those scores' digest), `ρ base`
    and `changed`. A row carries the record's `scores` while the record holds them (for
    the figures). A record without scores or a kept row (of a model the archive did not
    score) has none."""
    kept = read_rows(root)
    digests = {r.key: scores_digest(r) for r in records}
    scores = {r.key: np.asarray(r.extra["scores"], dtype=np.float64) for r in records
              if r.extra.get("scores") is not None}
    valid = {r.key: kept[r.key] for r in records if r.key in kept
             and digests[r.key] is not None and kept[r.key].get("digest") == digests[r.key]}
    fresh = [r for r in records if r.key not in valid and r.key in scores]
    made = {r.key: {**row, "digest": digests[r.key]} for r, row in zip(
        fresh, score_records(fresh, truth, data, models, graphs,
                             curves=lambda m: m.base is None))}
    rows = {**valid, **made}
    changed = set(made)
    for record in records:
        base, row = base_key(record, models), rows.get(record.key)
        if base is None or row is None or not (
                record.key in made or row.get("base") != digests.get(base)):
            continue
        paired = base in scores and record.key in scores
        again = {**row, "paired": paired, "base": digests[base] if paired else None,
                 "ρ base": (randomisation_correlation(scores[base], scores[record.key])
                            if paired else None),
                 "changed": (bool(not np.array_equal(scores[base], scores[record.key]))
                             if paired else None)}
        if record.key in made or json.dumps(again) != json.dumps(row):
            rows[record.key] = again
            changed.add(record.key)
    if changed:
        append_lines(root / ROWS_FILE, [json.dumps({"key": list(key), **rows[key]},
                                                   separators=(",", ":"))
                                        for key in rows if key in changed])
    return [{**rows[r.key], **({"scores": scores[r.key]} if r.key in scores else {})}
            for r in records if r.key in rows]


def test_graphs(data: StudyData) -> dict[float, list[Any]]:
    """Each view's test graphs (by ratio), read from its task's graphs file."""
    graphs: dict[float, list[Any]] = {}
    for ratio, task_file in data.test_tasks.items():
        lines = (task_file.parent / "graphs.jsonl").read_text(encoding="utf-8").splitlines()
        graphs[ratio] = [Graph.from_json(json.loads(line)) for line in lines]
    return graphs


def _default_settings(explainer: str) -> dict[str, Any]:
    from gracr.explainers import explainer_named, settings_for

    return settings_for(explainer_named(explainer), None)


def _default_config(explainer: str) -> str:
    from gracr.explainers import settings_hash

    return settings_hash(_default_settings(explainer))


def write_report(root: Path, settings: StudySettings, data: StudyData,
                 models: Sequence[ModelFile], say: Callable[[str], None],
                 sparse_test_auc: Mapping[str, float | None] | None = None) -> None:
    """Score every record and write (and print) the tables and figures; the headline
    table reads the sparse-driver family's test AUCs too (`study.sparse_test_aucs`)."""
    from gracr.domains.tissue import published as note

    NOTED = {"AP": note.AP_POOLED, "decoy mass": note.DECOY_MASS}
    by_name = {m.name: m for m in models}
    latest, _ = latest_records(read_records(root / ATTRIBUTIONS / RESULTS_FILE))
    explained = set(explained_positions(data, settings.test_limit))
    # In one order whatever order the records were written in (a resumed or unpacked
    # folder, Ray): each model, explainer and settings' positives, then its negatives, by
    # instance, as one run writes them. The bootstrap resamples the lists in this order.
    done = sorted((r for r in latest if r.status == "ok" and r.variant in by_name
                   and r.graph in explained),
                  key=lambda r: (r.variant, r.explainer, r.config_hash,
                                 r.sample != "positive", r.instance))
    failed = [r for r in latest if r.status != "ok"]
    truth = read_truth(root)
    graphs = test_graphs(data)
    defaults = {name: _default_config(name) for name in {r.explainer for r in done}}
    epochs_default = _default_settings("GNNExplainer")["epochs"]
    rows = metric_rows(root, done, truth, data, by_name, graphs)
    if len(rows) < len(done):
        say(f"{len(done) - len(rows)} records have neither scores nor a kept row of "
            f"metrics ({root / ROWS_FILE}); they are not reported")
    _write_metrics(root / METRICS_FILE, rows, by_name, defaults)
    share = data.positive_share
    tables = root / "tables"

    # Every table waits for the headline verdicts, which read what the tables measured,
    # then is printed and written with the verdict lines of the findings it shows.
    pending: list[tuple[str, str, Sequence[str], list[list[str]]]] = []

    def emit(name: str, title: str, headers: Sequence[str], body: list[list[str]]) -> None:
        pending.append((name, title, headers, body))

    # -- metrics by model and explainer, stratified
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if by_name[row["model"]].base is None and row["config"] == defaults[row["explainer"]]:
            groups[(row["model"], row["explainer"])].append(row)
    for metric in METRICS:
        headers = ["model", "explainer", "n+", "n−", "positives", "negatives", "pooled",
                   "balanced"] + (["note: pooled"] if metric in NOTED else [])
        body = []
        for (name, explainer), group in sorted(groups.items()):
            classes = [r["class"] for r in group]
            body.append([name, _shown(explainer, group[0]["epochs"]),
                         str(classes.count("positive")),
                         str(classes.count("negative"))]
                        + _stratified_cells([r[metric] for r in group], classes, share)
                        + ([NOTED[metric].get(explainer, "")
                            if note_ran(by_name[name], explainer) else ""]
                           if metric in NOTED else []))
        emit(f"metric-{SLUGS[metric]}", f"{metric} by class (test split: {_PERCENT.percent(share)} "
             f"positive; balanced = weighted to it; mean ± std over samples [95 % bootstrap "
             f"interval]; {ABOUT[metric]}; the note's value only on the rows it ran: trained "
             f"GIN and GATv2 models and the model-free baselines)", headers, body)

    # -- model seeds (ratio 1)
    seed_rows = []
    for architecture in GRAPH_ARCHITECTURES:
        for explainer in sorted({r["explainer"] for r in rows}):
            per_seed: list[list[float | None]] = []   # [positives, negatives, pooled]
            # Each class's (and both classes') AP per sample, labelled by seed: the interval
            # of the mean of the seeds' means resamples the samples within each seed.
            samples: list[list[tuple[float, int]]] = [[], [], []]
            for seed in settings.model_seeds:
                group = groups.get((trained_name(architecture, 1.0, seed), explainer), [])
                if any(r["AP"] is not None for r in group):
                    parts = stratified([r["AP"] for r in group], [r["class"] for r in group],
                                       share)
                    per_seed.append([None if part is None else part.mean
                                     for part in (parts.positive, parts.negative, parts.pooled)])
                    for r in group:
                        if r["AP"] is not None:
                            samples[0 if r["class"] == "positive" else 1].append((r["AP"], seed))
                            samples[2].append((r["AP"], seed))
            if per_seed:
                seed_rows.append([architecture, explainer, str(len(per_seed))]
                                 + [TABLE.with_interval(
                                     _mean_std([means[k] for means in per_seed]),
                                     _seed_interval(samples[k]))
                                    for k in range(len(CLASS_PARTS))]
                                 + [note.SEED_SPREAD if explainer == "IG" else ""])
    emit("seeds", "AP over model seeds at ratio 1 (mean ± std of the seeds' means [95 % "
         "bootstrap interval of that mean, samples resampled within each seed]; trained "
         "models only; the dataset seeds' spread: gracrc tissue-seeds)",
         ["model", "explainer", "seeds", *CLASS_PARTS, "note"], seed_rows)

    # -- randomisation
    # Each randomised record's row holds its correlation with its base's (`metric_rows`).
    keyed: dict[tuple[str, str, str, int], dict[str, Any]] = {
        (r["model"], r["explainer"], r["config"], r["sample"]): r for r in rows}
    sample_class = {r["sample"]: r["class"] for r in rows}
    by_sample: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = defaultdict(dict)
    for (name, explainer, config, sample), keyed_row in keyed.items():
        by_sample[(name, explainer, config)][sample] = keyed_row
    random_rows = []
    full_randomisation: dict[tuple[str, str], list[float | None]] = {}
    for model in models:
        if model.base is None:
            continue
        top = _fully_randomised(models, model.base)
        fully = top is not None and model.name == top.name
        for explainer in sorted({r["explainer"] for r in rows if r["model"] == model.name}):
            config = defaults[explainer]
            randomised = by_sample.get((model.name, explainer, config), {})
            paired = [s for s, r in randomised.items() if r.get("paired")]
            correlations: list[float | None] = [randomised[s]["ρ base"] for s in paired]
            # ρ is undefined when the randomised model's scores are constant; whether they
            # moved at all is still the control's question.
            changed = sum(bool(randomised[s]["changed"]) for s in paired)
            if fully:
                full_randomisation[(model.base, explainer)] = list(correlations)
            # The note randomised trained models by cascading; its values go on those rows.
            noted = model.mode == "cascading" and control_of(model.base) == ""
            random_rows.append([model.base, model.mode or "", model.variant or "",
                                _shown(explainer, epochs_default),
                                str(len(paired)), f"{changed}/{len(paired)}"]
                               + _class_cells(correlations, [sample_class[s] for s in paired])
                               + [note.RANDOMISATION.get(explainer, "") if noted else ""])
    emit("randomisation", "Spearman of attributions on a model and on its randomised copy "
         "by class (mean ± std over samples [95 % bootstrap interval]; changed: samples "
         "whose attributions differ at all; the note's values on trained models' cascading "
         "rows only)", ["model", "mode", "randomised", "explainer", "n", "changed",
                        *(f"ρ {part}" for part in CLASS_PARTS), "note (cascading)"],
         random_rows)

    # -- GNNExplainer's budget
    epoch_rows = []
    budgets: dict[tuple[str, int], list[dict[str, Any]]] = {}
    budget_rho: dict[tuple[str, int], list[float | None]] = {}
    for model in models:
        if model.base is not None or model.ratio != 1.0 or model.name.endswith(
                ("-shuffled", "-untrained")):
            continue
        top = _fully_randomised(models, model.name)
        for epochs in settings.epochs:
            group = [r for r in rows if r["model"] == model.name
                     and r["explainer"] == "GNNExplainer" and r["epochs"] == epochs]
            if not group:
                continue
            rhos: list[float | None] = []
            for r in group:
                other = None if top is None else keyed.get(
                    (top.name, "GNNExplainer", r["config"], r["sample"]))
                rhos.append(other["ρ base"] if other is not None and other.get("paired")
                            else None)
            classes = [r["class"] for r in group]
            budgets[(model.name, epochs)] = group
            budget_rho[(model.name, epochs)] = rhos
            epoch_rows.append([model.name, str(epochs), str(len(group))]
                              + _class_cells([r["AP"] for r in group], classes)
                              + _class_cells(rhos, classes)
                              + [note.GNNEXPLAINER_EPOCHS.get(epochs, "")
                                 if control_of(model.name) == "" else ""])
    emit("epochs", "GNNExplainer's budget: AP and Spearman against the fully randomised "
         "model (cascading, every layer), by class (mean ± std over samples [95 % bootstrap "
         "interval]; the note's values on trained models only)",
         ["model", "epochs", "n", *(f"AP {part}" for part in CLASS_PARTS),
          *(f"ρ {part}" for part in CLASS_PARTS), "note ρ (pooled)"], epoch_rows)

    # -- IG against the marker heuristic, per sample
    between_rows = []
    for model in [m for m in models if m.base is None and m.ratio == 1.0]:
        ig = {r["sample"]: r for r in groups.get((model.name, "IG"), [])}
        marker = {r["sample"]: r for r in groups.get((COMPILED, "Marker"), [])}
        both = [s for s in ig if s in marker and ig[s]["AP"] is not None
                and marker[s]["AP"] is not None]
        if not both:
            continue
        differences: list[float | None] = [ig[s]["AP"] - marker[s]["AP"] for s in both]
        classes = [ig[s]["class"] for s in both]
        positives, negatives, _, balanced = _stratified_cells(differences, classes, share)
        between = between_class_share(differences, classes)
        between_rows.append([model.name, str(len(both)), positives, negatives, balanced,
                             _PERCENT.percent(between)])
    emit("between_class", "IG − Marker AP per sample (mean ± std [95 % bootstrap interval]; "
         f"note, on trained models: {note.IG_MINUS_MARKER['positive']} positives, "
         f"{note.IG_MINUS_MARKER['negative']} negatives, {note.IG_MINUS_MARKER['balanced']}; "
         f"{note.BETWEEN_CLASS_VARIANCE} between the classes)",
         ["model", "samples", "positives", "negatives", "balanced", "variance between"],
         between_rows)

    # -- training and probes
    training = latest_by_model(read_jsonl(root / "models" / "training.jsonl"))
    emit("training", f"Trained models (note: test AUC {note.TEST_AUC})",
         ["model", "epochs", "best epoch", "val AUC", "test AUC", "seconds"],
         [[t["model"], str(t.get("epochs", "–")), str(t.get("best_epoch", "–")),
           _fmt(t.get("best_validation_auc")), _fmt(t.get("test_auc")),
           _fmt(t.get("seconds"))] for t in training])
    probes = latest_by_model(read_jsonl(root / "models" / "probes.jsonl"))
    emit("probes", f"Linear probe of the engaged property on frozen node embeddings "
         f"(the compiled model: its last hidden state, and in the random-init column its "
         f"fully randomised copy; note: random init {note.PROBE_AUC_RANDOM_INIT})",
         ["model", "probe AUC trained", "probe AUC random init"],
         [[p["model"], _fmt(p["trained"]), _fmt(p["random_init"])] for p in probes])

    # -- the radius-ratio grid: each measure per architecture and ratio, over training seeds
    emit("ratios", "The radius-ratio grid: each measure per architecture and graph radius / "
         "label radius, over the trained models of every training seed (mean of the "
         "models' values (lowest–highest, models); AP pooled over both classes; ρ: "
         "Spearman against the fully randomised copy, cascading; no controls)",
         ["architecture", "measure", "explainer",
          *(f"ratio {ratio:g}" for ratio in settings.ratios)],
         ratio_rows(settings, groups, full_randomisation,
                    {t["model"]: t.get("test_auc") for t in training},
                    {p["model"]: p.get("trained") for p in probes}, share))

    # -- what the study cost
    emit("cost", "What this folder's results cost (ground truth and training: wall seconds "
         "as each line records them, one torch thread; explanations: CPU seconds of every "
         "latest record, a batch's shared evenly, failed ones included; a resumed or "
         "unpacked folder counts the records it holds, not the runs that were stopped)",
         ["part", "items", "seconds", "hours", "clock"],
         cost_rows(truth, training, latest, by_name))

    # -- the note's headline findings, each against what the tables above measured
    evidence = Evidence(
        models, groups, budgets, budget_rho, full_randomisation,
        {t["model"]: t.get("test_auc") for t in training},
        {p["model"]: p.get("random_init") for p in probes},
        sparse_test_auc or {})
    headlines = NOTE_HEADLINES.rows(evidence)
    emit("headlines", f"The note's headline findings against this study ({counted(headlines)}; "
         "means of per-model means over samples [95 % bootstrap interval]; trained = the "
         "ratio-1 GIN and GATv2 models of every training seed, no controls)",
         NOTE_HEADLINES.headers, headlines)
    tables.mkdir(parents=True, exist_ok=True)
    for table_name, table_title, table_headers, table_body in pending:
        text = render_table(table_headers, table_body)
        findings = TABLE_FINDINGS.get(table_name, ())
        verdicts = "\n\n" + NOTE_HEADLINES.beside(headlines, findings) if findings else ""
        say(f"\n{table_title}\n\n{text}{verdicts}")
        write_text(tables / f"{table_name}.md", f"{text}{verdicts}\n")
        write_table(str(tables / f"{table_name}.csv"), table_headers, table_body)
    if failed:
        say(f"\n{len(failed)} explanations did not finish (error or out of time), e.g. "
            f"{failed[0].variant} {failed[0].explainer}: {failed[0].error or failed[0].status}")
    _figures(root, data, truth, rows, graphs, say)


def ratio_rows(settings: StudySettings, groups: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]],
               full_randomisation: Mapping[tuple[str, str], Sequence[float | None]],
               test_auc: Mapping[str, Any], probe: Mapping[str, Any],
               share: float) -> list[list[str]]:
    """The rows of the radius-ratio table: per architecture, the test AUC and the probe
    AUC of the trained models, then per explainer their AP (pooled, at the explainer's
    default settings) and ρ at full randomisation; each cell the mean of the models of
    every training seed at one ratio, with the lowest and highest."""
    def cell(values: Sequence[Any]) -> str:
        found = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
        if not found:
            return DASH
        return (f"{TABLE.number(sum(found) / len(found))} ({TABLE.number(min(found))}–"
                f"{TABLE.number(max(found))}, {len(found)})")

    def mean(values: Sequence[float | None]) -> float | None:
        found = [v for v in values if v is not None]
        return sum(found) / len(found) if found else None

    def pooled_ap(group: Sequence[Mapping[str, Any]]) -> float | None:
        if not any(r["AP"] is not None for r in group):
            return None
        parts = stratified([r["AP"] for r in group], [r["class"] for r in group], share)
        return None if parts.pooled is None else parts.pooled.mean

    rows = []
    for architecture in GRAPH_ARCHITECTURES:
        names = {ratio: [trained_name(architecture, ratio, seed) for seed in settings.model_seeds]
                 for ratio in settings.ratios}
        rows.append([architecture, "test AUC", "", *(cell([test_auc.get(n) for n in names[r]])
                                                     for r in settings.ratios)])
        rows.append([architecture, "probe AUC (trained)", "",
                     *(cell([probe.get(n) for n in names[r]]) for r in settings.ratios)])
        explainers = sorted({explainer for name, explainer in groups
                             if any(name in names[r] for r in settings.ratios)})
        for measure in ("AP", "ρ"):
            for explainer in explainers:
                rows.append([architecture, measure, explainer, *(cell([
                    pooled_ap(groups.get((n, explainer), [])) if measure == "AP"
                    else mean(full_randomisation.get((n, explainer), []))
                    for n in names[r]]) for r in settings.ratios)])
    return rows


def cost_rows(truth: Mapping[int, Mapping[str, Any]], training: Sequence[Mapping[str, Any]],
               records: Sequence[Record], models: Mapping[str, ModelFile]) -> list[list[str]]:
    """The cost table: the ground truth, the training per architecture, the explanations
    per model kind (the compiled model, or an architecture at a ratio, with its controls and
    randomised copies), and the total."""
    # A truth line's seconds are per step (the diagram, its counterfactuals, Banzhaf and
    # Shapley values; `gracr.bdd.relevance.relevance_record`).
    rows: list[tuple[str, int, float, str]] = [
        ("ground truth", len(truth), sum(float(step) for t in truth.values()
                                         for step in (t.get("seconds") or {}).values()),
         "wall")]
    trained: dict[str, list[float]] = defaultdict(list)
    for line in training:
        trained[name_architecture(str(line["model"])) or str(line["model"])].append(
            float(line.get("seconds") or 0.0))
    rows += [(f"training {name}", len(seconds), sum(seconds), "wall")
             for name, seconds in trained.items()]
    explained: dict[str, list[float]] = defaultdict(list)
    for record in records:
        model = models.get(record.variant)
        if model is not None:
            kind = (COMPILED if model.architecture == COMPILED
                    else f"{model.architecture} {ratio_name(model.ratio)}")
            explained[kind].append(record.cpu_seconds or 0.0)
    rows += [(f"explanations, {kind}", len(seconds), sum(seconds), "CPU")
             for kind, seconds in explained.items()]
    total = sum(seconds for _, _, seconds, _ in rows)
    return ([[part, str(items), f"{seconds:.1f}", f"{seconds / 3600:.2f}", clock]
             for part, items, seconds, clock in rows]
            + [["in all", DASH, f"{total:.1f}", f"{total / 3600:.2f}", "wall + CPU"]])


def _write_metrics(path: Path, rows: Sequence[dict[str, Any]], models: dict[str, ModelFile],
                   defaults: dict[str, str]) -> None:
    """Every scored record's metrics, one JSON line each (no scores), rewritten per report:
    what `gracr.domains.tissue.study_seeds` reads across studies of several dataset seeds."""
    with atomic_writer(path) as out:
        for row in rows:
            model = models[row["model"]]
            line = {key: row[key] for key in ("model", "explainer", "config", "epochs",
                                              "sample", "class", *METRICS)}
            line.update(randomised=model.base is not None,
                        default=row["config"] == defaults[row["explainer"]])
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


def _shown(explainer: str, epochs: Any) -> str:
    """An explainer's name in a table; GNNExplainer's with its budget (the note: its
    randomisation correlation depends on it, so every figure states it)."""
    return f"{explainer} ({epochs} epochs)" if explainer == "GNNExplainer" else explainer


def _fmt(value: Any) -> str:
    """A number read from a JSON log (an int or a float), as the tables write numbers."""
    return TABLE.number(None if value is None else float(value))


def drawn_samples(data: StudyData) -> list[int]:
    """The test samples the figures draw (`_figures`: the first explained sample of each
    class), whose records an archive keeps with their scores."""
    return explained_positions(data, 1)


def _figures(root: Path, data: StudyData, truth: dict[int, dict[str, Any]],
             rows: Sequence[dict[str, Any]], graphs: dict[float, list[Any]],
             say: Callable[[str], None]) -> None:
    from gracr.domains.tissue.figure import draw_tissue_sample

    shown = [(COMPILED, "IG"), (trained_name("GIN", 1.0, 0), "IG"),
             (trained_name("GATv2", 1.0, 0), "AttentionRollout"), (COMPILED, "GNNExplainer"),
             (COMPILED, "Marker"), (COMPILED, "NearestT"), (trained_name(CNN, IMAGE, 0), "IG")]
    for label in ("positive", "negative"):
        sample = next((s for s in drawn_samples(data)
                       if any(r["sample"] == s and r["class"] == label for r in rows)), None)
        if sample is None:
            continue
        attributions = {f"{model} {explainer}": r["scores"] for model, explainer in shown
                        for r in rows if r["model"] == model and r["explainer"] == explainer
                        and r["sample"] == sample and r["config"] == _default_config(explainer)
                        and "scores" in r}
        graph = graphs[1.0][sample]
        edges = np.stack([graph.sources, graph.targets], axis=1)
        path = root / "figures" / f"{label}-sample-{sample}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        counterfactual = truth[sample]["counterfactual"]
        draw_tissue_sample(data.tables[data.test[sample]], edges,
                           None if counterfactual is None
                           else np.asarray(counterfactual, dtype=np.bool_),
                           np.asarray(truth[sample]["shapley"]), attributions, path,
                           title=f"test sample {sample} ({label})")
        say(f"figure: {path}")
