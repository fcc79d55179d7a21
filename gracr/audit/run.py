"""`gracr.audit(...)`: the checks of App. B on one dataset, as one `AuditReport`.

The steps, each reported with its numbers: the shortcut probes (`gracr.audit.probes`), the
trained models over a small grid (`gracr.audit.models`), the perturbation outside the motif
of the best one (`gracr.audit.perturb`), for molecules the motif replaced by hydrogen
(`gracr.audit.replacement`, Table 7), and, when a rule is given, gracr's compiled model
through the same accuracy, perturbation and replacement. A molecule audit's rule is its
SMARTS's translation, when the SMARTS has one. The probes' verdicts come last: the rule
compares each probe with the best trained model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from gracr.audit.builtin import BUILTINS, builtin_named
from gracr.audit.compiled import CompiledModel
from gracr.audit.data import AuditData, read_audit_data
from gracr.audit.features import probe_named, probes_for
from gracr.audit.models import ConfigResult, TrainSettings, train_grid
from gracr.audit.molecules import MoleculeAudit
from gracr.audit.perturb import AuditModel, Perturbation, outside_motif
from gracr.audit.probes import ProbeResult, is_shortcut, run_probe
from gracr.audit.replacement import Replaced, Replacement, hydrogen_replacement, replace_motifs
from gracr.audit.tissue import NAME as TISSUE, tissue_data
from gracr.errors import GracrError
from gracr.dsl.program import Program

Tick = Callable[[str], None]
# The degree probes whose separation of each pair of classes is reported (Fig. 6: degree
# separates BAShapes' classes 0/1, "2-hop degree statistics" its classes 2/3).
PAIR_PROBES = ("degree", "neighbour degree", "k-hop degrees")


@dataclass(frozen=True)
class AuditSettings:
    """What an audit runs. `None` takes the dataset's own (a built-in's App. B settings,
    else App. B's BAShapes ones): `depths`, `epochs`, `learning_rate`; `hidden` the widths
    of the grid; `train` False skips models and perturbation (the probes alone);
    `remove_nodes` perturbs nodes outside the motif too."""

    folds: int = 5
    seeds: tuple[int, ...] = (0, 1, 2)
    architectures: tuple[str, ...] = ("gin",)
    depths: tuple[int, ...] | None = None
    hidden: tuple[int, ...] | None = None
    epochs: int | None = None
    learning_rate: float | None = None
    train: bool = True
    perturb_limit: int | None = 200
    remove_nodes: bool = False
    data_seed: int = 0

    def grid(self, base: TrainSettings, depths: tuple[int, ...]) -> tuple[TrainSettings, ...]:
        epochs = base.epochs if self.epochs is None else self.epochs
        rate = base.learning_rate if self.learning_rate is None else self.learning_rate
        return tuple(replace(base, architecture=a, layers=d, hidden=h, epochs=epochs,
                             learning_rate=rate)
                     for a in self.architectures for d in (self.depths or depths)
                     for h in (self.hidden or (base.hidden,)))


@dataclass(frozen=True)
class PairResult:
    """How well a probe separates two classes (on their instances alone)."""

    probe: str
    classes: tuple[int, int]
    result: ProbeResult


@dataclass(frozen=True)
class CompiledCheck:
    accuracy: float
    perturbation: Perturbation
    replacement: Replacement | None = None


@dataclass(frozen=True, eq=False)
class AuditReport:
    data: AuditData
    settings: AuditSettings
    probes: tuple[ProbeResult, ...]
    pairs: tuple[PairResult, ...]
    models: tuple[ConfigResult, ...]
    perturbation: Perturbation | None
    compiled: CompiledCheck | None
    replacement: Replacement | None = None   # the best model's, on molecules
    no_rule: str | None = None               # why a molecule audit has no compiled rule

    @property
    def best(self) -> ConfigResult | None:
        """The configuration with the best mean test accuracy (the first of equals)."""
        return max(self.models, key=lambda m: m.test.mean, default=None)

    @property
    def shortcuts(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.probes if p.shortcut)


@dataclass(frozen=True, eq=False)
class Source:
    """What an audit reads: the data, its training settings and depths, the compiled rule
    that labels it, when there is one (a GracrBench task's formula, a SMARTS's
    translation), and for molecules, the molecules."""

    data: AuditData
    settings: TrainSettings
    depths: tuple[int, ...]
    rule: Program | None = None
    molecules: MoleculeAudit | None = None


def load_data(source: str | AuditData | MoleculeAudit, seed: int = 0) -> Source:
    """The data named by `source`: a graph file, a built-in's name, a WOMBAT pattern
    (`P03`: `gracr.audit.wombat`, its dataset drawn with seed `seed`), `tissue` (generated
    tissue fields, `gracr.audit.tissue`, from seed `seed`), or a GracrBench task
    (a paper task's name or a `.toml` task file; its dataset seed `seed`); or molecules
    labelled by a SMARTS (`gracr.audit.molecules.molecule_audit`)."""
    if isinstance(source, AuditData):
        return Source(source, TrainSettings(), (2, 3))
    if isinstance(source, MoleculeAudit):
        return Source(source.data, TrainSettings(), (2, 3), source.rule, source)
    if os.path.exists(source) and not source.endswith(".toml"):
        return Source(read_audit_data(source), TrainSettings(), (2, 3))
    if source.lower() in {name.lower() for name in BUILTINS}:
        builtin = builtin_named(source)
        return Source(builtin.build(seed), builtin.settings, builtin.depths)
    from gracr.audit.wombat import is_pattern_name, pattern_named, wombat_data

    if source.lower() == TISSUE and not os.path.exists(source):
        data, rule = tissue_data(seed=seed)
        return Source(data, TrainSettings(), (2, 3), rule)

    if is_pattern_name(source) and not os.path.exists(source):
        data, rule = wombat_data(pattern_named(source), seed=seed)
        return Source(data, TrainSettings(), (2, 3), rule)
    from gracr.audit.tasks import task_data
    from gracr.bench.tasks import task_named

    try:
        task_named(source)
    except GracrError:
        if os.path.exists(source):
            raise
        raise GracrError(f"{source}: no such file, nor a built-in dataset "
                         f"({', '.join(BUILTINS)}), nor a GracrBench task, nor a WOMBAT "
                         f"pattern (P01 to P14), nor '{TISSUE}'") from None
    data, rule = task_data(source, seed)
    return Source(data, TrainSettings(), (2, 3), rule)


def audit(source: str | AuditData | MoleculeAudit, settings: AuditSettings = AuditSettings(),
          *, rule: Program | None = None, tick: Tick = lambda _: None) -> AuditReport:
    """Audit `source` (see the module docstring); `tick` hears each step as it starts. A
    GracrBench task brings its own compiled `rule`, molecules their SMARTS's; `rule`
    overrides either."""
    loaded = load_data(source, settings.data_seed)
    data, base, depths = loaded.data, loaded.settings, loaded.depths
    no_rule = None
    if rule is None:
        rule = loaded.rule
        no_rule = loaded.molecules.no_rule if loaded.molecules is not None else None
    replaced: dict[int, Replaced] | None = None
    if loaded.molecules is not None and (settings.train or rule is not None):
        tick("replace the motif by hydrogen")
        replaced = replace_motifs(loaded.molecules)
    probes = []
    for probe in probes_for(data.kind):
        tick(f"probe {probe.name}")
        probes.append(run_probe(probe, data, settings.folds, settings.data_seed))
    pairs = _pairs(data, settings, tick)
    models: tuple[ConfigResult, ...] = ()
    perturbation: Perturbation | None = None
    replacement: Replacement | None = None
    if settings.train:
        models = train_grid(data, settings.grid(base, depths), settings.seeds,
                            lambda step: tick(f"train {step}"))
        best = max(models, key=lambda m: m.test.mean)
        best_run = max(best.runs, key=lambda r: r.test_accuracy)
        perturbation = _perturb(data, best_run.model, settings, tick)
        if replaced is not None:
            replacement = hydrogen_replacement(data, replaced, best_run.model)
    best_test = max((m.test for m in models), key=lambda s: s.mean, default=None)
    probes = [replace(p, shortcut=is_shortcut(p.accuracy, p.majority, best_test))
              for p in probes]
    compiled = None if rule is None else _compiled(data, rule, settings, replaced, tick)
    return AuditReport(data, settings, tuple(probes), pairs, models, perturbation, compiled,
                       replacement, no_rule)


def _pairs(data: AuditData, settings: AuditSettings, tick: Tick) -> tuple[PairResult, ...]:
    if len(data.classes) <= 2 or data.kind != "node":
        return ()
    found = []
    for name in PAIR_PROBES:
        for pair in combinations(data.classes, 2):
            tick(f"probe {name} on classes {pair[0]}/{pair[1]}")
            found.append(PairResult(name, pair, run_probe(probe_named(data.kind, name), data,
                                                          settings.folds, settings.data_seed,
                                                          classes=pair)))
    return tuple(found)


def _perturb(data: AuditData, model: AuditModel, settings: AuditSettings,
             tick: Tick) -> Perturbation | None:
    if not data.has_motif:
        return None
    tick("perturb outside the motif")
    return outside_motif(data, model, settings.perturb_limit, settings.data_seed,
                         nodes=settings.remove_nodes)


def _compiled(data: AuditData, rule: Program, settings: AuditSettings,
              replaced: dict[int, Replaced] | None, tick: Tick) -> CompiledCheck:
    model = CompiledModel.of(rule, presence=settings.remove_nodes)
    if model.kind != data.kind:
        raise GracrError(f"the rule classifies {model.kind}s but {data.name} holds a "
                         f"{data.kind} task")
    if len(data.classes) > 2 or max(data.classes) > 1:
        raise GracrError(f"a rule answers 0 or 1, but {data.name} has classes "
                         f"{', '.join(map(str, data.classes))}")
    tick("compiled rule")
    answers = np.concatenate(model.predict(data.graphs))
    accuracy = float((answers == data.instance_labels).mean())
    perturbation = (outside_motif(data, model, settings.perturb_limit, settings.data_seed,
                                  nodes=settings.remove_nodes)
                    if data.has_motif else Perturbation(0, 0, model.depth, 0, ()))
    replacement = None if replaced is None else hydrogen_replacement(data, replaced, model)
    return CompiledCheck(accuracy, perturbation, replacement)
