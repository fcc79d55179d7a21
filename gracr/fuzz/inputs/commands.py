"""Running a `gracrc` command for the kinds whose input is a command line (SMARTS, tissue
options, option values, output paths): in this process, where a crash keeps its
traceback, or in a subprocess, for commands too heavy to run in a fuzzing worker.

`run_command` is `gracr.cli.main` without its last `except`: argparse's refusal, a
`GracrError` and an `OSError` (what `main` turns into exit 2) become a `GracrError`, and
anything else propagates, for the driver to report with its traceback.
`run_gracrc` runs `python -m gracr.cli` with a hard CPU limit (a grandchild of a worker
killed at its deadline must not run on) and turns its exit status into the same three
endings: exit 0, a `GracrError` (exit 2, with a message), or a `Finding`.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from gracr.errors import GracrError
from gracr.fuzz.inputs.kinds import Finding, Reached

# A subprocess's CPU seconds, and wall seconds: far above what a valid small run needs
# (the imports alone take a few seconds on a loaded machine); the fuzzer's own time limit
# catches a slow input first.
SUBPROCESS_CPU_SECONDS = 120
SUBPROCESS_WALL_SECONDS = 300


@dataclass(frozen=True)
class Ran:
    """A command that ended with exit 0: what it printed."""

    out: str
    err: str


def run_command(argv: list[str], reached: Reached | None = None) -> Ran:
    """`gracrc argv` in this process (see the module docstring); `reached` passes
    "parsed" once argparse has read the options."""
    from gracr.cli import build_parser

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exit_:
            if exit_.code:
                raise GracrError(f"usage: {err.getvalue().strip()[-500:]}") from None
            return Ran(out.getvalue(), err.getvalue())
        args.err = err
        if reached is not None:
            reached.passed("parsed")
        try:
            code = args.run(args, out)
        except (OSError, UnicodeDecodeError) as error:   # `main` says these and exits 2
            raise GracrError(f"{type(error).__name__}: {error}") from None
    if code != 0:
        raise Finding(f"gracrc {argv[0]} returned {code}", err.getvalue()[-3000:])
    return Ran(out.getvalue(), err.getvalue())


def _cpu_limit() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (SUBPROCESS_CPU_SECONDS, SUBPROCESS_CPU_SECONDS))


def run_gracrc(argv: list[str], folder: Path) -> Ran:
    """`python -m gracr.cli argv` in `folder`, in a subprocess (see the module docstring)."""
    package_root = str(Path(__file__).resolve().parents[3])   # the folder holding gracr/
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root, *filter(None, [os.environ.get("PYTHONPATH")])])}
    said = "gracrc " + " ".join(argv)
    try:
        done = subprocess.run([sys.executable, "-m", "gracr.cli", *argv], cwd=folder,
                              capture_output=True, timeout=SUBPROCESS_WALL_SECONDS, env=env,
                              preexec_fn=_cpu_limit)
    except subprocess.TimeoutExpired:
        raise Finding("gracrc over the time limit", said) from None
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    detail = f"{said}\nexit {done.returncode}\n{err[-3000:]}"
    if done.returncode not in (0, 2):
        raise Finding(f"gracrc exited {done.returncode}", detail)
    if "Traceback" in err or "internal error" in err:
        raise Finding("gracrc printed a traceback", detail)
    if done.returncode == 2:
        if not err.strip():
            raise Finding("gracrc exited 2 without a message", detail)
        raise GracrError(err.strip()[-500:])
    return Ran(out, err)
