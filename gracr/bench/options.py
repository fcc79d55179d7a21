"""Command-line values shared by `gracrc bench`, `tune`, `fuzz` and `ablate`: seed lists,
name lists and `--set Explainer.key=value` overrides, parsed one way everywhere; the
options they share (`--budget`, `--plugin`, `--keep-errors`, `--level`), declared once; the
default dataset store (in `gracr.places`' cache folder); and the clean-up of folders a
failed command created."""

from __future__ import annotations

import argparse
import errno
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gracr.bench.budget import DEFAULT_BUDGET
from gracr.bench.metric import LEVELS
from gracr.errors import GracrError
from gracr.limits import RAY_TIMEOUT
from gracr.places import CACHE_VARIABLE, cache_folder


def default_datasets() -> str:
    """Where datasets are stored and reused unless a command is told otherwise."""
    return str(cache_folder() / "datasets")


DATASETS_HELP = (f"dataset store (default ${CACHE_VARIABLE}/datasets, else the user cache "
                 "folder)")


def add_budget_option(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    """`--budget SECONDS`: App. H's per-instance CPU budget (default 180 s)."""
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, metavar="SECONDS",
                        help=help or f"CPU seconds per instance before OOT "
                                     f"(default {DEFAULT_BUDGET:g}, App. H)")


def add_plugin_option(parser: argparse.ArgumentParser) -> None:
    """`--plugin MODULE_OR_FILE.py` (repeatable): import it before the explainers are named,
    in this process and in every worker."""
    parser.add_argument("--plugin", action="append", default=[], metavar="MODULE_OR_FILE.py",
                        help="a module or .py file that registers explainers, imported here "
                             "and in every worker (repeatable); entry points of the group "
                             "gracr.explainers are loaded too")


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """`--engine process|ray`, `--address ADDR` and `--ray-timeout SECONDS`: where the
    instances run."""
    parser.add_argument("--engine", choices=("process", "ray"), default="process",
                        help="run in a process pool (default) or as Ray tasks, one per "
                             "instance (pip install 'gracr[ray]'); the same records, "
                             "resumable either way")
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="with --engine ray: an existing Ray cluster (default: a local "
                             "Ray instance with --jobs CPUs, started and stopped here)")
    parser.add_argument("--ray-timeout", type=positive_number, default=RAY_TIMEOUT,
                        metavar="SECONDS",
                        help=f"with --address: give up when the cluster does not answer "
                             f"within this time (default {RAY_TIMEOUT:g})")


def positive_number(text: str) -> float:
    """An option's value that must be a finite number above 0 (argparse's `type`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def add_keep_errors_option(parser: argparse.ArgumentParser) -> None:
    """`--keep-errors`: a rerun keeps the instances recorded as errors instead of retrying
    them."""
    parser.add_argument("--keep-errors", action="store_true",
                        help="on a rerun, keep instances recorded as errors (default: retry "
                             "them)")


def add_level_option(parser: argparse.ArgumentParser) -> None:
    """`--level edge|node`: score edge scores against the edge UPI (the paper's benchmark),
    or node scores against the node UPI."""
    parser.add_argument("--level", choices=LEVELS, default=LEVELS[0],
                        help="what is scored: edge scores against the UPI over edges "
                             "(default, the paper's), or node scores against the UPI over "
                             "nodes (deletion semantics)")


def parse_seeds(text: str) -> list[int]:
    """`3`, `0-4` or `0,2,5` -> a list of seeds."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.partition("-")
            seeds.extend(range(int(low), int(high or low) + 1))
    except ValueError:
        raise GracrError(f"bad seeds '{text}': write 3, 0-4 or 0,2,5") from None
    if not seeds or min(seeds) < 0:
        raise GracrError(f"bad seeds '{text}': seeds are non-negative integers")
    return seeds


def parse_names(text: str, known: Sequence[str], what: str) -> list[str]:
    """`all` or a comma list of known names, in the order given."""
    if text == "all":
        return list(known)
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise GracrError(f"unknown {what} '{', '.join(unknown) or text}'; choose from "
                         f"{', '.join(known)} or 'all'")
    return names


def parse_explainers(text: str, trained: bool = True) -> list[str]:
    """`--explainers`: `paper` (the eleven of Tables 2 and 3 and `Rnd`), `all` (every
    registered explainer that reads the model; without those that must be trained first
    unless `trained`; a domain's own explainers only by name), or a comma list of
    registered names."""
    from gracr.bench.explainers import EXPLAINERS
    from gracr.bench.paper import PAPER_EXPLAINERS

    if text == "paper":
        return list(PAPER_EXPLAINERS)
    if text == "all":
        return [name for name, spec in EXPLAINERS.items()
                if (trained or spec.train is None) and spec.domain is None]
    return parse_names(text, list(EXPLAINERS), "explainer")


def parse_overrides(pairs: Sequence[str], explainers: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`--set Explainer.key=value` (value read as JSON, else kept as text), each naming one
    of the `explainers` the command runs."""
    overrides: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        target, equals, text = pair.partition("=")
        explainer, dot, key = target.partition(".")
        if not equals or not dot or not explainer or not key:
            raise GracrError(f"bad --set '{pair}': write Explainer.setting=value")
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError:
            value = text
        if explainer not in explainers:
            raise GracrError(f"--set names {explainer}, which is not among the explainers run")
        overrides.setdefault(explainer, {})[key] = value
    return overrides


def missing_folders(folder: Path) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, deepest first: what a
    command creates, and must remove again if it fails."""
    return [path for path in (folder, *folder.parents) if not path.exists()]


def remove_empty(folders: Sequence[Path]) -> None:
    """Remove `folders` (deepest first) while they are empty: a failed command leaves
    no empty folder behind."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError as error:
            # Never made (its name too long, say): its parents may still be ours to remove.
            if error.errno in (errno.ENOENT, errno.ENAMETOOLONG):
                continue
            return
