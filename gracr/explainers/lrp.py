"""Layer-wise relevance propagation, ε rule (Bach et al. 2015), on compiled layers.

The paper ran Captum's LRP through PyG (App. H.1, ε rule on every layer); Captum's LRP
does not run on our message-passing layers (no rule for the sum aggregation; with rules
forced, relevance is not conserved — the Explainers page of the documentation says more), so this is our
own, clean-room from Bach et al., in numpy on the compiled weights.

Forward (Eq. 2 with typed edges): `z⁽ℓ⁾_v = h_v C + Σ_c Σ_{(s,v) ∈ E_c} h_s A_c + b`,
one channel `c` per relation the layer sums over (an untyped model: the one channel of
every edge), `h' = σ(z) = clamp(z, 0, 1)`; graph classifiers then sum-pool
`r = Σ_v h_v` and apply the readout `σ(r W + b)`. It is the executor's forward pass
(`gracr.executor.numpy_backend.trace`), not a copy: the backward below reads its states
and pre-activations.

Backward. Relevance starts as the output value at the explained unit (the target's
output column, or the readout's), everything else 0. Through each linear map, unit `i`
of pre-activation `z_i = Σ_k c_k + b_i` (contributions `c_k`: each input unit times its
weight — for a message-passing layer, the self-term entries `h_{v,j} C_{ji}` and every
incoming message's entries `h_{s,j} (A_c)_{ji}`, per channel `c` that admits the edge)
hands its relevance `R_i` down by the ε rule (Bach et al. 2015, the ε-stabilised rule):

    R_{k←i} = c_k / (z_i + ε·sign(z_i)) · R_i,      sign(0) := +1,

so the inputs receive `z_i − b_i` of every `z_i + ε·sign(z_i)` shares. The bias share
`b_i / (z_i + ε sign z_i) · R_i` and the stabiliser share `ε sign(z_i) / (…) · R_i` are
absorbed (not propagated). The relevance of an input unit is the sum of what it
receives. Sum pooling is the same rule with weights 1 and no bias.

The clamp. Relevance crosses `σ` unchanged where `z > 0` and is zero where `z ≤ 0`:
the ε rule's treatment of a rectifier (Bach et al. apply rules to the linear maps and
let relevance pass the elementwise activation), and what Captum does with every
`nn.ReLU` — which our `TruncatedReLU` subclasses — so it is what the paper's run would
have done. The upper clamp needs no special case: the relevance a unit receives is
already proportional to its clamped output `σ(z)` (its contributions upward are
`σ(z)·w`), and handing it to `z`'s contributions in proportion to their share of `z`
conserves it; scaling it by `σ(z)/z` instead would make an edge's relevance shrink as
*more* neighbours satisfy a modality (z = 3 where 1 suffices), which is not what an
explanation of "at least one" should do, and would break conservation. The zero for
`z ≤ 0` is automatic (such a unit outputs 0, so nothing above gives it relevance);
it is enforced anyway, and any relevance it removed is reported (`absorbed_clamp`).

An edge's score is the relevance carried by its messages, summed over layers and over
the units it feeds and is fed from, and over the channels that admit it: in layer ℓ,
edge `(s, v)` carries `Σ_{c ∋ (s,v)} Σ_i (h_s A_c)_i R_{v,i} / (z_{v,i} + ε sign z_{v,i})`.
The sign is kept (positive = evidence for the output). Relevance is conserved:
output = Σ input relevance (at `x`) + absorbed bias + absorbed stabiliser (+ clamp).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor
from torch_geometric.explain import Explanation

from gracr.explainers.base import ExplainerSpec, Subject, register
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor import numpy_backend
from gracr.executor.model import CompiledGNN
from gracr.executor.plan import cone_subgraph, layer_plans

FloatArray = npt.NDArray[np.float64]

# Captum's default ε (the paper's run, App. H.1). Compiled pre-activations are integers
# (or differences of values in [0, 1]), so a unit that carries relevance has |z| ≥ 1 on
# Boolean inputs and ε only keeps 0/0 away; a larger ε would just leak relevance.
DEFAULT_EPSILON = 1e-9


@dataclass(frozen=True)
class LrpRelevance:
    """Where the output's relevance went.

    `edge[e]`: relevance carried by edge `e`'s messages, summed over layers.
    `inputs[v, c]`: relevance of input feature `c` of node `v` (the palette colours).
    `absorbed_bias`, `absorbed_epsilon`, `absorbed_clamp`: the relevance the biases,
    the stabiliser and the `z ≤ 0` rule kept. `output`: the explained value.
    """

    edge: FloatArray
    inputs: FloatArray
    absorbed_bias: float
    absorbed_epsilon: float
    absorbed_clamp: float
    output: float


def _stabilised(z: FloatArray, epsilon: float) -> FloatArray:
    """`z + ε·sign(z)`, with sign(0) = +1 so that no denominator is 0."""
    result: FloatArray = z + np.where(z >= 0.0, epsilon, -epsilon)
    return result


class _Ledger:
    """Running totals of the relevance absorbed on the way down."""

    def __init__(self) -> None:
        self.bias = 0.0
        self.epsilon = 0.0
        self.clamp = 0.0

    def through_clamp(self, relevance: FloatArray, z: FloatArray) -> FloatArray:
        """The clamp rule: unchanged where z > 0, 0 where z ≤ 0."""
        passed: FloatArray = np.where(z > 0.0, relevance, 0.0)
        self.clamp += float((relevance - passed).sum())
        return passed

    def per_unit(self, relevance: FloatArray, z: FloatArray, bias: npt.ArrayLike,
                 epsilon: float) -> FloatArray:
        """`R_i / (z_i + ε sign z_i)`: what each unit of contribution earns; the bias
        and stabiliser shares are booked as absorbed."""
        ratio: FloatArray = relevance / _stabilised(z, epsilon)
        self.bias += float((ratio * np.asarray(bias, dtype=np.float64)).sum())
        self.epsilon += float((ratio * (_stabilised(z, epsilon) - z)).sum())
        return ratio


def lrp_relevance(compiled: CompiledGNN, x: npt.ArrayLike, edge_index: npt.ArrayLike,
                  target: int | None, epsilon: float = DEFAULT_EPSILON,
                  edge_type: npt.ArrayLike | None = None) -> LrpRelevance:
    """The ε rule from the output at `target` (graph classifier: `None`) down to `x`.

    The forward pass is the executor's (`numpy_backend.trace`, every state and
    pre-activation kept); `edge_type` (relation index per edge) is required when the
    model declares relations.
    """
    if compiled.kind is Kind.GRAPH and compiled.options.readout != "threshold":
        raise GracrError(f"LRP's rule through the readout is the sum pooling's; this model "
                         f"pools by the '{compiled.options.readout}' readout")
    features = np.asarray(x, dtype=np.float64)
    edges = np.asarray(edge_index, dtype=np.int64).reshape(2, -1)
    sources, targets = edges[0], edges[1]
    types = None if edge_type is None else np.asarray(edge_type, dtype=np.int64)

    # Forward, keeping every level's input and pre-activation.
    forward = numpy_backend.trace(compiled, features, edges, types)
    levels, pre_activations, h = forward.states[:-1], forward.pre, forward.states[-1]
    column = compiled.output_column
    ledger = _Ledger()

    relevance = np.zeros_like(h)
    if compiled.kind is Kind.NODE:
        assert target is not None
        output = float(h[target, column])
        relevance[target, column] = output
    else:
        # One graph: the readout's states are `[1, w]`.
        pooled = forward.readout_states[0][0]
        readout_inputs = [r[0] for r in forward.readout_states[:-1]]
        readout_z = [z[0] for z in forward.readout_pre]
        final = forward.readout_states[-1][0]
        output = float(final[column])
        top = np.zeros_like(final)
        top[column] = output
        for dense, r_in, z in zip(reversed(compiled.readout), reversed(readout_inputs),
                                  reversed(readout_z)):
            ratio = ledger.per_unit(ledger.through_clamp(top, z), z, dense.b, epsilon)
            top = r_in * (ratio @ dense.W.astype(np.float64).T)
        # Sum pooling: r_j = Σ_v h_{v,j}, an ε-rule layer with weights 1 and no bias.
        ratio = ledger.per_unit(top, pooled, np.zeros_like(pooled), epsilon)
        relevance = h * ratio

    edge_scores = np.zeros(edges.shape[1])
    for plan, h_in, z in zip(reversed(layer_plans(compiled)), reversed(levels),
                             reversed(pre_activations)):
        ratio = ledger.per_unit(ledger.through_clamp(relevance, z), z, plan.b, epsilon)
        # Only nodes holding relevance matter: the dense products stay on those rows.
        holding = np.flatnonzero(ratio.any(axis=1))
        below = np.zeros_like(h_in)
        below[holding] = h_in[holding] * (ratio[holding] @ plan.C.astype(np.float64).T)
        for channel in plan.channels:
            if not channel.A.any():
                continue
            received = np.zeros_like(h_in)
            received[holding] = ratio[holding] @ channel.A.astype(np.float64).T
            # Message (s, v) of channel c hands h_s ⊙ (A_c R_v / z_v) down to s; summed
            # over the channels that admit the edge, its total is the edge's relevance in
            # this layer.
            admitted = channel.admits(types, edges.shape[1])
            carried = h_in[sources[admitted]] * received[targets[admitted]]
            edge_scores[admitted] += carried.sum(axis=1)
            np.add.at(below, sources[admitted], carried)
        relevance = below

    # The input map h⁽⁰⁾ = x P + p has no activation: an ε-rule layer down to the colours.
    ratio = ledger.per_unit(relevance, forward.states[0], compiled.input_bias, epsilon)
    inputs = features * (ratio @ compiled.input_matrix.astype(np.float64).T)
    return LrpRelevance(edge_scores, inputs, ledger.bias, ledger.epsilon, ledger.clamp,
                        output)


def _lrp(subject: Subject, settings: Mapping[str, Any], seed: int) -> Explanation:
    edge_type = None if subject.edge_type is None else subject.edge_type.numpy()
    if subject.target is None:
        return Explanation(edge_mask=torch.as_tensor(lrp_relevance(
            subject.compiled, subject.x.numpy(), subject.edge_index.numpy(), None,
            float(settings["epsilon"]), edge_type).edge))
    # Node task: relevance only ever reaches the target's cone, and every state it
    # reads there is the same on the subgraph the cone's nodes induce; an edge outside
    # it carries no relevance (score 0).
    cone = cone_subgraph(subject.compiled, subject.edge_index.numpy(), subject.target,
                         edge_type)
    result = lrp_relevance(subject.compiled, subject.x.numpy()[cone.nodes], cone.edge_index,
                           cone.target, float(settings["epsilon"]),
                           None if edge_type is None else edge_type[cone.edges])
    scores = np.zeros(subject.num_edges)
    scores[cone.edges] = result.edge
    return Explanation(edge_mask=torch.as_tensor(scores))


register(ExplainerSpec(
    "LRP", _lrp, {"epsilon": DEFAULT_EPSILON},
    source="ours, clean-room: LRP ε rule (Bach et al. 2015) through the compiled "
           "message-passing layers (Captum's LRP does not run on them)",
    models=frozenset({"compiled"})))
