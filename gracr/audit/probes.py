"""Shortcut probes: a simple classifier per probe, cross-validated, and the verdict rule.

Every probe is scored by stratified k-fold cross-validation: the classifier of fold i is
fitted on the other folds' rows only (`cross_validate` hands it `features[train]`, never a
test row), its answers on fold i's rows are kept, and the accuracy and the AUC are those of
the pooled out-of-fold answers. The classifier is a depth-limited decision tree: degree
shortcuts are thresholds (App. B: classes 0/1 of BAShapes by degree, 2/3 by the
neighbours' mean degree), which a tree finds and a linear model need not.

The verdict (issue 39): a probe is a shortcut when its accuracy is at least the majority
rate + 0.1 and either reaches the near-perfect bar (0.99) or reaches the lower end of the
95 % confidence interval of the best trained model's test accuracy (mean − 1.96·sd/√n over
seeds, sd with ddof=1): a probe at or above what the model reaches explains the model's
accuracy without the motif.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from gracr.audit.data import AuditData
from gracr.audit.features import Probe
from gracr.errors import GracrError
from gracr.stats import Stat

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
NEAR_PERFECT = 0.99
OVER_MAJORITY = 0.1
CONFIDENCE_Z = 1.96
MAX_TREE_DEPTH = 8


class Classifier(Protocol):
    def fit(self, features: FloatArray, labels: IntArray) -> Any: ...

    def predict_proba(self, features: FloatArray) -> FloatArray: ...


@dataclass(frozen=True)
class Fold:
    train: IntArray
    test: IntArray


def stratified_folds(labels: IntArray, folds: int, seed: int) -> tuple[Fold, ...]:
    """`folds` stratified folds of the rows (seeded); fewer when a class has fewer rows
    (at least 2: every row is tested by a classifier that never saw it)."""
    smallest = int(np.bincount(labels)[np.unique(labels)].min())
    count = min(folds, smallest)
    if count < 2:
        raise GracrError(f"a class has {smallest} instance(s): cross-validation needs at "
                         f"least 2 of each class")
    splitter = StratifiedKFold(n_splits=count, shuffle=True, random_state=seed)
    return tuple(Fold(np.asarray(train, dtype=np.int64), np.asarray(test, dtype=np.int64))
                 for train, test in splitter.split(np.zeros(len(labels)), labels))


def decision_tree(seed: int) -> Classifier:
    tree: Classifier = DecisionTreeClassifier(max_depth=MAX_TREE_DEPTH, min_samples_leaf=2,
                                              random_state=seed)
    return tree


@dataclass(frozen=True)
class CrossValidated:
    """Out-of-fold class probabilities (one row per instance, one column per class of
    `classes`) and the per-fold accuracies."""

    classes: tuple[int, ...]
    probabilities: FloatArray
    fold_accuracies: tuple[float, ...]


def cross_validate(features: FloatArray, labels: IntArray, folds: Sequence[Fold],
                   make: Callable[[int], Classifier], seed: int) -> CrossValidated:
    classes = tuple(int(c) for c in np.unique(labels))
    column = {c: i for i, c in enumerate(classes)}
    probabilities = np.zeros((len(labels), len(classes)), dtype=np.float64)
    accuracies = []
    for fold in folds:
        classifier = make(seed)
        classifier.fit(features[fold.train], labels[fold.train])
        fitted = [column[int(c)] for c in getattr(classifier, "classes_", classes)]
        answer = np.zeros((len(fold.test), len(classes)), dtype=np.float64)
        answer[:, fitted] = classifier.predict_proba(features[fold.test])
        probabilities[fold.test] = answer
        predicted = np.asarray(classes)[answer.argmax(axis=1)]
        accuracies.append(float((predicted == labels[fold.test]).mean()))
    return CrossValidated(classes, probabilities, tuple(accuracies))


@dataclass(frozen=True)
class ProbeResult:
    """A probe's cross-validated accuracy (pooled out of fold; `folds`: its spread over
    folds) and macro one-vs-rest AUC, beside the majority rate; `shortcut` is the verdict
    (set by `with_verdict` once the trained models are known)."""

    name: str
    accuracy: float
    folds: Stat
    auc: float | None
    majority: float
    shortcut: bool = False


def run_probe(probe: Probe, data: AuditData, folds: int = 5, seed: int = 0,
              classes: tuple[int, ...] | None = None,
              make: Callable[[int], Classifier] = decision_tree) -> ProbeResult:
    """The probe's cross-validated result; with `classes`, on the instances of those
    classes only (how well it separates them, as Fig. 6 asks of classes 2 and 3)."""
    features = probe.rows(data)
    labels = data.instance_labels
    if classes is not None:
        keep = np.isin(labels, classes)
        features, labels = features[keep], labels[keep]
    scored = cross_validate(features, labels, stratified_folds(labels, folds, seed), make,
                            seed)
    predicted = np.asarray(scored.classes)[scored.probabilities.argmax(axis=1)]
    counts = np.bincount(labels)
    fold_stat = Stat.of(scored.fold_accuracies, ddof=1)
    assert fold_stat is not None
    return ProbeResult(probe.name, float((predicted == labels).mean()), fold_stat,
                       _auc(labels, scored), float(counts.max() / counts.sum()))


def _auc(labels: IntArray, scored: CrossValidated) -> float | None:
    if len(scored.classes) < 2:
        return None
    if len(scored.classes) == 2:
        return float(roc_auc_score(labels == scored.classes[1], scored.probabilities[:, 1]))
    return float(roc_auc_score(labels, scored.probabilities, multi_class="ovr",
                               labels=list(scored.classes)))


def confidence_low(model: Stat) -> float:
    """The lower end of the 95 % normal confidence interval of a mean over seeds (the
    mean itself for one seed)."""
    spread = 0.0 if model.std is None else CONFIDENCE_Z * model.std / math.sqrt(model.n)
    return model.mean - spread


def is_shortcut(accuracy: float, majority: float, best_model: Stat | None) -> bool:
    """The verdict rule of the module docstring."""
    if accuracy < majority + OVER_MAJORITY:
        return False
    if accuracy >= NEAR_PERFECT:
        return True
    return best_model is not None and accuracy >= confidence_low(best_model)
