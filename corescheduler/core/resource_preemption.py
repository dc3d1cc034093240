"""Resource mode: starvation and preemption (``FSLeafQueue.updateStarvedApps``,
``FSPreemptionThread``, ``FSAppAttempt.canContainerBePreempted``).  Part of
:class:`~corescheduler.core.resource_scheduler.ResourceScheduler`
(:mod:`~corescheduler.core.resource_base`)."""

from __future__ import annotations

from collections.abc import Iterable

from corescheduler.core import hook_answers as answers
from corescheduler.core.hints import Hint
from corescheduler.core.model import (
    MAP,
    PENDING,
    REDUCE,
    RESOURCES,
    RUNNING,
    TASK,
    Job,
    Node,
    Task,
)
from corescheduler.core.policy import SharePolicy
from corescheduler.core.resource_base import NONE, EngineState
from corescheduler.core.resources import Resources

#: seconds after preempting for an app before its starvation is acted on again
#: (YARN's ``yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck``, 10 s)
STARVATION_RECHECK_WAIT = 10.0


class Preemption(EngineState):
    """Which apps are starved, and the containers killed for them."""

    def _below(self, policy: str, usage: Resources, share: Resources) -> bool:
        """``isUsageBelowShare`` with the policy's calculator (``getResourceCalculator``): memory
        (fair, fifo) or dominant share (drf)."""
        return self.owner.plugins.share_policy(policy).calc.less_than(self.cluster_total, usage, share)  # type: ignore[no-any-return]

    def _update_starvation(self, now: float) -> None:
        """``FairScheduler.update`` → ``FSLeafQueue.updateStarvedApps``, only while the cluster is
        used above ``preemption_utilization_threshold`` (``shouldAttemptPreemption``: memory or
        vcores); otherwise no app is starved and no clock moves.  For each leaf, its apps with
        pending demand that are not waiting out a preemption made for them
        (``fetchAppsWithDemand(false)``, ``shouldCheckForStarvation``), in policy order:

        * ``updateStarvedAppsFairshare``: each app's fair-share starvation (below
          ``fairSharePreemptionThreshold`` × its fair share, capped by its demand, for longer than
          ``fairSharePreemptionTimeout``, ``FSAppAttempt.fairShareStarvation``) until the first
          app that has none;
        * the leaf's min-share starvation (below min(min share, demand) for longer than
          ``minSharePreemptionTimeout``) less the sum of those is handed out by
          ``updateStarvedAppsMinshare``: an app is given its pending demand less its fair-share
          starvation; where that is more than what is left (by the policy's measure), it is given
          the difference, and the apps after it nothing."""
        self.starvation = {}
        self._starvation_time = now
        config = self.tree.config
        total = self.cluster_total
        used = self.tree.root.sched.running
        utilization = max((used.get(n) / total.get(n) for n in ("memory-mb", "vcores") if total.get(n) > 0),
                          default=0.0)
        if not utilization > self.settings.preemption_utilization_threshold:
            # a leaf's clock starts when it is made (FSLeafQueue): the leaves are read again only
            # when the tree changed (its version kept under "", a name no queue has)
            at_min = self._at_min_share
            if at_min.get("") != self.tree.version:
                for leaf in self.tree.leaves():
                    at_min.setdefault(leaf.name, now)
                at_min[""] = self.tree.version
            return
        waited = self._preempted_at
        for leaf in self.tree.leaves():
            policy = leaf.policy
            threshold = config.fair_share_preemption_threshold(leaf.name)
            fair_timeout = config.fair_share_preemption_timeout(leaf.name)
            key = self._key_fn(leaf)
            apps = []
            for job in sorted(leaf.runnable_apps, key=lambda j: key(j.sched[RESOURCES])):
                pending = job.sched[RESOURCES].demand - job.usage  # getPendingDemand (may go below 0)
                last = waited.get(job.id)
                if pending.is_none() or (last is not None and now - last < STARVATION_RECHECK_WAIT):
                    continue
                apps.append((job, pending))
            fair_starved: dict[str, Resources] = {}
            fair_total = NONE
            for job, _ in apps:
                js = job.sched[RESOURCES]
                target = (js.fair_share or NONE).multiply_and_round_down(threshold).componentwise_min(js.demand)
                gap = NONE
                if not self._below(policy, job.usage, target):
                    self._at_fair_share[job.id] = now
                elif now - self._at_fair_share.setdefault(job.id, job.submit_time) >= fair_timeout:
                    gap = (target - job.usage).componentwise_max(NONE)
                if gap.is_none():
                    break  # updateStarvedAppsFairshare: the first app not starved ends the walk
                fair_starved[job.id] = gap
                self.starvation[job.id] = gap
                fair_total = fair_total + gap
            s = leaf.sched
            # Resources.min(calculator, …): the smaller of the two vectors by the policy's measure
            desired = s.min_share if not self._below(policy, s.demand, s.min_share) else s.demand
            left = (desired - s.running).componentwise_max(NONE)  # FSLeafQueue.minShareStarvation
            if left.is_none():
                self._at_min_share[leaf.name] = now
                continue
            if now - self._at_min_share.setdefault(leaf.name, now) < config.min_share_preemption_timeout(leaf.name):
                continue
            left = (left - fair_total).componentwise_max(NONE)
            calc = self.owner.plugins.share_policy(policy).calc
            for job, pending in apps:
                if left.is_none():
                    break
                share = (pending - fair_starved.get(job.id, NONE)).componentwise_max(NONE)
                if calc.less_than(total, left, share):  # Resources.greaterThan(share, left)
                    share = (share - left).componentwise_max(NONE)
                    left = NONE
                else:
                    left = (left - share).componentwise_max(NONE)
                if share.any_positive():
                    self.starvation[job.id] = self.starvation.get(job.id, NONE) + share

    def _preemptable(self, task: Task, chosen: dict[str, Resources]) -> bool:
        """``FSAppAttempt.canContainerBePreempted``: its queue allows it (``allowPreemptionFrom``)
        and the app stays at or above its fair share without it (and what is already chosen)."""
        job = task.job
        if job.id in self.starvation:
            return False
        leaf = self.tree.queues.get(job.queue or "")
        if leaf is None or not self.tree.config.preemptable(leaf.name):
            return False
        after = job.usage - chosen.get(job.id, NONE) - (task.resources or NONE)
        fair = job.sched[RESOURCES].fair_share or NONE
        return not self._below(leaf.policy, after, fair)

    def preemption_due(self, now: float, last: float) -> bool:
        """Every ``[scheduler] preemption_interval``; a root policy with its own monitor
        (``choose_victims``, e.g. the Capacity Scheduler's ``ProportionalCapacityPreemptionPolicy``)
        that answers ``preemption_hint`` paces it: a check is due once the hint's ``until``
        has come (Hadoop's ``SchedulingMonitor`` runs its policy every
        ``getMonitoringInterval()``; the hint says when the next round falls)."""
        callers = self.owner.plugins.share_policy(self.tree.root.policy)
        policy = callers.policy
        fn = callers.preemption_hint
        if fn is not None and type(policy).choose_victims is not SharePolicy.choose_victims:
            hint = fn([q.sched for q in self.tree.root.children.values()], TASK, now)
            if hint is not None:
                if type(hint) is not Hint:
                    hint = answers.hint(self.owner.plugins.who("SharePolicy", self.tree.root.policy),
                                        "preemption_hint", hint)
                return now >= hint.until
        return not now - last < self.settings.preemption_interval

    def preempt_tasks(self, now: float) -> list[Task]:
        """``FSPreemptionThread``: for each starved app, find on some node running containers
        of apps above their fair share whose release (with what the node has free) fits one
        of the app's requests — AM containers only if nothing else will do — kill them, and
        keep what they free on that node for the starved app.  Containers are killed at once
        (YARN warns them first and kills after ``waitTimeBeforeKill``, 15 s)."""
        if not self.settings.preemption:
            return []
        root_policy = self.owner.plugins.share_policy(self.tree.root.policy).policy
        if type(root_policy).choose_victims is not SharePolicy.choose_victims:  # the policy's own monitor
            return self._kill_chosen(root_policy.choose_victims(self.tree.root, self.ledger.running, now), now)
        if self._starvation_time != now:  # an update at this instant has computed it already
            self._update_starvation(now)
        killed: list[Task] = []
        chosen: dict[str, Resources] = {}
        taken: set[str] = set()
        promised: dict[str, Resources] = {}  # node -> room already freed for a starved request
        plan: list[tuple[Node, Job, list[Task]]] = []
        for job_id, starved in list(self.starvation.items()):
            job = self.owner.jobs.get(job_id)
            if job is None:
                continue
            last = self._preempted_at.get(job_id)
            if last is not None and now - last < STARVATION_RECHECK_WAIT:
                continue  # FSAppAttempt.preemptionTriggered: give the freed room time to be used
            self._preempted_at[job_id] = now
            for size in self._starved_requests(job, starved):
                allowed = self._allowed_nodes(job, size) if job.id in self.app_asks else None  # type: ignore[attr-defined]
                victims = self._victims_for(size, chosen, taken, promised, allowed)
                if victims is None:
                    continue
                node, tasks = victims
                promised[node.name] = promised.get(node.name, NONE) + size
                for task in tasks:
                    taken.add(task.id)
                    chosen[task.job.id] = chosen.get(task.job.id, NONE) + (task.resources or NONE)
                plan.append((node, job, tasks))
        for node, job, tasks in plan:  # identified first, killed after (the counts above are of before)
            freed = NONE
            for task in tasks:
                freed = freed + (task.resources or NONE)
            node.preempted_for = [*(node.preempted_for or []), (job, freed)]
            for task in tasks:
                if task.state == RUNNING and task.id in self.ledger.running:  # (an AM's end took its app's)
                    killed.append(self.owner.kill(task.id, now, reason="preempted"))
        if killed:
            self.update(now)
        return killed

    def _kill_chosen(self, chosen: Iterable[Task] | None, now: float) -> list[Task]:
        """Kill the running containers a policy's ``choose_victims`` named (others are skipped)."""
        killed = []
        for task in chosen or ():
            if task.state == RUNNING and task.id in self.ledger.running:
                killed.append(self.owner.kill(task.id, now, reason="preempted"))
        if killed:
            self.update(now)
        return killed

    def _starved_requests(self, job: Job, starved: Resources) -> list[Resources]:
        """``getStarvedResourceRequests``: the app's next requests up to its starvation (at least one)."""
        out: list[Resources] = []
        covered = NONE
        am = self.am_tasks.get(job.id)
        pending: list[Task] = [am] if am is not None and not job.am_running and am.state == PENDING else []
        if not pending and job.id in self.app_asks:  # type: ignore[attr-defined]
            pending = self._pending_in_order(job)  # type: ignore[attr-defined]
        elif not pending:
            for kind in (MAP, REDUCE, TASK):
                if kind == REDUCE and not job.reduces_schedulable:
                    continue
                pending.extend(t for t in job.tasks.get(kind, ()) if t.state == PENDING)
        for task in pending:
            if out and starved.fits_in(covered):  # the starvation is covered
                break
            size = task.resources or NONE
            out.append(size)
            covered = covered + size
        return out

    def _victims_for(
        self, size: Resources, chosen: dict[str, Resources], taken: set[str], promised: dict[str, Resources],
        allowed: set[str] | None = None,
    ) -> tuple[Node, list[Task]] | None:
        """``identifyContainersToPreempt``: the node where the fewest AM containers (then the
        fewest containers) free room for ``size`` (among ``allowed``, the nodes a request
        that does not relax locality names)."""
        best: tuple[int, int, Node, list[Task]] | None = None
        for node in self.owner.cluster.nodes.values():
            if node.capacity is None or not size.fits_in(node.capacity):
                continue
            if allowed is not None and node.name not in allowed:
                continue
            freed = NONE
            for tid in taken:  # what victims chosen for earlier requests free on this node
                t = node.tasks.get(tid)
                if t is not None:
                    freed = freed + (t.resources or NONE)
            # identifyContainersToPreemptOnNode: unallocated less what is reserved (getTotalReserved)
            free = node.available + freed - promised.get(node.name, NONE)
            if node.reserved is not None:
                free = free - (node.reserved.resources or NONE)
            picked: list[Task] = []
            ams = 0
            local = dict(chosen)
            # newest containers first, AM containers last (YARN sorts by priority, AM last)
            running = sorted(
                (t for t in node.tasks.values() if t.id not in taken),
                key=lambda t: (t.is_am, -t.launch_seq),
            )
            for task in running:
                if size.fits_in(free):
                    break
                if not self._preemptable(task, local):
                    continue
                picked.append(task)
                ams += task.is_am
                local[task.job.id] = local.get(task.job.id, NONE) + (task.resources or NONE)
                free = free + (task.resources or NONE)
            if not picked or not size.fits_in(free):
                continue
            candidate = (ams, len(picked), node, picked)
            if best is None or candidate[:2] < best[:2]:
                best = candidate
        return None if best is None else (best[2], best[3])
