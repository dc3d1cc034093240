"""YARN Capacity Scheduler worked cases of Hadoop's ``TestLeafQueue`` (Hadoop 3.3,
``hadoop-yarn-server-resourcemanager/.../scheduler/capacity/TestLeafQueue.java``) through
the public harness, with its ``setupQueueConfiguration`` as a capacity-scheduler.xml
(tests/data/yarn_capacity/test-leaf-queue.xml: root.newroot.{a 8.5 %/20 %, b 80 %/99 %,
c 1.5 %/10 % (c1), d 9 %/11 %, e 1 %/1 %}).

Hadoop's tests call ``LeafQueue.assignContainers`` once per step; here a step is one
heartbeat of the node (one container per heartbeat, as ``assignContainers`` gives), and a
setter (``setUserLimitFactor``, ``setMaxCapacity``) is a reload of the file with that value.
"""

from __future__ import annotations

import re

from paths import DATA

from corescheduler.testing import ClusterHarness, SubmissionRejected

FIXTURE = (DATA / "yarn_capacity" / "test-leaf-queue.xml").read_text()
GB = 1024
CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "pool_resolver": "yarn_capacity"}}


def with_values(xml: str, **values: str) -> str:
    """The fixture with ``queue__key=value`` properties set (``a__user_limit_factor`` →
    ``yarn.scheduler.capacity.root.newroot.a.user-limit-factor``), added or replaced."""
    for name, value in values.items():
        queue, key = name.split("__")
        prop = f"yarn.scheduler.capacity.root.newroot.{queue}.{key.replace('_', '-')}"
        element = f"<property><name>{prop}</name><value>{value}</value></property>"
        pattern = re.compile(rf"<property><name>{re.escape(prop)}</name><value>[^<]*</value></property>")
        xml = pattern.sub(element, xml) if pattern.search(xml) else xml.replace("</configuration>",
                                                                                  f"  {element}\n</configuration>")
    return xml


def harness(xml: str, nodes: int = 1, node: str = "8192 mb, 16 vcores") -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources=node, config=CONFIG, allocations=xml)


def used(h: ClusterHarness, what: str) -> int:
    if what.startswith("root"):
        return int(h.shares()["queues"][what]["usage"]["memory"])
    return int(h.job(what).usage.memory)


def test_single_queue_with_one_user() -> None:
    """``TestLeafQueue.testSingleQueueWithOneUser``: queue a (8.5 %, maximum 100 %) on one
    8 GB node, user_0's app_0 asks 3 × 1 GB and app_1 2 × 1 GB.  1 GB, then 2 GB ("you can
    get one container more than user-limit": the limit is 0.085 × 8 GB rounded up to the
    1 GB minimum allocation), then no more; with user-limit-factor 10, 3 GB for app_0 and
    1 GB for app_1; with maximum-capacity 50 % nothing more; app_0's containers released:
    1 GB."""
    xml = with_values(FIXTURE, a__maximum_capacity="100")
    h = harness(xml)
    app_0 = h.submit(queue="a", user="user_0", tasks=3, resources="1024 mb, 1 vcores")
    app_1 = h.submit(queue="a", user="user_0", tasks=2, resources="1024 mb, 1 vcores")
    assert h.queue_of(app_0) == "root.newroot.a"
    steps = []
    for _ in range(3):
        h.heartbeat("n0000")
        h.update()
        steps.append((used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)))
    assert steps == [(1 * GB, 1 * GB, 0), (2 * GB, 2 * GB, 0), (2 * GB, 2 * GB, 0)]
    h.set_allocations(with_values(xml, a__user_limit_factor="10"))  # a.setUserLimitFactor(10)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (3 * GB, 3 * GB, 0)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (4 * GB, 3 * GB, 1 * GB)
    h.set_allocations(with_values(xml, a__user_limit_factor="10", a__maximum_capacity="50"))  # setMaxCapacity(0.5)
    h.heartbeat("n0000")
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (4 * GB, 3 * GB, 1 * GB)
    for task in [t for t in h.scheduler._running_tasks.values() if t.job is app_0]:
        h.finish(task)
    h.update()
    assert (used(h, "root.newroot.a"), used(h, app_0.id), used(h, app_1.id)) == (1 * GB, 0, 1 * GB)


def test_acl_and_unknown_queue_refusals() -> None:
    """``setupQueueConfiguration``'s ACLs: d admits only user_d once root's administer ACL
    (default ``*``, and administer implies submit: ``CapacityScheduler.checkAccess``) is
    closed too; an unknown queue and a parent queue are refused
    (``CapacityScheduler.addApplication``)."""
    open_root = harness(FIXTURE)
    open_root.submit(queue="d", user="user_0", tasks=1, resources="1024 mb, 1 vcores")  # root administers: *
    closed = FIXTURE.replace("</configuration>", "<property><name>yarn.scheduler.capacity.root."
                             "acl_administer_queue</name><value> </value></property></configuration>")
    h = harness(closed)
    h.submit(queue="d", user="user_d", tasks=1, resources="1024 mb, 1 vcores")
    for queue, user in (("d", "user_0"), ("nosuch", "user_0"), ("c", "user_0"), ("c1", "user_0")):
        try:
            h.submit(queue=queue, user=user, tasks=1, resources="1024 mb, 1 vcores")
        except SubmissionRejected:
            continue
        raise AssertionError(f"{queue} accepted {user}")
