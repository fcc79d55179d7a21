"""Reading trained tissue models (`gracr.domains.tissue.trained`): a linear probe of a node flag
from frozen node embeddings, and attention rollout for GATv2.

- `linear_probe` (on a model and graphs), `embedding_probe` (on any node embeddings: a
  compiled network's, `compiled_embeddings`) and `probe_auc` (on arrays): standardisation +
  logistic regression fitted on the training split's masked nodes, scored by ROC AUC on
  the test split's. The default asks what the tissue note probes: whether a tumour cell
  has a T cell within the label radius (`engaged` on `tumour` nodes). Run on a trained
  model and on `build_model` with the same seed (its initial weights) it says how much of
  the probed property training added to what random message passing already exposes.
- `attention_rollout`: one score per node for a GATv2's graph-level prediction
  (`attention_matrix`, `rollout_matrices`, `rollout_scores` are its steps).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from torch import Tensor
from torch_geometric.data import Data

from gracr.data.graph import Graph
from gracr.executor.model import CompiledGNN
from gracr.domains.tissue.trained import NODE_FLAGS, GATv2, TissueModel, auc

FloatArray = npt.NDArray[np.float64]


# --- linear probe -----------------------------------------------------------------------

def probe_auc(train_x: npt.ArrayLike, train_y: npt.ArrayLike, test_x: npt.ArrayLike,
              test_y: npt.ArrayLike) -> float:
    """Fit standardisation + logistic regression on the training rows, return the ROC AUC
    of its decision function on the test rows (nan if either side holds one class)."""
    features, target = np.asarray(train_x, dtype=np.float64), np.asarray(train_y).astype(bool)
    if target.all() or not target.any():
        return math.nan
    probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    probe.fit(features, target)
    return auc(probe.decision_function(np.asarray(test_x, dtype=np.float64)), test_y)


def _rows(embeddings: Sequence[FloatArray], graphs: Sequence[Data], mask: str, target: str
          ) -> tuple[FloatArray, FloatArray]:
    for name in (mask, target):
        if name not in NODE_FLAGS:
            raise ValueError(f"unknown node flag {name!r} (the flags are {NODE_FLAGS})")
    width = embeddings[0].shape[1] if len(embeddings) else 0
    xs, ys = [np.zeros((0, width))], [np.zeros(0)]
    for embedding, g in zip(embeddings, graphs, strict=True):
        keep = getattr(g, mask).numpy()
        xs.append(np.asarray(embedding, dtype=np.float64)[keep])
        ys.append(getattr(g, target)[keep].double().numpy())
    return np.concatenate(xs), np.concatenate(ys)


def embedding_probe(train_embeddings: Sequence[FloatArray], train: Sequence[Data],
                    test_embeddings: Sequence[FloatArray], test: Sequence[Data],
                    mask: str = "tumour", target: str = "engaged") -> float:
    """How well a linear read of node embeddings (`[N, width]` per graph, in the graphs'
    node order) recovers a node flag of the graphs (`tissue_graphs`' flags): fit on the
    nodes of `train` where flag `mask` holds, AUC on those of `test`."""
    return probe_auc(*_rows(train_embeddings, train, mask, target),
                     *_rows(test_embeddings, test, mask, target))


@torch.no_grad()
def model_embeddings(model: TissueModel, graphs: Sequence[Data]) -> list[FloatArray]:
    """The frozen `node_embeddings` of a trained (or untrained) model, one array per graph."""
    model.eval()
    return [model.node_embeddings(g.x, g.edge_index, g.edge_attr).double().numpy()
            for g in graphs]


def compiled_embeddings(model: CompiledGNN, graphs: Sequence[Graph]) -> list[FloatArray]:
    """A compiled network's last hidden state per graph (`numpy_backend.trace`): its
    columns are the rule's subformulas, so a flag the rule computes is one column."""
    from gracr.executor.numpy_backend import trace

    return [np.asarray(trace(model, model.features(g), g.edge_index, model.edge_types(g),
                             keep=False).states[-1], dtype=np.float64) for g in graphs]


def linear_probe(model: TissueModel, train: Sequence[Data], test: Sequence[Data],
                 mask: str = "tumour", target: str = "engaged") -> float:
    """How well a linear read of the frozen `node_embeddings` recovers a node flag: fit on
    the nodes of `train` where flag `mask` holds, AUC on those of `test`.
    The default asks what the tissue note probes, whether a tumour cell has a T cell
    within the label radius (`engaged` on `tumour` nodes); `mask="tcell",
    target="driver"` asks the same of T cells. Flags are those of `NODE_FLAGS`."""
    return embedding_probe(model_embeddings(model, train), train,
                           model_embeddings(model, test), test, mask, target)


# --- attention rollout (GATv2) ----------------------------------------------------------

def attention_matrix(edge_index: Tensor, alpha: Tensor, num_nodes: int) -> sp.csr_array:
    """The `[N, N]` float64 matrix with entry (i, j) = alpha of edge j→i averaged over
    heads (alpha `[E]` or `[E, heads]`; duplicate edges add). Rows of a GATv2 layer's
    attention sum to 1 (softmax over the edges into i, self loop included)."""
    weights = alpha.detach().double().reshape(alpha.size(0), -1).mean(dim=1).numpy()
    source, target = edge_index.detach().numpy()
    return sp.csr_array((weights, (target, source)), shape=(num_nodes, num_nodes))


def rollout_matrices(layers: Sequence[tuple[Tensor, Tensor]], num_nodes: int
                     ) -> list[sp.csr_array]:
    """A_l = 0.5 · `attention_matrix` + 0.5 · I for each layer's `(edge_index, alpha)`
    (as `GATv2.attention` gives them, layer 1 first)."""
    eye = sp.eye_array(num_nodes, dtype=np.float64, format="csr")
    return [sp.csr_array(0.5 * attention_matrix(index, alpha, num_nodes) + 0.5 * eye)
            for index, alpha in layers]


def rollout_scores(matrices: Sequence[sp.csr_array]) -> FloatArray:
    """The column sums of A_L ··· A_1 (`matrices` layer 1 first), computed as
    1ᵀ A_L ··· A_1 from the left: one sparse matrix-vector product per layer."""
    if not matrices:
        raise ValueError("rollout needs at least one layer")
    scores = np.ones(matrices[0].shape[0], dtype=np.float64)
    for matrix in reversed(matrices):
        scores = matrix.T @ scores
    return np.asarray(scores, dtype=np.float64)


def attention_rollout(model: GATv2, graph: Data) -> FloatArray:
    """One non-negative float64 score per node of `graph` for its graph-level prediction.

    Abnar & Zuidema's rollout (ACL 2020) on a graph: layer l's attention is the sparse
    N×N matrix Ā_l with Ā_l[i, j] = the head-mean of alpha(j→i) (`attention_matrix`; row
    stochastic, GATv2 normalises over the edges into i, its self loop included). As in
    the paper, A_l = 0.5 Ā_l + 0.5 I (still row stochastic; `rollout_matrices`). The
    paper's I stands for a transformer's residual connection; these GATv2 layers have
    none (a node's own state reaches it through its self loop, already in Ā_l), so here
    the 0.5 I is the paper's recipe kept for comparability: a smoothing towards each
    node's own row, not a path the model has. R = A_L ··· A_1 (`rollout_scores`)
    estimates R[i, j], the share of node i's last-layer state that flowed from node j's
    input. The readout pools every node alike (mean or sum differ by a constant
    factor), so node j's score is the column sum Σ_i R[i, j]. R is row stochastic, so
    the scores sum to N, and each is at least R[j, j] >= 0.5^L. What the attention
    leaves out is not modelled: the value vectors, the ReLUs, the head's weights and the
    logit's sign, so the scores say where information flows, not for which class."""
    with torch.no_grad():
        layers = model.attention(graph.x, graph.edge_index, graph.edge_attr)
    return rollout_scores(rollout_matrices(layers, int(graph.num_nodes)))
