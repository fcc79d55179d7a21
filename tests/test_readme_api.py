"""The Python examples of the README and the docs run as written and import gracr only
through its fronts; those of the site's Python API page (docs/reference/python-api.md) use
only `import gracr`, then `gracr.X`.

Every ```python block of README.md and docs/**/*.md is extracted and run as a script of its own, in a
child process (a block may register explainers: the registry is process-wide) and in a
temporary folder (examples write files such as `m.npz` and `out/...`). A block is left
out only with its reason in `NOT_RUN` below, or when another test runs it: the Getting
started pages and the README's example run in tests/test_docs_getting_started.py, page by
page in order (their blocks read the files the page saved before them) with what they print
checked.
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
PYTHON_API = ROOT / "docs" / "reference" / "python-api.md"
# Run, with their output checked, by tests/test_docs_getting_started.py.
RUN_ELSEWHERE = ("README.md:", "docs/getting-started/")

NOT_RUN = {
    # a line of the block -> why it does not run as a script
    "import mine": "needs the reader's own plugin module `mine` and formula `my.gml`",
}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, body) of each ```python block."""
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)]


def not_run(body: str) -> str | None:
    return next((why for line, why in NOT_RUN.items() if line in body), None)


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# (where, body) of every example: where is `file:line`.
BLOCKS = [(f"{path.relative_to(ROOT)}:{line}", body) for path in DOCUMENTS
          for line, body in python_blocks(path.read_text(encoding="utf-8"))]


RUN_HERE = [(where, body) for where, body in BLOCKS if not where.startswith(RUN_ELSEWHERE)]


def test_the_readme_and_the_docs_have_their_python_examples() -> None:
    assert len([where for where, _ in BLOCKS if where.startswith("README.md:")]) == 1
    assert any(where.startswith("docs/architecture.md:") for where, _ in BLOCKS)
    assert len([where for where, _ in BLOCKS if where.startswith("docs/getting-started/")]) >= 4
    assert len(RUN_HERE) >= 8
    assert len(python_blocks(PYTHON_API.read_text(encoding="utf-8"))) == 3


@pytest.mark.parametrize("where,body", RUN_HERE, ids=[where for where, _ in RUN_HERE])
def test_a_python_example_runs(where: str, body: str, tmp_path: Path) -> None:
    why = not_run(body)
    if why:
        pytest.skip(why)
    script = tmp_path / "example.py"
    script.write_text(body, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{where}:\n{done.stderr}"


@pytest.mark.parametrize("line,body", python_blocks(PYTHON_API.read_text(encoding="utf-8")))
def test_the_python_api_examples_use_only_the_public_api(line: int, body: str) -> None:
    where = f"{PYTHON_API.relative_to(ROOT)}:{line}"
    imports = [statement for statement in body.splitlines()
               if re.match(r"\s*(import|from)\s", statement)]
    assert imports == ["import gracr"], f"{where}: {imports}"
    import gracr

    used = set(re.findall(r"\bgracr\.(\w+)", body))
    assert used <= set(gracr.__all__), f"{where}: {used - set(gracr.__all__)}"



# The package fronts an example of the README or the docs may import from besides `gracr`
# itself: each package's `__init__` names what it offers; its modules are not the API.
FRONTS = {"gracr", "gracr.explainers", "gracr.bench", "gracr.fuzz", "gracr.domains.chem",
          "gracr.domains.tissue"}


@pytest.mark.parametrize("where,body", BLOCKS, ids=[where for where, _ in BLOCKS])
def test_every_python_example_imports_gracr_only_through_its_fronts(where: str,
                                                                    body: str) -> None:
    imported = re.findall(r"^\s*(?:from|import)\s+(gracr[\w.]*)", body, flags=re.M)
    assert set(imported) <= FRONTS, f"{where}: {set(imported) - FRONTS}"
    for front in set(imported):
        module = __import__(front, fromlist=["__all__"])
        names = re.findall(rf"^\s*from\s+{re.escape(front)}\s+import\s+(\([^)]*\)|[^\n#]+)",
                           body, flags=re.M)
        wanted = {name.strip(" \n()") for group in names for name in group.split(",")
                  if name.strip(" \n()")}
        assert wanted <= set(module.__all__), f"{where}: {wanted - set(module.__all__)}"
