"""GracrBench explainers: the interface, the registry, and every explainer we ship.

Importing this package registers the explainers (library ones from PyG/Captum in
`library`, our own in `flowx`, `lrp`, ...); `EXPLAINERS` maps their names (those of the
paper's Tables 2 and 3) to `ExplainerSpec`s.
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
    ExplainerSpec,
    Subject,
    edge_scores,
    explain,
    explainer_named,
    explainer_seed,
    register,
    settings_for,
    settings_hash,
)
from gracr.bench.explainers.library import BiasedGNNExplainer

__all__ = ["EXPLAINERS", "BiasedGNNExplainer", "ExplainerSpec", "Subject", "edge_scores",
           "explain", "explainer_named", "explainer_seed", "register", "settings_for",
           "settings_hash"]
