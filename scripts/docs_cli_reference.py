"""MkDocs hook (mkdocs.yml `hooks:`): the CLI reference page, generated at build time from
the real `gracrc` parser (`gracr.cli.build_parser`), so the options are written once, in
the code. The page is `reference/cli.md`; it exists only in the built site.

`cli_reference_markdown()` is importable on its own (tests/test_docs_site.py checks the page
names every command and option the parser has).
"""

from __future__ import annotations

import argparse
from typing import Any, cast

PAGE = "reference/cli.md"
# Help text wrapped at a width that reads in the site's code blocks and is the same on
# every machine (argparse would otherwise take the terminal's width).
HELP_WIDTH = 96


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The `gracrc` subcommands by name, in the order `gracrc --help` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise ValueError("gracrc's parser has no subcommands")


def _help_lines(parser: argparse.ArgumentParser) -> dict[str, str]:
    """One-line help of each subcommand, as `gracrc --help` shows it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _fixed_width(parser: argparse.ArgumentParser) -> None:
    # gracr's parsers use HelpFormatter or RawDescriptionHelpFormatter, which take a width.
    base = cast(type[argparse.HelpFormatter], parser.formatter_class)

    def formatter(prog: str) -> argparse.HelpFormatter:
        return base(prog, width=HELP_WIDTH)

    parser.formatter_class = formatter


def cli_reference_markdown() -> str:
    """The Markdown of the CLI reference: `gracrc --help`, then each command's `--help`."""
    from gracr.cli import build_parser

    parser = build_parser()
    _fixed_width(parser)
    commands = _subcommands(parser)
    summaries = _help_lines(parser)
    lines = [
        "# Command-line reference",
        "",
        "Generated when the site is built, from `gracrc`'s own parser: this is exactly what",
        "`gracrc COMMAND --help` prints. The guides explain what the commands are for: "
        "[the language](../language/command-line.md), "
        "[ground truth](../ground-truth/upi.md), "
        "[benchmarking](../benchmarking/running.md) and the [domains](../domains/paper.md).",
        "",
        "| command | what it does |",
        "|---|---|",
        *(f"| [`{name}`](#gracrc-{name}) | {summaries.get(name, '')} |" for name in commands),
        "",
        "## `gracrc`",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for name, subparser in commands.items():
        _fixed_width(subparser)
        lines += [f"## `gracrc {name}` {{ #gracrc-{name} }}", "", summaries.get(name, ""), "",
                  "```text", subparser.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def on_files(files: Any, config: Any) -> Any:
    """Add the generated page to the site's files (MkDocs calls this before reading pages)."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=cli_reference_markdown()))
    return files
