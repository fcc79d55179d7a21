"""`gracrc` run inside a test, without a subprocess: the tests of the commands share it."""

from __future__ import annotations

import io

from gracr.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    """`gracrc ARGV...`: its exit code, what it printed and what it printed as errors."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()
