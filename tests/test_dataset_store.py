"""The dataset store (`gracr.bench.datasets.load_or_build`) is a cache that is checked,
not trusted: a damaged dataset is reported and rebuilt, and builds of one dataset by
several processes at once leave it intact."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from gracr.bench.datasets import dataset_folder, load_or_build
from gracr.bench.tasks import task_named

ROOT = Path(__file__).resolve().parent.parent
TASK, SEED, GRAPHS = "Redundancy", 0, 8


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny stored dataset, copied by each test before it damages it."""
    store = tmp_path_factory.mktemp("built")
    load_or_build(TASK, SEED, GRAPHS, str(store), progress=False)
    return store


def _folder(store: Path) -> Path:
    return dataset_folder(str(store), task_named(TASK), SEED, GRAPHS)


def _cut_at_a_line(folder: Path) -> None:
    lines = (folder / "dataset.jsonl").read_text().splitlines(keepends=True)
    (folder / "dataset.jsonl").write_text("".join(lines[:2]))


def _cut_mid_line(folder: Path) -> None:
    text = (folder / "dataset.jsonl").read_text()
    (folder / "dataset.jsonl").write_text(text[:len(text) // 2])


def _empty_meta(folder: Path) -> None:
    (folder / "meta.json").write_text("")


def _invalid_meta(folder: Path) -> None:
    (folder / "meta.json").write_text("{\"task\": ")


def _meta_not_an_object(folder: Path) -> None:
    (folder / "meta.json").write_text("[1, 2]\n")


def _old_format(folder: Path) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    del meta["dataset_lines"], meta["dataset_sha256"]
    (folder / "meta.json").write_text(json.dumps(meta))


def _meta_lost(folder: Path) -> None:
    (folder / "meta.json").unlink()


def _data_lost(folder: Path) -> None:
    (folder / "dataset.jsonl").unlink()


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "cut at a line boundary": (_cut_at_a_line, "dataset.jsonl: 2 lines"),
    "cut mid-line": (_cut_mid_line, "dataset.jsonl: "),
    "empty meta.json": (_empty_meta, "meta.json: not valid JSON"),
    "invalid meta.json": (_invalid_meta, "meta.json: not valid JSON"),
    "meta.json not an object": (_meta_not_an_object, "meta.json: not a JSON object"),
    "old format without a checksum": (_old_format, "records no line count and checksum"),
    "meta.json lost": (_meta_lost, "meta.json: missing"),
    "dataset.jsonl lost": (_data_lost, "dataset.jsonl: No such file"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_dataset_is_reported_and_rebuilt(
        damage: str, built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    shutil.copytree(built, store)
    folder = _folder(store)
    whole = (folder / "dataset.jsonl").read_bytes()
    damaging, said = DAMAGE[damage]
    damaging(folder)
    capsys.readouterr()
    dataset = load_or_build(TASK, SEED, GRAPHS, str(store), progress=False)
    err = capsys.readouterr().err
    assert said in err and "rebuilding the dataset" in err
    assert len(dataset.instances) == GRAPHS
    assert (folder / "dataset.jsonl").read_bytes() == whole
    # Repaired for good: the next load reads it quietly.
    assert len(load_or_build(TASK, SEED, GRAPHS, str(store), progress=False).instances) == GRAPHS
    assert capsys.readouterr().err == ""


# A build whose `build_instances` is wrapped to meet the other process: "first" marks
# that it is building and waits (a few seconds at most: with the lock the second never
# starts building) for the second to be building too; "second" marks that it is building,
# waits for the first's dataset to be stored, then fails, as a build may (a full disk, a
# kill): its clean-up must leave the first's dataset alone.
_BUILD = """
import os, sys, time
from pathlib import Path
import gracr.bench.datasets as datasets
from gracr.errors import GracrError

role, store, meet = sys.argv[1], sys.argv[2], Path(sys.argv[3])
build = datasets.build_instances

def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)

def meeting(*args, **kwargs):
    (meet / role).write_text("")
    if role == "first":
        wait_for(meet / "second", 3)
        return build(*args, **kwargs)
    wait_for(meet / "first-done", 120)
    raise GracrError("the second build failed (simulated)")

datasets.build_instances = meeting
dataset = datasets.load_or_build("%s", %d, %d, store, progress=False)
if role == "first":
    (meet / "first-done").write_text("")
print(len(dataset.instances))
""" % (TASK, SEED, GRAPHS)


def test_a_failed_build_racing_another_leaves_the_dataset_it_reported(tmp_path: Path) -> None:
    store, meet = tmp_path / "store", tmp_path / "meet"
    meet.mkdir()
    started = []

    def start(role: str) -> subprocess.Popen[str]:
        build = subprocess.Popen([sys.executable, "-c", _BUILD, role, str(store), str(meet)],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        started.append(build)
        return build

    try:
        first = start("first")
        deadline = time.monotonic() + 120
        while not (meet / "first").exists() and first.poll() is None \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        second = start("second")
        outputs = [build.communicate(timeout=240) for build in (first, second)]
    finally:
        for build in started:
            build.kill()
            build.wait()
    folder = _folder(store)
    assert folder.is_dir() and {"dataset.jsonl", "meta.json"} <= {
        p.name for p in folder.iterdir()}, "the dataset the first build reported is gone"
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]
    for build, (out, err) in zip((first, second), outputs):
        assert build.returncode == 0, err
        assert out.strip() == str(GRAPHS)
    assert len(load_or_build(TASK, SEED, GRAPHS, str(store), progress=False).instances) == GRAPHS
