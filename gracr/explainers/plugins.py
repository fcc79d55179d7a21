"""Explainer plugins: modules or files that register explainers when imported.

A plugin is named on the command line (`--plugin MODULE_OR_FILE.py`, repeatable) or
given to `load_plugins`. A value that ends in `.py` or contains a path separator is a
file, imported under a module name derived from its absolute path (the same name in
every process, so a file is imported once per process and its classes pickle); any
other value is a module name for `importlib.import_module`. Installed packages can
also declare plugins as entry points of the group `gracr.explainers`; each is loaded
(loading registers) the first time plugins are loaded, or an explainer is asked for
that is not registered.

`load_plugins` remembers what it loaded, so that the runner hands the same list to its
worker processes (spawned, so they import nothing of the parent's state) and every
worker sees the same registry as the parent. A plugin that cannot be found or imported
is a `GracrError` naming it.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from importlib import metadata

from gracr.errors import GracrError

ENTRY_POINT_GROUP = "gracr.explainers"

_loaded: list[str] = []
_entry_points_loaded = False


def is_plugin_file(value: str) -> bool:
    """A `--plugin` value names a file when it ends in `.py` or has a path separator."""
    separators = [os.sep] + ([os.altsep] if os.altsep else [])
    return value.endswith(".py") or any(separator in value for separator in separators)


def plugin_module_name(path: str) -> str:
    """The module name a plugin file is imported under: its stem and a digest of its
    absolute path, the same in every process."""
    absolute = os.path.abspath(path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(absolute))[0])
    digest = hashlib.sha1(absolute.encode()).hexdigest()[:10]
    return f"gracr_plugin_{stem}_{digest}"


def _import_file(value: str) -> None:
    path = os.path.abspath(value)
    name = plugin_module_name(path)
    if name in sys.modules:
        return
    if not os.path.isfile(path):
        raise GracrError(f"--plugin {value}: no such file")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise GracrError(f"--plugin {value}: not a Python file that can be imported")
    module = importlib.util.module_from_spec(spec)
    # In sys.modules before it runs, as `import` does: dataclasses and pickle look it up.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def _load_one(value: str) -> None:
    try:
        if is_plugin_file(value):
            _import_file(value)
        else:
            importlib.import_module(value)
    except GracrError as error:
        message = str(error)
        raise GracrError(message if message.startswith("--plugin ")
                         else f"--plugin {value}: {message}") from None
    except ModuleNotFoundError as error:
        if error.name == value.split(".")[0] or error.name == value:
            raise GracrError(f"--plugin {value}: no module named '{value}' (a file needs "
                             "its .py ending or a path)") from None
        raise GracrError(f"--plugin {value}: cannot import it ({type(error).__name__}: "
                         f"{error})") from None
    except Exception as error:  # the plugin's own code failed: name it, briefly
        raise GracrError(f"--plugin {value}: cannot import it ({type(error).__name__}: "
                         f"{error})") from None


def load_entry_points() -> None:
    """Load every entry point of the group `gracr.explainers` (once per process)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            entry_point.load()
        except Exception as error:
            raise GracrError(f"explainer plugin '{entry_point.name}' ({entry_point.value}, "
                             f"entry point group {ENTRY_POINT_GROUP}) cannot be loaded "
                             f"({type(error).__name__}: {error})") from None


def load_plugins(values: Iterable[str] = ()) -> list[str]:
    """Import each plugin of `values` (a module name or a `.py` file) and the entry points
    of `gracr.explainers`; returns every plugin loaded in this process so far, in order."""
    load_entry_points()
    for value in values:
        key = os.path.abspath(value) if is_plugin_file(value) else value
        if key in _loaded:
            continue
        _load_one(value)
        _loaded.append(key)
    return list(_loaded)


def loaded_plugins() -> list[str]:
    """The plugins `load_plugins` has imported in this process (files as absolute paths)."""
    return list(_loaded)
