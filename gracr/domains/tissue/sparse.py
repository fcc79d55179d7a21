"""The tissue note's second label family, sparse drivers (the tissue note, §Scope:
"both architectures sit at chance while a direct count of the motif separates the
classes perfectly"), and its study (`gracrc tissue-sparse --out DIR`).

A sample is a field of the generator (`generate_sample`) with one site cleared (every
cell within `CLEAR_UM` of its centre removed) and a motif planted there, six cells,
their markers drawn from their types' distributions:

- *positive*: two triangles, each a tumour cell and two tcells `SIDE_UM` apart pairwise;
- *negative*: one hexagon of side `SIDE_UM`, tumour, tcell, tcell, tumour, tcell, tcell
  around it (its second neighbours are √3 · 20 ≈ 34.6 µm apart: beyond the 30 µm radius).

At ratio 1 both motifs are components of their own (the clearing keeps every other cell
farther than 30 µm), 2-regular, every tumour cell with two tcell neighbours, every tcell
with a tumour cell and a tcell, every edge `SIDE_UM` long: no message-passing network that
reads the cells' markers and the edges' lengths can tell them apart (they are the classic
pair that 1-WL does not separate), while counting the motif (`motif_count`: components
that are a triangle of a tumour cell and two tcells) separates the classes by definition.
The label is that count, recomputed from the table (`sparse_label`); the drivers are the
six planted cells, a few cells at one site instead of the main family's contiguous nests.

The study (`SparseStudy`, on `gracr.bench.study.Study`): phase *data* (`DIR/data/`:
`samples` tables, half planted with each motif, split 0.6/0.2/0.2 as the main study),
phase *models* (`DIR/models/`: GIN and GATv2 at ratio 1 for each training seed, trained
as the main study trains, `training.jsonl`), then the report (`DIR/tables/sparse.md`):
each model's test AUC beside the motif count's and two model-free scores' (the number
of tcells, the number of tumour–tcell near pairs).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from gracr.bench.report import TABLE, render_table, write_table
from gracr.bench.study import Phase, Say, Study
from gracr.errors import GracrError
from gracr.files import append_lines, atomic_writer, write_json
from gracr.domains.tissue.generator import (TissueSettings, check_dataset_options, draw_markers,
                                            generate_sample)
from gracr.domains.tissue.phases import ARCHITECTURES, latest_by_model, read_jsonl
from gracr.domains.tissue.radius import radius_graph, roles
from gracr.domains.tissue.table import TCELL, TUMOUR, CellTable
from gracr.domains.tissue.trained import TrainingSettings

SIDE_UM = 20.0
CLEAR_UM = 75.0
MOTIFS = ("triangles", "hexagon")
SPLIT = (0.6, 0.2)


def motif_offsets(motif: str) -> tuple[list[tuple[float, float]], tuple[str, ...]]:
    """The six cells of `motif` around the site's centre: offsets (µm) and types."""
    if motif == "hexagon":
        angles = [math.pi / 3 * k for k in range(6)]
        return ([(SIDE_UM * math.cos(a), SIDE_UM * math.sin(a)) for a in angles],
                (TUMOUR, TCELL, TCELL, TUMOUR, TCELL, TCELL))
    if motif == "triangles":
        radius = SIDE_UM / math.sqrt(3)   # circumradius: pairwise SIDE_UM apart
        offsets = []
        for centre in (-30.0, 30.0):
            offsets += [(centre + radius * math.cos(a), radius * math.sin(a))
                        for a in (math.pi / 2, math.pi / 2 + 2 * math.pi / 3,
                                  math.pi / 2 + 4 * math.pi / 3)]
        return offsets, (TUMOUR, TCELL, TCELL) * 2
    raise GracrError(f"unknown motif {motif!r}; the motifs are {', '.join(MOTIFS)}")


def plant(table: CellTable, motif: str, rng: np.random.Generator,
          settings: TissueSettings) -> CellTable:
    """`table` with a site cleared and `motif` planted there (module docstring); the site
    is uniform among the centres that keep the cleared disk inside the field."""
    centre = rng.uniform(CLEAR_UM, table.side_um - CLEAR_UM, size=2)
    keep = np.hypot(table.x - centre[0], table.y - centre[1]) > CLEAR_UM
    offsets, kinds = motif_offsets(motif)
    new = np.asarray(offsets, dtype=np.float64) + centre
    types = tuple(t for t, k in zip(table.types, keep) if k) + kinds
    markers = np.concatenate([table.markers[keep],
                              draw_markers(rng, kinds, settings.markers, settings.margin)])
    empty = np.zeros(len(types), dtype=np.bool_)
    draft = CellTable(types, np.concatenate([table.x[keep], new[:, 0]]),
                      np.concatenate([table.y[keep], new[:, 1]]), markers, empty, empty,
                      empty, table.side_um, table.label_radius_um)
    return CellTable(types, draft.x, draft.y, markers, *roles(draft), table.side_um,
                     table.label_radius_um)


def motif_count(table: CellTable) -> int:
    """How many components of the ratio-1 radius graph are a triangle of one tumour cell
    and two tcells."""
    edges, _ = radius_graph(table, 1.0)
    n = table.num_cells
    if n == 0:
        return 0
    adjacency = coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n))
    _, component = connected_components(adjacency, directed=False)
    degree = np.bincount(edges[:, 0], minlength=n) if len(edges) else np.zeros(n, np.int64)
    count = 0
    for label in np.unique(component):
        members = np.flatnonzero(component == label)
        if len(members) == 3 and (degree[members] == 2).all() and sorted(
                table.types[i] for i in members) == sorted((TUMOUR, TCELL, TCELL)):
            count += 1
    return count


def sparse_label(table: CellTable) -> bool:
    """Positive iff the sample holds the motif (`motif_count` > 0)."""
    return motif_count(table) > 0


def sparse_dataset(rng: np.random.Generator, settings: TissueSettings, samples: int
                   ) -> list[CellTable]:
    """`samples` fields, alternately planted with two triangles and with a hexagon."""
    return [plant(generate_sample(rng, settings), MOTIFS[i % 2], rng, settings)
            for i in range(samples)]


def near_pairs(table: CellTable) -> int:
    """Tumour–tcell pairs within the label radius (a model-free score)."""
    edges, _ = radius_graph(table, 1.0)
    kinds = np.asarray(table.types)
    return int(((kinds[edges[:, 0]] == TUMOUR) & (kinds[edges[:, 1]] == TCELL)).sum()) \
        if len(edges) else 0


# ---------------------------------------------------------------- the study


@dataclass(frozen=True)
class SparseSettings:
    samples: int = 300
    cells: int = 300
    seed: int = 0
    model_seeds: tuple[int, ...] = (0, 1, 2)
    hidden: int = 64
    layers: int = 2
    training: TrainingSettings = field(default_factory=TrainingSettings)

    def __post_init__(self) -> None:
        check_dataset_options(self.cells, self.seed, option="the sparse study's ",
                              samples=self.samples)
        if self.samples < 10 or not self.model_seeds:
            raise GracrError("the sparse study needs at least 10 samples and a model seed")
        # The motif goes at least CLEAR_UM from every edge: the field must be wider.
        side = TissueSettings.for_cells(self.cells).side_um
        if side <= 2 * CLEAR_UM:
            fewest = math.floor((2 * CLEAR_UM / side) ** 2 * self.cells) + 1
            raise GracrError(f"the sparse study's field of {self.cells} cells is "
                             f"{side:.0f} µm wide, too narrow for its motif ({CLEAR_UM:g} µm "
                             f"from every edge): use at least {fewest} cells")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "model_seeds": list(self.model_seeds)}


class SparseStudy(Study[SparseSettings]):
    """The sparse-driver family's study (module docstring)."""

    REQUIRED = {"seed": int}
    OUTPUTS = ("data", "models")

    def _tables(self) -> tuple[list[CellTable], dict[str, list[int]]]:
        data = self.folder / "data"
        lines = (data / "cells.jsonl").read_text(encoding="utf-8").splitlines()
        split = json.loads((data / "split.json").read_text(encoding="utf-8"))
        tables = [CellTable.from_json(json.loads(line)) for line in lines]
        if len(tables) != self.settings.samples:
            raise GracrError(f"{data / 'cells.jsonl'}: {len(tables)} tables, not "
                             f"{self.settings.samples}; remove {data} to make them again")
        return tables, split

    def _make_data(self, say: Say) -> None:
        settings = self.settings
        rng = np.random.default_rng([settings.seed, 0x5ba7])
        tables = sparse_dataset(rng, TissueSettings.for_cells(settings.cells), settings.samples)
        order = np.random.default_rng([settings.seed, 0x5e1]).permutation(len(tables))
        cut = int(round(SPLIT[0] * len(tables)))
        cut_validation = cut + int(round(SPLIT[1] * len(tables)))
        data = self.folder / "data"
        data.mkdir(parents=True, exist_ok=True)
        with atomic_writer(data / "cells.jsonl") as out:
            for table in tables:
                out.write(json.dumps(table.to_json(), separators=(",", ":")) + "\n")
        write_json(data / "split.json", {   # written last: the data are complete
            "train": sorted(order[:cut].tolist()),
            "validation": sorted(order[cut:cut_validation].tolist()),
            "test": sorted(order[cut_validation:].tolist())})
        positives = sum(sparse_label(t) for t in tables)
        say(f"data: {len(tables)} samples, {positives} positive")

    def _wanted(self) -> list[str]:
        return [f"{a}-r1-s{s}" for a in ARCHITECTURES for s in self.settings.model_seeds]

    def _trained(self, say: Say | None = None) -> set[str]:
        """The models trained at the learning rate the study trains them at now: one
        logged at another (an earlier design's) is trained again (said through `say`)."""
        from gracr.domains.tissue.trained import other_learning_rate

        done = set()
        for line in latest_by_model(read_jsonl(self.folder / "models" / "training.jsonl")):
            name = str(line.get("model"))
            differ = other_learning_rate(line, name.split("-")[0].lower(),
                                         self.settings.training)
            if not differ:
                done.add(name)
            elif say is not None:
                say(f"{self.folder / 'models' / name}: made with other settings ({differ}); "
                    "training it again")
        return done

    def _make_models(self, say: Say) -> None:
        from gracr.domains.tissue.trained import (ModelSettings, Splits, save_model,
                                                  tissue_graphs, train_model, training_for)

        tables, split = self._tables()
        graphs = tissue_graphs(tables, 0.5, 1.0)
        for graph, table in zip(graphs, tables):   # the label of this family
            graph.y = graph.y.new_tensor([float(sparse_label(table))])
        splits = Splits(*([graphs[i] for i in split[part]]
                          for part in ("train", "validation", "test")))
        done = self._trained(say)
        for name in self._wanted():
            if name in done:
                continue
            architecture, _, seed = name.split("-")
            say(f"training {name}")
            training = training_for(architecture.lower(),
                                    replace(self.settings.training, seed=int(seed[1:])))
            model, record = train_model(
                ModelSettings(architecture=architecture.lower(), hidden=self.settings.hidden,
                              layers=self.settings.layers), splits, training)
            save_model(model, self.folder / "models" / name)
            append_lines(self.folder / "models" / "training.jsonl",
                         [json.dumps({"model": name, **asdict(record)})])

    def phases(self) -> list[Phase]:
        return [Phase("data", lambda: (self.folder / "data" / "split.json").exists(),
                      self._make_data),
                Phase("models", lambda: set(self._wanted()) <= self._trained(),
                      self._make_models)]

    def report(self, say: Say) -> None:
        from gracr.domains.tissue import published as note
        from gracr.domains.tissue.trained import auc, logged_learning_rate

        tables, split = self._tables()
        test = [tables[i] for i in split["test"]]
        labels = [sparse_label(t) for t in test]
        rows = [[name, "model-free", "–", _auc(auc, scores, labels),
                 note.SPARSE.get(name, "")] for name, scores in (
            ("motif count", [motif_count(t) for t in test]),
            ("tcells", [int(t.mask(TCELL).sum()) for t in test]),
            ("tumour–tcell near pairs", [near_pairs(t) for t in test]))]
        for record in latest_by_model(read_jsonl(self.folder / "models" / "training.jsonl")):
            rows.append([str(record["model"]), f"{record['epochs']} epochs (best "
                         f"{record['best_epoch']}), Adam at {logged_learning_rate(record):g}",
                         TABLE.number(record["best_validation_auc"]),
                         TABLE.number(record["test_auc"]),
                         note.SPARSE.get(str(record["model"]).split("-")[0], "")])
        headers = ["model", "training", "validation AUC", "test AUC", "note: test AUC"]
        title = (f"The sparse-driver family (dataset seed {self.settings.seed}, "
                 f"{len(tables)} samples, test {len(test)}, {sum(labels)} positive)")
        say(f"\n{title}\n\n{render_table(headers, rows)}")
        for suffix in ("md", "csv"):
            write_table(str(self.folder / "tables" / f"sparse.{suffix}"), headers, rows)


def _auc(auc: Any, scores: Sequence[float], labels: Sequence[bool]) -> str:
    value = auc(np.asarray(scores, dtype=np.float64), np.asarray(labels))
    return TABLE.number(None if math.isnan(value) else value)

