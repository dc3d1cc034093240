"""Application priorities under ``yarn_capacity`` as Hadoop 3.3 bounds them.

``yarn.cluster.max-application-priority`` (default 0) caps every app's priority
(``CapacityScheduler.checkAndGetApplicationPriority`` / ``getMaxClusterLevelAppPriority``), at
submission and on a change, silently; a leaf's ``default-application-priority`` is the
priority of an app that asks none (``NORMAL`` here); ``acl_application_max_priority``
(``AppPriorityACLsManager.checkAccess``) refuses a user a priority above its group's
``max_priority`` (``ClientRMService.updateApplicationPriority``'s AccessControlException).
Ports of ``TestApplicationPriority`` (``testMaxPriorityValidation``,
``testUpdatePriorityAtRuntime``, ``testApplicationPriorityAllocation``'s order) and
``TestApplicationPriorityACLs`` (``testApplicationACLs``) on the MR1 names' scale
(``VERY_LOW`` −2 … ``VERY_HIGH`` 2, ``NORMAL`` none asked).
"""

from __future__ import annotations

import pytest
from corescheduler_plugins._yarn_capacity_preemption import PREFIX

from corescheduler.core.scheduler import AccessDeniedError
from corescheduler.errors import AllocationError
from corescheduler.testing import ClusterHarness

GB = 1024
C = "yarn.scheduler.capacity."
MAX = "yarn.cluster.max-application-priority"


def _prop(name: str, value: str) -> str:
    return f"<property><name>{name}</name><value>{value}</value></property>"


def _xml(*extra: tuple[str, str]) -> str:
    return ("<configuration>" + _prop(C + "root.queues", "a") + _prop(C + "root.a.capacity", "100")
            + "".join(_prop(k if k.startswith("yarn.") else C + k, v)
                      for k, v in extra) + "</configuration>")


def _harness(*extra: tuple[str, str], nodes: int = 1, preemption: bool = False) -> ClusterHarness:
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": preemption,
                            "preemption_interval": 0.0}}
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources="10240 mb, 20 vcores", config=config,
                          allocations=_xml(*extra))


def prio(h: ClusterHarness, job: object) -> int:
    return int(h.shares()["jobs"][h.job(job).id]["application_priority"])  # type: ignore[arg-type]


def test_max_priority_validation() -> None:
    """``testMaxPriorityValidation``: cluster maximum 10, an app asking 15 is accepted at 10 —
    here maximum 1, an app asking VERY_HIGH (2) runs at 1; and at Hadoop's default maximum of
    0 every priority above 0 is 0."""
    h = _harness((MAX, "1"))
    app = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
    assert prio(h, app) == 1
    h = _harness()
    apps = [h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority=p)
            for p in ("VERY_HIGH", "HIGH", "NORMAL", "LOW", "VERY_LOW")]
    assert [prio(h, a) for a in apps] == [0, 0, 0, -1, -2]


def test_update_priority_at_runtime_is_capped() -> None:
    """``testUpdatePriorityAtRuntime``: maximum 10, app at 5 updated to 8 runs at 8 — here
    maximum 2, LOW updated to HIGH runs at 1; and an update above the maximum (maximum 1,
    VERY_HIGH) is capped at it, as ``updateApplicationPriority`` → ``checkAndGetApplicationPriority``."""
    h = _harness((MAX, "2"))
    app = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority="LOW")
    assert prio(h, app) == -1
    h.set_priority(app, "HIGH")
    assert prio(h, app) == 1
    h.set_allocations(_xml((MAX, "1")))
    h.set_priority(app, "VERY_HIGH")
    assert prio(h, app) == 1 and h.job(app).priority == "VERY_HIGH"  # asked, and effective


def test_fifo_order_follows_the_capped_priority() -> None:
    """``testApplicationPriorityAllocation``'s order: a later app of a higher priority is
    served first (``FifoComparator`` after ``PriorityComparator``) — only as far as the cluster's
    maximum lets the priorities differ: at the default 0 a later VERY_HIGH app waits its turn."""
    for cap, first in (("0", "early"), ("2", "late")):
        h = _harness((MAX, cap))
        early = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
        late = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
        assert len(h.heartbeat("n0000")) >= 1
        served = early if h.running(early) else late
        assert {"early": early, "late": late}[first] is served, cap


def test_default_application_priority_for_an_app_asking_none() -> None:
    """``LeafQueue.getDefaultApplicationPriority``: an app asking none (NORMAL) takes the
    leaf's default, at most the cluster's maximum (``LeafQueue.setupQueueConfigs``); an app
    asking one keeps its own."""
    h = _harness((MAX, "5"), ("root.a.default-application-priority", "3"))
    none = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    asked = h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority="LOW")
    assert (prio(h, none), prio(h, asked)) == (3, -1)
    h = _harness((MAX, "1"), ("root.a.default-application-priority", "3"))
    assert prio(h, h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")) == 1


ACL = ("root.a.acl_application_max_priority",
       "[user=alice max_priority=1 default_priority=1] [user=bob group=admins max_priority=2]")


def test_priority_acls_refuse_what_a_user_may_not_set() -> None:
    """``TestApplicationPriorityACLs.testApplicationACLs``: a user may submit and update up to
    its group's ``max_priority``; above it the submission and the update are refused
    (AccessControlException "does not have permission to submit/update"); an app asking none
    takes the user's ``default_priority``; a user in no group may not use the queue's
    priorities at all — an app asking none at the leaf's default 0 included."""
    h = _harness((MAX, "2"), ACL)
    mine = h.submit(queue="a", user="alice", tasks=1, resources="1024 mb, 1 vcores")
    assert prio(h, mine) == 1  # her default_priority
    with pytest.raises(AccessDeniedError, match=r"does not have permission to submit/update .* priority 2"):
        h.submit(queue="a", user="alice", tasks=1, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
    with pytest.raises(AccessDeniedError, match=r"alice does not have permission .* priority 2"):
        h.set_priority(mine, "VERY_HIGH", user="alice")
    assert prio(h, mine) == 1 and h.job(mine).priority == "NORMAL"  # nothing changed
    h.set_priority(mine, "LOW", user="alice")
    assert prio(h, mine) == -1
    # bob's group allows 2, and so does a member of admins
    his = h.submit(queue="a", user="bob", tasks=1, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
    assert prio(h, his) == 2
    h.set_priority(mine, "VERY_HIGH", user="carol", groups=["admins"])
    assert prio(h, mine) == 2
    with pytest.raises(AccessDeniedError, match="carol does not have permission"):
        h.submit(queue="a", user="carol", tasks=1, resources="1024 mb, 1 vcores")
    # the system (no caller: an undo, an admin of serve) is not checked; the cap still holds
    h.set_priority(his, "VERY_HIGH")
    assert prio(h, his) == 2


def test_an_acl_max_priority_above_the_cluster_maximum_is_lowered() -> None:
    """``AppPriorityACLConfigurationParser.getPriorityAcl``: max_priority above the cluster's
    is reset to it; a negative default_priority is 0."""
    h = _harness((MAX, "1"), ("root.a.acl_application_max_priority",
                              "[user=alice max_priority=2 default_priority=-1]"))
    acl = h.scheduler.allocations.policy_config.priorities.acls["root.a"]
    assert [(g.max_priority, g.default_priority) for g in acl] == [(1, 0)]


@pytest.mark.parametrize("value, expected", [
    ("[user=alice default_priority=1]", "max_priority="),
    ("[user=alice max_priority=high]", "a whole number for max_priority"),
    ("[users=alice max_priority=1]", "only user, group, max_priority and default_priority"),
])
def test_bad_priority_acls_refuse_the_file(value: str, expected: str) -> None:
    with pytest.raises(AllocationError, match=expected):
        _harness(("root.a.acl_application_max_priority", value))


def test_bad_cluster_maximum_refuses_the_file() -> None:
    with pytest.raises(AllocationError, match=r"yarn\.cluster\.max-application-priority: expected a whole number"):
        _harness((MAX, "ten"))


def _intra(*extra: tuple[str, str]) -> ClusterHarness:
    return _harness((PREFIX + "intra-queue-preemption.enabled", "true"),
                    (PREFIX + "intra-queue-preemption.max-allowable-limit", "1.0"),
                    (PREFIX + "intra-queue-preemption.preemption-order-policy", "priority_first"),
                    (PREFIX + "total_preemption_per_round", "1.0"), *extra, preemption=True)


@pytest.mark.parametrize("cap, marked", [(None, 0), ("2", 8)])
def test_a_raised_priority_preempts_another_users_containers_only_under_the_cap(cap: str | None,
                                                                                marked: int) -> None:
    """Intra-queue priority preemption (``priority_first``) in one shared queue: alice's app
    holds the whole 10 GB, bob's asks for 8 × 1 GB and is raised to VERY_HIGH.  At the
    cluster's default maximum 0 both run at 0: same priority, both users within their limits
    (minimum-user-limit-percent 100) — nothing of alice's is marked.  With the maximum at 2
    (as Hadoop's intra-queue priority tests set it) bob's app outranks hers and 8 GB are marked."""
    extra = [(MAX, cap)] if cap is not None else []
    h = _intra(*extra)
    alice = h.submit(queue="a", user="alice", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(10):
        h.heartbeat("n0000")
    assert h.running(alice) == 10
    bob = h.submit(queue="a", user="bob", tasks=8, resources="1024 mb, 1 vcores")
    h.preempt()
    assert h.shares()["preemption"]["marked"] == []
    h.set_priority(bob, "VERY_HIGH", user="bob")
    h.preempt()
    chosen = h.shares()["preemption"]["marked"]
    assert len(chosen) == marked
    assert {h.task(t).job.id for t in chosen} <= {alice.id}


def test_a_submission_refused_by_the_priority_acl_names_no_none_application() -> None:
    """The refusal at submission names the application only once it has an id (it said
    "submit/update None")."""
    h = _harness((MAX, "2"), ("root.a.acl_application_max_priority", "[user=u max_priority=0]"))
    with pytest.raises(AccessDeniedError) as err:
        h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores", priority="VERY_HIGH")
    assert "None" not in str(err.value) and "does not have permission" in str(err.value)


def test_a_priority_raised_after_the_app_was_ordered_moves_it_ahead() -> None:
    """``CapacityScheduler.updateApplicationPriority`` re-sorts the leaf's apps
    (``LeafQueue.updateApplicationPriority``): a later app raised to HIGH after both were
    offered containers is served before the earlier one from the next heartbeat on — the
    order key the policy kept for it goes with its old priority."""
    h = _harness((MAX, "2"), nodes=2)
    early = h.submit(queue="a", user="u", tasks=20, resources="1024 mb, 1 vcores")
    late = h.submit(queue="a", user="u", tasks=20, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.running(early) and not h.running(late)  # FIFO: the earlier app first
    h.set_priority(late, "HIGH")
    before = h.running(early)
    h.heartbeat("n0001")
    assert h.running(late) and h.running(early) == before


def test_a_reload_to_fair_ordering_drops_the_fifo_keys() -> None:
    """``ordering-policy`` changed from fifo to fair by ``refreshQueues``: the leaf's apps are
    ordered by ``FairOrderingPolicy`` (the less used first) from then on, not by the FIFO keys
    kept before the reload."""
    h = _harness(nodes=2)
    early = h.submit(queue="a", user="u", tasks=20, resources="1024 mb, 1 vcores")
    late = h.submit(queue="a", user="v", tasks=20, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.running(early) and not h.running(late)
    h.set_allocations(_xml(("root.a.ordering-policy", "fair")))
    h.heartbeat("n0001")
    assert h.running(late)  # the less used app first


def test_an_app_moved_to_a_fair_ordered_leaf_is_ordered_by_its_use_there() -> None:
    """``CapacityScheduler.moveApplication`` into a leaf whose ``ordering-policy`` is fair: the
    app is sorted by ``FairOrderingPolicy`` there (the less used first), not by the FIFO key it
    had in its old leaf."""
    body = "".join(_prop(C + k, v) for k, v in (
        ("root.queues", "a,b"), ("root.a.capacity", "50"), ("root.b.capacity", "50"),
        ("root.a.user-limit-factor", "2"), ("root.b.user-limit-factor", "2"),
        ("root.b.ordering-policy", "fair")))
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}
    h = ClusterHarness(racks=1, nodes_per_rack=4, node_resources="10240 mb, 20 vcores", config=config,
                       allocations="<configuration>" + body + "</configuration>")
    moved = h.submit(queue="a", user="u", tasks=20, resources="1024 mb, 1 vcores")
    for _ in range(3):
        h.heartbeat("n0000")
    resident = h.submit(queue="b", user="v", tasks=20, resources="1024 mb, 1 vcores")
    h.heartbeat("n0001")
    assert (h.running(moved), h.running(resident)) == (3, 1)
    h.move(moved, "root.b")
    h.heartbeat("n0002")
    assert (h.running(moved), h.running(resident)) == (3, 2)  # the less used app of b first
