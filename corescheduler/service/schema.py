"""The job document's schema for the OpenAPI description (``POST /jobs``), as pydantic models.

The service checks a job with :func:`corescheduler.service.jobs.parse_job` (one error naming
the field, ``maps[2].call``); these models only describe the same document, so that clients
and the API fuzz (``tests/service/test_api_fuzz.py``) know what a valid job is.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

#: a name: no control character (NUL, newline, ...)
NAME = r"^[^\x00-\x1f\x7f-\x9f]*$"
#: a name that is not only white space
POOL = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
Priority = Literal["VERY_LOW", "LOW", "NORMAL", "HIGH", "VERY_HIGH"]
#: a string without NUL (argv, environment values, paths)
NoNul = Annotated[str, StringConstraints(pattern=r"^[^\x00]*$")]
#: an environment variable's name: non-empty, no "=" and no NUL
EnvName = Annotated[str, StringConstraints(min_length=1, pattern=r"^[^=\x00]+$")]
Node = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=NAME)]
#: a resource size, "2048 mb, 1 vcores" (resource mode only)
SIZE = r"^[0-9]{1,7} ?mb, ?[0-9]{1,4} ?vcores$"


class _Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_nodes: list[Node] = Field(default=[], description="Workers (address or name) or hosts holding the input.")
    resources: str | None = Field(default=None, pattern=SIZE,
                                  description="Resource mode only: the task's size, \"2048 mb, 1 vcores\".")
    env: dict[EnvName, NoNul] = Field(default={}, description="Environment variables of the task.")
    cwd: str | None = Field(default=None, min_length=1, pattern=r"^[^\x00]+$",
                            description="The task's working directory.")


class CallTask(_Task):
    """A Python call on a worker."""

    call: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$", description="package.module:function")
    args: list[Any] = []
    kwargs: dict[str, Any] = {}


class CommandTask(_Task):
    """A command (argv) on a worker."""

    command: list[NoNul] = Field(min_length=1, description="argv")


class Job(BaseModel):
    """A job (SPEC §8): maps, optional reduces over every map's result."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=200, pattern=NAME)
    pool: str | None = Field(default=None, min_length=1, max_length=200, pattern=POOL)
    queue: str | None = Field(default=None, min_length=1, max_length=200, pattern=POOL,
                              description="Another name for pool: give one of them (or both the same).")
    priority: Priority = "NORMAL"
    maps: list[CallTask | CommandTask] = Field(min_length=1)
    reduces: list[CallTask | CommandTask] = []
    task_resources: str | None = Field(default=None, pattern=SIZE, description="Resource mode only: every task's size.")
    properties: dict[Annotated[str, StringConstraints(max_length=200, pattern=NAME)], Any] = {}
    timeout: float | None = Field(default=None, gt=0, le=366 * 24 * 3600,
                                  description="Seconds each attempt of its tasks may run (SPEC §8b).")


def job_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """``(schema of a job, its component schemas)``, references under ``#/components/schemas``."""
    schema = _names_by_pattern(Job.model_json_schema(ref_template="#/components/schemas/{model}"))
    components = schema.pop("$defs", {})
    components["Job"] = schema
    return {"$ref": "#/components/schemas/Job"}, components


def _names_by_pattern(schema: Any) -> Any:
    """pydantic says a constrained key as ``patternProperties`` (which lets other keys pass):
    say it as ``propertyNames`` with the pattern, and the value as ``additionalProperties``."""
    if isinstance(schema, list):
        return [_names_by_pattern(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _names_by_pattern(v) for k, v in schema.items()}
    patterns = out.pop("patternProperties", None)
    if isinstance(patterns, dict) and len(patterns) == 1:
        (pattern, value), = patterns.items()
        out["propertyNames"] = {**out.get("propertyNames", {}), "pattern": pattern}
        out["additionalProperties"] = value
    elif patterns is not None:
        out["patternProperties"] = patterns
    return out
