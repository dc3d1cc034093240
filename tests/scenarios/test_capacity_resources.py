"""Capacity queues in resource mode (issue 12 item 9): the ``capacity`` plugin divides
memory as YARN's CapacityScheduler leaf queues do (../shared/scenarios/capacity.md C1, C3
with memory in place of map slots)."""

from __future__ import annotations

from corescheduler.testing import ClusterHarness


def _harness(queues: dict[str, dict], nodes: int, node: str = "10240 mb, 10 vcores") -> ClusterHarness:
    plugins = {"capacity": {"queues": queues}}
    config = {"scheduler": {"mode": "resources", "share_policy": "capacity", "pool_resolver": "capacity"},
              "plugins": plugins}
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=config)


def _fill(h: ClusterHarness, rounds: int = 20) -> None:
    for _ in range(rounds):
        for n in list(h.scheduler.cluster.nodes):
            h.heartbeat(n)


def test_c1_excess_memory_is_lent_in_the_ratio_of_guarantees() -> None:
    """HADOOP-3445: q1 50 %, q2 30 %, q3 20 % (idle) of 100 GB: q1 gets 50 + 20 × 50/80 = 62.5 %,
    q2 37.5 %, q3 0; once the cluster fills, q1 runs 62–63 GB and q2 37–38 GB."""
    h = _harness({"q1": {"capacity": 50}, "q2": {"capacity": 30}, "q3": {"capacity": 20}}, nodes=10)
    q1 = h.submit(queue="q1", tasks=200, resources="1024 mb, 1 vcores")
    q2 = h.submit(queue="q2", tasks=200, resources="1024 mb, 1 vcores")
    h.update()
    shares = h.shares()["queues"]
    assert shares["root.q1"]["fair"]["memory"] == 64000 and shares["root.q2"]["fair"]["memory"] == 38400
    assert shares["root.q3"]["fair"]["memory"] == 0
    _fill(h)
    assert 62 <= h.running(q1) <= 63 and 37 <= h.running(q2) <= 38


def test_c3_user_limits_inside_a_queue() -> None:
    """One queue of 100 %, ``minimum_user_limit_percent = 25``, room for 10 containers: u1
    takes all 10; with u2 in the queue each may use 50 %, so freed containers go to u2 until
    it runs 5; no container is killed for a user limit."""
    h = _harness({"default": {"capacity": 100, "minimum_user_limit_percent": 25}}, nodes=1)
    u1 = h.submit(queue="default", user="u1", tasks=20, resources="1024 mb, 1 vcores")
    _fill(h, 12)
    assert h.running(u1) == 10
    u2 = h.submit(queue="default", user="u2", tasks=10, resources="1024 mb, 1 vcores")
    assert h.running(u1) == 10  # nothing killed
    for _ in range(5):
        task = next(t for t in h.scheduler._running_tasks.values() if t.job is u1)
        h.finish(task)
        h.update()
        assert [a.job for a in h.heartbeat("n0000")] == [u2.id]
    assert h.running(u1) == 5 and h.running(u2) == 5


def test_a_moved_app_takes_its_memory_and_count_to_its_new_queue() -> None:
    """A move in resource mode (``cs_job_moved``): the plugin's per-queue memory and per-user
    counts follow the app and its running containers (YARN's ``detachContainer`` /
    ``attachContainer``); its containers' end gives back to the new queue."""
    h = _harness({"q1": {"capacity": 50}, "q2": {"capacity": 50}}, nodes=1)
    app = h.submit(queue="q1", user="u", tasks=4, resources="1024 mb, 1 vcores")
    _fill(h, rounds=4)
    plugin = h.scheduler.plugins.instances["capacity"]
    used = plugin._queue_mem["q1"]
    assert used > 0 and plugin._mem_by_user["q1"]["u"] == used
    h.move(app, "q2")
    assert h.queue_of(app) == "root.q2"
    assert (plugin._queue_mem["q1"], plugin._queue_mem["q2"]) == (0, used)
    assert (plugin._mem_by_user["q1"]["u"], plugin._mem_by_user["q2"]["u"]) == (0, used)
    assert "u" not in plugin._jobs_by_user.get("q1", {}) and plugin._jobs_by_user["q2"]["u"] == 1
    for task in h.scheduler.ledger.running_of(app):
        h.finish(task)
    assert plugin._queue_mem["q2"] == 0 and plugin._mem_by_user["q2"]["u"] == 0
