"""Heartbeats whose outcome is known are counted, not run (issue 15).

``Scheduler.skip_quiet_heartbeat``: after a heartbeat that walked every job for maps and
launched nothing, a later heartbeat of a node no job would give a map (and that can take no
reduce) changes nothing — ``delay`` sums a run of skips as ``now - first skip`` — so the
simulator counts it without running it.  The runs must be the runs: the events with quiet
heartbeats skipped are those of the reference that beats every node with a free slot."""

from __future__ import annotations

import json

import pytest

from corescheduler.config import Config
from corescheduler.formats.allocation_file import parse_allocations
from corescheduler.formats.workloads import Workload
from corescheduler.hookspecs import hookimpl
from corescheduler.sim.simulator import Simulation
from corescheduler.testing import ClusterHarness

CONFIG = """
[scheduler]
task_selector = "delay"
load_manager = "slots"
assign_multiple = true
[plugins.delay]
node_locality_delay = 5.0
rack_locality_delay = 10.0
"""


def harness() -> ClusterHarness:
    h = ClusterHarness(racks=2, nodes_per_rack=2, map_slots=2, reduce_slots=0, config=CONFIG)
    h.advance(0.1)
    return h


def test_a_node_every_job_refuses_is_quiet_until_something_changes() -> None:
    h = harness()
    s = h.scheduler
    h.submit(2, 0, map_locations=[["n0003"], ["n0003"]])  # rack r01; n0000 is on r00
    h.heartbeat("n0003")  # both maps there
    h.submit(1, 0, map_locations=[["n0003"]])
    assert h.heartbeat("n0000") == []  # job 2 waits for n0003: skipped, every job walked
    h.advance(1.0)
    assert s.skip_quiet_heartbeat("n0001", h.clock)  # n0001: nothing local for anyone
    assert s.now == h.clock  # counted: the clock moved as a heartbeat moves it
    # a new job joins the walk: not quiet until a heartbeat has walked it
    h.submit(1, 0, map_locations=[["n0002"]])
    assert not s.skip_quiet_heartbeat("n0001", h.clock)
    assert h.heartbeat("n0001") == []
    assert s.skip_quiet_heartbeat("n0001", h.clock)
    # the node-local node is never quiet; nor, past the node delay, a node on the job's rack
    assert not s.skip_quiet_heartbeat("n0002", h.clock)
    h.advance(5.0)  # job 2 waited 6 s > 5: rack-local allowed; n0002 is on n0003's rack
    assert not s.skip_quiet_heartbeat("n0002", h.clock)


def test_quiet_means_the_same_outcome() -> None:
    """Whatever skip_quiet_heartbeat says True to, a heartbeat would have assigned nothing
    and left the delay state as it was."""
    h = harness()
    s = h.scheduler
    delay = s.plugins.instances["delay"]
    h.submit(2, 0, map_locations=[["n0003"], ["n0003"]])
    h.heartbeat("n0003")
    job = h.submit(1, 0, map_locations=[["n0003"]])
    h.heartbeat("n0000")
    step = 0
    for step in range(30):  # noqa: B007 (read after the loop)
        h.advance(0.5)
        if s.skip_quiet_heartbeat("n0001", h.clock):
            before = repr(delay.state(job.id)).replace(f"waited={delay.state(job.id).waited!r}", "")
            assert h.heartbeat("n0001") == []
            after = repr(delay.state(job.id)).replace(f"waited={delay.state(job.id).waited!r}", "")
            assert before == after
        else:
            break
    # n0001 is on r00 and job 2's input on r01: quiet until the job may run anywhere (15 s)
    assert step > 5
    assert h.heartbeat("n0001")[0].locality == "off"


class _Counter:
    """A Listener plugin that counts heartbeats: skipping one would change its count."""

    def __init__(self, settings: object = None) -> None:
        self.starts = 0

    @hookimpl
    def cs_heartbeat_start(self, node: object, now: float) -> None:
        self.starts += 1


def test_another_heartbeat_listener_turns_it_off() -> None:
    config = CONFIG.replace('load_manager = "slots"', 'load_manager = "slots"\nlisteners = ["counter"]')
    h = ClusterHarness(racks=2, nodes_per_rack=2, config=config, plugins={"counter": _Counter})
    assert h.scheduler.plugins.quiet_heartbeats() is None
    h.advance(0.1)
    h.submit(1, 0, map_locations=[["n0000"]])
    h.heartbeat("n0001")
    assert not h.scheduler.skip_quiet_heartbeat("n0001", h.clock)


def _run(seed: int, quiet: bool) -> list[str]:
    from scenarios.test_fidelity_fair import _fuzz_case  # the random clusters of the skipping fuzz test

    text, alloc, specs = _fuzz_case(seed)
    config = Config.from_toml(text.replace("SKIP", "true"), "<fuzz>")
    workload = Workload(jobs=tuple(specs), source="<fuzz>", name="fuzz")
    sim = Simulation(config, workload, seed, allocations=parse_allocations(alloc))
    counted = [0]
    if not quiet:
        sim._quiet = None
    elif sim._quiet is not None:
        inner = sim._quiet

        def count(name: str, now: float) -> bool:
            skipped = inner(name, now)
            counted[0] += skipped
            return skipped

        sim._quiet = count
    events = [json.dumps(e, separators=(",", ":")) for e in sim.run().event_list]
    return [*events, f"quiet={counted[0]}"]


@pytest.mark.parametrize("seed", range(12))
def test_skipping_quiet_heartbeats_changes_no_event(seed: int) -> None:
    with_quiet, without = _run(seed, True), _run(seed, False)
    assert with_quiet[:-1] == without[:-1]


def test_quiet_heartbeats_are_skipped_on_random_clusters() -> None:
    assert sum(int(_run(seed, True)[-1].split("=")[1]) for seed in range(12)) > 0
