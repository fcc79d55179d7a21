"""Every page of the site's Getting started, and the README's example, runs as written.

A page is run top to bottom in a fresh folder of its own, as a reader would follow it:

- a fenced block with a `title="NAME"` is a file the page asks the reader to save: it is
  written to NAME;
- a ```bash block is commands, one a line: `gracrc ...` runs as a process of its own
  (`python -m gracr.cli`, this checkout's code), and must exit 0; the two setup lines of
  the Install page (`bash scripts/...`) are not run (they take minutes, and CI runs both
  scripts as its own stages), only checked to be the README's;
- a ```python block without a title runs as a script of its own, and must exit 0;
- a ```text block without a title right after a command or script is what it prints: each
  of its lines, but for `...`, must be a line of the output, in that order.

Each page takes seconds; the one that runs a benchmark (torch, a dataset built on the fly)
is marked `big` when it takes longer than the default suite's 30 s a test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "getting-started"
# The order a reader follows them (mkdocs.yml's nav), and the ones slower than 30 s here.
ORDER = ["install.md", "first-rule.md", "ground-truth.md", "first-benchmark.md"]
BIG = {"first-benchmark.md"}
SETUP_LINES = ["bash scripts/setup.sh && bash scripts/main.sh",
               "bash scripts/setup.sh && bash scripts/test.sh"]


@dataclass(frozen=True)
class Block:
    language: str
    title: str | None
    body: str
    line: int


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a Markdown text, in order."""
    found = re.finditer(r'^```(\w*)(?:[ \t]+title="([^"]+)")?[ \t]*\n(.*?)^```[ \t]*$', text,
                        flags=re.S | re.M)
    return [Block(m.group(1), m.group(2), m.group(3), text.count("\n", 0, m.start()) + 1)
            for m in found]


def environment(folder: Path) -> dict[str, str]:
    """This checkout's gracr first on the path; datasets, kernels and tuned settings kept
    inside the page's folder (never the user's cache)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, GRACR_CACHE=str(folder / "cache"),
                GRACR_CONFIG=str(folder / "config"))


def run_command(line: str, folder: Path) -> subprocess.CompletedProcess[str]:
    program, *argv = shlex.split(line)
    assert program == "gracrc", f"a Getting-started command that is not gracrc: {line}"
    return subprocess.run([sys.executable, "-m", "gracr.cli", *argv], cwd=folder,
                          env=environment(folder), capture_output=True, text=True, timeout=300)


def run_script(body: str, folder: Path) -> subprocess.CompletedProcess[str]:
    script = folder / "_block.py"
    script.write_text(body, encoding="utf-8")
    try:
        return subprocess.run([sys.executable, str(script)], cwd=folder,
                              env=environment(folder), capture_output=True, text=True,
                              timeout=300)
    finally:
        script.unlink()


def assert_printed(expected: str, printed: str, where: str) -> None:
    """Each line of `expected` (but `...`) is a line of `printed`, in order."""
    lines = [line.rstrip() for line in printed.splitlines()]
    position = 0
    for wanted in expected.rstrip("\n").splitlines():
        if wanted.strip() == "...":
            continue
        try:
            position = lines.index(wanted.rstrip(), position) + 1
        except ValueError:
            raise AssertionError(f"{where}: the page shows {wanted!r}, which was not printed "
                                 f"(after what the page shows before it):\n{printed}") from None


def run_page(text: str, name: str, folder: Path) -> int:
    """Run a page's blocks in `folder`; the number of commands and scripts run."""
    last_output: str | None = None
    ran = 0
    for block in blocks(text):
        where = f"{name}:{block.line}"
        if block.title is not None:
            target = folder / block.title
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
            last_output = None
        elif block.language == "bash":
            last_output = ""
            for line in block.body.splitlines():
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.startswith("bash scripts/"):
                    assert line in SETUP_LINES, f"{where}: {line}"
                    continue
                done = run_command(line, folder)
                assert done.returncode == 0, f"{where}: {line}\n{done.stderr}"
                last_output += done.stdout
                ran += 1
        elif block.language == "python":
            done = run_script(block.body, folder)
            assert done.returncode == 0, f"{where}:\n{done.stderr}"
            last_output = done.stdout
            ran += 1
        elif block.language == "text":
            assert last_output is not None, f"{where}: output shown after no command"
            assert_printed(block.body, last_output, where)
            last_output = None
        else:
            raise AssertionError(f"{where}: a ```{block.language} block, which this test "
                                 "does not know how to run")
    return ran


def test_the_pages_are_the_ones_in_the_site_s_order() -> None:
    assert sorted(p.name for p in PAGES.glob("*.md")) == sorted(ORDER)
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    places = [nav.index(f"getting-started/{name}") for name in ORDER]
    assert places == sorted(places)


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.big) if name in BIG
                                  else name for name in ORDER])
def test_a_getting_started_page_runs_as_written(name: str, tmp_path: Path) -> None:
    text = (PAGES / name).read_text(encoding="utf-8")
    assert run_page(text, name, tmp_path) >= 2


def test_the_install_page_shows_the_readme_s_two_commands() -> None:
    for text in ((PAGES / "install.md").read_text(encoding="utf-8"),
                 (ROOT / "README.md").read_text(encoding="utf-8")):
        shown = [line.strip() for block in blocks(text) if block.language == "bash"
                 for line in block.body.splitlines() if line.startswith("bash scripts/")]
        assert shown == SETUP_LINES
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/setup.sh" in ci and "bash scripts/test.sh" in ci


def test_the_readme_example_runs_and_prints_what_it_shows(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    example = [block for block in blocks(text) if block.language in ("python", "text")]
    assert [block.language for block in example] == ["python", "text"]
    assert run_page("".join(f"```{b.language}\n{b.body}```\n" for b in example),
                    "README.md", tmp_path) == 1


def test_a_broken_block_fails(tmp_path: Path) -> None:
    # The runner is a test too: a command that fails, or output the page shows but that is
    # not printed, fails the page.
    with pytest.raises(AssertionError, match="gracrc upi"):
        run_page("```bash\ngracrc upi missing.gml nothing.jsonl\n```\n", "x.md", tmp_path)
    with pytest.raises(AssertionError, match="was not printed"):
        run_page("```python\nprint('one')\n```\n\n```text\ntwo\n```\n", "x.md", tmp_path)
    with pytest.raises(AssertionError, match="does not know"):
        run_page("```sh\nls\n```\n", "x.md", tmp_path)
