"""Faulty plugins: each answers one hook with a bad value, or misbehaves otherwise.

The value comes from the plugin's ``[plugins.NAME] answer`` setting, so one class
serves many cases; TOML cannot write every value, so strings starting with ``@``
name the others (:data:`SPECIAL`).  ``tests/framework/test_hook_answers.py`` installs
these as the entry points of a distribution (``cs-faulty``) and runs them through the
command line, and hands them to the test harness in-process.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from corescheduler.core.model import MAP, PENDING, REDUCE, RESOURCES, RUNNING, PreemptionPlan
from corescheduler.core.policy import SharePolicy
from corescheduler.hookspecs import hookimpl
from corescheduler.resources import Resources

SPECIAL: dict[str, Any] = {
    "@nan": math.nan,
    "@inf": math.inf,
    "@-inf": -math.inf,
    "@complex": 2 + 1j,
    "@huge": 10**400,
    "@object": object(),
    "@none": None,
    "@dict": {},
    "@surrogate": "\ud800",
    "@control": "a\x01b",
    "@decimal_nan": Decimal("NaN"),
    "@negative_resources": Resources(memory=-5, vcores=1),
    "@plan_str_count": PreemptionPlan(count="3"),  # type: ignore[arg-type]
    "@plan_bool_count": PreemptionPlan(count=True),  # type: ignore[arg-type]
    "@plan_negative_allowance": PreemptionPlan(count=1, allowance={"a": -1}),
    "@plan_one": PreemptionPlan(count=1, allowance={"a": 1, "b": 1}),
}


def decode(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("@") and value in SPECIAL:
        return SPECIAL[value]
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


class _Answers:
    def __init__(self, settings: dict[str, Any]) -> None:
        self.answer = decode(settings.get("answer"))


# --------------------------------------------------------------------------- share policies


class EvenShares(_Answers, SharePolicy):
    """A plain share policy: equal shares, ordered by name (both modes)."""

    @hookimpl
    def cs_share_policy(self) -> SharePolicy:
        return self

    def even(self, schedulables: Any, capacity: Any) -> list[Any]:
        n = len(schedulables)
        if isinstance(capacity, Resources):
            return [Resources(memory=capacity.memory // max(n, 1), vcores=capacity.vcores // max(n, 1))] * n
        return [capacity / n] * n if n else []

    def compute_shares(self, schedulables: Any, total: Any, steady: bool) -> Any:
        return self.even(schedulables, total)

    def order_key(self, s: Any) -> Any:
        return (s.name,)


class Shares(EvenShares):
    """compute_shares: ``answer`` for every schedulable (``answer`` a list: the whole answer)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        self.whole = bool(settings.get("whole", False))

    def compute_shares(self, schedulables: Any, total: Any, steady: bool) -> Any:
        answer = self.answer
        if type(answer) is str and answer == "@huge_memory":  # refused where it is made
            answer = Resources(memory=10**400, vcores=1)
        elif type(answer) is str and answer == "@long_overflow":  # a sum past a Java long
            answer = Resources(memory=2**62, vcores=1) + Resources(memory=2**62, vcores=1)
        return answer if self.whole else [answer] * len(schedulables)


class NextKind(EvenShares):
    def next_kind(self, node: Any) -> Any:
        return self.answer


class Admit(EvenShares):
    def admit_job(self, job: Any, kind: str, now: float) -> Any:
        return self.answer


class Key(EvenShares):
    """order_key: ``answer``; ``"@mixed"``: keys that do not compare (a tuple, then a str);
    ``"@nan_tuple"``: ``(nan, name)`` for a schedulable with an odd running count, else
    ``(running, name)`` (running: vcores in resource mode); ``per_name = true``: ``answer``
    for the job or pool ``b1``/``b``
    only (the others ``(name,)``), so a one-item order holds it until a second comes."""

    calls = 0

    def __init__(self, settings: dict[str, Any]) -> None:
        super().__init__(settings)
        self.per_name = bool(settings.get("per_name", False))

    def order_key(self, s: Any) -> Any:
        schedulable = s
        if type(self.answer) is str and self.answer == "@mixed":
            Key.calls += 1
            return (schedulable.name,) if Key.calls % 2 else schedulable.name
        if type(self.answer) is str and self.answer == "@nan_tuple":
            running = schedulable.running
            running = running.vcores if isinstance(running, Resources) else running
            return (math.nan if running % 2 else float(running), schedulable.name)
        if self.per_name and schedulable.name not in ("b1", "b", "root.b"):
            return (schedulable.name,)
        return self.answer


def _running(pools: Any, kind: str) -> list[Any]:
    """The running tasks of ``kind`` of the pools' (slot mode) jobs."""
    return [t for s in pools for job in s.owner.jobs.values() for t in job.tasks.get(kind, [])
            if t.state == RUNNING]


class Plan(EvenShares):
    """plan_preemption: ``answer``; ``"@plan_all_victims"``: count 1, every running task
    of the kind as victims; ``"@plan_foreign"``: count 1, a copy of a running task (the same
    id, another object: as another scheduler's task)."""

    def plan_preemption(self, pools: Any, kind: str, now: float) -> Any:
        if type(self.answer) is str and self.answer in ("@plan_all_victims", "@plan_foreign"):
            running = _running(pools, kind)
            if len(running) < 2:
                return None
            if self.answer == "@plan_all_victims":
                return PreemptionPlan(count=1, victims=tuple(running))
            task = running[0]  # another object with the same id (a compiled Task cannot be copied)
            return PreemptionPlan(count=1, victims=(type(task)(task.id, task.job, task.kind, task.index),))
        return self.answer


# --------------------------------------------------------------------------- the others


class Weight(_Answers):
    @hookimpl
    def cs_adjust_weight(self) -> Any:
        return self.answer


class Assign(_Answers):
    @hookimpl
    def cs_can_assign(self) -> Any:
        return self.answer


class _Load(_Answers):
    @hookimpl
    def cs_can_assign(self) -> Any:
        return None


class Launch(_Load):
    @hookimpl
    def cs_can_launch(self) -> Any:
        return self.answer


class Fits(_Load):
    @hookimpl
    def cs_fits(self) -> Any:
        return self.answer


class Compute(_Load):
    @hookimpl
    def cs_can_compute(self) -> Any:
        return self.answer


class Capacity(_Load):
    @hookimpl
    def cs_node_capacity(self) -> Any:
        return self.answer


class Select(_Answers):
    """cs_select_task: ``answer``; ``"@running"``: a task of the job that runs already;
    ``"@other_kind"``: a pending task of the other kind."""

    @hookimpl
    def cs_select_task(self, job: Any, kind: str) -> Any:
        if self.answer == "@running":
            running = [t for t in job.tasks.get(kind, []) if t.state == RUNNING]
            return running[0] if running else job.pending_task(kind)
        if self.answer == "@other_kind":
            other = REDUCE if kind == MAP else MAP
            pending = [t for t in job.tasks.get(other, []) if t.state == PENDING]
            return pending[0] if pending else "no task of the other kind"
        return self.answer


class _Plain(_Answers):
    @hookimpl
    def cs_select_task(self, job: Any, kind: str) -> Any:
        return job.pending_task(kind)


class SelectHint(_Answers):
    """Takes no task (so every heartbeat walks every job and a quiet one is asked about);
    cs_select_hint: ``answer``."""

    @hookimpl
    def cs_select_task(self) -> Any:
        return None

    @hookimpl
    def cs_select_hint(self) -> Any:
        return self.answer


class Victims(_Answers):
    """cs_select_victims: ``answer``; ``"@all"``: every candidate; ``"@copy"``: a copy of
    the first (the same id, another object)."""

    @hookimpl
    def cs_select_victims(self, candidates: Any) -> Any:
        if self.answer == "@all":
            return list(candidates)
        if self.answer == "@copy":
            if not candidates:
                return None
            task = candidates[0]  # another object with the same id (a compiled Task cannot be copied)
            return [type(task)(task.id, task.job, task.kind, task.index)]
        return self.answer


class Resolver(_Answers):
    @hookimpl
    def cs_resolve_pool(self) -> Any:
        return self.answer


class Known(_Answers):
    @hookimpl
    def cs_resolve_pool(self) -> Any:
        return None

    @hookimpl
    def cs_known_pools(self) -> Any:
        return self.answer


# --------------------------------------------------------------------------- misbehaviour


class Halt(BaseException):
    """A plugin's own BaseException subclass (not an Exception)."""


class Exit(_Plain):
    """A TaskSelector that calls ``sys.exit(3)`` (``answer = "halt"``: raises :class:`Halt`;
    ``"generator_exit"``: GeneratorExit) on its second call, after one launch."""

    calls = 0

    @hookimpl
    def cs_select_task(self, job: Any, kind: str) -> Any:
        Exit.calls += 1
        if Exit.calls % 2:
            return job.pending_task(kind)
        if self.answer == "halt":
            raise Halt("stop")
        if self.answer == "generator_exit":
            raise GeneratorExit("closed")
        raise SystemExit(3)


class ExitListener:
    """A listener that calls ``sys.exit(3)`` when a job is added."""

    @hookimpl
    def cs_job_added(self) -> None:
        raise SystemExit(3)


class Vandal:
    """A listener that writes the scheduler's objects (setting ``what``)."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.what = settings.get("what", "running")

    @hookimpl
    def cs_heartbeat_start(self, node: Any) -> None:
        if self.what == "running":
            node.running[MAP] = 0  # "this node runs nothing": it would take maps for ever
        elif self.what == "running_attr":
            node.running = {MAP: 0, REDUCE: 0}

    @hookimpl
    def cs_job_added(self, job: Any) -> None:
        if self.what == "pool":
            job.pool = None
        elif self.what == "id":
            job.id = "someone else"
        elif self.what == "priority":
            job.priority = "VERY_HIGH"


    @hookimpl
    def cs_task_started(self, task: Any) -> None:
        if self.what == "task_state":
            task.state = PENDING  # "it waits": it would be launched again while it runs
        elif self.what == "task_node":
            task.node = None


#: entry-point name -> class, as the test distribution registers them
ENTRY_POINTS: dict[str, type] = {
    "faulty_shares": Shares,
    "faulty_next_kind": NextKind,
    "faulty_admit": Admit,
    "faulty_key": Key,
    "faulty_plan": Plan,
    "faulty_weight": Weight,
    "faulty_assign": Assign,
    "faulty_launch": Launch,
    "faulty_fits": Fits,
    "faulty_compute": Compute,
    "faulty_capacity": Capacity,
    "faulty_select": Select,
    "faulty_hint": SelectHint,
    "faulty_victims": Victims,
    "faulty_resolver": Resolver,
    "faulty_known": Known,
    "faulty_exit": Exit,
    "faulty_exit_listener": ExitListener,
    "faulty_vandal": Vandal,
}

__all__ = ["ENTRY_POINTS", "RESOURCES", "SPECIAL", "decode"]
