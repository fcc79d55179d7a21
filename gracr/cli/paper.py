"""The paper's own command: `ablate NAME` (Tables 8-11, Fig. 3, Fig. 4), whose arguments and
dispatch the paper domain declares (`gracr.domains.paper.ablations`)."""

from __future__ import annotations

from gracr.cli.command import Command
from gracr.domains.paper.ablations import ablate_command, ablations_listed, add_ablate_arguments

COMMANDS = (
    Command("ablate", "run one of the paper's ablations (Tables 8-11, Fig. 3, Fig. 4) and "
                      "print it beside the paper (resumable)",
            add_ablate_arguments, ablate_command, description=ablations_listed()),
)
