"""The compiler driver: each line is one stage of the pipeline.

`Program` (typed surface IR) -> `desugar` (core IR) -> `schedule` (columns) ->
weights (Table 1, Eq. 7, Eq. 8) -> `Network` (the executors run it: `gracr.executor`).
"""

from __future__ import annotations

from gracr.compiler.core import CNodeCount, Core, core_children, show_core
from gracr.compiler.desugar import CompileOptions, Comparison, Desugarer, Disjunction
from gracr.compiler.network import Column, Network
from gracr.compiler.weights import (
    DenseLayer, Schedule, input_map, message_passing_layers, readout_layers, schedule,
)
from gracr.dsl.ir import Kind, subformulas
from gracr.dsl.parse import Program
from gracr.dsl.show import show_formula
from gracr.version import __version__


def _counted_predicates(sentence: Core) -> tuple[Core, ...]:
    """The node formulas a readout counts, in order of first appearance (post-order)."""
    found: list[Core] = []

    def visit(formula: Core) -> None:
        if isinstance(formula, CNodeCount):
            if formula.arg not in found:
                found.append(formula.arg)
            return
        for child in core_children(formula):
            visit(child)

    visit(sentence)
    return tuple(found)


# Arguments whose text is longer than this are shown by their column (`h12`).
_INLINE_LIMIT = 48


def _describe(columns: Schedule, names: dict[Core, str], prefix: str) -> tuple[Column, ...]:
    """Each column's meaning, arguments by `let` name, in full, or by column when long."""
    index = {f: i for i, f in enumerate(columns.columns)}
    texts: dict[Core, str] = {}

    def child_text(child: Core) -> str:
        if child in names:
            return names[child]
        text = texts.get(child) or show_core(child, child_text)
        if len(text) > _INLINE_LIMIT and child in index:
            return f"{prefix}{index[child]}"
        return text

    described = []
    for formula, depth in zip(columns.columns, columns.depths):
        texts[formula] = show_core(formula, child_text)
        described.append(Column(texts[formula], depth, names.get(formula)))
    return tuple(described)


def compile_network(program: Program, disjunction: Disjunction = "demorgan",
                    comparison: Comparison = "expanded",
                    max_degree: int | None = None, presence: bool = False) -> Network:
    """Compile a checked program into the weights of a GNN that agrees with it on every graph.

    `comparison="expanded"` is exact when `max_degree` is at least the largest
    in-degree of the graphs it runs on (App. C.2). `presence=True` adds the presence
    bit (see `gracr.compiler.desugar`).
    """
    desugarer = Desugarer(CompileOptions(disjunction, comparison, max_degree, presence))
    if program.kind is Kind.GRAPH:
        core = desugarer.sentence(program.classifier)
    else:
        core = desugarer.node(program.classifier)
    used = subformulas(program.classifier)
    names = {desugarer.node(f): name for name, f in reversed(program.names) if f in used}
    if program.kind is Kind.NODE:
        hidden = schedule((core,))
        readout_columns: tuple[Column, ...] = ()
        readout: tuple[DenseLayer, ...] = ()
        output_column = hidden.index(core)
    else:
        hidden = schedule(_counted_predicates(core))
        readout_schedule = schedule((core,), stop_at_node_count=True)
        readout = readout_layers(readout_schedule, hidden)
        readout_columns = _describe(readout_schedule, {}, "r")
        output_column = readout_schedule.index(core)
    input_matrix, input_bias = input_map(hidden, program.schema, presence)
    return Network(
        palette=program.palette,
        kind=program.kind,
        input_matrix=input_matrix,
        input_bias=input_bias,
        layers=message_passing_layers(hidden, program.relations),
        readout=readout,
        columns=_describe(hidden, names, "h"),
        readout_columns=readout_columns,
        output_column=output_column,
        options=desugarer.options,
        formula=show_formula(program.classifier),
        version=__version__,
        families=program.families,
        relations=program.relations,
    )

