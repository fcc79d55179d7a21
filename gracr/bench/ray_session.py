"""A Ray session for the commands that spread their work over Ray (`--engine ray`).

Ray is an optional extra (`pip install 'gracr[ray]'`). Without an address a local Ray
instance with the asked number of CPUs (none: a Ray that runs no task) is started and, at
the end, stopped; with one,
the session joins that cluster (and leaves it at the end), if it answers within `timeout`
seconds (Ray would retry for ever). A Ray already running in this process (a test's, a
notebook's) is used as it is and left running.

The local instance's workers run at this process's priority. Ray's own default adds 15 to
a worker's niceness, to keep a cluster's daemons and drivers responsive; here this
process explains beside the workers on the same cores (`gracr.bench.runner._run_on_ray`),
and a worker at nice 15 lost to every other process of the machine: 46 CPU s in 51 s of a
chunk while the run's own process, at nice 0, had its core (`benchmarks/engines.py`). A
cluster's workers keep the cluster's setting.
"""

from __future__ import annotations

import socket
import time
from contextlib import contextmanager
from typing import Any, Iterator
from urllib.parse import urlsplit

from gracr.errors import GracrError
from gracr.limits import RAY_TIMEOUT


@contextmanager
def ray_session(cpus: int, address: str | None = None,
                timeout: float = RAY_TIMEOUT) -> Iterator[Any]:
    """The `ray` module, initialised for the block."""
    try:
        import ray
    except ImportError:
        raise GracrError("--engine ray needs Ray: pip install 'gracr[ray]'") from None
    started = not ray.is_initialized()
    if started:
        if address is not None:
            wait_for_cluster(address, timeout)
        options: dict[str, Any] = {"include_dashboard": False, "configure_logging": False,
                                   "log_to_driver": False}
        try:
            if address is None:
                # worker_niceness is added to this process's: 0 keeps its priority.
                ray.init(num_cpus=max(0, cpus), _system_config={"worker_niceness": 0},
                         **options)
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


def wait_for_cluster(address: str, timeout: float) -> None:
    """Return once the cluster at `address` (`HOST:PORT`, or `ray://HOST:PORT` for Ray
    Client) accepts a TCP connection; a `GracrError` naming it if it has not within
    `timeout` seconds. An address of another form (`auto`) is Ray's to resolve."""
    parts = urlsplit(address if "://" in address else "//" + address)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:   # a port out of range: Ray's message says so
        return
    if host is None or port is None:
        return
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=max(left, 0.1)):
                return
        except OSError as error:
            # Refused now, perhaps not in a second (a head node still starting): retry.
            if time.monotonic() + 0.5 >= deadline:
                raise GracrError(
                    f"--address {address}: no Ray cluster answered within {timeout:g} s "
                    f"({error.strerror or error}); start it, or give a longer "
                    f"--ray-timeout") from None
        time.sleep(0.5)
