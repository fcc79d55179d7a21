"""Writing files so that no data is lost and nothing is replaced by surprise.

Every file gracr writes goes through here:

* **Only regular files are written.** An output path that names a folder, a device, a
  FIFO or a socket (or a symbolic link to one) is refused with a `GracrError` before
  anything is written, and never replaced: `os.replace` onto `/dev/full` would swap the
  device node for a regular file. A symbolic link to a regular file is followed: the
  file it points at is rewritten and the link is kept.
* **Whole files are written atomically**: into a temporary file beside the target
  (same folder, so the final `os.replace` is a rename on one file system), flushed and
  `fsync`ed, renamed onto the target, and the folder `fsync`ed, so that a run killed at
  any moment leaves the old file or the new one, never part of one. The temporary name
  holds the process id, so two processes writing the same file never share one.
* **Append-only logs** (`append_lines`) write whole lines and `fsync` them; their
  readers (`read_json_lines`) take only complete lines, so a line cut by a crash is
  reported and dropped, never parsed as data.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from gracr.errors import GracrError, os_error_message

PathLike = str | os.PathLike[str]

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def output_target(path: PathLike) -> Path:
    """The regular file that writing to `path` replaces: `path` itself, or the file a
    symbolic link at `path` points to. `GracrError` if `path` (or what a link at it points
    to) exists and is not a regular file, or the link points nowhere."""
    given = Path(path)
    try:
        info = os.stat(given)              # follows links
    except FileNotFoundError:
        if given.is_symlink():
            raise GracrError(f"{given}: a symbolic link to {os.readlink(given)}, which does "
                             "not exist; gracr writes only regular files") from None
        return given
    except OSError as error:
        raise GracrError(os_error_message(error, str(given))) from None
    for test, kind in _KINDS:
        if test(info.st_mode):
            link = " (through a symbolic link)" if given.is_symlink() else ""
            raise GracrError(f"{given}: is {kind}{link}, not a regular file; gracr writes "
                             "only regular files and never replaces anything else")
    return Path(os.path.realpath(given)) if given.is_symlink() else given


def _sync_folder(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk. Some file systems
    # refuse to open a folder for fsync; the rename has happened either way.
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextlib.contextmanager
def atomic_writer(path: PathLike, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A handle to write the whole of `path`; on a clean exit the text is flushed,
    `fsync`ed and renamed onto `path`, on an exception the temporary file is removed and
    `path` is left as it was. `GracrError` for a target that is not a regular file or a
    folder that cannot be written (naming what is wrong)."""
    target = output_target(path)
    folder = target.parent
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial",
                                                 dir=folder if str(folder) else ".")
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None
    try:
        handle: IO[Any] = (os.fdopen(descriptor, "wb") if binary else
                           os.fdopen(descriptor, "w", encoding="utf-8", newline=""))
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            # mkstemp makes the file private (0600); keep the mode of the file replaced.
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
        _sync_folder(target.parent)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise GracrError(os_error_message(error, str(path))) from None
        raise


def write_text(path: PathLike, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically (see `atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(text)


def write_bytes(path: PathLike, data: bytes) -> None:
    """Write `data` to `path` atomically (see `atomic_writer`)."""
    with atomic_writer(path, binary=True) as handle:
        handle.write(data)


def write_json(path: PathLike, value: Any) -> None:
    """Write `value` as indented JSON with a final newline, atomically."""
    write_text(path, json.dumps(value, indent=1) + "\n")


def _cut_torn_line(handle: IO[bytes], path: PathLike) -> None:
    """Cut a last line without its newline (a crash mid-append) off the log open in
    `handle` (binary, readable and writable), so that a new line never runs on from it."""
    size = handle.seek(0, os.SEEK_END)
    if size:
        handle.seek(max(0, size - 65536))
        tail = handle.read()
        if not tail.endswith(b"\n"):
            cut = tail.rfind(b"\n")
            keep = size - len(tail) + cut + 1 if cut >= 0 else (0 if size <= 65536 else None)
            if keep is None:
                raise GracrError(f"{path}: its last line is cut and longer than 64 KiB; "
                                 "the file is damaged")
            handle.truncate(keep)
            handle.seek(keep)


def append_lines(path: PathLike, lines: Iterable[str]) -> None:
    """Append whole lines (each given without its newline) to `path` and `fsync` them.

    A crash can cut only the last line of such a log; `read_json_lines` drops a last line
    without its newline, and this cuts it off before appending, so that a new line never
    runs on from a cut one."""
    target = output_target(path)
    text = "".join(f"{line}\n" for line in lines)
    try:
        with open(target, "a+b") as handle:
            _cut_torn_line(handle, path)
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None


@contextlib.contextmanager
def line_log(path: PathLike) -> Iterator[Callable[[str], None]]:
    """A log of `append_lines`' kind kept open for many lines, one at a time: yields a
    function that appends one whole line (given without its newline) with one `write`, so
    that a kill leaves it whole or cut at the end of the file, where `read_json_lines`
    drops it and the next `line_log` or `append_lines` cuts it off. Not `fsync`ed line by
    line (a run appends one per explained instance); flushed to the system as written."""
    target = output_target(path)
    try:
        handle = open(target, "a+b", buffering=0)
        _cut_torn_line(handle, path)
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None

    def append(line: str) -> None:
        data = (line + "\n").encode("utf-8")
        try:
            written = os.write(handle.fileno(), data)
        except OSError as error:
            raise GracrError(os_error_message(error, str(path))) from None
        if written != len(data):
            raise GracrError(f"{path}: only {written} of the {len(data)} bytes of a line were "
                             "written (is the disk full?)")

    with handle:
        yield append


def read_json_lines(path: PathLike) -> tuple[list[Any], str | None]:
    """The JSON values of `path`'s complete lines, and a note when its last line was cut
    (no final newline: what a crash mid-append leaves), which is dropped. A complete line
    that is not JSON is damage no crash makes: `GracrError` naming the file and line. A
    missing file is an empty log."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], None
    except UnicodeDecodeError:
        raise GracrError(f"{path}: not UTF-8 text; the file is damaged") from None
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None
    lines = text.split("\n")
    note = None
    if lines[-1].strip():
        note = (f"{path}:{len(lines)}: the last line is cut (a run stopped while writing it); "
                "dropped")
    values: list[Any] = []
    for number, line in enumerate(lines[:-1], start=1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except (ValueError, RecursionError):
            raise GracrError(f"{path}:{number}: not a JSON line; the file is damaged") from None
    return values, note
