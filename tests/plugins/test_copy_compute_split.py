"""copy_compute_split (LoadManager): reduces copy in copy slots and compute in
reduce slots (Zaharia et al., UCB/EECS-2009-55 §5)."""

from __future__ import annotations

import pytest

from corescheduler.errors import ConfigError
from corescheduler.testing import ClusterHarness

SPLIT = '[scheduler]\nload_manager = "copy_compute_split"\nassign_multiple = true\n'


def harness(config=SPLIT, **kw):
    return ClusterHarness(racks=1, nodes_per_rack=1, map_slots=1, reduce_slots=1, config=config, **kw)


def kinds(assignments):
    return [(a.job, a.kind) for a in assignments]


def test_copying_reduces_do_not_hold_reduce_slots():
    h = harness()
    long_job = h.submit(maps=4, reduces=4)
    got = h.heartbeat("n0000")
    # one map slot; two copy slots (2 × 1 reduce slot) though only one reduce slot
    assert kinds(got) == [(long_job.id, "map"), (long_job.id, "reduce"), (long_job.id, "reduce")]
    assert h.scheduler.node_capacity("n0000", "reduce") == 3


def test_without_the_split_a_reduce_holds_its_slot_from_launch():
    h = harness(config="[scheduler]\nassign_multiple = true\n")
    job = h.submit(maps=4, reduces=4)
    assert kinds(h.heartbeat("n0000")) == [(job.id, "map"), (job.id, "reduce")]
    assert h.scheduler.node_capacity("n0000", "reduce") == 1


def test_compute_phase_waits_for_a_reduce_slot():
    h = harness()
    h.submit(maps=1, reduces=2)
    m, r1, r2 = h.heartbeat("n0000")
    h.finish(m)
    assert h.copy_done(r1) is True
    assert h.copy_done(r2) is False  # the node's one reduce slot computes r1
    node = h.scheduler.node("n0000")
    assert node.computing == 1 and h.task(r2).phase == "copy"
    h.finish(r1)
    assert node.computing == 0
    assert h.copy_done(r2) is True and h.task(r2).phase == "compute"


def test_small_job_gets_a_reduce_while_a_long_job_copies():
    """The hoarding the split removes: a long job's copying reduces fill the
    reduce slots without the split; with it a later small job still runs."""
    for config, small_gets_reduce in ((SPLIT, True), ("[scheduler]\nassign_multiple = true\n", False)):
        h = ClusterHarness(racks=1, nodes_per_rack=2, map_slots=1, reduce_slots=1, config=config)
        h.submit(maps=10, reduces=2)  # long: its reduces copy until all 10 maps are done
        h.heartbeat("n0000"), h.heartbeat("n0001")
        small = h.submit(maps=0, reduces=1)
        got = h.heartbeat("n0000") + h.heartbeat("n0001")
        assert ((small.id, "reduce") in kinds(got)) is small_gets_reduce


def test_settings_are_validated():
    with pytest.raises(ConfigError, match=r"\[plugins.copy_compute_split\] copy_slots: must be ≥ 0, got -1"):
        harness(config=SPLIT + "[plugins.copy_compute_split]\ncopy_slots = -1\n")
    h = harness(config=SPLIT + "[plugins.copy_compute_split]\ncopy_slots = 5\n")
    assert h.scheduler.node_capacity("n0000", "reduce") == 6
