"""Command-line values shared by `gracrc bench`, `tune`, `fuzz` and `ablate`: seed lists,
name lists and `--set Explainer.key=value` overrides, parsed one way everywhere; the
options they share (`--budget`, `--plugin`, `--keep-errors`, `--level`, `--datasets`,
`--graphs`, `--targets`, `--settings`, `--set`, `--jobs`, `--quiet`), declared once; the
default dataset store (in `gracr.places`' cache folder); and the clean-up of folders a
failed command created."""

from __future__ import annotations

import argparse
import errno
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gracr.bench.budget import DEFAULT_BATCH, DEFAULT_BUDGET
from gracr.explainers.metric import LEVELS
from gracr.dsl.parse import closest_word
from gracr.errors import GracrError
from gracr.limits import MAX_SECONDS, MAX_SEEDS, RAY_TIMEOUT, SEED_LIMIT
from gracr.places import CACHE_VARIABLE, cache_folder


def default_datasets() -> str:
    """Where datasets are stored and reused unless a command is told otherwise."""
    return str(cache_folder() / "datasets")


DATASETS_HELP = (f"dataset store (default ${CACHE_VARIABLE}/datasets, else the user cache "
                 "folder)")


def positive_seconds(text: str) -> float:
    """The argparse type of an option in seconds (`--budget`): a positive, finite number
    of at most `MAX_SECONDS` (`nan` or `inf` would make every instance an error)."""
    value = positive_number(text, unit=" of seconds")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SECONDS:.0e} seconds (gracr's limit "
                                         f"MAX_SECONDS), got {text!r}")
    return value


# The largest count an option takes: the diagram engines keep their budgets in 64-bit
# integers (CUDD's `unsigned long`), and any larger count could never be reached anyway.
MAX_OPTION_COUNT = 2**62


def _count(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text[:40]!r}") from None
    if value < least:
        wanted = "a positive integer" if least == 1 else f"an integer of at least {least}"
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    if value > MAX_OPTION_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most 2**62, got {value}")
    return value


def positive_integer(text: str) -> int:
    """The argparse type of a count that must be at least 1 (`--trials`, `--instances`,
    `--max-bdd-nodes`, `--permutations`), and at most 2**62."""
    return _count(text, 1)


def non_negative_integer(text: str) -> int:
    """The argparse type of a count that may be 0 (`--max-exact`), at most 2**62."""
    return _count(text, 0)


def seed_number(text: str) -> int:
    """The argparse type of one dataset seed (`--seed`): an integer in [0, 2**32)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 0 <= value < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"a seed is an integer in [0, 2**32), got {value}")
    return value


def add_budget_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                      help: str | None = None, default: float = DEFAULT_BUDGET) -> None:
    """`--budget SECONDS`: App. H's per-instance CPU budget (default 180 s); a command
    that spends it on something else says what in `help`, with its `default`."""
    parser.add_argument("--budget", type=positive_seconds, default=default, metavar="SECONDS",
                        help=help or f"CPU seconds per instance before OOT "
                                     f"(default {DEFAULT_BUDGET:g}, App. H)")


def add_batch_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                     default: int = DEFAULT_BATCH) -> None:
    """`--batch B`: up to B instances explained in one run where the explainer can
    (`gracr.bench.budget.explain_each`); 1 explains one at a time."""
    parser.add_argument("--batch", type=positive_integer, default=default, metavar="B",
                        help="explain up to B instances in one run where the explainer can "
                             "(Saliency, InputXGradient, IG and GNNExplainer on node scores "
                             "of graph classifiers, compiled or trained separable ones such "
                             "as the tissue models, IG-mean on the latter, Rnd on compiled "
                             "ones): the same scores, "
                             "each record's CPU time its share of the batch's; 1 explains "
                             f"one at a time (default {default})")


def add_dataset_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                        whose: str = "") -> None:
    """`--datasets DIR`, `--graphs N` and `--targets N`: where a task's datasets are stored
    and their sizes; `whose` (e.g. "the bench run's ") says whose datasets are meant."""
    parser.add_argument("--datasets", default=None, metavar="DIR", help=whose + DATASETS_HELP)
    add_dataset_size_options(parser, whose)


def add_dataset_size_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup,
                             whose: str = "") -> None:
    """`--graphs N` and `--targets N`: the size of a graph task's and a node task's
    dataset."""
    parser.add_argument("--graphs", type=int, default=None, metavar="N",
                        help=f"{whose}graph tasks: number of graphs (default 1000)")
    parser.add_argument("--targets", type=int, default=None, metavar="N",
                        help=f"{whose}node tasks: graphs are added until N positive targets "
                             "(default 500)")


def add_settings_options(parser: argparse.ArgumentParser, overridden: str) -> None:
    """`--settings tuned|default` and `--set EXPLAINER.KEY=VALUE` (repeatable); `overridden`
    says which explainers' settings `--set` overrides."""
    parser.add_argument("--settings", choices=("tuned", "default"), default="tuned",
                        help="explainer settings: tuned by `gracrc tune` where stored "
                             "(default), or each explainer's defaults")
    add_set_option(parser, overridden)


def add_set_option(parser: argparse.ArgumentParser, overridden: str) -> None:
    """`--set EXPLAINER.KEY=VALUE` (repeatable): one explainer setting, e.g.
    GNNExplainer.epochs=20; `overridden` says whose."""
    parser.add_argument("--set", action="append", default=[], metavar="EXPLAINER.KEY=VALUE",
                        help=f"override one setting {overridden}, e.g. "
                             "GNNExplainer.epochs=20 (repeatable)")


def add_jobs_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup, default: int = 1,
                    help: str = "worker processes") -> None:
    """`--jobs K`: how many workers run at once."""
    parser.add_argument("--jobs", type=int, default=default, metavar="K",
                        help=f"{help} (default {default})")


def add_quiet_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup, help: str = "no progress bars") -> None:
    """`--quiet`: no progress shown."""
    parser.add_argument("--quiet", action="store_true", help=help)


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
                             "chunk of a job's instances (pip install 'gracr[ray]'); the "
                             "same records, resumable either way")
    parser.add_argument("--address", default=None, metavar="ADDR",
                        help="with --engine ray: an existing Ray cluster, beside this process "
                             "(default: a local Ray instance with --jobs - 1 CPUs, started "
                             "and stopped here)")
    parser.add_argument("--ray-timeout", type=positive_number, default=RAY_TIMEOUT,
                        metavar="SECONDS",
                        help=f"with --address: give up when the cluster does not answer "
                             f"within this time (default {RAY_TIMEOUT:g})")


def positive_number(text: str, unit: str = "") -> float:
    """An option's value that must be a finite number above 0 (argparse's `type`); `unit`
    (e.g. " of seconds") is named in the messages."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number{unit}: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive, finite number{unit}, "
                                         f"got {text!r}")
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
    """`3`, `0-4` or `0,2,5` -> a list of seeds, each in [0, 2**32), at most `MAX_SEEDS`
    of them (counted before a range is expanded)."""
    usage = f"bad seeds '{text}': write 3, 0-4 or 0,2,5"
    bounds: list[tuple[int, int]] = []
    for part in text.split(","):
        # At most 20 digits: past 2**32 anyway, and never a long conversion.
        match = re.fullmatch(r"\s*(\d{1,20})\s*(?:-\s*(\d{1,20})\s*)?", part)
        if match is None:
            raise GracrError(usage)
        low = int(match.group(1))
        high = low if match.group(2) is None else int(match.group(2))
        if high >= SEED_LIMIT:
            raise GracrError(f"bad seeds '{text}': seed {high} is not below 2**32 (a seed is "
                             f"an integer in [0, {SEED_LIMIT}))")
        if high < low:
            raise GracrError(f"bad seeds '{text}': the range {low}-{high} is empty (write the "
                             "lower seed first)")
        bounds.append((low, high))
    count = sum(high - low + 1 for low, high in bounds)
    if count > MAX_SEEDS:
        raise GracrError(f"bad seeds '{text}': {count} seeds, over gracr's limit of "
                         f"{MAX_SEEDS} (MAX_SEEDS)")
    return [seed for low, high in bounds for seed in range(low, high + 1)]


def parse_names(text: str, known: Sequence[str], what: str) -> list[str]:
    """`all` or a comma list of known names, in the order given."""
    if text == "all":
        return list(known)
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        named = ", ".join(f"'{name}'" + _did_you_mean(name, known) for name in unknown)
        raise GracrError(f"unknown {what} {named or repr(text)}; choose from "
                         f"{', '.join(known)} or 'all'")
    return names


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    meant = closest_word(name, known)
    return f" (did you mean '{meant}'?)" if meant else ""


def parse_explainers(text: str, trained: bool = True) -> list[str]:
    """`--explainers`: `paper` (the eleven of Tables 2 and 3 and `Rnd`), `all` (every
    registered explainer that reads the model; without those that must be trained first
    unless `trained`; a domain's own explainers only by name), or a comma list of
    registered names."""
    from gracr.explainers import EXPLAINERS, PAPER_EXPLAINERS

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
