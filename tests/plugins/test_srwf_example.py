"""The contract's proof (issue 27 item 6): ``examples/srwf.py``, a share policy of 34 lines
written against :class:`corescheduler.SharePolicy`, runs unchanged in slot mode and in
resource mode, through the harness and through the simulator (docs/plugin-authors.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corescheduler_examples.srwf import ShortestRemainingWorkFirst

from corescheduler.config import Config
from corescheduler.core.model import MAP, JobSpec, TaskSpec
from corescheduler.formats.workloads import Workload
from corescheduler.sim.simulator import Simulation
from corescheduler.testing import ClusterHarness

PLUGINS = {"srwf": ShortestRemainingWorkFirst}
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "srwf.py"


def test_the_example_is_small_and_names_no_mode() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 60
    for word in ("RESOURCES", "resources", "Resources", "mode ==", "kind ==", "isinstance"):
        assert word not in text.split('"""')[-1], word  # the code, past the docstring


def _slot_harness(policy: str) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, map_slots=1, reduce_slots=0,
                          config={"scheduler": {"share_policy": policy}}, plugins=PLUGINS)


@pytest.mark.parametrize(("policy", "first"), [("srwf", "job_0002"), ("fair", "job_0001")])
def test_slot_mode_serves_the_job_with_the_least_work_left_first(policy: str, first: str) -> None:
    h = _slot_harness(policy)
    h.submit(maps=10, pool="p")
    h.advance(1)
    h.submit(maps=2, pool="p")
    (a,) = h.heartbeat("n0000")
    assert a.job == first  # fair: the older job (both run nothing); srwf: the smaller one


def test_slot_mode_orders_pools_by_their_remaining_work_and_keeps_fair_shares() -> None:
    h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=0,
                       config={"scheduler": {"share_policy": "srwf"}}, plugins=PLUGINS)
    big = h.submit(maps=8, pool="big")
    h.advance(1)
    small = h.submit(maps=3, pool="small")
    (a,) = h.heartbeat("n0000")
    assert a.job == small.id
    shares = {name: p.sched[MAP].fair_share for name, p in h.scheduler.pools.items() if p.jobs}
    assert shares == {"big": 2.0, "small": 2.0}  # fair shares of 4 slots: the calculator's search
    assert big.sched[MAP].fair_share == 2.0


def _resource_harness(policy: str) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1,
                          config={"scheduler": {"mode": "resources", "share_policy": policy},
                                  "cluster": {"node_resources": "4096 mb, 4 vcores"}}, plugins=PLUGINS)


@pytest.mark.parametrize(("policy", "first"), [("srwf", 1), ("fair", 0)])
def test_resource_mode_serves_the_app_with_the_least_memory_left_first(policy: str, first: int) -> None:
    h = _resource_harness(policy)
    apps = [h.submit_app(queue="q", tasks=6, resources="1024 mb, 1 vcores")]
    h.advance(1)
    apps.append(h.submit_app(queue="q", tasks=1, resources="1024 mb, 1 vcores"))
    h.update()
    (a,) = h.heartbeat("n0000")[:1]
    assert a.job == apps[first].id
    share = apps[1].sched["resources"].fair_share
    assert share is not None and share.memory > 0  # fair shares of memory (YARN ComputeFairShares)


def _finishes(config: dict[str, Any], jobs: list[JobSpec], policy: str) -> dict[str, float]:
    data = {**config, "scheduler": {**config.get("scheduler", {}), "share_policy": policy}}
    sim = Simulation(Config.from_dict(data), Workload(jobs=tuple(jobs), source="<t>", name="t"), 0,
                     extra_plugins=PLUGINS)
    events = sim.run().event_list or []
    return {e["job"]: e["time"] for e in events if e["type"] == "job_finish"}


def _workload(make: Any) -> list[JobSpec]:
    """One big job, then three small ones a second later, all in one pool."""
    return [JobSpec(id="big", submit=0.0, pool="p", **make(12)),
            *(JobSpec(id=f"small{i}", submit=1.0 + i * 0.1, pool="p", **make(2)) for i in range(3))]


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_the_simulator_runs_it_in_both_modes_and_small_jobs_finish_sooner(mode: str) -> None:
    if mode == "slots":
        config: dict[str, Any] = {"cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 2, "reduce_slots": 1},
                                  "scheduler": {"task_selector": "locality"}}
        jobs = _workload(lambda n: {"maps": [TaskSpec(10.0)] * n})
    else:
        config = {"scheduler": {"mode": "resources"},
                  "cluster": {"racks": 1, "nodes_per_rack": 1, "node_resources": "2048 mb, 2 vcores"}}
        jobs = _workload(lambda n: {"tasks": [TaskSpec(10.0, resources=_mb(1024))] * n})
    srwf = _finishes(config, jobs, "srwf")
    fair = _finishes(config, jobs, "fair")
    assert set(srwf) == set(fair) == {"big", "small0", "small1", "small2"}  # every job ran to the end
    smalls = [f"small{i}" for i in range(3)]
    assert max(srwf[s] for s in smalls) < srwf["big"]
    assert sum(srwf[s] for s in smalls) < sum(fair[s] for s in smalls)


def _mb(memory: int) -> Any:
    from corescheduler.resources import Resources

    return Resources(memory=memory, vcores=1)


def test_docs_show_the_example_as_it_is() -> None:
    """docs/plugin-authors.md "A share policy" shows the class exactly as examples/srwf.py has it."""
    docs = (EXAMPLE.parents[1] / "docs" / "plugin-authors.md").read_text(encoding="utf-8")
    code = EXAMPLE.read_text(encoding="utf-8")
    shown = docs.split("## A share policy", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert shown.startswith("class ShortestRemainingWorkFirst(SharePolicy):") and shown in code
