"""The compiler driver: each line is one stage of the pipeline.

`Program` (typed surface IR) -> `desugar` (core IR) -> `schedule` (columns) ->
weights (Table 1, Eq. 7, Eq. 8) -> `Network` (the executors run it: `gracr.executor`).
"""

from __future__ import annotations

from gracr.compiler.core import COUNTS, CLinear, CNodeCount, Core, core_children, show_core
from gracr.compiler.desugar import (
    DEFAULT_DELTA, CompileOptions, Comparison, Desugarer, Disjunction, Readout, uses_comparison,
)
from gracr.compiler.network import Column, Network
from gracr.compiler.weights import (
    DenseLayer, Schedule, input_map, layer_relations, message_passing_layers, readout_layers,
    schedule, weights_bytes,
)
from gracr.dsl import ir
from gracr.dsl.ir import Kind, postorder, subformulas
from gracr.dsl.operators import CONNECTIVES, Operators
from gracr.dsl.program import Program
from gracr.dsl.show import show_formula
from gracr.errors import GracrError
from gracr.limits import DEFAULT_MAX_BYTES, FLOAT32_MAX, format_bytes
from gracr.version import __version__


def _counted_predicates(sentence: Core) -> tuple[Core, ...]:
    """The node formulas a readout counts, in order of first appearance (post-order)."""
    def below(formula: Core) -> tuple[Core, ...]:
        return () if isinstance(formula, COUNTS) else core_children(formula)

    counted: list[Core] = []
    for formula in postorder([sentence], below):
        if isinstance(formula, CNodeCount):
            counted.append(formula.arg)
        elif isinstance(formula, CLinear):
            counted.extend(formula.args)
    return tuple(dict.fromkeys(counted))


# Arguments whose text is longer than this are shown by their column (`h12`).
_INLINE_LIMIT = 48
# The model file keeps the classifier's text up to this length: a formula sharing
# subformulas through `let` can have a text exponentially longer than itself.
_FORMULA_TEXT_LIMIT = 100_000


def _describe(columns: Schedule, names: dict[Core, str], prefix: str) -> tuple[Column, ...]:
    """Each column's meaning, arguments by `names` (`let` names, or the meanings of the
    hidden columns a readout counts), in full, or by column when long.

    Arguments come before the columns that read them, so every text is built from
    texts already made: no walk of the formula, whatever its depth or sharing."""
    index = {f: i for i, f in enumerate(columns.columns)}
    texts: dict[Core, str] = {}

    def child_text(child: Core) -> str:
        if child in names:
            return names[child]
        text = texts[child]
        if len(text) > _INLINE_LIMIT:
            return f"{prefix}{index[child]}"
        return text

    described = []
    for formula, depth in zip(columns.columns, columns.depths):
        texts[formula] = show_core(formula, child_text)
        described.append(Column(texts[formula], depth, names.get(formula)))
    return tuple(described)


def _over_budget(size: str, shape: str, budget: int, options: CompileOptions,
                 compares: bool) -> GracrError:
    """The refusal of a model whose weights would exceed `budget`, naming what shrinks it."""
    shrink = []
    if compares and options.comparison == "expanded":
        shrink.append(f"--comparison direct (Eq. 8: one column per comparison; Eq. 6 spends "
                      f"3 or more per unit of --max-degree) or a lower --max-degree (now "
                      f"{options.max_degree})")
    if options.presence:
        shrink.append("no --presence (it adds a layer per modal level)")
    remedy = ("; use " + " or ".join(shrink)) if shrink else \
        "; the formula itself is that large: split it, or raise the budget if the memory is there"
    return GracrError(f"the compiled model would hold {size} of dense weights ({shape}), over "
                      f"--max-weights-bytes {format_bytes(budget)}{remedy}")


def _check_bound(program: Program, options: CompileOptions, budget: int) -> None:
    """Refuse an Eq. 6 bound whose expansion alone is over `budget`, before expanding it:
    with bound n it gives at least 3n columns (<m> f, <m> g and a clause per m), four
    layers deep."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
        raise GracrError(f"max_weights_bytes must be a positive number of bytes, got {budget!r}")
    if options.comparison != "expanded" or options.max_degree is None or \
            not uses_comparison(program.classifier):
        return
    width = 3 * options.max_degree
    least = 4 * 4 * (2 * width * width + width)
    if least > budget:
        raise _over_budget(f"at least {format_bytes(least)}", f"at least 4 layers x {width} "
                           "columns", budget, options, compares=True)


def _check_weights(program: Program, options: CompileOptions, hidden: Schedule,
                   readout: Schedule | None, budget: int) -> None:
    """Refuse a scheduled network whose weights would exceed `budget`, before allocating."""
    features = program.schema.num_features + (1 if options.presence else 0)
    size = weights_bytes(hidden, len(layer_relations(hidden, program.relations)), features,
                         readout)
    if size > budget:
        raise _over_budget(format_bytes(size), f"{hidden.num_layers} layers x {hidden.width} "
                           "columns", budget, options, uses_comparison(program.classifier))


def _check_threshold_weights(program: Program, delta: float) -> None:
    """Refuse a threshold atom whose unit σ((a·x − b)/δ) needs a weight a_i/δ or a bias
    b/δ beyond float32 (`FLOAT32_MAX`): it would be stored as inf, a model no loader
    accepts. Named by its place in the source."""
    for atom in postorder([program.classifier], ir.children):
        if not isinstance(atom, ir.Threshold):
            continue
        for what, value in [*((f"weight {c}/δ", float(c) / delta) for c in atom.coefficients),
                            (f"bias {atom.bound}/δ", float(atom.bound) / delta)]:
            if not abs(value) <= FLOAT32_MAX:
                place = "" if atom.span == ir.NO_SPAN else f"{atom.span}: "
                raise GracrError(
                    f"{place}the threshold atom '{show_formula(atom)}' needs the {what} = "
                    f"{value:.3g} (--delta {delta:g}), beyond float32 (largest "
                    f"{FLOAT32_MAX:.3g}): raise --delta, or scale the features and the atom down")


def readout_refusal(program: Program, readout: Readout) -> str | None:
    """Why `readout` cannot compute `program`, or None when it can. `max` and `soft-or`
    pool "some node satisfies f" (WOMBAT's Eq. 3 and 4): they need a graph sentence whose
    every count is `CNodeCount(1, f)`."""
    if readout == "threshold":
        return None
    if program.kind is not Kind.GRAPH:
        return f"readout '{readout}' applies to graph classifiers; this program is a node " \
               "classifier"
    if any(isinstance(f, ir.CountCompare) for f in postorder([program.classifier], ir.children)):
        return (f"readout '{readout}' decides whether some node satisfies a formula; a "
                "linear count sentence (count(f) ...) needs the counts: use readout "
                "'threshold'")
    # `exists[lo, hi] f` counts lo (when lo > 0) and hi + 1 (when hi is finite): the
    # desugared `CNodeCount`s (`gracr.compiler.desugar`), read off the surface IR.
    counts = sorted({count for f in postorder([program.classifier], ir.children)
                     if isinstance(f, ir.Exists)
                     for count in ([f.low] if f.low > 0 else [])
                     + ([f.high + 1] if f.high is not None else [])
                     if count != 1})
    if counts:
        return (f"readout '{readout}' decides whether some node satisfies a formula "
                f"(`exists f`, `exists[0, 0] f` and their Boolean combinations); "
                f"'{program.show()}' counts at least {counts[0]} nodes, which needs the sum: "
                "use readout 'threshold'")
    return None


def compile_network(program: Program, disjunction: Disjunction = "demorgan",
                    comparison: Comparison = "expanded",
                    max_degree: int | None = None, presence: bool = False,
                    max_weights_bytes: int = DEFAULT_MAX_BYTES,
                    readout: Readout = "threshold", delta: float = DEFAULT_DELTA,
                    operators: Operators = CONNECTIVES) -> Network:
    """Compile a checked program into the weights of a GNN that agrees with it on every graph.

    `comparison="expanded"` is exact when `max_degree` is at least the largest
    in-degree of the graphs it runs on (App. C.2). `presence=True` adds the presence
    bit (see `gracr.compiler.desugar`). `readout` pools a graph classifier's node values:
    `"threshold"` sums them (ours), `"max"` is WOMBAT's r1 (Eq. 3), `"soft-or"` its r2
    (Eq. 4, 1 − Π_v (1 − h_v)); the last two need a sentence of `exists f`s. `delta` is
    the margin δ of threshold atoms over numeric features (`gracr.compiler.desugar`). A model
    whose weights would exceed `max_weights_bytes` is refused (`GracrError`) before
    they are allocated. `operators` are the connectives the formula may use
    (`gracr.dsl.operators`).
    """
    options = CompileOptions(disjunction, comparison, max_degree, presence, readout, delta)
    _check_bound(program, options, max_weights_bytes)
    _check_threshold_weights(program, options.delta)
    desugarer = Desugarer(options, operators=operators)
    refusal = readout_refusal(program, options.readout)
    if refusal is not None:
        raise GracrError(refusal)
    if program.kind is Kind.GRAPH:
        core = desugarer.sentence(program.classifier)
    else:
        core = desugarer.node(program.classifier)
    used = subformulas(program.classifier)
    names = {desugarer.node(f): name for name, f in reversed(program.names) if f in used}
    if program.kind is Kind.NODE:
        hidden, readout_schedule = schedule((core,)), None
    else:
        hidden = schedule(_counted_predicates(core))
        readout_schedule = schedule((core,), stop_at_node_count=True)
    _check_weights(program, options, hidden, readout_schedule, max_weights_bytes)
    columns = _describe(hidden, names, "h")
    if readout_schedule is None:
        readout_columns: tuple[Column, ...] = ()
        dense: tuple[DenseLayer, ...] = ()
        output_column = hidden.index(core)
    else:
        dense = readout_layers(readout_schedule, hidden)
        readout_columns = _describe(readout_schedule, {
            formula: column.meaning for formula, column in zip(hidden.columns, columns)}, "r")
        output_column = readout_schedule.index(core)
    input_matrix, input_bias = input_map(hidden, program.schema, presence, options.delta)
    return Network(
        schema=program.schema,
        kind=program.kind,
        input_matrix=input_matrix,
        input_bias=input_bias,
        layers=message_passing_layers(hidden, program.relations),
        readout=dense,
        columns=columns,
        readout_columns=readout_columns,
        output_column=output_column,
        options=desugarer.options,
        formula=show_formula(program.classifier, max_chars=_FORMULA_TEXT_LIMIT,
                             operators=operators),
        version=__version__,
    )
