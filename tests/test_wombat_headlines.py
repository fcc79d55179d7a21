"""The WOMBAT report's headline verdicts (`gracr.domains.chem.headlines`) on hand-made cells
whose verdicts are known by hand."""

from __future__ import annotations

from gracr.domains.chem.headlines import Cell, Evidence, compatible, headline_rows
from gracr.domains.headlines import DIFFERS, NOT_RUN, REPRODUCED
from gracr.domains.chem.published import HEADLINES


def row(evidence: Evidence, key: str) -> list[str]:
    return headline_rows(evidence, [f for f in HEADLINES if f.key == key])[0]


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
    assert row(evidence, "table-s2")[3] == NOT_RUN
