"""Typed graphs end to end: the schema, the syntax, `encode`, the presence bit and
node-level ground truth, on `examples/typed/carbonyl.gml`.

    .venv/bin/python examples/typed/typed_graphs.py

Prints, per molecule: the formula's and the compiled network's answer at each atom,
the PyG `Data` the model reads, the UPI over edges, over nodes and over both, and what
zeroing an atom's features does with and without the presence bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

import gracr

HERE = Path(__file__).resolve().parent


def main() -> None:
    program = gracr.parse(HERE / "carbonyl.gml")
    print("schema:", program.schema)
    model = gracr.compile(program)
    print(f"compiled: {model.num_layers} layers x {model.width} columns; x columns:",
          ", ".join(model.feature_names))
    for number, graph in enumerate(gracr.read_graphs(str(HERE / "molecules.jsonl"),
                                                     program.schema)):
        print(f"\nmolecule {number}: elements {list(graph.attributes['element'])}, "
              f"relations {list(graph.relations or ())}")
        formula = gracr.evaluate(program, graph)
        network = model.predict(graph)
        assert np.array_equal(formula, network)
        print("  formula:", np.asarray(formula, dtype=int).tolist(),
              " network:", np.asarray(network, dtype=int).tolist())
        data = model.encode(graph)
        print("  encode:", data)
        output = model.to_pyg()(data.x, data.edge_index, edge_type=data.edge_type)
        assert np.array_equal(output[:, 0].detach().numpy() > 0.5, network)
        edges = gracr.ground_truth(program, graph)
        nodes = gracr.ground_truth(program, graph, over="nodes")
        both = gracr.ground_truth(program, graph, over="both")
        assert edges.edge_mask is not None and nodes.node_mask is not None
        assert both.edge_mask is not None and both.node_mask is not None
        print(f"  label {edges.label}; UPI edges {edges.edge_mask.astype(int).tolist()}, "
              f"nodes {nodes.node_mask.astype(int).tolist()}, both "
              f"{both.edge_mask.astype(int).tolist()} / {both.node_mask.astype(int).tolist()}")
        for presence in (False, True):
            present = gracr.compile(program, presence=presence)
            x = present.features(graph)
            last = graph.num_nodes - 1
            x[last] = 0.0  # zero every feature of one atom (a PyG node mask, a Captum baseline)
            edge_type = present.edge_types(graph)
            value = present.to_pyg()(torch.as_tensor(x), torch.as_tensor(graph.edge_index),
                                     edge_type=torch.as_tensor(edge_type))[0, 0]
            deleted, _ = graph.keep_nodes(np.arange(graph.num_nodes) != last)
            without = int(gracr.evaluate(program, deleted)[0])
            print(f"  atom {last} zeroed, presence={presence}: target {float(value):g} "
                  f"(formula with atom {last} deleted: {without})")


if __name__ == "__main__":
    main()
