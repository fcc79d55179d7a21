"""Trained models beside the compiled one: GIN, GATv2 and a CNN learn the tissue rule
from data.

- `tissue_graphs`: PyG `Data` per `CellTable`: `x` the six markers (float32, in `CHANNELS`
  order; the cell type is never a feature: a model must read it off the markers, as the
  compiled one does), `edge_index` the radius graph at `ratio` times the label radius,
  `edge_attr` the edge length in µm (one float32 column, as gracr's graph JSON carries
  it: the same graphs go to explainers), `y` the label (float32,
  shape [1]), and per-node bool flags `tumour`, `tcell`, `engaged`, `driver`, `decoy`
  (recomputed by `roles`; for probes, never fed to a model);
- `split_graphs`: train / validation / test by a seeded permutation;
- `GIN` (`GINEConv`: the message is ReLU(h_j + W·d_ij), so the distance enters every
  message) and `GATv2` (`GATv2Conv`, `edge_dim=1`, the self loop it adds has length 0),
  each a few layers, mean or sum pooling and a linear head giving one logit per graph,
  and `TissueCNN`, the note's non-graph baseline (a CNN on the field rendered by
  `render`, one channel per marker; its graphs: `gracr.domains.tissue.image`), all built
  by `build_model` from a `ModelSettings`;
- `train_model`: Adam, BCE with logits, mini-batches, early stopping on validation AUC,
  and a checkpoint a stopped training goes on from (to the same weights);
- `save_model` / `load_model`: a `state_dict` and a JSON of hyperparameters, no pickles.

`gracr.domains.tissue.probes` reads the models: the linear probe and GATv2 attention rollout.

Nothing here touches torch's global random state: initialisation runs under
`torch.random.fork_rng` with the given seed, the batch order has its own
`torch.Generator`, label shuffling its own numpy generator, and the models have no dropout.

Its size (600–700 lines) is the three architectures with their one training loop (and
the checkpoint it goes on from) and file format: the CNN is a `TissueModel` like the
graph models, so that the same training, probes, explainers and files serve all three.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence, cast

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor
from torch_geometric.data import Batch, Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GATv2Conv, GINEConv, global_add_pool, global_mean_pool

from gracr.explainers.base import TrainedModel
from gracr.bench.models import register_model_format
from gracr.dsl.ir import Kind
from gracr.errors import GracrError
from gracr.files import atomic_writer, write_json
from gracr.domains.tissue.radius import radius_graph, recompute_label, roles
from gracr.domains.tissue.table import CHANNELS, TCELL, TUMOUR, CellTable

FloatArray = npt.NDArray[np.float64]
NODE_FLAGS: tuple[str, ...] = ("tumour", "tcell", "engaged", "driver", "decoy")
ARCHITECTURES: tuple[str, ...] = ("gin", "gatv2", "cnn")
POOLINGS: tuple[str, ...] = ("mean", "sum")
FORMAT = "gracr-tissue-model"


# --- data -------------------------------------------------------------------------------

def tissue_graphs(tables: Sequence[CellTable], theta: float, ratio: float) -> list[Data]:
    """One PyG `Data` per table (see the module docstring for the fields)."""
    graphs = []
    for table in tables:
        edges, distances = radius_graph(table, ratio)
        engaged, driver, decoy = roles(table)
        flags = {"tumour": table.mask(TUMOUR), "tcell": table.mask(TCELL),
                 "engaged": engaged, "driver": driver, "decoy": decoy}
        graphs.append(Data(
            x=torch.as_tensor(table.markers, dtype=torch.float32).reshape(-1, len(CHANNELS)),
            edge_index=torch.as_tensor(edges.T.copy(), dtype=torch.long).reshape(2, -1),
            edge_attr=torch.as_tensor(distances, dtype=torch.float32).reshape(-1, 1),
            y=torch.tensor([float(recompute_label(table, theta))], dtype=torch.float32),
            **{k: torch.as_tensor(v, dtype=torch.bool) for k, v in flags.items()}))
    return graphs


@dataclass(frozen=True)
class Splits:
    train: list[Data]
    validation: list[Data]
    test: list[Data]

    def with_shuffled_labels(self, seed: int) -> Splits:
        """The shuffled-label control's splits: one seeded permutation of the training and
        validation labels together, the test split untouched. The validation labels are
        shuffled too because they choose the epoch kept: true ones would let the control
        keep whichever epoch happens to agree with the real labels."""
        labelled = shuffle_labels([*self.train, *self.validation], seed)
        return Splits(labelled[:len(self.train)], labelled[len(self.train):], list(self.test))


def split_graphs(graphs: Sequence[Data], seed: int, train: float = 0.6,
                 validation: float = 0.2) -> Splits:
    """A seeded permutation cut into round(train·n), round(validation·n) and the rest."""
    if not (0 < train and 0 <= validation and train + validation < 1):
        raise ValueError(f"fractions must leave a test split, got {train}, {validation}")
    order = np.random.default_rng(seed).permutation(len(graphs)).tolist()
    a = round(train * len(graphs))
    b = a + round(validation * len(graphs))
    return Splits([graphs[i] for i in order[:a]], [graphs[i] for i in order[a:b]],
                  [graphs[i] for i in order[b:]])


def shuffle_labels(graphs: Sequence[Data], seed: int) -> list[Data]:
    """Copies of `graphs` whose labels are a seeded permutation of theirs (the control:
    a model trained on these can learn nothing that generalises)."""
    order = np.random.default_rng(seed).permutation(len(graphs)).tolist()
    shuffled = []
    for graph, source in zip(graphs, order):
        clone = copy.copy(graph)
        clone.y = graphs[source].y.clone()
        shuffled.append(clone)
    return shuffled


# --- models -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ModelSettings:
    """`architecture` "gin" or "gatv2"; `hidden` units per layer (GATv2: over all heads,
    `hidden // heads` per head, concatenated); `pooling` "mean" or "sum";
    `distance_scale_um`: the model divides each edge length (µm) by it before its layers
    read it (the label radius: 1.0 is exactly 30 µm, a near edge one of at most 1), so the
    graphs it reads carry lengths in µm, as the graph JSON does. "cnn"
    (`gracr.domains.tissue.image.TissueCNN`) renders the field, a square of `side_um`,
    in pixels of `pixel_um`; `layers` is its number of convolution blocks."""

    architecture: str = "gin"
    hidden: int = 64
    layers: int = 2
    heads: int = 2
    pooling: str = "mean"
    distance_scale_um: float = 30.0
    side_um: float = 400.0
    pixel_um: float = 5.0

    def __post_init__(self) -> None:
        if self.architecture not in ARCHITECTURES or self.pooling not in POOLINGS:
            raise ValueError(f"architecture must be one of {ARCHITECTURES} and pooling one of "
                             f"{POOLINGS}, got {self.architecture!r}, {self.pooling!r}")
        if self.hidden < 1 or self.layers < 1 or self.heads < 1 or self.hidden % self.heads:
            raise ValueError("hidden, layers and heads must be positive, hidden a multiple "
                             "of heads")
        for name in ("distance_scale_um", "side_um", "pixel_um"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value}")


class TissueModel(torch.nn.Module):
    """Message passing (ReLU after each layer), pooling, one linear logit per graph."""

    def __init__(self, settings: ModelSettings, convs: list[torch.nn.Module]) -> None:
        super().__init__()
        self.settings = settings
        self.convs = torch.nn.ModuleList(convs)
        self.head = torch.nn.Linear(settings.hidden, 1)

    def scaled(self, edge_attr: Tensor | None, x: Tensor, edge_index: Tensor) -> Tensor:
        """The edge lengths (µm) as the layers read them: over `distance_scale_um`."""
        if edge_attr is None:
            return x.new_zeros((edge_index.size(1), 1))
        return edge_attr / self.settings.distance_scale_um

    def _conv(self, conv: torch.nn.Module, h: Tensor, edge_index: Tensor,
              edge_attr: Tensor) -> Tensor:
        return cast(Tensor, conv(h, edge_index, edge_attr))

    def node_embeddings(self, x: Tensor, edge_index: Tensor,
                        edge_attr: Tensor | None = None) -> Tensor:
        """`[N, hidden]`: the last message-passing layer's output after its ReLU (what the
        pooling reads). `edge_attr=None` means length 0 on every edge."""
        edge_attr = self.scaled(edge_attr, x, edge_index)
        h = x
        for conv in self.convs:
            h = torch.relu(self._conv(conv, h, edge_index, edge_attr))
        return h

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None,
                batch: Tensor | None = None, num_graphs: int | None = None) -> Tensor:
        """`[B, 1]` logits (B = 1 without `batch`; `num_graphs` = B when the last graphs
        of `batch` may be empty: a graph with no node pools to 0)."""
        h = self.node_embeddings(x, edge_index, edge_attr)
        if batch is None:
            batch = torch.zeros(x.size(0), dtype=torch.long, device=x.device)
            num_graphs = 1
        pool = global_mean_pool if self.settings.pooling == "mean" else global_add_pool
        return cast(Tensor, self.head(pool(h, batch, num_graphs)))


class GIN(TissueModel):
    def __init__(self, settings: ModelSettings) -> None:
        sizes = [len(CHANNELS)] + [settings.hidden] * settings.layers
        convs: list[torch.nn.Module] = [GINEConv(torch.nn.Sequential(
            torch.nn.Linear(a, b), torch.nn.ReLU(), torch.nn.Linear(b, b)), edge_dim=1)
            for a, b in zip(sizes, sizes[1:])]
        super().__init__(settings, convs)


class GATv2(TissueModel):
    def __init__(self, settings: ModelSettings) -> None:
        sizes = [len(CHANNELS)] + [settings.hidden] * settings.layers
        convs: list[torch.nn.Module] = [
            GATv2Conv(a, b // settings.heads, heads=settings.heads, edge_dim=1,
                      add_self_loops=True, fill_value=0.0) for a, b in zip(sizes, sizes[1:])]
        super().__init__(settings, convs)

    def attention(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None
                  ) -> list[tuple[Tensor, Tensor]]:
        """Per layer, `(edge_index [2, E'], alpha [E', heads])` with the self loops the
        layer adds; alpha of edge j→i (column (j, i)) is softmax-normalised over the
        edges into i."""
        edge_attr = self.scaled(edge_attr, x, edge_index)
        h, out = x, cast(list[tuple[Tensor, Tensor]], [])
        for conv in self.convs:
            h, (index, alpha) = conv(h, edge_index, edge_attr, return_attention_weights=True)
            h = torch.relu(h)
            out.append((index, alpha))
        return out


def cell_positions(num_nodes: int, edge_index: Tensor, edge_attr: Tensor) -> Tensor:
    """`[N, 2]` µm: each cell's position as its edges carry it (columns 1 and 2 of the
    attributes, its source's position: `gracr.domains.tissue.image.image_graph_json`)."""
    positions = edge_attr.new_zeros((num_nodes, 2))
    positions[edge_index[0]] = edge_attr[:, 1:3].detach()
    return positions


def render(x: Tensor, positions: Tensor, batch: Tensor, num_graphs: int, side_um: float,
           pixel_um: float) -> Tensor:
    """`[B, C, H, H]` images, H = ceil(side_um / pixel_um): each cell's `x` row (C
    channels, one per marker) split bilinearly over the four pixels around its position
    (pixel centres at (k + 1/2) · pixel_um; the weights sum to 1, so an image sums to
    its cells' markers); a cell outside the field adds to the nearest edge pixels. The
    image is linear in `x`: an explainer's gradient with respect to a cell's markers is
    the model's gradient at that cell's pixels, so the CNN is explained per cell."""
    size = math.ceil(side_um / pixel_um)
    scaled = positions / pixel_um - 0.5
    low = torch.floor(scaled)
    fraction = scaled - low
    low = low.long()
    flat = x.new_zeros((num_graphs * size * size, x.shape[1]))
    for dx in (0, 1):
        for dy in (0, 1):
            column = (low[:, 0] + dx).clamp(0, size - 1)
            row = (low[:, 1] + dy).clamp(0, size - 1)
            weight = ((fraction[:, 0] if dx else 1 - fraction[:, 0])
                      * (fraction[:, 1] if dy else 1 - fraction[:, 1]))
            flat = flat.index_add(0, (batch * size + row) * size + column,
                                  x * weight[:, None].to(x.dtype))
    return flat.reshape(num_graphs, size, size, x.shape[1]).permute(0, 3, 1, 2)


class TissueCNN(TissueModel):
    """The tissue note's non-graph baseline, a CNN on a rendered image of the field
    (`render`): `layers` blocks of two 3×3 convolutions (`hidden` channels, ReLU), 2×2 max
    pooling between blocks, a global mean and a linear logit. It takes each cell's
    position from its edges (`cell_positions`; the graphs of
    `gracr.domains.tissue.image`) and reads no edge otherwise. Its node embeddings (for
    the linear probe) are the last block's map read at each cell's position."""

    def __init__(self, settings: ModelSettings) -> None:
        super().__init__(settings, [])
        blocks: list[torch.nn.Module] = []
        channels = len(CHANNELS)
        for _ in range(settings.layers):
            blocks.append(torch.nn.Sequential(
                torch.nn.Conv2d(channels, settings.hidden, 3, padding=1), torch.nn.ReLU(),
                torch.nn.Conv2d(settings.hidden, settings.hidden, 3, padding=1),
                torch.nn.ReLU()))
            channels = settings.hidden
        self.blocks = torch.nn.ModuleList(blocks)

    def feature_map(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None,
                    batch: Tensor, num_graphs: int) -> tuple[Tensor, Tensor]:
        """The last block's `[B, hidden, h, h]` map and the cells' positions."""
        if edge_attr is None or edge_attr.shape[1] < 3:
            raise ValueError("the CNN reads each cell's position from its edges' attributes "
                             "(image_graph_json): the graph has none")
        positions = cell_positions(x.shape[0], edge_index, edge_attr)
        h = render(x, positions, batch, num_graphs, self.settings.side_um,
                   self.settings.pixel_um)
        for index, block in enumerate(self.blocks):
            if index:
                h = torch.nn.functional.max_pool2d(h, 2)
            h = block(h)
        return h, positions

    def node_embeddings(self, x: Tensor, edge_index: Tensor,
                        edge_attr: Tensor | None = None) -> Tensor:
        """`[N, hidden]`: the last block's map, bilinearly, at each cell's position."""
        batch = torch.zeros(x.shape[0], dtype=torch.long)
        h, positions = self.feature_map(x, edge_index, edge_attr, batch, 1)
        extent = h.shape[-1] * 2 ** (len(self.blocks) - 1) * self.settings.pixel_um
        grid = (positions / extent) * 2 - 1   # grid_sample's [-1, 1] over the image
        sampled = torch.nn.functional.grid_sample(h, grid.reshape(1, 1, -1, 2).to(h.dtype),
                                                  align_corners=False)
        return sampled.reshape(h.shape[1], -1).T

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None,
                batch: Tensor | None = None, num_graphs: int | None = None) -> Tensor:
        if batch is None:
            batch = torch.zeros(x.size(0), dtype=torch.long, device=x.device)
            num_graphs = 1
        elif num_graphs is None:
            num_graphs = int(batch.max()) + 1 if batch.numel() else 1
        h, _ = self.feature_map(x, edge_index, edge_attr, batch, num_graphs)
        return cast(Tensor, self.head(h.mean(dim=(2, 3))))


def build_model(settings: ModelSettings, seed: int = 0) -> TissueModel:
    """A randomly initialised model (seeded, global RNG untouched): the untrained control,
    and exactly the starting point of `train_model` with the same seed."""
    kinds: dict[str, Callable[[ModelSettings], TissueModel]] = {
        "gin": GIN, "gatv2": GATv2, "cnn": TissueCNN}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = kinds[settings.architecture](settings)
    return model.eval()


# --- training ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingSettings:
    max_epochs: int = 300
    patience: int = 40
    batch_size: int = 16
    learning_rate: float = 1e-2
    weight_decay: float = 0.0
    seed: int = 0
    shuffle_labels: bool = False
    keep: str = "best"
    min_delta: float = 0.0

    def __post_init__(self) -> None:
        if self.max_epochs < 0 or self.patience < 1 or self.batch_size < 1:
            raise ValueError("max_epochs must be >= 0, patience and batch_size >= 1")
        if not (math.isfinite(self.min_delta) and self.min_delta >= 0):
            raise ValueError(f"min_delta must be a number >= 0, got {self.min_delta}")
        if self.keep not in ("best", "last"):
            raise ValueError(f"keep must be 'best' or 'last', got {self.keep!r}")


# Adam's learning rate for the architectures that do not learn the rule at
# `TrainingSettings`' 1e-2 (`training_for`; the tissue note states no rate). GIN, on 600
# samples with early stopping (patience 50, at most 300 epochs), data seeds 0-2 x split
# seeds 0-2 (`benchmarks/tissue_training.py`, docs/results/tissue/scale/gin-learning-rate.md):
# at 1e-2 one run in nine learned (test AUC 0.966; the others 0.51-0.82), at 1e-3 all nine
# (0.949-0.992). The CNN (cnn-settings.md there): a constant output at 1e-2 (0.56), 0.95 at
# 1e-3. GATv2 learned at 1e-2 on every seed of the scale run (>= 0.947).
LEARNING_RATES: dict[str, float] = {"gin": 1e-3, "cnn": 1e-3}
# How often `train_model` writes its checkpoint at most (seconds of training): a model
# stopped mid-training loses at most this much, and the writes (a few hundred KB) cost
# nothing beside the epochs.
CHECKPOINT_SECONDS = 60.0
# What a training line without a "learning_rate" was trained at: every model trained
# before the lines recorded it used `TrainingSettings`' 1e-2.
UNLOGGED_LEARNING_RATE = 1e-2


def training_for(architecture: str, training: TrainingSettings) -> TrainingSettings:
    """`training` with `architecture`'s own learning rate (`LEARNING_RATES`) if it has
    one."""
    rate = LEARNING_RATES.get(architecture)
    return training if rate is None else replace(training, learning_rate=rate)


def logged_learning_rate(line: dict[str, Any]) -> float:
    """The learning rate a training line (a `TrainingRecord`'s fields) says its model was
    trained at."""
    return float(line.get("learning_rate", UNLOGGED_LEARNING_RATE))


def other_learning_rate(line: dict[str, Any], architecture: str,
                        training: TrainingSettings) -> str:
    """How the rate a training line gives differs from the one `architecture` trains at
    under `training` ("" when it does not): the model is an earlier design's."""
    logged, wanted = logged_learning_rate(line), training_for(architecture,
                                                              training).learning_rate
    return "" if logged == wanted else f"learning rate {logged:g}, not {wanted:g}"


@dataclass(frozen=True)
class TrainingRecord:
    """`epochs` run; the best epoch (1-based; 0: the initial weights were never beaten),
    its validation AUC and the test AUC of the model returned (nan: one class only); Adam's
    learning rate; per epoch, the mean training loss and the validation loss and AUC (the
    curve that shows whether training had converged when it stopped)."""

    architecture: str
    seed: int
    shuffled_labels: bool
    epochs: int
    best_epoch: int
    best_validation_auc: float
    test_auc: float
    seconds: float
    learning_rate: float
    train_loss: tuple[float, ...] = ()
    validation_loss: tuple[float, ...] = ()
    validation_auc: tuple[float, ...] = ()


@torch.no_grad()
def predict(model: TissueModel, graphs: Sequence[Data], batch_size: int = 64
            ) -> tuple[FloatArray, FloatArray]:
    """`(logits, labels)` of `graphs` as float64 arrays."""
    model.eval()
    logits, labels = [], []
    for first in range(0, len(graphs), batch_size):   # no DataLoader: it draws global seeds
        batch = Batch.from_data_list(list(graphs[first:first + batch_size]))
        logits.append(model(batch.x, batch.edge_index, batch.edge_attr, batch.batch).reshape(-1))
        labels.append(batch.y.reshape(-1))
    if not logits:
        return np.zeros(0), np.zeros(0)
    return (torch.cat(logits).double().numpy(), torch.cat(labels).double().numpy())


def auc(scores: npt.ArrayLike, labels: npt.ArrayLike) -> float:
    """scikit-learn's ROC AUC; nan when `labels` hold one class only."""
    # Imported here: this module is loaded with the tissue baselines' explainer entry
    # point by every bench worker, and scikit-learn takes most of a second to import.
    from sklearn.metrics import roc_auc_score

    truth = np.asarray(labels).astype(bool)
    if truth.all() or not truth.any():
        return math.nan
    return float(roc_auc_score(truth, np.asarray(scores, dtype=np.float64)))


def model_auc(model: TissueModel, graphs: Sequence[Data]) -> float:
    return auc(*predict(model, graphs))


def train_model(model_settings: ModelSettings, splits: Splits,
                settings: TrainingSettings = TrainingSettings(),
                checkpoint: Path | None = None,
                checkpoint_seconds: float | None = None
                ) -> tuple[TissueModel, TrainingRecord]:
    """Train from `build_model(model_settings, settings.seed)`; return the weights of the
    best validation epoch (AUC, ties to the lower validation loss; a validation split of
    one class falls back to the loss; the initial weights are never chosen, so a trained
    model, and the shuffled-label control, has always been trained) and the record. Stops
    after `patience` epochs without a better one, or at `max_epochs`; an epoch of the same
    validation AUC is better only when its loss is lower by more than `min_delta` (0: any
    lower loss), so that a loss creeping down by rounding does not keep training going. `shuffle_labels`:
    train and choose the epoch on `splits.with_shuffled_labels(settings.seed)`; the test
    split keeps its labels. `keep="last"` returns the last epoch's weights instead (the
    record's test AUC is always that of the model returned).

    `checkpoint`: a file holding the whole training state at the end of an epoch (weights,
    Adam's moments, the batch order's generator, the best epoch so far and the curve),
    written atomically at most every `checkpoint_seconds` of training (None:
    `CHECKPOINT_SECONDS`) and read back when
    the training starts, so that a run stopped mid-training goes on from its last
    checkpoint and ends with the same weights and record as one never stopped (the
    seconds add up). A checkpoint of other settings or data, or one that cannot be read,
    is said on stderr and training starts afresh. `max_epochs`, `patience` and `keep` are
    not part of what a checkpoint must match (they say when to stop and what to return,
    not how an epoch runs, so a larger cap goes on from where a smaller one stopped). The
    caller removes the file once the model is saved."""
    start = time.perf_counter()
    model = build_model(model_settings, settings.seed)
    if settings.shuffle_labels:
        splits = splits.with_shuffled_labels(settings.seed)
    train = list(splits.train)
    optimiser = torch.optim.Adam(model.parameters(), lr=settings.learning_rate,
                                 weight_decay=settings.weight_decay)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    order = torch.Generator().manual_seed(settings.seed)
    loader = DataLoader(train, batch_size=settings.batch_size, shuffle=True, generator=order)

    def score() -> tuple[float, float]:
        logits, labels = predict(model, splits.validation)
        loss = float(loss_fn(torch.from_numpy(logits), torch.from_numpy(labels))) \
            if len(labels) else 0.0
        value = auc(logits, labels)
        return (-1.0 if math.isnan(value) else value), -loss

    def better(current: tuple[float, float], best: tuple[float, float] | None) -> bool:
        return best is None or current[0] > best[0] or (
            current[0] == best[0] and current[1] > best[1] + settings.min_delta)

    best: tuple[float, float] | None = None
    best_state, best_epoch, epoch = copy.deepcopy(model.state_dict()), 0, 0
    curve: tuple[list[float], list[float], list[float]] = ([], [], [])
    earlier_seconds = 0.0
    key = _checkpoint_key(model_settings, settings, splits)
    state = None if checkpoint is None else _read_checkpoint(checkpoint, key)
    if state is not None:
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        order.set_state(state["order"])
        best = None if state["best"] is None else (state["best"][0], state["best"][1])
        best_state, best_epoch, epoch = state["best_state"], state["best_epoch"], state["epoch"]
        curve = (list(state["curve"][0]), list(state["curve"][1]), list(state["curve"][2]))
        earlier_seconds = state["seconds"]
    last_written = time.perf_counter()
    every = CHECKPOINT_SECONDS if checkpoint_seconds is None else checkpoint_seconds
    while epoch < settings.max_epochs and epoch - best_epoch < settings.patience:
        epoch += 1
        model.train()
        losses = []
        for batch in loader:
            optimiser.zero_grad()
            logits = model(batch.x, batch.edge_index, batch.edge_attr, batch.batch)
            loss = loss_fn(logits.reshape(-1), batch.y.reshape(-1))
            loss.backward()
            optimiser.step()
            losses.append(float(loss.detach()))
        current = score()
        for values, value in zip(curve, (float(np.mean(losses)) if losses else math.nan,
                                         -current[1], current[0] if current[0] >= 0
                                         else math.nan)):
            values.append(value)
        if better(current, best):
            best, best_state, best_epoch = current, copy.deepcopy(model.state_dict()), epoch
        if checkpoint is not None and time.perf_counter() - last_written >= every:
            _write_checkpoint(checkpoint, {
                "key": key, "model": model.state_dict(), "optimiser": optimiser.state_dict(),
                "order": order.get_state(), "best": None if best is None else list(best),
                "best_state": best_state, "best_epoch": best_epoch, "epoch": epoch,
                "curve": [list(values) for values in curve],
                "seconds": earlier_seconds + time.perf_counter() - start})
            last_written = time.perf_counter()
    if settings.keep == "best":
        model.load_state_dict(best_state)
    model.eval()
    best_auc = math.nan if best is None or best[0] < 0 else best[0]
    return model, TrainingRecord(model_settings.architecture, settings.seed,
                                 settings.shuffle_labels, epoch, best_epoch, best_auc,
                                 model_auc(model, splits.test),
                                 earlier_seconds + time.perf_counter() - start,
                                 settings.learning_rate, *(tuple(values) for values in curve))


def _checkpoint_key(model_settings: ModelSettings, settings: TrainingSettings,
                    splits: Splits) -> str:
    """What a checkpoint must have been written under to go on from: the model's and the
    training's settings (all but when to stop) and, per split, the number of graphs, nodes,
    edges and positive labels (another dataset under the same settings differs there)."""
    training = {name: value for name, value in asdict(settings).items()
                if name not in ("max_epochs", "patience", "keep")}
    data = [[len(part), sum(int(g.num_nodes) for g in part),
             sum(int(g.edge_index.shape[1]) for g in part),
             sum(int(g.y.sum()) for g in part)]
            for part in (splits.train, splits.validation, splits.test)]
    return json.dumps({"model": asdict(model_settings), "training": training, "data": data},
                      sort_keys=True)


def _write_checkpoint(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, binary=True) as out:
        torch.save(state, out)


def _read_checkpoint(path: Path, key: str) -> dict[str, Any] | None:
    """The state `_write_checkpoint` left at `path` under `key`; None (said on stderr
    unless there is no file) when it is missing, cannot be read or was written under
    another key."""
    if not path.exists():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        wanted = ("key", "model", "optimiser", "order", "best", "best_state", "best_epoch",
                  "epoch", "curve", "seconds")
        if not isinstance(state, dict) or any(name not in state for name in wanted):
            raise RuntimeError("not a training checkpoint")
    except _UNREADABLE as error:
        print(f"gracrc: {path}: cannot read the training checkpoint ({_reason(error)}); "
              "training from the start", file=sys.stderr)
        return None
    if state["key"] != key:
        print(f"gracrc: {path}: a checkpoint of other settings or data; training from the "
              "start", file=sys.stderr)
        return None
    print(f"gracrc: {path}: going on from epoch {state['epoch']}", file=sys.stderr)
    return cast(dict[str, Any], state)


def explained(model: TissueModel, name: str) -> TrainedModel:
    """`model` as GracrBench explainers take it (`Subject.of_trained`): a graph
    classifier giving one logit, `name` in messages and results. Separable over a
    disjoint union of graphs (`TrainedModel.separable`): GINEConv and GATv2Conv pass
    messages along edges only (GATv2's softmax runs over each node's in-edges, its self
    loops are each node's own), the pooling and the CNN's rendering, convolutions and
    mean are per graph of `batch`, and no layer normalises across graphs."""
    return TrainedModel(name, model, Kind.GRAPH, model.settings.layers, separable=True)


# --- files ------------------------------------------------------------------------------

def _stem(path: str | Path) -> Path:
    """`path` without a `.pt` or `.json` suffix (any other dot is part of the name:
    `GIN~convs.0` is a stem)."""
    path = Path(path)
    return path.with_suffix("") if path.suffix in (".pt", ".json") else path


def _beside(stem: Path, suffix: str) -> Path:
    return stem.with_name(stem.name + suffix)


def save_model(model: TissueModel, path: str | Path) -> tuple[Path, Path]:
    """Write `<path>.pt` (the `state_dict`, tensors only) and then `<path>.json` (the
    `ModelSettings`), each whole or not at all; a `.pt` or `.json` suffix of `path` is
    dropped first. Returns both paths."""
    stem = _stem(path)
    stem.parent.mkdir(parents=True, exist_ok=True)
    weights, settings = _beside(stem, ".pt"), _beside(stem, ".json")
    with atomic_writer(weights, binary=True) as out:
        torch.save(model.state_dict(), out)
    write_json(settings, {"format": FORMAT, "version": 1, "settings": asdict(model.settings)})
    return weights, settings


def load_model(path: str | Path) -> TissueModel:
    """The model `save_model` wrote (`path` with or without `.pt` / `.json`), loaded with
    `weights_only=True` (no pickled code runs) in eval mode. `GracrError` naming the file
    that cannot be read (missing, cut, not what `save_model` writes); `ValueError` for a
    JSON file of another format."""
    stem = _stem(path)
    meta_path, weights = _beside(stem, ".json"), _beside(stem, ".pt")
    try:
        meta: Any = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise GracrError(f"{meta_path}: cannot read the model's settings ({error})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"{meta_path}: not a {FORMAT} file")
    try:
        model = build_model(ModelSettings(**meta["settings"]))
    except (KeyError, TypeError, ValueError) as error:
        raise GracrError(f"{meta_path}: not the settings of a model ({error})") from None
    try:
        state = torch.load(weights, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except _UNREADABLE as error:
        raise GracrError(f"{weights}: cannot read the model's weights ({_reason(error)})"
                         ) from None
    return model.eval()


# torch reports a cut or foreign file as any of these (RuntimeError: a damaged zip
# archive; EOFError: an empty file; UnpicklingError: not torch's format).
_UNREADABLE: tuple[type[Exception], ...] = (OSError, EOFError, RuntimeError,
                                            pickle.UnpicklingError, TypeError, AttributeError)


def _reason(error: Exception) -> str:
    """The first line of `error`'s message (its type when it has none), for one line on
    stderr."""
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__


def _read_model_file(stem: Path) -> TrainedModel:
    return explained(load_model(stem), stem.name)


# The runner explains these files by path (`Job.model`), named after their stem.
register_model_format(FORMAT, _read_model_file)
