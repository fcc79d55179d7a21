"""What every `gracrc` command is declared as (`Command`), the exit statuses, and SIGTERM
raised as an interrupt (a run stops the same way for `kill` as for Ctrl-C)."""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 70  # sysexits.h EX_SOFTWARE


@dataclass(frozen=True)
class Command:
    """One subcommand: its name and one-line help, `declare` adds its arguments to the
    subparser `gracr.cli.build_parser` makes for it, `run(args, out)` does the work and
    returns the exit status (bad input raises `GracrError`). A `description` is shown by
    `gracrc NAME --help` as written (line breaks kept)."""

    name: str
    help: str
    declare: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]
    description: str | None = None


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill`, a cluster's time limit), raised where Ctrl-C raises: a run stops
    the same way for either."""


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises `Terminated` in the block (where Python can handle a signal: in
    the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped_by(stop: KeyboardInterrupt) -> signal.Signals:
    """The signal that raised `stop`: SIGTERM for `Terminated`, else SIGINT (Ctrl-C)."""
    return signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT
