"""Hadoop 3.3's ``TestProportionalCapacityPreemptionPolicyIntraQueue`` and
``…IntraQueueUserLimit`` (``ProportionalCapacityPreemptionPolicyMockFramework`` cases without
node labels), ported to the policy's public API.

The mock framework's conventions: queues ``-a(=[guaranteed max used pending reserved])`` of a
cluster of 100 (memory only, ``DefaultResourceCalculator``); apps
``(priority,resource,host,expression,#repeat,reserved,pending[,user])`` with the first
container the AM, every app of user ``user`` unless named; a user's limit is the queue's
guarantee divided by its number of users, rounded up (``MockApplications.calculateUserLimit``);
the minimum allocation is 1; wait 10 s and the whole excess in one round.  Hadoop's count of
``MARK_CONTAINER_FOR_PREEMPTION`` events per app is the containers one round marks.
"""

from __future__ import annotations

import math

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    AppView,
    ContainerView,
    PreemptionConfigError,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_yarn_capacity_preemption_hadoop_more import SETUP as HADOOP_SETUP

from corescheduler.resources import Resources

SETUP = {
    **HADOOP_SETUP,
    PREFIX + "intra-queue-preemption.enabled": "true",
}
PRIORITY_FIRST = {PREFIX + "intra-queue-preemption.preemption-order-policy": "priority_first"}


def _m(v: int) -> Resources:
    return Resources(v, 0)


def build(queues: str, apps: list[tuple], disabled: tuple[str, ...] = (), cluster: int = 100,
          mulp: int | None = None) -> QueueView:
    """``queues``: ``"a 11 100 11 50; b 40 100 38 50"`` (name guaranteed max used pending);
    ``apps``: ``(queue, priority, size, repeat, pending[, user])`` in application id order;
    ``mulp``: the apps' ``\tMULP`` (the user limit is the guarantee ÷ (100 / MULP))."""
    rows = [r.split() for r in queues.split(";")]
    per_queue: dict[str, list[tuple[int, tuple]]] = {}
    for n, app in enumerate(apps, start=1):
        per_queue.setdefault(app[0], []).append((n, app))
    # FifoOrderingPolicy (PriorityComparator, then FifoComparator): its preemption iterator
    # takes the lowest priority first, then the latest; app_order is the place in that order
    place = {n: k for k, (n, _) in enumerate(sorted(enumerate(apps, start=1), key=lambda na: (-na[1][1], na[0])))}
    leaves = []
    for name, g, mx, used, pend in rows:
        containers, views, users = [], [], []
        for n, (_, prio, size, repeat, pending, *user) in per_queue.get(name, []):
            uname = user[0] if user else "user"
            if uname not in users:
                users.append(uname)
            views.append(AppView(f"app{n}", uname, n, _m(pending), prio))
            containers += [ContainerView(f"app{n}_c{k}", f"app{n}", place[n], _m(size), is_am=k == 0)
                           for k in range(repeat)]
        parts = 100 // mulp if mulp else len(users)
        limit = _m(math.ceil(int(g) / parts)) if users else _m(0)
        leaves.append(QueueView(f"root.{name}", _m(int(g)), _m(int(mx)), _m(int(used)), _m(int(pend)),
                                preemption_disabled=name in disabled, containers=containers, apps=views,
                                user_limits=dict.fromkeys(users, limit), intra_queue_disabled=name in disabled,
                                minimum_allocation=Resources(1, 1)))
    used = sum(int(r[3]) for r in rows)
    return QueueView("root", _m(cluster), _m(cluster), _m(used), children=leaves)


def marked(root: QueueView, props: dict[str, str] | None = None) -> dict[str, int]:
    policy = ProportionalCapacityPreemption(PreemptionSettings.from_properties({**SETUP, **(props or {})}))
    out: dict[str, int] = {}
    for cid in policy.select(root, _m(100), 0.0).marked:
        app = cid.split("_")[0]
        out[app] = out.get(app, 0) + 1
    return out


SIMPLE_QUEUES = "a 11 100 11 50; b 40 100 38 50; c 20 100 10 10; d 29 100 20 0"
SIMPLE_APPS = [("a", 1, 1, 6, 25), ("a", 1, 1, 5, 25), ("b", 4, 1, 34, 20), ("b", 4, 1, 2, 10),
               ("b", 5, 1, 1, 10), ("b", 6, 1, 1, 10), ("c", 1, 1, 10, 10), ("d", 1, 1, 20, 0)]


def test_simple_intra_queue_preemption():
    """testSimpleIntraQueuePreemption: in b the low-priority app3 and app4 give 7 and 1 to the
    high-priority apps, up to the intra-queue limit of 20 % of b's 40."""
    assert marked(build(SIMPLE_QUEUES, SIMPLE_APPS), PRIORITY_FIRST) == {"app3": 7, "app4": 1}


def test_no_intra_queue_preemption_with_preemption_disabled_on_queues():
    """testNoIntraQueuePreemptionWithPreemptionDisabledOnQueues."""
    root = build(SIMPLE_QUEUES.replace("d 29 100 20 0", "d 29 100 20 0"), SIMPLE_APPS, disabled=("a", "b", "c", "d"))
    assert marked(root) == {}


def test_no_preemption_for_same_priority_apps():
    """testNoPreemptionForSamePriorityApps."""
    apps = [("a", 1, 1, 6, 25), ("a", 1, 1, 5, 25), ("b", 1, 1, 34, 20), ("b", 1, 1, 2, 10),
            ("b", 1, 1, 1, 20), ("b", 1, 1, 1, 10), ("c", 1, 1, 10, 10), ("d", 1, 1, 20, 0)]
    root = build("a 10 100 10 50; b 40 100 40 60; c 20 100 10 10; d 30 100 20 0", apps)
    assert marked(root) == {}


def test_no_preemption_when_queue_is_under_capacity_limit():
    """testNoPreemptionWhenQueueIsUnderCapacityLimit: a and b are used below 50 % of their
    guarantees (the default minimum-threshold)."""
    apps = [("a", 1, 1, 5, 25), ("a", 2, 1, 5, 25), ("b", 4, 1, 40, 20), ("b", 6, 1, 5, 20)]
    assert marked(build("a 40 100 10 50; b 60 100 25 30", apps)) == {}


LIMIT_APPS = [("a", 1, 1, 5, 25), ("a", 2, 1, 5, 25), ("b", 4, 1, 40, 20), ("b", 6, 1, 5, 100)]


def test_limit_preemption_with_max_intra_queue_preemptable_limit():
    """testLimitPreemptionWithMaxIntraQueuePreemptableLimit: app4 wants 100, 30 are taken
    (max-allowable-limit 0.5 of b's 60)."""
    props = {**PRIORITY_FIRST, PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}
    assert marked(build("a 40 100 10 50; b 60 100 45 120", LIMIT_APPS), props) == {"app3": 30}


def test_limit_preemption_with_total_preempted_resource_allowed():
    """testLimitPreemptionWithTotalPreemptedResourceAllowed: 10 (total_preemption_per_round 0.1)."""
    props = {**PRIORITY_FIRST, PREFIX + "total_preemption_per_round": "0.1"}
    assert marked(build("a 40 100 10 50; b 60 100 45 120", LIMIT_APPS), props) == {"app3": 10}


def test_already_selected_container_from_inter_queue_preemption():
    """testAlreadySelectedContainerFromInterQueuePreemption: a gives b 9 (inter-queue); app2
    needs 20 within a, so 11 more: 20 from app1 in all."""
    props = {**PRIORITY_FIRST, PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}
    apps = [("a", 1, 1, 50, 15), ("a", 2, 1, 20, 20), ("b", 4, 1, 20, 20), ("b", 4, 1, 5, 100)]
    assert marked(build("a 60 100 70 35; b 40 100 25 120", apps), props) == {"app1": 20}


def test_skip_am_containers_in_inter_queue_preemption():
    """testSkipAMContainersInInterQueuePreemption: 11 from app1, 9 from app2 (its AM spared)."""
    props = {**PRIORITY_FIRST, PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}
    apps = [("a", 1, 1, 30, 10), ("a", 1, 1, 10, 20), ("a", 2, 1, 20, 20), ("b", 4, 1, 20, 20),
            ("b", 4, 1, 20, 100)]
    assert marked(build("a 60 100 60 50; b 40 100 40 120", apps), props) == {"app1": 11, "app2": 9}


def test_skip_am_containers_in_inter_queue_preemption_single_app():
    """testSkipAMContainersInInterQueuePreemptionSingleApp: 9 of app1's 10, its AM spared."""
    apps = [("a", 1, 1, 10, 10), ("a", 2, 1, 40, 10), ("b", 4, 1, 20, 20), ("b", 4, 1, 30, 100)]
    assert marked(build("a 50 100 50 50; b 50 100 50 120", apps), PRIORITY_FIRST) == {"app1": 9}


def test_no_preemption_for_single_app():
    """testNoPreemptionForSingleApp."""
    assert marked(build("a 60 100 20 50; b 40 100 0 0", [("a", 4, 1, 20, 50)])) == {}


def test_overutilized_queue_resource_with_inter_queue_preemption():
    """testOverutilizedQueueResourceWithInterQueuePreemption: b's 20 from app1; the
    intra-queue need of app2 is met by those already selected."""
    apps = [("a", 1, 1, 50, 0), ("a", 3, 1, 50, 30), ("b", 4, 1, 0, 20)]
    assert marked(build("a 20 100 100 30; b 80 100 0 20", apps)) == {"app1": 20}


def test_complex_intra_queue_preemption():
    """testComplexIntraQueuePreemption: every queue within its guarantee, apps under-served
    within them: 4 from app1, 4 from app4, 4 from app5, 9 from app6, 2 from app10, 1 from app11."""
    props = {**PRIORITY_FIRST, PREFIX + "total_preemption_per_round": "0.5",
             PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}
    apps = [("a", 1, 1, 5, 25), ("a", 4, 1, 0, 25), ("a", 5, 1, 0, 2),
            ("b", 3, 1, 5, 20), ("b", 4, 1, 15, 10), ("b", 4, 1, 10, 10), ("b", 5, 1, 3, 5), ("b", 5, 1, 0, 2),
            ("b", 6, 1, 2, 10), ("c", 1, 1, 8, 10), ("c", 1, 1, 2, 5), ("c", 2, 1, 0, 3),
            ("d", 2, 1, 25, 0), ("d", 1, 1, 0, 20)]
    root = build("a 10 100 5 50; b 40 100 35 60; c 20 100 10 10; d 30 100 25 10", apps)
    assert marked(root, props) == {"app1": 4, "app4": 4, "app5": 4, "app6": 9, "app10": 2, "app11": 1}


def test_intra_queue_preemption_with_two_users():
    """testIntraQueuePreemptionWithTwoUsers: b's two users have 20 each; app4 (user2) asks
    for 30 but may have 20 (5 running): 14 from app3 (user1), as the 15th would bring user1
    to its limit."""
    props = {PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}
    apps = [("a", 1, 1, 5, 25), ("a", 2, 1, 5, 25), ("b", 4, 1, 35, 20, "user1"), ("b", 6, 1, 5, 30, "user2")]
    assert marked(build("a 60 100 10 50; b 40 100 40 120", apps), props) == {"app3": 14}


@pytest.mark.parametrize(("key", "value"), [
    ("intra-queue-preemption.enabled", "on"), ("intra-queue-preemption.minimum-threshold", "half"),
    ("intra-queue-preemption.max-allowable-limit", "-0.2"),
    ("intra-queue-preemption.preemption-order-policy", "fairness_first"),
    ("intra-queue-preemption.conservative-drf", "maybe"),
])
def test_bad_intra_queue_values_are_refused(key, value):
    with pytest.raises(PreemptionConfigError, match=(PREFIX + key).replace(".", r"\.")):
        PreemptionSettings.from_properties({PREFIX + key: value})


def test_intra_queue_settings_defaults_and_case():
    key = PREFIX + "intra-queue-preemption.preemption-order-policy"
    s = PreemptionSettings.from_properties({key: "PRIORITY_FIRST"})
    assert (s.intra_queue_enabled, s.intra_queue_minimum_threshold, s.intra_queue_max_allowable_limit,
            s.intra_queue_order, s.intra_queue_conservative_drf) == (False, 0.5, 0.2, "priority_first", True)
    # switched off, the simple case preempts nothing within b
    assert marked(build(SIMPLE_QUEUES, SIMPLE_APPS), {PREFIX + "intra-queue-preemption.enabled": "false"}) == {}


# ---------------------------------------------------------------------------- IntraQueueUserLimit
HALF = {PREFIX + "intra-queue-preemption.max-allowable-limit": "0.5"}


@pytest.mark.parametrize(("name", "queue", "apps", "expected"), [
    # app2 (user2) is well under its limit of 50: 30 from app1
    ("testSimpleIntraQueuePreemptionWithTwoUsers", "a 100 100 100 30",
     [("a", 1, 1, 100, 0, "user1"), ("a", 1, 1, 0, 30, "user2")], {"app1": 30}),
    # one user: the later app waits
    ("testNoIntraQueuePreemptionWithSingleUser", "a 100 100 100 30",
     [("a", 1, 1, 100, 0, "user1"), ("a", 1, 1, 0, 30, "user1")], {}),
    # user1 within its limit: nothing
    ("testNoIntraQueuePreemptionWithTwoUserUnderUserLimit", "a 100 100 80 30",
     [("a", 1, 1, 50, 0, "user1"), ("a", 1, 1, 30, 30, "user2")], {}),
    # the user limit before the priority: 30 from the higher-priority app1
    ("testSimpleIntraQueuePreemptionWithTwoUsersWithAppPriority", "a 100 100 100 30",
     [("a", 2, 1, 100, 0, "user1"), ("a", 1, 1, 0, 30, "user2")], {"app1": 30}),
    # across apps: 9 from user1's later app3
    ("testIntraQueuePreemptionOfUserLimitWithMultipleApps", "a 100 100 80 90",
     [("a", 1, 1, 30, 30, "user1"), ("a", 1, 1, 20, 20, "user2"), ("a", 1, 1, 30, 30, "user1"),
      ("a", 1, 1, 0, 10, "user2")], {"app3": 9}),
    ("testNoPreemptionOfUserLimitWithMultipleAppsAndSameUser", "a 100 100 80 90",
     [("a", 1, 1, 30, 20, "user1"), ("a", 1, 1, 20, 20, "user1"), ("a", 1, 1, 30, 30, "user1"),
      ("a", 1, 1, 0, 10, "user1")], {}),
])
def test_intra_queue_user_limit(name, queue, apps, expected):
    """``TestProportionalCapacityPreemptionPolicyIntraQueueUserLimit`` (``userlimit_first``,
    max-allowable-limit 0.5, one queue of the whole cluster, two users of 50 each)."""
    assert marked(build(queue, apps), HALF) == expected, name


def test_intra_queue_preemption_of_user_limit_with_apps_of_different_priority():
    """testIntraQueuePreemptionOfUserLimitWitAppsOfDifferentPriority: 9 from app1, the lower
    priority of user1's apps."""
    apps = [("a", 3, 1, 30, 30, "user1"), ("a", 1, 1, 20, 20, "user2"), ("a", 4, 1, 30, 0, "user1"),
            ("a", 1, 1, 0, 10, "user2")]
    assert marked(build("a 100 100 80 60", apps), HALF) == {"app1": 9}


def test_intra_queue_preemption_of_user_limit_in_two_queues():
    """testIntraQueuePreemptionOfUserLimitInTwoQueues: 4 from app1 in a, 4 from app5 in b."""
    apps = [("a", 3, 1, 20, 30, "user1"), ("a", 1, 1, 20, 20, "user2"), ("a", 4, 1, 15, 0, "user1"),
            ("a", 1, 1, 0, 10, "user2"), ("b", 3, 1, 25, 10, "user1"), ("b", 1, 1, 10, 10, "user2")]
    assert marked(build("a 60 100 55 60; b 40 100 35 20", apps), HALF) == {"app1": 4, "app5": 4}


def test_intra_queue_preemption_with_two_requesting_users():
    """testIntraQueuePreemptionWithTwoRequestingUsers: 9 from app1, none from app2."""
    apps = [("a", 1, 1, 60, 10, "user1"), ("a", 1, 1, 40, 10, "user2")]
    assert marked(build("a 100 100 100 20", apps), HALF) == {"app1": 9}


@pytest.mark.parametrize("prio", [0, 1, 5])
def test_no_intra_queue_preemption_if_below_user_limit_and_extra_users(prio):
    """testNoIntraQueuePreemptionIfBelowUserLimitAnd{Low,Same,High}PriorityExtraUsers: user1 and
    user2 at their limit of 50 (MULP 50), a third user asks: nothing is taken."""
    apps = [("a", 1, 1, 50, 0, "user1"), ("a", 1, 1, 50, 0, "user2"), ("a", prio, 1, 0, 10, "user3")]
    props = {PREFIX + "intra-queue-preemption.max-allowable-limit": "0.7"}
    assert marked(build("a 100 100 100 10", apps, mulp=50), props) == {}


def test_no_intra_queue_preemption_with_user_limit_deadzone():
    """testNoIntraQueuePreemptionWithUserLimitDeadzone: app1's containers are of 3: 3 of them,
    not the 4th, which would take user1 to its limit."""
    apps = [("a", 1, 3, 20, 10, "user1"), ("a", 1, 1, 40, 10, "user2")]
    assert marked(build("a 100 100 100 20", apps), HALF) == {"app1": 3}


# ---------------------------------------------------------------------------- the live tree
def _live_xml(intra: bool, extra: str = "") -> str:
    c = "yarn.scheduler.capacity."

    def prop(n: str, v: str) -> str:
        return f"<property><name>{n}</name><value>{v}</value></property>"
    body = (prop(c + "root.queues", "a") + prop(c + "root.a.capacity", "100")
            + prop(c + "root.a.minimum-user-limit-percent", "50")
            + prop(PREFIX + "natural_termination_factor", "1") + prop(PREFIX + "total_preemption_per_round", "1"))
    if intra:
        body += (prop(PREFIX + "intra-queue-preemption.enabled", "true")
                 + prop(PREFIX + "intra-queue-preemption.max-allowable-limit", "0.5"))
    return "<configuration>" + body + extra + "</configuration>"


def _live(allocations: str):
    from corescheduler.testing import ClusterHarness

    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=config,
                       allocations=allocations)
    first = h.submit(queue="a", user="u1", tasks=10, resources="1024 mb, 1 vcores")
    for _ in range(12):
        h.heartbeat("n0000")
    h.submit(queue="a", user="u2", tasks=6, resources="1024 mb, 1 vcores")
    assert h.running(first) == 10
    h.update()
    h.preempt()
    return {h.task(t).job.user for t in h.shares()["preemption"]["marked"]}, len(h.shares()["preemption"]["marked"])


@pytest.mark.parametrize(("intra", "extra", "expected"), [
    (False, "", (set(), 0)),
    # u1 fills the only queue; u2 asks for 6.  Both users' limit is 6144 MB (the yarn_capacity
    # plugin's user limit: half the queue, plus one minimum allocation), so u1's ideal is 6
    # containers and it may give 10 - 6 - 1 (userlimit_first keeps a minimum allocation) = 3
    (True, "", ({"u1"}, 3)),
    # the queue's intra-queue switch, read from the file
    (True, "<property><name>yarn.scheduler.capacity.root.a.intra-queue-preemption.disable_preemption</name>"
           "<value>true</value></property>", (set(), 0)),
    (True, "<property><name>yarn.scheduler.capacity.root.intra-queue-preemption.disable_preemption</name>"
           "<value>true</value></property>", (set(), 0)),
])
def test_intra_queue_on_the_live_tree(intra, extra, expected):
    """The yarn_capacity plugin hands the monitor each leaf's apps, users and limits."""
    assert _live(_live_xml(intra, extra)) == expected


def test_bad_intra_queue_switch_refuses_the_file():
    from corescheduler.errors import AllocationError

    key = "yarn.scheduler.capacity.root.a.intra-queue-preemption.disable_preemption"
    with pytest.raises(AllocationError, match=key.replace(".", r"\.")):
        _live(_live_xml(True, f"<property><name>{key}</name><value>sometimes</value></property>"))


def test_queue_intra_preemption_disabled_inherits():
    """``isIntraQueueHierarchyPreemptionDisabled``: set on the queue, else the parent's."""
    from corescheduler_plugins._yarn_capacity_preemption_settings import queue_intra_preemption_disabled

    key = "yarn.scheduler.capacity.{}.intra-queue-preemption.disable_preemption"
    props = {key.format("root.a"): "true", key.format("root.a.b"): " false "}
    assert queue_intra_preemption_disabled(props, "root", None) is False
    assert queue_intra_preemption_disabled(props, "root.a", False) is True
    assert queue_intra_preemption_disabled(props, "root.a.c", True) is True
    assert queue_intra_preemption_disabled(props, "root.a.b", True) is False
    with pytest.raises(PreemptionConfigError, match=r"root\.x\.intra-queue-preemption\.disable_preemption"):
        queue_intra_preemption_disabled({key.format("root.x"): "yes"}, "root.x", False)


@st.composite
def _cases(draw):
    guarantees = draw(st.lists(st.integers(5, 60), min_size=1, max_size=3))
    rows, apps = [], []
    for qi, g in enumerate(guarantees):
        name = "abc"[qi]
        used = 0
        for _ in range(draw(st.integers(0, 4))):
            repeat = draw(st.integers(0, 15))
            used += repeat
            apps.append((name, draw(st.integers(0, 5)), 1, repeat, draw(st.integers(0, 30)),
                         draw(st.sampled_from(["u1", "u2", "u3"]))))
        rows.append(f"{name} {g} 100 {used} {draw(st.integers(0, 40))}")
    return "; ".join(rows), apps, draw(st.sampled_from(["a", "b", "c", None]))


@settings(max_examples=120, deadline=None)
@given(_cases(), st.sampled_from(["priority_first", "userlimit_first"]), st.floats(0.05, 1.0),
       st.floats(0.0, 1.0), st.floats(0.05, 1.0))
def test_intra_queue_properties(case, order, per_round, threshold, limit):
    """Never a container twice, never more than total_preemption_per_round of the cluster,
    never from a leaf with preemption disabled, never an AM container by the intra-queue
    selector alone (no leaf over its guarantee: the inter-queue selectors take nothing)."""
    queues, apps, off = case
    root = build(queues, apps, disabled=(off,) if off else ())
    props = {PREFIX + "intra-queue-preemption.preemption-order-policy": order,
             PREFIX + "total_preemption_per_round": str(per_round),
             PREFIX + "intra-queue-preemption.minimum-threshold": str(threshold),
             PREFIX + "intra-queue-preemption.max-allowable-limit": str(limit)}
    policy = ProportionalCapacityPreemption(PreemptionSettings.from_properties({**SETUP, **props}))
    rnd = policy.select(root, _m(100), 0.0)
    assert len(set(rnd.marked)) == len(rnd.marked)
    sizes = {c.id: c for q in root.children for c in q.containers}
    assert sum(sizes[c].resources.memory for c in rnd.marked) <= int(100 * policy.settings.total_preemption_per_round)
    by_queue = {c.id: q for q in root.children for c in q.containers}
    assert not any(by_queue[c].preemption_disabled for c in rnd.marked)
    if all(q.used.memory <= q.guaranteed.memory for q in root.children):
        assert not any(sizes[c].is_am for c in rnd.marked)
