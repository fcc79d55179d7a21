"""Pack a tissue study's folder into an append-only archive, or unpack an archive into a
study's folder on a fresh machine (`gracr.domains.tissue.study_archive`).

    PYTHONPATH=. .venv/bin/python scripts/tissue_archive.py pack OUT/seedS runs/tissue/seedS
    PYTHONPATH=. .venv/bin/python scripts/tissue_archive.py unpack runs/tissue/seedS OUT/seedS

The scale run's archives are `runs/tissue/seedS/` in the repository (runs/README.md):
`scripts/tissue_scale.sh` unpacks them before a seed's study runs; pack at the end of a
session (the lanes stopped or paused) and commit what it wrote.
"""

from __future__ import annotations

import argparse
import sys

from gracr.domains.tissue.study_archive import pack_study, unpack_study
from gracr.errors import GracrError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("pack", "unpack"))
    parser.add_argument("source")
    parser.add_argument("target")
    args = parser.parse_args(argv)
    try:
        if args.action == "pack":
            written = pack_study(args.source, args.target).written
            print(f"{args.source}: nothing new for {args.target}" if not written else
                  f"{args.source}: {len(written)} files written into {args.target}:\n"
                  + "".join(f"  {path}\n" for path in written), end="" if written else "\n")
        else:
            moved = unpack_study(args.source, args.target)
            print(f"{args.target}: {moved.records} records, {moved.lines} log lines and "
                  f"{moved.models} model files added from {args.source}")
    except GracrError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
