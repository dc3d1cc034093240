"""The service's job format: every malformed job is refused with the field named."""

from __future__ import annotations

import pytest

from corescheduler.service.jobs import JobFormatError, parse_job


@pytest.mark.parametrize(
    ("doc", "field", "message"),
    [
        ([], None, "a job must be a JSON object"),
        ({"maps": []}, "maps", "at least one map"),
        ({"maps": "x"}, "maps", "expected a list of tasks"),
        ({"maps": [{"call": "x"}]}, "maps[0].call", "package.module:function"),
        ({"maps": [{"call": "m:f", "command": ["x"]}]}, "maps[0]", "exactly one"),
        ({"maps": [{"command": []}]}, "maps[0].command", "non-empty list"),
        ({"maps": [{"command": ["ls"], "args": [1]}]}, "maps[0].args", "takes no args"),
        ({"maps": [{"call": "m:f", "args": {}}]}, "maps[0].args", "JSON array"),
        ({"maps": [{"call": "m:f", "bogus": 1}]}, "maps[0].bogus", "unknown field"),
        ({"maps": [{"call": "m:f"}], "colour": "red"}, "colour", "unknown field"),
        ({"maps": [{"call": "m:f"}], "user": "mallory"}, "user", "comes from the token"),
        ({"maps": [{"call": "m:f"}], "priority": "URGENT"}, "priority", "VERY_HIGH"),
        ({"maps": [{"call": "m:f"}], "pool": ""}, "pool", "non-empty"),
        ({"maps": [{"call": "m:f", "input_nodes": [3]}]}, "maps[0].input_nodes", "worker addresses"),
        ({"maps": [{"call": "m:f", "resources": "lots"}]}, "maps[0].resources", None),
        ({"maps": [{"call": "m:f"}], "reduces": [{"command": "ls"}]}, "reduces[0].command", "argv"),
    ],
)
def test_a_malformed_job_names_its_field(doc, field, message) -> None:
    with pytest.raises(JobFormatError, match=message) as info:
        parse_job(doc)
    assert info.value.field == field


def test_a_good_job() -> None:
    job = parse_job({"name": "wc", "queue": "etl", "priority": "high",
                     "maps": [{"call": "pkg.mod:count", "args": [1], "input_nodes": ["h1"]}],
                     "reduces": [{"command": ["sort"]}]})
    assert (job.name, job.pool, job.priority, len(job.maps), len(job.reduces)) == ("wc", "etl", "HIGH", 1, 1)
    assert job.maps[0].payload()["call"] == "pkg.mod:count"
    assert job.reduces[0].payload()["command"] == ["sort"]
