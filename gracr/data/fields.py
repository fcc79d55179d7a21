"""Typed access to the fields of one JSON object read from a file (a results line, a model
file's metadata): each problem is one error naming the place and the field."""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

from gracr.errors import GracrError


def shown_json(value: Any) -> str:
    """A JSON value for a message, cut short: a hostile file's values can be huge or deep."""
    try:
        text = json.dumps(value)
    except (RecursionError, ValueError):
        return "a value nested too deeply to show"
    return text if len(text) <= 60 else text[:60] + "…"


class Fields:
    """Typed access to one JSON object, each problem raised as `error("place: message")`
    (a `GracrError` unless another subclass is given)."""

    def __init__(self, obj: Mapping[str, object], place: str,
                 error: type[GracrError] = GracrError) -> None:
        self.obj = obj
        self.place = place
        self.error = error

    def raw(self, name: str) -> object:
        if name not in self.obj:
            raise self.error(f"{self.place}: missing field '{name}'")
        return self.obj[name]

    def bad(self, name: str, expected: str) -> GracrError:
        return self.error(f"{self.place}: field '{name}' should be {expected}, "
                          f"got {shown_json(self.obj[name])}")

    def text(self, name: str) -> str:
        value = self.raw(name)
        if not isinstance(value, str) or not value:
            raise self.bad(name, "a non-empty string")
        return value

    def optional_text(self, name: str) -> str | None:
        value = self.raw(name)
        if value is not None and not isinstance(value, str):
            raise self.bad(name, "a string or null")
        return value

    def texts(self, name: str) -> tuple[str, ...]:
        """A list of strings."""
        value = self.raw(name)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(name, "a list of strings")
        return tuple(value)

    def objects(self, name: str) -> list[Fields]:
        """A list of JSON objects, each with its own typed access."""
        value = self.raw(name)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.bad(name, "a list of objects")
        return [Fields(v, f"{self.place}: {name}[{i}]", self.error) for i, v in enumerate(value)]

    def object(self, name: str) -> Fields:
        """A JSON object, with its own typed access."""
        value = self.raw(name)
        if not isinstance(value, dict):
            raise self.bad(name, "an object")
        return Fields(value, f"{self.place}: {name}", self.error)

    def choice(self, name: str, choices: Sequence[str]) -> str:
        value = self.raw(name)
        if value not in choices:
            raise self.bad(name, "one of " + ", ".join(choices))
        assert isinstance(value, str)
        return value

    def boolean(self, name: str) -> bool:
        value = self.raw(name)
        if not isinstance(value, bool):
            raise self.bad(name, "true or false")
        return value

    def integer(self, name: str, low: int | None = None) -> int:
        """An integer (at least `low`, when given)."""
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int) or \
                (low is not None and value < low):
            raise self.bad(name, "an integer" if low is None else f"an integer, at least {low}")
        return value

    def optional_integer(self, name: str, low: int | None = None) -> int | None:
        return None if self.raw(name) is None else self.integer(name, low)

    def number(self, name: str, high: float = math.inf) -> float:
        """A number in [0, high] (every number of a record is a score, a threshold or seconds)."""
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= high:
            bounds = "0 or more" if math.isinf(high) else f"in [0, {high:g}]"
            raise self.bad(name, f"a number {bounds}")
        return float(value)

    def optional_number(self, name: str, high: float = math.inf) -> float | None:
        return None if self.raw(name) is None else self.number(name, high)

    def optional_real(self, name: str) -> float | None:
        """Null or any number (a threshold on explainer scores, which may be negative)."""
        value = self.raw(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise self.bad(name, "a number or null")
        return float(value)
