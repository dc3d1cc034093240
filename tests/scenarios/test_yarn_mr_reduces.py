"""Resource mode's model of an MR job's application master (YARN's ``RMContainerAllocator``):
the job's reduces are asked once every map of it is scheduled (``scheduleReduces``:
``scheduledMaps == 0`` → ``scheduleAllReduces``; the ramp-up while maps are pending is not
modelled).  So a map the TaskSelector makes wait (delay scheduling) keeps the job's reduces
back, whatever the selector: the engine's rule, not each selector's.  In slot mode (MR1)
reduces have their own slots and take them while maps wait.

Four nodes on two racks: n0000 and n0001 on r00, n0002 and n0003 on r01."""

from __future__ import annotations

from typing import Any

from corescheduler.core.model import MAP, OFF_RACK, REDUCE, Job, Node, Task
from corescheduler.hookspecs import hookimpl
from corescheduler.testing import ClusterHarness

GB = "1024 mb, 1 vcores"
#: every map's input on n0001 (rack r00)
ON_N0001 = [["n0001"]] * 4


def fair_delay(**scheduler: Any) -> ClusterHarness:
    """Resource mode, the fair policy, delay scheduling (waits of 5 s for a node, 10 s more
    for a rack), reduces schedulable from the start (``reduce_slowstart`` 0)."""
    config = {"mode": "resources", "share_policy": "fair", "task_selector": "delay", "reduce_slowstart": 0.0,
              **scheduler}
    return ClusterHarness(racks=2, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": config,
                                  "plugins": {"delay": {"node_locality_delay": 5.0, "rack_locality_delay": 10.0}}})


def kinds(h: ClusterHarness, node: str) -> list[str]:
    return [a.kind for a in h.heartbeat(node)]


def test_a_map_waiting_for_its_delay_keeps_the_jobs_reduces_back() -> None:
    """Regression: the engine tried the job's maps, then its reduces, so a map the delay
    made wait let a reduce take the container (it then held it until the job's last map
    ended).  Now nothing runs off the maps' node; the maps run node-local, one container a
    heartbeat (YARN's default), and the reduces only once no map is pending."""
    h = fair_delay()
    job = h.submit(maps=4, reduces=2, user="u", map_locations=ON_N0001, resources=GB)
    assert job.reduces_schedulable and job.pending[MAP] == 4
    for node in ("n0002", "n0003", "n0000"):
        assert h.heartbeat(node) == []  # the maps wait; no reduce either
    assert job.running[REDUCE] == 0 and job.usage.memory == 0
    for _ in range(3):
        assert kinds(h, "n0001") == [MAP]
    assert kinds(h, "n0002") == []  # one map still pending: still no reduce
    assert kinds(h, "n0001") == [MAP]  # every map scheduled: the reduces are asked
    assert kinds(h, "n0002") == [REDUCE]
    assert kinds(h, "n0003") == [REDUCE]


def placed(h: ClusterHarness, node: str) -> list[tuple[str, str | None]]:
    return [(a.kind, a.locality) for a in h.heartbeat(node)]


def test_the_delay_credits_its_wait_in_resource_mode_and_the_reduces_follow_the_last_map() -> None:
    """Regression: resource mode told ``cs_heartbeat_end`` no skipped job, so the ``delay``
    selector never credited a wait and a map with input elsewhere waited for its node for
    ever.  Now the jobs whose map the selector declined are the heartbeat's ``skipped``
    (Hadoop's "skipped at last heartbeat"): rack-local after 5 s of skips, off-rack after
    10 s more; the reduce only once no map is pending."""
    h = fair_delay()
    job = h.submit(maps=4, reduces=1, user="u", map_locations=ON_N0001, resources=GB)
    assert placed(h, "n0000") == []  # t=0: skipped, its wait starts
    h.advance(4.0)
    assert placed(h, "n0000") == []  # waited 4 s of 5
    h.advance(1.0)
    assert placed(h, "n0000") == [(MAP, "rack")]  # 5 s: rack-local (its wait starts again)
    h.advance(1.0)
    assert placed(h, "n0002") == []  # t=6: another rack, skipped
    h.advance(9.0)
    assert placed(h, "n0002") == []  # waited 9 s of 10
    h.advance(1.0)
    assert placed(h, "n0002") == [(MAP, "off")]  # 10 s: anywhere
    assert placed(h, "n0003") == [(MAP, "off")]
    assert job.pending[MAP] == 1 and job.running[REDUCE] == 0
    assert placed(h, "n0003") == [(MAP, "off")]  # the last map
    assert placed(h, "n0003") == [(REDUCE, None)]


def test_a_job_that_launches_a_map_is_not_skipped() -> None:
    """``skipped``: the jobs offered a container whose map was declined and that launched no
    map on the heartbeat, each once (a listener sees them as slot mode's)."""
    seen: list[tuple[list[str], list[str]]] = []

    class Recorder:
        @hookimpl
        def cs_heartbeat_end(self, assignments: Any, skipped: Any) -> None:
            seen.append(([a.job for a in assignments], [j.id for j in skipped]))

    h = ClusterHarness(racks=2, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       plugins={"recorder": Recorder},
                       config={"scheduler": {"mode": "resources", "task_selector": "delay", "listeners": ["recorder"],
                                             "assign_multiple": True, "dynamic_max_assign": False},
                               "plugins": {"delay": {"node_locality_delay": 5.0, "rack_locality_delay": 10.0}}})
    far = h.submit(maps=2, user="u", map_locations=[["n0001"]] * 2, resources=GB)
    near = h.submit(maps=1, user="v", map_locations=[["n0002"]], resources=GB)
    h.heartbeat("n0002")
    assert seen[-1] == ([near.id], [far.id])
    h.heartbeat("n0001")
    assert seen[-1] == ([far.id, far.id], [])


def test_with_assign_multiple_the_reduces_come_after_the_last_map_in_one_heartbeat() -> None:
    """``assign_multiple``: n0001 takes the four maps, then the reduces in the same
    heartbeat (the maps all scheduled); n0002 before it took nothing."""
    h = fair_delay(assign_multiple=True, dynamic_max_assign=False)
    h.submit(maps=4, reduces=2, user="u", map_locations=ON_N0001, resources=GB)
    assert h.heartbeat("n0002") == []
    assert kinds(h, "n0001") == [MAP] * 4 + [REDUCE] * 2


def test_reduces_wait_for_the_maps_of_their_own_job_only() -> None:
    """Another job whose maps are all scheduled gets its reduces on the node the first job's
    maps wait on: the rule is per job."""
    h = fair_delay()
    waiting = h.submit(maps=2, reduces=1, user="u", map_locations=[["n0001"]] * 2, resources=GB)
    other = h.submit(maps=1, reduces=1, user="v", map_locations=[["n0002"]], resources=GB)
    assert [(a.job, a.kind) for a in h.heartbeat("n0002")] == [(other.id, MAP)]
    assert [(a.job, a.kind) for a in h.heartbeat("n0002")] == [(other.id, REDUCE)]
    assert h.heartbeat("n0002") == []
    assert waiting.running[REDUCE] == 0


class DeclineMapsOn:
    """A TaskSelector that never gives a map on ``n0002`` and is greedy otherwise."""

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str) -> Task | None:
        if kind == MAP:
            return None if node.name == "n0002" else job.pending_map(node, OFF_RACK)
        return job.pending_task(kind)


def test_any_selector_declining_a_map_keeps_the_reduces_back_but_not_the_jobs_other_containers() -> None:
    """The rule is the engine's: a third-party selector that declines a map gets no reduce
    asked for the job either; the job's plain containers (``tasks``) are still asked."""
    h = ClusterHarness(racks=2, nodes_per_rack=2, node_resources="8192 mb, 8 vcores",
                       plugins={"decline": DeclineMapsOn},
                       config={"scheduler": {"mode": "resources", "task_selector": "decline", "reduce_slowstart": 0.0}})
    job = h.submit(maps=1, reduces=1, tasks=1, user="u", resources=GB)
    assert kinds(h, "n0002") == ["task"]
    assert h.heartbeat("n0002") == []
    assert kinds(h, "n0001") == [MAP]
    assert kinds(h, "n0002") == [REDUCE]
    assert job.pending[MAP] == job.pending[REDUCE] == job.pending["task"] == 0


def test_in_slot_mode_reduce_slots_still_take_reduces_while_maps_wait() -> None:
    """MR1 (slot mode): reduces have their own slots, and the delay selector keeps giving
    them while the maps wait for their locality (the engine's resource-mode rule only)."""
    h = ClusterHarness(racks=2, nodes_per_rack=2,
                       config={"scheduler": {"task_selector": "delay", "reduce_slowstart": 0.0},
                               "plugins": {"delay": {"node_locality_delay": 5.0, "rack_locality_delay": 10.0}}})
    job = h.submit(maps=4, reduces=2, map_locations=ON_N0001)
    assert kinds(h, "n0002") == [REDUCE]
    assert job.pending[MAP] == 4
