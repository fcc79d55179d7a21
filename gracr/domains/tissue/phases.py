"""The tissue study's phases (run by `gracr.domains.tissue.study.TissueStudy`,
`gracrc tissue-study --out DIR`): the note's metrics, baselines and controls on a compiled
model beside trained ones, through the benchmark runner. Each phase runs unless its files
say it is complete; one that runs redoes only what is missing (a file found damaged is
said and made again).

1. **data** (`DIR/data/`): one dataset of `samples` cell tables (`generate_dataset`, θ for
   class balance), split train / validation / test (0.6 / 0.2 / 0.2, seeded); one test
   task file per graph radius ratio (the same test tables, graphs at 30 µm × ratio).
2. **truth** (`DIR/truth.jsonl`): each explained test sample's signed ground truth,
   `gracr.bdd.relevance.relevance` (counterfactual set, Banzhaf, Shapley; exact where the
   diagram is built, sampled and marked where it is refused). The rule reads `near`
   edges only, so the ground truth is the same at every ratio.
3. **models** (`DIR/models/`): the compiled rule (presence bit: a zeroed cell is deleted)
   and GIN and GATv2 (`gracr.domains.tissue.trained`) at every ratio for each of
   `model_seeds`; the first seed's shuffled-label and untrained (random-init) controls
   at ratio 1; the randomised copies of the compiled model and of the first-seed ratio-1
   models at every step (`gracr.explainers.randomisation`, cascading and independent),
   and the fully randomised cascading copy of every other trained model (the grid over
   seeds × ratios).
   Training records and linear probes go to `training.jsonl` and `probes.jsonl` (the
   compiled model's probe reads its last hidden state, beside its fully randomised copy).
   With more than one worker (`--jobs`), the models train in a process pool.
4. **explain** (`DIR/attributions/results.jsonl`): every job goes through
   `gracr.bench.runner.run` (process pool or Ray), unscored (`Job.scored=False`: the
   records keep the raw node scores; explained whatever the model predicts, both
   classes): the explainers on every model (IG-mean on the trained ones only),
   AttentionRollout on the GATv2 models, the six
   model-free baselines once (on the compiled model's subject; they read no model), and
   GNNExplainer at each epoch budget on the models and their fully randomised copies.
5. **report** (`gracr.domains.tissue.study_report.write_report`, every run): the
   metrics, class-stratified, beside the note's numbers; tables in `DIR/tables/`,
   figures in `DIR/figures/`.

Its size (800–900 lines) is the four phases and the checks that let each resume from what
is complete (whole files validated on read, logs whose cut last line is dropped), over
the graph models' ratios, the CNN's image view and the randomisation grid, the pool
that trains the models with the same resume rules, and the guard that retrains a model
made with other settings without losing the records made on it.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import numpy as np

from gracr.explainers import explainer_named, settings_for, settings_hash
from gracr.bench.runner import Job
from gracr.data.graph import Graph
from gracr.dsl.parse import parse
from gracr.data.generators import SEED_LIMIT
from gracr.errors import GracrError
from gracr.executor.model import load
from gracr.files import append_lines, atomic_writer, read_json_lines, write_json, write_text
from gracr.domains.tissue.baselines import BASELINE_NAMES
from gracr.domains.tissue.dataset import DATASET_FILES, TASK_FILE, write_dataset
from gracr.domains.tissue.generator import TissueSettings, check_dataset_options, generate_dataset
from gracr.domains.tissue.radius import GRAPH_RADIUS_RATIOS
from gracr.domains.tissue.study_names import ATTRIBUTIONS, EXPLAINERS, REPLACED_FILE
from gracr.domains.tissue.table import CellTable
from gracr.domains.tissue.trained import ModelSettings, TrainingSettings

ROLLOUT = "AttentionRollout"
IG_MEAN = "IG-mean"
ARCHITECTURES: tuple[str, ...] = ("GIN", "GATv2")
COMPILED = "compiled"
MODES: tuple[Literal["cascading", "independent"], ...] = ("cascading", "independent")
SPLIT = (0.6, 0.2)   # train, validation; the rest is the test split


@dataclass(frozen=True)
class StudySettings:
    """What one study runs: the dataset (`samples` of ≈ `cells` cells, `seed`), the
    trained models (`model_seeds` at every one of the `ratios`), the
    explained test samples (`test_limit` per class), the explainers and GNNExplainer's
    epoch budgets, the CPU budget per explanation and the training settings."""

    samples: int = 100
    cells: int = 300
    seed: int = 0
    ratios: tuple[float, ...] = GRAPH_RADIUS_RATIOS
    model_seeds: tuple[int, ...] = (0, 1, 2)
    test_limit: int = 10
    explainers: tuple[str, ...] = EXPLAINERS
    epochs: tuple[int, ...] = (30, 100, 200, 400)
    budget: float = 180.0
    hidden: int = 64
    layers: int = 2
    training: TrainingSettings = field(default_factory=TrainingSettings)

    def __post_init__(self) -> None:
        if self.samples < 10:
            raise GracrError(f"the study needs at least 10 samples (a test split of both "
                             f"classes), got {self.samples}")
        if 1.0 not in self.ratios or any(r < 1.0 for r in self.ratios):
            raise GracrError(f"the ratios must include 1 and be at least 1, got "
                             f"{list(self.ratios)}")
        if not self.model_seeds or self.test_limit < 1:
            raise GracrError("the study needs a model seed and a test limit of at least 1")
        check_dataset_options(self.cells, self.seed, option="the study's ",
                              samples=self.samples, ratios=self.ratios)
        for seed in self.model_seeds:
            if not 0 <= seed < SEED_LIMIT:
                raise GracrError(f"a model seed must lie in [0, 2**32), got {seed}")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratios": list(self.ratios),
                "model_seeds": list(self.model_seeds), "explainers": list(self.explainers),
                "epochs": list(self.epochs)}

    @classmethod
    def from_json(cls, obj: Any, place: str) -> StudySettings:
        """The settings `to_json` wrote; `GracrError` naming `place` for anything else."""
        try:
            if not isinstance(obj, dict) or not isinstance(obj.get("training"), dict):
                raise TypeError("not an object with a 'training' object")
            return cls(**{**obj, "training": TrainingSettings(**obj["training"]),
                          **{key: tuple(obj[key]) for key in ("ratios", "model_seeds",
                                                              "explainers", "epochs")}})
        except (TypeError, ValueError, KeyError) as error:
            raise GracrError(f"{place}: not a tissue study's settings ({error})") from None


# The CNN's view of the test samples (`gracr.domains.tissue.image`), keyed beside the
# radius ratios (which are at least 1) in `StudyData.test_tasks` and `ModelFile.ratio`.
IMAGE = 0.0
CNN = "CNN"
CNN_HIDDEN, CNN_LAYERS = 32, 2
# 10 µm pixels (and Adam at 1e-3, `trained.LEARNING_RATES`): the label radius (30 µm) is
# 3 pixels, well inside the last block's reach (±6 pixels); at 5 µm it is 6, at the edge
# of it. Measured over 40 epochs on 600 samples (`benchmarks/tissue_training.py`, the
# command in its docstring; docs/results/tissue/scale/cnn-settings.md): at 5 µm and 1e-2
# the output went constant (best epoch 2, test AUC 0.43), 5 µm at 1e-3 0.57, 10 µm at
# 1e-2 0.56, 10 µm at 1e-3 0.95. The tissue note states neither.
CNN_PIXEL_UM = 10.0


def ratio_name(ratio: float) -> str:
    """`r1`, `r1.5`; `image` for the CNN's view."""
    return "image" if ratio == IMAGE else f"r{ratio:g}"


def views(settings: StudySettings) -> tuple[float, ...]:
    """The test task files phase 1 writes: one per radius ratio, and the image view."""
    return (*settings.ratios, IMAGE)


def trained_name(architecture: str, ratio: float, seed: int, control: str = "") -> str:
    """`GIN-r1-s0`, `GATv2-r1.5-s0`, `GIN-r1-s0-shuffled`, `GIN-r1-s0-untrained`."""
    return f"{architecture}-{ratio_name(ratio)}-s{seed}" + (f"-{control}" if control else "")


# A trained model's name begins with its architecture and view (`GIN-r1.5`, `CNN-image`),
# which is also its family's name (`model_family`).
_FAMILY = r"^(?P<architecture>[A-Za-z0-9]+)-(?P<ratio>r[0-9.]+|image)"
_TRAINED_NAME = re.compile(_FAMILY + r"-s(?P<seed>[0-9]+)(?:-(?P<control>[a-z]+))?$")


def _name_ratio(text: str) -> float:
    """A model name's ratio part (`r1.5`, `image`) as the key `ratio_name` spells."""
    return IMAGE if text == "image" else float(text[1:])


def name_architecture(name: str) -> str | None:
    """The architecture a trained model's name (or its family's) begins with: `GIN-r1-s0`,
    `GIN-r1` → `GIN`, `CNN-image` → `CNN`; None for a name `trained_name` did not make."""
    match = re.match(_FAMILY + r"(?:-|$)", name)
    return None if match is None else match["architecture"]


def model_family(name: str) -> tuple[str, int | None]:
    """A model name without its training seed, and the seed: `GIN-r1-s2` →
    (`GIN-r1`, 2), `GIN-r1-s0-shuffled` → (`GIN-r1-shuffled`, 0); a name `trained_name`
    did not make (`compiled`) is its own family, with no seed."""
    match = _TRAINED_NAME.match(name)
    if match is None:
        return name, None
    control = match["control"]
    return (f"{match['architecture']}-{match['ratio']}" + (f"-{control}" if control else ""),
            int(match["seed"]))


def control_of(name: str) -> str | None:
    """What kind of model `name` is: "" a trained model, "shuffled" or "untrained" one of
    its controls, `None` a model `trained_name` did not make (the compiled one)."""
    match = _TRAINED_NAME.match(name)
    return None if match is None else (match["control"] or "")


def randomised_name(base: str, variant: str, mode: str) -> str:
    """`GIN-r1-s0~cascading~top-2`: a randomised copy of `base`."""
    return f"{base}~{mode}~{variant}"


@dataclass(frozen=True)
class StudyData:
    """The split (indices into `tables`), θ, and each ratio's test task file."""

    tables: tuple[CellTable, ...]
    theta: float
    train: tuple[int, ...]
    validation: tuple[int, ...]
    test: tuple[int, ...]
    test_tasks: dict[float, Path]

    @property
    def positive_share(self) -> float:
        """The test split's share of positive samples (the class balance the pooled,
        balanced summaries weigh by)."""
        from gracr.domains.tissue.radius import recompute_label

        labels = [recompute_label(self.tables[i], self.theta) for i in self.test]
        return sum(labels) / max(len(labels), 1)


def prepare_data(folder: Path, settings: StudySettings) -> StudyData:
    """Phase 1 (read back when already written with the same settings). The tables are
    a function of the settings, so a damaged `split.json` or `cells.jsonl` is said and
    the phase redone; the split is written last: on disk, it says the tables are too."""
    data = folder / "data"
    cells = data / "cells.jsonl"
    split_file = data / "split.json"
    read = _read_data(cells, split_file, settings) if split_file.exists() else None
    if read is None:
        rng = np.random.default_rng([settings.seed, 0x7155])
        generated, theta = generate_dataset(rng, TissueSettings.for_cells(settings.cells),
                                            settings.samples)
        order = np.random.default_rng([settings.seed, 0x5e1]).permutation(len(generated))
        cut_train = int(round(SPLIT[0] * len(generated)))
        cut_validation = cut_train + int(round(SPLIT[1] * len(generated)))
        data.mkdir(parents=True, exist_ok=True)
        with atomic_writer(cells) as out:
            for table in generated:
                out.write(json.dumps(table.to_json(), separators=(",", ":")) + "\n")
        split: dict[str, Any] = {
            "theta": theta, "train": sorted(order[:cut_train].tolist()),
            "validation": sorted(order[cut_train:cut_validation].tolist()),
            "test": sorted(order[cut_validation:].tolist())}
        write_json(split_file, split)
        read = tuple(generated), split
    tables, split = read
    theta = float(split["theta"])
    test = tuple(int(i) for i in split["test"])
    tasks = {}
    for ratio in views(settings):
        task_folder = data / ratio_name(ratio)
        task_file = task_folder / TASK_FILE
        # `write_dataset` writes the task file last, each file whole.
        if not all((task_folder / name).exists() for name in DATASET_FILES):
            from gracr.domains.tissue.image import image_graph_json

            write_dataset(task_folder, [tables[i] for i in test], theta,
                          1.0 if ratio == IMAGE else ratio,
                          name=f"Tissue-{settings.seed}-{ratio_name(ratio)}-test",
                          view=image_graph_json if ratio == IMAGE else None)
        tasks[ratio] = task_file
    return StudyData(tables, theta, tuple(int(i) for i in split["train"]),
                     tuple(int(i) for i in split["validation"]), test, tasks)


def _read_data(cells: Path, split_file: Path, settings: StudySettings
               ) -> tuple[tuple[CellTable, ...], dict[str, Any]] | None:
    """Phase 1's tables and split, or None (said on stderr) when either file is not what
    phase 1 writes for `settings`."""
    try:
        split = json.loads(split_file.read_text(encoding="utf-8"))
        parts = [split["train"], split["validation"], split["test"]]
        indices = sorted(int(i) for part in parts for i in part)
        if indices != list(range(settings.samples)) or not math.isfinite(float(split["theta"])):
            raise ValueError("not a split of the samples")
    except (OSError, ValueError, KeyError, TypeError) as error:
        _say_redone(split_file, error)
        return None
    try:
        lines = cells.read_text(encoding="utf-8").splitlines()
        tables = tuple(CellTable.from_json(json.loads(line)) for line in lines)
        if len(tables) != settings.samples:
            raise ValueError(f"{len(tables)} cell tables, not {settings.samples}")
    except (OSError, ValueError, KeyError, TypeError) as error:
        _say_redone(cells, error)
        return None
    return tables, split


def _say_redone(path: Path, error: BaseException, what: str = "the data") -> None:
    if isinstance(error, GracrError):   # its message names the file
        problem = str(error)
    else:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        problem = f"{path}: damaged ({reason})"
    print(f"gracrc: {problem}; making {what} again", file=sys.stderr)


# ---------------------------------------------------------------- truth


def explained_positions(data: StudyData, limit: int) -> list[int]:
    """The test positions the runner explains: the first `limit` positive and the first
    `limit` negative test samples (its positive and negative instances, in order)."""
    from gracr.domains.tissue.radius import recompute_label

    labels = [recompute_label(data.tables[i], data.theta) for i in data.test]
    positives = [p for p, label in enumerate(labels) if label][:limit]
    negatives = [p for p, label in enumerate(labels) if not label][:limit]
    return sorted(positives + negatives)


TRUTH_KEYS = ("sample", "table", "counterfactual", "banzhaf", "shapley")


def read_truth(folder: Path) -> dict[int, dict[str, Any]]:
    """The ground truth computed so far, by test position (a last line cut by a crash is
    dropped, and its sample computed again)."""
    path = folder / "truth.jsonl"
    records = read_jsonl(path)
    for record in records:
        if not all(key in record for key in TRUTH_KEYS) or not isinstance(record["sample"], int):
            raise GracrError(f"{path}: a line that is not a ground-truth record; the file is "
                             f"damaged (remove it to compute the ground truth again)")
    return {record["sample"]: record for record in records}


def prepare_truth(folder: Path, data: StudyData, positions: Sequence[int],
                  progress: Callable[[str], None]) -> dict[int, dict[str, Any]]:
    """Phase 2: one JSON line per explained test sample (`positions`): its relevance
    record."""
    from gracr.bdd.relevance import relevance, relevance_record
    from gracr.domains.tissue.dataset import graph_json, tissue_program

    done = read_truth(folder)
    program = parse(tissue_program(data.theta))
    for count, position in enumerate(positions, start=1):
        if position in done:
            continue
        table = data.tables[data.test[position]]
        graph = Graph.from_json(graph_json(table, data.theta, 1.0),
                                      schema=program.schema)
        record = {"sample": position, "table": data.test[position],
                  **relevance_record(relevance(program, graph))}
        append_lines(folder / "truth.jsonl", [json.dumps(record, separators=(",", ":"))])
        done[position] = record
        progress(f"ground truth {count}/{len(positions)} "
                 f"({record['diagram']}, Shapley {record['shapley_method']})")
    return done


# ---------------------------------------------------------------- models


@dataclass(frozen=True)
class ModelFile:
    """One explained model: its name (the records' variant), file, graph radius ratio,
    and, for a randomised copy, the model it copies and how (`mode`, `variant`)."""

    name: str
    path: Path
    ratio: float
    base: str | None = None
    mode: str | None = None
    variant: str | None = None
    architecture: str = COMPILED


def trained_models(settings: StudySettings) -> list[tuple[str, float, int, str]]:
    """The trained models, in the order they are made: (architecture, ratio, training
    seed, control) — every seed at ratio 1, then every seed at each other ratio (every
    ratio has as many training seeds), then the first seed's shuffled-label and untrained
    controls (ratio 1)."""
    first = settings.model_seeds[0]
    wanted: list[tuple[str, float, int, str]] = []
    for architecture in ARCHITECTURES:
        wanted += [(architecture, ratio, seed, "")
                   for ratio in sorted(settings.ratios, key=lambda r: (r != 1.0, r))
                   for seed in settings.model_seeds]
        wanted += [(architecture, 1.0, first, "shuffled"), (architecture, 1.0, first,
                                                           "untrained")]
    return wanted + [(CNN, IMAGE, seed, "") for seed in settings.model_seeds]


def randomised_bases(settings: StudySettings) -> tuple[str, ...]:
    """The models whose randomised copies are explained at every step (`MODES`, each
    layer): the compiled one and the first seed's ratio-1 trained ones."""
    first = settings.model_seeds[0]
    return (COMPILED, *(trained_name(a, 1.0, first) for a in ARCHITECTURES))


def randomisation_grid(settings: StudySettings) -> tuple[str, ...]:
    """The other trained models (every training seed at every ratio, controls aside): of
    each, only the fully randomised cascading copy is made and explained, the control the
    note reports over architectures, radii and seeds."""
    ladders = set(randomised_bases(settings))
    return tuple(name for name in (trained_name(a, r, s) for a, r, s, c
                                   in trained_models(settings) if c == "" and a != CNN)
                 if name not in ladders)


Mode = Literal["cascading", "independent"]


def randomised_sets(settings: StudySettings) -> list[tuple[str, Mode]]:
    """(base, mode) of every names file phase 3 writes: both modes of the ladders
    (`randomised_bases`), the cascading mode of the grid (`randomisation_grid`)."""
    return ([(base, mode) for base in randomised_bases(settings) for mode in MODES]
            + [(base, MODES[0]) for base in randomisation_grid(settings)])


def model_files(folder: Path, settings: StudySettings) -> list[ModelFile]:
    """Every explained model of phase 3: the compiled one, the trained ones
    (`trained_models`), then the randomised copies its names files list."""
    models = folder / "models"
    files = [ModelFile(COMPILED, models / f"{COMPILED}.npz", 1.0)]
    for architecture, ratio, seed, control in trained_models(settings):
        name = trained_name(architecture, ratio, seed, control)
        files.append(ModelFile(name, models / f"{name}.json", ratio,
                               architecture=architecture))
    return files + _randomised_files(folder)


def models_complete(folder: Path, settings: StudySettings) -> bool:
    """Whether phase 3 has nothing left to make: every trained model logged in
    `training.jsonl`, the compiled model and every model without a control probed, every
    randomised copy listed, and every model file loading (a damaged one is made again)."""
    from gracr.bench.models import load_model_file
    from gracr.domains.tissue.trained import load_model

    models = folder / "models"

    def logged(name: str) -> dict[Any, dict[str, Any]]:
        # Quietly: a cut last line is said by the phase that makes its record again.
        records, _ = read_json_lines(models / name)
        return {record.get("model"): record
                for record in latest_by_model([r for r in records if isinstance(r, dict)])}

    trained, probed = logged("training.jsonl"), logged("probes.jsonl")
    if COMPILED not in probed or not all(
            trained_name(a, r, s, c) in trained and (c != "" or trained_name(a, r, s) in probed)
            for a, r, s, c in trained_models(settings)):
        return False
    if not all((models / "randomised" / f"{base}~{mode}.names").exists()
               for base, mode in randomised_sets(settings)):
        return False
    for file in model_files(folder, settings):
        learned = file.architecture != COMPILED and file.base is None
        try:
            model = load_model(file.path) if learned else load_model_file(file.path)
        except (GracrError, ValueError, OSError):
            return False
        if learned and other_settings(model, file.architecture, settings,
                                      trained[file.name]):
            return False
    return True


def prepare_models(folder: Path, settings: StudySettings, data: StudyData,
                   progress: Callable[[str], None], workers: int = 1,
                   replace_stale: bool = False) -> None:
    """Phase 3: every model file (`model_files`), training and probing what is not
    there yet, `workers` models at a time (`make_model`; more than one: in a process
    pool, each worker reading the data back from the folder).

    A trained model is done when its files load, its line is in `training.jsonl` and
    (models without a control) its probe in `probes.jsonl`: each is written after the
    one before, so a run stopped between them resumes at the first one missing. A model
    file that does not load is said and the model trained again; so is one made with
    other settings (`other_settings`), unless the folder holds explanations of it
    (`GracrError`), which `replace_stale` sets aside first (`set_aside_explained`)."""
    from gracr.explainers.randomisation import randomisation_variants
    from gracr.executor.model import compile_program
    from gracr.domains.tissue.dataset import tissue_program
    from gracr.domains.tissue.trained import load_model, save_model

    models = folder / "models"
    models.mkdir(parents=True, exist_ok=True)
    compiled_path = models / f"{COMPILED}.npz"
    if _loaded(compiled_path, lambda: load(str(compiled_path)), "the compiled model") is None:
        compile_program(parse(tissue_program(data.theta)),
                        presence=True).save(str(compiled_path))

    training_log = models / "training.jsonl"
    probe_log = models / "probes.jsonl"
    trained_done = {record.get("model"): record
                    for record in latest_by_model(read_jsonl(training_log))}
    probed = {record.get("model") for record in read_jsonl(probe_log)}
    todo: list[tuple[tuple[str, float, int, str], bool]] = []
    stale: list[str] = []
    for wanted in trained_models(settings):
        name = trained_name(*wanted)
        path = models / f"{name}.json"
        model = (_loaded(path, lambda: load_model(path), "the model")
                 if name in trained_done else None)
        differ = ("" if model is None
                  else other_settings(model, wanted[0], settings, trained_done[name]))
        if differ:
            print(f"gracrc: {path}: made with other settings ({differ}); training it again",
                  file=sys.stderr)
            stale.append(name)
        made = model is not None and not differ
        if not made or (wanted[3] == "" and name not in probed):
            todo.append((wanted, made))
    set_aside_explained(folder, stale, replace_stale)

    def written(lines: tuple[dict[str, Any] | None, dict[str, Any] | None]) -> None:
        # The training line first, then the probe: each says the one before is on disk.
        record, probe = lines
        if record is not None:
            append_lines(training_log, [json.dumps(record)])
        if probe is not None:
            append_lines(probe_log, [json.dumps(probe)])

    if workers <= 1 or len(todo) <= 1:
        graphs: dict[float, Any] = {}
        for wanted, made in todo:
            progress(f"{'probing' if made else 'training'} {trained_name(*wanted)}")
            written(make_model(folder, settings, data, wanted, made, graphs))
    else:
        _make_models_in_pool(folder, settings, todo, workers, progress, written)

    retrained = {trained_name(*wanted) for wanted, made in todo if not made}
    random_folder = models / "randomised"
    random_folder.mkdir(exist_ok=True)
    ladders = set(randomised_bases(settings))
    for base, mode in randomised_sets(settings):
        names = random_folder / f"{base}~{mode}.names"
        # A model trained in this run (again, or anew) gets new copies: old ones were
        # made from the weights it replaces.
        if names.exists() and base not in retrained and _copies_load(folder, base, mode):
            continue
        progress(f"randomising {base} ({mode})")
        source: Any = (load(str(compiled_path)) if base == COMPILED
                       else load_model(models / f"{base}.json"))
        variants = randomisation_variants(source, mode, settings.seed)
        if base not in ladders:
            variants = variants[-1:]   # the grid: the fully randomised copy only
        for variant, copy in variants:
            path = random_folder / randomised_name(base, variant, mode)
            if base == COMPILED:
                copy.save(f"{path}.npz")
            else:
                save_model(copy, path)
        # Written last: a names file says every copy it lists is on disk.
        write_text(names, "".join(f"{v}\n" for v, _ in variants))
    if COMPILED not in probed:
        progress("probing the compiled model")
        probe = _compiled_probe(folder, data, compiled_path)
        append_lines(probe_log, [json.dumps(probe)])


def model_settings_for(architecture: str, settings: StudySettings) -> ModelSettings:
    """The `ModelSettings` of the study's models of `architecture` (GIN, GATv2 or CNN)."""
    if architecture == CNN:
        return ModelSettings(architecture="cnn", hidden=CNN_HIDDEN, layers=CNN_LAYERS,
                             pixel_um=CNN_PIXEL_UM,
                             side_um=TissueSettings.for_cells(settings.cells).side_um)
    return ModelSettings(architecture=architecture.lower(), hidden=settings.hidden,
                         layers=settings.layers)


def other_settings(model: Any, architecture: str, settings: StudySettings,
                   line: dict[str, Any]) -> str:
    """How the settings `model` was made with (its `ModelSettings`, and the learning rate
    its training line `line` gives) differ from those the study makes its
    `architecture`'s models with ("" when they do not): a model of an earlier design
    (e.g. unpacked from an older archive) is trained again, never used."""
    from gracr.domains.tissue.trained import other_learning_rate

    wanted = model_settings_for(architecture, settings)
    differ = [f"{key} {getattr(model.settings, key)!r}, not {value!r}"
              for key, value in asdict(wanted).items() if getattr(model.settings, key) != value]
    if not line.get("untrained"):
        differ.append(other_learning_rate(line, wanted.architecture, settings.training))
    return ", ".join(part for part in differ if part)


def checkpoint_path(folder: Path, name: str) -> Path:
    """Where phase 3 keeps model `name`'s training checkpoint (`train_model`) while it
    trains: outside `models/`, which the study archive copies whole, because it changes
    every minute and is gone once the model is saved."""
    return folder / "checkpoints" / f"{name}.pt"


def make_model(folder: Path, settings: StudySettings, data: StudyData,
               wanted: tuple[str, float, int, str], made: bool, graphs: dict[float, Any]
               ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """One trained model of phase 3 (`wanted`: architecture, ratio, seed, control):
    trained (unless `made`: its file is there and logged) and saved, and probed (models
    without a control). Returns its training line (None when `made`) and its probe line
    (None for a control); `graphs` caches each ratio's splits between calls."""
    from gracr.domains.tissue.image import image_graphs
    from gracr.domains.tissue.probes import linear_probe
    from gracr.domains.tissue.trained import (Splits, build_model, load_model, save_model,
                                              tissue_graphs, train_model, training_for)

    architecture, ratio, seed, control = wanted
    name = trained_name(*wanted)
    path = folder / "models" / f"{name}.json"
    if ratio not in graphs:
        made_graphs = (image_graphs(data.tables, data.theta) if ratio == IMAGE
                       else tissue_graphs(data.tables, data.theta, ratio))
        graphs[ratio] = Splits(train=[made_graphs[i] for i in data.train],
                               validation=[made_graphs[i] for i in data.validation],
                               test=[made_graphs[i] for i in data.test])
    splits = graphs[ratio]
    model_settings = model_settings_for(architecture, settings)
    record: dict[str, Any] | None = None
    if made:
        model = load_model(path)
    elif control == "untrained":
        model = build_model(model_settings, seed)
        record = {"model": name, "untrained": True}
    else:
        training = training_for(model_settings.architecture,
                                replace(settings.training, seed=seed,
                                        shuffle_labels=control == "shuffled"))
        model, trained = train_model(model_settings, splits, training,
                                     checkpoint=checkpoint_path(folder, name))
        record = {"model": name, **asdict(trained)}
    if record is not None:
        save_model(model, path)
        # Only now: until the model is on disk, its checkpoint is what a stopped run has.
        checkpoint_path(folder, name).unlink(missing_ok=True)
    if control != "":
        return record, None
    random_init = build_model(model_settings, seed + 10_000)
    return record, {"model": name, "trained": linear_probe(model, splits.train, splits.test),
                    "random_init": linear_probe(random_init, splits.train, splits.test)}


def _make_model_in_worker(folder: Path, settings: StudySettings,
                          wanted: tuple[str, float, int, str], made: bool
                          ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    import torch

    torch.set_num_threads(1)   # one core per worker: the pool is the parallelism
    return make_model(folder, settings, prepare_data(folder, settings), wanted, made, {})


def _make_models_in_pool(folder: Path, settings: StudySettings,
                         todo: Sequence[tuple[tuple[str, float, int, str], bool]],
                         workers: int, progress: Callable[[str], None],
                         written: Callable[[tuple[dict[str, Any] | None,
                                                  dict[str, Any] | None]], None]) -> None:
    """`make_model` over `todo` in a pool of `workers` processes, each result's lines
    written as it comes (a run stopped loses the models in flight only)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    context = multiprocessing.get_context("spawn")   # torch and fork do not mix
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(_make_model_in_worker, folder, settings, wanted, made):
                   trained_name(*wanted) for wanted, made in todo}
        progress(f"training and probing {len(futures)} models, {workers} at a time")
        for future in as_completed(futures):
            written(future.result())
            progress(f"{futures[future]} done")


def set_aside_explained(folder: Path, stale: Sequence[str], replace_stale: bool) -> None:
    """The records of the models in `stale` (made with other settings) and of their
    randomised copies, made on models about to be replaced: `GracrError` naming them,
    or with `replace_stale`, moved to `attributions/REPLACED_FILE` (appended there
    first, then the results file rewritten without them: a crash between the two leaves
    them in both, and a rerun moves them again)."""
    from gracr.bench.record import RESULTS_FILE, append_records, header, read_records

    results = folder / ATTRIBUTIONS / RESULTS_FILE
    if not stale or not results.exists():
        return

    def replaced(variant: str) -> bool:
        return any(variant == name or variant.startswith(f"{name}~") for name in stale)

    records = list(read_records(results))
    moved = [record for record in records if replaced(record.variant)]
    hit = sorted({record.variant.split("~")[0] for record in moved})
    if not moved:
        return
    if not replace_stale:
        raise GracrError(f"{results}: holds explanations of {', '.join(hit)} or of their "
                         f"randomised copies ({len(moved)} records), whose model files were "
                         "made with other settings than this study's; they cannot be trained "
                         "again under those records: run again with --replace-stale to move "
                         f"them to {REPLACED_FILE} beside it, or use a new folder")
    aside = results.parent / REPLACED_FILE
    append_records(aside, moved)
    with atomic_writer(results) as kept:
        kept.write(json.dumps(header(), separators=(",", ":")) + "\n")
        for record in records:
            if not replaced(record.variant):
                kept.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
    print(f"gracrc: {results}: the explanations of {', '.join(hit)} and their copies "
          f"({len(moved)} records) moved to {aside}; training them again", file=sys.stderr)


def _loaded(path: Path, load_file: Callable[[], Any], what: str) -> Any:
    """What `load_file` reads from `path`, or None: the file is not there, or it is
    damaged (said on stderr), and the caller makes it again."""
    if not path.exists():
        return None
    try:
        return load_file()
    except (GracrError, ValueError, OSError) as error:
        _say_redone(path, error, what)
        return None


def _copies_load(folder: Path, base: str, mode: str) -> bool:
    """Whether the names file of `base`'s randomised copies (`mode`) lists copies and
    every one of them loads (a damaged one is said on stderr)."""
    from gracr.bench.models import load_model_file

    copies = [file.path for file in _randomised_files(folder)
              if file.base == base and file.mode == mode]
    return bool(copies) and all(
        _loaded(path, lambda: load_model_file(path), "the randomised copies") is not None
        for path in copies)


def _compiled_probe(folder: Path, data: StudyData, compiled_path: Path) -> dict[str, Any]:
    """The linear probe of the engaged flag on the compiled network's last hidden state,
    and on its fully randomised cascading copy (the issue's rule) in the place of the
    trained models' random init."""
    from gracr.domains.tissue.dataset import graph_json, tissue_program
    from gracr.domains.tissue.probes import compiled_embeddings, embedding_probe
    from gracr.domains.tissue.trained import tissue_graphs

    schema = parse(tissue_program(data.theta)).schema
    flags = tissue_graphs(data.tables, data.theta, 1.0)
    graphs = [Graph.from_json(graph_json(table, data.theta, 1.0), schema=schema)
              for table in data.tables]
    train = [flags[i] for i in data.train]
    test = [flags[i] for i in data.test]

    def probe(path: Path) -> float:
        model = load(str(path))
        return embedding_probe(compiled_embeddings(model, [graphs[i] for i in data.train]),
                               train,
                               compiled_embeddings(model, [graphs[i] for i in data.test]),
                               test)

    top = _variant_names(folder, COMPILED, "cascading")[-1:]
    randomised = (folder / "models" / "randomised" /
                  f"{randomised_name(COMPILED, top[0], 'cascading')}.npz") if top else None
    return {"model": COMPILED, "trained": probe(compiled_path),
            "random_init": None if randomised is None else probe(randomised)}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of one of the study's append-only logs (none when it is not there
    yet). A last line cut by a crash is dropped, saying so on stderr: the phase that
    wrote it does its record again."""
    records, note = read_json_lines(path)
    if note is not None:
        print(f"gracrc: {note}", file=sys.stderr)
    if not all(isinstance(record, dict) for record in records):
        raise GracrError(f"{path}: a line that is not a JSON object; the file is damaged")
    return records


def latest_by_model(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per model, the last one written (a model made again after its file was
    found damaged has two), in the order the models first appear."""
    latest: dict[Any, dict[str, Any]] = {}
    for record in records:
        latest[record.get("model")] = record   # a dict keeps the key's first place
    return list(latest.values())


def _variant_names(folder: Path, base: str, mode: str) -> list[str]:
    names = folder / "models" / "randomised" / f"{base}~{mode}.names"
    if not names.exists():
        return []
    # A damaged names file names copies that are not there: `_copies_load` makes them.
    text = names.read_text(encoding="utf-8", errors="replace")
    return [line for line in text.splitlines() if line]


def _randomised_files(folder: Path) -> list[ModelFile]:
    files = []
    random_folder = folder / "models" / "randomised"
    for names in sorted(random_folder.glob("*.names")):
        base, mode = names.stem.split("~")
        architecture = COMPILED if base == COMPILED else base.split("-")[0]
        # A copy reads the graphs its base reads: the base's radius ratio.
        match = _TRAINED_NAME.match(base)
        ratio = 1.0 if match is None else _name_ratio(match["ratio"])
        for variant in _variant_names(folder, base, mode):
            name = randomised_name(base, variant, mode)
            path = random_folder / (f"{name}.npz" if base == COMPILED else f"{name}.json")
            files.append(ModelFile(name, path, ratio, base, mode, variant, architecture))
    return files


# ---------------------------------------------------------------- jobs


def study_jobs(settings: StudySettings, data: StudyData, models: Sequence[ModelFile],
               folder: Path, batch: int = 1) -> list[Job]:
    """Phase 4's jobs (see the module docstring), both classes each, explaining up to
    `batch` samples in one run where the explainer can (`Job.batch`: the same records,
    so a folder explained one at a time resumes in batches and the other way round)."""
    from gracr.bench.tasks import task_named

    store = str(folder / "store")
    jobs: list[Job] = []

    def add(model: ModelFile, explainer: str, overrides: dict[str, Any] | None = None) -> None:
        spec = explainer_named(explainer)
        chosen = settings_for(spec, overrides)
        task_file = data.test_tasks[model.ratio]
        task = task_named(str(task_file)).name
        for sample in ("positive", "negative"):
            jobs.append(Job(task, model.name, explainer, chosen, settings_hash(chosen),
                            settings.seed, settings.test_limit, settings.budget, None, store,
                            task_file=str(task_file), level="node", sample=sample,
                            model=str(model.path), scored=False, batch=batch))

    epochs_default = settings_for(explainer_named("GNNExplainer"), None)["epochs"]
    for model in models:
        for explainer in settings.explainers:
            # IG-mean's baseline is a marker vector: a compiled model also reads a
            # presence bit, whose IG baseline (0: the cell deleted) is IG's own.
            if not (explainer == IG_MEAN and model.architecture == COMPILED):
                add(model, explainer)
        if model.architecture == "GATv2":
            add(model, ROLLOUT)
        fully_randomised = model.mode == "cascading" and model.variant == _top(models, model)
        if "GNNExplainer" in settings.explainers and (model.base is None or fully_randomised) \
                and not model.name.endswith(("-shuffled", "-untrained")) and model.ratio == 1.0:
            for epochs in settings.epochs:
                if epochs != epochs_default:
                    add(model, "GNNExplainer", {"epochs": epochs})
    compiled = next(m for m in models if m.name == COMPILED)
    for baseline in BASELINE_NAMES:
        add(compiled, baseline)
    return jobs


def _top(models: Sequence[ModelFile], model: ModelFile) -> str | None:
    """The name of the cascading variant of `model.base` that randomises every layer."""
    steps = [m.variant for m in models if m.base == model.base and m.mode == "cascading"]
    return max(steps, key=lambda v: int(str(v).split("-")[-1])) if steps else None
