"""Graph explainers: the protocol, the registry, every explainer we ship, and the metrics
that score their explanations. Usable without the benchmark (`gracr.bench`): `api.explain`
explains one graph, `api.score` scores the explanation against ground truth.

An explainer implements `Explainer`: `supports(task)` (an `ExplainerTask`) and
`explainer(subject, settings, seed)`, which returns PyG's `Explanation`.
`EXPLAINERS` maps the explainers' names (those of the Gracr paper's Tables 2 and 3, and
ours) to `ExplainerSpec`s: library ones from PyG/Captum in `library`, our own in `flowx`,
`lrp`, `graphsvx`, `subgraphx`, `graphmask_clean`. Explainers of your own: `register` an
`ExplainerSpec`, `register_algorithm` a PyG `ExplainerAlgorithm`, and `load_plugins` (the CLI's
`--plugin`) the modules or files that do so.

The names below are loaded on first use: asking for any of them imports every explainer
module, which registers it. Importing a light part (`gracr.explainers.metric`) loads
neither torch-geometric nor the explainers, so that `gracrc --help` stays fast.
"""

from __future__ import annotations

from gracr.lazy import lazy_attributes
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gracr.explainers.base import (EXPLAINERS, TRAINING_INSTANCES, Explainer,
                                       ExplainerSpec, ExplainerTask, Subject, check_level,
                                       derives_node_scores, edge_scores,
                                       explainer_named, explainer_seed, node_scores_from_edges,
                                       register, scores, settings_for, settings_hash, trained)
    from gracr.explainers.library import BiasedGNNExplainer, register_algorithm
    from gracr.explainers.names import PAPER_EXPLAINERS
    from gracr.explainers.plugins import load_plugins, loaded_plugins
    from gracr.explainers.randomisation import (randomisation_correlation,
                                                randomisation_variants, randomised_subject)

# The modules whose import registers explainers, in registration order.
_REGISTERING = ("flowx", "graphmask_clean", "graphsvx", "library", "lrp", "subgraphx")

_HOME = {
    **{name: "base" for name in (
        "EXPLAINERS", "TRAINING_INSTANCES", "Explainer", "ExplainerSpec", "ExplainerTask",
        "Subject", "check_level", "derives_node_scores", "edge_scores", "explainer_named",
        "explainer_seed", "node_scores_from_edges", "register", "scores", "settings_for",
        "settings_hash", "trained")},
    "BiasedGNNExplainer": "library", "register_algorithm": "library",
    "load_plugins": "plugins", "loaded_plugins": "plugins", "PAPER_EXPLAINERS": "names",
    **{name: "randomisation" for name in (
        "randomisation_correlation", "randomisation_variants", "randomised_subject")},
}

__all__ = ["BiasedGNNExplainer", "EXPLAINERS", "Explainer", "ExplainerSpec", "ExplainerTask",
           "PAPER_EXPLAINERS", "Subject", "TRAINING_INSTANCES", "check_level",
           "derives_node_scores", "edge_scores",
           "explainer_named", "explainer_seed", "load_plugins", "loaded_plugins",
           "node_scores_from_edges", "randomisation_correlation", "randomisation_variants",
           "randomised_subject", "register", "register_algorithm", "scores", "settings_for",
           "settings_hash", "trained"]
assert sorted(__all__) == sorted(_HOME)

__getattr__ = lazy_attributes(
    __name__, {name: f"gracr.explainers.{home}" for name, home in _HOME.items()}, globals(),
    first=[f"gracr.explainers.{module}" for module in _REGISTERING])
