"""The README's Python examples run as written, and those of the Python API section use
only the public API (`import gracr`, then `gracr.X`).

Every ```python block of README.md is extracted and run as a script of its own, in a
child process (a block may register explainers: the registry is process-wide) and in a
temporary folder (examples write files such as `m.npz` and `out/...`). A block is left
out only with its reason in `NOT_RUN` below.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

NOT_RUN = {
    # a line of the block -> why it does not run as a script
    "from gracr.explainers.base import Subject, scores":
        "a fragment: uses model, prog, g and target from an earlier context",
    "import mine": "needs the reader's own plugin module `mine` and formula `my.gml`",
}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, body) of each ```python block."""
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)]


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def not_run(body: str) -> str | None:
    return next((why for line, why in NOT_RUN.items() if line in body), None)


BLOCKS = python_blocks(README)


def test_the_readme_has_its_python_examples() -> None:
    assert len(BLOCKS) >= 7
    assert len(python_blocks(section("Python API"))) == 3


@pytest.mark.parametrize("line,body", BLOCKS, ids=[f"README.md:{line}" for line, _ in BLOCKS])
def test_a_python_example_runs(line: int, body: str, tmp_path: Path) -> None:
    why = not_run(body)
    if why:
        pytest.skip(why)
    script = tmp_path / f"readme_{line}.py"
    script.write_text(body, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"README.md:{line}:\n{done.stderr}"


@pytest.mark.parametrize("line,body", python_blocks(section("Python API")))
def test_the_python_api_examples_use_only_the_public_api(line: int, body: str) -> None:
    imports = [statement for statement in body.splitlines()
               if re.match(r"\s*(import|from)\s", statement)]
    assert imports == ["import gracr"], f"README.md:{line}: {imports}"
    import gracr

    used = set(re.findall(r"\bgracr\.(\w+)", body))
    assert used <= set(gracr.__all__), f"README.md:{line}: {used - set(gracr.__all__)}"

