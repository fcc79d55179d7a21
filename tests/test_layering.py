"""Packages import downward only: data model -> language -> compiler -> executors -> BDD
-> explainers -> bench -> the domains (paper, chem, tissue: siblings that never import one
another) -> audit -> qa (the fuzzers) -> CLI. Every import of `gracr/` is checked:
absolute and relative, module-level and function-level, and modules loaded by name
(`importlib.import_module`, `__import__`, with a literal or an f-string whose text starts
the name); only imports under `if TYPE_CHECKING:` are exempt (they never run)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gracr"

# The layer of each part of the package, bottom first, and for siblings that share a layer
# the group each belongs to. `gracr` itself is the public API (re-exports everything), so
# it sits on top with the CLI.
LAYERS: dict[str, tuple[int, str | None]] = {
    "gracr.errors": (0, None), "gracr.version": (0, None), "gracr.places": (0, None),
    "gracr.limits": (0, None), "gracr.files": (0, None), "gracr.stats": (0, None),
    "gracr.lazy": (0, None),
    "gracr.data": (0, None),
    "gracr.dsl": (1, None),
    "gracr.compiler": (2, None),
    "gracr.executor": (3, None),
    "gracr.bdd": (4, None),
    "gracr.explainers": (5, None),
    "gracr.bench": (6, None),
    "gracr.domains": (7, None),
    "gracr.domains.paper": (7, "paper"), "gracr.domains.chem": (7, "chem"),
    "gracr.domains.tissue": (7, "tissue"),
    "gracr.audit": (8, None),
    "gracr.fuzz": (9, None),
    "gracr.cli": (10, None), "gracr": (10, None),
}


def place_of(module: str) -> tuple[int, str | None]:
    """The layer and sibling group of `module`: those of its longest prefix in `LAYERS`."""
    parts = module.split(".")
    for length in range(len(parts), 0, -1):
        name = ".".join(parts[:length])
        if name in LAYERS:
            return LAYERS[name]
    raise KeyError(module)


def layer_of(module: str) -> int:
    return place_of(module)[0]


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _loaded_by_name(call: ast.Call) -> str | None:
    """The module `importlib.import_module(...)` / `import_module(...)` / `__import__(...)`
    loads, as far as its first argument's text says: a literal, or the literal start of an
    f-string (`f"gracr.explainers.{name}"` loads something in `gracr.explainers`)."""
    function = call.func
    name = function.attr if isinstance(function, ast.Attribute) else \
        function.id if isinstance(function, ast.Name) else None
    if name not in ("import_module", "__import__") or not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, ast.JoinedStr) and first.values and \
            isinstance(first.values[0], ast.Constant) and isinstance(first.values[0].value, str):
        return first.values[0].value.rstrip(".")
    return None


def imports_of(tree: ast.AST, modules: frozenset[str] = frozenset(), module: str = "",
               is_package: bool = False) -> list[tuple[str, int]]:
    """Every `gracr` module imported in `tree` (the source of `module`), with its line,
    skipping TYPE_CHECKING blocks.

    `from package import name` counts as importing `package.name` when that is one of
    `modules`, else `package`; a relative import is resolved against `module`'s package."""
    found: list[tuple[str, int]] = []
    package = module if is_package else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                base = node.module or ""
            else:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.append((full if full in modules else base, node.lineno))
        elif isinstance(node, ast.Call):
            loaded = _loaded_by_name(node)
            if loaded is not None:
                found.append((loaded, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return list(dict.fromkeys((name, line) for name, line in found
                              if name == "gracr" or name.startswith("gracr.")))


def violations(source: str, module: str, is_package: bool = False,
               modules: frozenset[str] = frozenset()) -> list[str]:
    """What in `source` (the text of `module`) imports upward, or into a sibling group of
    its own layer (one domain into another)."""
    own, group = place_of(module)
    found = []
    for name, line in imports_of(ast.parse(source), modules, module, is_package):
        layer, other = place_of(name)
        if (module, name) in UPWARD_ALLOWED:
            continue
        if layer > own:
            found.append(f"{module}:{line}: imports {name} (layer {layer}) from layer {own}")
        elif layer == own and group and other and other != group:
            found.append(f"{module}:{line}: imports {name} from its sibling {other}")
    return found


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
    found = violations(path.read_text(), module_name(path), path.name == "__init__.py", MODULES)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("module,source", [
    ("gracr.bench.tasks", "def f():\n    from ..domains.tissue import phases\n"),
    ("gracr.bench.tasks", "from ..cli import main\n"),
    ("gracr.bench", "from .. import cli\n"),
    ("gracr.bench.runner", "import importlib\nimportlib.import_module('gracr.cli')\n"),
    ("gracr.bench.runner", "from importlib import import_module\n"
                           "def f(n):\n    return import_module(f'gracr.domains.{n}')\n"),
    ("gracr.bench.runner", "__import__('gracr.fuzz.run')\n"),
    ("gracr.bench.report.write", "from gracr.domains.tissue import study\n"),
    ("gracr.bench.report.write", "import gracr.domains.tissue.study_report\n"),
    ("gracr.domains.chem.study", "from gracr.domains.tissue.phases import StudySettings\n"),
    ("gracr.domains.paper.report.sections", "from ...tissue import published\n"),
    ("gracr.domains.tissue.study", "from ..paper import published\n"),
    ("gracr.explainers.base", "from gracr.bench.runner import Job\n"),
], ids=["relative", "relative-two-up", "relative-package", "importlib", "import-module-fstring",
        "dunder-import", "bench-to-tissue", "bench-to-tissue-plain", "chem-to-tissue",
        "paper-to-tissue-relative", "tissue-to-paper-relative", "explainers-to-bench"])
def test_an_injected_upward_or_sideways_import_is_caught(module: str, source: str) -> None:
    assert violations(source, module, is_package=module == "gracr.bench", modules=MODULES)


@pytest.mark.parametrize("module,source", [
    ("gracr.bench.tasks", "from . import candidates\nfrom .graph_sources import Between\n"),
    ("gracr.domains.tissue.study", "from ...bench import study\n"),
    ("gracr.domains.tissue.study", "import importlib\nimportlib.import_module('gracr.bench')\n"),
    ("gracr.cli", "from gracr.domains.tissue import study\n"),
], ids=["relative-same-package", "relative-down", "importlib-down", "cli-to-domain"])
def test_downward_and_own_package_imports_pass(module: str, source: str) -> None:
    assert violations(source, module, modules=MODULES) == []


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


LONG = 520   # lines: a module longer than this says why it is one module
SIZE_BAND = re.compile(r"Its size \((\d+)[–-](\d+) lines\)")


def size_reason_error(lines: int, doc: str) -> str | None:
    """What is wrong with a long module's reason: none given, or not naming the hundred
    its size is in ("Its size (600–700 lines) is ..."), so a stale reason fails."""
    match = SIZE_BAND.search(doc)
    if match is None:
        return f"{lines} lines and no 'Its size (N00–M00 lines) ...' reason in its docstring"
    low, high = int(match.group(1)), int(match.group(2))
    if not (low % 100 == 0 and high == low + 100 and low <= lines < high):
        return f"{lines} lines, but its reason says {low}–{high}"
    return None


def test_a_long_module_says_why_naming_its_size_band() -> None:
    """No module over `LONG` lines without a reason that names its current size band."""
    wrong = []
    for path in SOURCES:
        text = path.read_text()
        lines = text.count("\n")
        if lines > LONG:
            error = size_reason_error(lines, ast.get_docstring(ast.parse(text)) or "")
            if error:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}: {error}")
    assert not wrong, "\n".join(wrong)


def test_a_stale_size_band_is_refused() -> None:
    assert size_reason_error(612, "Its size (600–700 lines) is one run's life.") is None
    assert size_reason_error(612, "Its size (500–600 lines) is one run's life.")
    assert size_reason_error(612, "Its size (~600 lines) is one run's life.")
    assert size_reason_error(612, "Its size (600–800 lines) is one run's life.")
    assert size_reason_error(612, "One run's life.")
