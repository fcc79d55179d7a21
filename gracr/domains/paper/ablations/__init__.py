"""The paper's ablations as reproducible commands: `gracrc ablate NAME` (App. C.3-C.5, Fig. 3, 4).

Table ablations compare two *arms* — two compilations of the same task, or two ways of running
one explainer — on the same graphs and the same UPI, through the GracrBench runner:

- `table8`  (App. C.3): the comparative operator, expanded by Eq. 6 or direct by Eq. 8.
- `table9`  (App. C.4): IG with the exact derivative or with the surrogate of Eq. 9.
- `table10` (App. C.5): CompetingRedundancy, disjunction via De Morgan or the flat gate of Eq. 7.
- `table11` (App. C.5): RedBlueLeaf, formula φ∧ of Eq. 10 or φ∨ of Eq. 11.

Each table shows, per explainer (and task), ours and the paper's precision, recall and F1 for
both arms, and the direction of the F1 change; below it, the "direction of effect" claims of
the paper's text are checked (PASS / FAIL / NOT RUN).

Figure ablations run their own per-instance loops, logged as `Record`s and resumable:

- `fig3`: GNNExplainer's L1 penalty swept on Redundancy (Fig. 3).
- `fig4`: Deconv on Redundancy as background nodes are recoloured red (Fig. 4).

One module per table or figure declares it (tasks, arms, explainers, direction checks, the
paper's cells from `gracr.domains.paper.published`) over shared machinery: `declare` (the declaration
types), `checks` (the direction checks), `render` (the table beside the paper), `run_table`
(planning, reuse and running through the runner), `figures` (the figures' log, settings,
statistics and plots), `common` (provenance and output), `command` (the registry, the flags
and the dispatch).
"""

from gracr.domains.paper.ablations.command import (ABLATIONS, FIGURE_ABLATIONS, TABLE_ABLATIONS,
                                                   ablate_command, ablations_listed,
                                                   add_ablate_arguments)

__all__ = ["ABLATIONS", "FIGURE_ABLATIONS", "TABLE_ABLATIONS", "ablate_command",
           "ablations_listed", "add_ablate_arguments"]
