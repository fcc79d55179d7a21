"""`gracrc fuzz`: explainers against logically equivalent models of one classifier.

`rewrites` builds the equivalent models (semantics-preserving rewrites of the IR,
compile options, identity padding, user alternatives) and checks equivalence with
ROBDDs; `random_formulas` draws formulas when no file is given; `run` explains the
same instances on every model and measures the spread of plausibility; `shrink`
reduces each failure to a 1-minimal counterexample. From Python: `run_fuzz(FuzzConfig(...),
program)` and `summary_table(report)`.
"""

from typing import TYPE_CHECKING

from gracr.lazy import lazy_attributes
from gracr.fuzz.rewrites import (
    FAMILIES,
    Implementation,
    equivalent_on,
    implementations,
    pad_layers,
)

if TYPE_CHECKING:
    from gracr.fuzz.run import FuzzConfig, FuzzReport, run_fuzz, summary_table

_RUN = ("FuzzConfig", "FuzzReport", "run_fuzz", "summary_table")

__all__ = ["FAMILIES", "FuzzConfig", "FuzzReport", "Implementation", "equivalent_on",
           "implementations", "pad_layers", "run_fuzz", "summary_table"]


# The fuzz run explains (torch): loaded when asked for, so that the input fuzzer's
# modules, which live below this package, stay light.
__getattr__ = lazy_attributes(__name__, dict.fromkeys(_RUN, "gracr.fuzz.run"), globals())
