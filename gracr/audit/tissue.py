"""The tissue benchmark's samples as audit data (`gracrc audit tissue`): generated tissue
fields (`gracr.domains.tissue`), each a graph labelled by the note's rule, its exact ground
truth the motif.

- `samples` fields of ≈ `cells` cells each are generated from `seed`
  (`generate_dataset`, θ chosen for class balance), as the tissue study's data phase
  does, and read as gracr's graphs at the label radius (`graph_json` at ratio 1.0: every
  edge is a near edge, the graph the study's ground truth is computed on);
- the label is the rule's (`tissue_program(θ)`: more than θ of the tumour cells have a
  tcell within the label radius), by the reference semantics;
- the motif of a positive is the node-level UPI (`ground_truth(program, graph,
  over="nodes")`, deletion semantics), the ground truth gracr scores node explanations
  against. The tissue study scores against the counterfactual set, which is read off the
  same diagram over nodes; we take the UPI because it needs no Shapley pass (the tissue
  study's relevance computes both indices beside the set), and on the samples we looked at
  (four of 300 cells) the two held the same number of cells. A negative has none: the
  perturbation reads positives alone;
- the compiled rule is `tissue_program(θ)` compiled: its labels are the data's, so its
  accuracy is 1.0; and an edge between two cells outside the UPI engages no tumour cell
  the rule counts (an engaged tumour cell of a positive is in its UPI), so we expect no
  removal outside the motif to flip it, which the audit measures.

The trained models read the six markers (numeric node features) and the edges, not the
edges' lengths or relations: the tissue study's own GIN reads the lengths
(`gracr.domains.tissue.trained`); an audit's GNNs are its own (`gracr.audit.models`).
"""

from __future__ import annotations

import numpy as np

from gracr.audit.data import AuditData
from gracr.bdd.ground_truth import ground_truth
from gracr.data.graph import Graph
from gracr.dsl.evaluate import evaluate_program
from gracr.dsl.parse import parse
from gracr.dsl.program import Program

NAME = "tissue"
# The audit's default size: a reduced budget (the tissue study: 400 samples of 300 cells).
SAMPLES = 60
CELLS = 300


def tissue_data(samples: int = SAMPLES, cells: int = CELLS,
                seed: int = 0) -> tuple[AuditData, Program]:
    """`samples` generated fields of ≈ `cells` cells (seeded by `seed`) as `AuditData`, and
    their rule (see the module docstring)."""
    from gracr.domains.tissue.dataset import graph_json, tissue_program
    from gracr.domains.tissue.generator import TissueSettings, generate_dataset

    rng = np.random.default_rng([seed, 0x7155])
    tables, theta = generate_dataset(rng, TissueSettings.for_cells(cells), samples)
    program = parse(tissue_program(theta))
    graphs = tuple(Graph.from_json(graph_json(table, theta, 1.0), schema=program.schema)
                   for table in tables)
    labels = tuple(np.asarray([int(bool(evaluate_program(program, graph)))], dtype=np.int64)
                   for graph in graphs)
    motifs = []
    for graph, label in zip(graphs, labels):
        if label[0]:
            truth = ground_truth(program, graph, over="nodes")
            assert truth.node_mask is not None and truth.label == 1
            motifs.append(truth.node_mask)
        else:
            motifs.append(np.zeros(graph.num_nodes, dtype=np.bool_))
    data = AuditData(f"tissue ({samples} samples of ≈ {cells} cells, θ = {theta:g})", "graph",
                     graphs, labels, tuple(np.zeros(g.num_edges, dtype=np.bool_)
                                           for g in graphs), tuple(motifs), True)
    return data, program
