"""Start-up time: `import gracr` and `gracrc --help` beside `python -c pass` (issue 38, item 5).

    .venv/bin/python benchmarks/startup.py                   # this checkout
    .venv/bin/python benchmarks/startup.py --before 6910e0f  # and a commit, in turn

Each command runs in a fresh process (`--runs`, default 5, taken in turn so that load from
elsewhere falls on all alike); the table shows the median wall-clock, the ratio to
`python -c pass` and the acceptance limit (`import gracr` <= 0.3 s, `gracrc --help` <= 1 s).
`import gracr` is also timed by `python -X importtime` (the cumulative microseconds of
the `gracr` line, median), which leaves out the interpreter's own start. `--before REV`
adds the same rows for gracr at commit REV (a temporary `git worktree`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from versions import WORKING_TREE, checked_out, describe, environment

# (name, arguments after the interpreter, limit in seconds or None)
COMMANDS: tuple[tuple[str, tuple[str, ...], float | None], ...] = (
    ("python -c pass", ("-c", "pass"), None),
    ("import gracr", ("-c", "import gracr"), 0.3),
    ("gracrc --help", ("-m", "gracr.cli", "--help"), 1.0),
)


def wall_seconds(arguments: tuple[str, ...], tree: str) -> float:
    """One fresh process's wall-clock, from fork to exit."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *arguments], env=environment(tree, threads=None),
                   cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def importtime_seconds(tree: str) -> float:
    """`import gracr`'s cumulative time as `python -X importtime` reports it."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import gracr"],
                          env=environment(tree, threads=None), cwd=tree, check=True,
                          capture_output=True, text=True)
    (line,) = [line for line in done.stderr.splitlines() if line.endswith("| gracr")]
    return int(line.split("|")[1]) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per command")
    parser.add_argument("--before", metavar="REV", help="also time gracr at commit REV")
    args = parser.parse_args(argv)

    versions = {"ours": WORKING_TREE, **({"before": args.before} if args.before else {})}
    with checked_out(versions) as trees:
        for tree in trees.values():   # warm the file cache and numba's and lark's caches
            for _, arguments, _ in COMMANDS:
                wall_seconds(arguments, tree)
        walls: dict[tuple[str, str], list[float]] = {}
        imports: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                for command, arguments, _ in COMMANDS:
                    walls.setdefault((name, command), []).append(wall_seconds(arguments, tree))
                imports[name].append(importtime_seconds(tree))

    print(f"Start-up, median of {args.runs} fresh processes (wall-clock seconds); "
          f"{sys.executable}")
    print(f"{'gracr':<28} {'command':<16} {'median (s)':>10} {'x python':>9} {'limit':>7} "
          f"{'within':>7}")
    for name, revision in versions.items():
        label = describe(revision)
        python = statistics.median(walls[(name, "python -c pass")])
        for command, _, limit in COMMANDS:
            median = statistics.median(walls[(name, command)])
            within = "-" if limit is None else ("yes" if median <= limit else "NO")
            shown_limit = "-" if limit is None else f"{limit:g} s"
            print(f"{label:<28} {command:<16} {median:>10.3f} {median / python:>9.1f} "
                  f"{shown_limit:>7} {within:>7}")
        print(f"{label:<28} {'-X importtime':<16} {statistics.median(imports[name]):>10.3f}   "
              "(import gracr, cumulative, without the interpreter's start)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
