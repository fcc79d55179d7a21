"""SMARTS patterns: valid trees like WOMBAT's motifs, then hostile ones — chains of
thousands of atoms, branches nested or stacked hundreds deep, hundreds of `!`, numbers of
thousands of digits, seven to ten different branch groups at one atom, odd characters,
the subset's refused syntax (ring closures, recursion, chirality), cut text.

An input runs as parsed (`translate_smarts` turns it into `.gml` text, what `gracrc
smarts` prints) -> checked (that text parses and checks: a `.gml` that `gracrc smarts`
wrote and gracr refuses is a finding) -> compiled (under `FUZZ_BUDGET`) -> evaluated (a
graph sentence on a dozen molecules, each compiled answer beside RDKit's and the relaxed
reference's, `gracr.domains.chem.check`: an unexplained disagreement is a finding). A SMARTS
drawn from the valid grammar must get through every stage.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from hypothesis import strategies as st

from gracr.domains.chem.check import check_molecules
from gracr.domains.chem.molecules import Molecule, read_smiles
from gracr.domains.chem.reference import RelaxedQuery
from gracr.domains.chem.translate import translate_smarts
from gracr.domains.chem.wombat import WOMBAT_PATTERNS
from gracr.dsl.parse import check_tree, syntax_tree
from gracr.errors import GracrError
from gracr.executor.model import compile_program
from gracr.fuzz.inputs.kinds import FUZZ_BUDGET, CliRun, Finding, InputKind, Payload, Reached

FILENAME = "smarts.gml"

# Atoms and bonds of the supported subset; a valid tree of at most `VALID_ATOMS` atoms and
# `VALID_BRANCHES` branches an atom stays far inside the nesting limit.
ATOMS = ("C", "N", "O", "S", "Cl", "c", "n", "*", "a", "A", "[CH2]", "[CH3]", "[!#1]",
         "[CHD3]", "[N+]", "[N;H1,H2]", "[C,N]", "[#6]", "[O-]", "[Br]", "[SD4]", "[!C&!N]")
BONDS = ("", "", "", "-", "=", "#", ":", "~", "!=", "-,=")
VALID_ATOMS = 8
VALID_BRANCHES = 3
# Molecules every graph sentence is evaluated on: WOMBAT's kind, and a few odd ones.
MOLECULES = ("CC(Cl)(Cl)Cl", "CC(=O)NC(C)C(Cl)(Cl)Cl", "CCCC", "C[N+](C)(C)C", "CC=O",
             "ClCC", "Cc1ccccc1", "CC(C)S(=O)(=O)C", "CC(=O)NN=C(C)CC(C)C(=O)O",
             "CCN(CC)CCOC(=O)C(C)C", "O", "C#N", "[O-]C(=O)CBr", "CCCCCCCCCC(=O)NNC(=O)C(C)C")


@st.composite
def valid_smarts(draw: st.DrawFn, atoms: int = VALID_ATOMS) -> str:
    """A tree of up to `atoms` atoms from the subset, written with branches."""
    budget = [draw(st.integers(1, atoms))]

    def tree() -> str:
        budget[0] -= 1
        text = draw(st.sampled_from(ATOMS))
        children = 0
        while budget[0] > 0 and children < VALID_BRANCHES and draw(st.integers(0, 2)):
            children += 1
            text += "(" + draw(st.sampled_from(BONDS)) + tree() + ")"
        if budget[0] > 0 and draw(st.booleans()):
            text += draw(st.sampled_from(BONDS)) + tree()
        return text

    return tree()


ODD = ("\u202e", "é", "🙂", "\t", " ", "\n", "\ufeff", "$", "@", "%10", "1", "/", "\\", ".",
       "$(C)", "[", "]", "(", ")", "&", ";", ",", "!", "H", "+", "-", "#", ":", "~", "{", "}")


SIZES = (30, 101, 600, 1500, 3000, 10_000)
DIGITS = (5, 20, 4300, 4301, 5000, 100_000)


def _hostile(how: str, size: int, salt: int, base: str) -> str:
    """A SMARTS of shape `how` and `size` (other choices from `salt`)."""
    match how:
        case "chain":
            return "C" * size
        case "bond-chain":
            return "C" + "=C" * size
        case "deep":
            return "C(" * size + "C" + ")" * size
        case "branches":
            return "C" + "(C)" * size
        case "groups":          # `groups` different branches at one atom: 7 to 10 is the edge
            groups = 5 + SIZES.index(size)          # 5 to 10
            return "C" + "".join(f"({b}{a})" for b, a in zip(
                ("", "=", "#", "~", "-", ":", "", "=", "#", "~", "-", ":"),
                ("N", "O", "S", "F", "Cl", "Br", "I", "P", "B", "C", "n", "o")[:groups]))
        case "nots":
            return "[" + "!" * size + "C]"
        case "number":
            digits = DIGITS[SIZES.index(size)]
            field = ("#", "H", "D", "+", "-", "")[salt // 6 % 6]
            return f"[{field}{'9' * digits}]C"
        case "ands":
            return "[" + "&".join(["C"] * size) + "]"
        case "ors":
            return "[" + ",".join(["C", "N"] * (size // 2)) + "]"
        case _:                 # a valid tree cut short, or with an odd character put in
            at = salt % (len(base) + 1)
            if how == "cut":
                return base[:at]
            return base[:at] + ODD[salt % len(ODD)] + base[at:]


HOWS = ("chain", "bond-chain", "deep", "branches", "groups", "nots", "number", "ands", "ors",
        "cut", "odd", "odd")


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    base = draw(st.one_of(st.sampled_from([p.relaxed for p in WOMBAT_PATTERNS]
                                          + [p.original for p in WOMBAT_PATTERNS]),
                          valid_smarts()))
    valid = draw(st.integers(0, 2)) == 0
    smarts = base if valid else _hostile(draw(st.sampled_from(HOWS)),
                                         draw(st.sampled_from(SIZES)),
                                         draw(st.integers(0, 2**16)), base)
    root = draw(st.sampled_from([None] * 6 + [0, 1, -1, 10**6]))
    if valid and root is not None and root != 0:
        root = None
    return {"smarts": smarts, "valid": valid, "root": root, "node": draw(st.integers(0, 4)) == 0}


@cache
def _molecules() -> tuple[Molecule, ...]:
    return tuple(read_smiles(smiles) for smiles in MOLECULES)


def run(payload: Payload, reached: Reached) -> None:
    try:
        _run(payload, reached)
    except GracrError as error:
        # A valid SMARTS must translate and check; its network may still be over the
        # byte budget (Hall's condition multiplies the columns of a branched atom).
        if payload["valid"] and "checked" not in reached.stages:
            raise Finding("a valid SMARTS was refused", str(error)) from None
        raise


def _run(payload: Payload, reached: Reached) -> None:
    smarts = payload["smarts"]
    translation = translate_smarts(smarts, payload["root"], payload["node"])
    reached.passed("parsed")
    try:
        program = check_tree(syntax_tree(translation.text, FILENAME), FILENAME,
                             translation.text)
    except GracrError as error:
        raise Finding("gracrc smarts wrote a .gml that gracr refuses", str(error)) from None
    reached.passed("checked")
    model = compile_program(program, max_weights_bytes=FUZZ_BUDGET)
    reached.passed("compiled")
    if payload["node"]:
        return
    query = RelaxedQuery.from_smarts(smarts, translation.root)
    for verdict in check_molecules(model, query, _molecules()):
        if verdict.kind == "unexplained":
            raise Finding("a compiled SMARTS disagrees with RDKit unexplained",
                          f"{verdict.molecule.smiles}: compiled {verdict.compiled}, relaxed "
                          f"{verdict.relaxed}, RDKit {verdict.rdkit}")
    reached.passed("evaluated")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """`gracrc smarts` on the SMARTS, under the byte budget the API compiled with: exit 2
    exactly when the translation or its compilation refused it (`gracrc smarts` compiles
    what it writes); what it prints the API's translation."""
    argv = ["smarts", "--max-weights-bytes", str(FUZZ_BUDGET)]
    if payload["root"] is not None:
        argv += ["--root", str(payload["root"])]
    if payload["node"]:
        argv.append("--node")
    translated = "compiled" in reached.stages

    def check(out: str) -> None:
        text = translate_smarts(payload["smarts"], payload["root"], payload["node"]).text
        if out != text:
            raise Finding("gracrc smarts printed another translation", out[:500])

    return CliRun([*argv, "--", payload["smarts"]], must_fail=not translated,
                  check_output=check if translated else None)


def describe(payload: Payload) -> str:
    smarts = payload["smarts"]
    return f"{'valid' if payload['valid'] else 'hostile'}, {len(smarts)} characters: " \
           f"{smarts[:60]!r}"


KIND = InputKind("smarts", ("parsed", "checked", "compiled", "evaluated"), payloads, run, cli,
                 share=1.0, describe=describe)
