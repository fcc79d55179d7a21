"""The site's "Benchmark your own rule" page (docs/benchmarking/task-files.md) is a
copy-paste example: the files it shows are the files in `examples/tasks/`, and its commands
run as written."""

from __future__ import annotations

import io
import re
import shlex
import shutil
from pathlib import Path

import pytest

from gracr.cli import main

ROOT = Path(__file__).resolve().parent.parent


PAGE = ROOT / "docs" / "benchmarking" / "task-files.md"


def page() -> str:
    text = PAGE.read_text(encoding="utf-8")
    assert text.startswith("# Benchmark your own rule\n")
    return text


def blocks(text: str) -> list[tuple[str, str, str]]:
    """(language, body, the line after the block) of each fenced block."""
    found = re.finditer(r"```(\w*)\n(.*?)```\n?([^\n]*)", text, flags=re.S)
    return [(m.group(1), m.group(2), m.group(3)) for m in found]


def test_the_files_shown_are_the_example_files() -> None:
    shown = {}
    for language, body, after in blocks(page()):
        first, _, rest = body.partition("\n")
        named = re.fullmatch(r"# (examples/tasks/\S+)", first)
        if named:
            shown[named.group(1)] = rest
        elif language == "json":
            named_after = re.search(r"`(examples/tasks/\S+)`", after)
            assert named_after, after
            shown[named_after.group(1)] = body
    assert set(shown) == {"examples/tasks/two_red.gml", "examples/tasks/red_triangle.json",
                          "examples/tasks/TwoRedNoGreen.toml"}
    for path, body in shown.items():
        assert (ROOT / path).read_text(encoding="utf-8") == body, path


def test_the_commands_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(ROOT / "examples" / "tasks", tmp_path / "examples" / "tasks")
    monkeypatch.chdir(tmp_path)
    commands = [body for language, body, _ in blocks(page())
                if language == "bash"]
    assert len(commands) == 1
    outputs = []
    for line in commands[0].strip().splitlines():
        words = shlex.split(line)
        assert words[0] == "gracrc"
        out, err = io.StringIO(), io.StringIO()
        assert main(words[1:], out=out, err=err) == 0, err.getvalue()
        outputs.append(out.getvalue())
    assert outputs[0].startswith("TwoRedNoGreen seed 0: 40 graphs, 40 instances")
    assert "| TwoRedNoGreen precision |" in outputs[2] and "| Rnd " in outputs[2]
    assert "instance_Saliency.png" in outputs[2] and "note:" not in outputs[2]
    records = (tmp_path / "out" / "own" / "results.jsonl").read_text().splitlines()
    assert len(records) == 1 + 2 * 2 * 5
