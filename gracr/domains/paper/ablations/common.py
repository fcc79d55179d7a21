"""What the table and the figure ablations share in their outputs: the command line that
reproduces a run (the provenance line of every file) and writing a file. Numbers are written
by the report engine's `gracr.bench.report.formatting`."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path

from gracr import files
from gracr.errors import GracrError


def command_line(args: argparse.Namespace, table: bool, extra: Sequence[str] = ()) -> str:
    """The `gracrc ablate` command that reproduces this run, every protocol flag spelled out:
    a table's budget, settings, explainers and reused folders when `table`, then `--set`, the
    dataset flags, and `extra` (a figure's own flags)."""
    words = ["gracrc", "ablate", args.name, "--seeds", args.seeds, "--limit", str(args.limit),
             "--out", args.out]
    if table:
        words += ["--budget", f"{args.budget:g}", "--settings", args.settings]
        if args.explainers is not None:
            words += ["--explainers", args.explainers]
        for folder in args.reuse:
            words += ["--reuse", folder]
    for pair in args.set:
        words += ["--set", pair]
    if args.datasets is not None:
        words += ["--datasets", args.datasets]
    for flag in ("graphs", "targets"):
        if getattr(args, flag, None) is not None:
            words += [f"--{flag}", str(getattr(args, flag))]
    return shlex.join([*words, *extra])


def write_text(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise GracrError(f"{path.parent}: cannot create the folder ({error.strerror})") from None
    files.write_text(path, text)
