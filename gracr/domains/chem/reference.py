"""The independent reference for the relaxed SMARTS semantics, and the classifier of
disagreements with RDKit.

Plain Python over the RDKit molecule graph; it shares nothing with the translation
(`gracr.domains.chem.smarts`, `gracr.domains.chem.translate`) or the compiler. The SMARTS is read by
RDKit (`Chem.MolFromSmarts`), each query atom and bond is tested by RDKit itself
(`QueryAtom.Match`, `QueryBond.Match`: the primitives exactly as `HasSubstructMatch`
reads them), and the tree is rooted at its centre, found here by its own walk.

The relaxed semantics, as docs/domains/molecules.md states it: atom v matches SMARTS atom
a coming from parent p when a's query matches v and the branches of a — each child c (over the
query bond a–c, a neighbour matching c coming from a) and, below the root, the parent
(over the bond p–a, a neighbour that p's query atom matches) — can be given distinct
neighbours of v. That is a bipartite matching, decided here by augmenting paths (not
by Hall's condition, as the translation does). A molecule matches when some atom
matches the root.

Every exact match (RDKit's) is a relaxed one, so the only disagreement the relaxation
predicts is "relaxed yes, RDKit no". `classify` names each molecule's case; when the
program checked is not the translation of the SMARTS, a difference between the two is
theirs (`mismatch`), not gracr's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rdkit import Chem, rdBase

from gracr.errors import GracrError

Kind = Literal["agree", "relaxed", "mismatch", "unexplained"]


@dataclass(frozen=True)
class RelaxedQuery:
    """An RDKit query molecule, acyclic and connected, rooted at `root`."""

    smarts: str
    query: Any
    root: int
    neighbours: tuple[tuple[int, ...], ...]

    @classmethod
    def from_smarts(cls, smarts: str, root: int | None = None) -> RelaxedQuery:
        with rdBase.BlockLogs():
            query = Chem.MolFromSmarts(smarts)
        if query is None:
            raise GracrError(f"RDKit cannot parse the SMARTS {smarts!r}")
        count = query.GetNumAtoms()
        neighbours = tuple(tuple(n.GetIdx() for n in query.GetAtomWithIdx(a).GetNeighbors())
                           for a in range(count))
        if count == 0 or query.GetNumBonds() != count - 1 or \
                len(_distances(neighbours, 0)) != count:
            raise GracrError(f"the SMARTS {smarts!r} is not one tree of atoms")
        centre = min(range(count), key=lambda a: (max(_distances(neighbours, a).values()), a))
        return cls(smarts, query, centre if root is None else root, neighbours)

    def roots(self, mol: Any) -> list[bool]:
        """Per atom of `mol`: is it the root of a relaxed match?"""
        atoms = list(mol.GetAtoms())
        allowed = [[self.query.GetAtomWithIdx(a).Match(atom) for atom in atoms]
                   for a in range(self.query.GetNumAtoms())]
        around = [[(n.GetIdx(), mol.GetBondBetweenAtoms(v, n.GetIdx()))
                   for n in atoms[v].GetNeighbors()] for v in range(len(atoms))]

        def matches(a: int, parent: int | None) -> list[bool]:
            children = [c for c in self.neighbours[a] if c != parent]
            below = {c: matches(c, a) for c in children}
            result = []
            for v in range(len(atoms)):
                if not allowed[a][v]:
                    result.append(False)
                    continue
                candidates = []
                for c in children:
                    bond = self.query.GetBondBetweenAtoms(a, c)
                    candidates.append([u for u, b in around[v]
                                       if bond.Match(b) and below[c][u]])
                if parent is not None:
                    bond = self.query.GetBondBetweenAtoms(parent, a)
                    candidates.append([u for u, b in around[v]
                                       if bond.Match(b) and allowed[parent][u]])
                result.append(distinct_representatives(candidates))
            return result

        return matches(self.root, None)

    def matches(self, mol: Any) -> bool:
        return any(self.roots(mol))

    def rdkit_matches(self, mol: Any) -> bool:
        """RDKit's exact answer (`HasSubstructMatch`)."""
        return bool(mol.HasSubstructMatch(self.query))


def distinct_representatives(candidates: list[list[int]]) -> bool:
    """Whether each branch i can be given its own `candidates[i]` element, all distinct
    (Kuhn's augmenting paths)."""
    owner: dict[int, int] = {}

    def place(branch: int, seen: set[int]) -> bool:
        for u in candidates[branch]:
            if u in seen:
                continue
            seen.add(u)
            if u not in owner or place(owner[u], seen):
                owner[u] = branch
                return True
        return False

    return all(place(branch, set()) for branch in range(len(candidates)))


def _distances(neighbours: tuple[tuple[int, ...], ...], start: int) -> dict[int, int]:
    distance = {start: 0}
    frontier = [start]
    while frontier:
        following = []
        for atom in frontier:
            for other in neighbours[atom]:
                if other not in distance:
                    distance[other] = distance[atom] + 1
                    following.append(other)
        frontier = following
    return distance


def classify(compiled: bool, relaxed: bool, exact: bool, translated: bool = True) -> Kind:
    """`agree` when the compiled model, the relaxed reference and RDKit agree;
    `relaxed` when the model and the reference say yes and RDKit no — the case the
    relaxation predicts; `mismatch` when the model differs from the reference and the
    program is not the SMARTS's translation (`translated` False): the SMARTS and the
    formula disagree; `unexplained` otherwise (the translation's model differs from the
    reference, or RDKit finds a match the relaxation misses: a bug of gracr either way)."""
    if compiled == relaxed == exact:
        return "agree"
    if compiled and relaxed and not exact:
        return "relaxed"
    if not translated and compiled != relaxed and relaxed >= exact:
        return "mismatch"
    return "unexplained"
