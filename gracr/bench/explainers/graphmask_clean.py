"""GraphMask-clean: GraphMask (Schlichtkrull et al. 2021), clean-room, that never
touches the model it explains.

GraphMask learns, for every layer ℓ, a small gate network that reads an edge's
source state, message and target state and outputs a stochastic gate
z_{ℓ,e} ∈ [0, 1]; a closed gate REPLACES the message by a learned per-layer
baseline b_ℓ (rather than deleting it), and the gates are trained to close as many
messages as possible (an expected-L0 penalty) subject to the prediction staying
within `allowance` of the original (a Lagrangian: min over the gates, max over the
multiplier λ ≥ 0). PyG's `GraphMaskExplainer` instead rewrites the messages of the
model it is given (layer norm + ReLU) and leaves flags on its layers; this one runs
its own forward pass that mirrors `CompiledLayer`'s math on the numpy weights of
`subject.compiled`, and refuses to run unless, with every gate open, that forward
reproduces the shared module's output. The shared module is only ever called.

How each step of the paper is realised, with our choices where it leaves one:

* Layer ℓ: h' = σ(h C + Σ_{(s,t)} [z_e (h_s A) + (1 − z_e) b_ℓ] + b), σ the truncated
  ReLU with the surrogate backward of Eq. 9 (instances of our own). Only the
  columns where A is non-zero carry messages, so b_ℓ lives on those columns. It
  starts at 0 (a closed gate first means "no message") and is learned with the
  gates, as in the paper; `baseline="zero"` keeps it at 0 (messages are deleted),
  an ablation: on sum-aggregating threshold models a learned baseline can stand in
  for the messages the prediction needs (b = half a "red" message, two closed
  gates: still "a red neighbour"), so every gate may close at no cost.
* Gate network g_ℓ: one hidden layer (ReLU, `GATE_HIDDEN` units) on
  [h_s, m_e, h_t]: the states of the original (ungated) model at layer ℓ's input,
  computed once, restricted to the columns that vary over the nodes (constant ones
  tell no edges apart), and the message restricted to the columns A writes. Its
  output is log α of a hard-concrete gate (Louizos et al. 2018):
  s = σ((log u − log(1 − u) + log α)/β), z = clamp(s(ζ − γ) + γ, 0, 1), with
  β = 2/3, γ = −0.1, ζ = 1.1; the expected L0 penalty of a gate is
  P(z ≠ 0) = σ(log α − β log(−γ/ζ)). The output bias starts at
  `INITIAL_LOG_ALPHA`: gates start mostly open, so the prediction holds at the
  start (as for GNNExplainer's initial bias in App. H.1).
* Training, as in the paper, layer by layer from the top: layers are added one at
  a time from the last message-passing layer down, and each addition trains every
  gate added so far for `epochs` Adam steps (what PyG's `epochs` means too) on
  penalty_scaling · Σ_ℓ mean_e P(z_{ℓ,e} ≠ 0) + λ (|f̃ − f| − allowance), f the
  original output at the target (or the graph's), f̃ the gated one. λ = softplus(ρ)
  starts at `penalty_scaling` and ρ ascends with Adam at `MULTIPLIER_LR`; started
  near 0, the penalty closed even the needed gates before λ could grow, and a gate
  sampled at exactly 0 (or a clamp at 0 downstream) passes no gradient to reopen
  it. Layers without messages (A = 0) get no gates.
* Edge score: the gate's probability of being open, P(z ≠ 0), after training, the
  MAXIMUM over the message-passing layers (an edge matters if its message matters
  in one layer; a mean would dilute it by the layers where closing it costs
  nothing). Edges outside the receptive field score 0.
* Node tasks train on the target's L-hop in-neighbourhood (L = the number of
  layers), which leaves its output unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from gracr.bench.explainers.base import (
    Choice,
    ExplainerSpec,
    IntRange,
    LogUniform,
    Subject,
    Uniform,
    register,
)
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.executor.torch_backend import TruncatedReLU

# Hard-concrete constants of Louizos et al. (2018): temperature and stretch.
BETA = 2.0 / 3.0
GAMMA = -0.1
ZETA = 1.1
GATE_HIDDEN = 32
INITIAL_LOG_ALPHA = 2.0
# Below this share of non-zeros a weight matrix is multiplied in sparse form.
SPARSE_DENSITY = 0.05
# How far our forward may differ from the shared module before we refuse to run.
MIRROR_TOLERANCE = 1e-4
MULTIPLIER_LR = 0.1


def _matrix(array: npt.NDArray[Any]) -> Tensor:
    """A frozen float32 weight, sparse (COO) when mostly zero: the same function."""
    dense = torch.as_tensor(np.asarray(array, dtype=np.float32))
    if dense.numel() and np.count_nonzero(array) <= SPARSE_DENSITY * dense.numel():
        sparse: Tensor = dense.to_sparse_coo()  # type: ignore[no-untyped-call]
        return sparse
    return dense


def _times(h: Tensor, weight: Tensor) -> Tensor:
    if weight.is_sparse:
        product: Tensor = torch.sparse.mm(weight.t(), h.t()).t()
        return product
    return h @ weight


@dataclass(frozen=True)
class MirroredLayer:
    """`CompiledLayer`'s weights: C, b, and A restricted to its non-zero block
    (`rows` it reads, `columns` it writes)."""

    C: Tensor
    bias: Tensor
    rows: Tensor
    columns: Tensor
    A_block: Tensor

    @property
    def sends_messages(self) -> bool:
        return len(self.rows) > 0 and len(self.columns) > 0


def mirrored_layers(subject: Subject) -> list[MirroredLayer]:
    layers = []
    for layer in subject.compiled.layers:
        A = np.asarray(layer.A)
        rows = np.flatnonzero(np.abs(A).sum(axis=1))
        columns = np.flatnonzero(np.abs(A).sum(axis=0))
        layers.append(MirroredLayer(
            _matrix(layer.C), torch.as_tensor(np.asarray(layer.b, dtype=np.float32)),
            torch.as_tensor(rows, dtype=torch.long), torch.as_tensor(columns, dtype=torch.long),
            _matrix(A[np.ix_(rows, columns)])))
    return layers


@dataclass(frozen=True)
class LayerGating:
    """What replaces layer ℓ's plain sum: gate values `[E]` and the baseline."""

    gates: Tensor
    baseline: Tensor


class MirroredModel:
    """`CompiledModule.forward` re-done with our own tensors, so that gating a
    message never touches the shared module. `layer_inputs` records h before each
    layer (the gate networks read them)."""

    def __init__(self, subject: Subject) -> None:
        compiled = subject.compiled
        self.kind = compiled.kind
        self.output_column = compiled.output_column
        self.input_matrix = torch.as_tensor(np.asarray(compiled.input_matrix, dtype=np.float32))
        self.input_bias = torch.as_tensor(np.asarray(compiled.input_bias, dtype=np.float32))
        self.layers = mirrored_layers(subject)
        self.readout = [(torch.as_tensor(np.asarray(d.W, dtype=np.float32)),
                         torch.as_tensor(np.asarray(d.b, dtype=np.float32)))
                        for d in compiled.readout]
        # Fresh activations of our own: the surrogate backward of Eq. 9.
        self.activation = TruncatedReLU(surrogate=True)

    def forward(self, x: Tensor, edge_index: Tensor, target: int | None,
                gating: Sequence[LayerGating | None],
                layer_inputs: list[Tensor] | None = None) -> Tensor:
        """The output at `target` (node tasks) or of the whole graph: a scalar."""
        sources, targets = edge_index[0], edge_index[1]
        h = x @ self.input_matrix + self.input_bias
        for layer, gate in zip(self.layers, gating, strict=True):
            if layer_inputs is not None:
                layer_inputs.append(h)
            z = _times(h, layer.C) + layer.bias
            if layer.sends_messages:
                read = h[:, layer.rows]
                weights = None if gate is None else gate.gates.unsqueeze(-1)
                per_edge = read[sources] if weights is None else read[sources] * weights
                summed = torch.zeros_like(read).index_add(0, targets, per_edge)
                # Σ_e z_e h_s A = (Σ_e z_e h_s) A: aggregate before multiplying.
                aggregated = _times(summed, layer.A_block)
                if gate is not None:
                    closed = torch.zeros(h.shape[0], dtype=h.dtype).index_add(
                        0, targets, 1.0 - gate.gates)
                    aggregated = aggregated + closed.unsqueeze(-1) * gate.baseline
                z = z.index_add(1, layer.columns, aggregated)
            h = self.activation(z)
        if self.kind is Kind.NODE:
            assert target is not None
            return h[target, self.output_column]
        r = h.sum(dim=0, keepdim=True)
        for W, b in self.readout:
            r = self.activation(r @ W + b)
        return r[0, self.output_column]


class GateNetwork(nn.Module):
    """g_ℓ(h_s, m_e, h_t) -> log α_e: a small MLP (one hidden layer) on the
    concatenation, one per layer, shared by all edges (amortised, as in the paper)."""

    def __init__(self, inputs: int) -> None:
        super().__init__()
        self.hidden = nn.Linear(inputs, GATE_HIDDEN)
        self.output = nn.Linear(GATE_HIDDEN, 1)
        with torch.no_grad():
            self.output.bias.fill_(INITIAL_LOG_ALPHA)

    def forward(self, features: Tensor) -> Tensor:
        log_alpha: Tensor = self.output(torch.relu(self.hidden(features))).squeeze(-1)
        return log_alpha


def hard_concrete_sample(log_alpha: Tensor) -> Tensor:
    """A hard-concrete sample (Louizos et al. 2018): a binary-concrete sample,
    stretched to (γ, ζ) and clamped to [0, 1], so that exact 0s and 1s occur."""
    u = torch.rand_like(log_alpha).clamp(1e-6, 1.0 - 1e-6)
    s = torch.sigmoid((torch.log(u) - torch.log(1.0 - u) + log_alpha) / BETA)
    return (s * (ZETA - GAMMA) + GAMMA).clamp(0.0, 1.0)


def open_probability(log_alpha: Tensor) -> Tensor:
    """P(z ≠ 0) = σ(log α − β log(−γ/ζ)): one gate's expected L0 norm (Louizos et al.)."""
    return torch.sigmoid(log_alpha - BETA * math.log(-GAMMA / ZETA))


def _gate_features(layer: MirroredLayer, h: Tensor, edge_index: Tensor) -> Tensor:
    """[h_s, m_e, h_t] per edge, from the original model's input to the layer. The
    states keep only the columns that vary over the nodes (a constant column tells
    edges nothing apart), the message only the columns A writes."""
    varying = torch.nonzero((h.max(dim=0).values - h.min(dim=0).values) > 0).reshape(-1)
    states = h[:, varying]
    messages = _times(h[:, layer.rows], layer.A_block)
    sources, targets = edge_index[0], edge_index[1]
    return torch.cat([states[sources], messages[sources], states[targets]], dim=-1).detach()


@dataclass(frozen=True)
class Problem:
    """The (sub)graph the gates are trained on and where its edges are in the graph."""

    x: Tensor
    edge_index: Tensor
    target: int | None
    edges: npt.NDArray[np.int64]


def _problem(subject: Subject) -> Problem:
    if subject.target is None:
        return Problem(subject.x, subject.edge_index, None, np.arange(subject.num_edges))
    from torch_geometric.utils import k_hop_subgraph

    subset, edge_index, mapping, edge_mask = k_hop_subgraph(
        subject.target, subject.num_layers, subject.edge_index, relabel_nodes=True,
        num_nodes=int(subject.x.shape[0]), flow="source_to_target")
    return Problem(subject.x[subset], edge_index, int(mapping[0]),
                   np.flatnonzero(edge_mask.numpy()))


BASELINES: tuple[str, ...] = ("learned", "zero")


@dataclass
class Gates:
    """The trainable part: a gate network and a baseline per message-passing layer,
    and the gate networks' inputs (fixed: the original model's states)."""

    features: dict[int, Tensor]
    networks: dict[int, GateNetwork]
    baselines: dict[int, Tensor]

    def parameters(self) -> list[Tensor]:
        weights = [p for network in self.networks.values() for p in network.parameters()]
        return weights + [b for b in self.baselines.values() if b.requires_grad]

    def sample(self, enabled: Sequence[int], num_layers: int
               ) -> tuple[list[LayerGating | None], Tensor]:
        """Stochastic gates for the enabled layers and their expected L0 penalty
        Σ_ℓ mean_e P(z_{ℓ,e} ≠ 0)."""
        gating: list[LayerGating | None] = [None] * num_layers
        penalty = torch.zeros(())
        for index in enabled:
            log_alpha = self.networks[index](self.features[index])
            gating[index] = LayerGating(hard_concrete_sample(log_alpha), self.baselines[index])
            penalty = penalty + open_probability(log_alpha).mean()
        return gating, penalty


def graphmask_gates(subject: Subject, settings: Mapping[str, Any], seed: int) -> Tensor:
    """Train the gates; return P(open) per (layer, edge of the graph): `[L, E]`,
    zero for layers without messages and for edges outside the trained subgraph."""
    if settings["baseline"] not in BASELINES:
        raise GracrError(f"GraphMask-clean has no baseline '{settings['baseline']}'; the "
                         f"baselines are {', '.join(BASELINES)}")
    torch.manual_seed(seed)
    problem = _problem(subject)
    model = MirroredModel(subject)
    with torch.no_grad():
        shared = subject.module()(subject.x, subject.edge_index)
        original = float(shared[subject.target if subject.target is not None else 0, 0])
        inputs: list[Tensor] = []
        mirrored = float(model.forward(problem.x, problem.edge_index, problem.target,
                                       [None] * len(model.layers), inputs))
    if abs(mirrored - original) > MIRROR_TOLERANCE:
        raise GracrError(f"GraphMask-clean's forward gives {mirrored} where the compiled "
                         f"module gives {original}: it no longer mirrors CompiledLayer")
    message_layers = [index for index, layer in enumerate(model.layers) if layer.sends_messages]
    features = {index: _gate_features(model.layers[index], inputs[index], problem.edge_index)
                for index in message_layers}
    learned = settings["baseline"] == "learned"
    gates = Gates(features,
                  {index: GateNetwork(features[index].shape[1]) for index in message_layers},
                  {index: torch.zeros(len(model.layers[index].columns), requires_grad=learned)
                   for index in message_layers})
    # λ starts at the penalty's scale, so that neither term dominates the first steps:
    # started near 0, the penalty closes every gate before λ can grow, and a gate
    # whose sample is clamped at 0 passes no gradient back to reopen it.
    initial_multiplier = max(float(settings["penalty_scaling"]), 1e-3)
    multiplier_logit = torch.tensor(math.log(math.expm1(initial_multiplier)),
                                    requires_grad=True)
    descent = torch.optim.Adam(gates.parameters(), lr=settings["lr"])
    ascent = torch.optim.Adam([multiplier_logit], lr=MULTIPLIER_LR)
    steps = int(settings["epochs"]) if problem.edge_index.shape[1] else 0
    enabled: list[int] = []
    for index in reversed(message_layers):       # layer by layer, from the top
        enabled.append(index)
        for _ in range(steps):
            gating, penalty = gates.sample(enabled, len(model.layers))
            output = model.forward(problem.x, problem.edge_index, problem.target, gating)
            multiplier = nn.functional.softplus(multiplier_logit)
            loss = (settings["penalty_scaling"] * penalty
                    + multiplier * ((output - original).abs() - settings["allowance"]))
            descent.zero_grad()
            ascent.zero_grad()
            loss.backward()
            assert multiplier_logit.grad is not None
            multiplier_logit.grad.neg_()          # max over λ: ascend on it
            descent.step()
            ascent.step()
    scores = torch.zeros(len(model.layers), subject.num_edges, dtype=torch.float64)
    with torch.no_grad():
        for index in message_layers:
            probability = open_probability(gates.networks[index](features[index]))
            scores[index, torch.as_tensor(problem.edges)] = probability.to(torch.float64)
    return scores


def _graphmask_clean(subject: Subject, settings: Mapping[str, Any], seed: int) -> Tensor:
    per_layer = graphmask_gates(subject, settings, seed)
    scores = (per_layer.max(dim=0).values if per_layer.shape[0]
              else torch.zeros(subject.num_edges, dtype=torch.float64))
    return scores * torch.as_tensor(subject.receptive_field, dtype=torch.float64)


register(ExplainerSpec(
    "GraphMask-clean", _graphmask_clean,
    {"epochs": 100, "lr": 0.01, "penalty_scaling": 5, "allowance": 0.03,
     "baseline": "learned"},
    space={"epochs": Choice((5, 10, 25, 50)), "lr": LogUniform(1e-5, 1e-2),
           "penalty_scaling": IntRange(1, 10), "allowance": Uniform(0.0, 0.3)},
    source="ours, clean-room from Schlichtkrull et al. 2021: per-layer hard-concrete "
           "gates, learned baselines, the model untouched"))
