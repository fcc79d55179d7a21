"""Numbers as text, the one way every report writes them: `NumberFormat` (a number, a signed
difference, a percentage, a mean ± std, each with the table's mark for a missing value) and
the marks the tables share.

A table chooses its format once and writes every number with it:

- `PAPER` (two decimals, '-' missing): the GracrBench score tables, as the paper prints
  Tables 2, 3 and 8-11; `LATEX` the same in LaTeX's notation.
- `TIMES` (three decimals): seconds per instance, as the paper prints Table 14.
- `CSV` (six significant digits, empty when missing): every CSV file of a report.
- `FINE` (six decimals, empty when missing): the ranking table's CSV.
- `TABLE` (three decimals, '–' missing): the other tables (WOMBAT's ranking, the tissue
  study's).

Every function here is pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

DAGGER = "†"      # part of a cell ran out of time (App. H) and its numbers use the rest
MISSING = "-"     # no result (the GracrBench tables)
DASH = "–"        # no value (WOMBAT's and the tissue study's tables)


class Bounds(Protocol):
    """A confidence interval: a `gracr.stats.Interval`."""

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...


class MeanAndStd(Protocol):
    """A mean ± std: a `gracr.stats.Stat`, or a published one."""

    @property
    def mean(self) -> float: ...

    @property
    def std(self) -> float | None: ...


@dataclass(frozen=True)
class NumberFormat:
    """How one table writes numbers: `digits` after the point (`kind` 'f') or significant
    (`kind` 'g'), `missing` for a value that is not there, `plus_minus` between a mean and
    its std."""

    digits: int
    missing: str
    kind: Literal["f", "g"] = "f"
    plus_minus: str = " ± "

    def number(self, value: float | None) -> str:
        return self.missing if value is None else f"{value:.{self.digits}{self.kind}}"

    def signed(self, value: float | None) -> str:
        """A difference, its sign always written."""
        return self.missing if value is None else f"{value:+.{self.digits}{self.kind}}"

    def percent(self, value: float | None) -> str:
        """A share in [0, 1] as a percentage, `digits` after the point."""
        return self.missing if value is None else f"{value:.{self.digits}%}"

    def mean_pm(self, mean: float | None, spread: float | None, mark: str | None = None) -> str:
        """mean ± spread (the mean alone without a spread), then ` mark` when given."""
        if mean is None:
            return self.missing
        text = self.number(mean)
        if spread is not None:
            text += self.plus_minus + self.number(spread)
        return text if mark is None else f"{text} {mark}"

    def stat(self, stat: MeanAndStd | None, mark: str | None = None) -> str:
        """`mean_pm` of a mean ± std."""
        return self.missing if stat is None else self.mean_pm(stat.mean, stat.std, mark)

    def interval(self, bounds: Bounds | None) -> str:
        """A confidence interval as `[low, high]` (nothing without one)."""
        return "" if bounds is None else f"[{self.number(bounds.low)}, {self.number(bounds.high)}]"

    def with_interval(self, text: str, bounds: Bounds | None) -> str:
        """A cell (a mean, or a mean ± std) followed by its interval, when it has one."""
        return text if bounds is None or text == self.missing else \
            f"{text} {self.interval(bounds)}"


PAPER = NumberFormat(2, MISSING)
LATEX = NumberFormat(2, "--", plus_minus=" \\pm ")
TIMES = NumberFormat(3, MISSING)
CSV = NumberFormat(6, "", kind="g")
FINE = NumberFormat(6, "")
TABLE = NumberFormat(3, DASH)
