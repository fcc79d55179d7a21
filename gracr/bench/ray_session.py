"""A Ray session for the commands that spread their work over Ray (`--engine ray`).

Ray is an optional extra (`pip install 'gracr[ray]'`). Without an address a local Ray
instance with the asked number of CPUs is started and, at the end, stopped; with one,
the session joins that cluster (and leaves it at the end). A Ray already running in
this process (a test's, a notebook's) is used as it is and left running.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from gracr.errors import GracrError


@contextmanager
def ray_session(cpus: int, address: str | None = None) -> Iterator[Any]:
    """The `ray` module, initialised for the block."""
    try:
        import ray
    except ImportError:
        raise GracrError("--engine ray needs Ray: pip install 'gracr[ray]'") from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "configure_logging": False,
                                   "log_to_driver": False}
        try:
            if address is None:
                ray.init(num_cpus=max(1, cpus), **options)
            else:
                ray.init(address=address, **options)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise GracrError(f"cannot start or reach Ray"
                             f"{'' if address is None else ' at ' + address}: {error}") from None
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
