"""Two gracr versions side by side, for the benchmarks that time an old path beside a new
one (`executor_before_after.py`, `protocol_cost.py`, `upi_stages.py --before`).

`checked_out` gives each version a tree: this checkout as it is (`WORKING_TREE`), or a
commit checked out into a temporary detached `git worktree`, removed at the end.
`VersionChild` is one version's child process: this same script run with
`PYTHONPATH=<tree>` (the child asserts, with `assert_imports`, that it imported that
tree's gracr), from a folder outside the checkout, answering one request line with one
answer line. Keeping both children alive and asking them in turn, request by request,
lets load from elsewhere fall on both versions alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKING_TREE = "working-tree"
# A child runs with one torch thread; its BLAS (numpy's too) gets the same count.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def git(*words: str) -> str:
    return subprocess.run(["git", "-C", REPO, *words], check=True, capture_output=True,
                          text=True).stdout.strip()


def describe(revision: str) -> str:
    """A revision as a table names it: its short commit, or `HEAD + working tree`."""
    if revision == WORKING_TREE:
        return git("rev-parse", "--short", "HEAD") + " + working tree"
    return git("rev-parse", "--short", revision)


@contextmanager
def checked_out(revisions: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """For each name, the tree of its revision: `REPO` for `WORKING_TREE`, else a
    temporary worktree of that commit (all removed on leaving, also on an error)."""
    with tempfile.TemporaryDirectory(prefix="gracr_versions_") as scratch:
        trees: dict[str, str] = {}
        try:
            for name, revision in revisions.items():
                if revision == WORKING_TREE:
                    trees[name] = REPO
                    continue
                tree = os.path.join(scratch, name)
                git("worktree", "add", "--detach", tree, git("rev-parse", revision))
                trees[name] = tree
            yield trees
        finally:
            for tree in trees.values():
                if tree != REPO:
                    subprocess.run(["git", "-C", REPO, "worktree", "remove", "--force", tree],
                                   check=False, capture_output=True)


def environment(tree: str, threads: int | None = 1) -> dict[str, str]:
    """The environment of a child importing the gracr of `tree` (`threads`: BLAS threads,
    `None` for their defaults)."""
    env = dict(os.environ, PYTHONPATH=tree)
    if threads:
        env.update({name: str(threads) for name in THREAD_VARIABLES})
    return env


def assert_imports(tree: str) -> None:
    """In a child: the gracr imported is the one of `tree`."""
    import gracr

    where = os.path.realpath(gracr.__file__)
    assert where.startswith(os.path.realpath(tree) + os.sep), (where, tree)


class VersionChild:
    """One version's child process: `command` run with the environment of `tree`. Its
    first line is a JSON object (`ready`); then each request line gets one answer line."""

    def __init__(self, command: list[str], tree: str, threads: int | None = 1) -> None:
        self.tree = tree
        self.process = subprocess.Popen(command, env=environment(tree, threads),
                                        cwd=tempfile.gettempdir(), text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ready: dict[str, Any] = json.loads(self.readline())

    def readline(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the child for {self.tree} stopped "
                             f"(exit code {self.process.wait()})")
        return line

    def request(self, line: str) -> str:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.readline()

    def ask(self, request: Any) -> Any:
        """A JSON request, its JSON answer."""
        return json.loads(self.request(json.dumps(request)))

    def finish(self) -> None:
        """Say `done` and wait; a child that then fails stops the benchmark."""
        assert self.process.stdin is not None
        self.process.stdin.write("done\n")
        self.process.stdin.close()
        if self.process.wait() != 0:
            raise SystemExit(f"the child for {self.tree} failed")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
