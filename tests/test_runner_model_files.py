"""The runner explains model files (`Job.model`: a compiled .npz or a trained tissue model)
and, unscored (`Job.scored=False`), keeps each instance's raw scores whatever the model
predicts: the records hold what `scores` gives on the same subject, a rerun resumes, and
the report leaves unscored records out of its tables."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import gracr
from gracr.explainers.base import Subject, scores, settings_for, settings_hash
from gracr.explainers import explainer_named
from gracr.bench.models import load_model_file
from gracr.bench.record import read_records
from gracr.bench.runner import Job, run
from gracr.bench.tasks import task_named
from gracr.errors import GracrError
from gracr.executor.model import compile_program
from gracr.domains.tissue import TissueSettings, generate_dataset, write_dataset
from gracr.domains.tissue.trained import ModelSettings, build_model, save_model


@pytest.fixture(scope="module")
def tissue(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("tissue")
    tables, theta = generate_dataset(np.random.default_rng(9), TissueSettings.for_cells(60), 6)
    task_file = write_dataset(root / "data", tables, theta, 1.0, name="Tissue-runner")
    trained, _ = save_model(build_model(ModelSettings(hidden=8), seed=1), root / "GIN-test")
    compiled = root / "compiled.npz"
    compile_program(gracr.parse((root / "data" / "tissue.gml").read_text()),
                    presence=True).save(str(compiled))
    return task_file, trained, compiled


def _job(task_file: Path, model: Path, variant: str, sample: str, store: Path) -> Job:
    settings = settings_for(explainer_named("Saliency"), None)
    task = task_named(str(task_file)).name
    return Job(task, variant, "Saliency", settings, settings_hash(settings), 0, 100, 60.0,
               None, str(store), task_file=str(task_file), level="node",
               sample=sample, model=str(model), scored=False)  # type: ignore[arg-type]


def test_unscored_jobs_keep_the_scores_of_trained_and_compiled_models(
        tissue: tuple[Path, Path, Path], tmp_path: Path) -> None:
    torch.set_num_threads(1)
    task_file, trained, compiled = tissue
    store = tmp_path / "store"
    jobs = [_job(task_file, path, name, sample, store)
            for path, name in ((trained, "GIN-test"), (compiled, "compiled"))
            for sample in ("positive", "negative")]
    results = run(jobs, str(tmp_path / "out"), progress=False)
    records = list(read_records(results))
    graphs = [json.loads(line) for line in
              (task_file.parent / "graphs.jsonl").read_text().splitlines()]
    assert {r.variant for r in records} == {"GIN-test", "compiled"}
    assert {r.sample for r in records} == {"positive", "negative"}
    assert len(records) == 2 * len(graphs)  # every sample once per model, whatever its label
    program = task_named(str(task_file)).program()
    for record in records:
        assert record.status == "ok" and not record.scored and record.f1 is None
        graph = gracr.Graph.from_json(graphs[record.graph], schema=program.schema)
        model = load_model_file(trained if record.variant == "GIN-test" else compiled)
        subject = (Subject.of_trained(model, graph, None, "node")  # type: ignore[arg-type]
                   if record.variant == "GIN-test"
                   else Subject.of(model, program, graph, None, level="node"))  # type: ignore[arg-type]
        expected = scores("Saliency", subject).numpy()
        assert np.allclose(record.extra["scores"], expected, atol=1e-9)
    # A rerun finds every key done and writes nothing.
    before = results.read_text()
    run(jobs, str(tmp_path / "out"), progress=False)
    assert results.read_text() == before


def test_a_model_file_of_an_unknown_format_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "m.json").write_text('{"format": "nobody-knows"}')
    with pytest.raises(GracrError, match="m.json: no reader for model format 'nobody-knows'"):
        load_model_file(tmp_path / "m.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(GracrError, match=r"bad.json:1:2: not JSON"):
        load_model_file(tmp_path / "bad")
