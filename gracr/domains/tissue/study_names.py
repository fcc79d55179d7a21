"""The names the tissue study offers on the command line: its explainers and its metrics.

They live apart from `study` and `study_report` because those import torch and
torch-geometric, and `gracrc` builds its whole parser (every subcommand's choices and
defaults) before running any command: reading the names from here keeps every `gracrc`
call, `gracrc --help` included, free of that import.
"""

from __future__ import annotations

EXPLAINERS: tuple[str, ...] = ("IG", "IG-mean", "GNNExplainer", "Saliency", "GraphSVX")
METRICS: tuple[str, ...] = ("AP", "AUROC", "ρ Shapley", "ρ Banzhaf", "decoy mass",
                            "deletion AUC", "insertion AUC")
