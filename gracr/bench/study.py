"""A resumable study: a folder, the settings that made it, and an ordered list of phases.

A study (`Study` subclass: the tissue study, WOMBAT's explainer study) writes its
settings first (`settings.json`) and checks them on every resume, so that results of two
designs never mix in one folder (GracrBench, the paper's study, keeps none: its records
say what made them, `gracr.domains.paper.study`). Each phase says from its files whether it is complete;
`run` runs, in order, the phases that are not, then the report (always: the tables are
drawn from whatever the folder holds). A phase that is not complete resumes from what
it finds (its logs and files are written whole, through `gracr.files`), so a run stopped
anywhere is started again by running it again.
"""

from __future__ import annotations

import json
import os
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ClassVar, Generic, Protocol, Sequence, TypeVar

from gracr.bench.runner import Engine, Job, job_key, read_done
from gracr.errors import GracrError, os_error_message
from gracr.files import write_json
from gracr.limits import RAY_TIMEOUT

Say = Callable[[str], None]
SETTINGS_FILE = "settings.json"


class Settings(Protocol):
    """What a study runs, as the JSON object its settings file holds."""

    def to_json(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=Settings)


@dataclass(frozen=True)
class Phase:
    """One step of a study: whether its files say it is complete, and how to make (or
    finish) them."""

    name: str
    complete: Callable[[], bool]
    run: Callable[[Say], None]


@dataclass(frozen=True)
class Execution:
    """How a study's explanations run (`gracr.bench.runner.run`): worker processes or a
    Ray cluster, and whether progress is shown. Not a setting: it changes no result."""

    workers: int = 1
    engine: Engine = "process"
    address: str | None = None
    ray_timeout: float = RAY_TIMEOUT
    progress: bool = True
    # Up to this many instances explained in one run where an explainer can
    # (`gracr.bench.runner.Job.batch`): the same scores, the cost shared.
    batch: int = 1


class Study(ABC, Generic[S]):
    """A study of `settings` in `folder`, its explanations run as `execution` says (see
    the module docstring). Subclasses give the phases and the report, and say which
    settings may change on a resume (`FREE`: they only add records or choose what is
    reported), which keys a settings file must hold (`REQUIRED`, with their types) and
    what the study writes beside its settings (`OUTPUTS`), and whether a run says each
    phase as it starts it (`ANNOUNCES_PHASES`)."""

    FREE: ClassVar[tuple[str, ...]] = ()
    REQUIRED: ClassVar[dict[str, type]] = {}
    OUTPUTS: ClassVar[tuple[str, ...]] = ()
    ANNOUNCES_PHASES: ClassVar[bool] = True

    def __init__(self, folder: str | Path, settings: S,
                 execution: Execution = Execution()) -> None:
        self.folder = Path(folder)
        self.settings = settings
        self.execution = execution

    @abstractmethod
    def phases(self) -> Sequence[Phase]:
        """The phases, in the order they run."""

    @abstractmethod
    def report(self, say: Say) -> None:
        """Draw the tables (and figures) from what the folder holds."""

    def run(self) -> Path:
        """Claim the folder, run every phase not complete, then the report (each saying
        what it does, with `execution.progress`); returns the folder."""
        from tqdm import tqdm

        def say(message: str) -> None:
            if self.execution.progress:
                tqdm.write(message)

        def announce(message: str) -> None:
            if self.ANNOUNCES_PHASES:
                say(message)

        self.claim()
        phases = self.phases()
        for number, phase in enumerate(phases, start=1):
            if phase.complete():
                announce(f"[{number}/{len(phases)}] {phase.name}: complete")
            else:
                announce(f"[{number}/{len(phases)}] {phase.name}")
                phase.run(say)
        self.report(say)
        return self.folder

    def claim(self) -> None:
        """Make the folder this study's, or resume the one it holds. A folder holding a
        study of other settings (but `FREE`) is refused (their results would mix), and so
        is one whose settings file is damaged while it holds the study's outputs (which
        settings made them is unknown); a damaged settings file alone (a run stopped while
        writing it, its first file) is written again, as is the file of a resume with
        other `FREE` settings."""
        self.folder.mkdir(parents=True, exist_ok=True)
        settings_file = self.folder / SETTINGS_FILE
        wanted = self.settings.to_json()
        if os.path.lexists(settings_file):
            known = read_settings(settings_file, self.REQUIRED)
            if known is None:
                outputs = [name for name in self.OUTPUTS
                           if os.path.lexists(self.folder / name)]
                if outputs:
                    raise GracrError(f"{settings_file}: damaged (not a study's settings), and "
                                     f"the folder holds a study's {', '.join(outputs)}: which "
                                     f"settings made them is unknown, so it is not resumed; "
                                     f"choose another --out (or restore the file)")
                print(f"gracrc: {settings_file}: damaged (not a study's settings) and "
                      f"nothing else of the study is there yet; written again",
                      file=sys.stderr)
            elif self._identity(known) != self._identity(json.loads(json.dumps(wanted))):
                free = ", ".join(f"--{key.replace('_', '-')}" for key in self.FREE)
                raise GracrError(f"{settings_file}: this folder holds a study of other "
                                 f"settings; choose another --out, or the same settings to "
                                 f"resume it" + (f" (only {free} may change)" if free else ""))
        write_json(settings_file, wanted)

    def _identity(self, settings: dict[str, Any]) -> dict[str, Any]:
        """The settings that decide the folder's results."""
        return {key: value for key, value in settings.items() if key not in self.FREE}


def read_settings(path: Path, required: dict[str, type]) -> dict[str, Any] | None:
    """A study's settings file as written, or None when it is not one: cut, not a JSON
    object, or without a `required` key of its type."""
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    except OSError as error:
        raise GracrError(os_error_message(error, str(path))) from None
    if not isinstance(known, dict) or not all(isinstance(known.get(key), kind)
                                              for key, kind in required.items()):
        return None
    return known


def explained(jobs: Sequence[Job], results: Path) -> bool:
    """Whether `results` holds every instance `jobs` ask for (an error is not done, a job
    stopped out of time is). Without the datasets the runner cannot know a job that asks
    for more instances than its dataset has is done: it is said not to be, and the runner,
    asked, finds nothing left."""
    done, stopped = read_done(results)
    return all(job_key(job) in stopped
               or len(done.get(job_key(job), set()) & set(job.wanted(job.limit))) >= len(
                   job.wanted(job.limit)) for job in jobs)
