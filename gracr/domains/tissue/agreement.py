"""The exact ground truth of a tissue sample against the generator's recorded roles.

The game is node deletion: `v(S)` is the label of the subgraph induced by the kept cells
`S`, positive iff `#engaged / #tumour > θ` there, a tumour cell being engaged iff a tcell
of `S` lies within the label radius ("near"). `gracr.bdd.relevance` gives, per cell,
whether it lies in some inclusion-minimal flipping removal (the counterfactual set) and
its exact (or sampled) Banzhaf and Shapley values. The generator records five roles:
drivers (tcells within the radius of a tumour cell), engaged and unengaged tumour cells,
decoys (tcells farther than the radius plus a gap from every tumour cell) and other cells.

What the rule implies, role by role (the marginal `v(S + i) - v(S)` of adding cell `i`):

- a *driver* only ever adds engaged tumour cells, never a tumour cell: every marginal is
  >= 0, and `S = {t}` (t a tumour cell near it) gives 1 (`1 > θ`, θ < 1), so Banzhaf and
  Shapley are > 0. On a negative sample a driver is in no minimal flipping removal
  (putting it back cannot lower the ratio); on a positive one it may or may not be: a
  driver whose tumour cells are all also engaged by other drivers can be in none;
- an *unengaged* tumour cell has no tcell within the radius in any subgraph, so adding it
  only raises `#tumour`: every marginal is <= 0, hence Banzhaf, Shapley <= 0 (< 0 unless
  θ = 0 or too few tumour cells exist to make it pivotal). On a positive sample it is in
  no minimal flipping removal (putting it back cannot raise the ratio); on a negative one
  with at least one engaged tumour cell every unengaged tumour cell is in one (removing
  any k* of them, k* the fewest that lift the ratio above θ, is minimal); with none
  engaged no removal flips the label and the counterfactual set is empty;
- an *engaged* tumour cell adds 1 to both counts when one of its tcells is kept (the ratio
  moves towards 1: marginal >= 0) and 1 to `#tumour` alone when none is (marginal <= 0):
  its values have no fixed sign. On a positive sample every engaged tumour cell is in
  the counterfactual set (removing any k* of them lowers the ratio to θ or below and
  fewer do not); on a negative one none is (a minimal removal holding it would have to
  hold all its tcells, and putting one of those back never lowers the label);
- a *decoy* is farther than the radius from every tumour cell, so no near edge links it
  to one, and an *other* cell is never counted: both are dummy players, outside the
  diagram's support: values exactly 0, never in the counterfactual set.

`agreement` counts, per role, the cells in the counterfactual set and the sign of each
value; `violations` checks the claims above on one sample (a non-empty answer means the
reasoning is wrong somewhere); `differences` explains each way the ground truth differs
from "the drivers (and engaged tumour cells) are the explanation"; `summarise` pools
samples into table rows for positives, negatives and all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gracr.bdd.relevance import Relevance
from gracr.bench.report.formatting import DASH, NumberFormat
from gracr.domains.tissue.table import OTHER, TCELL, TUMOUR, CellTable

DRIVER, ENGAGED, UNENGAGED, DECOY = "driver", "engaged tumour", "unengaged tumour", "decoy"
ROLES: tuple[str, ...] = (DRIVER, ENGAGED, UNENGAGED, DECOY, OTHER)
ZERO = 1e-12  # |value| at most this counts as 0 (exact values are float64)


def role_of_cells(table: CellTable) -> tuple[str, ...]:
    """Each cell's role as the generator recorded it (the table's flags and types)."""
    out: list[str] = []
    for i, kind in enumerate(table.types):
        if kind == TUMOUR:
            out.append(ENGAGED if bool(table.engaged[i]) else UNENGAGED)
        elif kind == TCELL:
            out.append(DRIVER if bool(table.driver[i]) else DECOY)
        else:
            out.append(OTHER)
    return tuple(out)


@dataclass(frozen=True)
class RoleCounts:
    """One role on one sample (or pooled): its cells, how many are in the counterfactual
    set, and the signs of their Shapley and Banzhaf values (0: |value| <= 1e-12)."""

    cells: int = 0
    counterfactual: int = 0
    shapley_positive: int = 0
    shapley_negative: int = 0
    shapley_zero: int = 0
    banzhaf_positive: int = 0
    banzhaf_negative: int = 0
    banzhaf_zero: int = 0

    def __add__(self, other: RoleCounts) -> RoleCounts:
        return RoleCounts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> tuple[int, ...]:
        return (self.cells, self.counterfactual, self.shapley_positive, self.shapley_negative,
                self.shapley_zero, self.banzhaf_positive, self.banzhaf_negative,
                self.banzhaf_zero)


@dataclass(frozen=True)
class Agreement:
    """The ground truth of one sample against its recorded roles.

    `roles` pairs each role of `ROLES` with its counts; `shapley_sum` is the sum of the
    Shapley values (efficiency: `v(V) - v(∅) = label`); `engaged_any` whether the sample
    has an engaged tumour cell (a negative without one has no flipping removal).
    `diagram` is `"refused"` when `gracr.bdd.relevance` could not build the diagram: the
    values are then sampled and there is no counterfactual set (every count 0)."""

    label: int
    shapley_method: str
    support_size: int
    min_counterfactual: int | None
    engaged_any: bool
    shapley_sum: float
    roles: tuple[tuple[str, RoleCounts], ...]
    diagram: str = "built"

    def counts(self, role: str) -> RoleCounts:
        for name, counts in self.roles:
            if name == role:
                return counts
        raise KeyError(role)


def _sign_counts(values: np.ndarray) -> tuple[int, int, int]:
    return (int((values > ZERO).sum()), int((values < -ZERO).sum()),
            int((np.abs(values) <= ZERO).sum()))


def agreement(table: CellTable, result: Relevance) -> Agreement:
    """Count, per recorded role, the cells in `result`'s counterfactual set and the signs of
    their Shapley and Banzhaf values."""
    n = table.num_cells
    if result.shapley.shape != (n,):
        raise ValueError(f"the relevance has {result.shapley.shape[0]} nodes, the "
                         f"table {n} cells")
    counterfactual = (np.zeros(n, dtype=np.bool_) if result.counterfactual is None
                      else result.counterfactual)
    role = np.array(role_of_cells(table), dtype=object)
    rows: list[tuple[str, RoleCounts]] = []
    for name in ROLES:
        mask = np.asarray(role == name, dtype=np.bool_)
        sp, sn, sz = _sign_counts(result.shapley[mask])
        bp, bn, bz = _sign_counts(result.banzhaf[mask])
        rows.append((name, RoleCounts(int(mask.sum()), int(counterfactual[mask].sum()),
                                      sp, sn, sz, bp, bn, bz)))
    return Agreement(label=int(result.label), shapley_method=result.shapley_method,
                     support_size=int(result.support_size),
                     min_counterfactual=result.min_counterfactual,
                     engaged_any=bool(table.engaged.any()),
                     shapley_sum=float(result.shapley.sum()), roles=tuple(rows),
                     diagram="refused" if result.counterfactual is None else "built")


def violations(a: Agreement) -> list[str]:
    """Where this sample contradicts the claims of the module docstring (proved from the
    rule); empty when every claim holds. Sampled values (Monte Carlo, or a refused
    diagram) are held to the weak signs only, since a sampled mean can be 0 where the
    exact value is not; without a diagram the counterfactual claims are not checked."""
    found: list[str] = []
    positive = a.label == 1
    exact = a.shapley_method == "exact"
    built = a.diagram == "built"
    d, e, u = a.counts(DRIVER), a.counts(ENGAGED), a.counts(UNENGAGED)
    for name in (DECOY, OTHER):
        c = a.counts(name)
        if c.counterfactual or c.shapley_zero != c.cells or c.banzhaf_zero != c.cells:
            found.append(f"{name}: not a dummy player ({c})")
    if d.shapley_negative or d.banzhaf_negative:
        found.append(f"driver with a negative value ({d})")
    if built and exact and (d.banzhaf_zero or d.shapley_zero):
        found.append(f"driver with a zero value ({d})")
    if u.shapley_positive or u.banzhaf_positive:
        found.append(f"unengaged tumour with a positive value ({u})")
    if not built:
        pass
    elif positive:
        if e.counterfactual != e.cells:
            found.append(f"positive: {e.cells - e.counterfactual} engaged tumour cells "
                         f"outside the counterfactual set")
        if u.counterfactual:
            found.append(f"positive: {u.counterfactual} unengaged tumour cells in the "
                         f"counterfactual set")
    else:
        if d.counterfactual or e.counterfactual:
            found.append(f"negative: {d.counterfactual} drivers and {e.counterfactual} "
                         f"engaged tumour cells in the counterfactual set")
        wanted = u.cells if a.engaged_any else 0
        if u.counterfactual != wanted:
            found.append(f"negative: {u.counterfactual} of {u.cells} unengaged tumour cells "
                         f"in the counterfactual set, expected {wanted}")
    if built and exact and abs(a.shapley_sum - a.label) > 1e-9:
        found.append(f"Shapley values sum to {a.shapley_sum}, not the label {a.label}")
    return found


def differences(a: Agreement) -> list[tuple[str, str]]:
    """Each way the ground truth departs from the recorded roles on this sample, as
    `(kind, explanation)` with the reason the rule gives (a difference is not an error:
    the roles are not a game)."""
    out: list[tuple[str, str]] = []
    d, e, u = a.counts(DRIVER), a.counts(ENGAGED), a.counts(UNENGAGED)
    if a.diagram != "built":
        out.append(("diagram refused", "no counterfactual set; values sampled"))
    elif a.label == 1:
        if d.counterfactual < d.cells:
            out.append(("+: drivers outside the CF set",
                        f"{d.cells - d.counterfactual} of {d.cells} drivers in no minimal "
                        f"flipping removal: never the removal that tips the ratio in a "
                        f"removal all of whose cells are needed"))
        if e.counterfactual:
            out.append(("+: engaged tumour cells in the CF set",
                        f"{e.counterfactual} engaged tumour cells in the counterfactual set: "
                        f"removing engaged tumour cells lowers #engaged/#tumour too"))
    else:
        if u.counterfactual:
            out.append(("−: the CF set is the unengaged tumour cells",
                        f"{u.counterfactual} unengaged tumour cells are the counterfactual "
                        f"set (no driver is): removing them raises the ratio, removing a "
                        f"driver never does"))
        if not a.engaged_any:
            out.append(("−: empty CF set", "no engaged tumour cell: no removal makes the "
                        "sample positive"))
    cls = "+" if a.label == 1 else "−"
    if u.shapley_negative:
        out.append((f"{cls}: unengaged tumour cells with Shapley < 0",
                    f"{u.shapley_negative} unengaged tumour cells with Shapley < 0: the "
                    f"recorded roles give them no part, the game a negative one"))
    if e.shapley_negative:
        out.append((f"{cls}: engaged tumour cells with Shapley < 0",
                    f"{e.shapley_negative} of {e.cells} engaged tumour cells with Shapley "
                    f"< 0: often added before any of their tcells, they then only raise "
                    f"#tumour"))
    if e.banzhaf_negative:
        out.append((f"{cls}: engaged tumour cells with Banzhaf < 0",
                    f"{e.banzhaf_negative} of {e.cells} engaged tumour cells with Banzhaf "
                    f"< 0"))
    return out


SUMMARY_HEADERS: tuple[str, ...] = (
    "class", "role", "samples", "cells", "in CF set", "Shapley >0", "Shapley <0",
    "Shapley =0", "Banzhaf >0", "Banzhaf <0", "Banzhaf =0")


# The shares of cells in each group, to a tenth of a percent.
SHARE = NumberFormat(1, DASH)


def _share(part: int, whole: int) -> str:
    return SHARE.percent(None if whole == 0 else part / whole)


def summarise(samples: Sequence[Agreement]) -> list[list[str]]:
    """Rows (`SUMMARY_HEADERS`) per class (positive, negative, pooled) and role: cells, and
    the share of them in the counterfactual set (over samples whose diagram was built)
    and with each sign of either value."""
    rows: list[list[str]] = []
    for label, chosen in (("positive", [a for a in samples if a.label == 1]),
                          ("negative", [a for a in samples if a.label == 0]),
                          ("pooled", list(samples))):
        for role in ROLES:
            total = RoleCounts()
            cf_cells = 0
            for a in chosen:
                total = total + a.counts(role)
                if a.diagram == "built":
                    cf_cells += a.counts(role).cells
            n = total.cells
            refused = sum(1 for a in chosen if a.diagram != "built")
            rows.append([label, role,
                         str(len(chosen)) + (f" ({refused} refused)" if refused else ""),
                         str(n), _share(total.counterfactual, cf_cells),
                         _share(total.shapley_positive, n), _share(total.shapley_negative, n),
                         _share(total.shapley_zero, n), _share(total.banzhaf_positive, n),
                         _share(total.banzhaf_negative, n), _share(total.banzhaf_zero, n)])
    return rows
