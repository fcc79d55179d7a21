"""Question: do the paper's node-task Rnd rows fit coins on the receptive field's edges and
their reverses? Yes: `docs/results/gracrbench/differences.md` (Rnd).

    .venv/bin/python studies/rnd_field.py [--tasks ...] [--instances 100] [--seed 0]
        [--markdown FILE]

Rnd flips a fair coin on every edge of the target's receptive field (the UPI issue's
definition) and scores 0 elsewhere. The receptive field is a set of directed edges: the
messages the target's output can hear. The paper's Rnd rows on the node tasks are
lower in precision than ours, by about as much as if its coins fell on those edges and
on their reverses too (an undirected "computational field"): the reverse of a message
into the target's cone is not in the UPI, so it adds draws that can only be wrong. This
runs the same coins on both fields; the metric and instances are the benchmark's, and
the benchmark keeps the receptive field.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np
import numpy.typing as npt
import torch
from arms import StudyArm, compare_arms_main, registered, summary
from torch import Tensor

from gracr.explainers import explainer_named
from gracr.explainers.base import Subject


def with_reverses(edge_index: npt.NDArray[np.int64], field: npt.NDArray[np.bool_]
                  ) -> npt.NDArray[np.bool_]:
    """`field` plus the reverse of each of its edges that the graph holds."""
    sources, targets = edge_index
    position = {(int(u), int(v)): i for i, (u, v) in enumerate(zip(sources, targets))}
    closed = field.copy()
    for i in np.flatnonzero(field):
        reverse = position.get((int(targets[i]), int(sources[i])))
        if reverse is not None:
            closed[reverse] = True
    return closed


def _coins_on_both_directions(subject: Subject, settings: Mapping[str, Any], seed: int
                              ) -> Tensor:
    """Rnd as registered, with its field closed under reversal (the same coins per edge)."""
    field = with_reverses(subject.edge_index.numpy(), np.asarray(subject.receptive_field))
    unrestricted = dataclasses.replace(subject, receptive_field=np.ones_like(field))
    coins = explainer_named("Rnd").run(unrestricted, settings, seed).edge_mask
    return coins * torch.as_tensor(field)


def main() -> None:
    arms: dict[str, StudyArm] = {"receptive field (ours)": registered("Rnd"),
                                 "receptive field, both directions": _coins_on_both_directions}
    compare_arms_main("Rnd", summary(__doc__), "field", arms,
                      ["RedBlueLeaf-NC", "Majority1Hop", "Majority2Hop"])


if __name__ == "__main__":
    main()
