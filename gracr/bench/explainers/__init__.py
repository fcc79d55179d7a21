"""GracrBench explainers: the interface, the registry, and every explainer we ship.

Importing this package registers the explainers (library ones from PyG/Captum in
`library`, our own in `flowx`, `lrp`, ...); `EXPLAINERS` maps their names (those of the
paper's Tables 2 and 3) to `ExplainerSpec`s. Explainers of your own: `register` a
function, `register_algorithm` a PyG `ExplainerAlgorithm`, and `load_plugins` (the CLI's
`--plugin`) the modules or files that do so.
"""

from gracr.bench.explainers import (  # noqa: F401  (register on import)
    flowx,
    graphmask_clean,
    graphsvx,
    library,
    lrp,
    subgraphx,
)
from gracr.bench.explainers.base import (
    EXPLAINERS,
    TRAINING_INSTANCES,
    ExplainerSpec,
    Subject,
    check_level,
    derives_node_scores,
    edge_scores,
    explain,
    explainer_named,
    explainer_seed,
    node_scores_from_edges,
    register,
    scores,
    settings_for,
    settings_hash,
    trained,
)
from gracr.bench.explainers.library import BiasedGNNExplainer, register_algorithm
from gracr.bench.explainers.plugins import load_plugins, loaded_plugins

__all__ = ["EXPLAINERS", "TRAINING_INSTANCES", "BiasedGNNExplainer", "ExplainerSpec", "Subject",
           "check_level", "derives_node_scores", "edge_scores", "explain", "explainer_named",
           "explainer_seed", "load_plugins", "loaded_plugins", "node_scores_from_edges",
           "register", "register_algorithm", "scores", "settings_for", "settings_hash",
           "trained"]
