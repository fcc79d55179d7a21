"""Packages import downward only: data model -> language -> compiler -> executors -> BDD
-> bench -> fuzz -> CLI. Every import of `gracr/` is checked, module-level and
function-level alike; only imports under `if TYPE_CHECKING:` are exempt (they never run)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gracr"

# The layer of each part of the package, bottom first. `gracr` itself is the public API
# (re-exports everything), so it sits on top with the CLI.
LAYERS = {
    "gracr.errors": 0, "gracr.version": 0, "gracr.places": 0, "gracr.limits": 0,
    "gracr.files": 0, "gracr.stats": 0,
    "gracr.data": 0,
    "gracr.dsl": 1,
    "gracr.compiler": 2,
    "gracr.executor": 3,
    "gracr.bdd": 4,
    "gracr.explainers": 5, "gracr.bench": 6, "gracr.domains": 7,
    "gracr.fuzz": 8,
    "gracr.cli": 9, "gracr": 9,
}


def layer_of(module: str) -> int:
    """The layer of `module`: its longest prefix in `LAYERS`."""
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        name = ".".join(parts[:length])
        if name in LAYERS:
            return LAYERS[name]
    raise KeyError(module)


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(tree: ast.AST, modules: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """Every `gracr` module imported in `tree`, with its line, skipping TYPE_CHECKING blocks.

    `from package import name` counts as importing `package.name` when that is one of
    `modules`, else `package`.
    """
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.append((full if full in modules else node.module, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return list(dict.fromkeys((name, line) for name, line in found
                              if name == "gracr" or name.startswith("gracr.")))


SOURCES = sorted(PACKAGE.rglob("*.py"))
# `from gracr import files` imports the module gracr.files (layer 0), not the public API.
MODULES = frozenset(module_name(path) for path in SOURCES)

# The one upward import allowed, with its reason: the input fuzzer's command-line kinds
# exist to throw hostile option values at `gracrc`, and run its parser and commands in
# the fuzzer's worker process (a subprocess per input would cost seconds each). It is a
# function-level import, and `test_no_import_cycle_between_modules` still holds.
UPWARD_ALLOWED = {("gracr.fuzz.inputs.commands", "gracr.cli")}


def test_every_package_module_has_a_layer() -> None:
    for path in SOURCES:
        layer_of(module_name(path))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_downward_only(path: Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    upward = [f"{path.relative_to(PACKAGE.parent)}:{line}: imports {name} (layer "
              f"{layer_of(name)}) from layer {own}"
              for name, line in imports_of(ast.parse(path.read_text()), MODULES)
              if layer_of(name) > own and (module, name) not in UPWARD_ALLOWED]
    assert not upward, "\n".join(upward)


def test_the_walk_sees_function_level_imports_and_skips_type_checking() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from gracr.cli import main\n"
                     "def f():\n    from gracr.bench.runner import Job\n")
    assert imports_of(tree) == [("gracr.bench.runner", 5)]


def test_the_cycle_walk_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]


def _module_graph() -> dict[str, set[str]]:
    """Each module of `gracr/` and the `gracr` modules it imports, at run time."""
    modules = frozenset(module_name(path) for path in SOURCES)
    return {module_name(path): {name for name, _ in imports_of(ast.parse(path.read_text()),
                                                                modules)
                                if name in modules and name != module_name(path)}
            for path in SOURCES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each back edge of a depth-first walk of `graph`."""
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [module, target])
            elif target not in state:
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    return cycles


def test_no_import_cycle_between_modules() -> None:
    # A package's `__init__` importing its own modules (to re-export them) is not a cycle.
    graph = {module: {t for t in targets if not module.startswith(t + ".")}
             for module, targets in _module_graph().items()}
    cycles = _cycles(graph)
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_a_long_module_says_why_in_its_docstring() -> None:
    """No module over ~500 lines without a reason ("Its size ...") in its docstring."""
    unexplained = []
    for path in SOURCES:
        text = path.read_text()
        if text.count("\n") > 520:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "Its size" not in doc:
                unexplained.append(f"{path.relative_to(PACKAGE.parent)}: {text.count(chr(10))} lines")
    assert not unexplained, "\n".join(unexplained)
