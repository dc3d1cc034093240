"""metrics.json from events: the definitions in corescheduler.sim.metrics."""

from __future__ import annotations

import pytest

from corescheduler.sim.metrics import MetricsCollector, metrics_from_events, percentile


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [([], 95, None), ([5.0], 95, 5.0), ([1, 2, 3, 4], 50, 2.5), (list(range(1, 101)), 95, 95.05), ([3, 1, 2], 100, 3)],
)
def test_percentile_is_numpy_linear(values, q, expected) -> None:
    assert percentile(values, q) == (None if expected is None else pytest.approx(expected))


def ev(time, type_, job, **kw):
    return {"time": time, "type": type_, "job": job, **kw}


EVENTS = [
    ev(0.0, "job_submit", "a", pool="p", user="u"),
    ev(0.0, "job_start", "a", pool="p"),
    ev(1.0, "task_start", "a", task="a_m_0", kind="map", node="n0", locality="node"),
    ev(1.0, "task_start", "a", task="a_m_1", kind="map", node="n1", locality="rack"),
    ev(2.0, "job_submit", "b", pool="q", user="v"),
    ev(2.0, "job_start", "b", pool="q"),
    ev(3.0, "task_start", "b", task="b_m_0", kind="map", node="n2", locality="off"),
    ev(5.0, "task_preempt", "a", task="a_m_1", kind="map", node="n1", reason="preempted"),
    ev(6.0, "task_start", "a", task="a_m_1", kind="map", node="n1", locality="node"),
    ev(11.0, "task_finish", "a", task="a_m_0", kind="map", node="n0"),
    ev(13.0, "task_finish", "b", task="b_m_0", kind="map", node="n2"),
    ev(13.0, "job_finish", "b", pool="q"),
    ev(16.0, "task_finish", "a", task="a_m_1", kind="map", node="n1"),
    ev(16.0, "task_start", "a", task="a_r_0", kind="reduce", node="n0"),
    ev(20.0, "task_finish", "a", task="a_r_0", kind="reduce", node="n0"),
    ev(20.0, "job_finish", "a", pool="p"),
]


def test_metrics_from_events() -> None:
    m = metrics_from_events(EVENTS, {"map": 4, "reduce": 2}, {"a": ("2", 2, 1), "b": ("1", 1, 0)})
    s = m["summary"]
    assert s["makespan"] == 20.0
    assert s["mean_response_time"] == pytest.approx((20.0 + 11.0) / 2)
    assert s["node_locality"] == 0.5  # 2 of 4 map launches
    assert s["rack_locality"] == 0.75
    assert s["preempted_tasks"] == 1 and s["wasted_seconds"] == 4.0
    assert s["tasks"] == 4 and s["jobs"] == 2 and s["finished_jobs"] == 2
    assert s["slot_seconds_map"] == 10 + 4 + 10 + 10 and s["slot_seconds_reduce"] == 4
    assert s["utilization"] == pytest.approx((34 + 4) / (6 * 20), abs=1e-4)
    jobs = {j["id"]: j for j in m["jobs"]}
    assert jobs["a"]["locality"] == {"node": 2, "rack": 1, "off": 0}
    assert jobs["a"]["size_bin"] == "2" and jobs["a"]["maps"] == 2 and jobs["a"]["reduces"] == 1
    assert jobs["b"]["response_time"] == 11.0
    assert m["pools"]["p"] == {
        "jobs": 1, "mean_response_time": 20.0, "p95_response_time": 20.0,
        "slot_seconds_map": 24.0, "slot_seconds_reduce": 4.0, "max_concurrent_jobs": 1,
    }
    assert list(m["bins"]) == ["1", "2"]  # smallest jobs first
    assert m["bins"]["1"]["node_locality"] == 0.0


def test_timeline_samples_and_halves() -> None:
    c = MetricsCollector({"map": 10, "reduce": 5}, sample_interval=1.0, max_samples=8)
    nxt = c.sample(0.0, {"p": (2, 1, 5.0, 2.5)})
    assert nxt == 1.0
    c.sample(20.0, {"p": (4, 0, 5.0, 2.5), "q": (6, 0, 5.0, 2.5)})
    r = c.result()["timeline"]
    assert len(r["time"]) <= 8
    assert r["interval"] > 1.0
    assert r["time"] == [i * r["interval"] for i in range(len(r["time"]))]
    assert r["pools"]["q"]["running_map"][0] == 0.0  # a pool seen later is zero before
    assert r["utilization"]["map"][0] == 0.2 and r["utilization"]["map"][-1] == 1.0
    assert len(r["pools"]["p"]["fair_share_map"]) == len(r["time"])


def test_metrics_from_events_reproduce_a_copy_compute_split_run() -> None:
    from corescheduler.config import Config
    from corescheduler.core.model import JobSpec, TaskSpec
    from corescheduler.formats.workloads import Workload
    from corescheduler.sim.simulator import Simulation

    job = JobSpec(maps=[TaskSpec(50.0)], reduces=[TaskSpec(11.0, copy_duration=1.0)] * 4, id="j", submit=0.0)
    config = Config.from_dict(
        {
            "scheduler": {"load_manager": "copy_compute_split", "reduce_slowstart": 0.0},
            "cluster": {"racks": 1, "nodes_per_rack": 1, "map_slots": 1, "reduce_slots": 2},
            "simulation": {"phase_events": True},
        }
    )
    result = Simulation(config, Workload(jobs=(job,), source="<t>", name="t"), 0).run()
    again = metrics_from_events(result.event_list, {"map": 1, "reduce": 2}, copy_holds_slot=False)
    for key in ("slot_seconds_reduce", "reduce_utilization", "reduce_copy_seconds", "utilization"):
        assert again["summary"][key] == result.metrics["summary"][key], key


def test_a_long_quiet_span_gives_the_timeline_that_sampling_step_by_step_gives() -> None:
    """The collector halves its timeline before recording a span of more than twice its
    sample budget: the same samples as recording them one by one."""
    def collector() -> MetricsCollector:
        c = MetricsCollector({"map": 4, "reduce": 2}, sample_interval=0.7)
        for t in range(0, 50):
            c.sample(float(t), {"p": (t % 3, 1, 2.0, 1.0)})
        return c

    jumped, stepped = collector(), collector()
    end = 3.3e6 + 0.25
    jumped.sample(end, {"p": (1, 0, 2.0, 1.0)})
    t = 50.0
    while t < end:
        t = min(end, t + 500.0)
        stepped.sample(t, {"p": (1, 0, 2.0, 1.0)})
    assert jumped.interval == stepped.interval
    assert jumped.times == stepped.times
    assert jumped.util == stepped.util and jumped.series == stepped.series
