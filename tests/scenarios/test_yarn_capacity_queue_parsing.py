"""How a capacity-scheduler.xml's tree is read and checked: Hadoop's ``TestParentQueue``
(``testQueueCapacitySettingChildZero``, ``testQueueCapacitySettingParentZero``,
``testQueueCapacityZero``) and ``TestQueueParsing`` (``testRootQueueParsing``,
``testMaxCapacity``) cases (Hadoop 3.3, ``.../scheduler/capacity/``) through the public
harness: a file Hadoop's ``parseQueue`` refuses is refused with one error naming the key.
"""

from __future__ import annotations

import pytest

from corescheduler.errors import CoreSchedulerError
from corescheduler.testing import ClusterHarness, SubmissionRejected

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity"}}
#: ``TestParentQueue.setupMultiLevelQueues``
MULTI_LEVEL = {
    "root.queues": "a,b,c,d", "root.a.capacity": "10", "root.b.capacity": "50", "root.c.capacity": "19.5",
    "root.d.capacity": "20.5", "root.a.queues": "a1,a2", "root.a.a1.capacity": "50", "root.a.a2.capacity": "50",
    "root.b.queues": "b1,b2,b3", "root.b.b1.capacity": "10", "root.b.b2.capacity": "20",
    "root.b.b3.capacity": "70", "root.c.queues": "c1", "root.c.c1.capacity": "100",
}


def xml(props: dict[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props.items()
    ) + "</configuration>"


def load(props: dict[str, str]) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=1, node_resources="8192 mb, 8 vcores", config=CONFIG,
                          allocations=xml(props))


def test_queue_capacity_setting_child_zero() -> None:
    """``TestParentQueue.testQueueCapacitySettingChildZero``: b (50 %) with children of 0 % is
    refused ("Illegal capacity of 0.0 for children of queue b")."""
    props = {**MULTI_LEVEL, "root.b.b1.capacity": "0", "root.b.b2.capacity": "0", "root.b.b3.capacity": "0"}
    with pytest.raises(CoreSchedulerError, match=r"root\.b\.\*\.capacity: expected .* to sum to 100, got 0"):
        load(props)


def test_queue_capacity_setting_parent_zero() -> None:
    """``TestParentQueue.testQueueCapacitySettingParentZero``: b at 0 % (a at 60 %) while its
    children sum to 100 is refused: a parent of capacity 0 has children of 0."""
    props = {**MULTI_LEVEL, "root.b.capacity": "0", "root.a.capacity": "60"}
    with pytest.raises(CoreSchedulerError, match=r"root\.b\.\*\.capacity: expected .* to be 0, as root\.b's "
                                                 r"capacity is 0, got 100"):
        load(props)


def test_queue_capacity_zero() -> None:
    """``TestParentQueue.testQueueCapacityZero``: b and its children all at 0 %, a at 60 %:
    accepted; b's leaves have no guarantee.  Their maximum-applications default to
    10000 × absolute capacity 0 = 0, so they refuse apps (``LeafQueue.validateSubmitApplication``)
    unless it is set; an app there then runs on idle capacity."""
    props = {**MULTI_LEVEL, "root.b.capacity": "0", "root.b.b1.capacity": "0", "root.b.b2.capacity": "0",
             "root.b.b3.capacity": "0", "root.a.capacity": "60"}
    h = load(props)
    q = h.shares()["queues"]
    assert q["root.b.b1"]["absolute_capacity"] == 0 and q["root.a.a1"]["absolute_capacity"] == pytest.approx(0.3)
    with pytest.raises(SubmissionRejected, match=r"maximum-applications 0"):
        h.submit(queue="b1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h = load({**props, "root.b.b1.maximum-applications": "5"})
    app = h.submit(queue="b1", user="u", tasks=1, resources="1024 mb, 1 vcores")
    h.heartbeat("n0000")
    assert h.job(app).usage.memory == 1024


def test_root_queue_capacity_is_fixed() -> None:
    """``TestQueueParsing.testRootQueueParsing``: root's capacity is 100 whatever the file says
    (``setCapacity(root, 90)`` throws; reading, ``getNonLabeledQueueCapacity`` gives root 100):
    the key is warned about and ignored."""
    h = load({"root.queues": "a,b", "root.capacity": "90", "root.a.capacity": "50", "root.b.capacity": "50"})
    conf = h.scheduler.plugins.instances["yarn_capacity"].conf
    assert conf.queues["root"].capacity == 1.0
    assert any("root's capacity is always 100" in w for w in conf.warnings)


@pytest.mark.parametrize(("maximum", "accepted"), [("60", True), ("45", False), ("-1", True), ("150", False)])
def test_max_capacity(maximum: str, accepted: bool) -> None:
    """``TestQueueParsing.testMaxCapacity``: a maximum-capacity below the capacity (b at 50 %,
    maximum 45 %) or above 100 is refused (``CSQueueUtils.checkMaxCapacity``); −1 is 100 %."""
    props = {"root.queues": "a,b", "root.a.capacity": "50", "root.a.maximum-capacity": "60",
             "root.b.capacity": "50", "root.b.maximum-capacity": maximum}
    if not accepted:
        with pytest.raises(CoreSchedulerError, match=r"root\.b\.maximum-capacity"):
            load(props)
        return
    q = load(props).shares()["queues"]
    assert q["root.b"]["maximum_capacity"] == (1.0 if maximum == "-1" else 0.6)


def test_leaves_of_the_same_name_under_two_parents() -> None:
    """Two leaves named x (root.a.x, root.b.x): the file loads; an app naming the full path is
    placed, one naming the ambiguous short name is refused as unknown
    (``CapacitySchedulerQueueManager.getQueue`` finds no queue for an ambiguous name)."""
    h = load({"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50", "root.a.queues": "x",
              "root.b.queues": "x", "root.a.x.capacity": "100", "root.b.x.capacity": "100"})
    assert h.queue_of(h.submit(queue="root.b.x", user="u", tasks=1, resources="1024 mb, 1 vcores")) == "root.b.x"
    with pytest.raises(SubmissionRejected, match="unknown queue: x"):
        h.submit(queue="x", user="u", tasks=1, resources="1024 mb, 1 vcores")
