"""`SmartsTree` -> `.gml`: the relaxed SMARTS as graded modal logic over `MOLECULE_SCHEMA`.

The SMARTS tree is hung from a root atom r (a centre of the tree unless given). For
every atom a, `atom<a>` is its own requirement (its primitives), and the node formula

    M(a) = atom<a> ∧ Hall(branches of a)

says "a matches here, and so does the part of the SMARTS below a". A's branches are
its children c, each asking for a neighbour over the bond b_c (a set of relations)
that satisfies M(c); below the root, the parent p is one more branch, asking for a
neighbour over the parent bond that satisfies atom<p> (its requirement only).
Different branches need different neighbours, so `Hall` is Hall's condition for a
system of distinct representatives: for every set J of branches, at least |J|
neighbours are reached over a bond of b_j and satisfy S_j for some j ∈ J. Each
neighbour is one in-edge with one relation, so that count is the sum over relations r
of count{r}(⋁_{j ∈ J, r ∈ b_j} S_j), and "the sum is at least |J|" is the
disjunction over the ways to split |J| among the relations of `<k_r>{r} φ_r` — with
the relations that share the same disjunction merged into one filter, an exact
shortening. Identical branches (same bond set and subformula) are one group with a
multiplicity; for such groups only the sets that take a group whole matter (a
part of a group reaches no more neighbours than all of it), so J ranges over sets of
groups with |J| the sum of their multiplicities: `[CH](Cl)(Cl)Cl` becomes one count
`<3>{single, aromatic} atom<Cl>`.

The graph sentence is `exists M(r)`. The translation is exact for what graded counting
can say — distinct neighbours at each atom — and relaxed where it cannot: an atom
matched below may reuse an atom matched further up (other than through the
neighbour count at its own parent), and a match may close a cycle. `gracr.domains.chem.
reference` decides that relaxed semantics independently of this module.

What is written is a program gracr reads: the text is parsed and checked before it is
returned, and a formula nested deeper than `gracr.limits.MAX_NESTING` is refused naming
the SMARTS atom whose formula it is. An atom with more branch groups than Hall's
condition fits in that depth (2^k - 1 conjuncts: k ≤ 6), or whose split of its bonds
among relations would be a longer disjunction, is refused before anything is enumerated.
"""

from __future__ import annotations

import re

from dataclasses import dataclass
from itertools import combinations
from math import comb

from gracr.domains.chem.schema import (BOND_RELATIONS, ELEMENTS, MAX_CHARGE, MAX_HYDROGENS,
                               charge_value, molecule_declarations)
from gracr.domains.chem.smarts import (And, AnyAtom, Aromaticity, AtomExpr, Charge, Degree,
                               Element, HCount, Not, SmartsError, SmartsTree,
                               parse_smarts)
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.errors import GmlError
from gracr.limits import MAX_NESTING

# Distinct branch groups at one atom: Hall's condition is a chain of 2^k - 1 conjuncts
# after the atom's own, nesting 2^k - 1 levels; the most that fits in MAX_NESTING.
MAX_BRANCH_GROUPS = (MAX_NESTING + 1).bit_length() - 1

MATCH = "match"


@dataclass(frozen=True)
class Branch:
    """A neighbour that atom a needs: over a bond of `relations`, satisfying `formula`
    (a `let` name), `count` times (identical branches grouped)."""

    relations: frozenset[str]
    formula: str
    count: int


@dataclass(frozen=True)
class Translation:
    """The `.gml` text of a SMARTS, the program gracr reads from it, and how it was made."""

    smarts: str
    tree: SmartsTree
    root: int
    text: str
    program: Program


def smarts_to_gml(smarts: str, root: int | None = None, node: bool = False,
                  where: str = "SMARTS") -> str:
    """The `.gml` program of the relaxed `smarts`: the molecule schema's declarations,
    one `let` per atom, `let match = M(root)` and `classify exists match` (or, with
    `node`, `classify match`: is this atom the root of a match). `root` overrides the
    tree's centre. `SmartsError` for SMARTS outside the subset (`gracr.domains.chem.smarts`)."""
    return translate_smarts(smarts, root, node, where).text


_ROOT_LINE = re.compile(r"# relaxed SMARTS as graded modal logic \(gracr\.domains\.chem\); "
                        r"root = atom (\d+)")


def smarts_of(text: str) -> tuple[str, int] | None:
    """The SMARTS and root a `.gml` text was translated from, read from the header
    `translate_smarts` writes (None: the text has no such header)."""
    lines = text.splitlines()
    for number, line in enumerate(lines[1:], start=1):
        found = _ROOT_LINE.match(line)
        if found and lines[number - 1].startswith("# "):
            return lines[number - 1][2:], int(found.group(1))
    return None


def translate_smarts(smarts: str, root: int | None = None, node: bool = False,
                     where: str = "SMARTS") -> Translation:
    """`smarts_to_gml` with the parsed tree and the root it used."""
    tree = parse_smarts(smarts, where)
    if root is None:
        root = tree.centre()
    elif not 0 <= root < len(tree.atoms):
        raise SmartsError(smarts, 0, len(smarts), f"--root {root} is not an atom of the "
                          f"SMARTS (atoms 0..{len(tree.atoms) - 1})", where)
    header = [f"# {smarts}", f"# relaxed SMARTS as graded modal logic (gracr.domains.chem); root = "
              f"atom {root} {tree.atoms[root].text}", molecule_declarations().rstrip("\n")]
    # Each line of the text, with the SMARTS atom whose formula it writes (None: none).
    lines: list[tuple[str, int | None]] = [
        (line, None) for line in "\n".join(header).splitlines()]
    lines += _matches(tree, root, smarts, where)
    lines.append((f"classify {MATCH}" if node else f"classify exists {MATCH}", root))
    text = "\n".join(line for line, _ in lines) + "\n"
    try:
        program = parse(text, filename=where)
    except GmlError as error:
        # The only problem a translation can have is its depth; name the atom it is at.
        problem = error.problems[0]
        atom = lines[problem.span.line - 1][1]
        at = tree.atoms[root if atom is None else atom]
        raise SmartsError(smarts, at.column, len(at.text),
                          f"the translation is not a program gracr reads, at atom "
                          f"{at.index}: {problem.message}", where) from None
    return Translation(smarts, tree, root, text, program)


def _matches(tree: SmartsTree, root: int, smarts: str, where: str
             ) -> list[tuple[str, int]]:
    """The `let`s: `atom<a>` per distinct atom requirement, `from<a> = M(a)` per
    distinct subtree below the root (leaves first), then `let match = M(root)`.

    Lets with the same body are one name, so that identical sibling branches are
    identical subformulas and group into one count; branches are sorted, so that the
    same subtree written in another order has the same body too.
    """
    atom_name: dict[int, str] = {}
    first_with: dict[str, int] = {}
    for atom in tree.atoms:
        body = atom_formula(atom.expr)
        atom_name[atom.index] = f"atom{first_with.setdefault(body, atom.index)}"
    lines: list[tuple[str, int]] = []
    for body, first in first_with.items():
        same = [a.index for a in tree.atoms if atom_name[a.index] == f"atom{first}"]
        written = ", ".join(tree.atoms[a].text for a in same)
        lines.append((f"let atom{first} = {body}    # atom{'s' if len(same) > 1 else ''} "
                      f"{', '.join(map(str, same))}: {written}", first))
    subtree_name: dict[str, str] = {}

    def visit(atom: int, parent: int | None) -> str:
        branches: list[tuple[frozenset[str], str]] = []
        for child, bond in tree.neighbours(atom):
            if child != parent:
                branches.append((bond.relations, visit(child, atom)))
        if parent is not None:
            bond = next(b for other, b in tree.neighbours(atom) if other == parent)
            branches.append((bond.relations, atom_name[parent]))
        groups = _group(sorted(branches, key=lambda b: (sorted(b[0]), b[1])))
        column, width = tree.atoms[atom].column, len(tree.atoms[atom].text)
        if len(groups) > MAX_BRANCH_GROUPS:
            raise SmartsError(smarts, column, width,
                              f"atom {atom} has {len(groups)} different branches, over the "
                              f"limit of {MAX_BRANCH_GROUPS} (Hall's condition doubles with "
                              f"each; more would nest deeper than gracr's limit of "
                              f"{MAX_NESTING})", where)
        # The whole set of groups has the most bonds and relation classes of any set,
        # so its disjunction of splits is the longest.
        needed = sum(group.count for group in groups)
        parts = len(_relation_classes(groups))
        splits = comb(needed + parts - 1, parts - 1) if parts else 0
        if splits > MAX_NESTING + 1:
            raise SmartsError(smarts, column, width,
                              f"atom {atom}'s {needed} bonds split {splits} ways among "
                              f"{parts} relation classes: Hall's condition would nest deeper "
                              f"than gracr's limit of {MAX_NESTING}", where)
        body = _conjunction([atom_name[atom], *hall_condition(groups)])
        if parent is None:
            lines.append((f"let {MATCH} = {body}", atom))
            return MATCH
        if body not in subtree_name:
            subtree_name[body] = f"from{atom}"
            lines.append((f"let from{atom} = {body}", atom))
        return subtree_name[body]

    visit(root, None)
    return lines


def _group(branches: list[tuple[frozenset[str], str]]) -> list[Branch]:
    """Identical branches as one group with a multiplicity, in first-seen order."""
    counts: dict[tuple[frozenset[str], str], int] = {}
    for branch in branches:
        counts[branch] = counts.get(branch, 0) + 1
    return [Branch(relations, formula, count)
            for (relations, formula), count in counts.items()]


def hall_condition(groups: list[Branch]) -> list[str]:
    """One formula per nonempty set J of branch groups: at least Σ_{g∈J} count_g
    neighbours serve some branch of J (the module docstring)."""
    conditions = []
    for size in range(1, len(groups) + 1):
        for chosen in combinations(groups, size):
            conditions.append(_at_least_serving(list(chosen)))
    return conditions


def _at_least_serving(chosen: list[Branch]) -> str:
    """Σ_r count{r}(⋁_{g ∈ chosen, r ∈ b_g} S_g) ≥ Σ count_g, as a disjunction over
    the splits of the total among the relation classes."""
    needed = sum(branch.count for branch in chosen)
    classes = _relation_classes(chosen)
    if not classes:
        return "false"
    counts = [(_filter(relations), _disjunction(list(served)))
              for served, relations in classes.items()]
    alternatives = []
    for split in _splits(needed, len(counts)):
        terms = [f"<{k}>{relation_filter} {formula}"
                 for k, (relation_filter, formula) in zip(split, counts) if k]
        alternatives.append(_conjunction(terms))
    return alternatives[0] if len(alternatives) == 1 else \
        "(" + " | ".join(alternatives) + ")"


def _relation_classes(chosen: list[Branch]) -> dict[tuple[str, ...], list[str]]:
    """Relations whose in-edges serve the same branches form one class, one filter:
    the branches' formulas served, and the relations of the class."""
    classes: dict[tuple[str, ...], list[str]] = {}
    for relation in BOND_RELATIONS:
        served = tuple(dict.fromkeys(b.formula for b in chosen if relation in b.relations))
        if served:
            classes.setdefault(served, []).append(relation)
    return classes


def _splits(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write `total` as an ordered sum of `parts` non-negative integers."""
    if parts == 1:
        return [(total,)]
    return [(first, *rest) for first in range(total, -1, -1)
            for rest in _splits(total - first, parts - 1)]


def _filter(relations: list[str]) -> str:
    # A filter admitting every relation is every edge: no filter.
    return "" if len(relations) == len(BOND_RELATIONS) else "{" + ", ".join(relations) + "}"


def _disjunction(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "(" + " | ".join(names) + ")"


def _conjunction(terms: list[str]) -> str:
    return " & ".join(terms) if terms else "true"


# ---------------------------------------------------------------- atom primitives


def atom_formula(expr: AtomExpr) -> str:
    """An atom expression as a node formula over the molecule schema. A value outside
    the schema (Z > 100, ten or more hydrogens, a charge beyond ±3) is `false`: no atom
    of a molecule in the schema has it."""
    if isinstance(expr, Element):
        if not 1 <= expr.number <= len(ELEMENTS):
            return "false"
        element = f"element={ELEMENTS[expr.number - 1]}"
        if expr.aromatic is None:
            return element
        return f"({element} & aromatic={'yes' if expr.aromatic else 'no'})"
    if isinstance(expr, AnyAtom):
        return "true"
    if isinstance(expr, Aromaticity):
        return f"aromatic={'yes' if expr.aromatic else 'no'}"
    if isinstance(expr, HCount):
        return f"hydrogens=H{expr.count}" if expr.count <= MAX_HYDROGENS else "false"
    if isinstance(expr, Degree):
        # The molecule graph holds heavy atoms only, each bond once per direction: the
        # in-degree is the heavy degree, RDKit's D on a molecule without H atoms.
        return f"(exactly {expr.count} true)"
    if isinstance(expr, Charge):
        return (f"charge={charge_value(expr.charge)}" if abs(expr.charge) <= MAX_CHARGE
                else "false")
    if isinstance(expr, Not):
        return f"!{atom_formula(expr.operand)}"
    operator = " & " if isinstance(expr, And) else " | "
    return "(" + operator.join(atom_formula(e) for e in expr.operands) + ")"
