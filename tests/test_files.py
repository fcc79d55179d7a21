"""`gracr.files`: outputs only to regular files, whole files atomically, logs whose cut
last line is dropped. Stand-ins only (a FIFO, a folder, symbolic links under a temporary
folder), never a real device."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gracr import files
from gracr.errors import GracrError


def test_a_regular_file_is_written_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    files.write_text(target, "new text")
    assert target.read_text() == "new text"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


@pytest.mark.parametrize("kind", ["fifo", "folder", "link-to-fifo", "link-to-folder", "dangling"])
def test_anything_but_a_regular_file_is_refused_and_left_alone(tmp_path: Path, kind: str) -> None:
    fifo, folder = tmp_path / "fifo", tmp_path / "folder"
    os.mkfifo(fifo)
    folder.mkdir()
    path = {"fifo": fifo, "folder": folder}.get(kind, tmp_path / "link")
    if kind.startswith("link") or kind == "dangling":
        os.symlink({"link-to-fifo": fifo, "link-to-folder": folder}.get(kind, tmp_path / "none"),
                   path)
    with pytest.raises(GracrError, match="regular file"):
        files.write_text(path, "x")
    assert fifo.exists() and not fifo.is_file() and folder.is_dir()
    assert path.is_symlink() == (kind.startswith("link") or kind == "dangling")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_a_link_to_a_regular_file_is_followed_and_kept(tmp_path: Path) -> None:
    real, link = tmp_path / "real.txt", tmp_path / "link.txt"
    real.write_text("old")
    os.symlink(real, link)
    files.write_bytes(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"


def test_a_writer_that_fails_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    files.write_json(target, {"a": 1})
    with pytest.raises(RuntimeError):
        with files.atomic_writer(target) as handle:
            handle.write('{"half')
            raise RuntimeError("killed")
    assert target.read_text() == '{\n "a": 1\n}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(GracrError, match="no such folder"):
        files.write_text(tmp_path / "nowhere" / "out.txt", "x")


def test_a_cut_last_line_is_dropped_and_the_next_append_starts_clean(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    files.append_lines(log, ['{"a": 1}', '{"b": 2}'])
    with open(log, "a", encoding="utf-8") as handle:
        handle.write('{"c": ')                     # what a kill mid-append leaves
    values, note = files.read_json_lines(log)
    assert values == [{"a": 1}, {"b": 2}]
    assert note is not None and "log.jsonl:3" in note and "cut" in note
    files.append_lines(log, ['{"d": 4}'])
    assert files.read_json_lines(log) == ([{"a": 1}, {"b": 2}, {"d": 4}], None)


def test_a_damaged_line_inside_a_log_is_an_error_naming_it(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"a": 1}\nnot json\n{"b": 2}\n')
    with pytest.raises(GracrError, match=r"log.jsonl:2: not a JSON line"):
        files.read_json_lines(log)
    assert files.read_json_lines(tmp_path / "missing.jsonl") == ([], None)
