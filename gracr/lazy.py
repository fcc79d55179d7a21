"""Package fronts whose names are imported on first use (PEP 562 module `__getattr__`).

A front (`gracr`, `gracr.bench`, `gracr.explainers`, `gracr.domains.tissue`,
`gracr.fuzz`) names what it offers and where each name is defined, and stays light: the
module defining a name (torch, PyG, scipy, numba behind it) is imported when the name is
first asked for, and the value kept in the front's namespace, so it is asked for once.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping, MutableMapping, Sequence


def lazy_attributes(package: str, homes: Mapping[str, str],
                    namespace: MutableMapping[str, Any],
                    first: Sequence[str] = ()) -> Callable[[str], Any]:
    """The module `__getattr__` of the front `package`: name -> `homes[name]` (a module),
    importing the modules of `first` before any (the modules whose import registers
    something the names need), and kept in `namespace` (the front's `globals()`). A home
    that is the module `package.name` itself gives that module."""
    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        for module in first:
            importlib.import_module(module)
        home = importlib.import_module(homes[name])
        value = home if homes[name] == f"{package}.{name}" else getattr(home, name)
        namespace[name] = value
        return value

    return __getattr__
