"""`gracrc fuzz`: explainers against logically equivalent models of one classifier.

`rewrites` builds the equivalent models (semantics-preserving rewrites of the IR,
compile options, identity padding, user alternatives) and checks equivalence with
ROBDDs; `random_formulas` draws formulas when no file is given; `run` explains the
same instances on every model and measures the spread of plausibility; `shrink`
reduces each failure to a 1-minimal counterexample.
"""

from gracr.fuzz.rewrites import (
    FAMILIES,
    Implementation,
    equivalent_on,
    implementations,
    pad_layers,
)

__all__ = ["FAMILIES", "Implementation", "equivalent_on", "implementations", "pad_layers"]
