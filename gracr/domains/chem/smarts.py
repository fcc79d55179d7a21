"""SMARTS text -> `SmartsTree`: the acyclic subset that `smarts_to_gml` translates.

Our own small recursive-descent parser, not RDKit's query objects: it keeps each
atom's and each bond's column for error messages, reads exactly the supported subset
and names the first token outside it, and its few rules are written down here. It
follows RDKit's reading of SMARTS wherever the two could differ (the translation is
proven against RDKit, `gracr.domains.chem.reference`):

- atoms are numbered in order of appearance (RDKit's atom indices);
- a bare symbol is an organic-subset atom: `B C N O F P S Cl Br I` aliphatic,
  `b c n o p s` aromatic; `*` any atom, `A` any aliphatic, `a` any aromatic atom;
- in brackets, an upper-case letter and a lower-case one that together spell an element
  (Z ≤ 118) are that element (`[Cl]`, `[Sc]`, `[Hg]`, `[Db]`), else the upper-case
  letter alone is read; an element of the organic subset is aliphatic (as bare), any
  other element symbol constrains only the element (RDKit's `AtomAtomicNum`); the
  aromatic symbols are `b c n o p s se as te si`;
- `H` is the hydrogen element only as a whole bracket `[H]` with at most a charge
  (`[H+]`); anywhere else `H<n>` is the total H count (`H` = `H1`);
- `D<n>` is the explicit (here: heavy) degree (`D` = `D1`); `+`, `++`, `+<n>`, `-`,
  `--`, `-<n>` and `+0` the formal charge;
- inside brackets `!` binds tightest, then juxtaposition (implicit and), then `&`,
  then `,` (or), then `;` (and); the same for bond expressions;
- a bond is `-` single, `=` double, `#` triple, `:` aromatic, `~` any, a logical
  expression of those, or nothing: single or aromatic. A bond denotes the set of
  relations (`single`, `double`, `triple`, `aromatic`) it admits.

Limits (`gracr.limits`): at most `MAX_SMARTS_ATOMS` atoms, at most `MAX_SMARTS_BRANCHES`
bonds at one atom, at most `MAX_NESTING + 1` operands of one operator in an atom (the
translation chains them) and no number over `MAX_COUNT`; each is refused where it is
exceeded. The parser recurses only into branches, so its depth is bounded by the atom
limit; a run of `!` is read in a loop (`!!x` is `x`).

Refused, each with an error naming the token: ring closures (`1`, `%10`), recursive
SMARTS (`$(`), chirality (`@`, `@@`), ring primitives (`R`, `r`, `x`, the ring bond
`@`), bond direction (`/`, `\\`), several components (`.`), and every other primitive
(isotopes, `X`, `v`, `h`, `^`, atom maps ...).

Its size (500–600 lines) is one parser for the whole subset, with its own message for each refused
token and each limit: split, the pieces would share all of `_Parser`'s state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Union

from gracr.domains.chem.schema import BOND_RELATIONS, ELEMENT_SYMBOLS
from gracr.errors import GmlError, Problem, Span
from gracr.limits import MAX_COUNT, MAX_NESTING, MAX_SMARTS_ATOMS, MAX_SMARTS_BRANCHES

ORGANIC_ALIPHATIC = ("Cl", "Br", "B", "C", "N", "O", "F", "P", "S", "I")
ORGANIC_AROMATIC = ("b", "c", "n", "o", "p", "s")
BRACKET_AROMATIC = ("se", "as", "te", "si", "b", "c", "n", "o", "p", "s")
ATOMIC_NUMBER = {symbol: z for z, symbol in enumerate(ELEMENT_SYMBOLS, start=1)}

BOND_SYMBOLS = {"-": frozenset({"single"}), "=": frozenset({"double"}),
                "#": frozenset({"triple"}), ":": frozenset({"aromatic"}),
                "~": frozenset(BOND_RELATIONS)}
IMPLICIT_BOND = frozenset({"single", "aromatic"})


class SmartsError(GmlError):
    """A SMARTS outside the supported subset, or malformed: `where:1:col: message`, the
    SMARTS and a caret under the token (printed as a `.gml` error is)."""

    def __init__(self, smarts: str, column: int, width: int, message: str,
                 where: str = "SMARTS") -> None:
        self.column = column
        self.reason = message
        span = Span(where, 1, column + 1, 1, column + 1 + max(1, width))
        super().__init__([Problem(span, message)], smarts)


# ---------------------------------------------------------------- atom expressions


@dataclass(frozen=True)
class Element:
    """Atomic number `number`; `aromatic` True/False constrains aromaticity, None not."""

    number: int
    aromatic: bool | None


@dataclass(frozen=True)
class AnyAtom:
    """`*`."""


@dataclass(frozen=True)
class Aromaticity:
    """`a` (aromatic) or `A` (aliphatic)."""

    aromatic: bool


@dataclass(frozen=True)
class HCount:
    """`H<n>`: total hydrogen count."""

    count: int


@dataclass(frozen=True)
class Degree:
    """`D<n>`: explicit degree (heavy neighbours, the molecule having no H atoms)."""

    count: int


@dataclass(frozen=True)
class Charge:
    """`+<n>` / `-<n>`: formal charge."""

    charge: int


@dataclass(frozen=True)
class Not:
    operand: AtomExpr


@dataclass(frozen=True)
class And:
    operands: tuple[AtomExpr, ...]


@dataclass(frozen=True)
class Or:
    operands: tuple[AtomExpr, ...]


AtomExpr = Union[Element, AnyAtom, Aromaticity, HCount, Degree, Charge, Not, And, Or]


@dataclass(frozen=True)
class SmartsAtom:
    """Atom `index`: its expression, its text in the SMARTS and its 0-based column."""

    index: int
    expr: AtomExpr
    text: str
    column: int


@dataclass(frozen=True)
class SmartsBond:
    """A bond between atoms `begin` (the earlier) and `end`: the relations it admits."""

    begin: int
    end: int
    relations: frozenset[str]
    text: str


@dataclass(frozen=True)
class SmartsTree:
    """A parsed acyclic, connected SMARTS."""

    smarts: str
    atoms: tuple[SmartsAtom, ...]
    bonds: tuple[SmartsBond, ...]

    def neighbours(self, atom: int) -> list[tuple[int, SmartsBond]]:
        """The atoms bonded to `atom`, in bond order, each with its bond."""
        return self._adjacency[atom]

    @cached_property
    def _adjacency(self) -> list[list[tuple[int, SmartsBond]]]:
        # Built once: a scan of the bonds per call made the centre search cubic.
        adjacency: list[list[tuple[int, SmartsBond]]] = [[] for _ in self.atoms]
        for bond in self.bonds:
            adjacency[bond.begin].append((bond.end, bond))
            adjacency[bond.end].append((bond.begin, bond))
        return adjacency

    def eccentricity(self, atom: int) -> int:
        """The largest number of bonds from `atom` to another atom."""
        distance = {atom: 0}
        frontier = [atom]
        while frontier:
            following = []
            for current in frontier:
                for other, _ in self.neighbours(current):
                    if other not in distance:
                        distance[other] = distance[current] + 1
                        following.append(other)
            frontier = following
        return max(distance.values())

    def centre(self) -> int:
        """A centre of the tree: minimum eccentricity, ties to the lowest atom index."""
        return min(range(len(self.atoms)), key=lambda a: (self.eccentricity(a), a))


# ---------------------------------------------------------------- parser


def parse_smarts(smarts: str, where: str = "SMARTS") -> SmartsTree:
    """Parse `smarts`; `SmartsError` names the first token outside the subset."""
    return _Parser(smarts, where).parse()


class _Parser:
    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.where = where
        self.at = 0
        self.atoms: list[SmartsAtom] = []
        self.bonds: list[SmartsBond] = []
        self.degree: list[int] = []
        # The bond read before the atom `chain` parses next.
        self.pending: tuple[frozenset[str], str] = (IMPLICIT_BOND, "")

    def fail(self, message: str, column: int | None = None, width: int = 1) -> SmartsError:
        return SmartsError(self.text, self.at if column is None else column, width, message,
                           self.where)

    def next_is(self, characters: str) -> bool:
        """Whether the next character is one of `characters` (never at the end)."""
        return self.at < len(self.text) and self.text[self.at] in characters

    def peek(self, offset: int = 0) -> str:
        index = self.at + offset
        return self.text[index] if index < len(self.text) else ""

    def parse(self) -> SmartsTree:
        if not self.text.strip():
            raise self.fail("empty SMARTS: expected an atom", 0)
        self.chain(None)
        if self.at < len(self.text):
            if self.peek() == ")":
                raise self.fail("')' closes no branch")
            raise self._unexpected()
        return SmartsTree(self.text, tuple(self.atoms), tuple(self.bonds))

    def chain(self, parent: int | None) -> None:
        """An atom bonded to `parent` (the bond already read into `self.pending`), then
        its branches and the rest of the chain. The chain onward is a loop and only a
        branch recurses, so the depth is the branches' nesting, under the atom limit."""
        while True:
            previous = self.atom()
            if parent is not None:
                relations, text = self.pending
                self.bonds.append(SmartsBond(parent, previous, relations, text))
                self.degree[parent] += 1
                self.degree[previous] += 1
            onward = False
            while self.at < len(self.text) and not onward:
                c = self.peek()
                if c == ")":
                    return
                if c == "(":
                    self._within_branch_limit(previous)
                    opened = self.at
                    self.at += 1
                    self.pending = self.bond()
                    if self.peek() in ("", ")"):
                        raise self.fail("a branch must hold an atom", opened)
                    self.chain(previous)
                    if self.peek() != ")":
                        raise self.fail("unclosed branch: expected ')'", opened)
                    self.at += 1
                else:
                    self._refuse_between_atoms()
                    self._within_branch_limit(previous)
                    self.pending = self.bond()
                    if not self.peek() or self.next_is(")("):
                        raise self.fail("a bond must be followed by an atom")
                    onward = True
            if not onward:
                return
            parent = previous

    def _within_branch_limit(self, atom: int) -> None:
        """Refuse one more bond at `atom` once it has `MAX_SMARTS_BRANCHES`."""
        if self.degree[atom] >= MAX_SMARTS_BRANCHES:
            raise self.fail(f"atom {atom} ({self.atoms[atom].text}) has more than "
                            f"{MAX_SMARTS_BRANCHES} bonds, over gracr's limit "
                            f"(gracr.limits.MAX_SMARTS_BRANCHES): Hall's condition would "
                            f"enumerate too many ways to split them")

    def _refuse_between_atoms(self) -> None:
        c = self.peek()
        if c.isdigit():
            raise self.fail(f"ring closure '{c}' is not supported: the translation covers "
                            f"acyclic SMARTS only")
        if c == "%":
            width = 3 if self.text[self.at + 1:self.at + 3].isdigit() else 1
            raise self.fail(f"ring closure '{self.text[self.at:self.at + width]}' is not "
                            f"supported: the translation covers acyclic SMARTS only",
                            width=width)
        if c == ".":
            raise self.fail("'.' (several components) is not supported: the SMARTS must be "
                            "one connected pattern")

    # -------------------------------------------------------------- bonds

    def bond(self) -> tuple[frozenset[str], str]:
        """A bond expression (possibly empty: the implicit bond)."""
        start = self.at
        if not self.next_is("-=#:~@/\\!"):
            return IMPLICIT_BOND, ""
        relations = self._binary(self._bond_or, ";", _intersect)
        return relations, self.text[start:self.at]

    def _bond_or(self) -> frozenset[str]:
        return self._binary(self._bond_and, ",", _union)

    def _bond_and(self) -> frozenset[str]:
        relations = self._bond_unary()
        while True:
            if self.peek() == "&":
                self.at += 1
                relations &= self._bond_unary()
            elif self.next_is("-=#:~@/\\!"):
                relations &= self._bond_unary()
            else:
                return relations

    def _bond_unary(self) -> frozenset[str]:
        negations = self._negations()
        relations = self._bond_symbol()
        return frozenset(BOND_RELATIONS) - relations if negations % 2 else relations

    def _negations(self) -> int:
        """How many `!` come next (read in a loop: a long run must not recurse)."""
        start = self.at
        while self.peek() == "!":
            self.at += 1
        return self.at - start

    def _bond_symbol(self) -> frozenset[str]:
        c = self.peek()
        if c in BOND_SYMBOLS:
            self.at += 1
            return BOND_SYMBOLS[c]
        if c == "@":
            raise self.fail("ring bond '@' is not supported (a ring primitive)")
        if c and c in "/\\":
            raise self.fail(f"bond direction '{c}' is not supported (double-bond "
                            f"stereochemistry)")
        raise self.fail("expected a bond symbol (-, =, #, :, ~)" if c else
                        "the SMARTS ends inside a bond expression")

    def _binary(self, operand: Callable[[], frozenset[str]], operator: str,
                combine: Callable[[frozenset[str], frozenset[str]], frozenset[str]]
                ) -> frozenset[str]:
        value = operand()
        while self.peek() == operator:
            self.at += 1
            value = combine(value, operand())
        return value

    # -------------------------------------------------------------- atoms

    def atom(self) -> int:
        start = self.at
        c = self.peek()
        if len(self.atoms) == MAX_SMARTS_ATOMS and c and c not in ")(":
            raise self.fail(f"more than {MAX_SMARTS_ATOMS} atoms, over gracr's limit "
                            f"(gracr.limits.MAX_SMARTS_ATOMS)")
        if c == "[":
            expr = self.bracket()
        elif self.text.startswith(("Cl", "Br"), self.at):
            expr = Element(ATOMIC_NUMBER[self.text[self.at:self.at + 2]], False)
            self.at += 2
        elif c and c in "BCNOFPSI":
            expr, self.at = Element(ATOMIC_NUMBER[c], False), self.at + 1
        elif c and c in ORGANIC_AROMATIC:
            expr, self.at = Element(ATOMIC_NUMBER[c.upper()], True), self.at + 1
        elif c == "*":
            expr, self.at = AnyAtom(), self.at + 1
        elif c in ("A", "a"):
            expr, self.at = Aromaticity(c == "a"), self.at + 1
        elif c == "$":
            raise self.fail("recursive SMARTS '$(' is not supported", width=2)
        elif not c or c in ")(":
            raise self.fail("expected an atom")
        else:
            raise self._unexpected()
        index = len(self.atoms)
        self.atoms.append(SmartsAtom(index, expr, self.text[start:self.at], start))
        self.degree.append(0)
        return index

    def _unexpected(self) -> SmartsError:
        c = self.peek()
        self._refuse_between_atoms()
        if c == "$":
            return self.fail("recursive SMARTS '$(' is not supported", width=2)
        if c in "/\\@":
            self._bond_unary()
        return self.fail(f"unexpected {c!r}: expected an atom, a bond or a branch")

    def bracket(self) -> AtomExpr:
        opened = self.at
        close = self.text.find("]", opened)
        if close < 0:
            raise self.fail("unclosed '[': expected ']'", opened)
        inside = self.text[opened + 1:close]
        self.at = opened + 1
        if not inside:
            raise self.fail("empty brackets '[]': expected an atom primitive", opened, 2)
        hydrogen = _hydrogen_element(inside)
        if hydrogen is not None:
            self.at = close + 1
            return hydrogen
        expr = self._atom_binary(self._atom_or, ";", And)
        if self.at != close:
            raise self.fail(f"unexpected {self.peek()!r} in the atom: expected a primitive "
                            f"or an operator (!, &, ',', ;)")
        self.at = close + 1
        return expr

    def _atom_binary(self, operand: Callable[[], AtomExpr], operator: str,
                     build: Callable[[tuple[AtomExpr, ...]], AtomExpr]) -> AtomExpr:
        operands = [operand()]
        while self.peek() == operator:
            self.at += 1
            self._within_operand_limit(operands)
            operands.append(operand())
        return operands[0] if len(operands) == 1 else build(tuple(operands))

    def _within_operand_limit(self, operands: list[AtomExpr]) -> None:
        """Refuse an operand past the `MAX_NESTING + 1`th of one operator: the
        translation writes the operands as one chain, a level each."""
        if len(operands) > MAX_NESTING:
            raise self.fail(f"more than {MAX_NESTING + 1} operands of one operator in the "
                            f"atom: its formula would nest deeper than gracr's limit of "
                            f"{MAX_NESTING} (gracr.limits.MAX_NESTING)")

    def _atom_or(self) -> AtomExpr:
        return self._atom_binary(self._atom_and, ",", Or)

    def _atom_and(self) -> AtomExpr:
        return self._atom_binary(self._atom_implicit_and, "&", And)

    def _atom_implicit_and(self) -> AtomExpr:
        operands = [self._atom_unary()]
        while self.peek() and self.peek() not in "&,;]":
            self._within_operand_limit(operands)
            operands.append(self._atom_unary())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def _atom_unary(self) -> AtomExpr:
        negations = self._negations()
        primitive = self._primitive()
        return Not(primitive) if negations % 2 else primitive

    def _number(self) -> int | None:
        start = self.at
        while self.peek().isdigit():
            self.at += 1
        digits = self.text[start:self.at].lstrip("0")
        # Measured before `int`, which refuses (ValueError) past 4300 digits.
        if len(digits) > len(str(MAX_COUNT)) or (digits and int(digits) > MAX_COUNT):
            raise self.fail(f"the number {digits[:20]}{'...' if len(digits) > 20 else ''} "
                            f"is over gracr's limit of {MAX_COUNT} (gracr.limits.MAX_COUNT)",
                            start, self.at - start)
        return int(self.text[start:self.at]) if self.at > start else None

    def _primitive(self) -> AtomExpr:
        start = self.at
        c = self.peek()
        two = self.text[self.at:self.at + 2]
        if c == "#":
            self.at += 1
            number = self._number()
            if number is None:
                raise self.fail("'#' must be followed by an atomic number", start)
            return Element(number, None)
        if c == "*":
            self.at += 1
            return AnyAtom()
        if c and c in "+-":
            return Charge(self._charge())
        if c == "$":
            raise self.fail("recursive SMARTS '$(' is not supported", width=2)
        if c == "@":
            width = 2 if two == "@@" else 1
            raise self.fail(f"chirality '{self.text[start:start + width]}' is not supported",
                            width=width)
        if c.isdigit():
            self._number()
            raise self.fail(f"isotope '{self.text[start:self.at]}' is not supported", start,
                            self.at - start)
        if c.isupper():
            if len(two) == 2 and two[1].islower() and two in ATOMIC_NUMBER:
                self.at += 2
                return _element(two)
            if c == "H":
                self.at += 1
                return HCount(_default(self._number(), 1))
            if c == "D":
                self.at += 1
                return Degree(_default(self._number(), 1))
            if c == "A":
                self.at += 1
                return Aromaticity(False)
            if c == "R":
                raise self.fail("ring primitive 'R' is not supported")
            if c in ATOMIC_NUMBER:
                self.at += 1
                return _element(c)
        if c.islower():
            for symbol in BRACKET_AROMATIC:
                if self.text.startswith(symbol, self.at):
                    self.at += len(symbol)
                    return Element(ATOMIC_NUMBER[symbol.capitalize()], True)
            if c == "a":
                self.at += 1
                return Aromaticity(True)
            if c in "rx":
                raise self.fail(f"ring primitive '{c}' is not supported")
        if not c or c == "]":
            raise self.fail("expected an atom primitive")
        raise self.fail(f"atom primitive {c!r} is not supported (supported: element "
                        f"symbols, #n, *, A, a, H<n>, D<n>, charges, !, &, ',', ;)")

    def _charge(self) -> int:
        sign = 1 if self.peek() == "+" else -1
        symbol = self.peek()
        self.at += 1
        number = self._number()
        if number is not None:
            return sign * number
        repeated = 1
        while self.peek() == symbol:
            self.at += 1
            repeated += 1
        return sign * repeated


def _element(symbol: str) -> Element:
    aliphatic = symbol in ORGANIC_ALIPHATIC
    return Element(ATOMIC_NUMBER[symbol], False if aliphatic else None)


def _hydrogen_element(inside: str) -> AtomExpr | None:
    """`[H]`, `[H+]`, `[H--]`, `[H+2]`: the hydrogen element (with its charge), as
    RDKit reads a bracket that is H and at most a charge."""
    if not inside.startswith("H"):
        return None
    rest = inside[1:]
    if not rest:
        return Element(1, None)
    sign = rest[0]
    if sign not in "+-":
        return None
    tail = rest[1:]
    if tail.isdigit():
        charge = int(tail)
    elif tail == sign * len(tail):
        charge = 1 + len(tail)
    else:
        return None
    return And((Element(1, None), Charge(charge if sign == "+" else -charge)))


def _default(value: int | None, default: int) -> int:
    return default if value is None else value


def _union(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    return a | b


def _intersect(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    return a & b
