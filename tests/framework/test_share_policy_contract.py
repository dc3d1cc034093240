"""The share-policy contract (issue 27 item 2): one :class:`corescheduler.SharePolicy` object
through ``cs_share_policy``; the deprecated hooks of 0.1 through a shim that warns; the core
asks the policy (its calculator, ``allows_child``, ``leaf_only``) instead of naming it."""

from __future__ import annotations

import hashlib
import json
import warnings
from typing import Any, ClassVar

import pytest
from paths import DATA

from corescheduler import SharePolicy
from corescheduler.config import Config
from corescheduler.core.calculator import DOMINANT_CALCULATOR, MEMORY_CALCULATOR, SLOTS, fair_order_key
from corescheduler.core.model import MAP, RESOURCES, Schedulable
from corescheduler.core.policy import DOMINANT, PRIMARY, calculators
from corescheduler.errors import ConfigError, PluginAnswerError, PluginExecutionError
from corescheduler.formats.workloads import load_workload
from corescheduler.hookspecs import hookimpl
from corescheduler.plugin_manager import PluginSet
from corescheduler.resources import Resources
from corescheduler.sim.simulator import Simulation, build_cluster
from corescheduler.testing import ClusterHarness


class OldFair:
    """The ``fair`` policy as a 0.1 plugin wrote it: the six hooks (four of them here)."""

    @hookimpl
    def cs_compute_shares(self, schedulables, capacity, kind, steady):  # type: ignore[no-untyped-def]
        calc = MEMORY_CALCULATOR if kind == RESOURCES else SLOTS
        return calc.fair_shares(schedulables, capacity, steady)

    @hookimpl
    def cs_compute_shares_many(self, groups, kind, steady):  # type: ignore[no-untyped-def]
        return None if kind != RESOURCES else MEMORY_CALCULATOR.fair_shares_many(groups, steady)

    @hookimpl
    def cs_order_key(self, schedulable):  # type: ignore[no-untyped-def]
        calc = MEMORY_CALCULATOR if schedulable.kind == RESOURCES else SLOTS
        return calc.fair_order_key(schedulable)

    @hookimpl
    def cs_admit_job(self, job, kind):  # type: ignore[no-untyped-def]
        OldFair.admitted.append((job.id, kind))

    admitted: ClassVar[list[tuple[str, str]]] = []


def _harness(policy: str, plugins: dict[str, Any], mode: str = "slots") -> ClusterHarness:
    config: dict[str, Any] = {"scheduler": {"share_policy": policy, "mode": mode}}
    if mode == "resources":
        config["cluster"] = {"node_resources": "4096 mb, 4 vcores"}
    return ClusterHarness(racks=1, nodes_per_rack=2, map_slots=2, reduce_slots=0, config=config, plugins=plugins)


@pytest.mark.parametrize("mode", ["slots", "resources"])
def test_a_plugin_on_the_old_hooks_loads_warns_once_and_shares_as_before(mode: str) -> None:
    OldFair.admitted.clear()
    with pytest.warns(DeprecationWarning) as caught:
        old = _harness("old", {"old": OldFair}, mode)
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(messages) == 1
    assert "'old' (<in-process>[old])" in messages[0] and "cs_share_policy()" in messages[0]
    assert "cs_compute_shares → SharePolicy.compute_shares" in messages[0]
    assert "cs_admit_job → SharePolicy.admit_job" in messages[0]
    new = _harness("fair", {}, mode)
    for h in (old, new):
        if mode == "slots":
            h.submit(maps=6, pool="a")
            h.submit(maps=2, pool="b")
        else:
            h.submit_app(queue="a", tasks=6, resources="1024 mb, 1 vcores")
            h.submit_app(queue="b", tasks=2, resources="1024 mb, 1 vcores")
        h.update()
    kind = MAP if mode == "slots" else RESOURCES
    assert ([j.sched[kind].fair_share for j in old.scheduler.jobs.values()]
            == [j.sched[kind].fair_share for j in new.scheduler.jobs.values()])
    assert ([a.job for a in old.heartbeat("n0000")] == [a.job for a in new.heartbeat("n0000")])
    assert OldFair.admitted and OldFair.admitted[0][1] == kind  # the old hook's kind, as in 0.1


def test_an_old_hook_answer_is_checked_and_named_by_method_through_the_shim() -> None:
    class Bad(OldFair):
        @hookimpl
        def cs_compute_shares(self, schedulables, capacity, kind, steady):  # type: ignore[no-untyped-def]
            return [float("nan")] * len(schedulables)

    with pytest.warns(DeprecationWarning):
        h = _harness("bad", {"bad": Bad})
    with pytest.raises(PluginAnswerError, match=r"^SharePolicy plugin 'bad' .*compute_shares returned \[nan\]"):
        h.submit(maps=2)  # its update


def test_a_plugin_with_neither_contract_is_a_config_error_naming_the_hook() -> None:
    class Nothing:
        @hookimpl
        def cs_job_added(self) -> None:
            return None

    with pytest.raises(ConfigError, match=r"share_policy: plugin 'nothing' .*is not a SharePolicy: it does not "
                                          r"implement cs_share_policy \(it has cs_job_added\)"):
        _harness("nothing", {"nothing": Nothing})


def test_half_of_the_old_hooks_is_a_config_error_naming_what_is_missing() -> None:
    class KeyOnly:
        @hookimpl
        def cs_order_key(self, schedulable):  # type: ignore[no-untyped-def]
            return (schedulable.name,)

    with pytest.raises(ConfigError, match=r"'keyonly' .*implements the deprecated cs_order_key but not "
                                          r"cs_compute_shares; a SharePolicy plugin implements cs_share_policy"):
        _harness("keyonly", {"keyonly": KeyOnly})


@pytest.mark.parametrize("answer", [None, "fair", object()])
def test_cs_share_policy_must_answer_a_share_policy(answer: Any) -> None:
    class Wrong:
        @hookimpl
        def cs_share_policy(self) -> Any:
            return answer

    with pytest.raises(PluginAnswerError, match=r"SharePolicy plugin 'wrong' .*cs_share_policy returned "
                                                r".*expected a corescheduler.SharePolicy instance"):
        _harness("wrong", {"wrong": Wrong})


def test_a_failing_cs_share_policy_or_initialize_names_the_plugin() -> None:
    class Broken(SharePolicy):
        @hookimpl
        def cs_share_policy(self) -> SharePolicy:
            return self

        def initialize(self, calcs: Any) -> None:
            raise RuntimeError("no calculator for me")

    with pytest.raises(PluginExecutionError, match=r"SharePolicy plugin 'broken' .*no calculator for me"):
        _harness("broken", {"broken": Broken})


def test_a_policy_without_the_optional_methods_is_asked_none_of_them() -> None:
    class Minimal(SharePolicy):
        @hookimpl
        def cs_share_policy(self) -> SharePolicy:
            return self

        def order_key(self, s: Schedulable) -> Any:
            return (s.start_time, s.name)

        def compute_shares(self, schedulables: Any, total: Any, steady: bool) -> Any:
            return self.calc.fair_shares(schedulables, total, steady)

    h = _harness("minimal", {"minimal": Minimal})
    policy = h.scheduler.root_policy
    assert policy.plan_preemption is None and policy.admit_job is None and policy.next_kind is None
    assert policy.compute_shares_many is None and isinstance(policy.policy, Minimal)
    h.submit(maps=2)
    assert len(h.heartbeat("n0000")) == 1


def test_each_engine_hands_its_calculator_of_the_measure_a_policy_chose() -> None:
    assert calculators("slots") == {PRIMARY: SLOTS, DOMINANT: SLOTS}  # slots are one resource type
    assert calculators("resources") == {PRIMARY: MEMORY_CALCULATOR, DOMINANT: DOMINANT_CALCULATOR}
    cluster = Resources(8192, 8)
    big_cpu, big_mem = Resources(1024, 4), Resources(2048, 1)
    assert MEMORY_CALCULATOR.less_than(cluster, big_cpu, big_mem)  # fair: memory only
    assert DOMINANT_CALCULATOR.less_than(cluster, big_mem, big_cpu)  # drf: 1/4 < 1/2 of the cluster
    assert SLOTS.fair_order_key is fair_order_key
    for name, measure in (("fair", PRIMARY), ("drf", DOMINANT), ("fifo", PRIMARY), ("capacity", PRIMARY)):
        for mode in ("slots", "resources"):
            config = Config.from_dict({"scheduler": {"mode": mode, "share_policy": name}})
            policy = PluginSet(config).root_policy.policy
            assert policy.measure == measure and policy.calc is calculators(mode)[measure], (name, mode)


def test_child_policies_are_the_parents_answer_not_names_in_the_core() -> None:
    class NoFifoKids(SharePolicy):
        @hookimpl
        def cs_share_policy(self) -> SharePolicy:
            return self

        def order_key(self, s: Schedulable) -> Any:
            return (s.name,)

        def compute_shares(self, schedulables: Any, total: Any, steady: bool) -> Any:
            return self.calc.fair_shares(schedulables, total, steady)

        def allows_child(self, child_policy: str) -> bool:
            return child_policy != "fifo"

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing here is deprecated
        h = _harness("fair", {"nokids": NoFifoKids}, "resources")
    allowed = h.scheduler._rs._child_allowed
    assert not allowed("fair", "drf", True)  # YARN FairSharePolicy.isChildPolicyAllowed
    assert allowed("drf", "fair", True) and allowed("fair", "fifo", True)
    assert not allowed("fair", "fifo", False)  # fifo: leaves only (getApplicableDepth)
    assert not allowed("fifo", "fair", True)  # nothing under a fifo queue
    assert allowed("nokids", "drf", False) and not allowed("nokids", "fifo", True)


def test_capacity_in_resource_mode_gives_the_events_pinned_before_it_moved_to_the_contract() -> None:
    """capacity's memory guarantees, lending and YARN user limits (pinned at the commit
    before capacity became a SharePolicy, through the shim: the 0.1 code)."""
    path = DATA / "digests" / "capacity-resources.toml"
    config = Config.from_toml(path.read_text(encoding="utf-8"), str(path))
    workload = DATA / "workloads" / "fb2009-first-400.tsv"  # as tests/sim/test_digest.py runs it
    wl = load_workload(workload, config=config, seed=7, nodes=list(build_cluster(config).nodes))
    events = Simulation(config, wl, 7).run().event_list or []
    blob = "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in events)
    assert hashlib.sha256(blob.encode()).hexdigest() == (
        "b34707695261f675a04614570eca3d15c1104d90d7d9891099cddf6aeb6daca5")
