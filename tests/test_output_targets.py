"""Every file `gracrc` writes goes to a regular file only: an output path naming a FIFO, a
folder or a symbolic link to either (stand-ins for a device such as /dev/full) is refused
with exit 2 and left as it was, never replaced by a regular file nor opened (a FIFO
without a reader would hang the run)."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from gracr.cli import main

ROOT = Path(__file__).resolve().parent.parent
FORMULA = str(ROOT / "gracr" / "formulas" / "Redundancy.gml")


def _fifo(place: Path) -> Path:
    os.mkfifo(place)
    return place


def _folder(place: Path) -> Path:
    place.mkdir()
    (place / "kept").write_text("kept")
    return place


def _link_to_fifo(place: Path) -> Path:
    target = _fifo(place.with_name(place.name + ".fifo"))
    place.symlink_to(target)
    return place


def _link_to_folder(place: Path) -> Path:
    target = _folder(place.with_name(place.name + ".folder"))
    place.symlink_to(target)
    return place


STAND_INS: dict[str, Callable[[Path], Path]] = {
    "FIFO": _fifo, "folder": _folder, "symlink to a FIFO": _link_to_fifo,
    "symlink to a folder": _link_to_folder}


def _state(path: Path) -> tuple[object, ...]:
    """What must not change: the entry's kind, where a link points, a folder's content."""
    entry = os.lstat(path)
    pointed = os.readlink(path) if path.is_symlink() else None
    final = os.stat(path)
    content = sorted(p.name for p in path.iterdir()) if path.is_dir() else None
    return (stat.S_IFMT(entry.st_mode), entry.st_ino, pointed, stat.S_IFMT(final.st_mode),
            final.st_ino, content)


def _refused(code: int, err: str) -> None:
    assert code == 2, err
    assert "not a regular file" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", sorted(STAND_INS))
def test_compile_output_is_refused_unless_a_regular_file(kind: str, tmp_path: Path) -> None:
    place = STAND_INS[kind](tmp_path / "model.npz")
    before = _state(place)
    err = io.StringIO()
    code = main(["compile", FORMULA, "-o", str(place)], out=io.StringIO(), err=err)
    _refused(code, err.getvalue())
    assert _state(place) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_compile_output_through_a_link_to_a_regular_file_rewrites_that_file(
        tmp_path: Path) -> None:
    model = tmp_path / "model.npz"
    model.write_text("old")
    link = tmp_path / "link.npz"
    link.symlink_to(model)
    assert main(["compile", FORMULA, "-o", str(link)], out=io.StringIO()) == 0
    assert link.is_symlink() and model.read_bytes()[:2] == b"PK"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("store")
    assert main(["dataset", "Redundancy", "--graphs", "4", "--seed", "0", "--out", str(store)],
                out=io.StringIO()) == 0
    return store


@pytest.mark.parametrize("kind", sorted(STAND_INS))
def test_dataset_export_is_refused_unless_a_regular_file(kind: str, store: Path,
                                                          tmp_path: Path) -> None:
    place = STAND_INS[kind](tmp_path / "export.jsonl")
    before = _state(place)
    err = io.StringIO()
    code = main(["dataset", "Redundancy", "--graphs", "4", "--seed", "0", "--out", str(store),
                 "--export", str(place)], out=io.StringIO(), err=err)
    _refused(code, err.getvalue())
    assert _state(place) == before


def _gracrc(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # A subprocess with a hard timeout: the code before the fix opened a FIFO and hung.
    return subprocess.run([sys.executable, "-m", "gracr.cli", *argv], cwd=cwd, text=True,
                          capture_output=True, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_smarts_output_to_a_fifo_is_refused(tmp_path: Path) -> None:
    place = _fifo(tmp_path / "out.gml")
    done = _gracrc("smarts", "[#6]~[#8]", "-o", str(place), cwd=tmp_path)
    _refused(done.returncode, done.stderr)
    assert stat.S_ISFIFO(os.lstat(place).st_mode)


def test_dataset_table_to_a_fifo_is_refused(store: Path, tmp_path: Path) -> None:
    place = _fifo(tmp_path / "table.md")
    done = _gracrc("dataset", "Redundancy", "--stats", "--graphs", "4", "--seeds", "0",
                   "--out", str(store), "--table", str(place), cwd=tmp_path)
    _refused(done.returncode, done.stderr)
    assert stat.S_ISFIFO(os.lstat(place).st_mode)


@pytest.mark.parametrize("name", ["results.jsonl", "scores.jsonl"])
def test_bench_results_file_that_is_a_fifo_is_refused(store: Path, tmp_path: Path,
                                                      name: str) -> None:
    out = tmp_path / "bench"
    out.mkdir()
    place = _fifo(out / name)
    done = _gracrc("bench", "--tasks", "Redundancy", "--explainers", "Rnd", "--seeds", "0",
                   "--limit", "1", "--graphs", "4", "--datasets", str(store), "--out", str(out),
                   "--quiet", "--no-report", cwd=tmp_path)
    _refused(done.returncode, done.stderr)
    assert stat.S_ISFIFO(os.lstat(place).st_mode)
