"""The tissue note's six model-free baselines and GATv2 attention rollout, registered as
GracrBench explainers.

Each is an explainer like any other (`gracr.explainers.register`): it gives node
scores only, from the explained graph itself (`Subject.graph`): the cells' positions
(graph JSON `"pos"`, which the tissue generator writes), their six markers (the
numeric `"features"`, in `gracr.domains.tissue.CHANNELS` order) and the edges; it reads no
model. The scorers are `gracr.domains.tissue.baselines`; their settings are the fields of
`BaselineContext` (`tumour_mean` `None`: the generator's tumour row), and a run's seed
seeds `Rnd-cells` and `Blob`.

`IG-mean` is IG from the mean marker vector (by default the generator's,
`expected_markers`) instead of all markers 0: the note runs both. On the trained tissue
models it explains several samples at once (IG's batch path, each sample from its own
baseline: `gracr.explainers.batch`); the baselines and the rollout explain one at a time.

`AttentionRollout` (node scores) explains a trained GATv2 (`gracr.domains.tissue.trained`,
`Subject.of_trained`) by `gracr.domains.tissue.probes.attention_rollout`; any other model is
refused by name.

Installed, this module is the entry point `tissue-baselines` of the group
`gracr.explainers`, so the names (and, through `gracr.domains.tissue.trained`, the trained
models' file format) resolve in every process that asks for them; being
a domain's explainers (`domain="tissue"`), they and `AttentionRollout` run when named,
never as part of `--explainers all`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np
import torch
from torch import Tensor
from torch_geometric.explain import Explanation

from gracr.explainers.base import Batch, ExplainerSpec, ExplainFn, Subject, register
from gracr.explainers.batch import node_attribution_together, separable_graph_nodes
from gracr.errors import GracrError
from gracr.domains.tissue.baselines import BASELINE_NAMES, BaselineContext, baseline_scores
from gracr.domains.tissue.generator import MarkerModel, TissueSettings
from gracr.domains.tissue.table import CELL_TYPES, CHANNELS, OTHER, TCELL, TUMOUR
from gracr.domains.tissue.trained import GATv2

_DEFAULTS = BaselineContext()


def _context(settings: Mapping[str, Any]) -> BaselineContext:
    mean = settings["tumour_mean"]
    return BaselineContext(
        tumour_mean=_DEFAULTS.tumour_mean if mean is None
        else tuple(float(v) for v in mean),
        density_radius_um=float(settings["density_radius_um"]),
        blob_length_scale_um=float(settings["blob_length_scale_um"]),
        blob_bumps=int(settings["blob_bumps"]))


def _runner(name: str) -> ExplainFn:
    def run(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
        graph = subject.graph
        if graph is None or graph.pos is None or graph.feature_values is None:
            raise GracrError(f"{name} scores cells from their positions and markers: the "
                             f"graph needs 'pos' and 'features' (the tissue generator "
                             f"writes both)")
        if graph.feature_values.shape[1] != len(CHANNELS):
            raise GracrError(f"{name} reads the {len(CHANNELS)} tissue markers "
                             f"({', '.join(CHANNELS)}); the graph has "
                             f"{graph.feature_values.shape[1]} features")
        edges = np.stack([graph.sources, graph.targets], axis=1)
        values = baseline_scores(name, graph.pos, graph.feature_values, edges, seed,
                                 _context(settings))
        return Explanation(node_mask=torch.as_tensor(values))

    return run


SETTINGS: dict[str, Any] = {
    "tumour_mean": None,
    "density_radius_um": _DEFAULTS.density_radius_um,
    "blob_length_scale_um": _DEFAULTS.blob_length_scale_um,
    "blob_bumps": _DEFAULTS.blob_bumps,
}

for _name in BASELINE_NAMES:
    register(ExplainerSpec(name=_name, run=_runner(_name), defaults=dict(SETTINGS),
                           source="gracr.domains.tissue.baselines (model-free; the tissue note)",
                           levels=frozenset({"node"}), domain="tissue"))


def _attention_rollout(subject: Subject, settings: Mapping[str, Any], seed: int
                       ) -> Explanation:
    from torch_geometric.data import Data

    from gracr.domains.tissue.probes import attention_rollout

    module = getattr(subject.model, "module", None)
    if not isinstance(module, GATv2):
        raise GracrError("AttentionRollout reads a trained GATv2's attention; this model has "
                         "none")
    graph = Data(x=subject.x, edge_index=subject.edge_index, edge_attr=subject.edge_attr,
                 num_nodes=subject.num_nodes)
    return Explanation(node_mask=torch.as_tensor(attention_rollout(module, graph)))


def expected_markers(settings: TissueSettings = TissueSettings(),
                     markers: MarkerModel = MarkerModel()) -> tuple[float, ...]:
    """The mean marker vector of the generator's cells: each type's mean row weighted by
    its share of the cells (tumour, tcell, the rest other), `IG-mean`'s default baseline.
    A fixed vector rather than a sample's own mean, which would move with its label (a
    positive sample holds more engaged T cells)."""
    other = 1.0 - settings.tumour_share - settings.tcell_share
    shares = {TUMOUR: settings.tumour_share, TCELL: settings.tcell_share, OTHER: other}
    return tuple(float(sum(shares[kind] * markers.mean[index][channel]
                           for index, kind in enumerate(CELL_TYPES)))
                 for channel in range(len(CHANNELS)))


def _integrated_gradients_from_mean(subject: Subject, settings: Mapping[str, Any],
                                    seed: int) -> Explanation:
    """IG (`gracr.explainers.library`'s, the same steps and derivative) from every cell at
    the mean marker vector `baseline` instead of all features 0: the note's "dataset-mean
    variant"."""
    from gracr.explainers import explainer_named

    if subject.level != "node":
        raise GracrError("IG-mean attributes the cells' markers: it runs at node level")
    baselines = _mean_baseline(subject, settings).unsqueeze(0)
    return explainer_named("IG").run(subject, {"n_steps": settings["n_steps"],
                                               "derivative": settings["derivative"],
                                               "baselines": baselines}, seed)


def _mean_baseline(subject: Subject, settings: Mapping[str, Any]) -> Tensor:
    """`[N, F]`: every cell of `subject` at IG-mean's `baseline` vector (default
    `expected_markers`)."""
    mean = settings["baseline"]
    vector = torch.as_tensor(expected_markers() if mean is None
                             else [float(v) for v in mean], dtype=subject.x.dtype)
    if vector.shape != (subject.x.shape[1],):
        raise GracrError(f"IG-mean's baseline needs one value per node feature "
                         f"({subject.x.shape[1]}), got {vector.shape[0]}")
    return vector.reshape(1, -1).expand(subject.num_nodes, -1).contiguous()


def _integrated_gradients_from_mean_together(subjects: Sequence[Subject],
                                             settings: Mapping[str, Any],
                                             seeds: Sequence[int]) -> list[Explanation]:
    """IG-mean of several subjects at once (`gracr.explainers.batch`): IG's batch path
    from each subject's own mean baseline. The baseline is a constant per cell, so a
    union's baseline is each graph's."""
    return node_attribution_together(
        subjects, "IntegratedGradients", str(settings["derivative"]),
        {"n_steps": settings["n_steps"]},
        baselines=[_mean_baseline(subject, settings) for subject in subjects])


def _trained_graph_nodes(subject: Subject) -> bool:
    """IG-mean's batch path's subjects: node scores of separable trained graph
    classifiers (`separable_graph_nodes`). A compiled model's IG-mean is not batched: the
    study does not run it (its presence bit has no mean), and IG's own direct path on
    a compiled model takes no baseline."""
    return subject.trained and separable_graph_nodes(subject)


register(ExplainerSpec(name="IG-mean", run=_integrated_gradients_from_mean,
                       defaults={"n_steps": 50, "derivative": "exact", "baseline": None},
                       batch=Batch(_integrated_gradients_from_mean_together,
                                   _trained_graph_nodes),
                       source="Captum IntegratedGradients from the mean marker vector "
                              "(gracr.domains.tissue.explainers; the tissue note)",
                       levels=frozenset({"node"}), domain="tissue"))


register(ExplainerSpec(name="AttentionRollout", run=_attention_rollout, defaults={},
                       source="Abnar & Zuidema 2020, on GATv2's attention (gracr.domains.tissue.probes)",
                       levels=frozenset({"node"}), domain="tissue",
                       models=frozenset({"trained"})))
