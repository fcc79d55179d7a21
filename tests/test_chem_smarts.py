"""gracr.domains.chem part 2: SMARTS -> .gml. Every expected formula here is written by hand."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("rdkit")

import gracr
from gracr.domains.chem import read_smiles
from gracr.domains.chem.reference import RelaxedQuery, classify, distinct_representatives
from gracr.domains.chem.smarts import SmartsError, parse_smarts
from gracr.domains.chem.translate import smarts_to_gml, translate_smarts
from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_path, wombat_formula_text
from gracr.cli import main

ROOT = Path(__file__).resolve().parent.parent


def lets(text: str) -> dict[str, str]:
    """The `let` bodies of a program, by name (comments cut)."""
    found = {}
    for line in text.splitlines():
        if line.startswith("let "):
            name, body = line[4:].split(" = ", 1)
            found[name] = body.split("    #")[0]
    return found


def holds(smarts: str, smiles: str, root: int | None = None) -> bool:
    program = gracr.parse(smarts_to_gml(smarts, root=root))
    return bool(gracr.evaluate(program, read_smiles(smiles).graph))


PRIMITIVES = [
    ("C", "(element=C & aromatic=no)"),
    ("Cl", "(element=Cl & aromatic=no)"),
    ("c", "(element=C & aromatic=yes)"),
    ("n", "(element=N & aromatic=yes)"),
    ("*", "true"),
    ("A", "aromatic=no"),
    ("[a]", "aromatic=yes"),
    ("[#7]", "element=N"),
    ("[#101]", "false"),                       # outside the schema: no atom has it
    ("[Sc]", "element=Sc"),                    # not organic: the element only, as RDKit
    ("[Hg]", "element=Hg"),                    # H + g spells an element: mercury
    ("[se]", "(element=Se & aromatic=yes)"),
    ("[H]", "element=H"),
    ("[H+]", "(element=H & charge=pos1)"),
    ("[CH]", "((element=C & aromatic=no) & hydrogens=H1)"),
    ("[CH3]", "((element=C & aromatic=no) & hydrogens=H3)"),
    ("[*H0]", "(true & hydrogens=H0)"),
    ("[H10]", "false"),
    ("[D3]", "(exactly 3 true)"),
    ("[CD]", "((element=C & aromatic=no) & (exactly 1 true))"),
    ("[+]", "charge=pos1"),
    ("[++]", "charge=pos2"),
    ("[+3]", "charge=pos3"),
    ("[-]", "charge=neg1"),
    ("[--]", "charge=neg2"),
    ("[-2]", "charge=neg2"),
    ("[+0]", "charge=zero"),
    ("[+4]", "false"),
    ("[!#1]", "!element=H"),
    ("[!C]", "!(element=C & aromatic=no)"),
    ("[!CH]", "(!(element=C & aromatic=no) & hydrogens=H1)"),   # ! binds tightest
    ("[C,N]", "((element=C & aromatic=no) | (element=N & aromatic=no))"),
    ("[C&H1]", "((element=C & aromatic=no) & hydrogens=H1)"),
    ("[N;H1,H2]", "((element=N & aromatic=no) & (hydrogens=H1 | hydrogens=H2))"),
    ("[C,N&H1]", "((element=C & aromatic=no) | ((element=N & aromatic=no) & hydrogens=H1))"),
    ("[C,NH1]", "((element=C & aromatic=no) | ((element=N & aromatic=no) & hydrogens=H1))"),
    ("[N+H2]", "((element=N & aromatic=no) & charge=pos1 & hydrogens=H2)"),
]


@pytest.mark.parametrize("smarts,formula", PRIMITIVES, ids=[s for s, _ in PRIMITIVES])
def test_each_atom_primitive(smarts: str, formula: str) -> None:
    text = smarts_to_gml(smarts)
    assert lets(text) == {"atom0": formula, "match": "atom0"}
    gracr.parse(text)   # and it is a program


@pytest.mark.parametrize("smarts,molecules", [
    ("[CH]", {"CC(C)C": True, "CCC": False}),
    ("c", {"c1ccccc1": True, "C1CCCCC1": False}),
    ("[D3]", {"CC(C)C": True, "CCCC": False}),
    ("[N+]", {"C[N+](C)(C)C": True, "CN(C)C": False}),
    ("[O-]", {"CC(=O)[O-]": True, "CC(=O)O": False}),
    ("[!#6;!#1]", {"CO": True, "CC": False}),
])
def test_primitives_mean_what_rdkit_means(smarts: str, molecules: dict[str, bool]) -> None:
    for smiles, expected in molecules.items():
        assert holds(smarts, smiles) is expected, smiles


BONDS = [
    ("C-C", "{single}"),
    ("C=C", "{double}"),
    ("C#C", "{triple}"),
    ("C:C", "{aromatic}"),
    ("CC", "{single, aromatic}"),      # the implicit bond, as RDKit reads it
    ("C~C", ""),                       # every relation: no filter
    ("C!-C", "{double, triple, aromatic}"),
    ("C-,=C", "{single, double}"),
    ("C-,=;!-C", "{double}"),
]


@pytest.mark.parametrize("smarts,relation_filter", BONDS, ids=[s for s, _ in BONDS])
def test_each_bond(smarts: str, relation_filter: str) -> None:
    atom = "(element=C & aromatic=no)"
    assert lets(smarts_to_gml(smarts)) == {
        "atom0": atom,
        "from1": f"atom0 & <1>{relation_filter} atom0",
        "match": f"atom0 & <1>{relation_filter} from1"}


def test_a_bond_admitting_no_relation_is_false() -> None:
    assert lets(smarts_to_gml("C!~C"))["match"] == "atom0 & false"


def test_identical_sibling_branches_are_one_count() -> None:
    assert lets(smarts_to_gml("[CH](Cl)(Cl)Cl")) == {
        "atom0": "((element=C & aromatic=no) & hydrogens=H1)",
        "atom1": "(element=Cl & aromatic=no)",
        "from1": "atom1 & <1>{single, aromatic} atom0",
        "match": "atom0 & <3>{single, aromatic} from1"}


def test_different_siblings_get_hall_conditions() -> None:
    assert lets(smarts_to_gml("C(N)O"))["match"] == (
        "atom0 & <1>{single, aromatic} from1 & <1>{single, aromatic} from2 & "
        "<2>{single, aromatic} (from1 | from2)")


def test_hall_conditions_split_the_count_among_relations() -> None:
    # Branches over {single, aromatic} and over {double}: two neighbours, split 2+0,
    # 1+1 or 0+2 between the relation classes.
    assert lets(smarts_to_gml("C(=O)N"))["match"] == (
        "atom0 & <1>{single, aromatic} from2 & <1>{double} from1 & "
        "(<2>{single, aromatic} from2 | <1>{single, aromatic} from2 & <1>{double} from1 | "
        "<2>{double} from1)")


def test_below_the_root_the_parent_is_one_more_branch() -> None:
    # Rooted at N: the C needs its parent's requirement (N) and its child (*) on two
    # different neighbours.
    assert lets(smarts_to_gml("NC*", root=0))["from1"] == (
        "atom1 & <1>{single, aromatic} atom0 & <1>{single, aromatic} from2 & "
        "<2>{single, aromatic} (atom0 | from2)")
    assert holds("NC*", "NC", root=0) is False    # the C's one neighbour cannot be both
    assert holds("NC*", "NCC", root=0) is True


def test_distinct_neighbours_are_required_for_different_branches() -> None:
    assert holds("C(*)O", "CO") is False   # one neighbour, two branches
    assert holds("C(*)O", "CCO") is True


def test_the_same_subtree_written_in_another_order_is_one_count() -> None:
    assert lets(smarts_to_gml("C(C(N)O)C(O)N"))["match"] == "atom0 & <2>{single, aromatic} from1"


@pytest.mark.parametrize("smarts,centre", [
    ("C", 0), ("CCl", 0), ("CCC", 1), ("CCCC", 1), ("C(C)(C)CCC", 3), ("CC(C)(C)C", 1),
    ("[!#1][CH]([!#1])[!#1]", 1), ("[CHD3]C(=O)[CH2]C([CH3])([CH3])[CH2][CD4]", 3),
])
def test_the_root_is_a_centre_ties_to_the_lowest_index(smarts: str, centre: int) -> None:
    assert translate_smarts(smarts).root == centre
    assert f"root = atom {centre} " in smarts_to_gml(smarts)


def test_root_overrides_the_centre_and_must_be_an_atom() -> None:
    assert translate_smarts("CCC", root=2).root == 2
    with pytest.raises(SmartsError, match=r"--root 3 is not an atom of the SMARTS \(atoms 0..2\)"):
        smarts_to_gml("CCC", root=3)


ERRORS = [
    ("c1ccccc1", "SMARTS:1:2: ring closure '1' is not supported: the translation covers "
                 "acyclic SMARTS only\n    c1ccccc1\n     ^"),
    ("C%12CC%12", "SMARTS:1:2: ring closure '%12' is not supported: the translation covers "
                  "acyclic SMARTS only\n    C%12CC%12\n     ^^^"),
    ("C[$(CO)]", "SMARTS:1:3: recursive SMARTS '$(' is not supported\n    C[$(CO)]\n      ^^"),
    ("N[C@H](C)O", "SMARTS:1:4: chirality '@' is not supported\n    N[C@H](C)O\n       ^"),
    ("N[C@@H](C)O", "SMARTS:1:4: chirality '@@' is not supported\n    N[C@@H](C)O\n       ^^"),
    ("C[CR]", "SMARTS:1:4: ring primitive 'R' is not supported\n    C[CR]\n       ^"),
    ("[r6]", "SMARTS:1:2: ring primitive 'r' is not supported\n    [r6]\n     ^"),
    ("[Cx2]", "SMARTS:1:3: ring primitive 'x' is not supported\n    [Cx2]\n      ^"),
    ("C@C", "SMARTS:1:2: ring bond '@' is not supported (a ring primitive)\n    C@C\n     ^"),
    ("F/C=C/F", "SMARTS:1:2: bond direction '/' is not supported (double-bond "
                "stereochemistry)\n    F/C=C/F\n     ^"),
    ("CC.O", "SMARTS:1:3: '.' (several components) is not supported: the SMARTS must be "
             "one connected pattern\n    CC.O\n      ^"),
    ("[13C]", "SMARTS:1:2: isotope '13' is not supported\n    [13C]\n     ^^"),
    ("[CX4]", "SMARTS:1:3: atom primitive 'X' is not supported (supported: element symbols, "
              "#n, *, A, a, H<n>, D<n>, charges, !, &, ',', ;)\n    [CX4]\n      ^"),
    ("C(", "SMARTS:1:2: a branch must hold an atom\n    C(\n     ^"),
    ("C(C", "SMARTS:1:2: unclosed branch: expected ')'\n    C(C\n     ^"),
    ("C)", "SMARTS:1:2: ')' closes no branch\n    C)\n     ^"),
    ("[C", "SMARTS:1:1: unclosed '[': expected ']'\n    [C\n    ^"),
    ("C=", "SMARTS:1:3: a bond must be followed by an atom\n    C=\n      ^"),
    ("", "SMARTS:1:1: empty SMARTS: expected an atom"),
]


@pytest.mark.parametrize("smarts,message", ERRORS, ids=[s or "empty" for s, _ in ERRORS])
def test_golden_error_messages(smarts: str, message: str) -> None:
    with pytest.raises(SmartsError) as caught:
        parse_smarts(smarts)
    assert str(caught.value) == message


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_the_smarts_command_writes_a_program_and_refuses_with_exit_2(tmp_path: Path) -> None:
    target = tmp_path / "p.gml"
    code, out, _ = _run("smarts", "[CH2]Cl", "-o", str(target), "--root", "1")
    assert code == 0 and out == f"{target}: [CH2]Cl\n"
    assert target.read_text() == smarts_to_gml("[CH2]Cl", root=1)
    code, out, err = _run("smarts", "C1CC1")
    assert code == 2 and out == ""
    assert err == ("SMARTS:1:2: ring closure '1' is not supported: the translation covers "
                   "acyclic SMARTS only\n    C1CC1\n     ^\n")


def test_the_node_program_classifies_atoms() -> None:
    program = gracr.parse(smarts_to_gml("[CH2]Cl", node=True))
    values = gracr.evaluate(program, read_smiles("ClCC").graph)
    assert [bool(v) for v in values] == [False, True, False]


def test_the_wombat_files_are_what_the_translation_writes() -> None:
    assert len(WOMBAT_PATTERNS) == 14
    for pattern in WOMBAT_PATTERNS:
        path = wombat_formula_path(pattern)
        assert path.read_text() == wombat_formula_text(pattern), \
            f"{path}: run scripts/wombat_formulas.py"
    assert '"formulas/wombat/*.gml"' in (ROOT / "pyproject.toml").read_text()


def test_the_reference_matches_distinct_representatives() -> None:
    assert distinct_representatives([[1, 2], [1]]) is True
    assert distinct_representatives([[1], [1]]) is False
    assert distinct_representatives([[1, 2, 3], [1, 2], [1, 2]]) is True
    assert distinct_representatives([[1, 2], [1, 2], [1, 2]]) is False
    assert distinct_representatives([]) is True


def test_the_reference_is_relaxed_where_rdkit_is_exact() -> None:
    # Cyclopropane: every CH2 has two CH2 neighbours, so the chain of four CH2 matches
    # relaxed (the fourth atom reuses the first), not exactly.
    query = RelaxedQuery.from_smarts("[CH2][CH2][CH2][CH2]")
    mol = read_smiles("C1CC1").mol
    assert query.matches(mol) is True and query.rdkit_matches(mol) is False
    assert classify(True, True, False) == "relaxed"
    assert classify(False, False, False) == "agree"
    assert classify(True, False, False) == "unexplained"
    assert classify(False, False, True) == "unexplained"


def test_an_atom_with_too_many_different_branches_is_refused() -> None:
    # Seven groups: Hall's condition is a chain of 127 conjuncts, over MAX_NESTING (100).
    with pytest.raises(SmartsError, match="atom 0 has 7 different branches, over the limit "
                                          "of 6"):
        smarts_to_gml("C(N)(O)(S)(P)(F)(Cl)(Br)")


def test_an_atom_with_too_many_bonds_is_refused_at_the_bond_over_the_limit() -> None:
    from gracr.limits import MAX_SMARTS_BRANCHES

    # 600 branches over four bond types: Hall's condition would split them C(603, 3) ways.
    smarts = "C" + "(-C)(=C)(#C)(:C)" * 150
    with pytest.raises(SmartsError) as caught:
        parse_smarts(smarts)
    column = 1 + 4 * MAX_SMARTS_BRANCHES    # the branch after the last one allowed
    assert caught.value.column == column
    assert str(caught.value).startswith(
        f"SMARTS:1:{column + 1}: atom 0 (C) has more than {MAX_SMARTS_BRANCHES} bonds, over "
        f"gracr's limit (gracr.limits.MAX_SMARTS_BRANCHES)")


def test_a_split_of_bonds_longer_than_the_nesting_limit_is_refused_before_it_is_written(
        ) -> None:
    with pytest.raises(SmartsError, match="atom 0's 8 bonds split 165 ways among 4 relation "
                                          "classes: Hall's condition would nest deeper than "
                                          "gracr's limit of 100"):
        smarts_to_gml("C(-C)(-C)(=C)(=C)(#C)(#C)(:C)(:C)")


HOSTILE = [
    # A chain, nested branches and a number far over any limit: each refused where it is.
    ("C" * 3000, "SMARTS:1:201: more than 200 atoms, over gracr's limit "
                 "(gracr.limits.MAX_SMARTS_ATOMS)"),
    ("C(" * 1500 + "C" + ")" * 1500, "SMARTS:1:401: more than 200 atoms, over gracr's limit "
                                     "(gracr.limits.MAX_SMARTS_ATOMS)"),
    ("[#" + "1" * 5000 + "]", "SMARTS:1:3: the number 11111111111111111111... is over "
                              "gracr's limit of 16777216 (gracr.limits.MAX_COUNT)"),
    ("[D99999999]", "SMARTS:1:3: the number 99999999 is over gracr's limit of 16777216"),
    ("[" + "C&" * 200 + "C]", "SMARTS:1:204: more than 101 operands of one operator in the "
                              "atom: its formula would nest deeper than gracr's limit of 100"),
    ("C" * 80, "SMARTS:1:34: the translation is not a program gracr reads, at atom 33: "
               "formula nested 102 levels deep, over gracr's limit of 100"),
]


@pytest.mark.parametrize("smarts,message", HOSTILE, ids=["chain", "nested", "digits", "degree",
                                                        "operands", "deep"])
def test_the_smarts_command_refuses_hostile_smarts_with_one_message(smarts: str,
                                                                    message: str) -> None:
    code, out, err = _run("smarts", smarts)
    assert (code, out) == (2, "")
    assert err.startswith(message) and "Traceback" not in err


def test_a_long_run_of_negations_is_read_without_recursion() -> None:
    # `!!x` is `x`, as RDKit reads it.
    assert lets(smarts_to_gml("[" + "!" * 3000 + "C]"))["atom0"] == "(element=C & aromatic=no)"
    assert lets(smarts_to_gml("[" + "!" * 3001 + "C]"))["atom0"] == "!(element=C & aromatic=no)"
    assert lets(smarts_to_gml("C" + "!" * 3000 + "-C"))["match"] == "atom0 & <1>{single} from1"
    assert lets(smarts_to_gml("C" + "!" * 3001 + "-C"))["match"] == (
        "atom0 & <1>{double, triple, aromatic} from1")


@pytest.mark.parametrize("smarts,reason", [
    ("C(N)(O)(S)(P)(F)(Cl)(Br)", "atom 0 has 7 different branches, over the limit of 6"),
    ("C(N)(O)(S)(P)(F)(Cl)(Br)(I)(B)(c)", "atom 0 has 10 different branches, over the limit "
                                         "of 6"),
    ("C(-C)(=C)(#C)(:C)(-N)(=N)", "the translation does not compile: the compiled model would "
                                  "hold 54.8 GiB of dense weights"),
])
def test_the_smarts_command_writes_only_what_gracr_compiles(tmp_path: Path, smarts: str,
                                                            reason: str) -> None:
    target = tmp_path / "p.gml"
    code, _, err = _run("smarts", smarts, "-o", str(target))
    assert code == 2 and not target.exists()
    assert err.startswith("SMARTS:1:1: " + reason)


def test_six_branch_groups_are_written_and_compile(tmp_path: Path) -> None:
    target = tmp_path / "p.gml"
    code, _, _ = _run("smarts", "C(N)(O)(S)(P)(F)(Cl)", "-o", str(target))
    assert code == 0
    gracr.compile(gracr.parse(target.read_text()))
