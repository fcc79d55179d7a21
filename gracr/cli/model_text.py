"""`gracrc inspect`'s text: a compiled model layer by layer, each column's meaning and its
non-zero weights."""

from __future__ import annotations

import numpy as np

from gracr.dsl.ir import Kind
from gracr.executor.model import CompiledGNN
from gracr.executor.plan import keeps_compiled_layout


def _format_weights(label: str, weights: list[tuple[str, float]], bias: float) -> str:
    terms = [f"{w:+g}*{name}" for name, w in weights]
    if bias:
        terms.append(f"{bias:+g}")
    return f"{label} = sigma({' '.join(terms) or '0'})"


def inspect_model(model: CompiledGNN) -> str:
    """Layer by layer: each column's meaning and its non-zero weights. A compiled layer
    shows the columns it settles (the others it carries or leaves at 0); the layers of a
    network without that layout (a randomisation control, `gracr.explainers.randomisation`)
    show every column."""
    hidden_layout = keeps_compiled_layout(model)
    readout_layout = _readout_keeps_layout(model)
    lines = [
        f"formula:  {model.formula}",
        f"kind:     {model.kind.value} classifier",
        f"palette:  {', '.join(model.palette) or '(empty)'}",
        *[f"attribute {family.name} = {', '.join(family.values)}" for family in model.families],
        *([f"relations: {', '.join(model.relations)}"] if model.relations else []),
        f"features: {', '.join(model.feature_names) or '(none)'}",
        f"options:  disjunction={model.options.disjunction} "
        f"comparison={model.options.comparison} max_degree={model.options.max_degree} "
        f"presence={model.options.presence} readout={model.options.readout}",
        f"shape:    {model.num_layers} layers x {model.width} columns "
        f"(readout: {len(model.readout)} dense layers, not counted)",
        "",
        "columns:",
    ]

    def label(i: int) -> str:
        return f"h{i}"

    for i, column in enumerate(model.columns):
        named = f"  [{column.name}]" if column.name else ""
        lines.append(f"  h{i:<4} depth {column.depth:<3} {column.meaning}{named}")
    lines += ["", "input (layer 0):"]
    features = model.feature_names
    for i in range(model.width):
        sources = [features[c] for c in np.flatnonzero(model.input_matrix[:, i])]
        if not hidden_layout:
            weights = [(f"x[{features[int(c)]}]", float(model.input_matrix[c, i]))
                       for c in np.flatnonzero(model.input_matrix[:, i])]
            lines.append(f"  {_format_weights(label(i), weights, float(model.input_bias[i]))}")
        elif sources:
            lines.append(f"  h{i} = x[{sources[0]}]")
        elif model.input_bias[i]:
            lines.append(f"  h{i} = {model.input_bias[i]:g}")
    for number, layer in enumerate(model.layers, start=1):
        carried = [i for i in range(model.width) if layer.C[i, i] == 1 and
                   model.columns[i].depth < number] if hidden_layout else []
        lines += ["", f"layer {number}:"]
        if carried:
            lines.append(f"  carry forward (C_ii = 1): {_ranges(carried)}")
        for i, column in enumerate(model.columns):
            if column.depth != number and hidden_layout:
                continue
            weights = [(label(int(k)), float(layer.C[k, i]))
                       for k in np.flatnonzero(layer.C[:, i])]
            for aggregation in layer.aggregations:
                over = "" if aggregation.relation is None else f"{{{aggregation.relation}}}"
                weights += [(f"sum_in{over}({label(int(k))})", float(aggregation.A[k, i]))
                            for k in np.flatnonzero(aggregation.A[:, i])]
            lines.append(f"  {_format_weights(label(i), weights, float(layer.b[i]))}"
                         f"    # {column.meaning}")
    for number, dense in enumerate(model.readout, start=1):
        lines += ["", f"readout {number}:"]
        for i, column in enumerate(model.readout_columns):
            if column.depth != number - 1 and readout_layout:
                continue
            pooled = {"threshold": "sum_nodes", "max": "max_nodes",
                      "soft-or": "soft_or_nodes"}[model.options.readout]
            source = pooled + "(h{})" if number == 1 else "r{}"
            weights = [(source.format(k), float(dense.W[k, i])) for k in np.flatnonzero(dense.W[:, i])]
            lines.append(f"  {_format_weights(f'r{i}', weights, float(dense.b[i]))}"
                         f"    # {column.meaning}")
    output = f"r{model.output_column}" if model.kind is Kind.GRAPH else f"h{model.output_column}"
    lines += ["", f"output: {output}"]
    return "\n".join(lines)


def _readout_keeps_layout(model: CompiledGNN) -> bool:
    """Whether the readout is laid out as compiled: dense layer n settles the readout
    columns of depth n − 1, carries the earlier ones (W_ii = 1, nothing else into them,
    bias 0) and sends nothing into the later ones (bias ≤ 0)."""
    depths = np.array([column.depth for column in model.readout_columns], dtype=np.int64)
    for number, dense in enumerate(model.readout, start=1):
        later = depths > number - 1
        if np.any(dense.W[:, later]) or np.any(dense.b[later] > 0):
            return False
        if number > 1:
            earlier = depths < number - 1
            carried = np.ix_(np.ones(len(depths), dtype=np.bool_), earlier)
            identity = np.eye(len(depths), dtype=np.float32)
            if np.any(dense.W[carried] != identity[carried]) or np.any(dense.b[earlier]):
                return False
    return True


def _ranges(indices: list[int]) -> str:
    parts: list[str] = []
    start = previous = indices[0]
    for i in indices[1:] + [-2]:
        if i != previous + 1:
            parts.append(f"h{start}" if start == previous else f"h{start}-h{previous}")
            start = i
        previous = i
    return ", ".join(parts)
