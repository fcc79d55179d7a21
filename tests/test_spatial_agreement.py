"""The exact ground truth of tissue samples against the generator's roles
(`gracr.domains.tissue.agreement`): the claims derived from the rule, checked on a few fixed
300-cell samples, each able to fail."""

from __future__ import annotations

import numpy as np
import pytest

# Big: every test here runs benches, studies or Ray sessions (the CI stage `-m big`).
pytestmark = pytest.mark.big

import gracr
from gracr.bdd.relevance import Relevance, relevance
from gracr.domains.tissue import CellTable, TissueSettings, generate_dataset, graph_json, tissue_program
from gracr.domains.tissue.agreement import (DECOY, DRIVER, ENGAGED, ROLES, UNENGAGED, Agreement,
                                     RoleCounts, agreement, differences, role_of_cells,
                                     summarise, violations)
from gracr.domains.tissue.table import OTHER


@pytest.fixture(scope="module")
def samples() -> list[tuple[CellTable, Relevance]]:
    """Four 300-cell samples of one dataset (θ for its balance), with their relevance."""
    tables, theta = generate_dataset(np.random.default_rng(20261201),
                                     TissueSettings.for_cells(300), 4)
    prog = gracr.parse(tissue_program(theta))
    out = []
    for table in tables:
        graph = gracr.Graph.from_json(graph_json(table, theta, 1.0), schema=prog.schema)
        out.append((table, relevance(prog, graph, backend="cudd", max_exact=200)))
    return out


def built(samples: list[tuple[CellTable, Relevance]]) -> list[tuple[CellTable, Relevance]]:
    """The samples whose diagram was built (a refused one has sampled values and no
    counterfactual set)."""
    return [(t, r) for t, r in samples if r.diagram == "built"]


def test_both_classes_present(samples: list[tuple[CellTable, Relevance]]) -> None:
    exact = built(samples)
    assert {r.label for _, r in exact} == {0, 1}
    assert all(r.shapley_method == "exact" for _, r in exact)


def test_decoys_and_others_are_dummies(samples: list[tuple[CellTable, Relevance]]) -> None:
    # on a refused diagram too: each sampled marginal of a dummy is exactly 0
    for table, r in samples:
        role = np.array(role_of_cells(table))
        dummy = (role == DECOY) | (role == OTHER)
        assert dummy.any()
        assert np.all(r.shapley[dummy] == 0.0) and np.all(r.banzhaf[dummy] == 0.0)
        assert r.counterfactual is None or not r.counterfactual[dummy].any()


def test_signs(samples: list[tuple[CellTable, Relevance]]) -> None:
    for table, r in built(samples):
        role = np.array(role_of_cells(table))
        driver, unengaged = role == DRIVER, role == UNENGAGED
        assert driver.any() and unengaged.any()
        # drivers: every marginal >= 0 and some > 0, so strictly positive
        assert np.all(r.shapley[driver] > 1e-12) and np.all(r.banzhaf[driver] > 1e-12)
        # unengaged tumour: every marginal <= 0
        assert np.all(r.shapley[unengaged] <= 1e-12)
        assert np.all(r.banzhaf[unengaged] <= 1e-12)


def test_counterfactual_sets_by_class(samples: list[tuple[CellTable, Relevance]]) -> None:
    for table, r in built(samples):
        role = np.array(role_of_cells(table))
        assert r.counterfactual is not None
        if r.label == 1:
            assert r.counterfactual[role == ENGAGED].all()
            assert not r.counterfactual[role == UNENGAGED].any()
        else:
            assert not r.counterfactual[(role == DRIVER) | (role == ENGAGED)].any()
            assert r.counterfactual[role == UNENGAGED].all() == bool(table.engaged.any())


def test_shapley_efficiency(samples: list[tuple[CellTable, Relevance]]) -> None:
    # v(V) - v(empty) = label: the empty tissue has no tumour cell, hence negative
    for _, r in built(samples):
        assert r.shapley.sum() == pytest.approx(r.label, abs=1e-9)


def test_agreement_counts_add_up(samples: list[tuple[CellTable, Relevance]]) -> None:
    for table, r in samples:
        a = agreement(table, r)
        assert sum(c.cells for _, c in a.roles) == table.num_cells
        cf = 0 if r.counterfactual is None else int(r.counterfactual.sum())
        assert sum(c.counterfactual for _, c in a.roles) == cf
        for name, c in a.roles:
            expected = sum(1 for x in role_of_cells(table) if x == name)
            assert c.cells == expected
            assert c.shapley_positive + c.shapley_negative + c.shapley_zero == c.cells
            assert c.banzhaf_positive + c.banzhaf_negative + c.banzhaf_zero == c.cells
        assert a.counts(DRIVER).cells == int(table.driver.sum())
        assert a.counts(DECOY).cells == int(table.decoy.sum())
        assert a.counts(ENGAGED).cells == int(table.engaged.sum())
        assert violations(a) == []
        assert all(kind and text for kind, text in differences(a))


def test_violations_can_fail() -> None:
    zero = RoleCounts()
    bad = Agreement(label=1, shapley_method="exact", support_size=2, min_counterfactual=1,
                    engaged_any=True, shapley_sum=1.0,
                    roles=tuple((name, RoleCounts(1, 0, 0, 1, 0, 0, 1, 0) if name == DRIVER
                                 else zero) for name in ROLES))
    found = violations(bad)
    assert any("driver with a negative value" in f for f in found)


def test_summarise_rows(samples: list[tuple[CellTable, Relevance]]) -> None:
    rows = summarise([agreement(t, r) for t, r in samples])
    assert len(rows) == 3 * len(ROLES)
    pooled = {row[1]: row for row in rows if row[0] == "pooled"}
    assert pooled[DECOY][7] == "100.0%"  # Shapley = 0
    assert pooled[DRIVER][5] == "100.0%"  # Shapley > 0
