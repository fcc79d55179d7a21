"""numba kernels compiled on first call: `@kernel` is `@numba.njit(cache=True)` without
importing numba (about 0.2 s, and scipy with it) when the module is imported.

The modules that define kernels (the graph generators, the motifs, the numba executor)
are imported by the task table, and so by every `gracrc` command's parser and
`gracrc --help`; only generating a graph or running the numba executor needs numba.

A kernel may call another kernel of its module: numba compiles it by reading the
module's globals, which must then hold numba dispatchers, not `Kernel`s. So the first
call of any kernel of a module makes every kernel of that module a dispatcher and puts
the dispatchers in the module's globals in their place; a `Kernel` imported elsewhere
before then forwards its calls to its dispatcher.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar

from gracr.places import rebuild_damaged_numba_caches

Parameters = ParamSpec("Parameters")
Result = TypeVar("Result")


class Kernel(Generic[Parameters, Result]):
    """A function to be compiled by `numba.njit(cache=True)` when a kernel of its module
    is first called."""

    def __init__(self, function: Callable[Parameters, Result]) -> None:
        self.function = function
        self.compiled: Callable[Parameters, Result] | None = None
        self.__doc__ = function.__doc__
        self.__name__ = function.__name__

    def __call__(self, *args: Parameters.args, **kwargs: Parameters.kwargs) -> Result:
        if self.compiled is None:
            compile_kernels(self.function.__globals__)
        assert self.compiled is not None
        return self.compiled(*args, **kwargs)


def kernel(function: Callable[Parameters, Result]) -> Kernel[Parameters, Result]:
    """`@kernel`: `function` as a numba kernel (nopython, cached), compiled on first call."""
    return Kernel(function)


def compile_kernels(namespace: dict[str, Any]) -> None:
    """Every `Kernel` defined in the module of `namespace` (its globals) made a numba
    dispatcher, in the globals and in the `Kernel` (numba compiles each on its first
    call with the argument types of that call)."""
    import numba

    # A cached kernel cut by a kill must be recompiled, not fail every run.
    rebuild_damaged_numba_caches()
    for name, value in list(namespace.items()):
        if isinstance(value, Kernel) and value.function.__globals__ is namespace:
            value.compiled = numba.njit(cache=True)(value.function)
            namespace[name] = value.compiled
