"""The core never imports a built-in plugin: built-ins are found through
their entry points exactly like a third-party plugin (STYLE.md §2, §3).

Two checks: a static walk of every module of the ``corescheduler`` package
(``import``/``from … import`` statements and ``importlib.import_module`` /
``__import__`` calls with a literal name), and a subprocess that imports every
core module and then looks at ``sys.modules``.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import corescheduler

CORE = Path(corescheduler.__file__).parent
#: Top-level import names of the built-in plugins (the installed name and its source folder).
FORBIDDEN = ("corescheduler_plugins", "plugins")
#: Modules that run a program when imported rather than define one (``python -m``).
SCRIPTS = {"corescheduler.__main__"}


def core_modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(CORE.rglob("*.py")):
        parts = path.relative_to(CORE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append((".".join(parts), path))
    return out


def _forbidden(name: str | None) -> bool:
    return name is not None and name.split(".")[0] in FORBIDDEN


def plugin_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, what)`` for every import of a built-in plugin in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names if _forbidden(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and _forbidden(node.module):
                found.append((node.lineno, f"from {node.module} import ..."))
            elif node.level > 0 and node.module is None:
                found += [(node.lineno, f"from . import {a.name}") for a in node.names if _forbidden(a.name)]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            arg = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and _forbidden(arg.value)
            ):
                found.append((node.lineno, f"{name}({arg.value!r})"))
    return found


def test_core_modules_are_found():
    names = {name for name, _ in core_modules()}
    assert {"corescheduler", "corescheduler.hookspecs", "corescheduler.plugin_manager"} <= names


@pytest.mark.parametrize(("module", "path"), core_modules(), ids=[name for name, _ in core_modules()])
def test_core_module_does_not_import_a_builtin_plugin(module, path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = [f"{path}:{line}: {what}" for line, what in plugin_imports(tree)]
    assert not bad, f"{module} imports a built-in plugin (use its entry point):\n" + "\n".join(bad)


def test_the_static_check_catches_plugin_imports():
    source = (
        "import corescheduler_plugins.fair\n"
        "from corescheduler_plugins import delay\n"
        "from plugins.fair import FairSharePolicy\n"
        "import importlib\n"
        "importlib.import_module('corescheduler_plugins.slots')\n"
        "__import__('plugins')\n"
        "import corescheduler.plugin_manager\n"
        "from corescheduler import plugin_manager\n"
    )
    assert [line for line, _ in plugin_imports(ast.parse(source))] == [1, 2, 3, 5, 6]


IMPORT_ALL = """
import importlib, json, sys
errors = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        errors[name] = f"{type(exc).__name__}: {exc}"
leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("corescheduler_plugins", "plugins"))
print(json.dumps({"errors": errors, "leaked": leaked}))
"""


def test_importing_the_core_loads_no_builtin_plugin(tmp_path):
    # The key modules first, then every other one; a fresh interpreter, so
    # nothing this test session imported counts.
    first = ["corescheduler.scheduler", "corescheduler.testing", "corescheduler.plugin_manager"]
    rest = [name for name, _ in core_modules() if name not in first and name not in SCRIPTS]
    env = {**os.environ, "CORESCHEDULER_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, json.dumps(first + rest)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["errors"] == {}, "core modules that fail to import"
    assert result["leaked"] == [], "importing the core imported built-in plugins"
