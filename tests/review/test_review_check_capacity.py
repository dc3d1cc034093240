"""Review (session 15): ``corescheduler check`` said ok to a config whose capacity file the
run then refused — a bad preemption value (read only by ``yarn_capacity`` as it takes the
file) and a Fair Scheduler file under ``share_policy = "yarn_capacity"``.  ``check`` now hands
the file to the config's share policies as a run's start does."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

CAPACITY = """<configuration>
<property><name>yarn.scheduler.capacity.root.queues</name><value>a,b</value></property>
<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>50</value></property>
<property><name>yarn.scheduler.capacity.root.b.capacity</name><value>50</value></property>
{extra}
</configuration>
"""
FAIR = "<allocations><queue name=\"a\"><weight>1</weight></queue></allocations>\n"
CONFIG = """[scheduler]
mode = "resources"
share_policy = "yarn_capacity"
pool_resolver = "yarn_capacity"
preemption = true
allocation_file = "{name}"

[cluster]
racks = 1
nodes_per_rack = 2
node_resources = "8192 mb, 8 vcores"
"""
BAD = ("<property><name>yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor</name>"
       "<value>abc</value></property>")


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("cs.xml", CAPACITY.format(extra=BAD),
     # the property's line (newuser session: it named the file only, "(named by c.toml:6 …)")
     "cs.xml:5: yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor: expected a number "
     "(a Java double), got 'abc'"),
    ("fs.xml", FAIR, "fs.xml: [scheduler] share_policy \"yarn_capacity\" needs a YARN capacity-scheduler.xml"),
])
def test_check_refuses_what_the_run_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str,
                                            expected: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    (tmp_path / "c.toml").write_text(CONFIG.format(name=name))
    result = run("check", "c.toml")
    assert result.exit_code == 1, result.output
    assert expected in result.output
    assert "c.toml: ok" not in result.output and "Traceback" not in result.output
    sim = run("simulate", "--config", "c.toml", "--workload", str(Path(__file__).parents[2] / "examples" /
                                                                 "yarn-workload.json"), "--out", "out")
    assert sim.exit_code == 1 and "Traceback" not in sim.output


def test_check_passes_a_good_capacity_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cs.xml").write_text(CAPACITY.format(extra=BAD.replace("abc", "0.2")))
    (tmp_path / "c.toml").write_text(CONFIG.format(name="cs.xml"))
    result = run("check", "c.toml")
    assert result.exit_code == 0, result.output
    assert "c.toml: ok" in result.output


def test_a_fair_queue_naming_yarn_capacity_is_blamed_by_its_line(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser (session 17): a fair-scheduler file whose one queue says
    ``<schedulingPolicy>yarn_capacity</schedulingPolicy>`` was refused blaming
    ``[scheduler] share_policy``, which the config does not set; the error now names the queue
    and its line."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fs.xml").write_text('<allocations>\n<queue name="a"><weight>1</weight></queue>\n'
                                     '<queue name="b"><schedulingPolicy>yarn_capacity</schedulingPolicy></queue>\n'
                                     '</allocations>\n')
    (tmp_path / "c.toml").write_text('[scheduler]\nmode = "resources"\nallocation_file = "fs.xml"\n')
    result = run("check", "c.toml")
    assert result.exit_code == 1, result.output
    assert "fs.xml:3: queue 'root.b' schedulingPolicy \"yarn_capacity\"" in result.output, result.output
    assert "share_policy \"yarn_capacity\" needs" not in result.output
