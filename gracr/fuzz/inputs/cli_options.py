"""Numeric option values of several `gracrc` commands: NaN, infinities, huge, negative,
zero, empty, not numbers, and ordinary small ones, for `--budget`, `--trials`,
`--instances`, `--seeds`, `--seed`, `--max-degree`, `--max-weights-bytes`, `--delta`,
`--max-bdd-nodes`, `--max-counter-steps`, `--show`, `--limit`, `--graphs`; each command
otherwise given small valid inputs (a formula, two graphs, a task of four graphs, a few
molecules, a seeds.csv), so that a run it accepts takes seconds.

An input runs as parsed (argparse reads the options) -> evaluated (the command runs in
this process and ends with exit 0). A value that is not a finite number, or negative
where the option has no meaning for it, must be refused (exit 2); any other value may be
refused or accepted, never crash. Options whose value is an amount of work (trials,
instances, graphs, seeds) get no huge value, except the seed range of 10^11 (which must be
refused rather than allocated).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

import importlib.util
from gracr.bench.graph_sources import Between
from gracr.bench.task_writer import DatasetTable, FamilyGraphs, TaskFile, task_file_text
from gracr.errors import GracrError
from gracr.fuzz.inputs.commands import run_command
from gracr.fuzz.inputs.kinds import CliRun, Finding, InputKind, Payload, Reached
from gracr.fuzz.inputs.seeds_csv import CELLS, seeds_csv_text

# The small valid inputs every command is given: files written into the input's folder.
FILES = {
    "rule.gml": "colors red, blue\nclassify more(red, blue) & <1> red\n",
    "graphs.jsonl": '{"num_nodes": 3, "colors": [["red"], ["blue"], ["red"]], '
                    '"edges": [[0, 1], [1, 2], [2, 0]], "target": 0}\n'
                    '{"num_nodes": 2, "colors": [["red"], []], "edges": [[1, 0]], '
                    '"target": 1}\n',
    "task.gml": "colors red, blue\nclassify exists (red & atleast 1 blue)\n",
    "small.toml": task_file_text(TaskFile("Small", ("task.gml",),
                                          FamilyGraphs("tree", nodes=Between(4, 4)),
                                          dataset=DatasetTable(graphs=4))),
    "molecules.smi": "CC(Cl)(Cl)Cl a\nClCC b\nCCO c\n",
    "seeds.csv": seeds_csv_text([[*CELLS[0], "0", "3", "0", "0", "0.5", "0.5", "0.5", "0.1",
                                  "0.0", "0.1", "0.0", "0.1.0", ""]]),
}
# WOMBAT's pattern 14 (`[!#1][CH2]Cl`), for chem-check: written when RDKit is there.
PATTERN = "pattern.gml"
TUNE = ["tune", "--tasks", "small.toml", "--explainers", "GNNExplainer", "--graphs", "4",
        "--datasets", "store", "--quiet"]
BENCH = ["bench", "--tasks", "small.toml", "--explainers", "Rnd", "--graphs", "4",
         "--datasets", "store", "--out", "bench-out", "--no-report", "--quiet"]


@dataclass(frozen=True)
class Template:
    """A command line with one option left open; `negative` whether a negative value
    means something there, `work` whether the value is an amount of work (no huge
    values)."""

    argv: tuple[str, ...]
    option: str
    negative: bool = False
    work: bool = False


TEMPLATES = {
    "compile --max-degree": Template(("compile", "rule.gml", "-o", "m.npz"), "--max-degree"),
    "compile --max-weights-bytes": Template(("compile", "rule.gml", "-o", "m.npz",
                                             "--max-degree", "3"), "--max-weights-bytes"),
    "compile --delta": Template(("compile", "rule.gml", "-o", "m.npz", "--max-degree", "3"),
                                "--delta"),
    "eval --max-degree": Template(("eval", "rule.gml", "graphs.jsonl"), "--max-degree"),
    "upi --max-bdd-nodes": Template(("upi", "rule.gml", "graphs.jsonl"), "--max-bdd-nodes"),
    "relevance --max-counter-steps": Template(("relevance", "rule.gml", "graphs.jsonl"),
                                              "--max-counter-steps"),
    "dataset --seed": Template(("dataset", "small.toml", "--out", "store", "--graphs", "4"),
                               "--seed"),
    "dataset --graphs": Template(("dataset", "small.toml", "--out", "store"), "--graphs",
                                 work=True),
    "dataset --stats --seeds": Template(("dataset", "small.toml", "--stats", "--out",
                                         "store", "--graphs", "2"), "--seeds", work=True),
    "report --budget": Template(("report", "seeds.csv", "--out", "report-out",
                                 "--no-instance-figures"), "--budget"),
    "tune --trials": Template((*TUNE, "--instances", "1", "--budget", "1"), "--trials",
                              work=True),
    "tune --instances": Template((*TUNE, "--trials", "1", "--budget", "1"), "--instances",
                                 work=True),
    "tune --budget": Template((*TUNE, "--trials", "1", "--instances", "1"), "--budget"),
    "bench --budget": Template((*BENCH, "--seeds", "0", "--limit", "1"), "--budget"),
    "bench --seeds": Template((*BENCH, "--limit", "1"), "--seeds", work=True),
    "bench --limit": Template((*BENCH, "--seeds", "0"), "--limit", work=True),
}
if importlib.util.find_spec("rdkit") is not None:    # chem-check needs gracr[chem]
    TEMPLATES["chem-check --show"] = Template(
        ("chem-check", PATTERN, "--smarts", "[!#1][CH2]Cl", "--molecules",
         "molecules.smi"), "--show", negative=True)
NOT_NUMBERS = ("nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "", " ", "abc", "0x10",
               "1,5", "½")
NUMBERS = ("-1", "-0", "0", "1", "2", "3", "0.5", "1e-300", "-2.5", "-99999999999999999999")
HUGE = ("99999999999999999999", str(2**63), str(2**64), "1e308", "1" + "0" * 5000, "8EiB")
BAD_SEEDS = ("0-100000000000", "0-99999999999999999999", "5-3", "0,,1", "-1-2", "0-4-5")
SEEDS = (*BAD_SEEDS, "0-1", "1,0", "3")


@st.composite
def payloads(draw: st.DrawFn) -> Payload:
    name = draw(st.sampled_from(sorted(TEMPLATES)))
    template = TEMPLATES[name]
    pools = [NOT_NUMBERS, NUMBERS] + ([] if template.work else [HUGE])
    if template.option == "--seeds":
        pools.append(SEEDS)
    value = draw(st.sampled_from(draw(st.sampled_from(pools))))
    if template.work and value.lstrip("-").replace(".", "").isdigit() and \
            abs(float(value)) > 3:
        value = "3"                            # an amount of work stays small
    return {"template": name, "value": value}


def argv(payload: Payload) -> list[str]:
    template = TEMPLATES[payload["template"]]
    return [*template.argv, f"{template.option}={payload['value']}"]


def must_refuse(payload: Payload) -> bool:
    """Whether no option can take the value: not a finite number (a seed list: not a
    list of seeds), or negative where a negative value means nothing."""
    template = TEMPLATES[payload["template"]]
    value = payload["value"].strip()
    if template.option == "--seeds":       # `1,5` is two seeds
        return value in BAD_SEEDS or (value in NOT_NUMBERS and value != "1,5") \
            or value.startswith("-")
    try:
        number = float(value)
    except ValueError:
        # A byte count may carry a unit (8EiB); anything else is not a number.
        return not (template.option == "--max-weights-bytes" and value[:1].isdigit())
    return not math.isfinite(number) or (number < 0 and not template.negative)


def run(payload: Payload, reached: Reached) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        write_inputs(folder)
        line = argv(payload)
        run_command([_absolute(part, folder) for part in line], reached)
    if must_refuse(payload):
        raise Finding(f"gracrc {payload['template']} accepted {payload['value'][:40]!r}",
                      " ".join(line))
    reached.passed("evaluated")


def write_inputs(folder: Path) -> None:
    """The small valid inputs the command lines name, into `folder`."""
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    if "chem-check --show" in TEMPLATES:
        from gracr.domains.chem.wombat import WOMBAT_PATTERNS, wombat_formula_text

        (folder / PATTERN).write_text(wombat_formula_text(WOMBAT_PATTERNS[13]),
                                      encoding="utf-8")


def _absolute(part: str, folder: Path) -> str:
    """A file or folder name of the command line, in `folder` (an in-process run has
    another working folder)."""
    if part in FILES or part in (PATTERN, "m.npz", "store", "report-out", "bench-out"):
        return str(folder / part)
    return part


def cli(payload: Payload, folder: Path, reached: Reached) -> CliRun:
    """The same command line through `gracrc`: exit 2 exactly when the API refused."""
    write_inputs(folder)
    return CliRun(argv(payload), must_fail=reached.refused is not None)


def describe(payload: Payload) -> str:
    return f"{payload['template']}={payload['value'][:40]!r}"


KIND = InputKind("cli-options", ("parsed", "evaluated"), payloads, run, cli, share=1.0,
                 describe=describe, warm_up=("gracr.explainers", "gracr.bench.tuning",
                                             "gracr.bench.runner"), cli_seconds=30.0)
