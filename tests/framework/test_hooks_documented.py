"""Meta-tests: the hook contract, its documentation and the built-in plugins'
registration stay in step (as datasette's and flake8's own tests do).

* every hook spec in :mod:`corescheduler.hookspecs` has a section in
  ``docs/hooks.md`` with its exact signature, under its extension point, in
  the order of ``hookspecs.py``;
* every hook spec's docstring says when it is called and how results
  combine;
* ``EXTENSION_POINTS`` / ``NOTIFICATION_HOOKS`` list exactly the hook specs;
* every built-in entry point imports and implements hooks, and every module
  of ``corescheduler_plugins`` has an entry point;
* the code shown in ``docs/plugin-authors.md`` is the code in ``docs/examples``.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import pkgutil
import re
import tomllib
from typing import Any

import pytest
from paths import REPO

from corescheduler import hookspecs, plugin_manager

HOOKS_MD = REPO / "docs" / "hooks.md"
AUTHORS_MD = REPO / "docs" / "plugin-authors.md"
EXAMPLES = REPO / "docs" / "examples"
SPEC_ATTR = f"{hookspecs.PROJECT}_spec"

FIRST_RESULT = "first non-none result wins"
CHAINED = "chained"
IGNORED = re.compile(r"return values? (?:is |are )?ignored")


def hook_specs() -> dict[str, Any]:
    """Every ``cs_*`` function of hookspecs.py, in source order."""
    fns = [fn for name, fn in vars(hookspecs).items() if name.startswith("cs_") and inspect.isfunction(fn)]
    fns.sort(key=lambda fn: fn.__code__.co_firstlineno)
    return {fn.__name__: fn for fn in fns}


HOOKS = hook_specs()
POINT_OF = {hook: point for point, hooks in hookspecs.EXTENSION_POINTS.items() for hook in hooks}


def signature(fn: Any) -> str:
    """``cs_x(a: A, b: B) -> R`` as written in hookspecs.py (annotations as source text)."""
    ann = fn.__annotations__
    params = ", ".join(f"{p}: {ann[p]}" if p in ann else p for p in inspect.signature(fn).parameters)
    return f"{fn.__name__}({params}) -> {ann.get('return', 'None')}"


def first_result(fn: Any) -> bool:
    return bool(getattr(fn, SPEC_ATTR)["firstresult"])


def flat(text: str) -> str:
    """Lower-case, whitespace collapsed, markdown emphasis removed."""
    return " ".join(text.replace("*", "").replace("``", "`").split()).lower()


def sections(markdown: str) -> list[tuple[int, str, str]]:
    """``(level, title, body)`` for every ``##``/``###`` heading, in order
    (headings inside fenced code blocks are not headings)."""
    out: list[tuple[int, str, list[str]]] = []
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"^(#{2,3}) +(.+?)\s*$", line)
        if m:
            out.append((len(m.group(1)), m.group(2).strip("` "), []))
        elif out:
            out[-1][2].append(line)
    return [(level, title, "\n".join(body)) for level, title, body in out]


@pytest.fixture(scope="module")
def doc_sections() -> list[tuple[int, str, str]]:
    return sections(HOOKS_MD.read_text(encoding="utf-8"))


def hook_section(doc_sections: list[tuple[int, str, str]], name: str) -> str:
    found = [body for _, title, body in doc_sections if title == name]
    assert found, f"docs/hooks.md has no '## {name}' or '### {name}' section"
    assert len(found) == 1, f"docs/hooks.md has {len(found)} sections named {name}"
    return found[0]


# =========================================================================== the contract itself


def test_there_are_hooks():
    assert "cs_select_task" in HOOKS
    assert len(HOOKS) >= 10


@pytest.mark.parametrize("name", HOOKS)
def test_every_cs_function_is_a_hookspec(name):
    assert getattr(HOOKS[name], SPEC_ATTR, None) is not None, f"{name} lacks @hookspec"


def test_extension_points_and_notifications_list_exactly_the_hookspecs():
    listed = [h for hooks in hookspecs.EXTENSION_POINTS.values() for h in hooks] + list(hookspecs.NOTIFICATION_HOOKS)
    assert len(listed) == len(set(listed)), "a hook is listed twice"
    assert set(listed) - set(HOOKS) == set(), "listed in EXTENSION_POINTS/NOTIFICATION_HOOKS but not a hookspec"
    assert set(HOOKS) - set(listed) == set(), "hookspec missing from EXTENSION_POINTS/NOTIFICATION_HOOKS"
    assert listed == list(HOOKS), "EXTENSION_POINTS/NOTIFICATION_HOOKS are not in hookspecs.py order"


def test_plugin_manager_tables_agree_with_the_extension_points():
    for point, hook in plugin_manager.REQUIRED_HOOK.items():
        assert hook in hookspecs.EXTENSION_POINTS[point]
    assert set(plugin_manager.REQUIRED_HOOK) == set(hookspecs.EXTENSION_POINTS)
    assert set(hookspecs.EXTENSION_POINTS) <= set(plugin_manager.POINT_KEYS)


def test_notification_hooks_are_not_firstresult():
    for name in hookspecs.NOTIFICATION_HOOKS:
        assert not first_result(HOOKS[name]), f"{name}: notification hooks go to every plugin"


@pytest.mark.parametrize("name", HOOKS)
def test_hookspec_docstring_says_when_and_how_results_combine(name):
    fn = HOOKS[name]
    doc = flat(inspect.getdoc(fn) or "")
    assert doc, f"{name} has no docstring"
    assert "called" in doc, f"{name}: the docstring should say when it is called ('Called …')"
    if first_result(fn):
        assert FIRST_RESULT in doc, f"{name} is firstresult: say 'First non-None result wins'"
    elif name in hookspecs.NOTIFICATION_HOOKS:
        assert IGNORED.search(doc), f"{name}: say that return values are ignored"
    else:
        assert CHAINED in doc or IGNORED.search(doc), f"{name}: say 'Chained' or that return values are ignored"
        assert FIRST_RESULT not in doc, f"{name} is not firstresult but its docstring says so"


# =========================================================================== docs/hooks.md


@pytest.mark.parametrize("name", HOOKS)
def test_hook_has_a_section_with_its_exact_signature(name, doc_sections):
    body = hook_section(doc_sections, name)
    sig = signature(HOOKS[name])
    assert sig in body, f"docs/hooks.md section {name} should show `def {sig}`"
    decorator = "@hookspec(firstresult=True)" if first_result(HOOKS[name]) else "@hookspec\n"
    assert decorator in body, f"docs/hooks.md section {name} should show {decorator.strip()}"


@pytest.mark.parametrize("name", HOOKS)
def test_hook_section_states_when_none_and_aggregation(name, doc_sections):
    body = flat(hook_section(doc_sections, name))
    assert "when:" in body, f"docs/hooks.md {name}: say when it is called"
    assert "aggregation:" in body, f"docs/hooks.md {name}: give the aggregation rule"
    if first_result(HOOKS[name]):
        assert FIRST_RESULT in body
        assert "none` means:" in body, f"docs/hooks.md {name}: say what None means"
    elif name in hookspecs.NOTIFICATION_HOOKS:
        assert IGNORED.search(body)
    else:
        assert CHAINED in body
        assert "none` means:" in body, f"docs/hooks.md {name}: say what None means"


def test_hook_sections_are_grouped_by_extension_point_in_hookspecs_order(doc_sections):
    group = None
    seen: list[tuple[str, str | None]] = []
    for level, title, _ in doc_sections:
        if level == 2:
            group = title
        elif title in HOOKS:
            seen.append((title, group))
    assert [hook for hook, _ in seen] == list(HOOKS), "hook sections are not in hookspecs.py order"
    for hook, heading in seen:
        expected = POINT_OF.get(hook, "Notifications")
        assert heading == expected, f"{hook} is under '## {heading}', expected '## {expected}'"


@pytest.mark.parametrize("point", hookspecs.EXTENSION_POINTS)
def test_extension_point_group_names_its_config_key(point, doc_sections):
    bodies = [body for level, title, body in doc_sections if level == 2 and title == point]
    hooks = [body for _, title, body in doc_sections if POINT_OF.get(title) == point]
    key = plugin_manager.POINT_KEYS[point]
    assert bodies, f"docs/hooks.md has no '## {point}' section"
    assert f"`[scheduler] {key}`" in "\n".join(bodies + hooks)


def test_hooks_md_explains_selection_errors_and_the_block_list():
    text = HOOKS_MD.read_text(encoding="utf-8")
    for needle in (
        "config decides the order",
        "running TaskSelector plugin 'delay'",
        "__cause__",
        "blocked_plugins",
        plugin_manager.DISABLE_AUTOLOAD_ENV,
        "check_pending",
    ):
        assert needle in text, f"docs/hooks.md should mention {needle!r}"


# =========================================================================== built-in plugins


def builtin_entry_points() -> list[importlib.metadata.EntryPoint]:
    dist = importlib.metadata.distribution(plugin_manager.BUILTIN_DIST)
    return sorted((ep for ep in dist.entry_points if ep.group == plugin_manager.GROUP), key=lambda ep: ep.name)


def test_builtin_entry_points_match_pyproject():
    pyproject = REPO / "pyproject.toml"
    if not pyproject.exists():  # pragma: no cover - running against an installed copy
        pytest.skip("no pyproject.toml next to the tests")
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["entry-points"][plugin_manager.GROUP]
    installed = {ep.name: ep.value for ep in builtin_entry_points()}
    assert installed == declared, "installed metadata is stale: run `pip install -e .` again"


@pytest.mark.parametrize("ep", builtin_entry_points(), ids=lambda ep: ep.name)
def test_builtin_entry_point_imports_and_implements_hooks(ep):
    target = ep.load()
    hooks = plugin_manager.hooks_of(target)
    assert hooks, f"built-in plugin {ep.name} ({ep.value}) implements no hook"
    assert set(hooks) <= set(HOOKS)
    assert plugin_manager.points_of(hooks), f"built-in plugin {ep.name} serves no extension point"


def test_every_builtin_plugin_module_has_an_entry_point():
    import corescheduler_plugins

    registered = {ep.value.split(":")[0] for ep in builtin_entry_points()}
    modules = [
        f"corescheduler_plugins.{m.name}"
        for m in pkgutil.iter_modules(corescheduler_plugins.__path__)
        if not m.name.startswith("_")  # private helpers shared by plugins
    ]
    assert modules
    missing = [m for m in modules if m not in registered]
    assert not missing, f"modules without an entry point in [project.entry-points.corescheduler]: {missing}"


# =========================================================================== the tutorial's code


def titled_blocks(markdown: str) -> list[tuple[str, str]]:
    """``(title, code)`` of every fenced block written ```` ```lang title="path" ````."""
    pattern = re.compile(r'^```\w*[ \t]+title="([^"]+)"[ \t]*\n(.*?)^```[ \t]*$', re.S | re.M)
    return [(m.group(1), m.group(2)) for m in pattern.finditer(markdown)]


def test_tutorial_code_is_the_example_code():
    blocks = titled_blocks(AUTHORS_MD.read_text(encoding="utf-8"))
    assert len(blocks) >= 3, "docs/plugin-authors.md should show the example's files"
    for title, code in blocks:
        path = EXAMPLES / title
        assert path.is_file(), f'docs/plugin-authors.md shows title="{title}", not a file under docs/examples'
        assert code in path.read_text(encoding="utf-8"), f"docs/plugin-authors.md block {title} differs from {path}"


def test_every_example_file_is_shown_in_the_tutorial():
    shown = {title for title, _ in titled_blocks(AUTHORS_MD.read_text(encoding="utf-8"))}
    files = {
        p.relative_to(EXAMPLES).as_posix()
        for p in EXAMPLES.rglob("*")
        if p.is_file() and p.suffix in (".py", ".toml") and "__pycache__" not in p.parts
    }
    assert files <= shown, f"example files not shown in docs/plugin-authors.md: {sorted(files - shown)}"
