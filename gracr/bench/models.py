"""Model files the runner explains instead of compiling a variant (`Job.model`).

A compiled model file (`gracrc compile`'s `.npz`, `gracr.load`) is read as it is. A
trained model file is a pair `<stem>.json` (whose `"format"` names how to read it) and
whatever that format keeps beside it: a domain registers its format here
(`register_model_format`; the tissue study's GIN and GATv2 are `gracr-tissue-model`,
registered by `gracr.domains.tissue.trained`), and a format not registered yet is looked up
through the `gracr.explainers` entry points, as an explainer name is, so that every
worker process reads the same files. Nothing is unpickled: a format's reader decides how
its weights are read (the tissue models with `torch.load(weights_only=True)`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from gracr.explainers.base import TrainedModel
from gracr.errors import GracrError
from gracr.executor.model import CompiledGNN, load

ModelReader = Callable[[Path], TrainedModel]
MODEL_FORMATS: dict[str, ModelReader] = {}


def register_model_format(name: str, read: ModelReader) -> None:
    """Read trained model files whose JSON says `"format": name` with `read(stem)`."""
    MODEL_FORMATS[name] = read


def load_model_file(path: str | Path) -> CompiledGNN | TrainedModel:
    """The model in `path`: a compiled `.npz`, or a trained model file (its `.json`, or
    the stem they share)."""
    file = Path(path)
    if file.suffix == ".npz":
        return load(str(file))
    stem = file.with_suffix("") if file.suffix in (".json", ".pt") else file
    meta_path = stem.with_name(stem.name + ".json")   # a stem may hold dots (`GIN~convs.0`)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except OSError as error:
        raise GracrError(f"{meta_path}: cannot read the model file ({error.strerror})") \
            from None
    except json.JSONDecodeError as error:
        raise GracrError(f"{meta_path}:{error.lineno}:{error.colno}: not JSON "
                         f"({error.msg})") from None
    name = meta.get("format") if isinstance(meta, dict) else None
    if not isinstance(name, str):
        raise GracrError(f"{meta_path}: a model file names its \"format\"")
    if name not in MODEL_FORMATS:
        from gracr.explainers.plugins import load_entry_points

        load_entry_points()
    if name not in MODEL_FORMATS:
        raise GracrError(f"{meta_path}: no reader for model format '{name}' (the formats "
                         f"are {', '.join(MODEL_FORMATS) or 'none'}; a domain registers "
                         f"its own with gracr.bench.models.register_model_format)")
    try:
        return MODEL_FORMATS[name](stem)
    except GracrError:
        raise
    except Exception as error:  # a reader's failure, said with the file it read
        raise GracrError(f"{meta_path}: cannot read the {name} model "
                         f"({type(error).__name__}: {error})") from None
