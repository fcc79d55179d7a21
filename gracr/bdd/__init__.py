"""Typed IR x graph -> ROBDD over edge variables -> Extend -> Extract -> UPI mask (§4.3, App. D).

- `backend`: the `BDDBackend` protocol and its `dd.cudd` / `dd.autoref` adapters.
- `build`: BuildNode (Algorithm 4) and BuildGraph (Algorithm 5).
- `polarity`: the syntactic monotonicity check behind the Extend shortcut.
- `upi`: Extend (Algorithm 2), Extract (Algorithm 3), UnionPI (Algorithm 1), the
  API (`upi`, `upi_report`, `receptive_field`).
- `brute`: the UPI by enumerating every edge subset, the tests' oracle.
"""

from gracr.bdd.backend import AutorefBackend, BDDBackend, CuddBackend, make_backend
from gracr.bdd.brute import brute_force_upi
from gracr.bdd.upi import UpiReport, receptive_field, upi, upi_json, upi_report

__all__ = [
    "AutorefBackend", "BDDBackend", "CuddBackend", "UpiReport", "brute_force_upi",
    "make_backend", "receptive_field", "upi", "upi_json", "upi_report",
]
