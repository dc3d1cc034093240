"""The engine's two generic seams the Capacity Scheduler's locality uses — the TaskSelector's
``cs_select_ask`` and ``SharePolicy.heartbeat_limits`` — and the capacity file's keys for
them.  Hadoop's worked cases are in tests/scenarios/test_yarn_capacity_{leaf,parent}_queue.py."""

from __future__ import annotations

import pytest
from corescheduler_plugins.fair import FairSharePolicy

from corescheduler.core.policy import HeartbeatLimits
from corescheduler.errors import AllocationError, PluginAnswerError
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

GB_ASK = "1024 mb, 1 vcores"


def xml(*props: tuple[str, str]) -> str:
    body = "\n".join(f"  <property><name>yarn.scheduler.capacity.{k}</name><value>{v}</value></property>"
                     for k, v in (("root.queues", "a"), ("root.a.capacity", "100"), *props))
    return f"<configuration>\n{body}\n</configuration>"


def test_reader_keys_and_defaults() -> None:
    """``CapacitySchedulerConfiguration``: node-locality-delay 40, rack-locality-additional-delay
    -1, rack-locality-full-reset true, multiple assignments on, 100 containers and 1
    off-switch a heartbeat (Hadoop 3.3's defaults)."""
    conf = parse_allocations(xml()).policy_config
    assert (conf.node_locality_delay, conf.rack_locality_additional_delay, conf.rack_locality_full_reset,
            conf.multiple_assignments, conf.max_assign_per_heartbeat, conf.offswitch_per_heartbeat) == (
        40, -1, True, True, 100, 1)
    conf = parse_allocations(xml(("rack-locality-full-reset", "false"),
                                 ("per-node-heartbeat.multiple-assignments-enabled", "FALSE"),
                                 ("per-node-heartbeat.maximum-container-assignments", "-1"))).policy_config
    assert (conf.rack_locality_full_reset, conf.multiple_assignments, conf.max_assign_per_heartbeat) == (
        False, False, -1)


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("rack-locality-full-reset", "yes", "true or false"),
    ("per-node-heartbeat.multiple-assignments-enabled", "1", "true or false"),
    ("per-node-heartbeat.maximum-container-assignments", "-2", "a whole number ≥ -1"),
    ("per-node-heartbeat.maximum-container-assignments", "1.5", "a whole number ≥ -1"),
])
def test_reader_refuses_bad_values(key: str, value: str, expected: str) -> None:
    with pytest.raises(AllocationError) as err:
        parse_allocations(xml((key, value)), "cs.xml")
    message = str(err.value)
    assert f"yarn.scheduler.capacity.{key}: expected {expected}" in message and repr(value) in message
    assert "cs.xml:" in message


def _harness(config: dict, allocations: str | None = None, plugins: dict | None = None, nodes: int = 2
             ) -> ClusterHarness:
    return ClusterHarness(racks=1, nodes_per_rack=nodes, node_resources="8192 mb, 8 vcores",
                          config={"scheduler": {"mode": "resources", **config}}, allocations=allocations,
                          plugins=plugins)


def test_yarn_capacity_is_the_default_task_selector() -> None:
    """``share_policy = "yarn_capacity"`` implies its own TaskSelector; ``locality`` (greedy)
    can still be chosen, and then an app asking for another node runs off-switch at once."""
    h = _harness({"share_policy": "yarn_capacity"}, xml())
    assert h.config.scheduler.task_selector == "yarn_capacity"
    app = h.submit_app(queue="a", user="u", requests=[{"resources": GB_ASK, "locations": ["n0001"]}])
    assert h.heartbeat("n0000") == []  # delayed (the priority names a place)
    assert h.scheduler.plugins.instances["yarn_capacity"].scheduling_opportunities(app) == 1
    greedy = _harness({"share_policy": "yarn_capacity", "task_selector": "locality"}, xml())
    greedy.submit_app(queue="a", user="u", requests=[{"resources": GB_ASK, "locations": ["n0001"]}])
    assert [a.locality for a in greedy.heartbeat("n0000")] == ["rack"]


class LastAskFirst:
    """A TaskSelector serving an app's asks in reverse order (to see cs_select_ask obeyed)."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    @hookimpl
    def cs_select_task(self, job, node, kind):  # type: ignore[no-untyped-def]
        return job.pending_task(kind)

    @hookimpl
    def cs_select_ask(self, job, node, asks, nodes):  # type: ignore[no-untyped-def]
        self.seen.append(nodes)
        for ask in reversed(asks):
            task = ask.first_pending()
            if task is not None:
                return task
        return None


def test_cs_select_ask_is_obeyed_and_told_the_cluster_size() -> None:
    selector = LastAskFirst()
    h = _harness({"task_selector": "picker"}, plugins={"picker": selector}, nodes=3)
    h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "priority": 1},
                                                {"resources": "2048 mb, 1 vcores", "priority": 2}])
    (got,) = h.heartbeat("n0000")
    assert got.resources.memory == 2048 and selector.seen == [3]


def test_cs_select_ask_bad_answer_names_the_hook() -> None:
    class Bad(LastAskFirst):
        @hookimpl
        def cs_select_ask(self, job, node, asks, nodes):  # type: ignore[no-untyped-def]
            return "task-1"

    h = _harness({"task_selector": "bad"}, plugins={"bad": Bad()})
    h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "priority": 1}])
    with pytest.raises(PluginAnswerError, match="cs_select_ask"):
        h.heartbeat("n0000")


def test_without_cs_select_ask_the_engine_chooses() -> None:
    """The fair scheduler's default selector has no ``cs_select_ask``: YARN's own order, at once
    (an ask for another node runs rack-local on the first heartbeat), one container a heartbeat."""
    h = _harness({})
    assert h.scheduler.plugins.select_ask is None
    h.submit_app(queue="q", user="u", requests=[{"resources": GB_ASK, "count": 3, "locations": ["n0001"]}])
    assert [a.locality for a in h.heartbeat("n0000")] == ["rack"]


class Limited(FairSharePolicy):
    """fair, with a heartbeat rule of its own (``heartbeat_limits``)."""

    answer: object = HeartbeatLimits(containers=2, off_switch=-1)

    def heartbeat_limits(self):  # type: ignore[no-untyped-def]
        return self.answer


def test_heartbeat_limits_of_the_root_policy() -> None:
    h = _harness({"share_policy": "limited"}, plugins={"limited": Limited()})
    h.submit(queue="q", user="u", tasks=5, resources=GB_ASK)
    assert len(h.heartbeat("n0000")) == 2  # not the harness's assign_multiple = false


@pytest.mark.parametrize("answer", [HeartbeatLimits(0, 1), HeartbeatLimits(1, -2), (1, 1),
                                    HeartbeatLimits(1.5, 1), HeartbeatLimits(True, 1),
                                    HeartbeatLimits(1, 1, "1024 mb"),  # type: ignore[arg-type]
                                    HeartbeatLimits(1, 1, Resources(-1, 0))])
def test_heartbeat_limits_bad_answer_is_refused(answer: object) -> None:
    policy = Limited()
    policy.answer = answer
    with pytest.raises(PluginAnswerError, match="heartbeat_limits"):
        _harness({"share_policy": "limited"}, plugins={"limited": policy})


def test_heartbeat_limits_min_free_skips_a_node_without_room() -> None:
    """``min_free``: before each assignment, a node with less unallocated in a type it names
    (above zero) is offered to no queue — 3 GB: an 8 GB node takes 1 GB containers while it
    has 8, 7, … 3 GB free (six) and stops with 2 GB free, where without the rule it takes
    eight; vcores, named 0, are not asked."""
    for least, taken in ((Resources(3072, 0), 6), (None, 8)):
        policy = Limited()
        policy.answer = HeartbeatLimits(-1, -1, least)
        h = _harness({"share_policy": "limited"}, plugins={"limited": policy})
        h.submit(queue="q", user="u", tasks=10, resources=GB_ASK)
        assert len(h.heartbeat("n0000")) == taken


def test_plugins_table_names_its_three_extension_points() -> None:
    """``corescheduler plugins``: yarn_capacity is a PoolResolver, TaskSelector and SharePolicy;
    the default table shortens that list to fit 100 columns and says so."""
    from cli_helpers import run

    verbose = run("plugins", "--verbose").stdout
    assert any(line.startswith("yarn_capacity") and "PoolResolver, TaskSelector, SharePolicy" in line
               for line in verbose.splitlines())
    lines = run("plugins").stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "(extension points shortened to fit 100 columns: --verbose or --json lists them all)" in lines


def test_defaults_agree_with_the_reader() -> None:
    """The plugin keeps Hadoop's defaults for running without a file (plugins import no
    format reader): the same as the reader's."""
    from corescheduler_plugins import _yarn_capacity_locality as plugin

    from corescheduler.formats import capacity_scheduler_xml as reader

    for name in ("DEFAULT_NODE_LOCALITY_DELAY", "DEFAULT_RACK_LOCALITY_ADDITIONAL_DELAY",
                 "DEFAULT_MAX_ASSIGN_PER_HEARTBEAT", "DEFAULT_OFFSWITCH_PER_HEARTBEAT"):
        assert getattr(plugin, name) == getattr(reader, name)


class MemoryOnlyFits:
    """A LoadManager that fits containers by memory alone (vcores may be overcommitted, as
    under YARN's ``DefaultResourceCalculator``)."""

    @hookimpl
    def cs_can_assign(self, node, kind, load):  # type: ignore[no-untyped-def]
        return None

    @hookimpl
    def cs_fits(self, node, task, resources):  # type: ignore[no-untyped-def]
        return node.used.memory + resources.memory <= node.capacity.memory


def test_heartbeat_limits_min_free_asks_only_the_types_it_names() -> None:
    """``min_free`` names 1 GB and no vcores (the Default calculator's minimum allocation):
    a node whose vcores a LoadManager overcommitted but with memory free is still offered
    (``allocateContainerOnSingleNode``: ``DefaultResourceCalculator.computeAvailableContainers``
    divides memory alone; ``DominantResourceCalculator``'s skips a type whose minimum is 0).
    2-vcore containers on an 8 GB, 8-vcore node: all eight 1 GB containers run, as without
    the rule."""
    for least in (Resources(1024, 0), None):
        policy = Limited()
        policy.answer = HeartbeatLimits(-1, -1, least)
        h = _harness({"share_policy": "limited", "load_manager": "memonly"},
                     plugins={"limited": policy, "memonly": MemoryOnlyFits()})
        h.submit(queue="q", user="u", tasks=10, resources="1024 mb, 2 vcores")
        assert len(h.heartbeat("n0000")) == 8, least
