"""The one brute-force oracle: gracr's ground truth against its definitions.

`gracr.bdd.brute` computes the UPI and the signed relevance by enumerating every
subgraph; this module runs gracr's engines on the same instance (each BDD backend,
with and without the exact shortcuts, in each variable order) or takes answers
computed elsewhere (a dataset's stored UPI), and lists every way they differ from
the enumeration, and every UPI edge or node outside the receptive field. The
property tests (UPI, typed UPI, relevance) and the input fuzzer all ask it, so there
is one statement of what "agrees with brute force" means. Cost: `2^|variables|`
evaluations, for graphs of about a dozen edges or nodes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from gracr.bdd.backend import BACKENDS
from gracr.bdd.brute import brute_force_masks, brute_force_relevance, subset_values
from gracr.bdd.build import Over
from gracr.bdd.relevance import Relevance, relevance
from gracr.bdd.upi import (
    UpiReport,
    VariableOrder,
    node_receptive_field,
    receptive_field,
    upi_report,
)
from gracr.data.graph import Graph
from gracr.dsl.program import Program

BoolArray = npt.NDArray[np.bool_]

# Exact values against float64 ones computed from the diagram: 1e-9 is far above the
# rounding of sums over at most 2^12 subsets and far below a difference of 1/C(12, 6).
RELEVANCE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class UpiAnswer:
    """A UPI by enumeration: the label and the masks over edges and nodes (a part that
    is no variable under `over` is false)."""

    label: int
    mask: BoolArray
    node_mask: BoolArray


def _mask_text(mask: BoolArray) -> str:
    return str(mask.astype(int).tolist())


def upi_disagreements(prog: Program, graph: Graph, target: int | None = None, *,
                      over: Over = "edges", backends: Iterable[str] = BACKENDS,
                      shortcuts: Iterable[bool] = (False, True),
                      orders: Iterable[VariableOrder] = ("computation",),
                      reorder: bool = False,
                      answers: Mapping[str, tuple[int, BoolArray]] | None = None
                      ) -> tuple[UpiAnswer, list[str]]:
    """The UPI by enumeration, and every disagreement with it: of `upi_report` under
    each backend × shortcuts × order, of each of `answers` (name -> (label, edge mask),
    over edges), and of the true UPI with the receptive fields. Empty list: all agree."""
    label, mask, node_mask = brute_force_masks(prog, graph, target, over)
    truth = UpiAnswer(label, mask, node_mask)
    problems: list[str] = []
    for backend, shortcut, order in itertools.product(backends, shortcuts, orders):
        report: UpiReport = upi_report(prog, graph, target, over, backend=backend,
                                       reorder=reorder, shortcuts=shortcut, order=order)
        where = f"over {over}, {backend}, shortcuts={shortcut}, order={order}"
        if report.label != label:
            problems.append(f"{where}: label {report.label}, brute force {label}")
        if report.mask.shape != mask.shape or report.mask.dtype != np.bool_ \
                or not np.array_equal(report.mask, mask):
            problems.append(f"{where}: edge mask {_mask_text(report.mask)}, "
                            f"brute force {_mask_text(mask)}")
        if not np.array_equal(report.node_mask, node_mask):
            problems.append(f"{where}: node mask {_mask_text(report.node_mask)}, "
                            f"brute force {_mask_text(node_mask)}")
    for name, (given_label, given_mask) in (answers or {}).items():
        if given_label != label or not np.array_equal(given_mask, mask):
            problems.append(f"{name}: label {given_label}, edges {_mask_text(given_mask)}; "
                            f"brute force label {label}, edges {_mask_text(mask)}")
    if (mask & ~receptive_field(prog, graph, target)).any():
        problems.append(f"the UPI {_mask_text(mask)} leaves the receptive field")
    if (node_mask & ~node_receptive_field(prog, graph, target)).any():
        problems.append(f"the node UPI {_mask_text(node_mask)} leaves the node receptive field")
    return truth, problems


@dataclass(frozen=True)
class RelevanceAnswer:
    """Signed relevance by definition: exact `Fraction`s, one per node."""

    label: int
    counterfactual: BoolArray
    min_counterfactual: int | None
    banzhaf: list[Fraction]
    shapley: list[Fraction]


def relevance_disagreements(prog: Program, graph: Graph, target: int | None = None, *,
                            backends: Iterable[str] = BACKENDS
                            ) -> tuple[RelevanceAnswer, Relevance | None, list[str]]:
    """Signed relevance by enumeration, the last backend's report, and every way
    `relevance` under each backend differs from it: label, counterfactual set, minimum
    flip size, exact method, Banzhaf and Shapley values (within
    `RELEVANCE_TOLERANCE`), the Shapley values' efficiency, and the target's zeros."""
    label, counterfactual, minimum, beta, phi = brute_force_relevance(prog, graph, target)
    truth = RelevanceAnswer(label, counterfactual, minimum, beta, phi)
    problems: list[str] = []
    if sum(phi) != _grand_coalition_gain(prog, graph, target):
        problems.append("the brute-force Shapley values are not efficient")
    report: Relevance | None = None
    for backend in backends:
        report = relevance(prog, graph, target, backend=backend)
        checks = {
            "label": report.label == label,
            "counterfactual set": report.counterfactual is not None
            and report.counterfactual.tolist() == counterfactual.tolist(),
            "minimum flip size": report.min_counterfactual == minimum,
            "exact Shapley": report.shapley_method == "exact" and report.shapley_stderr is None,
            "Banzhaf": bool(np.allclose(report.banzhaf, [float(b) for b in beta],
                                        atol=RELEVANCE_TOLERANCE)),
            "Shapley": bool(np.allclose(report.shapley, [float(s) for s in phi],
                                        atol=RELEVANCE_TOLERANCE)),
            "efficiency": abs(float(report.shapley.sum()) - float(sum(phi)))
            < RELEVANCE_TOLERANCE,
            "target's zeros": target is None or (
                report.counterfactual is not None and not report.counterfactual[target]
                and report.shapley[target] == 0),
        }
        problems.extend(f"{backend}: {what} differs from brute force"
                        for what, same in checks.items() if not same)
    return truth, report, problems


def _grand_coalition_gain(prog: Program, graph: Graph, target: int | None) -> int:
    """v(all nodes) − v(no node but the target): what efficient Shapley values sum to."""
    values = subset_values(prog, graph, target, "nodes")
    return int(values[-1]) - int(values[0])
