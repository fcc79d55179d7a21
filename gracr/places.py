"""The folders gracr keeps things in when it is not told where to put them.

Nothing goes into the installed package or the working folder unasked: datasets and
numba's compiled kernels are a cache (`$GRACR_CACHE`, else the platform's user cache
folder, e.g. `~/.cache/gracr`; numba's in a folder private to the user, see
`keep_numba_cache_in_the_cache_folder`), tuned settings a user's configuration (`$GRACR_CONFIG`,
else the platform's user config folder, e.g. `~/.config/gracr`); results go where
`--out` says.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import platformdirs

CACHE_VARIABLE = "GRACR_CACHE"
CONFIG_VARIABLE = "GRACR_CONFIG"


def cache_folder() -> Path:
    """gracr's cache: `$GRACR_CACHE`, else the platform's user cache folder."""
    return Path(os.environ.get(CACHE_VARIABLE) or platformdirs.user_cache_dir("gracr"))


def config_folder() -> Path:
    """gracr's user configuration: `$GRACR_CONFIG`, else the platform's user config folder."""
    return Path(os.environ.get(CONFIG_VARIABLE) or platformdirs.user_config_dir("gracr"))


NUMBA_CACHE_VARIABLE = "NUMBA_CACHE_DIR"
_private_folder: Path | None = None     # chosen by keep_numba_cache_in_the_cache_folder


def _unsafe_because(folder: Path) -> str | None:
    """Why `folder` must not hold numba's cache (None: it may). numba unpickles its index
    files, so whoever can write there runs code in every gracr process: the folder must be
    ours and writable by nobody else, and so must its parent (or be sticky, as /tmp is),
    else another user could swap the folder for theirs."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info, parent = os.stat(folder), os.stat(folder.parent)
    except OSError as error:
        return f"cannot be used ({error.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return "not a folder"
    if info.st_uid != os.getuid():
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"writable by other users (mode {stat.S_IMODE(info.st_mode):o})"
    if parent.st_mode & 0o022 and not parent.st_mode & stat.S_ISVTX:
        return (f"its folder {folder.parent} is writable by other users "
                f"(mode {stat.S_IMODE(parent.st_mode):o})")
    return None


def keep_numba_cache_in_the_cache_folder() -> None:
    """Point numba's kernel cache (`cache=True`) at a folder private to this user: by
    default numba writes beside the module, i.e. into the installed package.

    The folder is `$NUMBA_CACHE_DIR` if the user set it, else `numba-<uid>` in gracr's
    cache folder, else (if that one is refused) in the platform's user cache folder. A
    folder owned by another user, or writable by others (or in a folder they can write),
    is refused with a warning on stderr and the next one tried; if none will do, kernels
    are compiled afresh into a new private temporary folder, removed at exit. Must run
    before numba is first imported (numba reads the variable then); spawned workers
    inherit the folder chosen here."""
    uid = os.getuid()
    chosen = os.environ.get(NUMBA_CACHE_VARIABLE)
    candidates = [Path(chosen)] if chosen else []
    candidates += [cache_folder() / f"numba-{uid}",
                   Path(platformdirs.user_cache_dir("gracr")) / f"numba-{uid}"]
    refused: list[str] = []
    for folder in dict.fromkeys(candidates):
        problem = _unsafe_because(folder)
        if problem is None:
            break
        refused.append(f"{folder}: {problem}")
    else:
        folder = Path(tempfile.mkdtemp(prefix="gracr-numba-"))
        atexit.register(shutil.rmtree, folder, True)
    os.environ[NUMBA_CACHE_VARIABLE] = str(folder)
    global _private_folder
    _private_folder = folder
    if refused:
        print(f"gracrc: warning: numba's kernel cache {'; '.join(refused)}; not used "
              f"(kernels cached in {folder} instead)", file=sys.stderr)


def private_cache_folder() -> Path:
    """The folder `keep_numba_cache_in_the_cache_folder` chose and checked (private to
    this user), for other caches that are unpickled too: the parser's LALR table."""
    if _private_folder is None:
        keep_numba_cache_in_the_cache_folder()
    assert _private_folder is not None
    return _private_folder


def rebuild_damaged_numba_caches() -> None:
    """Make a numba cache entry that fails to load (a file cut by a full disk or a kill:
    numba raises on it, on every run) a cache miss: warned about, its index removed, and
    the kernel compiled and cached afresh. numba has no hook for this, so its
    `Cache.load_overload` is wrapped (once; call after importing numba)."""
    from numba.core import caching

    load: Callable[..., Any] = caching.Cache.load_overload
    if getattr(load, "rebuilds_damaged", False):
        return

    def load_or_rebuild(cache: Any, signature: Any, target_context: Any) -> Any:
        try:
            return load(cache, signature, target_context)
        except Exception as error:
            index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
            print(f"gracrc: warning: numba's cached kernel {index or cache}: cannot be loaded "
                  f"({type(error).__name__}: {error}); rebuilt", file=sys.stderr)
            if index is not None:
                with contextlib.suppress(OSError):
                    os.unlink(index)
            return None

    setattr(load_or_rebuild, "rebuilds_damaged", True)
    setattr(caching.Cache, "load_overload", load_or_rebuild)
