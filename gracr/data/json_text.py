"""JSON from untrusted text: every way `json.loads` can fail, as one `JsonError`.

Besides malformed text (`json.JSONDecodeError`), the standard decoder raises
`RecursionError` on arrays nested a few thousand deep and `ValueError` on an integer
of more than 4300 digits; a graph file, a model's metadata or a results line may hold
either, and each must read as bad input, not as a crash.
"""

from __future__ import annotations

import json
import sys
from typing import Any


class JsonError(ValueError):
    """Text that is not usable JSON: `message` says why, `line` and `column` where (1-based;
    0 when the decoder gives no place)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def at(self, place: str) -> str:
        """`place:line:col: invalid JSON: message` (the line and column when known)."""
        where = f"{place}:{self.line}:{self.column}" if self.line else place
        return f"{where}: invalid JSON: {self.message}"


def parse_json(text: str) -> Any:
    """`json.loads(text)`, raising `JsonError` for anything that is not usable JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonError(error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise JsonError("nested too deeply") from None
    except ValueError:
        raise JsonError(f"an integer of more than {sys.get_int_max_str_digits()} digits") \
            from None
