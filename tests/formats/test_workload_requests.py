"""Workload JSON in resource mode: a job's ``requests`` (SPEC §6b), asks as YARN has them —
sizes, counts, locations, relax-locality and priorities — read into plain containers the
resource engine serves as ``FSAppAttempt.assignContainer`` does (issue 28, item 4)."""

from __future__ import annotations

import json

import pytest

from corescheduler.errors import WorkloadError
from corescheduler.formats.workloads import load_workload
from corescheduler.resources import Resources
from corescheduler.testing import ClusterHarness

NODES = {"n0000": "r00", "n0001": "r00", "n0002": "r01", "n0003": "r01"}


def _load(tmp_path, jobs: list[dict]):
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"jobs": jobs}))
    return load_workload(path, nodes=NODES)


def test_requests_become_plain_containers_with_their_places(tmp_path) -> None:
    (job,) = _load(tmp_path, [{"id": "a", "submit": 0, "user": "u", "requests": [
        {"resources": "2048 mb, 1 vcores", "count": 2, "duration": 30, "locations": ["n0002", "/r01"],
         "relax_locality": False, "priority": 1},
        {"resources": "1024 mb, 1 vcores", "duration": 10},
    ]}]).jobs
    assert len(job.tasks) == 3 and not job.maps
    first, _, last = job.tasks
    assert (first.resources, first.input_nodes, first.relax_locality, first.priority, first.duration) == (
        Resources(2048, 1), ("n0002", "/r01"), False, 1, 30.0)
    assert (last.resources, last.input_nodes, last.relax_locality, last.priority) == (Resources(1024, 1), (), True,
                                                                                       None)
    # the engine serves them: asks of the smaller priority first, the rack-bound ask only on r01
    h = ClusterHarness(racks=2, nodes_per_rack=2, node_resources="4096 mb, 4 vcores", allocations="<allocations/>",
                       config={"scheduler": {"mode": "resources"}})
    app = h.scheduler.submit(job, 0.0)
    assert h.heartbeat("n0000")[0].resources == Resources(1024, 1)  # priority 0 (unset) before 1
    assert h.heartbeat("n0001") == []  # the rest may run only on r01
    got = h.heartbeat("n0002") + h.heartbeat("n0003")
    assert [(a.node, a.locality) for a in got] == [("n0002", "node"), ("n0003", "rack")]
    assert h.demand(app)["memory"] == 1024 + 2 * 2048


@pytest.mark.parametrize(("request_", "message"), [
    ({"count": 1}, r"requests\[0\]\.duration: expected a number of seconds > 0"),
    ({"duration": 5, "count": -2}, r"requests\[0\]\.count: expected a whole number ≥ 0"),
    ({"duration": 5, "locations": ["n0099"]}, r"requests\[0\]\.locations: unknown node 'n0099'"),
    ({"duration": 5, "locations": ["/r09"]}, r"requests\[0\]\.locations: unknown rack '/r09'"),
    ({"duration": 5, "locations": ["*"], "relax_locality": False}, "names no node or rack"),
    ({"duration": 5, "priority": 1.5}, r"requests\[0\]\.priority: expected a whole number"),
    ({"duration": 5, "where": "n0000"}, r"unknown key 'where' in a request"),
    ({"duration": 5, "count": 0}, "every request has count 0"),
])
def test_bad_requests_name_the_field(tmp_path, request_: dict, message: str) -> None:
    with pytest.raises(WorkloadError, match=message):
        _load(tmp_path, [{"id": "a", "submit": 0, "user": "u", "requests": [request_]}])


def test_requests_and_tasks_are_one_or_the_other(tmp_path) -> None:
    with pytest.raises(WorkloadError, match="give either requests or tasks"):
        _load(tmp_path, [{"id": "a", "submit": 0, "user": "u", "task_count": 1, "task_duration": 3,
                          "requests": [{"duration": 5}]}])
