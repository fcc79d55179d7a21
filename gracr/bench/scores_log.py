"""The explainers' scores of a results folder, beside its records: `scores.jsonl`.

A record (`gracr.bench.record`) carries an instance's metrics, not the explainer's scores
(one per edge, or per node at node level), which the HTML report colours its drawings
with. The runner appends them here, one line per scored record, before the record's own
line: `{"key": [task, variant, explainer, config_hash, level, sample, seed, instance],
"n": N, "f32": BASE64}`, the N scores as little-endian float32 (4 bytes a score, a third
more in base64: a 100-edge graph's line is about 650 bytes). Where most scores are 0 (a
node task's gradients vanish outside the target's receptive field) the line is sparse:
`"at"` holds the positions (little-endian uint32) of the scores `"f32"` holds, the others
being 0.

Lines are appended through `gracr.files.line_log` and read with
`gracr.files.read_json_lines` (a last line cut by a kill is dropped); of several lines with
one key the last one is the instance's, as for records. A folder written before this file
existed (or a run killed between the two lines) has records without scores: the report
draws those instances uncoloured. Unscored records (`Job.scored=False`, the tissue study)
keep their raw scores in the record itself (`Record.extra["scores"]`) and get no line here.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gracr.bench.record import Record, RecordKey
from gracr.errors import GracrError
from gracr.files import read_json_lines

SCORES_FILE = "scores.jsonl"


def scores_line(record: Record, scores: npt.ArrayLike) -> str:
    """The line of `record`'s explainer scores."""
    values = np.asarray(scores, dtype="<f4").reshape(-1)
    line: dict[str, Any] = {"key": list(record.key), "n": int(values.size)}
    at = np.flatnonzero(values)
    if 2 * at.size < values.size:
        line["at"] = _text(at.astype("<u4"))
        values = values[at]
    line["f32"] = _text(values)
    return json.dumps(line, separators=(",", ":"))


def _text(values: npt.NDArray[Any]) -> str:
    return base64.b64encode(values.tobytes()).decode("ascii")


def _decoded(obj: dict[str, Any], name: str, place: str) -> bytes:
    text = obj.get(name)
    if not isinstance(text, str):
        raise GracrError(f"{place}: '{name}' should be base64 text")
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise GracrError(f"{place}: '{name}' is not base64") from None


def _key(value: Any, place: str) -> RecordKey:
    texts, numbers = (value[:6], value[6:]) if isinstance(value, list) else ([], [])
    if not (isinstance(value, list) and len(value) == 8
            and all(isinstance(t, str) for t in texts)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in numbers)):
        raise GracrError(f"{place}: 'key' should be [task, variant, explainer, config_hash, "
                         "level, sample, seed, instance]")
    return (texts[0], texts[1], texts[2], texts[3], texts[4], texts[5], numbers[0], numbers[1])


def _scores(obj: dict[str, Any], place: str) -> npt.NDArray[np.float64]:
    count = obj.get("n")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise GracrError(f"{place}: 'n' should be a count")
    data = _decoded(obj, "f32", place)
    at = None
    if "at" in obj:
        positions = _decoded(obj, "at", place)
        at = np.frombuffer(positions, dtype="<u4").astype(np.int64)
        if len(positions) % 4 or np.any(at >= count) or np.any(np.diff(at) <= 0):
            raise GracrError(f"{place}: 'at' should hold increasing positions below {count}")
    stored = count if at is None else at.size
    if len(data) != 4 * stored:
        raise GracrError(f"{place}: 'f32' holds {len(data)} bytes, not the {4 * stored} of "
                         f"{stored} float32 scores")
    values = np.frombuffer(data, dtype="<f4").astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise GracrError(f"{place}: a score is not a finite number")
    if at is None:
        return values
    full = np.zeros(count, dtype=np.float64)
    full[at] = values
    return full


def read_scores(folder: str | os.PathLike[str]
                ) -> tuple[dict[RecordKey, npt.NDArray[np.float64]], str | None]:
    """The scores stored in `folder` (a results folder, or its `results.jsonl`), by record
    key, the last line of a key kept, and a note when the last line was cut (dropped). No
    file: none (a folder written before scores were stored). A line that is not one this
    module writes is a `GracrError` naming the file and line."""
    base = Path(folder)
    path = (base.parent if base.is_file() else base) / SCORES_FILE
    if not path.is_file():
        return {}, None
    values, note = read_json_lines(path)
    found: dict[RecordKey, npt.NDArray[np.float64]] = {}
    for number, obj in enumerate(values, start=1):
        place = f"{path}:{number}"
        if not isinstance(obj, dict):
            raise GracrError(f"{place}: not a JSON object")
        found[_key(obj.get("key"), place)] = _scores(obj, place)
    return found, note
