"""numba's kernel cache: numba unpickles its index files, so gracr keeps the cache in a
folder only this user can write (`gracr.places.keep_numba_cache_in_the_cache_folder`)
and refuses any other; a cache file that cannot be loaded is rebuilt, not a failure on
every run (`gracr.places.rebuild_damaged_numba_caches`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_CHOSEN = "import os, gracr; print(os.environ['NUMBA_CACHE_DIR'])"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != "NUMBA_CACHE_DIR"}
    # Both default places under tmp_path: gracr's cache and the platform's user cache.
    env.update(PYTHONPATH=str(ROOT), GRACR_CACHE=str(tmp_path / "cache"),
               XDG_CACHE_HOME=str(tmp_path / "home-cache"), **extra)
    return env


def _python(code: str, env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=300)


def _stand_ins(tmp_path: Path) -> list[Path]:
    """The folders gracr (before and after the fix) would keep numba's cache in."""
    cache = tmp_path / "cache"
    return [cache / "numba", cache / f"numba-{os.getuid()}"]


def test_a_cache_folder_writable_by_others_is_not_used(tmp_path: Path) -> None:
    for folder in _stand_ins(tmp_path):
        folder.mkdir(parents=True)
        folder.chmod(0o777)
    done = _python(_CHOSEN, _env(tmp_path))
    assert done.returncode == 0, done.stderr
    chosen = Path(done.stdout.strip())
    assert chosen not in _stand_ins(tmp_path)
    assert "writable by other users (mode 777)" in done.stderr and "not used" in done.stderr
    assert chosen == tmp_path / "home-cache" / "gracr" / f"numba-{os.getuid()}"
    assert chosen.stat().st_mode & 0o777 == 0o700


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder another user owns needs root")
def test_a_cache_folder_another_user_owns_is_not_used(tmp_path: Path) -> None:
    for folder in _stand_ins(tmp_path):
        folder.mkdir(parents=True, mode=0o700)
        os.chown(folder, 65534, 65534)
    done = _python(_CHOSEN, _env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) not in _stand_ins(tmp_path)
    assert "owned by another user (uid 65534)" in done.stderr


def test_a_numba_cache_dir_set_by_the_user_is_checked_too(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    done = _python(_CHOSEN, _env(tmp_path, NUMBA_CACHE_DIR=str(shared)))
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) != shared and f"{shared}: writable by other" in done.stderr
    private = tmp_path / "private"
    done = _python(_CHOSEN, _env(tmp_path, NUMBA_CACHE_DIR=str(private)))
    assert Path(done.stdout.strip()) == private and done.stderr == ""


@pytest.mark.big
def test_a_truncated_cache_index_is_rebuilt_with_a_message(tmp_path: Path) -> None:
    env = _env(tmp_path)
    build = ["import sys; from gracr.cli import main; sys.exit(main(sys.argv[1:]))",
             "dataset", "Redundancy", "--graphs", "2"]
    first = _python(build[0], env, *build[1:], "--out", str(tmp_path / "d1"))
    assert first.returncode == 0, first.stderr
    indexes = list((tmp_path / "cache").rglob("*.nbi"))
    assert indexes
    for index in indexes:
        index.write_bytes(index.read_bytes()[:10])
    again = _python(build[0], env, *build[1:], "--out", str(tmp_path / "d2"))
    assert again.returncode == 0, again.stderr
    assert "cannot be loaded" in again.stderr and "rebuilt" in again.stderr
    assert all(index.stat().st_size > 10 for index in indexes)


_PARSE = "import pathlib, sys, gracr; gracr.parse(pathlib.Path(sys.argv[1]))"


def test_the_parser_table_is_not_read_from_the_shared_temp_folder(tmp_path: Path) -> None:
    """lark's own cache (`cache=True`) is a pickle at a predictable name in the temp
    folder: another user who writes it first runs code in every gracr process."""
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    marker = tmp_path / "planted-code-ran"
    env = _env(tmp_path, TMPDIR=str(shared_tmp))
    formula = str(ROOT / "gracr" / "formulas" / "Redundancy.gml")
    assert _python(_PARSE, env, formula).returncode == 0
    for cached in shared_tmp.glob(".lark*"):          # plant a payload after its hash line
        first_line = cached.read_bytes().split(b"\n", 1)[0]
        payload = (b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR.")
        cached.write_bytes(first_line + b"\n" + payload)
    done = _python(_PARSE, env, formula)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert not list(shared_tmp.glob(".lark*"))
