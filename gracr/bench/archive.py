"""Carry a results file's records from one machine to the next: an append-only archive.

A study that takes more CPU hours than a session has (the WOMBAT study at scale) runs in
parts, and a part may start on a machine that has none of the earlier parts' results
folder. The runner already resumes from the records it finds (`gracr.bench.runner`:
every key in the results file is skipped), so all a new machine needs is the records.

An archive is a folder of packs, `0001.jsonl.xz`, `0002.jsonl.xz`, ...: each an
xz-compressed results file (its header line, then records, one per line, as
`write_record` writes them). `pack` writes the next pack with the latest record of
every key that no earlier pack holds, or that it holds with other contents (an
instance explained again after an error); it never rewrites a pack, so a version
control system stores each only once. `unpack` appends to a results file the latest
archived record of every key the file does not have yet, so the run that follows skips
them. A record already in the file stays as it is: the file's own record is at least as
new as the archive's, since the archive was packed from some run's file.

The explainers' scores (`scores.jsonl`, for the HTML report's drawings) are not packed:
an unpacked record has metrics and no drawing colours, as the report allows. A study
whose records carry more than belongs in version control packs them through a
`transform` (the tissue study: each record without its raw scores, whose metrics it packs
beside them, `gracr.domains.tissue.study_archive`).

An append-only JSON-lines log (a ground-truth or training log) is archived the same way,
by line: `pack_lines` writes the next pack with the log's lines that no earlier pack
holds, `unpack_lines` appends to a log the archived lines it does not hold, in the order
they were packed (a log's readers take its last line per key as the latest).
"""

from __future__ import annotations

import json
import lzma
import os
import re
from pathlib import Path
from typing import Any, Callable

from gracr.bench.record import (HEADER_KEY, READABLE_VERSIONS, Record, RecordKey,
                                append_records, header, latest_records, read_records,
                                start_results)
from gracr.errors import GracrError
from gracr.files import append_lines, read_json_lines, write_bytes

PACK_SUFFIX = ".jsonl.xz"
_PACK_NAME = re.compile(r"^(\d{4,})\.jsonl\.xz$")


def _line(record: Record) -> str:
    return json.dumps(record.to_json(), separators=(",", ":"))


def packs(archive: str | os.PathLike[str]) -> list[Path]:
    """The packs of `archive` in the order they were written (none if it does not exist).
    `GracrError` for a file in it that looks like a pack but is not numbered as one."""
    folder = Path(archive)
    if not folder.is_dir():
        return []
    found: list[tuple[int, Path]] = []
    for path in folder.iterdir():
        if path.name.endswith(PACK_SUFFIX):
            match = _PACK_NAME.match(path.name)
            if match is None:
                raise GracrError(f"{path}: a pack's name is its number and {PACK_SUFFIX} "
                                 "(0001.jsonl.xz, ...)")
            found.append((int(match.group(1)), path))
    found.sort()
    if [number for number, _ in found] != list(range(1, len(found) + 1)):
        raise GracrError(f"{folder}: its packs are not numbered 1 to {len(found)} without a "
                         "gap (a pack is missing: take the folder again from version control)")
    return [path for _, path in found]


def _pack_lines(path: Path) -> list[tuple[str, Any]]:
    """Each line of the pack `path` as (its place, `file:line`, and its JSON value)."""
    try:
        text = lzma.decompress(path.read_bytes()).decode("utf-8")
    except (lzma.LZMAError, UnicodeDecodeError) as error:
        raise GracrError(f"{path}: not an xz-compressed pack of JSON lines ({error}); take "
                         "it again from version control") from None
    values: list[tuple[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        place = f"{path}:{number}"
        try:
            values.append((place, json.loads(line)))
        except json.JSONDecodeError as error:
            raise GracrError(f"{place}:{error.colno}: not JSON ({error.msg})") from None
    return values


def _pack_records(path: Path) -> list[Record]:
    records: list[Record] = []
    for place, obj in _pack_lines(path):
        if isinstance(obj, dict) and HEADER_KEY in obj:
            if obj[HEADER_KEY] not in READABLE_VERSIONS:
                raise GracrError(f"{place}: results version {obj[HEADER_KEY]!r} is not one "
                                 "this gracr reads")
            continue
        records.append(Record.from_json(obj, place))
    return records


def _write_pack(archive: str | os.PathLike[str], lines: list[str]) -> Path:
    """The next pack of `archive` (made if missing), holding `lines`."""
    folder = Path(archive)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{len(packs(folder)) + 1:04d}{PACK_SUFFIX}"
    text = "".join(f"{line}\n" for line in lines)
    write_bytes(target, lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    return target


def archived(archive: str | os.PathLike[str]) -> dict[RecordKey, Record]:
    """The latest archived record of every key (a later pack's record replaces an earlier
    one's)."""
    latest: dict[RecordKey, Record] = {}
    for path in packs(archive):
        for record in _pack_records(path):
            latest[record.key] = record
    return latest


def pack(results: str | os.PathLike[str], archive: str | os.PathLike[str],
         transform: Callable[[Record], Record] = lambda record: record) -> Path | None:
    """Write the next pack of `archive` with the records of `results` it lacks (see the
    module's docstring), each as `transform` makes it (the archived form is compared);
    returns its path, or None when the archive has them all."""
    kept = archived(archive)
    fresh = [packed for packed in map(transform, latest_records(read_records(results))[0])
             if packed.key not in kept or _line(kept[packed.key]) != _line(packed)]
    if not fresh:
        return None
    return _write_pack(archive, [json.dumps(header(), separators=(",", ":")),
                                 *(_line(record) for record in fresh)])


def unpack(archive: str | os.PathLike[str], results: str | os.PathLike[str],
           withdrawn: frozenset[RecordKey] = frozenset()) -> int:
    """Append to `results` (made, with its header, if missing) the archived records whose
    key it does not hold, but those `withdrawn` (records the study set aside: made on a
    model it has replaced since); returns how many."""
    kept = archived(archive)
    if not kept:
        return 0
    Path(results).parent.mkdir(parents=True, exist_ok=True)
    start_results(results)
    present = {record.key for record in read_records(results)} | withdrawn
    missing = [record for key, record in kept.items() if key not in present]
    append_records(results, missing)
    return len(missing)


def _canonical(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def archived_lines(archive: str | os.PathLike[str]) -> list[Any]:
    """The JSON values of every archived line of a log, in the order they were packed."""
    return [value for path in packs(archive) for _, value in _pack_lines(path)]


def pack_lines(log: str | os.PathLike[str], archive: str | os.PathLike[str]) -> Path | None:
    """Write the next pack of `archive` with the complete lines of the JSON-lines `log`
    that no earlier pack holds (compared as JSON, written compact); returns its path, or
    None when the archive has them all (or there is no log)."""
    kept = {_canonical(value) for value in archived_lines(archive)}
    values, _ = read_json_lines(log)
    fresh = list(dict.fromkeys(line for line in map(_canonical, values) if line not in kept))
    return _write_pack(archive, fresh) if fresh else None


def unpack_lines(archive: str | os.PathLike[str], log: str | os.PathLike[str]) -> int:
    """Append to `log` (made if missing) the archived lines it does not hold, in the order
    they were packed; returns how many."""
    values, _ = read_json_lines(log)
    present = {_canonical(value) for value in values}
    missing = list(dict.fromkeys(line for line in map(_canonical, archived_lines(archive))
                                 if line not in present))
    if missing:
        Path(log).parent.mkdir(parents=True, exist_ok=True)
        append_lines(log, missing)
    return len(missing)
