"""The WOMBAT report's headline verdicts (`gracr.domains.chem.headlines`) on hand-made cells
whose verdicts are known by hand, and the command that reads the extra whiteboxes' results
and Figure S8's bound for theirs."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from gracr.domains.chem.headlines import (WOMBAT_HEADLINES, Cell, Cells, Evidence,
                                          PatternBound, WhiteboxCells, compatible)
from gracr.domains.chem.study import read_bounds
from gracr.domains.headlines import DIFFERS, NOT_RUN, REPRODUCED
from gracr.errors import GracrError

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "wombat"


def row(evidence: Cells | Evidence, key: str) -> list[str]:
    if not isinstance(evidence, Evidence):
        evidence = Evidence(evidence)
    return WOMBAT_HEADLINES.row(evidence, key)


def test_a_perfect_sample_fits_only_rates_above_its_bound() -> None:
    # 30 of 30 perfect: the 95 % lower bound on the rate is 0.05^(1/30) = 0.9050, so
    # WOMBAT's 0.95 fits and its 0.85 (P04's IG) does not.
    cell = Cell((1.0,) * 30, (1.0,) * 30)
    assert compatible(cell, 0.95) and not compatible(cell, 0.85)
    # 20 of 40 perfect: the share's standard error is √(0.25/40) = 0.079, so the 95 %
    # interval is about 0.5 ± 0.155: 0.5 fits, 0.9 does not.
    mixed = Cell((1.0, 1.0, 0.5, 0.5) * 10, (1.0,) * 40)
    assert compatible(mixed, 0.5) and not compatible(mixed, 0.9)


def test_ig_on_p04_reports_how_unlikely_a_clean_sweep_is() -> None:
    evidence = {(4, "soft-or", "IG"): Cell((1.0,) * 30, (1.0,) * 30)}
    found = row(evidence, "ig-p04")
    # WOMBAT's rate 964/1137 = 0.8478; 0.8478^30 = e^(30 · ln 0.8478) = e^(−4.95) ≈ 0.007.
    assert found[3] == DIFFERS and "30 of 30 perfect" in found[2] and "0.007" in found[2]
    assert "untested" in found[5]


def test_the_r2_collapse_verdict_follows_the_numbers_and_names_its_test() -> None:
    collapsed = {(n, "soft-or", "Saliency"): Cell((0.5, 0.5), (0.3, 0.3)) for n in (1, 2)}
    assert row(collapsed, "saliency-collapses-r2")[3] == REPRODUCED
    kept = {(n, "soft-or", "Saliency"): Cell((1.0, 0.8), (1.0, 0.7)) for n in (1, 2)}
    found = row(kept, "saliency-collapses-r2")
    assert found[3] == DIFFERS and "0.900" in found[2]   # (1.0 + 0.8) / 2 on both patterns
    assert "test_difference_mechanisms" in found[5]


def test_negatives_and_not_run_findings() -> None:
    evidence = {(1, "max", "IG"): Cell((1.0,), (1.0,), negatives=5, uniform=5),
                (1, "max", "GNNExplainer"): Cell((0.5,), (0.4,), negatives=5, uniform=3)}
    found = row(evidence, "negatives-uniform")
    assert found[3] == DIFFERS and "GNNExplainer fails 2 of 5" in found[2]
    only_pg = {(1, "max", "PGExplainer"): Cell((0.5,), (0.4,), negatives=5, uniform=4)}
    assert row(only_pg, "negatives-uniform")[3] == REPRODUCED
    assert row(evidence, "svs-budget")[3] == NOT_RUN


def test_table_s2_is_reproduced_only_while_no_explainer_is_perfect() -> None:
    # WOMBAT: no explainer perfect on its GINEConv whitebox. Saliency perfect on both
    # molecules under r1 breaks that; one imperfect molecule each keeps it.
    perfect: WhiteboxCells = {("S2", "max", "Saliency"): Cell((1.0, 1.0), (1.0, 1.0)),
                              ("S2", "soft-or", "Saliency"): Cell((1.0, 0.5), (1.0, 0.4))}
    found = row(Evidence({}, perfect), "table-s2")
    assert found[3] == DIFFERS and "perfect on every positive: Saliency r1" in found[2]
    assert "2 of 2 perfect" in found[2] and "1 of 2 perfect" in found[2]
    assert "GINEConv" in found[4] and found[5] == "untested"
    imperfect: WhiteboxCells = {("S2", r, "Saliency"): Cell((1.0, 0.5), (1.0, 0.4))
                                for r in ("max", "soft-or")}
    found = row(Evidence({}, imperfect), "table-s2")
    assert found[3] == REPRODUCED and "perfect on every positive: none" in found[2]
    assert found[4] == "–"
    # Rnd is not one of WOMBAT's explainers, and the anti-IG whitebox is not Table S2's.
    others: WhiteboxCells = {("S2", "max", "Rnd"): Cell((0.5,), (0.4,)),
                             ("AntiIG", "max", "Saliency"): Cell((1.0,), (1.0,))}
    found = row(Evidence({}, others), "table-s2")
    assert found[3] == NOT_RUN and "--whiteboxes" in found[4]


def test_the_adversarial_whitebox_reads_igs_perfect_share_under_r2() -> None:
    # WOMBAT: IG perfect on 7.60 % of the anti-IG whitebox's positives. Ours on 10 of 10
    # bounds the rate only at ≥ 0.05^(1/10) = 0.741: 0.076 does not fit.
    sweep: WhiteboxCells = {("AntiIG", "soft-or", "IG"): Cell((1.0,) * 10, (1.0,) * 10)}
    found = row(Evidence({}, sweep), "adversarial-whitebox")
    assert found[3] == DIFFERS and "10 of 10 perfect" in found[2]
    # 1 of 12 perfect (8 %): WOMBAT's 7.60 % lies inside our interval.
    smeared: WhiteboxCells = {("AntiIG", "soft-or", "IG"):
                              Cell((1.0,) + (0.7,) * 11, (1.0,) * 12)}
    assert row(Evidence({}, smeared), "adversarial-whitebox")[3] == REPRODUCED
    # Only r1 run: WOMBAT's number is r2's, so the finding is not run.
    r1_only: WhiteboxCells = {("AntiIG", "max", "IG"): Cell((1.0,), (1.0,))}
    assert row(Evidence({}, r1_only), "adversarial-whitebox")[3] == NOT_RUN


def test_the_pgexplainer_bound_is_reproduced_only_where_it_caps() -> None:
    at_one = [PatternBound(1, "max", 3, 3, 3, 1.0, 40, 40),
              PatternBound(1, "soft-or", 3, 3, 3, 1.0, 40, 40)]
    found = row(Evidence({}, {}, at_one), "pgexplainer-bound")
    assert found[3] == DIFFERS and "bound 1 on 6 of 6 positives" in found[2]
    assert "80 of 80 atoms" in found[2] and "presence bit" in found[4]
    capped = [PatternBound(1, "max", 3, 3, 2, 0.9, 30, 40), at_one[1]]
    found = row(Evidence({}, {}, capped), "pgexplainer-bound")
    assert found[3] == REPRODUCED and "lowest mean P01 r1 0.900" in found[2]
    undefined = [PatternBound(1, "max", 3, 0, 0, None, 40, 40)]
    assert row(Evidence({}, {}, undefined), "pgexplainer-bound")[3] == NOT_RUN
    assert row(Evidence({}), "pgexplainer-bound")[3] == NOT_RUN


def test_read_bounds_takes_the_benchmarks_lines(tmp_path: Path) -> None:
    bound = PatternBound(3, "soft-or", 2, 2, 1, 0.75, 10, 12)
    path = tmp_path / "pgexplainer_bound.jsonl"
    path.write_text(json.dumps(bound.__dict__) + "\n", encoding="utf-8")
    assert read_bounds(path) == [bound]
    path.write_text(json.dumps({"pattern": 3}) + "\n", encoding="utf-8")
    with pytest.raises(GracrError, match="not the bound's lines"):
        read_bounds(path)


def gracrc(*argv: str) -> tuple[int, str, str]:
    from gracr.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def headline_rows(text: str) -> dict[str, list[str]]:
    """The printed headline table's rows by the start of their claim."""
    table = text.split("## WOMBAT's headline findings", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")]
            for line in table.splitlines() if line.startswith("| ")]
    return {cells[0]: cells for cells in rows[1:]}


def test_the_command_reads_the_whiteboxes_and_the_bound(tmp_path: Path) -> None:
    """`--whiteboxes` and `--bounds` fill the three rows; without them they are not run."""
    study, whiteboxes = tmp_path / "study", tmp_path / "whiteboxes"
    study.mkdir()
    whiteboxes.mkdir()
    shutil.copy(FIXTURE / "results.jsonl", study / "results.jsonl")
    # The fixture's P01 records of IG and Saliency, as if run on the two whiteboxes: P01's
    # IG is perfect on its positives under r1 and r2.
    lines = (FIXTURE / "results.jsonl").read_text(encoding="utf-8").splitlines()
    moved = [lines[0]]
    for line in lines[1:]:
        record = json.loads(line)
        if record["task"] == "WOMBAT-P01" and record["explainer"] in ("IG", "Saliency"):
            for task in ("WOMBAT-S2", "WOMBAT-AntiIG"):
                moved.append(json.dumps({**record, "task": task}))
    (whiteboxes / "results.jsonl").write_text("\n".join(moved) + "\n", encoding="utf-8")
    bounds = tmp_path / "bounds.jsonl"
    bounds.write_text(json.dumps(PatternBound(1, "soft-or", 2, 2, 2, 1.0, 30, 30).__dict__)
                      + "\n", encoding="utf-8")
    common = ("wombat-study", "--tables-only", "--out", str(study), "--patterns", "1-2",
              "--explainers", "Saliency,IG,Rnd", "--positives", "2", "--negatives", "2")
    code, out, _ = gracrc(*common, "--whiteboxes", str(whiteboxes), "--bounds", str(bounds))
    assert code == 0
    found = headline_rows(out)
    s2 = next(cells for claim, cells in found.items() if claim.startswith("on a GINEConv"))
    anti = next(cells for claim, cells in found.items() if claim.startswith("redundant"))
    bound = next(cells for claim, cells in found.items() if claim.startswith("PGExplainer's"))
    assert s2[3] == DIFFERS and "IG r1 1.000" in s2[2]
    assert anti[3] == DIFFERS and "r2 1.000" in anti[2]
    assert bound[3] == DIFFERS and "bound 1 on 2 of 2 positives" in bound[2]
    code, out, _ = gracrc(*common)
    assert code == 0
    without = headline_rows(out)
    assert [cells[3] for claim, cells in without.items()
            if claim.startswith(("on a GINEConv", "redundant", "PGExplainer's"))] == \
        [NOT_RUN] * 3
    assert len(found) == len(without) == len(WOMBAT_HEADLINES.findings)


def test_the_svs_budget_row_wants_the_rate_to_rise_and_most_patterns_perfect() -> None:
    def sweep(*rates: tuple[float, ...]) -> Evidence:
        # One cell per pattern and budget, each four molecules: AUROC 1 on the first
        # `round(4 · rate)` of them.
        return Evidence({}, permutations={
            budget: {pattern: Cell(tuple(1.0 if i < round(4 * rate) else 0.9
                                         for i in range(4)), ())
                     for pattern, rate in enumerate(per_pattern, start=1)}
            for budget, per_pattern in zip((25, 100, 400), rates)})

    rising = sweep((0.5, 0.25, 0.5), (0.75, 0.5, 0.75), (1.0, 1.0, 0.75))
    found = row(rising, "svs-budget")
    # At 400: patterns 1 and 2 perfect (2 of 3, a majority); the rate (1 + 1 + 0.75) / 3.
    assert found[3] == REPRODUCED and "400 permutations: rate 0.917" in found[2]
    assert "2 of 3 patterns perfect" in found[2] and "≥ 4 positives" in found[2]
    # The rate rises but only 1 of 3 patterns is perfect at the largest budget.
    assert row(sweep((0.5, 0.25, 0.5), (0.75, 0.5, 0.75), (1.0, 0.75, 0.75)),
               "svs-budget")[3] == DIFFERS
    # Most perfect, but no better than at the smallest budget.
    assert row(sweep((1.0, 1.0, 0.75), (1.0, 1.0, 0.75), (1.0, 1.0, 0.75)),
               "svs-budget")[3] == DIFFERS
    # One budget is no sweep.
    assert row(Evidence({}, permutations={100: {1: Cell((1.0,), ())}}),
               "svs-budget")[3] == NOT_RUN


def test_permutation_cells_read_each_budget_on_the_same_molecules() -> None:
    from dataclasses import replace

    from gracr.bench.record import read_records
    from gracr.domains.chem.study import permutation_cells

    base = next(r for r in read_records(FIXTURE / "results.jsonl")
                if r.explainer == "ShapleySampling" and r.variant == "soft-or"
                and r.sample == "positive")

    def made(n: int, graph: int, auroc: float, **changes: object) -> object:
        return replace(base, config={**base.config, "n_samples": n}, graph=graph,
                       instance=graph, auroc=auroc, **changes)

    records = [made(100, 0, 1.0), made(100, 1, 0.8), made(100, 2, 0.9),   # the study's
               made(400, 0, 1.0), made(400, 1, 1.0), made(25, 1, 0.7),   # the sweep's
               made(25, 0, 0.6),
               made(400, 2, 0.5, variant="max"),            # another readout: not read
               made(400, 2, 0.5, explainer="IG"),           # another explainer: not read
               made(25, 5, 0.7, task="WOMBAT-P02")]         # not at every budget: not read
    cells = permutation_cells(records)   # type: ignore[arg-type]
    # P01: graph 2 has no r2 record at 25 or 400, so every budget reads graphs 0 and 1,
    # in the order of the graphs.
    assert cells == {25: {1: Cell((0.6, 0.7), ())}, 100: {1: Cell((1.0, 0.8), ())},
                     400: {1: Cell((1.0, 1.0), ())}}


def test_the_command_reads_the_permutation_sweep(tmp_path: Path) -> None:
    """`--permutations`: the fixture's SHAP sampling records under r2, as if run again at
    400 permutations, fill Figure S7's row beside the study's own at 100."""
    study, sweep = tmp_path / "study", tmp_path / "permutations"
    study.mkdir()
    sweep.mkdir()
    shutil.copy(FIXTURE / "results.jsonl", study / "results.jsonl")
    lines = (FIXTURE / "results.jsonl").read_text(encoding="utf-8").splitlines()
    again = [lines[0]] + [
        json.dumps({**record, "config": {**record["config"], "n_samples": 400}})
        for record in map(json.loads, lines[1:]) if record["explainer"] == "ShapleySampling"]
    (sweep / "results.jsonl").write_text("\n".join(again) + "\n", encoding="utf-8")
    common = ("wombat-study", "--tables-only", "--out", str(study), "--patterns", "1-2",
              "--explainers", "ShapleySampling", "--slow-positives", "2",
              "--slow-negatives", "2")
    code, out, _ = gracrc(*common, "--permutations", str(sweep))
    assert code == 0
    found = next(cells for claim, cells in headline_rows(out).items()
                 if claim.startswith("more permutations"))
    assert found[3] in (REPRODUCED, DIFFERS)
    assert "100 permutations: rate" in found[2] and "400 permutations: rate" in found[2]
    code, out, _ = gracrc(*common)
    without = next(cells for claim, cells in headline_rows(out).items()
                   if claim.startswith("more permutations"))
    assert code == 0 and without[3] == NOT_RUN and "--permutations" in without[4]


def test_pattern_sizes_count_every_atom_the_smarts_writes() -> None:
    from gracr.domains.chem.wombat import WOMBAT_PATTERNS

    sizes = {pattern.number: pattern.size for pattern in WOMBAT_PATTERNS}
    # Counted by hand: P01 [!#1] [CH] [NH] C O [!#1] C Cl Cl Cl; P12 [!#1] [CH] O;
    # P13 [!#1] [N+] and three [CH3].
    assert (sizes[1], sizes[12], sizes[13]) == (10, 3, 5)


def test_the_svs_size_row_wants_fewer_perfect_molecules_on_larger_patterns() -> None:
    def rates(per_pattern: dict[int, int], readouts: tuple[str, ...] = ("max",)) -> Cells:
        # Four molecules per pattern, the first `k` of them perfect.
        return {(p, r, "ShapleySampling"): Cell(tuple(1.0 if i < k else 0.8
                                                      for i in range(4)), ())
                for p, k in per_pattern.items() for r in readouts}

    # P12 (3 atoms) 4 of 4, P06 (6) 2 of 4, P03 (16) none: ρ = −1.
    falling = row(rates({12: 4, 6: 2, 3: 0}), "svs-size")
    assert falling[3] == REPRODUCED and "r1: ρ -1.000 over 3 patterns" in falling[2]
    # The same rates, reversed over the sizes: ρ = +1.
    assert row(rates({12: 0, 6: 2, 3: 4}), "svs-size")[3] == DIFFERS
    # Every pattern perfect: no order, no trend.
    flat = row(rates({12: 4, 6: 4, 3: 4}), "svs-size")
    assert flat[3] == DIFFERS and "undefined" in flat[2]
    # Two patterns are too few to read a trend off.
    assert row(rates({12: 4, 3: 0}), "svs-size")[3] == NOT_RUN


def test_the_bounds_a_check_mark_gives_run_from_the_smallest_sample_to_the_largest() -> None:
    from gracr.domains.chem.headlines import perfect_rate_bounds

    # 10 of 10 perfect: the rate is >= 0.05 ** (1 / 10) = 0.741 at 95 %; 30 of 30: 0.905
    assert perfect_rate_bounds([30, 0, 10, 30]) == \
        "≥ 0.741 on 10 molecules to ≥ 0.905 on 30 molecules"
    assert perfect_rate_bounds([30]) == "≥ 0.905 on 30 molecules"
    assert perfect_rate_bounds([0]) == perfect_rate_bounds([]) == "no molecules"
