"""Deprecated: share policies written against the hooks before ``cs_share_policy``.

Until 0.2 a share policy was six hooks (``cs_compute_shares``, ``cs_compute_shares_many``,
``cs_order_key``, ``cs_admit_job``, ``cs_next_kind``, ``cs_plan_preemption``).  For one
release a plugin that still implements them loads: :class:`HookSharePolicy` wraps its
hooks into a :class:`~corescheduler.core.policy.SharePolicy` and the plugin manager
warns once per plugin with a :class:`DeprecationWarning` naming the plugin and the
replacement.  The hooks stay declared here (not in :mod:`corescheduler.hookspecs`) so
that pluggy still validates their signatures.  To be removed in the release after.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pluggy

from corescheduler.core.model import KINDS, RESOURCES, Schedulable
from corescheduler.core.policy import SharePolicy

#: the old hooks, in the order they were documented
OLD_HOOKS: tuple[str, ...] = (
    "cs_compute_shares", "cs_compute_shares_many", "cs_order_key", "cs_admit_job", "cs_next_kind",
    "cs_plan_preemption",
)
#: the method of :class:`SharePolicy` that replaces each old hook
REPLACEMENT = {
    "cs_compute_shares": "compute_shares", "cs_compute_shares_many": "compute_shares_many",
    "cs_order_key": "order_key", "cs_admit_job": "admit_job", "cs_next_kind": "next_kind",
    "cs_plan_preemption": "plan_preemption",
}

_spec = pluggy.HookspecMarker("corescheduler")


class OldShareHooks:
    """The deprecated hook specifications (signatures as they were)."""

    @_spec(firstresult=True)
    def cs_compute_shares(self, schedulables: Sequence[Schedulable], capacity: Any, kind: str,
                          steady: bool) -> Sequence[Any] | None:
        """Deprecated: :meth:`SharePolicy.compute_shares`."""

    @_spec(firstresult=True)
    def cs_compute_shares_many(self, groups: Sequence[tuple[Sequence[Schedulable], Any]], kind: str,
                               steady: bool) -> Sequence[Sequence[Any]] | None:
        """Deprecated: :meth:`SharePolicy.compute_shares_many`."""

    @_spec(firstresult=True)
    def cs_order_key(self, schedulable: Schedulable) -> Any:
        """Deprecated: :meth:`SharePolicy.order_key`."""

    @_spec(firstresult=True)
    def cs_admit_job(self, job: Any, kind: str, now: float) -> Any:
        """Deprecated: :meth:`SharePolicy.admit_job`."""

    @_spec(firstresult=True)
    def cs_next_kind(self, node: Any) -> str | None:
        """Deprecated: :meth:`SharePolicy.next_kind`."""

    @_spec(firstresult=True)
    def cs_plan_preemption(self, pools: Sequence[Schedulable], kind: str, now: float) -> Any:
        """Deprecated: :meth:`SharePolicy.plan_preemption`."""


def warn(name: str, origin: str, hooks: Sequence[str]) -> None:
    """The one DeprecationWarning for plugin ``name``'s old hooks."""
    moved = ", ".join(f"{h} → SharePolicy.{REPLACEMENT[h]}" for h in hooks)
    warnings.warn(
        f"share policy plugin {name!r} ({origin}) implements the share-policy hooks removed in 0.2 "
        f"({moved}); implement cs_share_policy() returning a corescheduler.SharePolicy instead "
        "(docs/plugin-authors.md). These hooks still work in this release only.",
        DeprecationWarning,
        stacklevel=4,
    )


class HookSharePolicy(SharePolicy):
    """A :class:`SharePolicy` made of a plugin's old hooks (callers with the old signatures,
    as the plugin manager adapts them: each takes the spec's positional arguments)."""

    def __init__(self, hooks: dict[str, Callable[..., Any]], engine: str) -> None:
        self._hooks = hooks
        self._compute = hooks["cs_compute_shares"]
        self._many = hooks.get("cs_compute_shares_many")
        self._plan = hooks.get("cs_plan_preemption")
        self._admit = hooks.get("cs_admit_job")
        self._next = hooks.get("cs_next_kind")
        #: the ``kind`` the old hooks were passed for an empty list (slot mode: per list)
        self._kind = RESOURCES if engine == "resources" else KINDS[0]
        #: which optional methods the plugin had (the engine asks only those)
        self.implemented = {REPLACEMENT[h] for h in hooks}
        # the hooks whose signature did not change are the methods themselves: no extra frame
        self.order_key = hooks["cs_order_key"]  # type: ignore[method-assign]
        if self._plan is not None:
            self.plan_preemption = self._plan  # type: ignore[method-assign]
        if self._admit is not None:
            self.admit_job = self._admit  # type: ignore[method-assign]
        if self._next is not None:
            self.next_kind = self._next  # type: ignore[method-assign]

    def compute_shares(self, schedulables: Sequence[Schedulable], total: Any, steady: bool) -> Sequence[Any]:
        kind = schedulables[0].kind if schedulables else self._kind
        return self._compute(schedulables, total, kind, steady)  # type: ignore[no-any-return]

    def compute_shares_many(self, groups: Sequence[tuple[Sequence[Schedulable], Any]],
                            steady: bool) -> Sequence[Sequence[Any]]:
        if self._many is not None:
            answer = self._many(groups, self._kind, steady)
            if answer is not None:  # None was "not my policy / not this mode": one group at a time
                return answer  # type: ignore[no-any-return]
        return [self.compute_shares(scheds, total, steady) for scheds, total in groups]
