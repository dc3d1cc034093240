"""The compiled build (``CORESCHEDULER_MYPYC=1``, ``setup.py``) against the pure-Python modules.

The test builds the wheel the way a user would (``pip wheel`` of a copy of this checkout, with
mypyc), installs it into a folder, and runs the same simulations in two processes: one
importing the compiled wheel, one the pure-Python modules.  Their ``events.jsonl`` and
metrics must be byte-identical, and the stored digests of ``test_digest.py`` must hold for the
compiled build too.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from paths import REPO as ROOT

import corescheduler.compiled as compiled

pytest.importorskip("mypyc", reason="mypy (with mypyc) is in the [test] extra")

TESTS = Path(__file__).resolve().parents[1]  # the folder of paths.py and sim/test_digest.py

#: run in a child process: digests of the pinned cases, then of the bundled example configs
CHILD = r"""
import hashlib, json, sys
from importlib.resources import files
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/sim"]
import corescheduler.compiled
import test_digest
from corescheduler.config import Config
from corescheduler.formats.workloads import load_workload
from corescheduler.sim.simulator import Simulation, build_cluster

def sha(result):
    blob = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in result.event_list)
    metrics = json.dumps(result.metrics, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest(), hashlib.sha256(metrics.encode()).hexdigest()

out = {"compiled": corescheduler.compiled.compiled_modules()}
for name, (extra, _) in test_digest.DIGESTS.items():
    out[name] = test_digest._digest(extra)
examples = files("corescheduler_examples")
for toml, workload, jobs in (("yarn.toml", "yarn-workload.json", None), ("capacity.toml", "builtin:facebook", 60)):
    config = Config.from_toml((examples / toml).read_text(), str(examples / toml))
    source = str(examples / workload) if workload.endswith(".json") else workload
    wl = load_workload(source, config=config, seed=3, nodes=list(build_cluster(config).nodes))
    if jobs:
        import attrs
        wl = attrs.evolve(wl, jobs=wl.jobs[:jobs])
    out[toml] = sha(Simulation(config, wl, 3).run())
print(json.dumps(out))
"""


def _run(env_path: str | None, cwd: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if env_path is not None:
        env["PYTHONPATH"] = env_path
    proc = subprocess.run([sys.executable, "-c", CHILD, str(TESTS)], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_compiled_wheel_gives_the_pure_python_results(tmp_path: Path) -> None:
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler")
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "sim-out", "out", "*.so", ".peer-venv"))
    env = {**os.environ, "CORESCHEDULER_MYPYC": "1"}
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(tmp_path / "wheel"), str(src)], env=env, capture_output=True, text=True,
                           timeout=900, check=False)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (tmp_path / "wheel").glob("corescheduler-*.whl")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)

    fast = _run(str(site), tmp_path)  # not the checkout's folder: its corescheduler/ would come first
    pure = _run(None, tmp_path)
    assert all(fast.pop("compiled").values()), "the wheel's modules did not import compiled"
    assert not any(pure.pop("compiled").values())
    assert fast == pure
    from test_digest import DIGESTS

    for name, (_, expected) in DIGESTS.items():
        assert fast[name] == expected

    # the core's, the framework's, the plugins' and the simulator's own tests against the
    # compiled modules (the whole suite passes too; these are the ones that found mypyc's
    # differences: a raise's `from`, a conditional function, a class that cannot be patched,
    # a duration checked against its annotation)
    (tmp_path / "tests").symlink_to(TESTS, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(site)}
    args = ["-q", "-x", "-p", "no:cacheprovider", "-o", "pythonpath=tests", "-m", "not slow", "tests/core",
            "tests/framework", "tests/plugins", "tests/sim/test_simulator.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stdout[-4000:]


def test_setup_py_compiles_the_modules_of_compiled_py() -> None:
    """setup.py hands mypyc the files of ``compiled.MODULES`` (read from its source, the one list:
    no second one in setup.py), each an existing module; a fake ``mypyc.build`` records them."""
    code = (
        "import sys, types, setuptools\n"
        "build = types.ModuleType('mypyc.build')\n"
        "build.mypycify = lambda paths, **kw: print('PATHS', [p for p in paths if not p.startswith('--')]) or []\n"
        "sys.modules['mypyc'] = types.ModuleType('mypyc')\n"
        "sys.modules['mypyc.build'] = build\n"
        "sys.argv = ['setup.py', 'bdist_wheel']\n"
        "setuptools.setup = lambda **kw: print('SETUP', sorted(kw))\n"
        "exec(compile(open('setup.py').read(), 'setup.py', 'exec'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CORESCHEDULER_MYPYC"} | {"CORESCHEDULER_MYPYC": "1"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    paths = ast.literal_eval(lines["PATHS"])
    assert [p.removesuffix(".py").replace("/", ".") for p in paths] == list(compiled.MODULES)
    assert all((ROOT / p).is_file() for p in paths)
    assert lines["SETUP"] == "['ext_modules']"
    setup_py = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert not [p for p in paths if p in setup_py or p.removesuffix(".py").replace("/", ".") in setup_py]


def test_a_stale_compiled_module_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "corescheduler"
    (root / "core").mkdir(parents=True)
    ext = compiled._EXTENSIONS[0]
    (root / "core" / f"order{ext}").write_bytes(b"")
    (root / "core" / "order.py").write_text("")
    (root / "core" / f"shuffle{ext}").write_bytes(b"")
    (root / "core" / "shuffle.py").write_text("")
    os.utime(root / "core" / "order.py", (1, 1))  # older than its extension: in force
    os.utime(root / "core" / f"shuffle{ext}", (1, 1))  # older than its .py: stale
    monkeypatch.setattr(compiled, "_ROOT", str(root))
    assert compiled.stale_modules() == []  # no pyproject.toml above it: an installed wheel, never stale
    (tmp_path / "pyproject.toml").write_text("")  # a source checkout
    assert compiled.compiled_modules() == {
        "corescheduler.core.blame": False,
        "corescheduler.core.model": False,
        "corescheduler.core.order": True,
        "corescheduler.core.schedulable": False,
        "corescheduler.core.scheduler": False,
        "corescheduler.core.shuffle": True,
        "corescheduler.core.slot_engine": False,
        "corescheduler.core.slot_pools": False,
        "corescheduler.core.slot_walk": False,
        "corescheduler.core.task_ledger": False,
        "corescheduler.sim.heartbeats": False,
        "corescheduler.sim.simulator": False,
        "corescheduler.sim.updates": False,
    }
    assert compiled.stale_modules() == ["corescheduler.core.shuffle"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled.warn_if_stale()
    assert len(caught) == 1 and "corescheduler.core.shuffle" in str(caught[0].message)


@pytest.mark.parametrize(
    ("env", "command", "expected"),
    [
        ("", "bdist_wheel", "{}"),  # a plain build: pure Python
        ("1", "egg_info", "setup_requires"),  # the PEP 517 requirements pass: mypy is asked for
        ("1", "bdist_wheel", "needs mypy"),  # building without mypy: an error, never a silent pure wheel
    ],
)
def test_setup_py_without_mypy(env: str, command: str, expected: str) -> None:
    """setup.py's two passes, with mypyc hidden (``sys.modules[...] = None`` makes its import fail)."""
    code = (
        "import sys, setuptools\n"
        "sys.modules['mypyc'] = sys.modules['mypyc.build'] = None\n"
        f"sys.argv = ['setup.py', {command!r}]\n"
        "setuptools.setup = lambda **kw: print(sorted(kw) or '{}')\n"
        "exec(compile(open('setup.py').read(), 'setup.py', 'exec'))\n"
    )
    env_vars = {k: v for k, v in os.environ.items() if k != "CORESCHEDULER_MYPYC"} | {"CORESCHEDULER_MYPYC": env}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env_vars, capture_output=True, text=True,
                          timeout=60, check=False)
    assert expected in proc.stdout + proc.stderr
    assert (proc.returncode != 0) == (expected == "needs mypy")
