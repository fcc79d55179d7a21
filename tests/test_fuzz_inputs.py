"""The input fuzzer: 2000 hostile inputs give no finding and reach every stage; a planted
crash, inconsistency, hang, dying worker or misbehaving `gracrc` is a finding, saved with
its input; a hostile task file is refused by the task-file kind as `gracrc` refuses it."""

from __future__ import annotations

import dataclasses

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import strategies as st

from gracr.errors import GracrError
from gracr.fuzz.inputs import (KINDS, Finding, FuzzInputsConfig, InputKind, fuzz_inputs,
                               register_kind, replay, report_table)
from gracr.fuzz.inputs.driver import run_one
from gracr.fuzz.inputs.kinds import STAGES, CliRun, Payload, Reached

BUILT_IN = ("gml", "graph-json", "model-file", "task-file")
# The time limit catches hangs; these tests check findings, not speed. A `gracrc` run that
# took 5 s here took over 10 s on a loaded CI machine, so the tests give each input far more.
HANG_LIMIT = 120.0


@pytest.mark.big
def test_two_thousand_hostile_inputs_give_no_finding_and_reach_every_stage(
        tmp_path: Path) -> None:
    # Every kind draws over 100 inputs, so every 100th of each kind reaches gracrc at least once.
    report = fuzz_inputs(FuzzInputsConfig(2000, seed=0, cli_every=100, out=str(tmp_path),
                                          time_limit=HANG_LIMIT,
                                          kinds=BUILT_IN))
    assert report.findings == [], report_table(report)
    assert report.inputs == 2000
    for name, tally in report.tallies.items():
        assert tally.inputs > 100 and tally.cli_runs > 0
        assert 0 < tally.refused < tally.inputs
        for stage in KINDS[name].stages:          # some inputs got this far, some not
            assert 0 < tally.reached[stage] < tally.inputs, (name, stage)
    table = report_table(report)
    assert table.splitlines()[0].split("|")[1:-1] == [
        f" {h} " for h in ("kind      ", "inputs", *STAGES, "refused (exit 2)",
                           "gracrc runs", "findings")]
    assert "findings: 0" in table and (tmp_path / "slowest.json").exists()


# ---------------------------------------------------------------- planted faults

def _planted_run(payload: Payload, reached: Reached) -> None:
    reached.passed("parsed")
    match payload["fault"]:
        case "refused":
            raise GracrError("bad input")
        case "crash":
            raise ValueError("a bug")
        case "inconsistent":
            raise Finding("two results disagree", "detail")
        case "hang":
            time.sleep(60)
        case "die":
            os._exit(3)
    reached.passed("evaluated")


def _planted_cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    (folder / "x.gml").write_text("colors red\nclassify red\n")
    # `compile` accepts this file: a run that must fail shows gracrc and the API disagree.
    return CliRun(["compile", "x.gml", "-o", "x.npz"], must_fail=payload["fault"] == "lie")


def _kind(name: str, faults: list[str]) -> InputKind:
    return InputKind(name, ("parsed", "evaluated"),
                     lambda: st.fixed_dictionaries({"fault": st.sampled_from(faults)}),
                     _planted_run, _planted_cli, describe=lambda payload: payload["fault"])


for _name, _faults in {"planted": ["fine", "refused", "crash", "inconsistent"],
                       "hangs": ["hang"], "dies": ["die"], "lies": ["lie"]}.items():
    register_kind(_kind(_name, _faults))


def test_planted_crashes_and_inconsistencies_are_findings_saved_with_their_input(
        tmp_path: Path) -> None:
    report = fuzz_inputs(FuzzInputsConfig(60, seed=1, cli_every=0, out=str(tmp_path),
                                          time_limit=HANG_LIMIT,
                                          kinds=("planted",)))
    problems = {problem for _, _, problem in report.findings}
    assert problems == {"ValueError (not a GracrError)", "two results disagree"}
    tally = report.tallies["planted"]
    assert tally.refused and tally.reached["evaluated"] and tally.reached["parsed"] == 60
    saved = [json.loads(path.read_text()) for path in (tmp_path / "findings").iterdir()]
    assert len(saved) == tally.findings == len(report.findings)
    assert {entry["input"]["fault"] for entry in saved} == {"crash", "inconsistent"}
    assert any("ValueError: a bug" in entry["detail"] for entry in saved)
    for path in (tmp_path / "findings").iterdir():     # a saved input replays to its finding
        again = replay(str(path), with_cli=False)
        assert again["finding"][0] == json.loads(path.read_text())["problem"]


@pytest.mark.parametrize("kind,problem", [
    ("hangs", "over the time limit"),
    ("dies", "the worker died (exit 3)"),
])
def test_a_hang_or_a_dying_worker_is_a_finding_and_the_run_goes_on(kind: str,
                                                                   problem: str) -> None:
    report = fuzz_inputs(FuzzInputsConfig(2, seed=0, time_limit=0.5, cli_every=0,
                                          kinds=(kind,)))
    assert [p for _, _, p in report.findings] == [problem, problem]
    assert report.inputs == 2


def test_gracrc_disagreeing_with_the_api_is_a_finding() -> None:
    report = fuzz_inputs(FuzzInputsConfig(2, seed=0, cli_every=1, kinds=("lies",),
                                          time_limit=HANG_LIMIT))
    assert [p for _, _, p in report.findings] == ["gracrc accepted what the API refused"] * 2


# ---------------------------------------------------------------- the task-file kind

HUGE_BACKGROUND = """name = "Huge"
formula = "rule.gml"
[graphs]
family = "tree"
nodes = 1000000000000
"""


def test_a_hostile_task_file_is_refused_by_the_api_and_by_gracrc() -> None:
    # A background of 10**12 nodes: gracr once allocated it (MemoryError) before refusing.
    payload = {"files": {"task.toml": HUGE_BACKGROUND,
                         "rule.gml": "colors red, blue\nclassify exists (red & atleast 1 blue)\n"},
               "edits": ["number"], "intact": False, "nodes": None, "size": 2, "seed": 0,
               "options": {"disjunction": "demorgan", "comparison": "expanded",
                           "presence": False}}
    result = run_one(KINDS["task-file"], payload, with_cli=True, time_limit=HANG_LIMIT)
    assert result["finding"] is None
    assert result["stages"] == ["parsed"]
    assert result["refused"].endswith(
        "task.toml:5:1: graphs.nodes: a drawn graph could have 1000000000000 nodes "
        "(1000000000000 background, 0 planted); a task's graphs have at most 1000000")
    assert result["cli_seconds"] is not None       # gracrc ran, and exited 2 as the API refused


def test_an_untouched_task_file_that_gracr_refuses_is_a_finding() -> None:
    # The kind's generator vouches for a task no edit touched: refusing it is gracr's fault.
    payload = {"files": {"task.toml": HUGE_BACKGROUND.replace("1000000000000", "3"),
                         "rule.gml": "colors red, red\nclassify red\n"},
               "edits": [], "intact": True, "nodes": [3, 3], "size": 2, "seed": 0,
               "options": {"disjunction": "flat", "comparison": "direct", "presence": False}}
    result = run_one(KINDS["task-file"], payload, with_cli=False, time_limit=HANG_LIMIT)
    assert result["finding"][0] == "a valid task file was refused"
    assert "rule.gml:1:13: colour 'red' is listed twice" in result["finding"][1]


SMALL_TASK = {"files": {"task.toml": 'name = "Small"\nformula = "rule.gml"\n[graphs]\n'
                                     'family = "tree"\nnodes = 3\n[dataset]\ngraphs = 2\n',
                        "rule.gml": "colors red, blue\nclassify exists (red & atleast 1 blue)\n"},
              "edits": [], "intact": True, "nodes": [3, 3], "size": None, "seed": 0,
              "options": {"disjunction": "demorgan", "comparison": "expanded",
                          "presence": False}}


def test_a_small_task_passes_every_stage() -> None:
    result = run_one(KINDS["task-file"], SMALL_TASK, with_cli=True, time_limit=HANG_LIMIT)
    assert result["finding"] is None and result["refused"] is None
    assert result["stages"] == ["parsed", "checked", "compiled", "evaluated"]


@pytest.mark.parametrize("fault,problem", [
    ("label", "a stored label disagrees with the formula"),
    ("mask", "a stored UPI differs from the brute-force UPI"),
])
def test_a_dataset_built_wrong_is_a_finding(fault: str, problem: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The oracle is what makes "no finding" mean something: a builder that stores the
    # wrong label or the wrong edges must not get through.
    from gracr.bench import datasets

    exact = datasets.upi

    def wrong(*args: object, **kwargs: object) -> tuple[int, object]:
        label, mask = exact(*args, **kwargs)  # type: ignore[arg-type]
        return (1 - label, mask) if fault == "label" else (label, ~mask)

    monkeypatch.setattr(datasets, "upi", wrong)
    result = run_one(KINDS["task-file"], SMALL_TASK, with_cli=False, time_limit=HANG_LIMIT)
    assert result["finding"] is not None and result["finding"][0] == problem


@pytest.mark.parametrize("description", [None, "a rule"])
def test_a_task_claimed_valid_after_a_text_edit_is_one_gracr_accepts(
        description: str | None, tmp_path: Path) -> None:
    # The 10^5 run once claimed a task with a description valid after a second
    # `description` was put before it: a false finding of the fuzzer's own making.
    from gracr.bench.tasks import Task
    from gracr.bench.task_writer import task_toml
    from gracr.fuzz.inputs.task_file import claims_valid

    task: dict[str, object] = {"name": "Small", "formula": "rule.gml",
                               "graphs": {"family": "tree", "nodes": 3}}
    if description is not None:
        task["description"] = description
    (tmp_path / "rule.gml").write_text("colors red\nclassify exists red\n")
    deep = "description = " + "[" * 20 + "0" + "]" * 20 + "\n"
    (tmp_path / "task.toml").write_text(deep + task_toml(task))
    try:
        Task.from_file(tmp_path / "task.toml")
        accepted = True
    except GracrError:
        accepted = False
    assert accepted is (description is None)
    assert claims_valid(["deep-20"], task) is accepted


# ---------------------------------------------------------------- the command-line kinds
#
# smarts, molecules, tissue-options, seeds-csv, cli-options, output-paths: each draws
# inputs, runs a known-good one through every stage, and never lets a known-bad one through
# (on the original code it is a finding, after the fixes a refusal).

NEW_KINDS = ("smarts", "molecules", "tissue-options", "seeds-csv", "cli-options",
             "output-paths")
GOOD = {
    "smarts": {"smarts": "[CHD3]C(=O)[CH2]C([CH3])([CH3])[CH2][CD4]", "valid": True,
               "root": None, "node": False},
    "molecules": {"format": "smi", "bytes": b"CC(Cl)(Cl)Cl a\nClCC b\nCCO c\n", "valid": True,
                  "records": 3, "pattern": 13, "edits": []},
    "tissue-options": {"values": {"samples": "4", "cells": "50", "ratio": "1.5", "seed": "0"},
                       "hostile": False},
    "seeds-csv": {"text": "task,variant,explainer,config_hash,seed,ok,out_of_time,errors,"
                          "precision,recall,f1,cpu_mean,cpu_m2,wall_mean,wall_m2,"
                          "gracr_versions,first_error\nRedBlueLeaf,main,Rnd,bf21a9e8,0,3,0,0,"
                          "0.25,0.75,0.375,0.1,0.0,0.1,0.0,0.1.0,\n", "edits": []},
    "cli-options": {"template": "compile --max-degree", "value": "3"},
    "output-paths": {"output": "dataset --export", "target": "regular"},
}
# Known-bad inputs, one or more per kind: the findings the kinds rediscovered on the
# original code (a7ad7dc). None may get through every stage. (3 000 `!` in one SMARTS atom
# was one, as a RecursionError; a run of `!` now reads as its parity, as RDKit reads it, so
# it is a valid atom: `tests/test_chem_smarts.py` keeps it.)
BAD = [
    ("smarts", {"smarts": "C" * 3000, "valid": False, "root": None, "node": False}),
    ("smarts", {"smarts": "C(" * 1500 + "C" + ")" * 1500, "valid": False, "root": None,
                "node": False}),
    ("smarts", {"smarts": "[#" + "9" * 5000 + "]C", "valid": False, "root": None, "node": False}),
    ("smarts", {"smarts": "C(N)(=O)(#S)(~F)(-Cl)(:Br)(I)", "valid": False, "root": None,
                "node": False}),
    ("tissue-options", {"values": {"samples": "4", "cells": "30", "ratio": "1", "seed": "-1"},
                        "hostile": True}),
    ("tissue-options", {"values": {"samples": "4", "cells": "1", "ratio": "1", "seed": "0"},
                        "hostile": True}),
    ("tissue-options", {"values": {"samples": "4", "cells": "50", "ratio": "inf", "seed": "0"},
                        "hostile": True}),
    ("tissue-options", {"values": {"samples": "99999999999999999999", "cells": "50",
                                   "ratio": "1", "seed": "0"}, "hostile": True}),
    ("tissue-options", {"values": {"samples": "4", "cells": "99999999999999999999",
                                   "ratio": "1", "seed": "0"}, "hostile": True}),
    ("seeds-csv", {"text": GOOD["seeds-csv"]["text"].replace(",0,3,0,0,", ",0," + "3" * 5000
                                                             + ",0,0,"), "edits": ["field"]}),
    ("seeds-csv", {"text": GOOD["seeds-csv"]["text"].replace("bf21a9e8", "x" * 200_000),
                   "edits": ["field"]}),
    ("cli-options", {"template": "bench --budget", "value": "nan"}),
    ("cli-options", {"template": "bench --budget", "value": "inf"}),
    ("cli-options", {"template": "tune --trials", "value": "0"}),
    ("cli-options", {"template": "tune --instances", "value": "0"}),
    ("cli-options", {"template": "bench --seeds", "value": "0-100000000000"}),
    ("output-paths", {"output": "compile -o", "target": "fifo"}),
    ("output-paths", {"output": "compile -o", "target": "symlink-folder"}),
    ("output-paths", {"output": "dataset --export", "target": "symlink-folder"}),
    ("output-paths", {"output": "dataset --export", "target": "symlink-fifo"}),
]


@pytest.mark.parametrize("name", NEW_KINDS)
def test_a_new_kind_draws_inputs_that_save_as_json(name: str) -> None:
    from hypothesis import HealthCheck, given, settings

    from gracr.fuzz.inputs.driver import _jsonable, _payload

    drawn: list[Payload] = []

    @settings(max_examples=20, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(KINDS[name].strategy())
    def draw(payload: Payload) -> None:
        drawn.append(payload)

    draw()
    assert drawn
    for payload in drawn:
        assert KINDS[name].describe(payload)
        assert _payload(json.loads(json.dumps(_jsonable(payload)))) == payload


@pytest.mark.parametrize("name", NEW_KINDS)
def test_a_known_good_input_of_a_new_kind_passes_every_stage(name: str) -> None:
    result = run_one(KINDS[name], GOOD[name], with_cli=name != "cli-options",
                     time_limit=HANG_LIMIT)
    assert result["finding"] is None and result["refused"] is None, result
    assert result["stages"] == list(KINDS[name].stages)


@pytest.mark.parametrize("name,payload", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_a_known_bad_input_of_a_new_kind_never_gets_through(name: str,
                                                            payload: Payload) -> None:
    # Holds before the fixes (a finding) and after them (a refusal, exit 2).
    result = run_one(KINDS[name], payload, with_cli=False, time_limit=HANG_LIMIT)
    assert result["finding"] is not None or result["refused"] is not None, result
    assert result["stages"] != list(KINDS[name].stages)


@pytest.mark.parametrize("name,payload", BAD, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD)])
def test_a_known_bad_input_is_refused_once_the_fixes_are_merged(name: str,
                                                                payload: Payload) -> None:
    # ONLY PASSES AFTER THE FIXES ARE MERGED (the other helpers' branches): on the original
    # code (a7ad7dc) each of these is a finding (exit 70, a value accepted, a FIFO, folder or
    # symlink replaced). Lead: run this after merging; every case must be a clean refusal.
    result = run_one(KINDS[name], payload, with_cli=False, time_limit=HANG_LIMIT)
    assert result["finding"] is None and result["refused"] is not None, result


def test_a_smarts_translated_to_a_gml_gracr_refuses_is_a_finding(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The oracle of the smarts kind: what `gracrc smarts` writes must parse.
    from gracr.fuzz.inputs import smarts

    real = smarts.translate_smarts

    def nested(*args: object) -> object:
        translation = real(*args)  # type: ignore[arg-type]
        return dataclasses.replace(translation, text=translation.text.replace(
            "classify exists match", "classify " + "!" * 200 + "match"))

    monkeypatch.setattr(smarts, "translate_smarts", nested)
    result = run_one(KINDS["smarts"], GOOD["smarts"], with_cli=False, time_limit=HANG_LIMIT)
    assert result["finding"][0] == "gracrc smarts wrote a .gml that gracr refuses"


def test_a_molecule_file_read_short_is_a_finding() -> None:
    # A valid file must be read whole: claim one record more than it has.
    result = run_one(KINDS["molecules"], {**GOOD["molecules"], "records": 4}, with_cli=False,
                     time_limit=HANG_LIMIT)
    assert result["finding"][0] == "a valid molecule file was not read whole"


def test_run_command_refuses_bad_options_and_lets_a_crash_through(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from gracr import cli
    from gracr.fuzz.inputs.commands import run_command

    with pytest.raises(GracrError, match="usage"):
        run_command(["tissue", "--cells", "nan", "--out", "x"])
    with pytest.raises(GracrError):
        run_command(["compile", "/nonexistent/rule.gml", "-o", "/nonexistent/m.npz"])

    def crash(args: object, out: object) -> int:
        raise ValueError("a bug")

    monkeypatch.setitem(cli.COMMANDS, "smarts",
                        dataclasses.replace(cli.COMMANDS["smarts"], run=crash))
    with pytest.raises(ValueError, match="a bug"):
        run_command(["smarts", "C"])


@pytest.mark.parametrize("target,replaced_by", [("fifo", "file"), ("folder", "file"),
                                                ("symlink-fifo", "file"),
                                                ("dangling", "file"),
                                                ("symlink-folder", "emptied")])
def test_an_output_path_replaced_is_a_finding(target: str, replaced_by: str,
                                              tmp_path: Path) -> None:
    # The oracle of the output-paths kind on what a careless writer leaves behind.
    from gracr.fuzz.inputs.output_paths import _lay_out, check_after

    path = _lay_out(tmp_path, target)
    check_after(tmp_path, path, target)            # untouched: fine
    if replaced_by == "emptied":
        (tmp_path / "real-folder" / "keep.txt").unlink()
    else:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        temporary = tmp_path / "new"
        temporary.write_text("x")
        os.replace(temporary, path)
    with pytest.raises(Finding):
        check_after(tmp_path, path, target)
