"""A peer study's headline table, the one way both peer studies (WOMBAT's,
`gracr.domains.chem.headlines`; the tissue note's, `gracr.domains.tissue.headlines`) set a
paper's headline findings beside what gracr measured.

Each `Finding` (in the study's `published` module: what the paper claims, its value, where)
is measured by the study's code into an `Outcome` (what we get, and a verdict by a rule
stated in that code), or is not run. A row reads: finding | the paper | we get | verdict |
why, where it differs | is the why tested. The reasons are the study's, written once, and
are printed only beside a difference (or a finding not run), so that a rerun whose verdict
flips does not carry a reason for a difference it no longer shows. `Headlines.beside` gives
the short "reproduced / not reproduced — why" lines each table of a study carries for the
findings it shows. `Headlines.over_runs` sets several runs' rows (the tissue study's dataset
seeds) side by side in one table, a finding reproduced only where every run reproduces it.

What both studies' measures share is here too: `judged` (an outcome and its verdict by a
rule that holds or not) and `Estimate` / `estimate` (a mean of per-unit means with its 95 %
bootstrap interval, `gracr.stats.mean_of_means`, as a table cell shows it: a unit is a
pattern of molecules in WOMBAT's study, a model of samples in the note's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from gracr.bench.report.formatting import DASH, TABLE
from gracr.errors import GracrError
from gracr.stats import Group, Interval, mean_of_means

REPRODUCED, DIFFERS, NOT_RUN = "reproduced", "not reproduced", "not run"
UNTESTED = "untested"
NOT_KNOWN = "not known"

Evidence = TypeVar("Evidence")


@dataclass(frozen=True)
class Finding:
    """One of a paper's headline findings: a short `key` (what the study's code measures it
    by), the `claim` in a few words, the paper's `value` and where in the paper it stands."""

    key: str
    claim: str
    value: str
    where: str


@dataclass(frozen=True)
class Outcome:
    """What the study measured for a finding, and the verdict of the study's rule."""

    we_get: str
    verdict: str


def judged(we_get: str, holds: bool) -> Outcome:
    """What the study measured, reproduced where the study's rule `holds`."""
    return Outcome(we_get, REPRODUCED if holds else DIFFERS)


@dataclass(frozen=True)
class Estimate:
    """A mean of per-unit means and its 95 % bootstrap interval."""

    mean: float
    interval: Interval | None

    def __str__(self) -> str:
        return TABLE.with_interval(TABLE.number(self.mean), self.interval)


def estimate(per_unit: Mapping[Group, Sequence[float | None]]) -> Estimate | None:
    """The mean over units of each unit's mean over its values (`None` values left out),
    with the bootstrap interval that resamples the values within each unit
    (`gracr.stats.mean_of_means`); None when no unit has a value."""
    found = mean_of_means(per_unit)
    return None if found is None else Estimate(*found)


@dataclass(frozen=True)
class Headlines(Generic[Evidence]):
    """A study's findings and how it reads them: `measures[key]` (`None` from a measure:
    the records hold nothing for it), `why_differs[key]` = (reason, how it is tested), and
    `why_not_run[key]` for findings no code measures. `paper` names the paper in a line
    ("WOMBAT: 11 of 14"), `called` in a sentence ("Beside the note"; default `paper`)."""

    paper: str
    findings: Sequence[Finding]
    measures: Mapping[str, Callable[[Evidence], Outcome | None]]
    why_differs: Mapping[str, tuple[str, str]]
    why_not_run: Mapping[str, str]
    called: str = ""

    @property
    def name(self) -> str:
        return self.called or self.paper

    @property
    def headers(self) -> tuple[str, ...]:
        return (f"finding (where in {self.name})", self.name, "we get (95 % CI)", "verdict",
                "why, where it differs", "is the why tested")

    def rows(self, evidence: Evidence) -> list[list[str]]:
        """One row per finding, in the paper's order (see the module docstring)."""
        rows = []
        for finding in self.findings:
            claim = f"{finding.claim} ({finding.where})"
            measure = self.measures.get(finding.key)
            outcome = None if measure is None else measure(evidence)
            if outcome is None:
                why = self.why_not_run.get(finding.key,
                                           "this run's records hold nothing for it")
                rows.append([claim, finding.value, DASH, NOT_RUN, why, DASH])
                continue
            why, tested = self.why_differs.get(finding.key, (NOT_KNOWN, UNTESTED))
            differs = outcome.verdict == DIFFERS
            rows.append([claim, finding.value, outcome.we_get, outcome.verdict,
                         why if differs else DASH, tested if differs else DASH])
        return rows

    def row(self, evidence: Evidence, key: str) -> list[str]:
        """The row of the one finding `key` (as `rows` gives it)."""
        only = [finding for finding in self.findings if finding.key == key]
        if not only:
            raise KeyError(f"{self.name} has no finding '{key}'")
        return replace(self, findings=only).rows(evidence)[0]

    def lines(self, rows: Sequence[Sequence[str]], keys: Sequence[str]) -> str:
        """The short lines a table carries for the findings `keys` it shows: the claim, the
        verdict and, where it differs or was not run, why (and whether that is tested)."""
        by_key = {finding.key: row for finding, row in zip(self.findings, rows)}
        out = []
        for key in keys:
            row = by_key[key]
            finding = next(f for f in self.findings if f.key == key)
            text = f"- *{finding.claim}* ({self.paper}: {finding.value}): {row[3]}"
            if row[4] != DASH:
                text += f" — {row[4]}" + (f"; {row[5]}" if row[5] != DASH else "")
            out.append(text + ".")
        return "\n".join(out)

    def beside(self, rows: Sequence[Sequence[str]], keys: Sequence[str]) -> str:
        """`lines` under their heading, "Beside WOMBAT:" or "Beside the note:"."""
        return f"Beside {self.name}:\n\n" + self.lines(rows, keys)

    def over_runs(self, runs: Sequence[tuple[str, Sequence[Sequence[str]]]]
                  ) -> tuple[tuple[str, ...], list[list[str]]]:
        """The headers and rows of one table over several runs of the study (`runs`: each
        run's name, e.g. "dataset seed 1", and its `rows`). A finding is reproduced over
        the runs only where every run reproduces it, not run where no run ran it, and
        otherwise not reproduced; "reproduced on" says where it holds, and the why is that
        of the first run that differs (named, where other runs reproduce it). The columns
        are `headers`' with "reproduced on" in place of "we get", so `counted` and `lines`
        read these rows as they read a run's."""
        if not runs:
            raise GracrError("no run to combine")
        claims = [row[0] for row in runs[0][1]]
        for name, rows in runs[1:]:
            if [row[0] for row in rows] != claims:
                raise GracrError(f"{name}: its findings are not those of {runs[0][0]} (a "
                                 f"report of another version); report both again")
        combined = []
        for index, claim in enumerate(claims):
            verdicts = [(name, rows[index]) for name, rows in runs]
            holds = [name for name, row in verdicts if row[3] == REPRODUCED]
            ran = [name for name, row in verdicts if row[3] != NOT_RUN]
            if not ran:
                verdict = NOT_RUN
            elif len(holds) == len(runs):
                verdict = REPRODUCED
            else:
                verdict = DIFFERS
            where = (f"{len(holds)} of {len(runs)}" + (f": {', '.join(holds)}" if holds else "")
                     + (f"; not run on {', '.join(n for n, _ in verdicts if n not in ran)}"
                        if ran and len(ran) < len(runs) else ""))
            differing = [(name, row) for name, row in verdicts if row[3] != REPRODUCED]
            why, tested = (DASH, DASH) if not differing else differing[0][1][4:6]
            if holds and differing:
                # Some runs reproduce it: say which do not, and whose why this is.
                why = (f"not on {', '.join(name for name, _ in differing)}; "
                       f"{differing[0][0]}: {why}")
            combined.append([claim, runs[0][1][index][1], where, verdict, why, tested])
        headers = list(self.headers)
        headers[2] = "reproduced on"
        return tuple(headers), combined


def counted(rows: Sequence[Sequence[str]]) -> str:
    """'k reproduced, m not reproduced, n not run' of a study's headline rows."""
    verdicts = [row[3] for row in rows]
    return ", ".join(f"{verdicts.count(v)} {v}" for v in (REPRODUCED, DIFFERS, NOT_RUN))
