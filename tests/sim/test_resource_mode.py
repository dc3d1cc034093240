"""The simulator in resource mode (SPEC §7, issue 12 item 10): nodes with
capacities, tasks with sizes, metrics per resource type and dominant shares in
the report."""

from __future__ import annotations

import json

import pytest

from corescheduler.config import Config
from corescheduler.formats.workloads import load_workload
from corescheduler.sim.report import render_report
from corescheduler.sim.simulator import Simulation

XML = """<allocations><queue name="mem"/><queue name="cpu"/>
<defaultQueueSchedulingPolicy>{policy}</defaultQueueSchedulingPolicy></allocations>"""


def _run(tmp_path, policy: str, seed: int = 1):
    (tmp_path / "a.xml").write_text(XML.format(policy=policy))
    jobs = []
    for i in range(6):
        jobs.append({"id": f"m{i}", "submit": i * 5, "user": "alice", "pool": "mem",
                     "task_resources": "4096 mb, 1 vcores", "task_count": 6, "task_duration": 30})
        jobs.append({"id": f"c{i}", "submit": i * 5, "user": "bob", "pool": "cpu",
                     "task_resources": "512 mb, 4 vcores", "task_count": 6, "task_duration": 30,
                     "am_resources": "512 mb, 1 vcores"})
    (tmp_path / "w.json").write_text(json.dumps({"jobs": jobs}))
    config = Config.from_dict(
        {"scheduler": {"mode": "resources", "allocation_file": str(tmp_path / "a.xml")},
         "cluster": {"racks": 1, "nodes_per_rack": 4, "node_resources": "8192 mb, 8 vcores"}},
        source=str(tmp_path / "c.toml"),
    )
    workload = load_workload(tmp_path / "w.json", config=config, seed=seed)
    return Simulation(config, workload, seed).run()


@pytest.mark.parametrize("policy", ["fair", "drf"])
def test_a_resource_mode_run_finishes_every_job_and_reports_per_resource(tmp_path, policy) -> None:
    result = _run(tmp_path, policy)
    s = result.metrics["summary"]
    assert s["finished_jobs"] == 12 and s["unfinished_jobs"] == 0
    assert s["cluster_resources"] == {"memory": 32768, "vcores": 32}
    assert 0 < s["memory_utilization"] <= 1 and 0 < s["vcores_utilization"] <= 1
    assert s["utilization"] == max(s["memory_utilization"], s["vcores_utilization"])
    assert s["task_launches"] == 72 and s["am_launches"] == 6
    # a resource-mode node has no MR1 slots: no slot counts or per-slot utilisation (they
    # were the [cluster] defaults, giving a map utilisation over 1 on a busy cluster)
    assert [s[k] for k in ("map_utilization", "reduce_utilization", "map_slots", "reduce_slots")] == [None] * 4
    starts = [e for e in result.event_list if e["type"] == "task_start"]
    assert all("resources" in e for e in starts)
    timeline = result.metrics["timeline"]
    assert set(timeline["utilization"]) == {"memory", "vcores"}
    assert set(timeline["pools"]) == {"root.mem", "root.cpu", "root.default"}
    assert {"memory", "vcores", "fair_share_memory", "dominant_share"} <= set(timeline["pools"]["root.mem"])
    html = render_report([(policy, result.metrics)])
    assert 'data-plot="dominant-share"' in html and "vcores in use" in html


def test_no_node_ever_runs_more_than_it_has(tmp_path) -> None:
    result = _run(tmp_path, "drf")
    used: dict[str, list[int]] = {}
    sizes = {}
    for e in result.event_list:
        if e["type"] == "task_start":
            u = used.setdefault(e["node"], [0, 0])
            u[0] += e["resources"]["memory"]
            u[1] += e["resources"]["vcores"]
            sizes[e["task"]] = e["resources"]
            assert u[0] <= 8192 and u[1] <= 8, e
        elif e["type"] in ("task_finish", "task_preempt"):
            u = used[e["node"]]
            u[0] -= sizes[e["task"]]["memory"]
            u[1] -= sizes[e["task"]]["vcores"]


def test_same_seed_same_events(tmp_path) -> None:
    a = _run(tmp_path, "drf", seed=3).event_list
    b = _run(tmp_path, "drf", seed=3).event_list
    assert a == b


def test_an_sls_trace_runs_with_its_container_and_am_sizes(tmp_path) -> None:
    """SLS traces keep their container sizes (``container.memory``, default 1024 MB / 1 vcore)
    and each job runs an AM container (``am.memory`` / ``am.vcores``, same defaults)."""
    from paths import DATA

    config = Config.from_dict({"scheduler": {"mode": "resources"},
                               "cluster": {"racks": 1, "nodes_per_rack": 4, "node_resources": "8192 mb, 8 vcores"}})
    workload = load_workload(DATA / "workloads" / "sls-jobs.json", config=config, seed=0)
    result = Simulation(config, workload, 0).run()
    assert result.metrics["summary"]["finished_jobs"] == 3
    starts = [e for e in result.event_list if e["type"] == "task_start"]
    assert sum(e["kind"] == "am" for e in starts) == 3
    assert {e["resources"]["memory"] for e in starts if e["kind"] == "reduce"} == {2048}


def test_the_bundled_yarn_example_runs() -> None:
    """examples/yarn.toml with examples/fair-scheduler.xml and examples/yarn-workload.json."""
    from paths import REPO

    from corescheduler.sim.simulator import load_allocations

    config = Config.from_file(REPO / "examples" / "yarn.toml")
    workload = load_workload(REPO / "examples" / "yarn-workload.json", config=config, seed=0)
    result = Simulation(config, workload, 0, allocations=load_allocations(config)).run()
    s = result.metrics["summary"]
    assert s["finished_jobs"] == len(workload.jobs) and s["rejected_jobs"] == 0
    assert {j["pool"] for j in result.metrics["jobs"]} == {
        "root.engineering.builds", "root.engineering.tests", "root.analytics.etl", "root.analytics.adhoc"}


def test_a_swim_trace_runs_in_resource_mode_with_mapreduce_default_sizes() -> None:
    """Tasks without sizes run in ``[scheduler] task_resources`` (1024 MB / 1 vcore); the
    nodes rest while no app has a request, with the same events as beating every tick."""
    from paths import DATA

    config = Config.from_dict({"scheduler": {"mode": "resources"},
                               "cluster": {"racks": 2, "nodes_per_rack": 5, "node_resources": "4096 mb, 4 vcores"}})
    workload = load_workload(DATA / "workloads" / "swim-small.tsv", config=config, seed=0)
    result = Simulation(config, workload, 0).run()
    s = result.metrics["summary"]
    assert s["finished_jobs"] == len(workload.jobs) and s["rejected_jobs"] == 0
    starts = [e for e in result.event_list if e["type"] == "task_start"]
    assert starts and all(e["resources"] == {"memory": 1024, "vcores": 1} for e in starts)
