"""More of Hadoop's ``TestApplicationLimits`` (Hadoop 3.3, ``hadoop-yarn-server-resourcemanager/
.../scheduler/capacity/TestApplicationLimits.java``) through the public harness."""

from __future__ import annotations

import pytest

from corescheduler.testing import ClusterHarness, SubmissionRejected

CONFIG = {"scheduler": {"mode": "resources", "share_policy": "yarn_capacity", "pool_resolver": "yarn_capacity"}}


def xml(*props: tuple[str, str]) -> str:
    return "<configuration>" + "".join(
        f"<property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>" for k, v in props
    ) + "</configuration>"


#: ``getConfigurationWithQueueLabels`` without its node labels: root.a 50 % (a1 50, a2 50,
#: a3 0 %), b 50 %, c 0 %, d 0 % (user-limit-factor 0.1); global-queue-max-application 20,
#: a1's maximum-applications 1, the system's 4
LIMITS = [("root.queues", "a,b,c,d"), ("root.a.queues", "a1,a2,a3"), ("root.a.capacity", "50"),
          ("root.b.capacity", "50"), ("root.c.capacity", "0"), ("root.d.capacity", "0"),
          ("root.a.a1.capacity", "50"), ("root.a.a2.capacity", "50"), ("root.a.a3.capacity", "0"),
          ("global-queue-max-application", "20"), ("root.a.a1.maximum-applications", "1"),
          ("root.d.user-limit-factor", "0.1"), ("maximum-applications", "4")]


def test_application_limit_submit() -> None:
    """``TestApplicationLimits.testApplicationLimitSubmit`` (its node labels left out; three
    4 GB nodes): c, of capacity 0, takes an app (its maxApplications is
    global-queue-max-application's 20, not 4 × 0); a1 takes one app and refuses the second
    ("Queue root.a.a1 already has 1 applications"); d takes two of user's apps and refuses
    the third (20 × 100 % × 0.1 = 2 per user: "already has 2 applications from user user");
    with four apps placed, a2 takes user2's app and refuses the next ("Maximum system
    application limit reached")."""
    h = ClusterHarness(racks=1, nodes_per_rack=3, node_resources="4096 mb, 8 vcores", config=CONFIG,
                       allocations=xml(*LIMITS))

    def submit(leaf: str, user: str = "user") -> object:
        return h.submit(queue=leaf, user=user, tasks=1, resources="1024 mb, 1 vcores")

    app1 = submit("c")
    assert h.queue_of(app1) == "root.c"
    h.kill_app(app1)
    submit("a1")
    with pytest.raises(SubmissionRejected, match=r"Queue root\.a\.a1 already has 1 applications, cannot accept"):
        submit("a1")
    submit("d")
    submit("d")
    with pytest.raises(SubmissionRejected, match=r"Queue root\.d already has 2 applications from user user cannot"):
        submit("d")
    submit("a2", "user2")
    with pytest.raises(SubmissionRejected, match="Maximum system application limit reached"):
        submit("a2", "user2")


def test_global_queue_max_application_under_absolute_capacities() -> None:
    """``TestParentQueue.testDeriveCapacityFromAbsoluteConfigurations``' global-queue-max-application
    part: a leaf of absolute capacity takes global-queue-max-application × its share of the
    cluster (``ParentQueue.deriveCapacityFromAbsoluteConfigurations``): a [memory=5120,vcores=5]
    leaf on a 10 GB, 10-vcore cluster with global-queue-max-application 4 takes 2 apps."""
    h = ClusterHarness(racks=1, nodes_per_rack=1, node_resources="10240 mb, 10 vcores", config=CONFIG,
                       allocations=xml(("root.queues", "a,b"), ("root.a.capacity", "[memory=5120,vcores=5]"),
                                       ("root.b.capacity", "[memory=5120,vcores=5]"),
                                       ("global-queue-max-application", "4"),
                                       ("root.a.user-limit-factor", "-1")))
    h.update()
    for _ in range(2):
        h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
    with pytest.raises(SubmissionRejected, match=r"Queue root\.a already has 2 applications"):
        h.submit(queue="a", user="u", tasks=1, resources="1024 mb, 1 vcores")
