"""`gracrc`: compile `.gml` classifiers, inspect and run them, compute exact UPI, and run
the benchmark and the domains' studies. One module per command group declares its commands
(`Command`: name, help, arguments, run); here they become the one parser, and `main` runs
the command named.

Bad input of any kind (syntax, unknown names, type mixes, malformed graph JSON, a
colour outside the palette, a target out of range) is reported as one clear
message naming the place, with exit status 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import Sequence, TextIO

from gracr.cli import (audit, bench, bench_data, chem, fuzz, ground_truth, language, paper,
                       tissue)
from gracr.cli.command import (EXIT_BAD_INPUT, EXIT_INTERNAL, Command, sigterm_interrupts,
                               stopped_by)
from gracr.errors import GmlError, GracrError, os_error_message

# Every command by name, in the order `gracrc --help` lists them: the language, its ground
# truth, the benchmark, then the domains' commands and the fuzzer.
COMMANDS: dict[str, Command] = {
    command.name: command
    for group in (language, ground_truth, bench_data, bench, paper, chem, tissue, audit, fuzz)
    for command in group.COMMANDS}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gracrc",
        description="Compile graded modal logic (.gml) into GNN weights and compute exact "
                    "ground-truth explanations.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS.values():
        subparser = commands.add_parser(
            command.name, help=command.help, description=command.description,
            formatter_class=(argparse.HelpFormatter if command.description is None
                             else argparse.RawDescriptionHelpFormatter))
        command.declare(subparser)
        subparser.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None) -> int:
    err = sys.stderr if err is None else err
    if out is None and sys.stdout is None:
        # Python starts with no sys.stdout when file descriptor 1 is closed (`>&-`): unlike
        # a reader that went away (a broken pipe, quiet exit 0), nothing could ever be
        # written, so say so before any work is done.
        print("gracrc: error: standard output is closed: nothing can be written (redirect "
              "it to a file, or to /dev/null to discard it)", file=err)
        return EXIT_BAD_INPUT
    out = sys.stdout if out is None else out
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    args.err = err   # where a command reports what it skipped
    try:
        with sigterm_interrupts():
            code: int = args.run(args, out)
        out.flush()
        return code
    except BrokenPipeError:
        # The reader went away (`gracrc inspect model.npz | head -1`): what it wanted is
        # printed. Later writes, and Python's own flush at exit, go to /dev/null.
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except GmlError as error:
        print(error, file=err)
        return EXIT_BAD_INPUT
    except GracrError as error:
        print(f"gracrc: error: {error}", file=err)
        return EXIT_BAD_INPUT
    except OSError as error:  # the machine's answer (a missing folder, a full disk)
        message = (str(error.strerror or error) if error.filename is None
                   else os_error_message(error, os.fsdecode(error.filename)))
        print(f"gracrc: error: {message}", file=err)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError:
        print(f"gracrc: error: {getattr(args, 'file', '?')}: not a UTF-8 text file", file=err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as stop:
        # Ctrl-C or SIGTERM outside a run that says more (`bench`): one line, no traceback,
        # and the shell's status for a process ended by that signal.
        cause = stopped_by(stop)
        print(f"gracrc: {args.command} stopped ({cause.name})", file=err)
        return 128 + cause
    except Exception as error:  # a bug in gracr, not in the input: say where, briefly
        if os.environ.get("GRACR_TRACEBACK"):
            raise
        last = traceback.extract_tb(error.__traceback__)[-1]
        print(f"gracrc: internal error: {type(error).__name__}: {error} "
              f"({Path(last.filename).name}:{last.lineno}). This is a bug in gracr; please "
              f"report it with the command line. GRACR_TRACEBACK=1 shows the traceback.",
              file=err)
        return EXIT_INTERNAL
