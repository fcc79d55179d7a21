"""Output paths: where `gracrc` writes (`compile -o`, `smarts -o`, `dataset --export`,
`dataset --stats --table`, `dataset --out`, `report --out`, `tissue --out`, `bench --out`)
given a FIFO, a folder, a regular file, a symlink to each, a dangling symlink, a missing
path, or a path under a missing folder, all made inside the input's own temporary folder
(never anything outside it, never `/dev`).

An input runs as parsed (argparse reads the command line) -> evaluated (the command
runs in this process and succeeds). Whatever the ending, what stood at the path must
stand there after: a FIFO, a folder (with the file inside it), a symlink (to the same
target) that gracr replaces or removes is a finding, and so is a file output written
onto anything but a regular file (or a missing one), and a folder output into anything
but a folder. A regular file or a missing path (a folder for a folder output) must be
accepted, and written.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

from gracr.errors import GracrError
from gracr.fuzz.inputs.cli_options import FILES, write_inputs
from gracr.fuzz.inputs.commands import run_command
from gracr.fuzz.inputs.kinds import CliRun, Finding, InputKind, Payload, Reached

TARGET = "target"
SENTINEL = "keep.txt"
TARGETS = ("fifo", "folder", "regular", "missing", "missing-parent", "symlink-fifo",
           "symlink-folder", "symlink-regular", "dangling")


@dataclass(frozen=True)
class Output:
    """A command line writing to `{out}`, a file or a folder."""

    argv: tuple[str, ...]
    folder: bool


OUTPUTS = {
    "compile -o": Output(("compile", "rule.gml", "--max-degree", "3", "-o", "{out}"),
                         folder=False),
    "dataset --export": Output(("dataset", "small.toml", "--out", "store", "--export", "{out}"),
                               folder=False),
    "dataset --table": Output(("dataset", "small.toml", "--out", "store", "--graphs", "2",
                               "--stats", "--table", "{out}"), folder=False),
    "dataset --out": Output(("dataset", "small.toml", "--out", "{out}"), folder=True),
    "report --out": Output(("report", "seeds.csv", "--out", "{out}", "--no-instance-figures"),
                           folder=True),
    "tissue --out": Output(("tissue", "--out", "{out}", "--samples", "4", "--cells", "50",
                            "--seed", "0"), folder=True),
    "bench --out": Output(("bench", "--tasks", "small.toml", "--explainers", "Rnd",
                           "--graphs", "4", "--datasets", "store", "--seeds", "0", "--limit",
                           "1", "--no-report", "--quiet", "--out", "{out}"), folder=True),
}
if importlib.util.find_spec("rdkit") is not None:    # `gracrc smarts` needs gracr[chem]
    OUTPUTS["smarts -o"] = Output(("smarts", "-o", "{out}", "[!#1][CH2]Cl"), folder=False)


def payloads() -> st.SearchStrategy[Payload]:
    return st.fixed_dictionaries({"output": st.sampled_from(sorted(OUTPUTS)),
                                  "target": st.sampled_from(TARGETS)})


def _lay_out(folder: Path, target: str) -> Path:
    """The inputs, and what `target` names at `folder/target`; the path to write to."""
    write_inputs(folder)
    path = folder / TARGET
    real = folder / f"real-{target.removeprefix('symlink-')}"
    match target.removeprefix("symlink-"):
        case "fifo":
            os.mkfifo(real)
        case "folder":
            real.mkdir()
            (real / SENTINEL).write_text("keep\n")
        case "regular":
            real.write_text("old\n")
    if target.startswith("symlink-"):
        path.symlink_to(real.name)
    elif target == "dangling":
        path.symlink_to("nowhere")
    elif target == "missing-parent":
        return folder / "missing" / TARGET
    elif target != "missing":
        real.rename(path)
    return path


def _kind_of(path: Path) -> str:
    """What stands at `path`, as `_lay_out` names it."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    if stat.S_ISLNK(mode):
        return f"symlink to {os.readlink(path)}"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISDIR(mode):
        return "folder"
    return "regular" if stat.S_ISREG(mode) else f"mode {mode:o}"


def expected_kind(target: str) -> str:
    """What must stand at the path after any run that was not to write it: what was there."""
    if target.startswith("symlink-"):
        return f"symlink to real-{target.removeprefix('symlink-')}"
    return {"dangling": "symlink to nowhere"}.get(target, target)


def must_accept(output: Output, target: str) -> bool:
    """Whether the path is a fine place to write: a regular file or a missing path (a
    folder, for a folder output), or a symlink to one."""
    fine = ("folder", "symlink-folder", "missing") if output.folder else \
        ("regular", "symlink-regular", "missing")
    return target in fine


def must_refuse(output: Output, target: str) -> bool:
    """Whether writing there must be refused: a FIFO, or the wrong kind of thing."""
    wrong = ("fifo", "symlink-fifo", "regular", "symlink-regular") if output.folder else \
        ("fifo", "symlink-fifo", "folder", "symlink-folder")
    return target in wrong


def check_after(folder: Path, path: Path, target: str) -> None:
    """What stood at the path still stands (see the module docstring): a FIFO, a folder
    with its file, a symlink to the same target; a regular file or a missing path may
    have been written."""
    if target in ("regular", "missing", "missing-parent"):
        return
    now, before = _kind_of(path), expected_kind(target)
    if now != before:
        raise Finding(f"gracrc replaced a {target} (now {now})", str(path))
    kind = target.removeprefix("symlink-")
    inside = folder / f"real-{kind}" if target.startswith("symlink-") else path
    if kind == "folder" and not (inside / SENTINEL).is_file():
        raise Finding("gracrc removed a file from a folder it was given", str(inside))
    if kind == "fifo" and _kind_of(inside) != "fifo":
        raise Finding(f"gracrc replaced a fifo behind a symlink (now {_kind_of(inside)})",
                      str(inside))


def argv(payload: Payload, folder: Path, path: Path) -> list[str]:
    """The command line, its files in `folder` and its output at `path`."""
    line = []
    for part in OUTPUTS[payload["output"]].argv:
        if part == "{out}":
            line.append(str(path))
        elif part in FILES or part == "store":
            line.append(str(folder / part))
        else:
            line.append(part)
    return line


def run(payload: Payload, reached: Reached) -> None:
    output, target = OUTPUTS[payload["output"]], payload["target"]
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        path = _lay_out(folder, target)
        try:
            run_command(argv(payload, folder, path), reached)
        except GracrError as error:
            check_after(folder, path, target)
            if must_accept(output, target):
                raise Finding(f"gracrc {payload['output']} refused a {target}",
                              str(error)) from None
            raise
        check_after(folder, path, target)
        if must_refuse(output, target):
            raise Finding(f"gracrc {payload['output']} wrote onto a {target}", str(path))
        written = path.resolve()
        if output.folder != written.is_dir() or not (written.is_dir() or written.is_file()):
            wanted = "folder" if output.folder else "file"
            raise Finding(f"gracrc {payload['output']} wrote no {wanted}",
                          f"{path}: {_kind_of(written)}")
    reached.passed("evaluated")


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """The same command line through `gracrc`: exit 2 exactly when the API refused, and
    what stood at the path standing there after."""
    target = payload["target"]
    path = _lay_out(folder, target)

    def check(out: str) -> None:
        check_after(folder, path, target)

    return CliRun(argv(payload, folder, path), must_fail=reached.refused is not None,
                  check_output=check)


def describe(payload: Payload) -> str:
    return f"{payload['output']} onto a {payload['target']}"


KIND = InputKind("output-paths", ("parsed", "evaluated"), payloads, run, cli, share=1.0,
                 describe=describe, warm_up=("gracr.explainers", "gracr.bench.runner"),
                 cli_seconds=30.0)
