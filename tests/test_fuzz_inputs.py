"""The input fuzzer: 2000 hostile inputs give no finding and reach every stage; a planted
crash, inconsistency, hang, dying worker or misbehaving `gracrc` is a finding, saved with
its input."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import strategies as st

from gracr.errors import GracrError
from gracr.fuzz.inputs import (KINDS, Finding, FuzzInputsConfig, InputKind, fuzz_inputs,
                               register_kind, replay, report_table)
from gracr.fuzz.inputs.kinds import STAGES, CliRun, Payload, Reached

BUILT_IN = ("gml", "graph-json", "model-file")


def test_two_thousand_hostile_inputs_give_no_finding_and_reach_every_stage(
        tmp_path: Path) -> None:
    report = fuzz_inputs(FuzzInputsConfig(2000, seed=0, cli_every=200, out=str(tmp_path),
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
    report = fuzz_inputs(FuzzInputsConfig(2, seed=0, cli_every=1, kinds=("lies",)))
    assert [p for _, _, p in report.findings] == ["gracrc accepted what the API refused"] * 2
