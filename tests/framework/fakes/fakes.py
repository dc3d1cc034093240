"""Fake plugins for the framework tests in ``tests/framework/test_plugins.py``.

Each is a small class (or object) handed to ``ClusterHarness(plugins={...})``,
selectable in the config as if it were installed.  They are deliberately
minimal: each exercises one rule of the plugin framework.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from corescheduler.core.model import MAP, NODE_LOCAL, PENDING, Assignment, Job, Node, Task
from corescheduler.hookspecs import hookimpl
from corescheduler.settings import Settings

# --------------------------------------------------------------------------- weight adjusters


class Multiply:
    """WeightAdjuster: weight × ``factor`` (default 3)."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="multiply")
        self.factor = float(s.number("factor", 3.0, minimum=0))
        s.finish()

    @hookimpl
    def cs_adjust_weight(self, job: Job, kind: str, weight: float, now: float) -> float:
        return weight * self.factor


class Add:
    """WeightAdjuster: weight + ``amount`` (default 1); declares only ``weight``."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="add")
        self.amount = float(s.number("amount", 1.0, minimum=0))
        s.finish()

    @hookimpl
    def cs_adjust_weight(self, weight: float) -> float:
        return weight + self.amount


class NoOpinion:
    """WeightAdjuster that returns None: the weight is kept."""

    @hookimpl
    def cs_adjust_weight(self, weight: float) -> None:
        return None


# --------------------------------------------------------------------------- task selectors


class LowestIndex:
    """TaskSelector declaring its parameters in another order than the spec
    (``kind, job``) and leaving out ``node`` and ``now``."""

    @hookimpl
    def cs_select_task(self, kind: str, job: Job) -> Task | None:
        return job.pending_task(kind)


class NodeLocalOnly:
    """TaskSelector that launches a map only on a node holding its input
    (delay scheduling with an infinite wait): other jobs are skipped."""

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str) -> Task | None:
        if kind == MAP:
            return job.pending_map(node, NODE_LOCAL)
        return job.pending_task(kind)


class Exploding:
    """TaskSelector whose hook raises."""

    @hookimpl
    def cs_select_task(self, job: Job, node: Node, kind: str, now: float) -> Task | None:
        raise RuntimeError(f"kaboom on {node.name}")


class ExplodingAdjuster:
    """WeightAdjuster whose hook raises."""

    @hookimpl
    def cs_adjust_weight(self, job: Job) -> float:
        raise ZeroDivisionError("weight of " + job.id)


class Misspelled:
    """A hook name that is not in the spec (``cs_selekt_task``)."""

    @hookimpl
    def cs_selekt_task(self, job: Job, node: Node, kind: str) -> Task | None:
        return job.pending_task(kind)


class WrongArgument:
    """A hook implementation asking for an argument the spec does not have."""

    @hookimpl
    def cs_select_task(self, job: Job, slot: str) -> Task | None:
        return None


class OnlyLoadManager:
    """Implements the LoadManager hook only (not a TaskSelector)."""

    @hookimpl
    def cs_can_assign(self, node: Node, kind: str) -> bool | None:
        return None


class Strict:
    """TaskSelector that reads ``delay`` from its settings (a number ≥ 0)."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        s = Settings(settings, plugin="strict")
        self.delay = float(s.number("delay", 5.0, minimum=0))
        s.finish()

    @hookimpl
    def cs_select_task(self, job: Job, kind: str) -> Task | None:
        for task in job.tasks[kind]:
            if task.state == PENDING:
                return task
        return None


class NoSettings:
    """A plugin whose constructor takes no settings."""

    @hookimpl
    def cs_select_task(self, job: Job, kind: str) -> Task | None:
        return job.pending_task(kind)


# --------------------------------------------------------------------------- listeners


class Recorder:
    """Listener: records every notification hook as ``(hook, details)``.

    Pass an instance (``plugins={"recorder": Recorder()}``) and read
    ``calls`` afterwards; ``log`` (a shared list) records ``(label, hook)``
    to compare the order of several recorders.
    """

    def __init__(self, label: str = "recorder", log: list[tuple[str, str]] | None = None) -> None:
        self.label = label
        self.calls: list[tuple[str, Any]] = []
        self.log = log if log is not None else []

    def _record(self, hook: str, details: Any) -> None:
        self.calls.append((hook, details))
        self.log.append((self.label, hook))

    def hooks(self) -> list[str]:
        return [hook for hook, _ in self.calls]

    def details(self, hook: str) -> list[Any]:
        return [d for h, d in self.calls if h == hook]

    @hookimpl
    def cs_job_added(self, job: Job, now: float) -> None:
        self._record("cs_job_added", (job.id, job.pool, now))

    @hookimpl
    def cs_job_removed(self, job: Job, now: float) -> None:
        self._record("cs_job_removed", (job.id, now))

    @hookimpl
    def cs_update(self, pools: Sequence[Any], now: float) -> None:
        self._record("cs_update", now)

    @hookimpl
    def cs_heartbeat_start(self, node: Node, now: float) -> None:
        self._record("cs_heartbeat_start", (node.name, now))

    @hookimpl
    def cs_task_started(self, task: Task, node: Node, locality: str | None, now: float) -> None:
        self._record("cs_task_started", (task.id, node.name, locality, now))

    @hookimpl
    def cs_heartbeat_end(
        self, node: Node, assignments: Sequence[Assignment], skipped: Sequence[Job], now: float
    ) -> None:
        self._record("cs_heartbeat_end", (node.name, [a.task for a in assignments], [j.id for j in skipped], now))

    @hookimpl
    def cs_task_finished(self, task: Task, node: Node, now: float) -> None:
        self._record("cs_task_finished", (task.id, node.name, now))

    @hookimpl
    def cs_task_preempted(self, task: Task, node: Node, now: float) -> None:
        self._record("cs_task_preempted", (task.id, node.name, now))
