"""The slot engine's heartbeat walk, as a simulator reads it: quiet heartbeats and hints.

A simulator beats every node with a free slot, as Hadoop's TaskTrackers ask for work, but
need not run a heartbeat whose outcome is known (:meth:`SlotWalk.skip_quiet_heartbeat`), nor
beat a node no job wants (parking: :attr:`SlotWalk.can_park`, :meth:`SlotWalk.walk_state`,
:meth:`SlotWalk.take_reach_changes`, :meth:`SlotWalk.map_walk`).  What makes these exact is
the walk the last heartbeat made (``_quiet_at``, ``_map_version``) and the TaskSelector's
hints (``cs_select_hint``), kept here between heartbeats.  Resource mode skips no heartbeat
(:class:`~corescheduler.core.resource_scheduler.ResourceScheduler` answers "no walk").
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from corescheduler.core import hook_answers as answers
from corescheduler.core.blame import plugin_errors
from corescheduler.core.hints import NOT_OFFERED, SKIPPED_AGAIN, Hint
from corescheduler.core.model import KINDS, MAP, REDUCE, Job, Node
from corescheduler.core.slot_pools import SlotPools

if TYPE_CHECKING:
    from corescheduler.core.engine import EngineOwner

__all__ = ["SlotWalk"]


class SlotWalk(SlotPools):
    """The slot engine's walk and hints (the module's docstring)."""

    def __init__(self, owner: EngineOwner, known: list[str]) -> None:
        super().__init__(owner, known)
        #: the cluster's nodes by name (the live dict)
        self.nodes = owner.cluster.nodes

    @plugin_errors
    def skip_quiet_heartbeat(self, node_name: str, now: float) -> bool:
        """If a heartbeat of ``node_name`` at ``now`` would assign nothing and change nothing,
        count it as done (the clock moves to ``now``) and return True; else change nothing and
        return False (the caller then runs the heartbeat).

        Such a heartbeat is one where the last heartbeat walked every job for maps and
        launched nothing (so the TaskSelector saw all of them skipped), no job has joined or
        left those walked since, this node can take no reduce (none pending, or the
        LoadManager says no), and either it can take no map while no job would be walked, or
        the TaskSelector's hint for each of those jobs (``cs_select_hint``, without
        ``SKIPPED_AGAIN``) says it would give none here.  The TaskSelector must implement
        ``cs_select_hint`` and be the only plugin listening to heartbeats; else this always
        returns False."""
        if self._hint is None or self._quiet_at != self._map_version:
            return False
        node = self.nodes[node_name]
        if self.pending_work(REDUCE) > 0 and self._may_assign(node, REDUCE, 0):
            return False
        open_ = self._may_assign(node, MAP, 0)
        job_order = self._job_order
        for ps in self._pool_order[MAP]:
            order = job_order[ps.name][MAP]
            if ps.running >= ps.max_share or not order:
                continue
            if not open_:
                return False  # a heartbeat that walks no job would end the walked jobs' waits
            for js in order:
                job = js.owner
                hint = self._held_hint(job, now)
                if hint is None or SKIPPED_AGAIN in hint.events or job.pending_map(node, hint.level) is not None:
                    return False
        self.owner._tick(now)
        return True

    def _held_hint(self, job: Job, now: float) -> Hint | None:
        """The TaskSelector's hint for ``job``'s maps at ``now``: one asked since the last
        heartbeat, update, launch or release if it still holds at ``now``, else asked now."""
        epoch, changes = self._hint_epoch, self.ledger.changes
        key, hints = self._hints
        job_id = job.id
        if key[0] != epoch or key[1] != changes:
            hints.clear()
            self._hints = ((epoch, changes), hints)
        else:
            held = hints.get(job_id)
            if held is not None and now < held[1]:
                return held[0]  # type: ignore[no-any-return]
        ask = self._any_hint  # the owner's _select_hint, inlined: asked after every heartbeat
        if ask is None:
            return None
        hint = ask(job, MAP, now)
        if hint is None:
            return None
        if type(hint) is not Hint:
            hint = answers.hint(self.owner._who("TaskSelector"), "cs_select_hint", hint)
        until = hint.until
        # it holds before until, give or take the rounding of a float computation
        hints[job_id] = (hint, until - 4097.0 * math.ulp(until) if until < math.inf else math.inf)
        return hint

    @property
    def can_park(self) -> bool:
        """Can a simulator stop beating nodes that no job wants?  The TaskSelector answers
        ``cs_select_hint`` (and is the only plugin listening to heartbeats), the LoadManager
        declares ``empty_nodes_take_tasks`` and has no ``cs_can_launch``, and no pool's share
        policy admits jobs (``cs_admit_job``: a refusal that may end unseen)."""
        return (
            self._hint is not None
            and self._parkable
            and self.plugins.can_launch is None
        )

    @property
    def walk_version(self) -> int:
        """A number that changes whenever the jobs a heartbeat walks for maps may have changed
        (a job enters or leaves its pool's map order, a pool reaches or leaves its cap, an
        update changed the order)."""
        return self._map_version

    @property
    def walk_settled(self) -> bool:
        """Did the last heartbeat walk every job for maps and launch nothing, with the walk
        unchanged since (so the TaskSelector saw every walked job skipped: the premise of
        :meth:`skip_quiet_heartbeat` and of the hints' levels)?"""
        return self._quiet_at == self._map_version

    @property
    def has_reach_changes(self) -> bool:
        """Are there reach changes to take (:meth:`take_reach_changes`)?"""
        return bool(self._reach_changed)

    def walk_state(self) -> tuple[int, bool, bool]:
        """``(walk_version, walk_settled, has_reach_changes)`` in one call: for a simulator that
        reads the three after every event."""
        version = self._map_version
        return version, self._quiet_at == version, bool(self._reach_changed)

    def take_reach_changes(self) -> dict[str, str]:
        """The jobs whose map reach may have widened since the last call, each with the widest
        locality that may have widened it (a map launched at it, or ``"off"`` for a map
        pending again), in the order they changed; and forget them."""
        changed, self._reach_changed = self._reach_changed, {}
        return changed

    def map_walk(self) -> list[Job]:
        """The jobs a heartbeat that finds no map walks: those in the map orders of the
        pools below their cap, in order."""
        job_order = self._job_order
        return [
            js.owner
            for ps in self._pool_order[MAP]
            if ps.running < ps.max_share
            for js in job_order[ps.name][MAP]
        ]

    @plugin_errors
    def preemption_hint(self, now: float) -> float:
        """Until when no preemption check can find anything, as the root share policy's
        ``preemption_hint`` says for every kind (the cluster as it is now, only the clock
        and the starvation times the updates move changing): the earliest ``until`` of the
        kinds; ``-inf`` without the hook or a hint."""
        fn = self.plugins.preemption_hint()
        if fn is None:
            return -math.inf
        until = math.inf
        for kind in KINDS:
            hint = fn([p.sched[kind] for p in self.pools.values()], kind, now)
            if hint is None:
                return -math.inf
            if type(hint) is not Hint:
                hint = answers.hint(self.plugins.who("SharePolicy", self.root_policy.name), "preemption_hint", hint)
            until = min(until, hint.until)
        return until

    def wants_idle_heartbeat(self) -> bool:
        """Would a heartbeat that offers no job a slot change the TaskSelector's answers now?
        True when the hint of a job the last heartbeat skipped names ``NOT_OFFERED`` (or
        there is none): the simulator then delivers the next heartbeat it would skip as
        :meth:`idle_heartbeat` instead.  Cheap: asked once between heartbeats and updates
        (the answer is kept until the next of those, launch or release; the hints it asks
        are :meth:`skip_quiet_heartbeat`'s too)."""
        wants = self._wants
        epoch, changes = self._hint_epoch, self.ledger.changes
        if wants[0][0] == epoch and wants[0][1] == changes:
            return wants[1]
        if not self._passed or self._any_hint is None:  # no job to ask
            self._wants = ((epoch, changes), False)
            return False
        return self._wants_idle()

    @plugin_errors
    def _wants_idle(self) -> bool:
        """:meth:`wants_idle_heartbeat` asked again (the hints of the jobs passed)."""
        key = (self._hint_epoch, self.ledger.changes)
        answer = False
        if self._any_hint is not None:
            jobs = self.jobs
            now = self.owner.now
            for job in self._passed:
                if jobs.get(job.id) is job:
                    hint = self._held_hint(job, now)
                    if hint is None or NOT_OFFERED in hint.events:
                        answer = True
                        break
        self._wants = (key, answer)
        return answer

    def idle_heartbeat(self, node: Node, now: float) -> None:
        """A heartbeat of ``node`` that the caller knows can assign nothing: what the
        heartbeat would do then — ``cs_heartbeat_start`` and no more — without the search."""
        self._quiet_at = -1
        self._hint_epoch += 1
        self._passed = []
        for fn in self.plugins.listeners("cs_heartbeat_start"):
            fn(node, now)
