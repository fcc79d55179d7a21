"""The shortcut audit of App. B: does a dataset with a planted ground truth let a model be
right without the motif? (`gracrc audit DATA`, `gracr.audit(DATA)`.)

- `data`: a graph file with `label` / `node_labels` and the motif masks (`AuditData`);
- `builtin`: BAShapes, Tree-Cycles, Tree-Grid, BAMultiShapes rebuilt offline;
- `features` and `probes`: the shortcut probes, cross-validated, and the verdict rule;
- `models`: GIN (GCN, GraphSAGE, GAT, PNA) trained over a small grid and seeds, with test
  F1 beside accuracy for two classes;
- `perturb`: the share of correct motif instances that flip when an edge (or node) outside
  the motif is removed; `compiled`: gracr's compiled rule through the same check;
- `molecules`: molecules labelled by a SMARTS rule (its translation the compiled rule);
  `replacement`: the motif replaced by hydrogen (Table 7), the share of correct positives
  whose answer does not change;
- `run`: `audit(...)`, the whole audit as an `AuditReport`; `report` and `figures` write it;
- `published`: the paper's numbers (App. B: Tables 4–5, BAShapes and BAMultiShapes) the
  reports are read beside;
- `tasks`: GracrBench tasks as audit data, with their rule; `wombat`: a WOMBAT pattern's
  dataset (the node UPI the motif, the pattern's `.gml` the rule); `tissue`: generated
  tissue fields (the node UPI of each positive the motif, the note's rule).

The package is callable: `gracr.audit(source, settings)` is `gracr.audit.run.audit`, so
that the public name and the package can be one (importing a submodule binds the package
to `gracr.audit`). Importing it stays light; torch is imported by the audit itself.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gracr.audit.run import AuditReport


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **options: Any) -> AuditReport:
        from gracr.audit.run import audit

        return audit(*args, **options)


sys.modules[__name__].__class__ = _CallableModule
