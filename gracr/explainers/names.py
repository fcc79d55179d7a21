"""Names of explainers that light modules need without loading the explainers (torch)."""

# The explainers of the Gracr paper's Tables 2 and 3 (§5, App. H) and its random baseline,
# in the tables' order: `--explainers paper`.
PAPER_EXPLAINERS: tuple[str, ...] = (
    "Saliency", "IG", "Deconv", "GuidedBP", "GNNExplainer", "GraphMask", "SubgraphX",
    "PGMExplainer", "GraphSVX", "FlowX", "LRP", "Rnd")
