"""No import cycle between the modules of ``corescheduler/`` and ``plugins/``.

Every import statement counts, wherever it stands: at the top of a module, under
``if TYPE_CHECKING:``, inside a function; and so does ``importlib.import_module`` /
``__import__`` with a literal name.  ``from package import name`` is an import of the
module ``package.name`` when there is one, of ``package`` otherwise; relative imports are
resolved as Python resolves them.  A package's ``__init__`` that Python runs before one of
its modules is not an edge: it is the import of that module that counts.

A cycle is two or more modules each reachable from the others (a strongly connected
component of the import graph); the failure names one cycle through it, with the file and
line of each import, and every module caught in it.

The same check runs once more with each subpackage taken as one node (``corescheduler.core``,
``corescheduler.sim``, …, and the built-in plugins as ``corescheduler_plugins``; the
framework's modules directly in ``corescheduler/`` each stay their own): a cycle there is a
part of the package that uses another part which uses it back, such as the core's engine
using ``plugin_manager``, whose ``hookspecs`` use ``core.model`` (the core names the framework
through the protocols of ``core.framework`` instead).  (Which part may import
which is tests/framework/test_layers.py.)
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Mapping
from itertools import pairwise
from pathlib import Path

import pytest
from paths import REPO

#: Import name -> source folder of each package checked.
ROOTS: dict[str, Path] = {"corescheduler": REPO / "corescheduler", "corescheduler_plugins": REPO / "plugins"}

#: Cycles known on this branch and fixed on another: the modules of each, and who fixes it.
#: A cycle listed here that no longer exists fails :func:`test_a_known_cycle_still_exists`, so
#: the entry is removed when the fix is merged; an empty set is the goal (issue 27, item 5).
KNOWN: dict[frozenset[str], str] = {
}

#: The same for cycles between parts of the package (:func:`part_of`).
KNOWN_PARTS: dict[frozenset[str], str] = {
}

def source_modules(roots: Mapping[str, Path] = ROOTS) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (its file, whether it is a package's ``__init__``)."""
    out = {}
    for top, folder in roots.items():
        for path in sorted(folder.rglob("*.py")):
            parts = (top, *path.relative_to(folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _known(name: str, modules: Iterable[str]) -> str | None:
    """``name`` or its nearest enclosing module among ``modules`` (``a.b.c`` -> ``a.b``)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(
    tree: ast.AST, module: str, modules: Mapping[str, object], is_package: bool = False
) -> list[tuple[int, str]]:
    """``(line, module)`` for each import in ``tree`` of one of ``modules`` (sorted; not
    ``module`` itself), relative imports resolved against ``module``."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[int, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, _known(a.name, modules)) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.append((node.lineno, submodule if submodule in modules else _known(target, modules)))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            arg = node.args[0]
            if name in ("import_module", "__import__") and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append((node.lineno, _known(arg.value, modules)))
    return sorted({(line, target) for line, target in found if target is not None and target != module})


def import_graph(modules: Mapping[str, tuple[Path, bool]]) -> dict[str, dict[str, int]]:
    """module -> {imported module: line of its first import}."""
    graph: dict[str, dict[str, int]] = {}
    for name, (path, is_package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: dict[str, int] = {}
        for line, target in imports(tree, name, modules, is_package):
            edges.setdefault(target, line)
        graph[name] = edges
    return graph


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[frozenset[str]]:
    """The strongly connected components of two or more modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return sorted(found, key=sorted)


def one_cycle(graph: Mapping[str, Mapping[str, int]], component: frozenset[str]) -> list[str]:
    """A shortest cycle through the first module (by name) of ``component``: ``[a, b, …, a]``."""
    start = min(component)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node]):
            if child not in component:
                continue
            if child == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if child not in previous:
                previous[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


def describe(graph: Mapping[str, Mapping[str, int]], component: frozenset[str],
             modules: Mapping[str, tuple[Path, bool]]) -> str:
    """``a -> b -> a``, the file and line of each of its imports, and the modules caught."""
    path = one_cycle(graph, component)
    lines = [" -> ".join(path)]
    for here, there in pairwise(path):
        file = modules[here][0].relative_to(REPO) if modules[here][0].is_relative_to(REPO) else modules[here][0]
        lines.append(f"    {file}:{graph[here][there]}: imports {there}")
    if len(component) > len(path) - 1:
        lines.append(f"    (the cycle's component: {', '.join(sorted(component))})")
    return "\n".join(lines)


def part_of(module: str, modules: Mapping[str, tuple[Path, bool]]) -> str:
    """The subpackage ``module`` is in (``corescheduler.core.model`` -> ``corescheduler.core``;
    ``corescheduler_plugins.fair`` -> ``corescheduler_plugins``), else ``module`` itself."""
    parts = module.split(".")
    if parts[0] != "corescheduler":
        return parts[0]  # the built-in plugins: one part
    subpackage = ".".join(parts[:2])
    if len(parts) > 1 and modules.get(subpackage, (None, False))[1]:
        return subpackage
    return module


def part_graph(
    graph: Mapping[str, Mapping[str, int]], modules: Mapping[str, tuple[Path, bool]]
) -> tuple[dict[str, dict[str, int]], dict[tuple[str, str], str]]:
    """The graph between parts, and for each edge the first import that makes it (``a -> b``)."""
    parts: dict[str, dict[str, int]] = {part_of(name, modules): {} for name in graph}
    why: dict[tuple[str, str], str] = {}
    for name in sorted(graph):
        for target, line in sorted(graph[name].items()):
            here, there = part_of(name, modules), part_of(target, modules)
            if here != there and there not in parts[here]:
                parts[here][there] = line
                why[here, there] = f"{name} -> {target} (line {line})"
    return parts, why


MODULES = source_modules()
GRAPH = import_graph(MODULES)
CYCLES = cycles(GRAPH)
PARTS, PART_EDGES = part_graph(GRAPH, MODULES)
PART_CYCLES = cycles(PARTS)


def test_the_modules_are_found() -> None:
    assert {"corescheduler", "corescheduler.core.model", "corescheduler.hookspecs", "corescheduler_plugins.fair",
            "corescheduler_plugins"} <= set(MODULES)
    assert "corescheduler.core.model" in GRAPH["corescheduler.hookspecs"]


def test_no_import_cycle() -> None:
    new = [describe(GRAPH, component, MODULES) for component in CYCLES if component not in KNOWN]
    assert not new, "import cycles (break each with a module both sides import):\n" + "\n".join(new)


@pytest.mark.parametrize("component", sorted(KNOWN, key=sorted), ids=lambda c: "<->".join(sorted(c)))
def test_a_known_cycle_still_exists(component: frozenset[str]) -> None:
    assert component in CYCLES, (
        f"the cycle {' <-> '.join(sorted(component))} ({KNOWN[component]}) is gone or has changed: "
        f"take it out of KNOWN in {Path(__file__).name}"
    )


def test_no_cycle_between_parts_of_the_package() -> None:
    new = []
    for component in PART_CYCLES:
        if component not in KNOWN_PARTS:
            path = one_cycle(PARTS, component)
            new.append(" -> ".join(path) + "".join(f"\n    {PART_EDGES[edge]}" for edge in pairwise(path)))
    assert not new, "import cycles between parts of the package:\n" + "\n".join(new)


@pytest.mark.parametrize("component", sorted(KNOWN_PARTS, key=sorted), ids=lambda c: "<->".join(sorted(c)))
def test_a_known_cycle_between_parts_still_exists(component: frozenset[str]) -> None:
    assert component in PART_CYCLES, (
        f"the cycle between {', '.join(sorted(component))} is gone or has changed (now: "
        f"{[sorted(c) for c in PART_CYCLES]}): take it out of KNOWN_PARTS in {Path(__file__).name}, or update it"
    )


def test_parts() -> None:
    assert part_of("corescheduler.core.model", MODULES) == "corescheduler.core"
    assert part_of("corescheduler.formats.workloads.sls", MODULES) == "corescheduler.formats"
    assert part_of("corescheduler_plugins.fair", MODULES) == "corescheduler_plugins"
    assert part_of("corescheduler_plugins", MODULES) == "corescheduler_plugins"
    assert part_of("corescheduler.hookspecs", MODULES) == "corescheduler.hookspecs"
    assert part_of("corescheduler", MODULES) == "corescheduler"


def test_every_kind_of_import_is_an_edge() -> None:
    modules = {name: None for name in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.e", "pkg.sub", "pkg.sub.f")}
    source = (
        "from __future__ import annotations\n"  # 1 not ours
        "from typing import TYPE_CHECKING\n"  # 2 not ours
        "import pkg.b\n"  # 3
        "if TYPE_CHECKING:\n"
        "    from pkg.c import Thing\n"  # 5 only for the type checker: still an edge
        "def f():\n"
        "    from . import d\n"  # 7 a function's import, relative
        "    import importlib\n"
        "    importlib.import_module('pkg.e')\n"  # 9 a literal dynamic import
        "from .sub.f import g\n"  # 10 relative, two levels
        "from pkg import a, sub\n"  # 11 pkg.a is this module: not an edge
        "from pkg import helper\n"  # 12 a name, not a module: the package
        "import pkg.b.missing\n"  # 13 no such module: its nearest package
    )
    assert imports(ast.parse(source), "pkg.a", modules) == [
        (3, "pkg.b"), (5, "pkg.c"), (7, "pkg.d"), (9, "pkg.e"), (10, "pkg.sub.f"), (11, "pkg.sub"), (12, "pkg"),
        (13, "pkg.b"),
    ]
    package = ast.parse("from . import f\nfrom .. import b\nfrom . import nothing\n")
    assert imports(package, "pkg.sub", modules, is_package=True) == [(1, "pkg.sub.f"), (2, "pkg.b")]


def test_the_cycle_finder_names_each_cycle() -> None:
    graph = {
        "a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4},  # a -> b -> c -> a
        "d": {"e": 5}, "e": {"d": 6},  # d <-> e
        "f": {"a": 7, "g": 8}, "g": {},  # no cycle
        "h": {"i": 9, "j": 10}, "i": {"h": 11}, "j": {"h": 12},  # two cycles, one component
    }
    assert cycles(graph) == [frozenset("abc"), frozenset("de"), frozenset("hij")]
    assert one_cycle(graph, frozenset("abc")) == ["a", "b", "c", "a"]
    assert one_cycle(graph, frozenset("hij")) == ["h", "i", "h"]
    assert cycles({"a": {"b": 1}, "b": {}}) == []
