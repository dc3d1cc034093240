"""The package's import rules (docs/concepts.md, "Architecture").

* corescheduler never imports a built-in plugin: built-ins are found through
  their entry points exactly like a third-party plugin (STYLE.md §2, §3).  Two
  checks: a static walk of every module (``import``/``from … import``
  statements and ``importlib.import_module`` / ``__import__`` calls with a
  literal name), and a subprocess that imports every module and then looks at
  ``sys.modules``.
* The layers: the framework speaks the core's vocabulary (``core.model``,
  ``core.allocations``, …) and its contract (``core.hook_answers``,
  ``core.framework``) and nothing else of it; ``core`` imports no format,
  simulator, service or command line; ``formats`` no simulator, service or
  command line; ``sim`` no service or command line; the built-in plugins only
  the framework and the core; the service client (``corescheduler.client``) only
  the framework.  Checked statically on every import statement,
  those inside functions too.
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
    first = ["corescheduler.core.scheduler", "corescheduler.testing", "corescheduler.plugin_manager"]
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


# --------------------------------------------------------------------------- layers

#: The framework: what a plugin author reads first.
FRAMEWORK = {"corescheduler", "errors", "settings", "config", "hookspecs", "plugin_manager",
             "resources", "compiled", "share_policy_shim", "wording"}
#: The core's vocabulary, which the framework's hook specs are written in, and the core's side
#: of its contract with the framework: the checks on hook answers (``core.hook_answers``) and
#: what the engine takes from the framework, as protocols (``core.framework``).
VOCABULARY = {"core.model", "core.allocations", "core.javamath", "core.policy", "core.hints", "core.resources",
              "core.hook_answers", "core.framework"}
#: Layer (first part after ``corescheduler.``) -> what its modules may import.
#: ``"core"`` allows every module of the package; ``"core.model"`` just that one.
ALLOWED: dict[str, set[str]] = {
    "framework": FRAMEWORK | VOCABULARY,
    "core": FRAMEWORK | {"core"},
    "formats": FRAMEWORK | {"core", "formats"},
    "sim": FRAMEWORK | {"core", "formats", "sim"},
    "service": FRAMEWORK | {"core", "formats", "service"},
    # the service's Python client: it speaks HTTP, and knows nothing of the scheduler
    "client": FRAMEWORK,
    "testing": FRAMEWORK | {"core", "formats", "testing"},
    "plugins": FRAMEWORK | {"core"},
}
#: Layers that may import anything of the package: the command line, the
#: package root (it re-exports ``compute_fair_shares``) and its start-up modules.
UNRESTRICTED = {"cli", "package", "__main__"}


def layer_of(module: str) -> str:
    """``corescheduler.core.scheduler`` -> ``core``; a framework module -> ``framework``."""
    parts = module.split(".")
    if parts[0] != "corescheduler":
        return "plugins"
    if len(parts) == 1:
        return "package"  # corescheduler/__init__.py: re-exports the public names
    if parts[1] in FRAMEWORK:
        return "framework"
    return parts[1]


def package_imports(tree: ast.AST, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """``(line, "corescheduler.x.y")`` for every import of the package in ``tree``,
    relative imports resolved against ``module`` (a package's ``__init__`` if
    ``is_package``)."""
    found = []
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "corescheduler"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1])  # level 1: this package
                name = f"{base}.{node.module}" if node.module else base
            else:
                name = node.module or ""
            if name.split(".")[0] != "corescheduler":
                continue
            if name == "corescheduler":  # from corescheduler import hookspecs -> the module itself
                found += [(node.lineno, f"corescheduler.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, name))
    return sorted(found)


def allowed(importer_layer: str, target: str) -> bool:
    rest = target.split(".")[1:]
    if not rest or rest[0] in FRAMEWORK or rest[0].startswith("__"):
        return True  # the package root, a framework module, or __version__
    allowed_here = ALLOWED[importer_layer]
    return rest[0] in allowed_here or ".".join(rest[:2]) in allowed_here


def layer_violations(tree: ast.AST, module: str, is_package: bool = False) -> list[str]:
    layer = layer_of(module)
    if layer in UNRESTRICTED:
        return []
    imports = package_imports(tree, module, is_package)
    return [f"line {line}: {target}" for line, target in imports if not allowed(layer, target)]


def plugin_modules() -> list[tuple[str, Path]]:
    import corescheduler_plugins

    root = Path(corescheduler_plugins.__file__).parent
    return [(f"corescheduler_plugins.{p.stem}", p) for p in sorted(root.glob("*.py"))]


def test_every_module_has_a_layer():
    for name, _ in core_modules():
        layer = layer_of(name)
        assert layer in ALLOWED or layer in UNRESTRICTED, f"{name}: no import rule for layer {layer!r}"


@pytest.mark.parametrize(
    ("module", "path"),
    core_modules() + plugin_modules(),
    ids=[name for name, _ in core_modules() + plugin_modules()],
)
def test_module_keeps_to_its_layer(module, path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = layer_violations(tree, module, is_package=path.name == "__init__.py")
    assert not bad, f"{module} ({layer_of(module)}) imports outside its layer:\n" + "\n".join(bad)


def test_the_layer_check_catches_what_it_should():
    source = (
        "from corescheduler.core.model import Job\n"  # 1 fine everywhere below
        "from corescheduler.sim import simulator\n"  # 2 core must not
        "import corescheduler.formats.workloads\n"  # 3 core must not
        "from corescheduler import hookspecs\n"  # 4 fine
        "def f():\n"
        "    from corescheduler.cli import main\n"  # 6 a lazy import counts too
        "from ..sim.metrics import MetricsCollector\n"  # 7 relative
    )
    tree = ast.parse(source)
    assert layer_violations(tree, "corescheduler.core.scheduler") == [
        "line 2: corescheduler.sim",
        "line 3: corescheduler.formats.workloads",
        "line 6: corescheduler.cli",
        "line 7: corescheduler.sim.metrics",
    ]
    assert layer_violations(tree, "corescheduler.cli.check") == []
    scheduler = ast.parse("from corescheduler.core.scheduler import Scheduler\n")
    assert layer_violations(scheduler, "corescheduler.hookspecs")
    assert not layer_violations(ast.parse("from corescheduler.core.model import Job\n"), "corescheduler.hookspecs")
    relative = ast.parse("from ..sim import report\nfrom . import order\n")
    assert layer_violations(relative, "corescheduler.core", is_package=True) == ["line 1: corescheduler.sim"]
    assert layer_violations(ast.parse("from corescheduler.formats.workloads import load_workload\n"),
                            "corescheduler_plugins.delay")


def test_no_old_module_path_imports():
    """The pre-layout paths (``corescheduler.model`` for ``corescheduler.core.model``, …) were
    never released; no alias finder keeps them importing (issue 27)."""
    import importlib.util

    for old in ("corescheduler.model", "corescheduler.scheduler", "corescheduler.workload", "corescheduler.simulator"):
        assert importlib.util.find_spec(old) is None, old
    assert not [f for f in sys.meta_path if type(f).__module__.startswith("corescheduler")]
