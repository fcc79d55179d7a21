"""Molecule files: SMILES, SDF and CSV files of small valid molecules, then hostile —
molecules of thousands to 200 000 atoms, garbage records, unclosed rings, unknown
elements, records and files cut short, fields over the CSV limit, NUL bytes, text that is
not UTF-8, molfile counts lines that claim more atoms than follow.

An input runs as parsed (`molecules_for` reads the file for a WOMBAT pattern's program:
each record a molecule or skipped, named) -> evaluated (the pattern's compiled network on
every molecule, beside RDKit's match and the relaxed reference, `gracr.domains.chem.check`: an
unexplained disagreement is a finding). A file of valid molecules must be read whole,
no record skipped; `gracrc chem-check` on it must agree.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from hypothesis import strategies as st
from rdkit import Chem

from gracr.domains.chem.check import check_molecules
from gracr.domains.chem.molecules import molecules_for
from gracr.domains.chem.reference import RelaxedQuery
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_text
from gracr.dsl.parse import parse
from gracr.dsl.program import Program
from gracr.executor.model import CompiledGNN, compile_program
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.smarts import MOLECULES

PROGRAM = "pattern.gml"
SUFFIXES = {"smi": "molecules.smi", "sdf": "molecules.sdf", "csv": "molecules.csv"}
# Pieces of hostile SMILES: atoms, bonds, rings, charges, and what no SMILES has.
PIECES = ("C", "c", "N", "(", ")", "=", "#", "1", "%99", "[", "]", "[Xx]", "[C+99]", "[2H]",
          "[U]", "@", "/", "\\", ".", "*", "\u202e", "é", "\t", ",", '"', "\x00", "[C@@H]")


@cache
def _molblock(smiles: str) -> str:
    mol = Chem.MolFromSmiles(smiles)
    return f"{smiles}\n{Chem.MolToMolBlock(mol).split(chr(10), 1)[1]}$$$$\n"


def _file(fmt: str, records: list[str]) -> str:
    if fmt == "sdf":
        return "".join(_molblock(smiles) for smiles in records)
    if fmt == "csv":
        return "id,SMILES\n" + "".join(f"{i},{smiles}\n" for i, smiles in enumerate(records))
    return "".join(f"{smiles} m{i}\n" for i, smiles in enumerate(records))


def _huge(atoms: int, shape: int) -> str:
    """A molecule of `atoms` atoms: a chain, a branched chain, rings."""
    match shape:
        case 0:
            return "C" * atoms
        case 1:
            return "C(C)" * (atoms // 2)
        case _:
            return "C1CCCCC1" * (atoms // 6)


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    fmt = draw(st.sampled_from(["smi", "smi", "sdf", "csv"]))
    records = draw(st.lists(st.sampled_from(MOLECULES), min_size=1, max_size=5))
    text = _file(fmt, records)
    valid = draw(st.integers(0, 2)) == 0
    edits: list[str] = []
    if not valid:
        for _ in range(draw(st.integers(1, 2))):
            how = draw(st.sampled_from(["huge", "garbage", "cut", "insert", "field", "nul",
                                        "counts"]))
            edits.append(how)
            at = draw(st.integers(0, len(text)))
            salt = draw(st.integers(0, 2**16))
            match how:
                case "huge":     # an SDF gets it as a SMILES line: a record it cannot read
                    huge = _huge(draw(st.sampled_from([200_000, 20_000, 1000])),
                                 draw(st.integers(0, 2)))
                    text += _file("smi" if fmt == "sdf" else fmt, [huge])
                case "garbage":
                    garbage = "".join(draw(st.lists(st.sampled_from(PIECES), min_size=1,
                                                    max_size=12)))
                    text += f"{garbage}\n" if fmt != "csv" else f"9,{garbage}\n"
                case "cut":
                    text = text[:at]
                case "insert":
                    text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
                case "field":
                    text += "x," + "C" * draw(st.sampled_from([1, 100_001, 200_001])) + "\n"
                case "nul":
                    text = text[:at] + "\x00" + text[at:]
                case _:     # a molfile record whose counts line claims atoms that never come
                    text = f"x\n\n\n{salt % 1000:3d}{salt % 999:3d}  0  0  0  0  0  0  0  0" \
                           f"999 V2000\nM  END\n$$$$\n" + text
    binary = draw(st.integers(0, 19)) == 0 and not valid
    data = text.encode("utf-8") + (b"\xff\xfe\x80 bad\n" if binary else b"")
    return {"format": fmt, "bytes": data, "valid": valid, "records": len(records),
            "pattern": draw(st.integers(0, len(WOMBAT_PATTERNS) - 1)), "edits": edits}


@cache
def _program(pattern: int) -> Program:
    return parse(wombat_formula_text(WOMBAT_PATTERNS[pattern]), filename=PROGRAM)


@cache
def _model(pattern: int) -> CompiledGNN:
    return compile_program(_program(pattern), max_weights_bytes=FUZZ_BUDGET)


@cache
def _query(pattern: int) -> RelaxedQuery:
    return RelaxedQuery.from_smarts(WOMBAT_PATTERNS[pattern].relaxed)


def run(payload: Payload, reached: Reached) -> None:
    pattern = payload["pattern"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / SUFFIXES[payload["format"]]
        path.write_bytes(payload["bytes"])
        molecules, skipped = molecules_for(_program(pattern).schema, str(path), PROGRAM)
    reached.passed("parsed")
    if payload["valid"] and (skipped or len(molecules) != payload["records"]):
        raise Finding("a valid molecule file was not read whole",
                      f"{len(molecules)} of {payload['records']} read; skipped: "
                      f"{[str(s) for s in skipped[:3]]}")
    for verdict in check_molecules(_model(pattern), _query(pattern), molecules):
        if verdict.kind == "unexplained":
            raise Finding("a compiled pattern disagrees with RDKit unexplained",
                          f"{WOMBAT_PATTERNS[pattern].relaxed} on {verdict.molecule.smiles}: "
                          f"compiled {verdict.compiled}, relaxed {verdict.relaxed}, "
                          f"RDKit {verdict.rdkit}")
    reached.passed("evaluated")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc chem-check` of the pattern on the file: exit 2 exactly when the API refused
    the file (exit 1, an unexplained disagreement, is a finding)."""
    pattern = WOMBAT_PATTERNS[payload["pattern"]]
    (folder / PROGRAM).write_text(wombat_formula_text(pattern), encoding="utf-8")
    name = SUFFIXES[payload["format"]]
    (folder / name).write_bytes(payload["bytes"])
    return CliRun(["chem-check", PROGRAM, "--smarts", pattern.relaxed, "--molecules", name],
                  must_fail=reached.refused is not None)


def describe(payload: Payload) -> str:
    return f"{payload['format']}, {'+'.join(payload['edits']) or 'valid'}, " \
           f"{len(payload['bytes'])} bytes: {payload['bytes'][:60]!r}"


KIND = InputKind("molecules", ("parsed", "evaluated"), payloads, run, cli, share=1.0,
                 describe=describe)
