"""Hadoop 3.3's ``ProportionalCapacityPreemptionPolicyMockFramework`` cases, ported with the
framework's own strings.

:func:`build_env` reads Hadoop's ``labelsConfig`` (the cluster: ``"=100,true;"`` or
``"=100:50,true;"``), ``queuesConfig`` (``root(=[guaranteed max used pending reserved]);
-a(=[…]){priority=1,disable_preemption=true};--a1(…)``) and ``appsConfig``
(``queue\\t(priority,resource,host,expression,#repeat,reserved,pending,user)…[\\tMULP];``) as
``MockQueueHierarchy``, ``MockApplications``, ``MockApplication`` and ``MockContainers`` do:

* a queue's guarantee, maximum, use, pending and reservations are the amounts written
  (``setEffectiveMinResource``…); a parent orders its children by ``priority-utilization``,
  so a queue's ``priority`` is its relative priority; ``disable_preemption`` is the queue's
  own (``conf.getPreemptionDisabled(path, false)``, not inherited) unless ``{…}`` sets it;
* an app's id is its place in ``appsConfig``; its containers are numbered from 1 across its
  groups, container 1 is the AM; a reserved group holds no live container; the app's
  priority, user and pending are its last group's; apps run as ``user`` unless named;
* the leaf's preemption iterator is the mock's ``TreeSet`` descending: the lowest priority,
  then the latest app, first;
* a user's limit is ``Resources.divideAndCeil(cluster × absoluteCapacity, #users)`` (or
  ``100 / MULP`` parts), the minimum allocation ``<1, 1>``;
* the settings are the framework's (wait 10 s, the whole excess in one round) plus the
  test's; ``DominantResourceCalculator`` when the cluster names vcores.

Hadoop's count of ``MARK_CONTAINER_FOR_PREEMPTION`` events per app is the containers one
round marks.  A case that calls ``editSchedule`` again after a new ``buildEnv`` is a new round
on new containers (Hadoop's mocks are new objects), so it is a new policy here; Hadoop's
counts are cumulative, and the port subtracts the first round's.

Left out, as not simulated: node partitions (``TestProportionalCapacityPreemptionPolicyForNodePartitions``,
``…IntraQueue.testNodePartitionIntraQueuePreemption`` / ``testComplexNodePartitionIntraQueuePreemption``,
the framework self-tests ``TestProportionalCapacityPreemptionPolicyMockFramework``) and the
reserved-container selector (``TestProportionalCapacityPreemptionPolicyForReservedContainers``).
"""

from __future__ import annotations

import re

import pytest
from corescheduler_plugins._yarn_capacity_preemption import (
    PREFIX,
    AppView,
    ContainerView,
    PreemptionSettings,
    ProportionalCapacityPreemption,
    QueueView,
)

from corescheduler.core.javamath import java_float
from corescheduler.resources import Resources

# ProportionalCapacityPreemptionPolicyMockFramework.setup
FRAMEWORK = {
    PREFIX + "max_wait_before_kill": "10000",
    PREFIX + "monitoring_interval": "3000",
    PREFIX + "total_preemption_per_round": "1.0f",
    PREFIX + "natural_termination_factor": "1.0f",
}
INTRA = {PREFIX + "intra-queue-preemption.enabled": "true"}
PRIORITY_FIRST = {PREFIX + "intra-queue-preemption.preemption-order-policy": "priority_first"}
USERLIMIT_FIRST = {PREFIX + "intra-queue-preemption.preemption-order-policy": "userlimit_first"}
BALANCE = {PREFIX + "preemption-to-balance-queue-after-satisfied.enabled": "true"}


def limit(value: float) -> dict[str, str]:
    return {PREFIX + "intra-queue-preemption.max-allowable-limit": str(value)}


def per_round(value: float) -> dict[str, str]:
    return {PREFIX + "total_preemption_per_round": str(value)}


def parse_resource(text: str) -> Resources:
    """``parseResourceFromString``: ``m``, ``m:v`` or ``m:v:res1``."""
    parts = [int(p) for p in text.strip().split(":")]
    if len(parts) == 1:  # Resources.createResource(memory): one vcore when any memory
        return Resources(parts[0], 1 if parts[0] > 0 else 0)
    extra = {"res1": parts[2]} if len(parts) > 2 else {}
    return Resources(parts[0], parts[1], extra)


def _dominant_share(cluster: Resources, r: Resources) -> float:
    shares = [r.get(n) / cluster.get(n) for n in cluster.names if cluster.get(n) > 0]
    return max(shares) if shares else 0.0


def build_env(labels: str, queues: str, apps: str, *, dominant: bool | None = None,
              disabled: tuple[str, ...] = (), ordering: dict[str, str] | None = None,
              user_limits: dict[str, Resources] | None = None) -> tuple[QueueView, Resources, bool]:
    """The mock scheduler's queue tree as a :class:`QueueView`, the cluster, and whether the
    calculator is dominant.  ``disabled``: ``conf.setPreemptionDisabled`` by queue path;
    ``ordering``: ``<leaf path>.ordering-policy``; ``user_limits``: a stubbed
    ``getResourceLimitForAllUsers`` by leaf path."""
    spec = labels.strip().rstrip(";")
    assert spec.startswith("=") and ";" not in spec, "node partitions are not simulated"
    cluster = parse_resource(spec[1:].split(",")[0])
    if dominant is None:
        dominant = ":" in spec.split(",")[0]
    # MockQueueHierarchy
    nodes: list[tuple[int, QueueView, dict[str, str], Resources]] = []
    stack: list[QueueView] = []
    for expr in [e for e in queues.split(";") if e.strip()]:
        expr = expr.strip()
        level = len(expr) - len(expr.lstrip("-"))
        name = expr[level:expr.index("(")]
        settings = expr[expr.index("(") + 1:expr.index(")")]
        assert settings.startswith("=[") and "]," not in settings, "node partitions are not simulated"
        values = settings[2:settings.index("]")].split()
        other = {}
        if "{" in expr:
            for kv in expr[expr.index("{") + 1:expr.index("}")].split(","):
                k, _, v = kv.partition("=")
                other[k] = v
        del stack[level:]
        path = name if level == 0 else f"{stack[-1].path}.{name}"
        off = other.get("disable_preemption", str(path in disabled)).lower() == "true"
        reserved = parse_resource(values[4]) if len(values) == 5 else Resources()
        view = QueueView(path, parse_resource(values[0]), parse_resource(values[1]), parse_resource(values[2]),
                         parse_resource(values[3]), preemption_disabled=off, reserved=reserved,
                         priority=int(other.get("priority", 0)), intra_queue_disabled=off,
                         minimum_allocation=Resources(1, 1),
                         ordering_policy=(ordering or {}).get(path, "fifo"))
        if stack:
            stack[-1].children.append(view)
        stack.append(view)
        nodes.append((level, view, other, parse_resource(values[0])))
    root = nodes[0][1]
    by_name = {v.path.rsplit(".", 1)[-1]: v for _, v, _, _ in nodes} | {v.path: v for _, v, _, _ in nodes}
    # MockApplications / MockContainers
    mulp = -1
    rows: list[tuple[QueueView, AppView, list[tuple[int, Resources, bool]]]] = []
    for n, cfg in enumerate([c for c in apps.split(";") if c.strip()], start=1):
        parts = cfg.split("\t")
        if mulp <= 0 and len(parts) > 2:
            mulp = 100 // int(parts[2])
        leaf = by_name[parts[0].strip()]
        containers: list[tuple[int, Resources, bool]] = []
        prio, user, pending = 0, "user", Resources()
        for group in re.findall(r"\(([^)]*)\)", parts[1]):
            v = group.split(",")
            prio, size, repeat, reserved = int(v[0]), parse_resource(v[1]), int(v[4]), v[5] == "true"
            pending = parse_resource(v[6]) if len(v) >= 7 else Resources()
            user = v[7] if len(v) == 8 else "user"
            containers += [(prio, size, reserved)] * repeat
        rows.append((leaf, AppView(f"app{n}", user, n, pending, prio), containers))
    # the leaf's TreeSet: by priority (the higher first), then application id; preempted from the end
    rank = {app.id: k for k, (_, app, _) in enumerate(sorted(rows, key=lambda r: (-r[1].priority, r[1].order)))}
    users: dict[str, list[str]] = {}
    for leaf, app, containers in rows:
        leaf.apps.append(app)
        if app.user not in users.setdefault(leaf.path, []):
            users[leaf.path].append(app.user)
        for cid, (prio, size, reserved) in enumerate(containers, start=1):
            if not reserved:
                leaf.containers.append(ContainerView(f"{app.id}_c{cid}", app.id, rank[app.id], size,
                                                     is_am=cid == 1, priority=prio))
    for path, names in users.items():
        leaf = by_name[path]
        if user_limits and path in user_limits:
            ul = user_limits[path]
        else:  # calculateUserLimit: divideAndCeil(cluster × absoluteCapacity + 1e-6, parts)
            if dominant:
                abs_cap = java_float(java_float(_dominant_share(cluster, leaf.guaranteed)) + java_float(1e-6))
            else:
                abs_cap = java_float(java_float(leaf.guaranteed.memory / cluster.memory) + java_float(1e-6))
            capacity = Resources.of({k: int(cluster.get(k) * abs_cap) for k in cluster.names})
            parts = mulp if mulp > 0 else len(names)
            ul = Resources.of({k: -(-v // parts) for k, v in capacity.items()})
        leaf.user_limits = dict.fromkeys(names, ul)
    return root, cluster, dominant


def edit_schedule(env: tuple[QueueView, Resources, bool], *props: dict[str, str]) -> dict[str, int]:
    """``policy.editSchedule()``: the containers marked per app."""
    root, cluster, dominant = env
    merged = dict(FRAMEWORK)
    for p in props:
        merged.update(p)
    policy = ProportionalCapacityPreemption(PreemptionSettings.from_properties(merged), dominant=dominant)
    rnd = policy.select(root, cluster, 0.0)
    out: dict[str, int] = {}
    for cid in rnd.marked:
        app = cid.split("_")[0]
        out[app] = out.get(app, 0) + 1
    return out


# ------------------------------------------------------------------ TestProportionalCapacityPreemptionPolicyIntraQueue
ONE_NODE = "=100,true;"
SIMPLE_QUEUES = ("root(=[100 100 79 110 0]);-a(=[11 100 11 50 0]);-b(=[40 100 38 50 0]);"
                 "-c(=[20 100 10 10 0]);-d(=[29 100 20 0 0])")
SIMPLE_APPS = ("a\t(1,1,n1,,6,false,25);a\t(1,1,n1,,5,false,25);b\t(4,1,n1,,34,false,20);"
               "b\t(4,1,n1,,2,false,10);b\t(5,1,n1,,1,false,10);b\t(6,1,n1,,1,false,10);"
               "c\t(1,1,n1,,10,false,10);d\t(1,1,n1,,20,false,0)")


def test_framework_reads_hadoops_strings_as_the_earlier_ports():
    """TestProportionalCapacityPreemptionPolicyIntraQueue.testSimpleIntraQueuePreemption through
    the framework's strings: 7 from app3, 1 from app4 (as the hand-built port has it)."""
    env = build_env(ONE_NODE, SIMPLE_QUEUES, SIMPLE_APPS)
    assert edit_schedule(env, INTRA, PRIORITY_FIRST) == {"app3": 7, "app4": 1}


def test_intra_queue_preemption_after_queue_dropped():
    """TestProportionalCapacityPreemptionPolicyIntraQueue.testIntraQueuePreemptionAfterQueueDropped
    (YARN-8709): the first round takes 7 from app3 and 1 from app4; after ``updateQueueConfig``
    drops the under-served c (a new tree, without apps), the same policy runs again without an
    error and adds nothing."""
    props = dict(FRAMEWORK)
    props.update(INTRA)
    props.update(PRIORITY_FIRST)
    policy = ProportionalCapacityPreemption(PreemptionSettings.from_properties(props))
    root, cluster, _ = build_env(ONE_NODE, SIMPLE_QUEUES, SIMPLE_APPS)
    first = policy.select(root, cluster, 0.0)
    counts: dict[str, int] = {}
    for cid in first.marked:
        counts[cid.split("_")[0]] = counts.get(cid.split("_")[0], 0) + 1
    assert counts == {"app3": 7, "app4": 1}
    dropped = "root(=[100 100 69 100 0]);-a(=[11 100 11 50 0]);-b(=[40 100 38 50 0]);-d(=[49 100 20 0 0])"
    root2, _, _ = build_env(ONE_NODE, dropped, "")
    second = policy.select(root2, cluster, 3.0)
    assert second.marked == [] and second.kill == []
    assert "root.c" not in second.ideal


# ---------------------------------------------------------------------------- …IntraQueueUserLimit
def test_intra_queue_preemption_with_user_limit_deadzone_and_priority():
    """TestProportionalCapacityPreemptionPolicyIntraQueueUserLimit.testIntraQueuePreemptionWithUserLimitDeadzoneAndPriority:
    3 of app1's containers of 3 (not the 4th, which would take user1 to its limit of 50); in the
    second round (3 taken: app1 holds 17) user1 is within its limit and nothing more is taken
    (Hadoop's cumulative count stays 3)."""
    queues = "root(=[100 100 100 20 0]);-a(=[100 100 100 20 0])"
    apps = "a\t(1,3,n1,,20,false,10,user1);a\t(2,1,n1,,0,false,10,user1);a\t(1,1,n1,,40,false,20,user2)"
    assert edit_schedule(build_env(ONE_NODE, queues, apps), INTRA, limit(0.5)) == {"app1": 3}
    apps = "a\t(1,3,n1,,17,false,10,user1);a\t(2,1,n1,,0,false,10,user1);a\t(1,1,n1,,49,false,11,user2)"
    assert edit_schedule(build_env(ONE_NODE, queues, apps), INTRA, limit(0.5)) == {}


def test_simple_intra_queue_preemption_one_user_under_one_user_at_one_user_above():
    """…IntraQueueUserLimit.testSimpleIntraQueuePreemptionOneUserUnderOneUserAtOneUserAbove:
    three users of limit 34; user2 (35) is at it, user3 asks 1: 1 from app1 (user1, 65)."""
    queues = "root(=[100 100 100 1 0]);-a(=[100 100 100 1 0])"
    apps = "a\t(1,1,n1,,65,false,0,user1);a\t(1,1,n1,,35,false,0,user2);a\t(1,1,n1,,0,false,1,user3)"
    assert edit_schedule(build_env(ONE_NODE, queues, apps), INTRA, limit(0.5)) == {"app1": 1}


# ---------------------------------------------------------------------------- …IntraQueueWithDRF
def test_simple_intra_queue_preemption_with_vcore_resource():
    """TestProportionalCapacityPreemptionPolicyIntraQueueWithDRF.testSimpleIntraQueuePreemptionWithVCoreResource:
    in b the low-priority app3 and app4 give 3 and 1."""
    queues = ("root(=[100:50 100:50 80:40 120:60 0]);-a(=[10:5 100:50 10:5 50:25 0]);"
              "-b(=[40:20 100:50 40:20 60:30 0]);-c(=[20:10 100:50 10:5 10:5 0]);-d(=[30:15 100:50 20:10 0 0])")
    apps = ("a\t(1,1:1,n1,,5,false,25:25);a\t(1,1:1,n1,,5,false,25:25);b\t(4,1:1,n1,,36,false,20:20);"
            "b\t(4,1:1,n1,,2,false,10:10);b\t(5,1:1,n1,,1,false,10:10);b\t(6,1:1,n1,,1,false,10:10);"
            "c\t(1,1:1,n1,,10,false,10:10);d\t(1,1:1,n1,,20,false,0)")
    env = build_env("=100:50,true;", queues, apps)
    assert edit_schedule(env, INTRA, PRIORITY_FIRST) == {"app3": 3, "app4": 1}


@pytest.mark.parametrize(("conservative", "expected"), [("true", 6), ("false", 29)])
def test_intra_queue_preemption_fair_ordering_with_strict_and_relaxed_drf(conservative, expected):
    """…IntraQueueWithDRF.testIntraQueuePreemptionFairOrderingWithStrictAndRelaxedDRF: b (fair
    ordering) is used 61440:60 by user1's app1 against a limit of 30720:300 (memory above, vcores
    below); user3 asks 30720:30.  Conservative DRF takes 6 containers, relaxed 29 (all it needs,
    less the AM)."""
    queues = ("root(=[61440:600 61440:600 61440:600 30720:30 0]);-a(=[30720:300 61440:600 0:0 0:0 0]);"
              "-b(=[30720:300 61440:600 61440:60 30720:30 0]);")
    apps = "b\t(1,1024:1,n1,,60,false,0:0,user1);b\t(1,0:0,n1,,0,false,30720:30,user3);"
    env = build_env("=61440:600,true;", queues, apps, ordering={"root.b": "fair"},
                    user_limits={"root.b": Resources(30720, 300)})
    props = {PREFIX + "intra-queue-preemption.conservative-drf": conservative}
    assert edit_schedule(env, INTRA, USERLIMIT_FIRST, props) == {"app1": expected}


def test_intra_queue_preemption_with_dominant_vcore_resource():
    """…IntraQueueWithDRF.testIntraQueuePreemptionWithDominantVCoreResource: 9 from app3, 4 from
    app4 and 4 from app5 for b's high-priority app6."""
    queues = "root(=[100:50 100:50 50:40 110:60 0]);-a(=[40:20 100:50 9:9 50:30 0]);-b(=[60:30 100:50 40:30 60:30 0]);"
    apps = ("a\t(1,2:1,n1,,4,false,25:25);a\t(1,1:3,n1,,2,false,25:25);b\t(4,2:1,n1,,10,false,20:20);"
            "b\t(4,1:2,n1,,5,false,10:10);b\t(5,1:1,n1,,5,false,30:20);b\t(6,2:1,n1,,5,false,30:20);")
    env = build_env("=100:200,true;", queues, apps)
    assert edit_schedule(env, INTRA, PRIORITY_FIRST, limit(0.5)) == {"app3": 9, "app4": 4, "app5": 4}


# ---------------------------------------------------------------------------- …IntraQueueFairOrdering
FULL_A = "root(=[100 100 100 1 0]);-a(=[100 100 100 1 0])"


def test_intra_queue_preemption_fair_ordering_policy_enabled_one_app_per_user():
    """TestProportionalCapacityPreemptionPolicyIntraQueueFairOrdering.testIntraQueuePreemptionFairOrderingPolicyEnabledOneAppPerUser:
    under ``fair`` the farthest over its limit (user1, 60) gives all 20 user3 asks."""
    apps = "a\t(1,1,n1,,60,false,0,user1);a\t(1,1,n1,,40,false,0,user2);a\t(1,1,n1,,0,false,20,user3)"
    env = build_env(ONE_NODE, FULL_A, apps, ordering={"root.a": "fair"})
    assert edit_schedule(env, INTRA, limit(1.0)) == {"app1": 20}


def test_intra_queue_preemption_fifo_ordering_policy_enabled():
    """…IntraQueueFairOrdering.testIntraQueuePreemptionFifoOrderingPolicyEnabled: under ``fifo``
    the youngest app gives first, down to its user's limit (5 from app2); in the next round (app2
    at 35) the 15 come from app1 (Hadoop counts 5 + 15)."""
    apps = "a\t(1,1,n1,,60,false,0,user1);a\t(1,1,n1,,40,false,0,user2);a\t(1,1,n1,,0,false,5,user3)"
    env = build_env(ONE_NODE, FULL_A, apps, ordering={"root.a": "fifo"})
    assert edit_schedule(env, INTRA, limit(1.0)) == {"app2": 5}
    apps = "a\t(1,1,n1,,60,false,0,user1);a\t(1,1,n1,,35,false,0,user2);a\t(1,1,n1,,5,false,15,user3)"
    env = build_env(ONE_NODE, FULL_A, apps, ordering={"root.a": "fifo"})
    assert edit_schedule(env, INTRA, limit(1.0)) == {"app1": 15}


def test_intra_queue_preemption_fair_ordering_policy_mulitiple_apps_per_user():
    """…IntraQueueFairOrdering.testIntraQueuePreemptionFairOrderingPolicyMulitipleAppsPerUser:
    user1 (35 + 25) is the most over its limit, and of its apps app1 uses the most: all 20 from
    app1."""
    apps = ("a\t(1,1,n1,,35,false,0,user1);a\t(1,1,n1,,25,false,0,user1);a\t(1,1,n1,,40,false,0,user2);"
            "a\t(1,1,n1,,0,false,20,user3)")
    env = build_env(ONE_NODE, FULL_A, apps, ordering={"root.a": "fair"})
    assert edit_schedule(env, INTRA, limit(1.0)) == {"app1": 20}


def test_intra_queue_preemption_fifo_ordering_policy_multiple_apps_per_user():
    """…IntraQueueFairOrdering.testIntraQueuePreemptionFifoOrderingPolicyMultipleAppsPerUser: 5
    from the youngest app3 (down to user3's limit), 19 from user1's youngest app2 (all but its
    AM), 1 from app1."""
    apps = ("a\t(1,1,n1,,40,false,0,user1);a\t(1,1,n1,,20,false,0,user1);a\t(1,1,n1,,40,false,0,user3);"
            "a\t(1,1,n1,,0,false,25,user4)")
    env = build_env(ONE_NODE, FULL_A, apps, ordering={"root.a": "fifo"})
    assert edit_schedule(env, INTRA, limit(1.0)) == {"app3": 5, "app2": 19, "app1": 1}


# ---------------------------------------------------------------------------- TestPreemptionForQueueWithPriorities
def test_priority_preemption_for_balance_between_satisfied_queues():
    """TestPreemptionForQueueWithPriorities.testPriorityPreemptionForBalanceBetweenSatisfiedQueues:
    with balancing on, b and c both at their guarantee (ideal 30 and 40 at first), c's higher
    priority puts it first among the most under-served and it gets the 30 left: 10 from app1
    (b), none from app2."""
    queues = "root(=[100 100 100 100]);-a(=[30 100 0 0]){priority=1};-b(=[30 100 40 50]){priority=1};" \
             "-c(=[40 100 60 25]){priority=2}"
    apps = "b\t(1,1,n1,,40,false);c\t(1,1,n1,,60,false)"
    assert edit_schedule(build_env("=100,true", queues, apps), BALANCE) == {"app1": 10}


# ---------------------------------------------------------------------------- the live tree
@pytest.mark.parametrize("policy", ["fifo", "fair"])
def test_live_tree_passes_the_leafs_ordering_policy(policy, monkeypatch):
    """The yarn_capacity plugin tells the monitor each leaf's ordering-policy, which the
    intra-queue selector orders a fair leaf's apps by (``TAFairOrderingComparator``)."""
    from corescheduler.testing import ClusterHarness

    c = "yarn.scheduler.capacity."

    def prop(n: str, v: str) -> str:
        return f"<property><name>{n}</name><value>{v}</value></property>"
    xml = ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "root.a.capacity", "60")
           + prop(c + "root.b.capacity", "40") + prop(c + "root.a.ordering-policy", policy)
           + prop(PREFIX + "intra-queue-preemption.enabled", "true") + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=config,
                       allocations=xml)
    seen: dict[str, str] = {}
    real = ProportionalCapacityPreemption.select

    def spy(self, root, cluster, now):
        seen.update({q.path: q.ordering_policy for q in root.children})
        return real(self, root, cluster, now)
    monkeypatch.setattr(ProportionalCapacityPreemption, "select", spy)
    h.submit(queue="a", user="u1", tasks=2, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    h.preempt()
    assert (seen["root.a"], seen["root.b"]) == (policy, "fifo")


@pytest.mark.parametrize(("policy", "expected"), [("fifo", {"job_0002": 2, "job_0001": 1}), ("fair", {"job_0001": 3})])
def test_live_fair_leaf_is_preempted_from_its_most_used_app_first(policy, expected):
    """``FifoCandidatesSelector`` walks a leaf's apps by ``getPreemptionIterator``, its ordering
    policy's order descending: under ``fifo`` the later app first; under ``fair``
    (``FairOrderingPolicy``: ``FairComparator`` by the memory used, then ``FifoComparator``) the
    app using the most first.  a (fair share 5 of 10) runs job_0001 with 7 and job_0002 with 2;
    b asks for 4, so a gives back 3."""
    from corescheduler.testing import ClusterHarness

    c = "yarn.scheduler.capacity."

    def prop(n: str, v: str) -> str:
        return f"<property><name>{n}</name><value>{v}</value></property>"
    xml = ("<configuration>" + prop(c + "root.queues", "a,b") + prop(c + "root.a.capacity", "50")
           + prop(c + "root.b.capacity", "50") + prop(c + "root.a.ordering-policy", policy)
           + prop(c + "root.a.user-limit-factor", "2") + prop(PREFIX + "natural_termination_factor", "1")
           + prop(PREFIX + "total_preemption_per_round", "1") + "</configuration>")
    config = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "preemption": True}}
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=config,
                       allocations=xml)
    jobs = [h.submit(queue="a", user="u1", tasks=7, resources="1024 mb, 1 vcores")]
    for _ in range(8):
        h.heartbeat("n0000")
    jobs.append(h.submit(queue="a", user="u2", tasks=2, resources="1024 mb, 1 vcores"))
    for _ in range(8):
        h.heartbeat("n0000")
    h.submit(queue="b", user="u3", tasks=4, resources="1024 mb, 1 vcores")
    assert [h.running(j) for j in jobs] == [7, 2]
    h.update()
    h.preempt()
    counts: dict[str, int] = {}
    for t in h.shares()["preemption"]["marked"]:
        counts[h.task(t).job.id] = counts.get(h.task(t).job.id, 0) + 1
    assert counts == expected
