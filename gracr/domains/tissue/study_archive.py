"""Carry a tissue study's folder (`gracrc tissue-study --out DIR`) from one machine to the
next: `pack_study(DIR, ARCHIVE)` at the end of a session, `unpack_study(ARCHIVE, DIR)` on
the next machine before the study resumes (`scripts/tissue_archive.py`; the scale run's
archives are `runs/tissue/seedS/`, `runs/README.md`).

An archive is a folder holding what the study needs to resume and to report without
redoing finished work, every part append-only (`gracr.bench.archive`), so that version
control stores each once:

- `records/`: packs of the records of `DIR/attributions/results.jsonl`, each without its
  raw scores (`scores: null`, their digest in `scores_sha256`) once the report's row of
  metrics of those scores is kept (`gracr.domains.tissue.study_report.metric_rows`,
  which the pack runs first on the records not scored yet); the records of the samples
  the figures draw (`study_report.drawn_samples`) on models not randomised keep theirs,
  and so does a record without a row (of a model the settings no longer hold);
- `rows/`, `truth/`, `training/`, `probes/`: packs of the lines of `DIR/rows.jsonl` (the
  metric rows), `DIR/truth.jsonl` (the ground truth) and `DIR/models/training.jsonl` and
  `probes.jsonl` (the training and probe logs);
- `models/`: the model files (the compiled model, the trained ones, the randomised
  copies and their names files), each copied once: a file the archive holds is never
  rewritten;
- `data.sha256`: the checksum of every file of `DIR/data` (sha256sum's format). The data
  are a function of the settings, so they are not packed but made again on unpack (the
  study's data phase) and checked against these: other data (another generator, another
  numpy) are refused, since the records name samples by their place in the test split.
  An entry is never changed; more radius ratios add theirs.
- `settings.json`: the study's settings at the last pack.

An archive is an earlier state of its folder: a pack into an archive that holds records
the folder no longer has, or a model file the folder holds other bytes of (a model
trained again, `gracrc tissue-study --replace-stale`), is refused; the folder then packs
into a new archive.

Not packed: the runner's dataset store (made again from the task files) and the
report's outputs (tables, figures, `metrics.jsonl`: the study's report draws them again).

What stripping the scores costs: a randomised copy's row pairs its scores with its base
model's on the same instance, so a copy explained after its base's record came out of an
archive cannot be paired until that record is explained again
(`gracr.domains.tissue.study_pairs`, which the study runs on every resume).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path

from gracr.bench import archive as packs
from gracr.bench.record import RESULTS_FILE, Record, RecordKey, latest_records, read_records
from gracr.bench.study import SETTINGS_FILE, read_settings
from gracr.errors import GracrError
from gracr.files import write_bytes, write_text
from gracr.domains.tissue.phases import (StudySettings, model_files, prepare_data,
                                         read_truth)
from gracr.domains.tissue.study_names import ATTRIBUTIONS, REPLACED_FILE
from gracr.domains.tissue.study_report import (DIGEST, ROWS_FILE, drawn_samples,
                                               metric_rows, read_rows, scores_digest,
                                               test_graphs)

RECORDS, MODELS, FINGERPRINT = "records", "models", "data.sha256"
# Each archived log: its pack folder in the archive, its path in the study's folder.
LOGS = (("rows", ROWS_FILE), ("truth", "truth.jsonl"),
        ("training", "models/training.jsonl"), ("probes", "models/probes.jsonl"))
_LOG_PATHS = {path for _, path in LOGS}


@dataclass(frozen=True)
class Moved:
    """What a pack or an unpack moved: records, log lines and model files (unpack), or
    the files it wrote into the archive (pack)."""

    records: int = 0
    lines: int = 0
    models: int = 0
    written: tuple[Path, ...] = ()


def read_study_settings(path: Path) -> StudySettings:
    """A study's (or an archive's) settings file; `GracrError` naming it."""
    if not path.is_file():
        raise GracrError(f"{path}: not found (not a tissue study's folder or archive)")
    obj = read_settings(path, {"training": dict})
    if obj is None:
        raise GracrError(f"{path}: not a tissue study's settings (cut, not JSON, or without "
                         "its 'training' object)")
    return StudySettings.from_json(obj, str(path))


def fingerprint(folder: Path) -> dict[str, str]:
    """The sha256 of every file of `folder/data`, by its path in `folder`."""
    return {path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted((folder / "data").rglob("*")) if path.is_file()}


def read_fingerprint(path: Path) -> dict[str, str]:
    """`data.sha256` as `fingerprint` gives it (none when the file is missing)."""
    if not path.is_file():
        return {}
    found: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or not name:
            raise GracrError(f"{path}:{number}: not a line of sha256sum's format "
                             "(checksum, two spaces, file); take it again from version control")
        found[name] = digest
    return found


def _fingerprint_text(found: dict[str, str]) -> str:
    return "".join(f"{found[name]}  {name}\n" for name in sorted(found))


def _model_paths(models: Path) -> list[Path]:
    """The model files under `models` (the logs aside), in the order they are copied: each
    weights file before its settings file, the names files (which say their copies are on
    disk) last."""
    files = [path for path in models.rglob("*") if path.is_file()
             and f"{MODELS}/{path.relative_to(models).as_posix()}" not in _LOG_PATHS]
    return sorted(files, key=lambda p: (p.suffix == ".names", p.suffix == ".json", p))


def _copy_missing(source: Path, target: Path) -> list[Path]:
    """Copy every model file of `source` that `target` lacks; returns the copies."""
    copied = []
    for path in _model_paths(source):
        to = target / path.relative_to(source)
        if not to.exists():
            to.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(to, path.read_bytes())
            copied.append(to)
    return copied


def _refuse_replaced(root: Path, kept: Path, keys: set[RecordKey]) -> None:
    """`GracrError` when the archive is not an earlier state of the folder: it holds
    records the folder no longer has, or a model file the folder holds other bytes of (a
    model trained again, e.g. with `--replace-stale`). Packed on, it would bring the
    replaced records back, or keep the old model, on the next machine."""
    gone = [key for key in packs.archived(kept / RECORDS) if key not in keys]
    pairs = [(path, root / MODELS / path.relative_to(kept / MODELS))
             for path in _model_paths(kept / MODELS)]
    changed = [path for path, ours in pairs
               if ours.is_file() and ours.read_bytes() != path.read_bytes()]
    if gone or changed:
        what = (f"{len(gone)} records that {root / ATTRIBUTIONS / RESULTS_FILE} no longer "
                "holds" if gone else f"another {changed[0].name} than {root / MODELS}")
        raise GracrError(f"{kept}: holds {what} (models trained again, their records set "
                         "aside?): packed on, it would bring them back on unpack; pack "
                         "into a new, empty archive folder")


def pack_study(folder: str | Path, archive: str | Path) -> Moved:
    """Write into `archive` what `folder`'s study has that the archive lacks (the module
    docstring); the records' metric rows are computed first where missing. `GracrError`
    when the folder's data are not those the archive's fingerprint lists."""
    import gracr.domains.tissue.explainers  # noqa: F401  (the study's explainers' names)

    root, kept = Path(folder), Path(archive)
    settings = read_study_settings(root / SETTINGS_FILE)
    if not (root / "data" / "split.json").is_file():
        raise GracrError(f"{root / 'data'}: the study has no data yet; nothing to pack")
    data = prepare_data(root, settings)
    known, current = read_fingerprint(kept / FINGERPRINT), fingerprint(root)
    for name, digest in known.items():
        if current.get(name, digest) != digest:
            raise GracrError(f"{root / name}: not the file {kept / FINGERPRINT} lists (its "
                             "checksum differs): the archive holds another study's records; "
                             "pack into another archive")
    written: list[Path] = []
    kept.mkdir(parents=True, exist_ok=True)
    if {**known, **current} != known:
        write_text(kept / FINGERPRINT, _fingerprint_text({**known, **current}))
        written.append(kept / FINGERPRINT)

    models = {m.name: m for m in model_files(root, settings)}
    results = root / ATTRIBUTIONS / RESULTS_FILE
    latest = latest_records(read_records(results))[0] if results.is_file() else []
    _refuse_replaced(root, kept, {record.key for record in latest})
    truth = read_truth(root)
    metric_rows(root, [r for r in latest if r.status == "ok" and r.variant in models
                       and r.graph in truth], truth, data, models, test_graphs(data))
    rows, drawn = read_rows(root), set(drawn_samples(data))

    def stripped(record: Record) -> Record:
        model, digest = models.get(record.variant), scores_digest(record)
        if record.extra.get("scores") is None or record.key not in rows or (
                rows[record.key].get("digest") != digest) or (
                record.graph in drawn and model is not None and model.base is None):
            return record
        return replace(record, extra={**record.extra, "scores": None, DIGEST: digest})

    # The models before the logs that say they are made, the rows before the records.
    written += _copy_missing(root / MODELS, kept / MODELS)
    for name, path in LOGS:
        pack = packs.pack_lines(root / path, kept / name)
        written += [] if pack is None else [pack]
    if results.is_file():
        pack = packs.pack(results, kept / RECORDS, stripped)
        written += [] if pack is None else [pack]
    write_text(kept / SETTINGS_FILE, json.dumps(settings.to_json(), indent=1) + "\n")
    return Moved(written=tuple(written))


def unpack_study(archive: str | Path, folder: str | Path) -> Moved:
    """Restore `archive` into `folder` (made if missing): its settings claimed as the
    study's (a folder of another study is refused), the data made (the study's data
    phase) and checked against the archive's fingerprint (other data: `GracrError` naming
    the file), then the model files, the logs' lines and the records it lacks (but those
    the folder set aside, `gracrc tissue-study --replace-stale`: an archive packed before
    their models were trained again still holds them). A damaged pack (`GracrError`
    naming it) is found before anything is written. Run again, it adds nothing."""
    from gracr.domains.tissue.study import TissueStudy

    kept, root = Path(archive), Path(folder)
    settings = read_study_settings(kept / SETTINGS_FILE)
    known = read_fingerprint(kept / FINGERPRINT)
    if not known:
        raise GracrError(f"{kept / FINGERPRINT}: not found or empty (not a tissue study's "
                         "archive)")
    for name, _ in LOGS:   # every pack read whole first: a damaged one writes nothing
        packs.archived_lines(kept / name)
    packs.archived(kept / RECORDS)
    TissueStudy(root, settings).claim()
    prepare_data(root, settings)
    current = fingerprint(root)
    for name, digest in sorted(known.items()):
        if current.get(name) != digest:
            raise GracrError(f"{root / name}: not the data the archive's records were made "
                             f"on (its checksum is not the one {kept / FINGERPRINT} lists: "
                             "another generator or numpy); the archive is refused. Remove "
                             f"{root} and run the study from the start")
    models = len(_copy_missing(kept / MODELS, root / MODELS))
    lines = sum(packs.unpack_lines(kept / name, root / path) for name, path in LOGS)
    aside = root / ATTRIBUTIONS / REPLACED_FILE
    withdrawn = frozenset(r.key for r in read_records(aside)) if aside.is_file() else frozenset()
    records = packs.unpack(kept / RECORDS, root / ATTRIBUTIONS / RESULTS_FILE, withdrawn)
    return Moved(records=records, lines=lines, models=models)
