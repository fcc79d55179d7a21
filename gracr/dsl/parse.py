"""Source text -> Lark syntax tree (with positions) -> checked, typed IR (`Program`).

Checking collects every problem it finds (syntax aside, which stops at the first
error) and raises one `GmlError` listing each with its place.

Its size (900–1000 lines) is one front end: the syntax-error wording, the checker (its
formulas and its linear arithmetic) and the declarations all read the one grammar, and splitting them would spread its rule
names over several modules.
"""

from __future__ import annotations

import difflib
import os
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Callable, Sequence

import lark
from lark import Lark, Token, Tree

SyntaxTree = Tree[Token]

from gracr.data.schema import Family, Schema
from gracr.dsl import ir
from gracr.dsl.ir import Formula, Kind, Relations
from gracr.dsl.program import Program
from gracr.errors import GmlError, GracrError, Problem, Span, quoted
from gracr.limits import MAX_COUNT, MAX_DECLARED_NAMES, MAX_NESTING
from gracr.places import private_cache_folder


@cache
def _parser() -> Lark:
    grammar = resources.files("gracr").joinpath("grammars/gml.lark").read_text()
    return Lark(
        grammar,
        parser="lalr",
        start=["file", "program", "formula"],
        propagate_positions=True,
        maybe_placeholders=False,
        # A serialised LALR table (~100 ms saved per process), which lark unpickles: in a
        # folder only this user can write, not lark's default, a predictable name in the
        # shared temp folder that another user could plant first.
        cache=str(private_cache_folder() / "gml-parser.lark"),
    )


# --------------------------------------------------------------- syntax errors

_FORMULA_STARTS = frozenset(
    {"NOT", "DIAMOND", "EMPTY_DIAMOND", "ATLEAST", "ATMOST", "EXACTLY", "BETWEEN", "BOX",
     "EXISTS", "TRUE", "FALSE", "COL", "NAME", "MORE", "SAME", "LPAR", "NUMBER", "COUNT",
     "MINUS"}
)
_BINARY_OPERATORS = frozenset({"AND", "OR", "IMPLIES", "IFF", "COMPARISON", "PLUS", "MINUS",
                               "STAR"})
_STATEMENT_STARTS = frozenset({"COLORS", "ATTRIBUTE", "RELATIONS", "FEATURES", "LET",
                               "CLASSIFY"})

_TERMINAL_WORDS = {
    "NAME": "a name",
    "SIGNED_INT": "a number",
    "INF": "'inf'",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "LBRACE": "'{'",
    "RBRACE": "'}'",
    "INT": "a number",
    "RSQB": "']'",
    "COMMA": "','",
    "EQUAL": "'='",
    "IFF": "'<->'",
    "IMPLIES": "'->'",
    "OR": "'|'",
    "AND": "'&'",
    "NOT": "'!'",
    "DIAMOND": "a modality such as '<2>'",
    "EMPTY_DIAMOND": "'<>'",
    "BOX": "'[]'",
    "NUMBER": "a number",
    "COUNT": "'count'",
    "COMPARISON": "a comparison such as '>'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "STAR": "'*'",
    "$END": "the end of the input",
}


def _describe_expected(expected: set[str]) -> str:
    words: list[str] = []
    rest = set(expected)
    if len(rest & _FORMULA_STARTS) >= 3:
        words.append("a formula")
        rest -= _FORMULA_STARTS
    if rest & _BINARY_OPERATORS and len(rest & _BINARY_OPERATORS) >= 2:
        words.append("an operator such as '&'")
        rest -= _BINARY_OPERATORS
    if rest & _STATEMENT_STARTS:
        words.append("a statement ('colors', 'attribute', 'relations', 'features', 'let' or "
                     "'classify')")
        rest -= _STATEMENT_STARTS
    for name in sorted(rest):
        words.append(_TERMINAL_WORDS.get(name, f"'{name.lower()}'"))
    if not words:
        return "something else"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "the end of the input"
    return quoted(str(token.value))


# Every word the grammar reserves, for `did you mean ...?`.
_KEYWORDS = ("colors", "attribute", "relations", "features", "let", "classify", "true",
             "false", "count", "Col",
             "not", "atleast", "atmost", "exactly", "between", "box", "exists", "more", "same",
             "inf")
# Symbols of other notations for the same operators.
_FOREIGN_SYMBOLS = {"∧": "&", "∨": "|", "¬": "!", "~": "!", "→": "->", "⇒": "->", "↔": "<->",
                    "⇔": "<->", "□": "[]", "◇": "<>", "◊": "<>", "∃": "exists"}
_UNCLOSED_DIAMOND = re.compile(r"<\s*-?\s*[0-9]+")


def closest_word(word: str, candidates: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The candidate `word` is most likely a misspelling of: one that differs from it in
    case only (`GNNexplainer` for `GNNExplainer`), else one close enough (difflib's
    similarity ratio at least `cutoff`)."""
    if word in candidates:
        return None
    folded = word.casefold()
    same_letters = [candidate for candidate in candidates if candidate.casefold() == folded]
    if same_letters:
        return same_letters[0]
    matches = difflib.get_close_matches(word, candidates, n=1, cutoff=cutoff)
    return matches[0] if matches else None


def _place(source: str, position: int) -> tuple[int, int]:
    """The 1-based line and column of a character offset."""
    line = source.count("\n", 0, position) + 1
    return line, position - (source.rfind("\n", 0, position) + 1) + 1


def _misspelt_keyword(source: str, token: Token) -> tuple[int, str, str] | None:
    """A misspelt keyword at or just before the unexpected `token`: its offset, the word
    and the keyword. A misspelt keyword lexes as a name, so the parser stumbles on it
    (`clasify red`) or on what follows it (`atlest 2 red`)."""
    words: list[tuple[int, str]] = []
    if token.type == "NAME" and token.start_pos is not None:
        words.append((token.start_pos, str(token.value)))
    end = len(source) if token.start_pos is None else token.start_pos
    start = max(0, end - 80)  # a keyword is short: look at the last few words only
    previous = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", source[start:end])
    if previous and (previous.start(1) > 0 or start == 0):  # not a word cut by the window
        words.append((start + previous.start(1), previous.group(1)))
    for offset, word in words:
        # Any word before a syntax error is looked at, so only a close match counts.
        keyword = closest_word(word, _KEYWORDS, cutoff=0.75)
        if keyword is not None:
            return offset, word, keyword
    return None


def _character_problem(source: str, position: int) -> tuple[str, int]:
    """What is wrong where the lexer stopped: the message and how many characters."""
    char = source[position] if position < len(source) else "?"
    if char == "<":
        unclosed = _UNCLOSED_DIAMOND.match(source, position)
        if unclosed:
            written = " ".join(unclosed.group().split())
            count = "".join(unclosed.group()[1:].split())
            return (f"unclosed modality {quoted(written)}: write '<{count}> f' "
                    f"(or 'atleast {count} f')", len(unclosed.group()))
        if source.startswith("<-", position):
            return "unexpected '<-'; did you mean '<->'?", 2
        return "unexpected '<': a modality is written '<2> f' or '<> f', an iff 'f <-> g'", 1
    if char in _FOREIGN_SYMBOLS:
        return (f"unexpected character '{char}': gracr writes it "
                f"'{_FOREIGN_SYMBOLS[char]}'", 1)
    if char == "=" and source.startswith("=>", position):
        return "unexpected '=>'; did you mean '->'?", 2
    return f"unexpected character {quoted(char)}", 1


def _syntax_problem(error: lark.exceptions.UnexpectedInput, filename: str, source: str) -> Problem:
    raw_line: int | None = error.line
    raw_column: int | None = error.column
    line = raw_line if raw_line is not None and raw_line > 0 else source.count("\n") + 1
    column = raw_column if raw_column is not None and raw_column > 0 else 1
    if isinstance(error, lark.exceptions.UnexpectedCharacters):
        position: int | None = error.pos_in_stream
        message, width = _character_problem(source, position if position is not None
                                            else len(source))
    elif isinstance(error, lark.exceptions.UnexpectedToken):
        token = error.token
        expected = _describe_expected(set(error.expected))
        misspelt = _misspelt_keyword(source, token)
        if token.type == "COMPARISON" and token.start_pos is not None and \
                len(set(error.expected) & _FORMULA_STARTS) >= 3:
            # `<` where a formula starts: a modality written wrong (`<2 red`), not a
            # comparison, which never starts a formula.
            message, width = _character_problem(source, token.start_pos)
        elif misspelt is not None:
            offset, word, keyword = misspelt
            line, column = _place(source, offset)
            message = f"unknown word {quoted(word)}; did you mean '{keyword}'?"
            width = len(word)
        elif token.type == "$END":
            lines = source.splitlines() or [""]
            line = len(lines)
            column = len(lines[-1].expandtabs(1)) + 1
            message = f"unexpected end of input; expected {expected}"
            width = 1
        else:
            message = f"unexpected {_describe_token(token)}; expected {expected}"
            width = max(1, len(str(token.value)))
    else:
        message = "unexpected end of input"
        width = 1
    return Problem(Span(filename, line, column, line, column + width), message)


def _span_of(item: SyntaxTree | Token, filename: str) -> Span:
    if isinstance(item, Token):
        return Span(filename, item.line or 0, item.column or 0,
                    item.end_line or 0, item.end_column or 0)
    meta = item.meta
    if getattr(meta, "empty", True):
        return Span(filename, 0, 0, 0, 0)
    return Span(filename, meta.line, meta.column, meta.end_line, meta.end_column)


@dataclass
class _Checker:
    """Builds the typed IR from the syntax tree, collecting problems as it goes."""

    filename: str
    source: str
    palette: tuple[str, ...]
    declared_palette: bool
    problems: list[Problem] = field(default_factory=list)
    families: tuple[Family, ...] = ()
    relations: tuple[str, ...] = ()
    relations_declared: bool = False
    features: tuple[str, ...] = ()
    lets: dict[str, tuple[Formula, Kind] | None] = field(default_factory=dict)

    def text(self, item: SyntaxTree | Token) -> str:
        """The source text of a syntax-tree node, for messages."""
        if isinstance(item, Token):
            return str(item.value)
        meta = item.meta
        if getattr(meta, "empty", True):
            return "?"
        return " ".join(self.source[meta.start_pos:meta.end_pos].split())

    def problem(self, item: SyntaxTree | Token | Span, message: str) -> None:
        span = item if isinstance(item, Span) else _span_of(item, self.filename)
        self.problems.append(Problem(span, message))

    def count(self, tree: SyntaxTree) -> int | None:
        token = tree.children[0]
        assert isinstance(token, Token)
        return self.number(token, str(token.value))

    def diamond_count(self, token: Token) -> int | None:
        return self.number(token, str(token.value)[1:-1])

    def number(self, token: Token, text: str) -> int | None:
        """The count written `text` at `token`: `None`, with a problem, unless it lies in
        0..MAX_COUNT. Digits are counted before converting, so a number of a million
        digits costs nothing."""
        digits = "".join(text.split())
        if "." in digits:
            shown = digits if len(digits) <= 20 else f"a number of {len(digits)} characters"
            self.problem(token, f"a count must be a whole number (got {shown})")
            return None
        negative = digits.startswith("-")
        magnitude = digits.lstrip("-").lstrip("0") or "0"
        if negative and magnitude != "0":
            shown = f"-{magnitude}" if len(magnitude) <= 20 else \
                f"a number of {len(magnitude)} digits"
            self.problem(token, f"a count must not be negative (got {shown})")
            return None
        if len(magnitude) > len(str(MAX_COUNT)) or int(magnitude) > MAX_COUNT:
            shown = magnitude if len(magnitude) <= 20 else f"a number of {len(magnitude)} digits"
            self.problem(token, f"a count must be at most {MAX_COUNT} (2**24: float32 weights "
                                f"hold integers exactly up to there), got {shown}")
            return None
        return int(magnitude)

    def node_argument(self, checked: tuple[Formula, Kind] | None, operand: SyntaxTree | Token,
                      operator: str) -> Formula | None:
        if checked is None:
            return None
        formula, kind = checked
        if kind is Kind.GRAPH:
            self.problem(operand, f"a graph sentence cannot appear under {operator}; "
                                  "it needs a node formula")
            return None
        return formula

    def color(self, name_token: Token, span: Span, bare: bool) -> tuple[Formula, Kind] | None:
        name = str(name_token.value)
        if name in self.palette:
            return ir.Color(name, span), Kind.NODE
        if bare:
            owners = [family.name for family in self.families if name in family.values]
            if len(owners) == 1:
                return ir.Attribute(owners[0], name, span), Kind.NODE
            if owners:
                candidates = ", ".join(f"{owner}={name}" for owner in owners)
                self.problem(name_token, f"ambiguous value '{name}': it is a value of several "
                                         f"attribute families; write one of {candidates}")
                return None
            known = ("neither a 'let', a declared colour nor an attribute value" if self.families
                     else "neither a 'let' nor a declared colour")
            values = [value for family in self.families for value in family.values]
            meant = (closest_word(name, [*self.lets, *self.palette, *values])
                     or closest_word(name, _KEYWORDS))
            hint = f"; did you mean '{meant}'?" if meant else ""
            self.problem(name_token, f"unknown name {quoted(name)}: {known}{hint}")
        else:
            self.problem(name_token, f"undeclared colour '{name}': the 'colors' line lists "
                                     f"{', '.join(self.palette) or 'no colours'}")
        return None

    def formula(self, item: SyntaxTree | Token) -> tuple[Formula, Kind] | None:
        if isinstance(item, Token):  # only bare names reach here as tokens
            raise AssertionError(f"unexpected token {item!r}")
        span = _span_of(item, self.filename)
        rule = item.data
        kids = item.children
        if rule == "true_atom":
            return ir.Top(span), Kind.NODE
        if rule == "false_atom":
            return ir.Bottom(span), Kind.NODE
        if rule == "col_atom":
            token = kids[0]
            assert isinstance(token, Token)
            return self.color(token, span, bare=False)
        if rule == "attribute_atom":
            return self.attribute(kids, span)
        if rule in _ARITHMETIC_RULES:
            if any(sub.data == "attribute_atom" and str(sub.children[0]) in self.features
                   for sub in item.iter_subtrees()):
                # `a + b = 1` reads as `a + (b = 1)`: `=` on features, refused by name.
                self.problem(item, _FEATURE_EQUALITY)
            else:
                self.problem(item, f"'{self.text(item)}' is a number, not a formula: compare "
                                   "it (e.g. 'ck - cd8 > 0.5', 'count(f) > 0.3 * count(g)')")
            return None
        if rule in ("compare_op", "equal_op"):
            return self.comparison(item, span)
        if rule == "name_atom":
            token = kids[0]
            assert isinstance(token, Token)
            name = str(token.value)
            if name in self.features:
                self.problem(token, f"'{name}' is a numeric feature, not a formula: compare "
                                    f"it (e.g. '{name} > 0.5')")
                return None
            owners = [family.name for family in self.families if name in family.values]
            if owners and (name in self.lets or name in self.palette):
                meanings = ["the 'let' " + name if name in self.lets else "the colour " + name]
                meanings += [f"{owner}={name}" for owner in owners]
                self.problem(token, f"ambiguous name '{name}': it could be "
                                    f"{' or '.join(meanings)}; "
                                    + ("rename one" if name in self.lets
                                       else f"write {owners[0]}={name} for the value"))
                return None
            if name in self.lets:
                bound = self.lets[name]
                return bound  # None when its definition had problems: no cascade
            return self.color(token, span, bare=True)
        if rule in _BOOLEAN_RULES:
            left, right = kids[0], kids[2]
            assert isinstance(left, Tree | Token) and isinstance(right, Tree | Token)
            return self.boolean(rule, left, right, span)
        if rule == "not_op":
            operand = kids[1]
            assert isinstance(operand, Tree)
            checked = self.formula(operand)
            if checked is None:
                return None
            return ir.Not(checked[0], span), checked[1]
        if rule in ("more_op", "same_op"):
            filter_ok, relations = self.relation_filter(kids)
            left, right = kids[-2], kids[-1]
            assert isinstance(left, Tree) and isinstance(right, Tree)
            name = "more(...)" if rule == "more_op" else "same(...)"
            a = self.node_argument(self.formula(left), left, name)
            b = self.node_argument(self.formula(right), right, name)
            if a is None or b is None or not filter_ok:
                return None
            build = ir.More if rule == "more_op" else ir.Same
            return build(a, b, relations, span), Kind.NODE
        if rule in ("exists_op", "exists_range_op"):
            return self.exists(rule, kids, span)
        return self.modality(rule, kids, span)

    # ------------------------------------------------------------ arithmetic

    def comparison(self, tree: SyntaxTree, span: Span) -> tuple[Formula, Kind] | None:
        """`lin op lin`: a threshold atom (over numeric features, a node formula) or a
        linear count sentence (over `count(f)`, a graph sentence), moved to one side:
        `Σ c_k · term_k  op  bound`, coefficients and bound exact rationals."""
        kids = tree.children
        if tree.data == "equal_op":
            left, right = kids
            op = "="
        else:
            left, op_token, right = kids
            op = str(op_token)
        assert isinstance(left, Tree) and isinstance(right, Tree)
        a, b = self.linear(left), self.linear(right)
        if a is None or b is None:
            return None
        terms = dict(a.terms)
        for key, value in b.terms.items():
            terms[key] = terms.get(key, Fraction(0)) - value
        terms = {key: value for key, value in terms.items() if value != 0}
        bound = b.constant - a.constant
        features = [key for key in terms if isinstance(key, str)]
        counted = [key for key in terms if not isinstance(key, str)]
        if features and counted:
            self.problem(tree, f"'{self.text(tree)}' mixes numeric features (values at a "
                               "node) with counts (values of the whole graph)")
            return None
        if not terms:
            self.problem(tree, f"'{self.text(tree)}' compares constants: a comparison needs "
                               "a numeric feature or a count(...)")
            return None
        if features:
            if op == "=":
                self.problem(tree, _FEATURE_EQUALITY)
                return None
            ordered = tuple(f for f in self.features if f in terms)
            return ir.Threshold(ordered, tuple(self.features.index(f) for f in ordered),
                                tuple(terms[f] for f in ordered), op, bound, span), Kind.NODE
        formulas: list[Formula] = [key for key in counted if not isinstance(key, str)]
        scale = math.lcm(*(c.denominator for c in (*terms.values(), bound)))
        largest = max(abs(c * scale) for c in (*terms.values(), bound))
        if largest > MAX_COUNT:
            self.problem(tree, f"'{self.text(tree)}': scaled to integers its coefficients "
                               f"reach {largest}, over {MAX_COUNT} (2**24: float32 weights hold "
                               "integers exactly up to there)")
            return None
        return ir.CountCompare(tuple(terms[f] for f in formulas), tuple(formulas), op, bound,
                               span), Kind.GRAPH

    def linear(self, item: SyntaxTree | Token) -> _Linear | None:
        """The linear expression `item` writes (`None`, with a problem, when it is not one)."""
        assert isinstance(item, Tree)
        rule, kids = item.data, item.children
        if rule == "number_atom":
            token = kids[0]
            assert isinstance(token, Token)
            text = str(token.value)
            if len(text) > _MAX_NUMBER_DIGITS:
                self.problem(token, f"a number of {len(text)} characters: gracr reads at most "
                                    f"{_MAX_NUMBER_DIGITS}")
                return None
            return _Linear({}, Fraction(text))
        if rule == "count_atom":
            operand = kids[1]
            assert isinstance(operand, Tree)
            counted = self.node_argument(self.formula(operand), operand, "'count'")
            return None if counted is None else _Linear({counted: Fraction(1)}, Fraction(0))
        if rule == "name_atom":
            token = kids[0]
            assert isinstance(token, Token)
            name = str(token.value)
            if name in self.features:
                return _Linear({name: Fraction(1)}, Fraction(0))
            if name in self.lets or name in self.palette or any(
                    name in f.values for f in self.families):
                self.problem(token, f"'{name}' is a node formula, not a number: count({name}) "
                                    "is the number of nodes that satisfy it")
            else:
                known = ", ".join(self.features) or "none"
                meant = closest_word(name, self.features)
                hint = f"; did you mean '{meant}'?" if meant else ""
                self.problem(token, f"unknown numeric feature {quoted(name)} (the 'features' "
                                    f"line declares: {known}){hint}")
            return None
        if rule == "negate_op":
            operand = kids[1]
            inner = self.linear(operand)
            return None if inner is None else inner.scaled(Fraction(-1))
        if rule in ("add_op", "subtract_op"):
            left, _, right = kids
            a, b = self.linear(left), self.linear(right)
            if a is None or b is None:
                return None
            return a.plus(b.scaled(Fraction(1 if rule == "add_op" else -1)))
        if rule == "multiply_op":
            left, _, right = kids
            a, b = self.linear(left), self.linear(right)
            if a is None or b is None:
                return None
            if a.terms and b.terms:
                self.problem(item, f"'{self.text(item)}' multiplies two variables: a "
                                   "comparison is linear, so one factor must be a number")
                return None
            return b.scaled(a.constant) if not a.terms else a.scaled(b.constant)
        self.problem(item, f"'{self.text(item)}' is a formula, not a number (a comparison "
                           "reads numeric features, count(...) and numbers)")
        return None

    def attribute(self, kids: list[SyntaxTree | Token], span: Span) -> tuple[Formula, Kind] | None:
        family_token, value_tree = kids
        assert isinstance(family_token, Token) and isinstance(value_tree, Tree)
        value_token = value_tree.children[0]
        assert isinstance(value_token, Token)
        family_name, value = str(family_token.value), str(value_token.value)
        family = next((f for f in self.families if f.name == family_name), None)
        if family is None and family_name in self.features:
            self.problem(span, _FEATURE_EQUALITY)
            return None
        if family is None:
            declared = ", ".join(f.name for f in self.families) or "none"
            self.problem(family_token, f"unknown attribute family '{family_name}' (the "
                                       f"declared families: {declared})")
            return None
        if value not in family.values:
            self.problem(value_token, f"'{value}' is not a value of the attribute family "
                                      f"'{family_name}' (its values: {', '.join(family.values)})")
            return None
        return ir.Attribute(family_name, value, span), Kind.NODE

    def relation_filter(self, kids: list[SyntaxTree | Token]) -> tuple[bool, Relations]:
        """The relation filter among a modality's children: `(ok, relations)`."""
        trees = [k for k in kids if isinstance(k, Tree) and k.data == "relation_filter"]
        if not trees:
            return True, None
        tree = trees[0]
        if not self.relations_declared:
            self.problem(tree, "a relation filter needs a 'relations' line declaring the "
                               "edge relations")
            return False, None
        named: set[str] = set()
        declared = set(self.relations)
        ok = True
        for token in tree.children:
            assert isinstance(token, Token)
            name = str(token.value)
            if name not in declared:
                self.problem(token, f"unknown relation '{name}' (the declared relations: "
                                    f"{', '.join(self.relations)})")
                ok = False
            elif name in named:
                self.problem(token, f"relation '{name}' is listed twice in the filter")
                ok = False
            else:
                named.add(name)
        return ok, tuple(r for r in self.relations if r in named)

    def boolean(self, rule: str, left: SyntaxTree | Token, right: SyntaxTree | Token,
                span: Span) -> tuple[Formula, Kind] | None:
        assert isinstance(left, Tree) and isinstance(right, Tree)
        a = self.formula(left)
        b = self.formula(right)
        if a is None or b is None:
            return None
        if a[1] is not b[1]:
            node_side, graph_side = (left, right) if a[1] is Kind.NODE else (right, left)
            self.problem(span, "a node formula and a graph sentence cannot be combined: "
                               f"'{self.text(node_side)}' is evaluated at a node, "
                               f"'{self.text(graph_side)}' on the whole graph")
            return None
        build = _BOOLEAN_RULES[rule]
        return build(a[0], b[0], span), a[1]

    def modality(self, rule: str, kids: list[SyntaxTree | Token], span: Span) -> tuple[Formula, Kind] | None:
        operand = kids[-1]
        assert isinstance(operand, Tree)
        filter_ok, relations = self.relation_filter(kids)
        kids = [k for k in kids if not (isinstance(k, Tree) and k.data == "relation_filter")]
        counts: list[int | None] = []
        if rule == "diamond_op":
            token = kids[0]
            assert isinstance(token, Token)
            counts.append(self.diamond_count(token))
            operator = f"'{token.value}'"
        elif rule in ("some_op", "box_op"):
            token = kids[0]
            assert isinstance(token, Token)
            operator = f"'{token.value}'"
        else:
            for count_tree in kids[:-1]:
                assert isinstance(count_tree, Tree)
                counts.append(self.count(count_tree))
            operator = f"'{rule.removesuffix('_op')}'"
        arg = self.node_argument(self.formula(operand), operand, f"the modality {operator}")
        if rule == "between_op" and None not in counts:
            low, high = counts
            assert low is not None and high is not None
            if low > high:
                self.problem(span, f"'between {low} {high}': the lower bound exceeds the upper bound")
                return None
        if arg is None or None in counts or not filter_ok:
            return None
        numbers = [c for c in counts if c is not None]
        match rule:
            case "diamond_op" | "atleast_op":
                return ir.AtLeast(numbers[0], arg, relations, span), Kind.NODE
            case "some_op":
                return ir.AtLeast(1, arg, relations, span), Kind.NODE
            case "atmost_op":
                return ir.AtMost(numbers[0], arg, relations, span), Kind.NODE
            case "exactly_op":
                return ir.Exactly(numbers[0], arg, relations, span), Kind.NODE
            case "between_op":
                return ir.Between(numbers[0], numbers[1], arg, relations, span), Kind.NODE
            case "box_op":
                return ir.Box(arg, relations, span), Kind.NODE
        raise AssertionError(f"unknown rule {rule}")

    def exists(self, rule: str, kids: list[SyntaxTree | Token], span: Span) -> tuple[Formula, Kind] | None:
        operand = kids[-1]
        assert isinstance(operand, Tree)
        low: int | None = 1
        high: int | None = None
        ok = True
        if rule == "exists_range_op":
            low_tree, bound_tree = kids[1], kids[2]
            assert isinstance(low_tree, Tree) and isinstance(bound_tree, Tree)
            low = self.count(low_tree)
            bound_token = bound_tree.children[0]
            assert isinstance(bound_token, Token)
            if bound_token.type == "INF":
                high = None
            else:
                high = self.number(bound_token, str(bound_token.value))
                ok = high is not None
            if low is None:
                ok = False
            elif ok and high is not None and low > high:
                self.problem(span, f"'exists[{low}, {high}]': the lower bound exceeds the upper bound")
                ok = False
        arg = self.node_argument(self.formula(operand), operand, "'exists'")
        if arg is None or not ok or low is None:
            return None
        return ir.Exists(low, high, arg, span), Kind.GRAPH


@dataclass(frozen=True)
class _Linear:
    """A linear expression while it is checked: a coefficient per numeric feature (by
    name) or per counted node formula, and a constant."""

    terms: dict[str | Formula, Fraction]
    constant: Fraction

    def scaled(self, factor: Fraction) -> _Linear:
        return _Linear({k: v * factor for k, v in self.terms.items()}, self.constant * factor)

    def plus(self, other: _Linear) -> _Linear:
        terms = dict(self.terms)
        for key, value in other.terms.items():
            terms[key] = terms.get(key, Fraction(0)) + value
        return _Linear(terms, self.constant + other.constant)


_FEATURE_EQUALITY = ("a threshold atom compares with '>', '>=', '<' or '<=' (equality of "
                     "real-valued features is not robust)")

# A number longer than this is refused before `Fraction` reads it.
_MAX_NUMBER_DIGITS = 40

_ARITHMETIC_RULES = frozenset({"number_atom", "count_atom", "negate_op", "add_op",
                               "subtract_op", "multiply_op"})

_BOOLEAN_RULES: dict[str, Callable[[Formula, Formula, Span], Formula]] = {
    "and_op": ir.And,
    "or_op": ir.Or,
    "implies_op": ir.Implies,
    "iff_op": ir.Iff,
}


def _palette_from_col_uses(tree: SyntaxTree) -> tuple[str, ...]:
    """The colours named by `Col(...)`, in order of first use in the text."""
    uses: list[Token] = []
    for sub in tree.iter_subtrees():
        if sub.data == "col_atom":
            token = sub.children[0]
            assert isinstance(token, Token)
            uses.append(token)
    uses.sort(key=lambda token: token.start_pos or 0)
    return tuple(dict.fromkeys(str(token.value) for token in uses))


# The rules of the grammar whose trees are formulas (the rest are declarations, counts,
# bounds, relation filters and values).
_FORMULA_RULES = frozenset({
    "iff_op", "implies_op", "or_op", "and_op", "not_op", "diamond_op", "some_op",
    "atleast_op", "atmost_op", "exactly_op", "between_op", "box_op", "exists_op",
    "exists_range_op", "true_atom", "false_atom", "col_atom", "attribute_atom", "name_atom",
    "more_op", "same_op", "compare_op", "equal_op", *_ARITHMETIC_RULES,
})


def _formula_kids(tree: SyntaxTree) -> list[SyntaxTree]:
    return [kid for kid in tree.children if isinstance(kid, Tree) and kid.data in _FORMULA_RULES]


def _nesting(body: SyntaxTree, let_depths: dict[str, int]) -> int:
    """How many operators deep the IR of `body` nests (atoms 0), a `let` name counting
    the depth of its body: walked with an explicit stack, since the checker, which
    recurses, must not see a formula deeper than `MAX_NESTING`."""
    depth: dict[int, int] = {}
    stack: list[tuple[SyntaxTree, bool]] = [(body, False)]
    while stack:
        tree, expanded = stack.pop()
        kids = _formula_kids(tree)
        if not expanded and kids:
            stack.append((tree, True))
            stack.extend((kid, False) for kid in kids)
            continue
        if tree.data == "name_atom":
            depth[id(tree)] = let_depths.get(str(tree.children[0]), 0)
        else:
            depth[id(tree)] = 1 + max(depth[id(kid)] for kid in kids) if kids else 0
    return depth[id(body)]


def _nesting_problems(tree: SyntaxTree, filename: str) -> list[Problem]:
    """One problem for each formula of the file nested deeper than `MAX_NESTING`, at
    its start."""
    let_depths: dict[str, int] = {}
    problems: list[Problem] = []
    for child in tree.children:
        if not isinstance(child, Tree):
            continue
        name: str | None = None
        if child.data in _FORMULA_RULES:
            body: SyntaxTree | Token = child
        elif child.data == "let_stmt":
            name, body = str(child.children[0]), child.children[1]
        elif child.data == "classify_stmt":
            body = child.children[0]
        else:
            continue
        assert isinstance(body, Tree)
        depth = _nesting(body, let_depths)
        if name is not None:
            let_depths.setdefault(name, depth)
        if depth > MAX_NESTING:
            start = _span_of(body, filename)
            problems.append(Problem(
                Span(filename, start.line, start.column, start.line, start.column + 1),
                f"formula nested {depth} levels deep, over gracr's limit of {MAX_NESTING}: "
                f"every operator is a level (a chain 'a & b & c' one per '&'), and a 'let' "
                f"name counts the depth of its body"))
    return problems


def parse(source: str | os.PathLike[str], *, filename: str | None = None) -> Program:
    """Parse and check `.gml` source (statements, or one bare formula) into a `Program`.

    A `str` is always the source text itself (`filename`, default `"<string>"`, names it in
    errors); an `os.PathLike` (a `pathlib.Path`) is a file to read, named by its path
    unless `filename` is given. Raises `GmlError` listing every problem found, each as
    `file:line:col: message`, and `GracrError` naming the file it cannot read.

    ```pycon
    >>> import gracr
    >>> gracr.parse("colors red, blue\\nclassify <1> red").kind.value
    'node'

    ```
    """
    if isinstance(source, str):
        text, name = source, "<string>" if filename is None else filename
    else:
        name = os.fspath(source) if filename is None else filename
        text = _read_source(os.fspath(source))
    return check_tree(syntax_tree(text, name), name, text)


def _read_source(path: str) -> str:
    """A `.gml` file's text. Text that is not UTF-8 is a `GracrError` naming the file; a
    missing or unreadable file raises the machine's `OSError`, which names it too."""
    with open(path, encoding="utf-8") as handle:
        try:
            return handle.read()
        except UnicodeDecodeError as error:
            raise GracrError(f"{path}: not UTF-8 text (byte {error.start})") from None


def syntax_tree(text: str, filename: str = "<string>") -> SyntaxTree:
    """The first half of `parse`: `.gml` text to its syntax tree (`GmlError` at the first
    syntax error)."""
    try:
        return _parser().parse(text, start="file")
    except lark.exceptions.UnexpectedInput as error:
        raise GmlError([_syntax_problem(error, filename, text)], text) from None


def check_tree(tree: SyntaxTree, filename: str, source: str) -> Program:
    """The second half of `parse`: a syntax tree of `source` to its checked `Program`
    (`GmlError` listing every problem)."""
    too_deep = _nesting_problems(tree, filename)
    if too_deep:
        raise GmlError(too_deep, source)
    statements = [child for child in tree.children if isinstance(child, Tree) and
                  child.data in ("colors_stmt", "attribute_stmt", "relations_stmt",
                                 "features_stmt", "let_stmt", "classify_stmt")]
    bare_formula = not statements
    problems: list[Problem] = []
    colors = _name_line(statements, "colors_stmt", "colour", "the palette is declared once",
                        filename, problems)
    palette = None if colors is None else tuple(colors)
    declared = palette is not None
    families, relations, relations_declared = _declarations(statements, filename, problems)
    final_palette = palette if palette is not None else _palette_from_col_uses(tree)
    features = _features(statements, filename, problems, final_palette, families)
    checker = _Checker(filename, source, final_palette,
                       declared, problems, families=families, relations=relations,
                       relations_declared=relations_declared, features=features)
    declared_names = {value: f"a value of '{f.name}'" for f in families for value in f.values}
    declared_names.update({f.name: "an attribute family" for f in families})
    declared_names.update({r: "a relation" for r in relations})
    declared_names.update({f: "a numeric feature" for f in features})
    family_values = {v for f in families for v in f.values}

    names_bound: list[tuple[str, Formula]] = []
    classifiers: list[tuple[Formula, Kind] | None] = []
    classify_spans: list[Span] = []
    if bare_formula:
        formula_tree = tree.children[0]
        assert isinstance(formula_tree, Tree | Token)
        classifiers.append(checker.formula(formula_tree))
        classify_spans.append(_span_of(formula_tree, filename))
    for statement in statements:
        if statement.data == "let_stmt":
            name_token, body = statement.children
            assert isinstance(name_token, Token) and isinstance(body, Tree)
            name = str(name_token.value)
            checked = checker.formula(body)
            if name in checker.lets:
                checker.problem(name_token, f"'{name}' is already defined by an earlier 'let'")
                continue
            if name in checker.palette:
                checker.problem(name_token, f"'{name}' is a colour and cannot be redefined by 'let'")
                continue
            if name in declared_names and name not in family_values:
                checker.problem(name_token, f"'{name}' is {declared_names[name]} and cannot be "
                                            "redefined by 'let'")
                continue
            checker.lets[name] = checked
            if checked is not None and checked[1] is Kind.NODE:
                names_bound.append((name, checked[0]))
        elif statement.data == "classify_stmt":
            body = statement.children[0]
            assert isinstance(body, Tree | Token)
            classifiers.append(checker.formula(body))
            classify_spans.append(_span_of(statement, filename))
    if not classifiers:
        end = source.count("\n") + 1
        checker.problem(Span(filename, end, 1, end, 1),
                        "no 'classify' statement: say which formula is the classifier")
    elif len(classifiers) > 1:
        for span in classify_spans[1:]:
            checker.problem(span, "a second 'classify' statement: a program has exactly one")
    if checker.problems:
        raise GmlError(sorted(checker.problems, key=lambda p: (p.span.line, p.span.column)), source)
    result = classifiers[0]
    assert result is not None
    return Program(
        schema=Schema(checker.palette, families, relations, features),
        classifier=result[0],
        kind=result[1],
        names=tuple(names_bound),
        filename=filename,
        source=source,
    )


def _features(statements: list[SyntaxTree], filename: str, problems: list[Problem],
              palette: tuple[str, ...], families: tuple[Family, ...]) -> tuple[str, ...]:
    """The `features` line's names, in order; a repeat, a second line, or a name that is
    also a colour or an attribute family (or value) is a problem."""
    taken = {**{c: "a colour" for c in palette},
             **{v: f"a value of '{f.name}'" for f in families for v in f.values},
             **{f.name: "an attribute family" for f in families}}
    features = _name_line(statements, "features_stmt", "feature",
                          "the numeric features are declared once", filename, problems)
    for statement in statements:
        if statement.data != "features_stmt":
            continue
        name_list = statement.children[0]
        assert isinstance(name_list, Tree)
        for token in name_list.children:
            assert isinstance(token, Token)
            if str(token.value) in taken:
                problems.append(Problem(_span_of(token, filename),
                                        f"'{token.value}' is {taken[str(token.value)]} and "
                                        "cannot also be a numeric feature"))
    return tuple(n for n in features or () if n not in taken)


def _name_line(statements: list[SyntaxTree], rule: str, what: str, once: str, filename: str,
               problems: list[Problem]) -> list[str] | None:
    """The names of the first `rule` line (`colors`, `relations`, `features`), in order,
    or None without one; a name listed twice and every further line are problems."""
    keyword = rule.removesuffix("_stmt")
    names: list[str] | None = None
    for statement in statements:
        if statement.data != rule:
            continue
        name_list = statement.children[0]
        assert isinstance(name_list, Tree)
        listed = _distinct_names(name_list.children, what + " '{}' is listed twice", filename,
                                 problems)
        if names is not None:
            problems.append(Problem(_span_of(statement, filename),
                                    f"a second '{keyword}' line: {once}"))
        else:
            names = listed
    return names


def _distinct_names(tokens: Sequence[SyntaxTree | Token], repeated: str, filename: str,
                    problems: list[Problem]) -> list[str]:
    """The names of a declaration's list, in order; each repeat is a problem (`repeated`
    with the name in its `{}`), and so are names past `MAX_DECLARED_NAMES` (one problem,
    at the first of them; the rest are not read)."""
    if len(tokens) > MAX_DECLARED_NAMES:
        first = tokens[MAX_DECLARED_NAMES]
        assert isinstance(first, Token)
        problems.append(Problem(_span_of(first, filename),
                                f"a declaration of {len(tokens)} names, over gracr's limit of "
                                f"{MAX_DECLARED_NAMES} (MAX_DECLARED_NAMES) per declaration"))
        tokens = tokens[:MAX_DECLARED_NAMES]
    names: dict[str, None] = {}  # in order; a dict, so that a repeat is found at once
    for token in tokens:
        assert isinstance(token, Token)
        if token.value in names:
            problems.append(Problem(_span_of(token, filename), repeated.format(token.value)))
        else:
            names[str(token.value)] = None
    return list(names)


def _declarations(statements: list[SyntaxTree], filename: str, problems: list[Problem]
                  ) -> tuple[tuple[Family, ...], tuple[str, ...], bool]:
    """The `attribute` and `relations` lines: families in order, relations in order, and
    whether a `relations` line exists. Repeats are problems."""
    families: list[Family] = []
    for statement in statements:
        if statement.data == "attribute_stmt":
            name_token, value_list = statement.children
            assert isinstance(name_token, Token) and isinstance(value_list, Tree)
            value_tokens = [tree.children[0] for tree in value_list.children
                            if isinstance(tree, Tree)]
            values = _distinct_names(value_tokens, "value '{}' is listed twice in "
                                     f"'{name_token.value}'", filename, problems)
            if any(f.name == name_token.value for f in families):
                problems.append(Problem(_span_of(name_token, filename),
                                        f"attribute family '{name_token.value}' is declared twice"))
            else:
                families.append(Family(str(name_token.value), tuple(values)))
    relations = _name_line(statements, "relations_stmt", "relation",
                           "the relations are declared once", filename, problems)
    return tuple(families), tuple(relations or ()), relations is not None
