"""The motif replaced by hydrogen (App. B, Table 7): does a model still call a molecule
positive once the motif is gone?

Table 7 takes Mutagenicity's correctly classified mutagenic test molecules with an NO2 (or
NH2) group, substitutes the group with a single hydrogen, and reports the share whose
prediction changes (37–46 %: more than half keep theirs). Here, for a molecule audit
(`gracr.audit.molecules`), every correctly classified positive molecule has its motif
replaced by hydrogen: the atoms of every match of the rule deleted, each bond that joined
them to a kept atom given back to that atom as hydrogens (`gracr.domains.chem.replace`,
which says what it does with several attachment points). All matches go at once: the motif
is their union, as the perturbation's is, so "the motif is gone" means no match of it is
left. Every correct positive is examined, not the test split's alone (Table 7's): the
question is the model's answer, not its generalisation.

What the rule itself answers after the replacement is known without any model: positive
exactly when RDKit still finds a match in the replaced molecule, which can happen only if
the new hydrogens make one (`[CH3]` in but-1-ene: the CH2 next to the removed methyl
becomes one). So a model that reads the rule keeps its positive answer on exactly those
molecules; `kept_without_motif` counts the molecules a model keeps positive where the rule
turns negative. gracr's compiled rule, the translation of the SMARTS, keeps its answer
exactly where the rule does when the translation is exact (a SMARTS of one atom or a
star, as NO2's: 0 kept, since no new nitro group can appear).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gracr.audit.data import AuditData
from gracr.audit.molecules import MoleculeAudit
from gracr.audit.perturb import AuditModel, correct_motif_instances
from gracr.data.graph import Graph


@dataclass(frozen=True)
class Replaced:
    """One positive molecule with its motif replaced: its index in the data, the graph
    after (None: no replacement, `reason` says why; `nothing_left`: the motif was the
    whole molecule), whether the rule still matches it, how many matches and attachment
    bonds the motif had."""

    index: int
    graph: Graph | None
    reason: str | None
    nothing_left: bool
    rule_positive: bool
    matches: int
    attachments: int


def replace_motifs(audit: MoleculeAudit) -> dict[int, Replaced]:
    """Every positive molecule of `audit` with its motif replaced by hydrogen, by index."""
    from gracr.domains.chem.molecules import MoleculeError, graph_of
    from gracr.domains.chem.replace import NOTHING_LEFT, attachments, replace_by_hydrogen

    found: dict[int, Replaced] = {}
    for index, molecule in enumerate(audit.molecules):
        matches = audit.matches(molecule.mol)
        if not matches:
            continue
        atoms = {atom for match in matches for atom in match}
        bonds = attachments(molecule.mol, atoms)
        try:
            mol = replace_by_hydrogen(molecule.mol, atoms)
            graph = graph_of(mol)
        except MoleculeError as error:
            found[index] = Replaced(index, None, str(error), str(error) == NOTHING_LEFT,
                                    False, len(matches), bonds)
            continue
        found[index] = Replaced(index, graph, None, False, bool(audit.matches(mol)),
                                len(matches), bonds)
    return found


@dataclass(frozen=True)
class Replacement:
    """A model's answers after the replacement: of `instances` correctly classified
    positives, `replaced` had a molecule left (`nothing_left`: the motif was all of it;
    `failed`: RDKit could not sanitise the result or it left the schema, `failure` the
    first reason); the model keeps its answer on `unchanged` of them, the rule on
    `rule_unchanged`; `kept_without_motif` are kept by the model where the rule turns
    negative. `several_matches` and `several_attachments` count the replaced molecules
    whose motif had more than one match, more than one attachment bond."""

    instances: int
    replaced: int
    unchanged: int
    rule_unchanged: int
    kept_without_motif: int
    nothing_left: int
    failed: int
    failure: str | None
    several_matches: int
    several_attachments: int

    @property
    def share(self) -> float:
        """The share of replaced molecules whose answer does not change."""
        return self.unchanged / self.replaced if self.replaced else 0.0

    @property
    def changed_share(self) -> float:
        """The share whose answer changes: Table 7's figure."""
        return 1.0 - self.share if self.replaced else 0.0

    @property
    def rule_share(self) -> float:
        return self.rule_unchanged / self.replaced if self.replaced else 0.0


def hydrogen_replacement(data: AuditData, replaced: dict[int, Replaced],
                         model: AuditModel) -> Replacement:
    """`model`'s answers on the correctly classified positives of `data` (a graph task)
    before and after their motif is replaced (`replace_motifs`)."""
    answers = model.predict(data.graphs)
    instances = [replaced[g] for g, _ in correct_motif_instances(data, answers)]
    done = [r for r in instances if r.graph is not None]
    graphs: Sequence[Graph] = [r.graph for r in done if r.graph is not None]
    after = model.predict(graphs) if graphs else []
    kept = [int(a[0]) == int(answers[r.index][0]) for r, a in zip(done, after)]
    failures = [r.reason for r in instances if r.graph is None and not r.nothing_left]
    return Replacement(
        instances=len(instances), replaced=len(done), unchanged=sum(kept),
        rule_unchanged=sum(r.rule_positive for r in done),
        kept_without_motif=sum(k and not r.rule_positive for r, k in zip(done, kept)),
        nothing_left=sum(r.nothing_left for r in instances), failed=len(failures),
        failure=failures[0] if failures else None,
        several_matches=sum(r.matches > 1 for r in done),
        several_attachments=sum(r.attachments > 1 for r in done))
