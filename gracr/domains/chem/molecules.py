"""Molecules in, typed graphs out: SMILES, SDF and CSV/TSV files read with RDKit.

Every molecule becomes a graph under `MOLECULE_SCHEMA` (see `gracr.domains.chem.schema`):
node `i` is heavy atom `i` of RDKit's molecule after sanitisation and `RemoveAllHs`,
and bond `k` between atoms `a` and `b` (RDKit's bond order) is edge `2k` = `(a, b)` and
edge `2k + 1` = `(b, a)`, so an edge mask maps back to bonds by halving the index.

A record RDKit cannot parse or sanitise, whose molecule is outside the schema, or which
has more than `gracr.limits.MAX_MOLECULE_ATOMS` atoms, is not an error of the file: it
is returned as a `Skipped` with its place (`file:line`) and the reason, and reading
goes on. Only a file that cannot be read at all (missing, not text, a CSV whose named
SMILES column does not exist) raises `GraphError`.

Its size (600–700 lines) is one reader, step by step: a file's records as text
(`iter_records`), a record as RDKit's molecule (`parse_record`), molecules as value codes
with one array operation per property (`encode_molecules`), codes as a `Graph`, and what
each step refuses, named; the molecule stream (`stream`) and chem-check share every step.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
from dataclasses import dataclass
from itertools import chain
from typing import Any, Iterable, Iterator, Sequence, TextIO

import numpy as np
import numpy.typing as npt

from rdkit import Chem, rdBase

from gracr.domains.chem.schema import (BOND_RELATIONS, ELEMENTS, MAX_CHARGE, MAX_HYDROGENS,
                               MOLECULE_SCHEMA)
from gracr.data.graph import Graph, IntArray
from gracr.data.schema import Schema
from gracr.errors import GracrError, GraphError, quoted
from gracr.limits import MAX_MOLECULE_ATOMS

# RDKit's bond types and the relation each becomes; any other type (dative, zero-order,
# ...) is outside the schema.
_RELATION_OF_BOND = {
    Chem.BondType.SINGLE: "single", Chem.BondType.DOUBLE: "double",
    Chem.BondType.TRIPLE: "triple", Chem.BondType.AROMATIC: "aromatic",
}
assert tuple(_RELATION_OF_BOND.values()) == BOND_RELATIONS

SMILES_SUFFIXES = (".smi", ".smiles", ".ism", ".can", ".txt")
SDF_SUFFIXES = (".sdf", ".sd", ".mol")
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}


class MoleculeError(GracrError):
    """One molecule that cannot become a graph: unparsable, unsanitisable or outside the
    schema. Readers turn it into a `Skipped`; `read_smiles` raises it."""


@dataclass(frozen=True, eq=False)
class Molecule:
    """A molecule read from `place` (`file:line`): its SMILES (as written in the file;
    for SDF, RDKit's canonical SMILES), its name if the file gives one, RDKit's molecule
    (heavy atoms only) and the graph."""

    place: str
    smiles: str
    name: str | None
    mol: Any
    graph: Graph


@dataclass(frozen=True)
class Skipped:
    """A record that was not read: where, and why."""

    place: str
    reason: str

    def __str__(self) -> str:
        return f"{self.place}: skipped: {self.reason}"


@dataclass(frozen=True)
class MoleculeSet:
    """Everything read from one file, in file order."""

    path: str
    molecules: tuple[Molecule, ...]
    skipped: tuple[Skipped, ...]

    def summary(self) -> str:
        return (f"{self.path}: {len(self.molecules)} molecules read, "
                f"{len(self.skipped)} skipped")


# ---------------------------------------------------------------- one molecule


@dataclass(frozen=True, eq=False)
class AtomCodes:
    """A molecule as value indices into `MOLECULE_SCHEMA`: per atom (rows of `atoms`) its
    element (Z - 1), hydrogens, charge (index in `CHARGES`) and aromatic (0 no, 1 yes);
    per edge, two per bond in bond order (edge `2k` = bond k begin -> end, `2k + 1` back),
    its source, target and relation (index in `BOND_RELATIONS`)."""

    atoms: IntArray
    sources: IntArray
    targets: IntArray
    relations: IntArray

    @property
    def num_atoms(self) -> int:
        return int(self.atoms.shape[0])

    def graph(self) -> Graph:
        """The molecule as a `Graph` under `MOLECULE_SCHEMA`."""
        attributes = {family.name: tuple(_VALUES[k][self.atoms[:, k]].tolist())
                      for k, family in enumerate(MOLECULE_SCHEMA.families)}
        relations = tuple(_RELATION_NAMES[self.relations].tolist())
        return Graph.from_edges(self.num_atoms, None,
                                np.stack([self.sources, self.targets], axis=1),
                                attributes=attributes, relations=relations)


# Each family's values as an object array, indexed by the codes of `AtomCodes.atoms`.
_VALUES = [np.array(family.values, dtype=object) for family in MOLECULE_SCHEMA.families]
_RELATION_NAMES = np.array(BOND_RELATIONS, dtype=object)
assert [f.name for f in MOLECULE_SCHEMA.families] == ["element", "hydrogens", "charge",
                                                        "aromatic"]
# RDKit's bond type (as an int) -> relation index, -1 outside the schema.
_RELATION_INDEX = np.full(max(int(t) for t in Chem.BondType.values.values()) + 1, -1,
                          dtype=np.int64)
for _type, _relation in _RELATION_OF_BOND.items():
    _RELATION_INDEX[int(_type)] = BOND_RELATIONS.index(_relation)

# Below this many bonds, looking each bond up by index is the fastest read (one wrapper
# per bond); each lookup starts from the first bond, so above it the bonds are read
# through the atoms, linear in the bonds (two wrappers per bond).
_BONDS_DIRECTLY = 1_000


def codes_of(mol: Any) -> AtomCodes:
    """The codes of an RDKit molecule as it is (the caller has sanitised it and removed
    its hydrogens); `MoleculeError` naming the first atom or bond outside the schema."""
    union, refused = encode_molecules([mol])
    if refused:
        raise refused[0]
    return union.codes


@dataclass(frozen=True, eq=False)
class MoleculeUnion:
    """Molecules side by side: their codes stacked (node ids offset), `sizes` their atom
    counts, `edge_counts` their edge counts, `batch` the molecule of each atom."""

    codes: AtomCodes
    sizes: IntArray
    edge_counts: IntArray

    @property
    def count(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def batch(self) -> IntArray:
        return np.repeat(np.arange(self.count), self.sizes)

    @staticmethod
    def joined(unions: Sequence[MoleculeUnion]) -> MoleculeUnion:
        """The molecules of `unions` side by side, in order (node ids offset)."""
        if len(unions) == 1:
            return unions[0]
        if not unions:
            return encode_molecules([])[0]
        offsets = np.cumsum([0] + [u.codes.num_atoms for u in unions[:-1]])
        codes = AtomCodes(np.concatenate([u.codes.atoms for u in unions]),
                          np.concatenate([u.codes.sources + o for u, o in zip(unions, offsets)]),
                          np.concatenate([u.codes.targets + o for u, o in zip(unions, offsets)]),
                          np.concatenate([u.codes.relations for u in unions]))
        return MoleculeUnion(codes, np.concatenate([u.sizes for u in unions]),
                             np.concatenate([u.edge_counts for u in unions]))

    def select(self, keep: npt.NDArray[np.bool_]) -> MoleculeUnion:
        """The molecules where `keep` holds, renumbered."""
        if keep.all():
            return self
        nodes = keep[self.batch]
        edges = nodes[self.codes.sources]
        renumber = np.cumsum(nodes) - 1
        codes = AtomCodes(self.codes.atoms[nodes], renumber[self.codes.sources[edges]],
                          renumber[self.codes.targets[edges]], self.codes.relations[edges])
        return MoleculeUnion(codes, self.sizes[keep], self.edge_counts[keep])


def encode_molecules(mols: Sequence[Any], bond_order: bool = True
                     ) -> tuple[MoleculeUnion, dict[int, MoleculeError]]:
    """The codes of RDKit molecules as they are (sanitised, hydrogens removed), side by
    side, and the molecules outside the schema (by position; left out of the union),
    each with the error naming its first atom, else bond, outside it.

    Each property is read for all atoms of all the molecules at once (`map` over RDKit's
    accessors, into numpy): one array operation per property, whatever the count.
    `bond_order=False` is for a caller that needs each molecule's edges but not in RDKit's
    bond order (the screen, which only sums over neighbours): the bonds of a molecule
    of at most `_DENSE_ATOMS` atoms whose bonds are all in the schema are then read from
    RDKit's adjacency matrix with bond orders, one call a molecule instead of four a bond
    (half the time of reading a molecule), ordered by (begin, end) with begin < end."""
    atoms_of = [list(map(mol.GetAtomWithIdx, range(mol.GetNumAtoms()))) for mol in mols]
    atoms = list(chain.from_iterable(atoms_of))
    sizes = np.fromiter(map(len, atoms_of), np.int64, len(mols))
    z = np.fromiter(map(Chem.Atom.GetAtomicNum, atoms), np.int64, len(atoms))
    h = np.fromiter(map(Chem.Atom.GetTotalNumHs, atoms), np.int64, len(atoms))
    charge = np.fromiter(map(Chem.Atom.GetFormalCharge, atoms), np.int64, len(atoms))
    aromatic = np.fromiter(map(Chem.Atom.GetIsAromatic, atoms), np.int64, len(atoms))
    dense = (np.zeros(len(mols), dtype=np.bool_) if bond_order
             else np.fromiter(map(_dense_readable, mols), np.bool_, len(mols)))
    begin, end, relation, bond_owner = _bonds_of(mols, atoms_of, dense)
    bond_counts = np.bincount(bond_owner, minlength=len(mols))
    atom_owner = np.repeat(np.arange(len(mols)), sizes)
    refused: dict[int, MoleculeError] = {}
    outside = (z < 1) | (z > len(ELEMENTS)) | (h > MAX_HYDROGENS) | (np.abs(charge) > MAX_CHARGE)
    for first in _firsts(atom_owner, outside):
        refused[int(atom_owner[first])] = _atom_error(atoms[first])
    starts = np.cumsum(bond_counts) - bond_counts
    for first in _firsts(bond_owner, relation < 0):
        m = int(bond_owner[first])   # only accessor-read molecules hold such a bond
        refused.setdefault(m, _bond_error(mols[m].GetBondWithIdx(int(first - starts[m]))))
    offsets = np.repeat(np.cumsum(sizes) - sizes, bond_counts)
    begin, end = begin + offsets, end + offsets
    union = MoleculeUnion(
        AtomCodes(np.stack([z - 1, h, charge + MAX_CHARGE, aromatic], axis=1),
                  np.stack([begin, end], axis=1).ravel(), np.stack([end, begin], axis=1).ravel(),
                  np.repeat(relation, 2)),
        sizes, 2 * bond_counts)
    if refused:
        keep = np.ones(len(mols), dtype=np.bool_)
        keep[list(refused)] = False
        union = union.select(keep)
    return union, refused


# The adjacency matrix costs the square of the atoms: above this many, bonds are read
# one by one (drug-like molecules have 20-40 heavy atoms).
_DENSE_ATOMS = 128
# A bond of a type outside the schema (dative, zero-order, quadruple, ...): the adjacency
# matrix would show a dative bond as single and leave a zero-order one out, so a molecule
# with one is read bond by bond, which names the bond.
_OUTSIDE_BONDS = Chem.MolFromSmarts("*!-;!=;!#;!:*")
# Twice a bond order in the adjacency matrix -> relation index (-1 outside the schema).
_RELATION_OF_DOUBLED_ORDER = np.full(7, -1, dtype=np.int64)
for _order, _relation in ((2, "single"), (3, "aromatic"), (4, "double"), (6, "triple")):
    _RELATION_OF_DOUBLED_ORDER[_order] = BOND_RELATIONS.index(_relation)


def _dense_readable(mol: Any) -> bool:
    return bool(mol.GetNumAtoms() <= _DENSE_ATOMS and not mol.HasSubstructMatch(_OUTSIDE_BONDS))


def _bonds_of(mols: Sequence[Any], atoms_of: list[list[Any]], dense: npt.NDArray[np.bool_]
              ) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Every molecule's bonds, in molecule order: begin and end (the molecule's atom
    indices), relation index (-1 outside the schema) and owner (molecule position). A
    `dense` molecule's from its adjacency matrix ((begin, end) order, begin < end), the
    others' one by one in RDKit's bond order."""
    sparse = np.flatnonzero(~dense).tolist()
    bonds_of = [_bonds_in_order(mols[m], atoms_of[m]) for m in sparse]
    bonds = list(chain.from_iterable(bonds_of))
    counts = np.fromiter(map(len, bonds_of), np.int64, len(bonds_of))
    begin = np.fromiter(map(Chem.Bond.GetBeginAtomIdx, bonds), np.int64, len(bonds))
    end = np.fromiter(map(Chem.Bond.GetEndAtomIdx, bonds), np.int64, len(bonds))
    kinds = np.fromiter(map(int, map(Chem.Bond.GetBondType, bonds)), np.int64, len(bonds))
    owner = np.repeat(np.array(sparse, dtype=np.int64), counts)
    relation = _RELATION_INDEX[kinds]
    chosen = np.flatnonzero(dense)
    picked: list[int] = chosen.tolist()
    if chosen.size:
        matrices = [Chem.GetAdjacencyMatrix(mols[m], useBO=True).ravel() for m in picked]
        n = np.fromiter((len(atoms_of[m]) for m in picked), np.int64, chosen.size)
        flat = np.concatenate(matrices)
        cells = np.flatnonzero(flat)
        starts = np.cumsum(n * n) - n * n
        which = np.searchsorted(starts, cells, side="right") - 1
        local = cells - starts[which]
        row, column = local // n[which], local % n[which]
        upper = row < column
        cells, which = cells[upper], which[upper]
        begin = np.concatenate([begin, row[upper]])
        end = np.concatenate([end, column[upper]])
        relation = np.concatenate(
            [relation, _RELATION_OF_DOUBLED_ORDER[np.rint(2 * flat[cells]).astype(np.int64)]])
        owner = np.concatenate([owner, chosen[which]])
        order = np.argsort(owner, kind="stable")
        begin, end, relation, owner = begin[order], end[order], relation[order], owner[order]
    return begin, end, relation, owner


def _firsts(owner: IntArray, bad: npt.NDArray[np.bool_]) -> IntArray:
    """The first bad position of each owner that has one."""
    positions = np.flatnonzero(bad)
    firsts: IntArray = positions[np.unique(owner[positions], return_index=True)[1]]
    return firsts


def _bond_error(bond: Any) -> MoleculeError:
    return MoleculeError(f"bond {bond.GetIdx()} (atoms {bond.GetBeginAtomIdx()}-"
                         f"{bond.GetEndAtomIdx()}) is {bond.GetBondType()}, outside "
                         f"the schema ({', '.join(BOND_RELATIONS)})")


def _atom_error(atom: Any) -> MoleculeError:
    """The error of an atom outside the schema, naming the first property that is."""
    where = f"atom {atom.GetIdx()} ({atom.GetSymbol()})"
    z = atom.GetAtomicNum()
    if not 1 <= z <= len(ELEMENTS):
        return MoleculeError(f"{where} has atomic number {z}, outside the schema "
                             f"(1..{len(ELEMENTS)})")
    h = atom.GetTotalNumHs()
    if h > MAX_HYDROGENS:
        return MoleculeError(f"{where} has {h} hydrogens, outside the schema "
                             f"(0..{MAX_HYDROGENS})")
    charge = atom.GetFormalCharge()
    return MoleculeError(f"{where} has charge {charge:+d}, outside the schema "
                         f"(-{MAX_CHARGE}..+{MAX_CHARGE})")


def graph_of(mol: Any) -> Graph:
    """The graph of an RDKit molecule as it is (the caller has sanitised it and removed
    its hydrogens); `MoleculeError` if it is outside the schema."""
    return codes_of(mol).graph()


def _bonds_in_order(mol: Any, atoms: list[Any]) -> list[Any]:
    """The bonds of `mol` by index. RDKit looks a bond up by index from the start
    (`GetBondWithIdx`, and `mol.GetBonds()` through it): quadratic in the bonds (minutes
    on a 200 000-atom chain), so a large molecule's bonds are collected through its
    atoms' bonds, which is linear. A small one's are looked up by index in one `map`
    (`mol.GetBonds()` iterates in Python, a call per bond)."""
    if mol.GetNumBonds() <= _BONDS_DIRECTLY:
        return list(map(mol.GetBondWithIdx, range(mol.GetNumBonds())))
    bonds: list[Any] = [None] * mol.GetNumBonds()
    for bond in chain.from_iterable(map(Chem.Atom.GetBonds, atoms)):
        bonds[bond.GetIdx()] = bond
    return bonds


def within_size(mol: Any) -> Any:
    """`mol` if it has at most `MAX_MOLECULE_ATOMS` atoms, else `MoleculeError`."""
    atoms = mol.GetNumAtoms()
    if atoms > MAX_MOLECULE_ATOMS:
        raise MoleculeError(f"the molecule has {atoms} atoms, over gracr's limit of "
                            f"{MAX_MOLECULE_ATOMS} (gracr.limits.MAX_MOLECULE_ATOMS)")
    return mol


def heavy_atoms(mol: Any) -> Any:
    """Sanitise an unsanitised RDKit molecule and remove every hydrogen atom;
    `MoleculeError` with RDKit's reason if sanitisation fails."""
    try:
        Chem.SanitizeMol(mol)
        # Without hydrogen atoms, RemoveAllHs would only copy the molecule and sanitise
        # it again, which changes nothing (sanitisation is idempotent): skipped, it was a
        # third of the reading time.
        if mol.GetNumHeavyAtoms() == mol.GetNumAtoms():
            return mol
        return Chem.RemoveAllHs(mol)
    except Exception as error:  # RDKit's sanitisation exceptions share no base class
        raise MoleculeError(f"RDKit cannot sanitise it: {_first_line(error)}") from None


# The atoms a SMILES writes: bracket atoms, the organic subset (two-letter symbols first)
# and the wildcard. Exact for a valid SMILES, and linear in the text.
_SMILES_ATOM = re.compile(r"\[[^\]]*\]|Br|Cl|[BCNOSPFI]|[bcnops]|\*")


def _within_size_text(smiles: str) -> None:
    """`MoleculeError` for a SMILES that writes more than `MAX_MOLECULE_ATOMS` atoms,
    counted in the text: RDKit's parser takes time quadratic in the atoms (0.24 s at 20 000,
    about 40 s at 266 000), so an over-limit molecule is refused before it is parsed."""
    if len(smiles) <= MAX_MOLECULE_ATOMS:
        return
    atoms = sum(1 for _ in _SMILES_ATOM.finditer(smiles))
    if atoms > MAX_MOLECULE_ATOMS:
        raise MoleculeError(f"the molecule has {atoms} atoms, over gracr's limit of "
                            f"{MAX_MOLECULE_ATOMS} (gracr.limits.MAX_MOLECULE_ATOMS)")


def read_smiles(smiles: str, place: str = "SMILES", name: str | None = None) -> Molecule:
    """One SMILES as a `Molecule`; `MoleculeError` if RDKit cannot read it or it is
    outside the schema."""
    mol = parse_smiles(smiles)
    return Molecule(place, smiles, name, mol, graph_of(mol))


def parse_smiles(smiles: str) -> Any:
    """RDKit's molecule of one SMILES, sanitised, heavy atoms only; `MoleculeError` if
    RDKit cannot read it or it has too many atoms."""
    _within_size_text(smiles)
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(smiles, sanitize=False)
        if mol is None:
            raise MoleculeError(f"RDKit cannot parse the SMILES {quoted(smiles)}")
        return heavy_atoms(within_size(mol))


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# ---------------------------------------------------------------- files


def read_molecules(path: str, smiles_column: str | int | None = None) -> MoleculeSet:
    """Every molecule of a SMILES, SDF or CSV/TSV file (optionally gzipped), with the
    records that were skipped. See `iter_molecules`."""
    molecules: list[Molecule] = []
    skipped: list[Skipped] = []
    for record in iter_molecules(path, smiles_column):
        if isinstance(record, Molecule):
            molecules.append(record)
        else:
            skipped.append(record)
    return MoleculeSet(path, tuple(molecules), tuple(skipped))


def iter_molecules(path: str, smiles_column: str | int | None = None
                   ) -> Iterator[Molecule | Skipped]:
    """The records of `path` in order, each read or skipped (`iter_records`, then
    `read_record`)."""
    for record in iter_records(path, smiles_column):
        yield read_record(record) if isinstance(record, Record) else record


@dataclass(frozen=True)
class Record:
    """One record of a molecule file as text, not yet read by RDKit: a SMILES, or a
    molfile block (`molfile`), at `place`, with its name if the file gives one."""

    place: str
    text: str
    name: str | None
    molfile: bool = False


def parse_record(record: Record) -> tuple[Any, str]:
    """RDKit's molecule of a record (sanitised, heavy atoms only) and its SMILES (as
    written; for a molfile, RDKit's canonical SMILES); `MoleculeError` if it cannot be
    read."""
    if not record.molfile:
        return parse_smiles(record.text), record.text
    with rdBase.BlockLogs():
        mol = Chem.MolFromMolBlock(record.text, sanitize=False, removeHs=False)
        if mol is None:
            raise MoleculeError("RDKit cannot parse this molfile record")
        mol = heavy_atoms(within_size(mol))
        return mol, Chem.MolToSmiles(mol)


def read_record(record: Record) -> Molecule | Skipped:
    """A record as a `Molecule`, or `Skipped` with the reason it cannot be read."""
    try:
        mol, smiles = parse_record(record)
        return Molecule(record.place, smiles, record.name, mol, graph_of(mol))
    except MoleculeError as error:
        return Skipped(record.place, str(error))


def iter_records(path: str, smiles_column: str | int | None = None
                 ) -> Iterator[Record | Skipped]:
    """The records of `path` in order, as text (a row without its SMILES column is
    skipped here). The format follows the
    suffix (a trailing `.gz` is uncompressed first):

    - SMILES (`.smi`, `.smiles`, `.ism`, `.can`, `.txt`): one molecule a line, the SMILES
      first, then optionally whitespace and a name; blank lines and a first line whose
      first word is `smiles` (a header) are not records;
    - SDF (`.sdf`, `.sd`, `.mol`): records ended by `$$$$`; the place is the record's
      first line and the name is its title line;
    - CSV/TSV (`.csv`, `.tsv`): the SMILES column is `smiles_column` (a header name, or
      a 0-based index), else the first header cell named `smiles` in any case, else
      the first header cell containing `smiles`; a first row with no such cell is data,
      and the SMILES is its first column (or column `smiles_column`).
    """
    suffix = _format_suffix(path)
    with _open_text(path) as handle:
        try:
            if suffix in SDF_SUFFIXES:
                yield from _sdf_records(handle, path)
            elif suffix in TABLE_SUFFIXES:
                yield from _table_records(handle, path, TABLE_SUFFIXES[suffix], smiles_column)
            else:
                yield from _smiles_records(handle, path)
        except UnicodeDecodeError as error:
            raise GraphError(f"{path}: not UTF-8 text (byte {error.start})") from None
        except OSError as error:   # a damaged gzip stream, a read failing midway
            raise GraphError(f"{path}: cannot read: {error.strerror or error}") from None
        except csv.Error as error:   # a field over csv's size limit, a NUL byte
            raise GraphError(f"{path}: not a readable {suffix[1:].upper()} file: "
                             f"{error}") from None


def _format_suffix(path: str) -> str:
    stem = path[:-3] if path.endswith(".gz") else path
    suffix = os.path.splitext(stem)[1].lower()
    known = (*SMILES_SUFFIXES, *SDF_SUFFIXES, *TABLE_SUFFIXES)
    if suffix not in known:
        raise GraphError(f"{path}: unknown molecule file type {quoted(suffix or '(none)')}; "
                         f"expected one of {', '.join(known)} (optionally .gz)")
    return suffix


def _open_text(path: str) -> TextIO:
    try:
        if path.endswith(".gz"):
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
        return open(path, encoding="utf-8", newline="")
    except OSError as error:
        raise GraphError(f"{path}: cannot read: {error.strerror}") from None


def _smiles_records(handle: TextIO, path: str) -> Iterator[Record]:
    for number, line in enumerate(handle, start=1):
        words = line.split(maxsplit=1)
        if not words or (number == 1 and words[0].lower() == "smiles"):
            continue
        name = words[1].strip() if len(words) > 1 else None
        yield Record(f"{path}:{number}", words[0], name or None)


def _table_records(handle: TextIO, path: str, delimiter: str,
                   smiles_column: str | int | None) -> Iterator[Record | Skipped]:
    reader = csv.reader(handle, delimiter=delimiter)
    first = next(reader, None)
    if first is None:
        return
    column = _smiles_column(first, path, smiles_column)
    rows: Iterator[list[str]] = reader
    if column is None:   # no header: the first row is a molecule too
        column = smiles_column if isinstance(smiles_column, int) else 0
        rows = _chain_first(first, reader)
        first_line = 1
    else:
        first_line = 2
    line = first_line
    for row in rows:
        place = f"{path}:{line}"
        line = reader.line_num + 1
        if not row or not any(cell.strip() for cell in row):
            continue
        if column >= len(row):
            yield Skipped(place, f"the row has {len(row)} columns, no column {column}")
            continue
        yield Record(place, row[column].strip(), None)


def _chain_first(first: list[str], rest: Iterator[list[str]]) -> Iterator[list[str]]:
    yield first
    yield from rest


def _smiles_column(header: list[str], path: str, wanted: str | int | None) -> int | None:
    """The column index named by the header row, or `None` if the row is no header."""
    names = [cell.strip().lower() for cell in header]
    if isinstance(wanted, str):
        if wanted.lower() not in names:
            raise GraphError(f"{path}:1: no column {quoted(wanted)} in the header "
                             f"({', '.join(header)})")
        return names.index(wanted.lower())
    if "smiles" in names:
        return names.index("smiles")
    for index, name in enumerate(names):
        if "smiles" in name:
            return index
    return None


def _sdf_records(handle: TextIO, path: str) -> Iterator[Record]:
    block: list[str] = []
    start = 1
    for number, line in enumerate(handle, start=1):
        if line.rstrip("\r\n") == "$$$$":
            yield _sdf_record("".join(block), f"{path}:{start}")
            block, start = [], number + 1
        else:
            block.append(line)
    if any(line.strip() for line in block):   # a last record without its `$$$$`
        yield _sdf_record("".join(block), f"{path}:{start}")


def _sdf_record(block: str, place: str) -> Record:
    return Record(place, block, block.split("\n", 1)[0].strip() or None, molfile=True)


# ---------------------------------------------------------------- for a program


def schema_mismatch(schema: Schema) -> str | None:
    """Why a program with `schema` cannot read molecules, or `None` if it can: it must
    declare no colours, only families of `MOLECULE_SCHEMA` with values of theirs, and
    only its relations (a subset is fine: a molecule with an undeclared value is then
    skipped, named)."""
    if schema.palette:
        return (f"it declares colours ({', '.join(schema.palette)}), and molecules have "
                f"none")
    families = {family.name: family for family in MOLECULE_SCHEMA.families}
    for family in schema.families:
        known = families.get(family.name)
        if known is None:
            return (f"it declares the attribute family {quoted(family.name)}, and molecules "
                    f"have {', '.join(families)}")
        unknown = [v for v in family.values if v not in known.values]
        if unknown:
            return (f"its attribute family {quoted(family.name)} has the value "
                    f"{quoted(unknown[0])}, which no molecule takes")
    unknown = [r for r in schema.relations if r not in MOLECULE_SCHEMA.relations]
    if unknown:
        return (f"it declares the relation {quoted(unknown[0])}, and bonds are "
                f"{', '.join(MOLECULE_SCHEMA.relations)}")
    return None


def require_molecule_schema(schema: Schema, program: str = "the program") -> None:
    """`GraphError` if a program declaring `schema` cannot read molecules at all
    (`schema_mismatch`)."""
    mismatch = schema_mismatch(schema)
    if mismatch is not None:
        raise GraphError(f"{program} cannot read molecules: {mismatch}. The molecule schema "
                         f"is `gracr.domains.chem.molecule_declarations()` (what `gracrc smarts` "
                         f"writes)")


def molecules_for(schema: Schema, path: str, program: str = "the program"
                  ) -> tuple[list[Molecule], list[Skipped]]:
    """The molecules of `path` that a program declaring `schema` can read, and the
    records skipped (RDKit's reasons, the schema's, or the program's declarations).
    `GraphError` if the program cannot read molecules at all (`schema_mismatch`)."""
    require_molecule_schema(schema, program)
    return fitting(schema, iter_molecules(path), program)


def fitting(schema: Schema, records: Iterable[Molecule | Skipped], program: str = "the program"
            ) -> tuple[list[Molecule], list[Skipped]]:
    """The molecules among `records` that a program declaring `schema` can read, and
    the records skipped (RDKit's reasons, or the program's declarations)."""
    molecules: list[Molecule] = []
    skipped: list[Skipped] = []
    for record in records:
        if isinstance(record, Skipped):
            skipped.append(record)
            continue
        try:
            record.graph.check_schema(schema, "molecule")
        except GraphError as error:
            skipped.append(Skipped(record.place, f"{error} (in {program})"))
            continue
        molecules.append(record)
    return molecules, skipped
