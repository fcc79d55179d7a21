"""The documentation site's generated parts say everything they should.

`mkdocs build --strict` (a CI stage) fails on a broken link or reference, but not on what a
generator leaves out: the CLI reference must name every command and option of `gracrc`'s
parser, and the API reference every public name of each front, which mkdocstrings drops
without a word when griffe cannot resolve it statically. And every page must be in the
navigation, where a reader finds it.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import griffe
import pytest
import yaml  # type: ignore[import-untyped]

from gracr.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _hook_module() -> object:
    spec = importlib.util.spec_from_file_location("docs_cli_reference",
                                                  ROOT / "scripts" / "docs_cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_cli_reference_names_every_command_and_option() -> None:
    page: str = _hook_module().cli_reference_markdown()  # type: ignore[attr-defined]
    subparsers = next(action for action in build_parser()._actions
                      if isinstance(action, argparse._SubParsersAction))
    assert list(subparsers.choices) == list(COMMANDS)
    for name, parser in subparsers.choices.items():
        heading = f"## `gracrc {name}` {{ #gracrc-{name} }}"
        assert heading in page, name
        section = page.split(heading, 1)[1].split("\n## ", 1)[0]
        assert f"usage: gracrc {name}" in section
        for action in parser._actions:
            for option in action.option_strings:
                assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", section), \
                    (name, option)


def test_the_hook_and_the_site_configuration_agree() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "scripts/docs_cli_reference.py" in config
    assert _hook_module().PAGE == "reference/cli.md"  # type: ignore[attr-defined]
    assert not (DOCS / "reference" / "cli.md").exists(), "generated, never written"


FRONTS = {"gracr": "gracr.md", "gracr.explainers": "explainers.md", "gracr.bench": "bench.md",
          "gracr.fuzz": "fuzz.md", "gracr.domains.chem": "chem.md",
          "gracr.domains.tissue": "tissue.md"}


@pytest.fixture(scope="module")
def loader() -> griffe.GriffeLoader:
    """gracr as mkdocstrings reads it: statically, from this checkout."""
    found = griffe.GriffeLoader(search_paths=[str(ROOT)])
    found.load("gracr")
    found.resolve_aliases(implicit=False, external=None)
    return found


@pytest.mark.parametrize("front", sorted(FRONTS))
def test_the_api_reference_resolves_every_public_name(front: str,
                                                      loader: griffe.GriffeLoader) -> None:
    page = (DOCS / "reference" / "api" / FRONTS[front]).read_text(encoding="utf-8")
    assert f"::: {front}\n" in page
    module = loader.modules_collection[front]
    exported = [name if isinstance(name, str) else name.name for name in module.exports or ()]
    imported = importlib.import_module(front)
    assert sorted(exported) == sorted(imported.__all__)
    for name in exported:
        member = module.members[name]
        if name == "audit":   # a callable package: shown from gracr.audit.run
            assert "::: gracr.audit.run.audit" in page
            continue
        try:
            member.docstring   # resolving an alias raises when its target is not found
        except griffe.AliasResolutionError as error:
            raise AssertionError(f"{front}.{name}: {error}") from None


def _nav_pages(entries: object) -> list[str]:
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, list):
        return [page for entry in entries for page in _nav_pages(entry)]
    if isinstance(entries, dict):
        return [page for value in entries.values() for page in _nav_pages(value)]
    return []


def test_every_page_is_in_the_navigation() -> None:
    # The results files are reached from the Results page (there are dozens, generated).
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
                       Loader=yaml.BaseLoader)
    in_nav = set(_nav_pages(config["nav"]))
    written = {str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md")
               if path.relative_to(DOCS).parts[0] != "results"}
    assert written - in_nav == set()
    assert in_nav - written == {"reference/cli.md", "results/index.md", "results/performance.md"}
    assert {"results/index.md", "results/performance.md", "architecture.md"} <= in_nav
