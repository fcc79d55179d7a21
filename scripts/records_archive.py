"""Pack a results file's records into an append-only archive, or unpack them into a
results file on a fresh machine (`gracr.bench.archive`).

    PYTHONPATH=. .venv/bin/python scripts/records_archive.py pack RESULTS ARCHIVE
    PYTHONPATH=. .venv/bin/python scripts/records_archive.py unpack ARCHIVE RESULTS

The long studies' archives are `runs/<study>/...` in the repository (runs/README.md):
`scripts/wombat_scale.sh` unpacks them before it resumes; pack at the end of a session and
commit the new pack.
"""

from __future__ import annotations

import argparse
import sys

from gracr.bench.archive import pack, unpack
from gracr.errors import GracrError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("pack", "unpack"))
    parser.add_argument("source")
    parser.add_argument("target")
    args = parser.parse_args(argv)
    try:
        if args.action == "pack":
            written = pack(args.source, args.target)
            print(f"{args.source}: nothing new for {args.target}" if written is None else
                  f"{args.source}: new records packed into {written}")
        else:
            added = unpack(args.source, args.target)
            print(f"{args.target}: {added} records added from {args.source}")
    except GracrError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
