"""Rnd's field: the receptive field's directed edges (ours) against both directions.

    .venv/bin/python benchmarks/rnd_field.py [--tasks ...] [--instances 100] [--seed 0]
        [--markdown FILE]

Rnd flips a fair coin on every edge of the target's receptive field (the UPI issue's
definition) and scores 0 elsewhere. The receptive field is a set of directed edges: the
messages the target's output can hear. The paper's Rnd rows on the node tasks are
lower in precision than ours, by about as much as if its coins fell on those edges and
on their reverses too (an undirected "computational field"): the reverse of a message
into the target's cone is not in the UPI, so it adds draws that can only be wrong. This
runs the same coins on both fields; the metric and instances are the benchmark's.
A diagnostic, not a change to the explainer.
"""

from __future__ import annotations

import dataclasses
from contextlib import AbstractContextManager
from typing import Any, Mapping
from unittest import mock

import numpy as np
import numpy.typing as npt
from arms import Arm, compare_arms_main, unchanged
import torch
from torch import Tensor

from gracr.bench.explainers import EXPLAINERS
from gracr.bench.explainers.base import Subject

# The registered Rnd, kept before any arm replaces it in the registry.
REGISTERED_RND = EXPLAINERS["Rnd"]


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
    coins = REGISTERED_RND.run(unrestricted, settings, seed)
    return coins * torch.as_tensor(field)


def _both_directions(_: object) -> AbstractContextManager[Any]:
    spec = dataclasses.replace(REGISTERED_RND, run=_coins_on_both_directions)
    return mock.patch.dict(EXPLAINERS, {"Rnd": spec})


def main() -> None:
    arms: dict[str, Arm] = {"receptive field (ours)": unchanged,
                            "receptive field, both directions": _both_directions}
    compare_arms_main("Rnd", __doc__.splitlines()[0], "field", arms,
                      ["RedBlueLeaf-NC", "Majority1Hop", "Majority2Hop"])


if __name__ == "__main__":
    main()
