"""Hypothesis strategies shared by the test suite: random formulas and graphs, untyped
(colours only) and typed (attribute families and relations, `schemas` onwards)."""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st

import gracr
from gracr.dsl import ir
from gracr.dsl.show import show_formula
from gracr.dsl.ir import Formula
from gracr.data.graph import Graph
from gracr.data.schema import Family, Schema

from gracr.fuzz.random_formulas import PALETTE  # the random formulas of the fuzzer use the same colours

counts = st.integers(min_value=0, max_value=3)
# Counts that most often split the nodes of a small graph (0 makes `<0> f` constant).
thresholds = st.sampled_from([1, 1, 1, 2, 2, 3, 0])

# Colours are the most common leaves: constant leaves make constant formulas.
leaves: st.SearchStrategy[Formula] = st.sampled_from(
    [ir.Color(c) for c in PALETTE] * 4 + [ir.Top(), ir.Bottom()])


def _between(child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    return st.builds(lambda lo, extra, f: ir.Between(lo, lo + extra, f), counts, counts, child)


def _binary(build: type, child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    """`build(a, b)` with two different arguments (`same(f, f)` is constant)."""
    pairs = st.tuples(child, child).filter(lambda pair: pair[0] != pair[1])
    return pairs.map(lambda pair: build(*pair))


def _extend(child: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    return st.one_of(
        st.builds(ir.Not, child),
        _binary(ir.And, child),
        _binary(ir.Or, child),
        _binary(ir.Implies, child),
        _binary(ir.Iff, child),
        st.builds(ir.AtLeast, thresholds, child),
        st.builds(ir.AtMost, thresholds, child),
        st.builds(ir.Exactly, thresholds, child),
        _between(child),
        st.builds(ir.Box, child),
        _binary(ir.More, child),
        _binary(ir.Same, child),
    )


node_formulas: st.SearchStrategy[Formula] = st.recursive(leaves, _extend, max_leaves=6)


def _exists(f: Formula, low: int, extra: int | None) -> Formula:
    return ir.Exists(low, None if extra is None else low + extra, f)


exists_sentences = st.builds(_exists, node_formulas, counts, st.one_of(st.none(), counts))

graph_sentences: st.SearchStrategy[Formula] = st.recursive(
    exists_sentences,
    lambda child: st.one_of(
        st.builds(ir.Not, child),
        st.builds(ir.And, child, child),
        st.builds(ir.Or, child, child),
        st.builds(ir.Implies, child, child),
        st.builds(ir.Iff, child, child),
    ),
    max_leaves=3,
)


@st.composite
def graphs(draw: st.DrawFn, max_nodes: int = 7, max_edges: int = 16,
           undirected: bool | None = None) -> Graph:
    """Small coloured graphs: directed or undirected, self-loops, multi-colour,
    colourless and isolated nodes all occur."""
    n = draw(st.integers(min_value=min(3, max_nodes), max_value=max_nodes))
    # Mostly one colour per node; colourless and two-colour nodes occur too.
    one_color = st.sampled_from(PALETTE).map(lambda c: frozenset({c}))
    colors = draw(st.lists(st.one_of(one_color, one_color, one_color,
                                     st.frozensets(st.sampled_from(PALETTE), max_size=2)),
                           min_size=n, max_size=n))
    node = st.integers(min_value=0, max_value=n - 1)
    is_undirected = draw(st.booleans()) if undirected is None else undirected
    limit = max_edges // 2 if is_undirected else max_edges
    pairs = draw(st.lists(st.tuples(node, node), min_size=min(2 * n, limit), max_size=limit))
    edges: list[tuple[int, int]] = []
    for s, t in pairs:
        edges.append((s, t))
        if is_undirected and s != t:
            edges.append((t, s))
    return Graph.from_edges(n, colors, edges)


def program_for(formula: Formula) -> gracr.Program:
    """A checked program around a generated formula, through the real parser."""
    return gracr.parse(f"colors {', '.join(PALETTE)}\nclassify {show_formula(formula)}")



# ---------------------------------------------------------------- typed programs and graphs

# The attribute families and relations typed schemas draw from (values and relations
# in declaration order).
FAMILY_POOL = (Family("element", ("C", "O", "N")), Family("charge", ("neg", "pos")))
RELATION_POOL = ("single", "double", "aromatic", "hydrogen")
MODALITY_COUNTS = st.sampled_from([1, 1, 1, 2, 2, 0, 3])


@st.composite
def schemas(draw: st.DrawFn) -> Schema:
    """1-2 attribute families, 0-4 relations, and no colours, one or two."""
    palette = draw(st.sampled_from([(), ("red",), PALETTE[:2]]))
    chosen = draw(st.sets(st.sampled_from(FAMILY_POOL), min_size=1, max_size=2))
    relations = draw(st.sets(st.sampled_from(RELATION_POOL), max_size=len(RELATION_POOL)))
    return Schema(palette=palette, families=tuple(f for f in FAMILY_POOL if f in chosen),
                  relations=tuple(r for r in RELATION_POOL if r in relations))


@cache
def typed_leaves(schema: Schema) -> st.SearchStrategy[Formula]:
    """Attribute atoms (most often), colours, `true` and `false`."""
    atoms: list[Formula] = [ir.Attribute(f.name, v) for f in schema.families for v in f.values]
    atoms += [ir.Color(c) for c in schema.palette]
    return st.sampled_from(atoms * 3 + [ir.Top(), ir.Bottom()])


@cache
def relation_filters(schema: Schema) -> st.SearchStrategy[ir.Relations]:
    """No filter, or a non-empty set of the declared relations in declaration order."""
    if not schema.relations:
        return st.none()
    subsets = st.sets(st.sampled_from(schema.relations), min_size=1).map(
        lambda chosen: tuple(r for r in schema.relations if r in chosen))
    return st.one_of(st.none(), subsets)


def _distinct_pairs(
        operand: st.SearchStrategy[Formula]) -> st.SearchStrategy[tuple[Formula, Formula]]:
    """Two operands, the second negated when they come out equal (`same(f, f)` is
    constant; a filter would retry often on small schemas)."""
    return st.tuples(operand, operand).map(
        lambda pair: pair if pair[0] != pair[1] else (pair[0], ir.Not(pair[1])))


@cache
def typed_node_formulas(schema: Schema, depth: int,
                        top: bool = False) -> st.SearchStrategy[Formula]:
    """Node formulas over `schema` of modal nesting depth <= `depth`, every operator of
    the IR, any modality with a relation filter (one strategy per arguments, cached).

    With `top`, every branch of the Boolean connectives at the root reaches a
    modality (a formula of atoms alone ignores the graph's structure).
    """
    leaves = typed_leaves(schema)
    if depth == 0:
        return leaves
    sub = typed_node_formulas(schema, depth - 1)
    filters = relation_filters(schema)

    def two(build: type) -> st.SearchStrategy[Formula]:
        return st.builds(lambda pair, relations: build(pair[0], pair[1], relations),
                         _distinct_pairs(sub), filters)

    modal = st.one_of(
        st.builds(ir.AtLeast, MODALITY_COUNTS, sub, filters),
        st.builds(ir.AtMost, MODALITY_COUNTS, sub, filters),
        st.builds(ir.Exactly, MODALITY_COUNTS, sub, filters),
        st.builds(lambda low, extra, f, relations: ir.Between(low, low + extra, f, relations),
                  MODALITY_COUNTS, MODALITY_COUNTS, sub, filters),
        st.builds(ir.Box, sub, filters),
        two(ir.More),
        two(ir.Same),
    )
    if top and depth == 1:
        return modal
    operand = typed_node_formulas(schema, depth - 1, top=True) if top else sub
    pairs = _distinct_pairs(operand)
    boolean = st.one_of(
        st.builds(ir.Not, operand),
        pairs.map(lambda pair: ir.And(*pair)),
        pairs.map(lambda pair: ir.Or(*pair)),
        pairs.map(lambda pair: ir.Implies(*pair)),
        pairs.map(lambda pair: ir.Iff(*pair)),
    )
    if top:
        return st.one_of(modal, modal, boolean)
    return st.one_of(modal, modal, boolean, leaves)


@st.composite
def typed_graphs(draw: st.DrawFn, schema: Schema, max_nodes: int = 8, max_edges: int = 10,
                 max_parts: int | None = None, min_edges: int = 3, min_nodes: int = 1) -> Graph:
    """Graphs fitting `schema`: every family's value at each node, a relation per edge
    (the same both ways on an undirected edge), colours when it declares a palette.

    Directed, undirected (both directions listed) or with self-loops; multi-edges
    occur. `max_parts` caps nodes + edges (what a brute force over both enumerates);
    at least `min_nodes` nodes, and `min_edges` edges when the caps leave room.
    """
    n = draw(st.integers(min_value=min(min_nodes, max_nodes), max_value=max_nodes))
    limit = max_edges if max_parts is None else max(0, min(max_edges, max_parts - n))
    least = min(min_edges, limit)
    colors = None
    if schema.palette:
        one_color = st.sampled_from(schema.palette).map(lambda c: frozenset({c}))
        colors = draw(st.lists(st.one_of(one_color, one_color,
                                         st.frozensets(st.sampled_from(schema.palette))),
                               min_size=n, max_size=n))
    attributes = {f.name: draw(st.lists(st.sampled_from(f.values), min_size=n, max_size=n))
                  for f in schema.families}
    relation = st.sampled_from(schema.relations) if schema.relations else st.none()
    node = st.integers(min_value=0, max_value=n - 1)
    # A pair of distinct nodes without filtering: t is s shifted by 1..n-1.
    distinct = st.tuples(node, st.integers(min_value=1, max_value=max(1, n - 1))).map(
        lambda p: (p[0], (p[0] + p[1]) % n))
    shape = draw(st.sampled_from(["directed", "undirected", "self-loops"]))
    typed: list[tuple[tuple[int, int], str | None]] = []
    if shape == "undirected" and n > 1:
        for (s, t), r in draw(st.lists(st.tuples(distinct, relation), min_size=least // 2,
                                       max_size=limit // 2)):
            typed += [((s, t), r), ((t, s), r)]
    else:
        pairs = st.tuples(node, node) if shape == "self-loops" or n == 1 else distinct
        typed = draw(st.lists(st.tuples(pairs, relation), min_size=least, max_size=limit))
    relations = [r for _, r in typed if r is not None] if schema.relations else None
    return Graph.from_edges(n, colors, [e for e, _ in typed], attributes=attributes,
                            relations=relations)


# Names the language keeps in separate namespaces: one may be a colour, an attribute
# family and a relation at once (every SMARTS translation declares `aromatic` both as a
# family and as a relation). Values (`no`, `yes`) stay apart from colours, which a bare
# value would make ambiguous.
SHARED_NAMES = ("aromatic", "single", "ring")


@st.composite
def shared_name_schemas(draw: st.DrawFn) -> Schema:
    """Typed schemas whose colours, attribute families and relations share names: 0-2
    colours, 1-2 families (one of FAMILY_POOL's beside), 1-4 relations, the first named
    as a family always."""
    palette = tuple(draw(st.lists(st.sampled_from(SHARED_NAMES), unique=True, max_size=2)))
    names = draw(st.lists(st.sampled_from(SHARED_NAMES), unique=True, min_size=1, max_size=2))
    families = tuple(Family(name, ("no", "yes")) for name in names)
    families += draw(st.sampled_from([(), (FAMILY_POOL[1],)]))
    others = [name for name in (*SHARED_NAMES, "double") if name != names[0]]
    relations = [names[0], *draw(st.lists(st.sampled_from(others), unique=True, max_size=3))]
    return Schema(palette=palette, families=families, relations=tuple(draw(st.permutations(
        relations))))


def declarations(schema: Schema) -> str:
    """The `.gml` lines declaring `schema`."""
    lines = [f"colors {', '.join(schema.palette)}"] if schema.palette else []
    lines += [f"attribute {f.name} = {', '.join(f.values)}" for f in schema.families]
    if schema.relations:
        lines.append(f"relations {', '.join(schema.relations)}")
    return "\n".join(lines)


def typed_program_for(schema: Schema, formula: Formula) -> gracr.Program:
    """A checked program over `schema` around a generated formula, through the real parser."""
    return gracr.parse(f"{declarations(schema)}\nclassify {show_formula(formula)}")


@st.composite
def typed_programs(draw: st.DrawFn, min_edges: int = 3) -> tuple[gracr.Program, Graph]:
    """A typed program (a node formula, or an `exists` sentence over one) and a typed graph
    of its schema."""
    schema: Schema = draw(schemas())
    formula = draw(typed_node_formulas(schema, depth=draw(st.integers(1, 2)), top=True))
    if draw(st.booleans()):
        low = draw(st.integers(0, 2))
        formula = ir.Exists(low, draw(st.one_of(st.none(), st.integers(low, low + 2))), formula)
    graph = draw(typed_graphs(schema, max_nodes=7, max_edges=14, min_edges=min_edges))
    return typed_program_for(schema, formula), graph


# ---------------------------------------------------------------- numeric features

from fractions import Fraction

import numpy as np

# The numeric features schemas draw from (declared in this order), the grid of their
# values, the coefficients of threshold atoms and their bounds: a bound is a grid point
# shifted by 1/16, and `a·x` with a coefficient from COEFFICIENTS is a multiple of 1/8,
# so no node is ever within 1/16 of a bound (outside every margin δ < 1/16).
FEATURE_POOL = ("ck", "cd8", "ki67")
FEATURE_GRID = tuple(Fraction(k, 4) for k in range(-8, 9))
COEFFICIENTS = tuple(Fraction(c) for c in ("-2", "-1", "-0.5", "0.5", "1", "2"))
BOUNDS = tuple(v + Fraction(1, 16) for v in FEATURE_GRID[2:-2])
# Coefficients and bounds of linear count sentences (decimals, exact).
COUNT_COEFFICIENTS = tuple(Fraction(c) for c in ("0.3", "-1", "2", "0.25", "1", "-0.5"))
COUNT_BOUNDS = tuple(Fraction(c) for c in ("0", "1", "2", "0.5", "-1", "1.5", "3"))


@st.composite
def numeric_schemas(draw: st.DrawFn) -> Schema:
    """1-3 numeric features; no colour or one; no attribute family or one; 0-2 relations."""
    palette = draw(st.sampled_from([(), ("red",)]))
    families = draw(st.sampled_from([(), (FAMILY_POOL[1],)]))
    relations = draw(st.sets(st.sampled_from(RELATION_POOL[:2])))
    features = draw(st.sets(st.sampled_from(FEATURE_POOL), min_size=1))
    return Schema(palette=palette, families=families,
                  relations=tuple(r for r in RELATION_POOL if r in relations),
                  features=tuple(f for f in FEATURE_POOL if f in features))


@cache
def threshold_atoms(schema: Schema) -> st.SearchStrategy[ir.Threshold]:
    """`Σ a_i x_i op b` over 1..all of the schema's features (in declaration order, as
    the parser orders them), `a_i` from COEFFICIENTS, `b` from BOUNDS."""

    @st.composite
    def atom(draw: st.DrawFn) -> ir.Threshold:
        chosen = draw(st.sets(st.sampled_from(schema.features), min_size=1))
        names = tuple(f for f in schema.features if f in chosen)
        coefficients = tuple(draw(st.sampled_from(COEFFICIENTS)) for _ in names)
        return ir.Threshold(names, tuple(schema.features.index(f) for f in names),
                            coefficients, draw(st.sampled_from(ir.COMPARISONS[:4])),
                            draw(st.sampled_from(BOUNDS)))

    return atom()


@cache
def numeric_node_formulas(schema: Schema, depth: int) -> st.SearchStrategy[Formula]:
    """Node formulas over `schema` of modal depth <= `depth` whose leaves are mostly
    threshold atoms (colours, attribute values, `true`, `false` too); every modality,
    with relation filters."""
    atoms = threshold_atoms(schema)
    leaves = st.one_of(atoms, atoms, atoms, typed_leaves(schema))
    if depth == 0:
        return leaves
    sub = numeric_node_formulas(schema, depth - 1)
    filters = relation_filters(schema)
    pairs = _distinct_pairs(sub)
    modal = st.one_of(
        st.builds(ir.AtLeast, MODALITY_COUNTS, sub, filters),
        st.builds(ir.AtMost, MODALITY_COUNTS, sub, filters),
        st.builds(ir.Exactly, MODALITY_COUNTS, sub, filters),
        st.builds(lambda low, extra, f, relations: ir.Between(low, low + extra, f, relations),
                  MODALITY_COUNTS, MODALITY_COUNTS, sub, filters),
        st.builds(ir.Box, sub, filters),
        st.builds(lambda pair, relations: ir.More(pair[0], pair[1], relations), pairs, filters),
        st.builds(lambda pair, relations: ir.Same(pair[0], pair[1], relations), pairs, filters),
    )
    boolean = st.one_of(
        st.builds(ir.Not, sub),
        pairs.map(lambda pair: ir.And(*pair)),
        pairs.map(lambda pair: ir.Or(*pair)),
        pairs.map(lambda pair: ir.Implies(*pair)),
        pairs.map(lambda pair: ir.Iff(*pair)),
    )
    return st.one_of(modal, modal, boolean, leaves)


@cache
def count_sentences(schema: Schema) -> st.SearchStrategy[ir.CountCompare]:
    """`Σ c_i count(f_i) op b`: 1-3 distinct counted formulas (the parser merges equal
    ones), coefficients from COUNT_COEFFICIENTS, every operator, bounds COUNT_BOUNDS."""
    counted = st.one_of(numeric_node_formulas(schema, 0), numeric_node_formulas(schema, 1))

    @st.composite
    def sentence(draw: st.DrawFn) -> ir.CountCompare:
        args = tuple(draw(st.lists(counted, min_size=1, max_size=3, unique=True)))
        coefficients = tuple(draw(st.sampled_from(COUNT_COEFFICIENTS)) for _ in args)
        return ir.CountCompare(coefficients, args, draw(st.sampled_from(ir.COMPARISONS)),
                               draw(st.sampled_from(COUNT_BOUNDS)))

    return sentence()


@cache
def numeric_sentences(schema: Schema) -> st.SearchStrategy[Formula]:
    """Graph sentences: linear count sentences and `exists[lo, hi] f` (f with threshold
    atoms) under `!`, `&`, `|`, `->`, `<->`."""
    exists = st.builds(_exists, numeric_node_formulas(schema, 1), counts,
                       st.one_of(st.none(), counts))
    counted = count_sentences(schema)
    return st.recursive(
        st.one_of(counted, counted, exists),
        lambda child: st.one_of(
            st.builds(ir.Not, child),
            st.builds(ir.And, child, child),
            st.builds(ir.Or, child, child),
            st.builds(ir.Implies, child, child),
            st.builds(ir.Iff, child, child),
        ),
        max_leaves=3,
    )


@st.composite
def numeric_graphs(draw: st.DrawFn, schema: Schema, max_nodes: int = 7, max_edges: int = 12,
                   max_parts: int | None = None, min_nodes: int = 1,
                   min_edges: int = 3) -> Graph:
    """`typed_graphs` over `schema`, each node with a value from FEATURE_GRID for each
    numeric feature."""
    graph = draw(typed_graphs(schema, max_nodes=max_nodes, max_edges=max_edges,
                              max_parts=max_parts, min_nodes=min_nodes, min_edges=min_edges))
    cell = st.sampled_from(FEATURE_GRID).map(float)
    rows = draw(st.lists(st.lists(cell, min_size=len(schema.features),
                                  max_size=len(schema.features)),
                         min_size=graph.num_nodes, max_size=graph.num_nodes))
    return Graph.from_edges(graph.num_nodes, graph.colors, graph.edges, graph.target,
                            attributes=graph.attributes, relations=graph.relations,
                            features=np.array(rows, dtype=np.float64).reshape(
                                graph.num_nodes, len(schema.features)))


def numeric_declarations(schema: Schema) -> str:
    """`declarations(schema)` and the `features` line."""
    lines = [declarations(schema)] if declarations(schema) else []
    return "\n".join([*lines, f"features {', '.join(schema.features)}"])


def numeric_program_for(schema: Schema, formula: Formula) -> gracr.Program:
    """A checked program over `schema` (numeric features too), through the real parser."""
    return gracr.parse(f"{numeric_declarations(schema)}\nclassify {show_formula(formula)}")
