"""The tissue study (`gracrc tissue-study --out DIR`) as a `gracr.bench.study.Study`: its
settings are written first and checked on every resume, then the phases of
`gracr.domains.tissue.phases` (data, truth, models, explain) run unless complete, then
the report (`gracr.domains.tissue.study_report`) and the training's convergence table
(`write_convergence`). The explain phase is complete when every job is explained and no
randomised copy's record waits for scores its base's record lost in an archive
(`gracr.domains.tissue.study_pairs`: those are explained again).
"""

from __future__ import annotations

import math
from functools import cached_property
from pathlib import Path
from typing import Sequence

from gracr.bench.record import RESULTS_FILE
from gracr.bench.runner import Job, run
from gracr.bench.study import Execution, Phase, Say, Study, explained
from gracr.errors import GracrError
from gracr.domains.tissue.dataset import DATASET_FILES
from gracr.domains.tissue.phases import (StudyData, StudySettings,
                                         explained_positions, latest_by_model,
                                         model_files, models_complete, read_jsonl,
                                         prepare_data, prepare_models, prepare_truth,
                                         ratio_name, read_truth, study_jobs, views)
from gracr.domains.tissue.study_names import ATTRIBUTIONS
from gracr.domains.tissue.study_pairs import AGAIN, keep_again, lost_pairs
from gracr.domains.tissue.study_report import write_report


class TissueStudy(Study[StudySettings]):
    """The tissue study in its folder: the phases of the module docstring, then the
    report (`gracr.domains.tissue.study_report.write_report`). Only the test limit and
    the radius ratios may change on a resume: a larger limit adds samples to the folder,
    more ratios add their task files, models and explanations (the data and the ground
    truth do not depend on the ratio); fewer report the first samples, or those ratios'
    models only."""

    FREE = ("test_limit", "ratios")
    REQUIRED = {"seed": int}
    OUTPUTS = ("data", "truth.jsonl", "models", ATTRIBUTIONS, "store")

    def __init__(self, folder: str | Path, settings: StudySettings,
                 execution: Execution = Execution(), sparse: Sequence[Path] = (),
                 replace_stale: bool = False) -> None:
        """`sparse`: `gracrc tissue-sparse` folders the report reads (their models' test
        AUCs) for the note's sparse-driver finding; not a setting, a report input.
        `replace_stale`: models made with other settings are trained again even where
        the folder explained them, their records set aside
        (`gracr.domains.tissue.phases.set_aside_explained`)."""
        super().__init__(folder, settings, execution)
        self.sparse = tuple(Path(path) for path in sparse)
        self.replace_stale = replace_stale

    @cached_property
    def data(self) -> StudyData:
        """Phase 1's data, read back (made again when found damaged)."""
        return prepare_data(self.folder, self.settings)

    def _positions(self) -> list[int]:
        return explained_positions(self.data, self.settings.test_limit)

    def _jobs(self) -> list[Job]:
        # The batch size is the execution's: it changes how samples run, not what.
        return study_jobs(self.settings, self.data, model_files(self.folder, self.settings),
                          self.folder, batch=self.execution.batch)

    def phases(self) -> list[Phase]:
        root, settings = self.folder, self.settings

        def data_complete() -> bool:
            # Each file written whole, the split after the tables and each task file
            # last; whether they are what the settings make is checked when they are read.
            return (root / "data" / "split.json").exists() and all(
                (root / "data" / ratio_name(ratio) / name).exists()
                for ratio in views(settings) for name in DATASET_FILES)

        def make_data(say: Say) -> None:
            data = self.data
            say(f"data: {len(data.tables)} samples, θ = {data.theta}, test "
                f"{len(data.test)} ({data.positive_share:.0%} positive)")

        def make_truth(say: Say) -> None:
            prepare_truth(root, self.data, self._positions(), say)

        def unpaired(jobs: list[Job]) -> list[Job]:
            # What an earlier run explained again, if it stopped before keeping it.
            keep_again(root)
            lost = lost_pairs(root, model_files(root, settings))
            return [job for job in jobs if (job.variant, job.explainer, job.settings_hash,
                                            job.sample) in lost]

        def explain_complete() -> bool:
            jobs = self._jobs()
            return explained(jobs, root / ATTRIBUTIONS / RESULTS_FILE) and not unpaired(jobs)

        def explain(say: Say) -> None:
            jobs = self._jobs()
            say(f"explaining: {len(jobs)} jobs over "
                f"{len(model_files(root, settings))} models")
            execution = self.execution

            def run_into(folder: Path, chosen: list[Job]) -> None:
                run(chosen, str(folder), workers=execution.workers,
                    progress=execution.progress, engine=execution.engine,
                    address=execution.address, ray_timeout=execution.ray_timeout)

            run_into(root / ATTRIBUTIONS, jobs)
            again = unpaired(jobs)
            if again:
                say(f"explaining again: {len(again)} jobs whose records came from an "
                    "archive without the scores their randomised copies are paired with")
                run_into(root / ATTRIBUTIONS / AGAIN, again)
                say(f"explained again: {keep_again(root)} records")

        return [
            Phase("data", data_complete, make_data),
            Phase("truth", lambda: set(self._positions()) <= set(read_truth(root)),
                  make_truth),
            Phase("models", lambda: models_complete(root, settings),
                  lambda say: prepare_models(root, settings, self.data, say,
                                             self.execution.workers, self.replace_stale)),
            Phase("explain", explain_complete, explain)]

    def report(self, say: Say) -> None:
        write_report(self.folder, self.settings, self.data,
                     model_files(self.folder, self.settings), say,
                     sparse_test_aucs(self.sparse))
        write_convergence(self.folder, self.settings)


def write_convergence(folder: Path, settings: StudySettings) -> Path:
    """`DIR/tables/convergence.md` (and `.csv`), written silently: per trained model, its
    learning rate, the epochs run, the best epoch, what stopped training (`patience`
    epochs without a better one, or the `max_epochs` cap), the validation loss at the
    best epoch, at the last and its lowest, from the curve each training line records
    (`–` for a line without one), and the kept model's validation and test AUC."""
    from gracr.bench.report import TABLE, write_table
    from gracr.domains.tissue.trained import logged_learning_rate

    training = settings.training
    rows = []
    for record in latest_by_model(read_jsonl(folder / "models" / "training.jsonl")):
        losses = record.get("validation_loss") or []
        epochs, best = record.get("epochs"), record.get("best_epoch")
        if record.get("untrained") or not isinstance(epochs, int) or not isinstance(best, int):
            continue
        stopped = ("patience" if epochs - best >= training.patience
                   else "cap" if epochs >= training.max_epochs else "–")
        rows.append([str(record["model"]), f"{logged_learning_rate(record):g}", str(epochs),
                     str(best), stopped,
                     TABLE.number(losses[best - 1] if losses and best >= 1 else None),
                     TABLE.number(losses[-1] if losses else None),
                     TABLE.number(min(losses) if losses else None),
                     TABLE.number(_finite(record.get("best_validation_auc"))),
                     TABLE.number(_finite(record.get("test_auc")))])
    headers = ["model", "learning rate", "epochs", "best epoch", "stopped by",
               "val loss at best",
               "val loss last", "val loss min", "val AUC", "test AUC"]
    path = folder / "tables" / "convergence.md"
    for suffix in ("md", "csv"):
        write_table(str(path.with_suffix(f".{suffix}")), headers, rows)
    return path


def sparse_test_aucs(folders: Sequence[Path]) -> dict[str, float | None]:
    """"<folder>/<model>" → the test AUC of each trained model of each `gracrc
    tissue-sparse` folder (its latest training line); `GracrError` naming a folder that
    holds no training log."""
    found: dict[str, float | None] = {}
    for folder in folders:
        log = folder / "models" / "training.jsonl"
        if not log.is_file():
            raise GracrError(f"{log}: not found (--sparse takes `gracrc tissue-sparse` "
                             "folders)")
        for line in latest_by_model(read_jsonl(log)):
            found[f"{folder.name}/{line['model']}"] = _finite(line.get("test_auc"))
    return found


def _finite(value: object) -> float | None:
    """A number from a training line, None when it is missing or not finite (an AUC of one
    class)."""
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None
