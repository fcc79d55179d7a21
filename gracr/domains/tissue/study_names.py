"""The names the tissue study offers on the command line: its explainers and its metrics,
and its default batch size; and the folder of a study's records.

They live apart from `study` and `study_report` because those import torch and
torch-geometric, and `gracrc` builds its whole parser (every subcommand's choices and
defaults) before running any command: reading the names from here keeps every `gracrc`
call, `gracrc --help` included, free of that import.
"""

from __future__ import annotations

EXPLAINERS: tuple[str, ...] = ("IG", "IG-mean", "GNNExplainer", "Saliency", "GraphSVX")
# `gracrc tissue-study --batch`'s default: samples explained in one run where the explainer
# can (`gracr.explainers.batch`), measured by `benchmarks/tissue_batches.py`: on 300-cell
# samples the trained models gain more at 8 than at 16 (a union of 16 leaves the cache;
# GATv2's GNNExplainer at 400 epochs: 1.3x at 8, 0.9x at 16), the compiled one a little less.
BATCH = 8
# A study's explanation records: `DIR/attributions/results.jsonl`.
ATTRIBUTIONS = "attributions"
# Beside it, the records `gracrc tissue-study --replace-stale` moved out: explanations of
# models made with other settings, which the study trained again.
REPLACED_FILE = "replaced.jsonl"
METRICS: tuple[str, ...] = ("AP", "AUROC", "ρ Shapley", "ρ Banzhaf", "decoy mass",
                            "deletion AUC", "insertion AUC")
