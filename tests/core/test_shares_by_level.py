"""Resource mode computes a tree's shares a level at a time, handing a level's parents to
their policy's ``compute_shares_many`` together: the shares must be exactly those of
one ``compute_shares`` call per parent (YARN's ``recomputeShares`` walk)."""

from __future__ import annotations

import random

import attrs
import pytest

from corescheduler.config import Config
from corescheduler.core.model import RESOURCES, Cluster, JobSpec, TaskSpec
from corescheduler.core.scheduler import Scheduler
from corescheduler.errors import SchedulerStateError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.resources import Resources


def _tree(rng: random.Random, fanout: int = 4, depth: int = 3) -> tuple[str, list[str]]:
    leaves: list[str] = []

    def queue(path: str, name: str, d: int, parent: str) -> str:
        full = f"{path}.{name}"
        weight = rng.choice([1, 1, 2, 0.5, 3.25, 0])
        policy = rng.choice(["fair", "fair", "drf"]) if parent == "drf" else "fair"  # YARN: no drf under fair
        extra = f"<weight>{weight}</weight>"
        if rng.random() < 0.3:
            extra += f"<minResources>{rng.randint(0, 20000)} mb, {rng.randint(0, 20)} vcores</minResources>"
        if rng.random() < 0.3:
            extra += f"<maxResources>{rng.randint(1000, 60000)} mb, {rng.randint(1, 60)} vcores</maxResources>"
        if d == depth:
            leaves.append(full)
            policy = rng.choice(["fair", "drf", "fifo"] if parent == "drf" else ["fair", "fifo"])
            return f'<queue name="{name}">{extra}<schedulingPolicy>{policy}</schedulingPolicy></queue>'
        inner = "".join(queue(full, f"{name}{i}", d + 1, policy) for i in range(fanout))
        return f'<queue name="{name}">{extra}<schedulingPolicy>{policy}</schedulingPolicy>{inner}</queue>'

    xml = (
        "<allocations><defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"
        + "".join(queue("root", f"q{i}", 1, "drf") for i in range(fanout))
        + "</allocations>"
    )
    return xml, leaves


def _scheduler(seed: int) -> Scheduler:
    rng = random.Random(seed)
    xml, leaves = _tree(rng)
    config = Config.from_dict(
        {"scheduler": {"mode": "resources"}, "cluster": {"node_resources": "8192 mb, 8 vcores"}}
    )
    sched = Scheduler(config, Cluster.build(4, 10, 0, 0), parse_allocations(xml, "<test>"), history=False)
    for i, leaf in enumerate(leaves):
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            size = Resources(rng.choice([512, 1024, 4096]), rng.choice([1, 2, 4]))
            sched.submit(JobSpec(tasks=[TaskSpec(duration=5.0, resources=size)] * rng.randint(1, 30),
                                 pool=leaf, user=f"u{i % 5}"), 0.0, update=False)
    return sched


def _shares(sched: Scheduler) -> dict[str, tuple[Resources | None, Resources | None]]:
    out = {q.name: (q.sched.fair_share, q.sched.steady_share) for q in sched._rs.tree.walk()}
    for job in sched.jobs.values():
        out[job.id] = (job.sched[RESOURCES].fair_share, None)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_level_at_once_equals_a_call_per_parent(seed: int) -> None:
    batched = _scheduler(seed)
    batched.update(0.0)
    single = _scheduler(seed)
    plugins = single.plugins
    for name in ("fair", "drf", "fifo"):
        plugins._policies[name] = attrs.evolve(plugins.share_policy(name), compute_shares_many=None)
    single.update(0.0)
    assert _shares(batched) == _shares(single)
    assert any(s[0] is not None and not s[0].is_none() for s in _shares(batched).values())


def test_a_policy_answering_for_the_wrong_number_of_groups_is_named() -> None:
    sched = _scheduler(1)
    plugins = sched.plugins
    policy = plugins.share_policy("fair")
    plugins._policies["fair"] = attrs.evolve(policy, compute_shares_many=lambda groups, steady: [])
    with pytest.raises(SchedulerStateError, match=r"SharePolicy plugin 'fair' \(corescheduler\[fair\]\): "
                                                    r"compute_shares_many returned \[\]"):
        sched.update(0.0)


def test_a_subclass_overriding_only_the_one_group_hook_is_not_bypassed() -> None:
    """A plugin that subclasses ``fair`` and overrides ``compute_shares`` inherits
    ``compute_shares_many``, which knows nothing of the override: the scheduler calls
    the override for every group (found in review)."""
    from corescheduler_plugins.fair import FairSharePolicy

    class Thirds(FairSharePolicy):
        def compute_shares(self, schedulables, total, steady):
            return [Resources(total.memory // 3, 0) for _ in schedulables]

    xml = ("<allocations>" + "".join(f'<queue name="p{i}"><queue name="a"/><queue name="b"/></queue>'
                                     for i in range(3)) + "</allocations>")
    config = Config.from_dict({"scheduler": {"mode": "resources", "share_policy": "thirds"},
                               "cluster": {"node_resources": "8192 mb, 8 vcores"}})
    sched = Scheduler(config, Cluster.build(1, 1, 0, 0), parse_allocations(xml, "<test>"), history=False,
                      extra_plugins={"thirds": Thirds})
    sched.update(0.0)
    tree = sched._rs.tree
    assert tree.queues["root.p0"].sched.steady_share.memory == 8192 // 3
    assert tree.queues["root.p0.a"].sched.steady_share.memory == (8192 // 3) // 3
