"""No import cycle among the product packages: imports go one way.

The graph is built from the source with ``ast``: every ``import`` and ``from … import`` of a
product module, inside functions too (an import moved into a function to dodge a cycle is still
one), but not those under ``if TYPE_CHECKING:`` (never run). Importing ``a.b.c`` runs
``a/__init__.py`` and ``a/b/__init__.py`` first, so those are edges too. A cycle is a strongly
connected component of more than one module (or a module importing itself); the test reports
every one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "core",
    "graph",
    "vectors",
    "retrieval",
    "resolution",
    "ingest",
    "api",
    "cli",
    "ai_brain",
)


def _modules() -> dict[str, Path]:
    """Every product module by dotted name (a package by its own name, for ``__init__``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that run: everywhere but the body of an ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        if isinstance(node, ast.If) and _type_checking(node.test):
            for child in node.orelse:
                yield from _runtime_imports(ast.Module(body=[child], type_ignores=[]))
            continue
        yield from _runtime_imports(node)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names one import statement loads: ``from pkg import name`` loads
    ``pkg.name`` when that is a module, else ``pkg`` (``name`` is one of its attributes)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, base] if base else parts)
    return [f"{base}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """Module -> the product modules it imports at run time."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        # The packages above the module are running already when it is imported.
        running = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
        for node in _runtime_imports(tree):
            for target in _targets(module, is_package, node):
                if target not in modules and isinstance(node, ast.ImportFrom):
                    target = target.rpartition(".")[0]  # one of its module's attributes
                parts = target.split(".")
                for name in (".".join(parts[:n]) for n in range(1, len(parts) + 1)):
                    # The module and the packages above it that are not running yet run
                    # now; a running one is needed only for an attribute it makes.
                    needed = name not in running or name == target
                    if name in modules and name != module and needed:
                        graph[module].add(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_graph_sees_function_level_and_relative_imports() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import core.a\n"
        "def f():\n    from . import b\n    import core.c\n"
    )
    loaded = [t for node in _runtime_imports(tree) for t in _targets("core.x", False, node)]
    assert loaded == ["typing.TYPE_CHECKING", "core.b", "core.c"]


def test_cycles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_has_the_product_imports() -> None:
    graph = import_graph()
    assert "resolution.types" in graph["resolution.resolver"]
    assert "core" not in graph["core.types"]  # a package above is running already


def test_no_import_cycle_in_product_code() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)
