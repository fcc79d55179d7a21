"""The README's Python examples run as written, and those of the Python API section use
only the public API (`import gracr`, then `gracr.X`).

Every ```python block of README.md is extracted and run in a fresh namespace, in a
temporary folder (examples write files such as `m.npz` and `out/...`). A block is left
out only with its reason in `WAITING` below.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

# The explainer API (`gracr.explain`, `gracr.score`, the explainer protocol) is built
# in `gracr/explainers/api.py` by another change. LEAD: once it lands, the blocks below
# that only wait for it run by themselves (they are skipped while the module is
# missing); the randomisation and fuzzing examples still use names outside `gracr.X`
# and are expected to move to the explainer API with it.
EXPLAINER_API = importlib.util.find_spec("gracr.explainers.api") is not None
WAITING = {
    # a line of the block -> why it does not run yet
    "gracr.explain(": None if EXPLAINER_API else "needs gracr.explain / gracr.score "
                                                 "(gracr/explainers/api.py)",
    "register(ExplainerSpec(": "registers plugin explainers: the explainer protocol's "
                               "example, to be rewritten with gracr/explainers/api.py",
    "from gracr.explainers.base import Subject, scores":
        "uses model, prog, g and target of an earlier context, and the explainer "
        "internals that gracr.explain replaces",
    "import mine": "needs the user's own plugin module `mine` and `my.gml`",
}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, body) of each ```python block."""
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M)]


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def waiting(body: str) -> str | None:
    return next((why for line, why in WAITING.items() if line in body and why), None)


BLOCKS = python_blocks(README)


def test_the_readme_has_its_python_examples() -> None:
    assert len(BLOCKS) >= 7
    assert len(python_blocks(section("Python API"))) == 3


@pytest.mark.parametrize("line,body", BLOCKS, ids=[f"README.md:{line}" for line, _ in BLOCKS])
def test_a_python_example_runs(line: int, body: str, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    why = waiting(body)
    if why:
        pytest.skip(why)
    monkeypatch.chdir(tmp_path)
    exec(compile(body, f"README.md:{line}", "exec"), {"__name__": "__readme__"})


@pytest.mark.parametrize("line,body", python_blocks(section("Python API")))
def test_the_python_api_examples_use_only_the_public_api(line: int, body: str) -> None:
    imports = [statement for statement in body.splitlines()
               if re.match(r"\s*(import|from)\s", statement)]
    assert imports == ["import gracr"], f"README.md:{line}: {imports}"
    import gracr

    used = set(re.findall(r"\bgracr\.(\w+)", body))
    assert used <= set(gracr.__all__), f"README.md:{line}: {used - set(gracr.__all__)}"

