"""The folders gracr keeps things in when it is not told where to put them.

Nothing goes into the installed package or the working folder unasked: datasets and
numba's compiled kernels are a cache (`$GRACR_CACHE`, else the platform's user cache
folder, e.g. `~/.cache/gracr`), tuned settings a user's configuration (`$GRACR_CONFIG`,
else the platform's user config folder, e.g. `~/.config/gracr`); results go where
`--out` says.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

CACHE_VARIABLE = "GRACR_CACHE"
CONFIG_VARIABLE = "GRACR_CONFIG"


def cache_folder() -> Path:
    """gracr's cache: `$GRACR_CACHE`, else the platform's user cache folder."""
    return Path(os.environ.get(CACHE_VARIABLE) or platformdirs.user_cache_dir("gracr"))


def config_folder() -> Path:
    """gracr's user configuration: `$GRACR_CONFIG`, else the platform's user config folder."""
    return Path(os.environ.get(CONFIG_VARIABLE) or platformdirs.user_config_dir("gracr"))


def keep_numba_cache_in_the_cache_folder() -> None:
    """Point numba's kernel cache (`cache=True`) at gracr's cache folder unless the user
    set `NUMBA_CACHE_DIR`: by default numba writes beside the module, i.e. into the
    installed package. Must run before numba is first imported (numba reads it then)."""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_folder() / "numba"))
