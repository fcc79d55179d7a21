"""GraphMask-clean: GraphMask (Schlichtkrull et al. 2021), clean-room, that never
touches the model it explains.

GraphMask learns, for every layer ℓ, a small gate network that reads an edge's
source state, message and target state and outputs a stochastic gate
z_{ℓ,e} ∈ [0, 1]; a closed gate REPLACES the message by a learned per-layer
baseline b_ℓ (rather than deleting it), and the gates are trained to close as many
messages as possible (an expected-L0 penalty) subject to the prediction staying
within `allowance` of the original (a Lagrangian: min over the gates, max over the
multiplier λ ≥ 0). PyG's `GraphMaskExplainer` instead rewrites the messages of the
model it is given (layer norm + ReLU) and leaves flags on its layers; this one
only ever calls the shared module (`subject.module()`), gating its messages through
the executor's per-call hooks: `CompiledLayer`'s per-layer `edge_weight` (the gates)
and `baseline` (what a closed gate sends instead), `CompiledLayer.messages` and
`CompiledModule.hidden_states` (what the gate networks read). There is no second
copy of the layer to drift from the model, and nothing is left on the module.

How each step of the paper is realised, with our choices where it leaves one:

* Layer ℓ: h' = σ(h C + Σ_{(s,t)} [z_e m_e + (1 − z_e) b_ℓ] + b), m_e =
  Σ_c 1{e ∈ E_c} (h_s A_c) the message of Eq. 2 with typed edges, σ the truncated
  ReLU with the surrogate backward of Eq. 9 (the shared module's). Only the
  columns where some A_c is non-zero carry messages, so b_ℓ lives on those
  columns; a typed edge's baseline only on the columns of the aggregations that
  sum over its relation, where its message lives. It starts at 0 (a closed gate
  first means "no message") and is learned with the gates, as in the paper;
  `baseline="zero"` keeps it at 0 (messages are deleted), an ablation: on
  sum-aggregating threshold models a learned baseline can stand in for the
  messages the prediction needs (b = half a "red" message, two closed gates:
  still "a red neighbour"), so every gate may close at no cost.
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
  near 0, the penalty would close even the needed gates before λ could grow, and a gate
  sampled at exactly 0 (or a clamp at 0 downstream) passes no gradient to reopen
  it. Layers without messages (A = 0) get no gates, and with typed edges a layer
  gates only the edges one of its aggregations sums over (the others send it no
  message: their gate there would be trained by the penalty alone); such an edge
  scores 0 in that layer.
* Edge score: the gate's probability of being open, P(z ≠ 0), after training, the
  MAXIMUM over the message-passing layers (an edge matters if its message matters
  in one layer; a mean would dilute it by the layers where closing it costs
  nothing). Edges outside the receptive field score 0.
* Node tasks train on the target's L-hop in-neighbourhood (L = the number of
  layers), which leaves its output unchanged; every gated pass runs on the
  target's cone within it (`TargetConeModule`: the same output and gradients).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn
from torch_geometric.explain import Explanation

from gracr.explainers.base import (
    Choice,
    ExplainerSpec,
    IntRange,
    LogUniform,
    Subject,
    Uniform,
    register,
)
from gracr.errors import GracrError
from gracr.executor.plan import LayerPlan, layer_plans, message_layers
from gracr.executor.torch_backend import CompiledLayer, CompiledModule, TargetConeModule

# Hard-concrete constants of Louizos et al. (2018): temperature and stretch.
BETA = 2.0 / 3.0
GAMMA = -0.1
ZETA = 1.1
GATE_HIDDEN = 32
INITIAL_LOG_ALPHA = 2.0
MULTIPLIER_LR = 0.1


@dataclass(frozen=True)
class LayerGating:
    """What replaces layer ℓ's plain sum: gate values `[E]` (1 on the edges the layer
    has no gate for) and the baseline message `[width]` (zero off the columns the
    layer's aggregations write)."""

    gates: Tensor
    baseline: Tensor


def gated_output(module: nn.Module, problem: Problem,
                 gating: Sequence[LayerGating | None]) -> Tensor:
    """The explained output (a scalar) with layer ℓ's messages gated by `gating[ℓ]`:
    the shared module itself, or its `TargetConeModule` on a node task, through
    `CompiledLayer`'s per-layer `edge_weight` and `baseline` hooks, so there is no
    second copy of the layer to drift from it."""
    weights = [None if gate is None else gate.gates for gate in gating]
    baselines = [None if gate is None else gate.baseline for gate in gating]
    output: Tensor = module(problem.x, problem.edge_index, edge_type=problem.edge_type,
                            layer_edge_weights=weights, layer_baselines=baselines)
    return output[0 if problem.target is None else problem.target, 0]


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


def written_columns(plan: LayerPlan) -> npt.NDArray[np.int64]:
    """The output columns some aggregation of the layer writes: where a message, and
    so the baseline, can be non-zero."""
    columns = [channel.columns for channel in plan.channels]
    return np.unique(np.concatenate(columns)) if columns else np.zeros(0, dtype=np.int64)


def _gate_features(module: CompiledModule, index: int, written: npt.NDArray[np.int64],
                   h: Tensor, problem: Problem, gated: npt.NDArray[np.int64]) -> Tensor:
    """[h_s, m_e, h_t] for the `gated` edges, from the original model's input `h` to
    layer `index`. The states keep only the columns that vary over the nodes (a
    constant column tells edges nothing apart), the message (`CompiledLayer.messages`)
    only the columns the layer's aggregations write."""
    varying = torch.nonzero((h.max(dim=0).values - h.min(dim=0).values) > 0).reshape(-1)
    states = h[:, varying]
    conv = module.convs[index]
    assert isinstance(conv, CompiledLayer)
    messages = conv.messages(h, problem.edge_index, problem.edge_type)
    messages = messages[:, torch.as_tensor(written)]
    sources, targets = problem.edge_index[0], problem.edge_index[1]
    features = torch.cat([states[sources], messages, states[targets]], dim=-1)
    if len(gated) < problem.edge_index.shape[1]:
        features = features[torch.as_tensor(gated)]
    return features.detach()


@dataclass(frozen=True)
class Problem:
    """The (sub)graph the gates are trained on and where its edges are in the graph."""

    x: Tensor
    edge_index: Tensor
    target: int | None
    edges: npt.NDArray[np.int64]
    edge_type: Tensor | None = None


def _problem(subject: Subject) -> Problem:
    edge_type = subject.edge_type
    if subject.target is None:
        return Problem(subject.x, subject.edge_index, None, np.arange(subject.num_edges),
                       edge_type)
    from torch_geometric.utils import k_hop_subgraph

    subset, edge_index, mapping, edge_mask = k_hop_subgraph(
        subject.target, subject.num_layers, subject.edge_index, relabel_nodes=True,
        num_nodes=int(subject.x.shape[0]), flow="source_to_target")
    return Problem(subject.x[subset], edge_index, int(mapping[0]),
                   np.flatnonzero(edge_mask.numpy()),
                   None if edge_type is None else edge_type[edge_mask])


BASELINES: tuple[str, ...] = ("learned", "zero")


@dataclass
class Gates:
    """The trainable part: a gate network and a baseline per message-passing layer,
    the edges each layer gates (those one of its aggregations sums over), and the
    gate networks' inputs on them (fixed: the original model's states)."""

    features: dict[int, Tensor]
    networks: dict[int, GateNetwork]
    baselines: dict[int, Tensor]
    gated: dict[int, npt.NDArray[np.int64]]
    written: dict[int, npt.NDArray[np.int64]]
    num_edges: int
    width: int

    def parameters(self) -> list[Tensor]:
        weights = [p for network in self.networks.values() for p in network.parameters()]
        return weights + [b for b in self.baselines.values() if b.requires_grad]

    def sample(self, enabled: Sequence[int], num_layers: int
               ) -> tuple[list[LayerGating | None], Tensor]:
        """Stochastic gates for the enabled layers and their expected L0 penalty
        Σ_ℓ mean_e P(z_{ℓ,e} ≠ 0). An edge a layer does not gate keeps weight 1 (it
        sends that layer nothing to gate)."""
        gating: list[LayerGating | None] = [None] * num_layers
        penalty = torch.zeros(())
        for index in enabled:
            gated = self.gated[index]
            if not len(gated):
                continue
            log_alpha = self.networks[index](self.features[index])
            sample = hard_concrete_sample(log_alpha)
            if len(gated) < self.num_edges:
                sample = torch.ones(self.num_edges).index_put((torch.as_tensor(gated),), sample)
            baseline = torch.zeros(self.width).index_put(
                (torch.as_tensor(self.written[index]),), self.baselines[index])
            gating[index] = LayerGating(sample, baseline)
            penalty = penalty + open_probability(log_alpha).mean()
        return gating, penalty


def graphmask_gates(subject: Subject, settings: Mapping[str, Any], seed: int,
                    cone: bool = True) -> Tensor:
    """Train the gates; return P(open) per (layer, edge of the graph): `[L, E]`,
    zero for layers without messages, for the edges a layer's aggregations do not sum
    over (typed edges) and for edges outside the trained subgraph. `cone=False` runs
    the gated passes of a node task on the shared module too (the same gates, more
    work: what the tests compare the cone with)."""
    if settings["baseline"] not in BASELINES:
        raise GracrError(f"GraphMask-clean has no baseline '{settings['baseline']}'; the "
                         f"baselines are {', '.join(BASELINES)}")
    torch.manual_seed(seed)
    problem = _problem(subject)
    module = subject.compiled_module()
    plans = layer_plans(subject.compiled)
    types = None if problem.edge_type is None else problem.edge_type.numpy()
    num_edges = int(problem.edge_index.shape[1])
    with torch.no_grad():
        shared = module(subject.x, subject.edge_index, edge_type=subject.edge_type)
        original = float(shared[subject.target if subject.target is not None else 0, 0])
        states = module.hidden_states(problem.x, problem.edge_index, edge_type=problem.edge_type)
    layers = [int(index) for index in message_layers(subject.compiled)]
    written = {index: written_columns(plans[index]) for index in layers}
    gated = {index: np.flatnonzero(plans[index].admitted(types, num_edges)) for index in layers}
    features = {index: _gate_features(module, index, written[index], states[index], problem,
                                      gated[index])
                for index in layers}
    learned = settings["baseline"] == "learned"
    gates = Gates(features,
                  {index: GateNetwork(features[index].shape[1]) for index in layers},
                  {index: torch.zeros(len(written[index]), requires_grad=learned)
                   for index in layers},
                  gated, written, num_edges, int(subject.compiled.width))
    # λ starts at the penalty's scale, so that neither term dominates the first steps:
    # started near 0, the penalty closes every gate before λ can grow, and a gate
    # whose sample is clamped at 0 passes no gradient back to reopen it.
    initial_multiplier = max(float(settings["penalty_scaling"]), 1e-3)
    multiplier_logit = torch.tensor(math.log(math.expm1(initial_multiplier)),
                                    requires_grad=True)
    descent = torch.optim.Adam(gates.parameters(), lr=settings["lr"])
    ascent = torch.optim.Adam([multiplier_logit], lr=MULTIPLIER_LR)
    steps = int(settings["epochs"]) if num_edges else 0
    # The gated output at a target reads only its cone: the same value and gradients
    # (`TargetConeModule`), a fraction of the work. The gates stay those of every edge
    # of the problem: the penalty is their mean, and the gate networks are shared.
    gated_module: nn.Module = module
    if problem.target is not None and cone:
        gated_module = TargetConeModule(
            subject.compiled, problem.edge_index.numpy(), int(problem.x.shape[0]),
            problem.target, surrogate=True, edge_type=types).eval()
    enabled: list[int] = []
    for index in reversed(layers):               # layer by layer, from the top
        enabled.append(index)
        for _ in range(steps):
            gating, penalty = gates.sample(enabled, len(plans))
            output = gated_output(gated_module, problem, gating)
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
    scores = torch.zeros(len(plans), subject.num_edges, dtype=torch.float64)
    with torch.no_grad():
        for index in layers:
            if not len(gated[index]):
                continue
            probability = open_probability(gates.networks[index](features[index]))
            edges = torch.as_tensor(problem.edges[gated[index]])
            scores[index, edges] = probability.to(torch.float64)
    return scores


def _graphmask_clean(subject: Subject, settings: Mapping[str, Any], seed: int
                     ) -> Explanation:
    per_layer = graphmask_gates(subject, settings, seed)
    scores = (per_layer.max(dim=0).values if per_layer.shape[0]
              else torch.zeros(subject.num_edges, dtype=torch.float64))
    return Explanation(
        edge_mask=scores * torch.as_tensor(subject.receptive_field, dtype=torch.float64))


register(ExplainerSpec(
    "GraphMask-clean", _graphmask_clean,
    {"epochs": 100, "lr": 0.01, "penalty_scaling": 5, "allowance": 0.03,
     "baseline": "learned"},
    space={"epochs": Choice((5, 10, 25, 50)), "lr": LogUniform(1e-5, 1e-2),
           "penalty_scaling": IntRange(1, 10), "allowance": Uniform(0.0, 0.3)},
    source="ours, clean-room from Schlichtkrull et al. 2021: per-layer hard-concrete "
           "gates, learned baselines, the model untouched",
    models=frozenset({"compiled"})))
