"""``metrics.json``: what a simulation run measured (SPEC §5).

A :class:`MetricsCollector` is fed every event dict as it happens
(:meth:`~MetricsCollector.feed`) plus, from the engine, each job's size bin
(:meth:`~MetricsCollector.add_job`) and timeline samples
(:meth:`~MetricsCollector.sample`); it keeps per-job records and per-pool
sums, never the events, so a day-long trace costs memory in jobs, not events.
:meth:`~MetricsCollector.result` gives the ``metrics.json`` dict::

    {"summary": {...}, "jobs": [...], "pools": {...}, "bins": {...}, "timeline": {...}}

Definitions (seconds; "map launches" count re-runs after preemption too):

* ``response_time`` — a job's finish minus its submission; ``mean_…`` and
  ``p95_…`` over finished jobs (p95 interpolated linearly, as numpy's
  default).
* ``makespan`` — the last job finish minus the first submission.
* ``node_locality`` — the fraction of map launches that were node-local;
  ``rack_locality`` — the fraction at least rack-local (node- or rack-local),
  as the delay-scheduling paper reports them.  Per job, ``locality`` counts
  each level separately.
* ``utilization`` — slot-seconds busy (finished work and work lost to
  preemption) over slots × makespan; also per kind.  A reduce holds a reduce
  slot for its whole life, except under a LoadManager that admits the compute
  phase separately (``cs_can_compute``, e.g. ``copy_compute_split``): there
  copying holds no reduce slot, so only compute-phase seconds count
  (``copy_holds_slot=False``; the copy seconds are in
  ``reduce_copy_seconds``).  The timeline's utilisation is sampled the same
  way.
* ``preempted_tasks`` — task_preempt events; ``wasted_seconds`` — the
  seconds those killed attempts had run (a reduce's copy phase included: its
  fetched data is lost too).  Per pool, ``slot_seconds_map`` and
  ``slot_seconds_reduce`` count as ``utilization`` does.
* ``shuffle`` (runs where some job's reduces fetched over the network model,
  ``docs/simulator.md``) — in the summary: bytes fetched by locality (``node``,
  ``rack``, ``off_rack``), ``off_rack_fraction``, the total TND (network
  distance summed over each reduce's feeding maps), the mean WTND per reduce
  (over the reduces that had some input),
  the seconds reduces spent copying, and the reduces counted (each reduce's
  last attempt, the one that finished copying).  Per job the same under
  ``shuffle``, with a row per reduce (``task``, ``node``, ``bytes``, ``tnd``,
  ``wtnd``, ``copy_seconds``).
* ``timeline`` — samples every ``interval`` seconds of each pool's running
  tasks and fair share per kind and of the cluster's utilisation per kind
  (the interval doubles whenever more than ``max_samples`` pile up).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corescheduler.core.model import KINDS, MAP, REDUCE


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0–100) of ``values``, linear interpolation
    between closest ranks (numpy's default); ``None`` for no values."""
    if not values:
        return None
    data = sorted(values)
    pos = (len(data) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    frac = pos - lo
    return data[lo] + (data[hi] - data[lo]) * frac


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _r(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


class _JobRecord:
    __slots__ = ("finish", "id", "locality", "maps", "pool", "reduces", "shuffle", "size_bin", "start", "submit",
                 "user")

    def __init__(self, job_id: str) -> None:
        self.id = job_id
        self.pool: str | None = None
        self.user: str | None = None
        self.size_bin: str | None = None
        self.submit: float | None = None
        self.start: float | None = None
        self.finish: float | None = None
        self.maps = 0
        self.reduces = 0
        self.locality = [0, 0, 0]  # node, rack, off
        self.shuffle: dict[str, tuple[Any, ...]] | None = None  # reduce -> its copy's shuffle row


_LOCALITY_INDEX = {"node": 0, "rack": 1, "off": 2}


class MetricsCollector:
    """Incremental metrics of one run.

    :param total_slots: slots per kind in the cluster (for utilisation).
    :param sample_interval: seconds between timeline samples.
    :param max_samples: the most samples kept; past it the interval doubles
        and every other sample is dropped.
    :param nodes: the cluster's node count (reported in the summary).
    :param copy_holds_slot: whether a reduce's copy phase holds a reduce slot
        (true unless the LoadManager admits the compute phase separately).
    """

    def __init__(
        self,
        total_slots: Mapping[str, int],
        sample_interval: float = 1.0,
        max_samples: int = 1000,
        nodes: int | None = None,
        copy_holds_slot: bool = True,
        resources: Mapping[str, int] | None = None,
    ) -> None:
        self.total_slots = {k: int(total_slots.get(k, 0)) for k in KINDS}
        #: resource mode: the cluster's total of each resource type (``{"memory": MB, "vcores": n}``);
        #: utilisation and the timeline are then per resource type, and shares per queue
        self.resources = dict(resources) if resources else None
        self._lanes: tuple[str, ...] = tuple(self.resources) if self.resources else KINDS
        self.resource_seconds: dict[str, float] = dict.fromkeys(self._lanes, 0.0) if self.resources else {}
        self.pool_resource_seconds: dict[str, dict[str, float]] = {}
        self.copy_holds_slot = copy_holds_slot
        self.nodes = nodes
        self.jobs: dict[str, _JobRecord] = {}
        self.rejected: dict[str, str] = {}
        #: started, unfinished jobs per pool now, and the most a pool ever held at once: job weights
        #: (WeightAdjusters) only divide a pool's share among its jobs, so with at most one job in
        #: every pool they cannot change a decision.  Kept per job event, never per task.
        self._active: dict[str, int] = {}
        self._active_pool: dict[str, str] = {}
        self.pool_peak: dict[str, int] = {}
        self.jobs_done = 0
        self._running: dict[str, tuple[float, str, str]] = {}  # task -> (start, kind, job)
        self._sizes: dict[str, Mapping[str, int]] = {}  # resource mode: task -> its container's size
        self._compute_start: dict[str, float] = {}
        self.busy = {MAP: 0.0, REDUCE: 0.0}
        self.pool_busy: dict[str, list[float]] = {}
        self.starts = {MAP: 0, REDUCE: 0}
        self.finished_tasks = 0
        self.locality = [0, 0, 0]
        self.preempted = 0
        self.wasted = 0.0
        self.copy_seconds = 0.0
        self.first_submit: float | None = None
        self.last_finish: float | None = None
        # timeline
        self.interval = float(sample_interval)
        self.max_samples = max_samples
        self._next_sample = 0.0
        self.times: list[float] = []
        self.util: dict[str, list[float]] = {k: [] for k in self._lanes}
        self.series: dict[str, list[list[float]]] = {}  # pool -> [run map, run reduce, share map, share reduce]
        self._dispatch = {
            "task_start": self._task_start,
            "task_finish": self._task_finish,
            "task_preempt": self._task_preempt,
            "job_submit": self._job_submit,
            "job_start": self._job_start,
            "job_finish": self._job_finish,
            "task_phase": self._task_phase,
            "job_rejected": self._job_rejected,
        }

    # ------------------------------------------------------------------ input
    def add_job(self, job_id: str, *, size_bin: str | None, maps: int, reduces: int) -> None:
        """What the events do not say about a job: its size bin and task counts."""
        rec = self.jobs.get(job_id)
        if rec is None:
            rec = self.jobs[job_id] = _JobRecord(job_id)
        rec.size_bin = size_bin
        rec.maps = maps
        rec.reduces = reduces

    def reject(self, job_id: str, reason: str) -> None:
        """The job was refused by pool placement."""
        self.jobs.pop(job_id, None)
        self.rejected[job_id] = reason

    def _job_rejected(self, e: Mapping[str, Any]) -> None:
        self.reject(e["job"], str(e.get("reason") or "rejected"))

    def feed(self, event: Mapping[str, Any]) -> None:
        """One event dict (SPEC §5); unknown types are ignored.  A
        ``task_phase`` event (compute) counts as :meth:`reduce_phase`."""
        handler = self._dispatch.get(event["type"])
        if handler is not None:
            handler(event)

    def feed_all(self, events: Iterable[Mapping[str, Any]]) -> MetricsCollector:
        for event in events:
            self.feed(event)
        return self

    def shuffle(self, job_id: str, task_id: str, node: str, by_locality: Sequence[float], tnd: float, wtnd: float,
                seconds: float) -> None:
        """A reduce finished fetching its input: bytes by locality (node, rack, off-rack), its
        TND and WTND, and the seconds it copied.  A later attempt of the same reduce
        replaces an earlier one's row."""
        rec = self.jobs.get(job_id)
        if rec is None:
            rec = self.jobs[job_id] = _JobRecord(job_id)
        if rec.shuffle is None:
            rec.shuffle = {}
        rec.shuffle[task_id] = (node, tuple(float(b) for b in by_locality), float(tnd), float(wtnd), float(seconds))

    def reduce_phase(self, task_id: str, time: float) -> None:
        """A reduce finished its copy phase and starts computing."""
        self._compute_start[task_id] = time

    def _task_phase(self, e: Mapping[str, Any]) -> None:
        if e.get("phase") == "compute":
            self._compute_start.setdefault(e["task"], e["time"])

    def _job_submit(self, e: Mapping[str, Any]) -> None:
        rec = self.jobs.get(e["job"])
        if rec is None:
            rec = self.jobs[e["job"]] = _JobRecord(e["job"])
        rec.pool = e.get("pool")
        rec.user = e.get("user")
        rec.submit = e["time"]
        self.pool_busy.setdefault(rec.pool or "default", [0.0, 0.0])
        if self.first_submit is None or e["time"] < self.first_submit:
            self.first_submit = e["time"]

    def _job_start(self, e: Mapping[str, Any]) -> None:
        rec = self.jobs.get(e["job"])
        if rec is not None:
            rec.start = e["time"]
        job_id = e["job"]
        if job_id not in self._active_pool:
            pool = e.get("pool") or (rec.pool if rec is not None else None) or "default"
            self._active_pool[job_id] = pool
            n = self._active[pool] = self._active.get(pool, 0) + 1
            if n > self.pool_peak.get(pool, 0):
                self.pool_peak[pool] = n

    def _job_finish(self, e: Mapping[str, Any]) -> None:
        pool = self._active_pool.pop(e["job"], None)
        if pool is not None:
            self._active[pool] -= 1
        rec = self.jobs.get(e["job"])
        if rec is not None:
            rec.finish = e["time"]
            if e.get("pool") is not None:
                rec.pool = e["pool"]
        self.jobs_done += 1
        self.last_finish = e["time"]

    def _task_start(self, e: Mapping[str, Any]) -> None:
        kind = e["kind"]
        self._running[e["task"]] = (e["time"], kind, e["job"])
        self.starts[kind] = self.starts.get(kind, 0) + 1
        size = e.get("resources")
        if size is not None:
            self._sizes[e["task"]] = size
        locality = e.get("locality")
        if locality is not None:
            i = _LOCALITY_INDEX[locality]
            self.locality[i] += 1
            rec = self.jobs.get(e["job"])
            if rec is not None:
                rec.locality[i] += 1

    def _end(self, e: Mapping[str, Any]) -> float:
        """A task attempt ended: add its slot-seconds; return the seconds it ran."""
        start, kind, job = self._running.pop(e["task"])
        seconds = e["time"] - start
        occupied = seconds
        if kind == REDUCE:
            compute = self._compute_start.pop(e["task"], None)
            if compute is not None:
                self.copy_seconds += compute - start
            if not self.copy_holds_slot:  # only computing holds a reduce slot
                occupied = e["time"] - compute if compute is not None else 0.0
        self.busy[kind] = self.busy.get(kind, 0.0) + occupied
        rec = self.jobs.get(job)
        pool = (rec.pool if rec is not None else None) or "default"
        sums = self.pool_busy.get(pool)
        if sums is None:
            sums = self.pool_busy[pool] = [0.0, 0.0]
        if kind == MAP or kind == REDUCE:
            sums[0 if kind == MAP else 1] += occupied
        size = self._sizes.pop(e["task"], None)
        if size is not None and self.resources is not None:
            per_pool = self.pool_resource_seconds.setdefault(pool, dict.fromkeys(self._lanes, 0.0))
            for name in self._lanes:
                amount = size.get(name, 0) * seconds
                self.resource_seconds[name] += amount
                per_pool[name] += amount
        return seconds

    def _task_finish(self, e: Mapping[str, Any]) -> None:
        self._end(e)
        self.finished_tasks += 1

    def _task_preempt(self, e: Mapping[str, Any]) -> None:
        self.wasted += self._end(e)
        self.preempted += 1

    # ------------------------------------------------------------------ timeline
    def sample(
        self,
        time: float,
        pools: Mapping[str, Sequence[float]],
        final: bool = False,
        occupied: Mapping[str, float] | None = None,
    ) -> float:
        """Record the state at each sample time up to ``time`` (the state is
        constant since the last event); ``pools`` maps a pool name to
        (running maps, running reduces, map fair share, reduce fair share).
        ``occupied``: slots in use per kind for the utilisation timeline
        (default: the pools' running tasks; under a copy/compute split, the
        computing reduces).  Returns the next sample time."""
        while self.times and time - self._next_sample > 2 * self.max_samples * self.interval:
            # a long quiet span: more than max_samples new samples would halve the timeline at
            # this interval anyway, so halve first (the samples kept are the same ones)
            self._halve()
        while self._next_sample <= time:
            self._record(self._next_sample, pools, occupied)
            self._next_sample = (len(self.times)) * self.interval
            if len(self.times) > self.max_samples:
                self._halve()
        if final and (not self.times or self.times[-1] < time):
            self._record(time, pools, occupied)
        return self._next_sample

    def _record(
        self, t: float, pools: Mapping[str, Sequence[float]], occupied: Mapping[str, float] | None = None
    ) -> None:
        n = len(self.times)
        self.times.append(round(t, 3))
        lanes = self._lanes
        run = dict.fromkeys(lanes, 0.0)
        first, second = lanes[0], lanes[1]
        for name, values in pools.items():
            rows = self.series.get(name)
            if rows is None:
                rows = self.series[name] = [[0.0] * n for _ in range(4)]
            for row, v in zip(rows, values):
                row.append(round(float(v), 3))
            run[first] += values[0]
            run[second] += values[1]
        for rows in self.series.values():
            for row in rows:
                if len(row) < n + 1:
                    row.append(0.0)
        if occupied is not None:
            run = {kind: occupied.get(kind, run[kind]) for kind in lanes}
        totals = self.resources if self.resources is not None else self.total_slots
        for kind in lanes:
            total = totals.get(kind, 0)
            self.util[kind].append(round(run[kind] / total, 4) if total else 0.0)

    def _halve(self) -> None:
        self.times = self.times[::2]
        for kind in self._lanes:
            self.util[kind] = self.util[kind][::2]
        for rows in self.series.values():
            rows[:] = [row[::2] for row in rows]
        self.interval *= 2
        self._next_sample = len(self.times) * self.interval

    # ------------------------------------------------------------------ output
    def result(self, end: float | None = None, unfinished: Iterable[str] = ()) -> dict[str, Any]:
        """The ``metrics.json`` dict."""
        jobs_out = []
        shuffle_total = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # node, rack, off bytes, tnd, wtnd sum, copy seconds
        shuffle_reduces = shuffle_fed = 0
        responses: list[float] = []
        by_pool: dict[str, list[float]] = {}
        by_pool_jobs: dict[str, int] = {}
        bins: dict[str, dict[str, Any]] = {}
        for rec in self.jobs.values():
            response = rec.finish - rec.submit if rec.finish is not None and rec.submit is not None else None
            pool = rec.pool or "default"
            by_pool_jobs[pool] = by_pool_jobs.get(pool, 0) + 1
            b = bins.setdefault(rec.size_bin or "all", {"min_maps": rec.maps, "responses": [], "loc": [0, 0, 0],
                                                        "jobs": 0})
            b["jobs"] += 1
            b["min_maps"] = min(b["min_maps"], rec.maps)
            for i in range(3):
                b["loc"][i] += rec.locality[i]
            if response is not None:
                responses.append(response)
                by_pool.setdefault(pool, []).append(response)
                b["responses"].append(response)
            jobs_out.append(
                {
                    "id": rec.id,
                    "pool": rec.pool,
                    "user": rec.user,
                    "size_bin": rec.size_bin,
                    "submit": rec.submit,
                    "start": rec.start,
                    "finish": rec.finish,
                    "response_time": _r(response),
                    "maps": rec.maps,
                    "reduces": rec.reduces,
                    "locality": {"node": rec.locality[0], "rack": rec.locality[1], "off": rec.locality[2]},
                }
            )
            if rec.shuffle:
                job_sums = [0.0] * 6
                rows = []
                fed = 0
                for task_id, (node, by, tnd, wtnd, seconds) in sorted(rec.shuffle.items()):
                    fed += sum(by) > 0
                    for i, value in enumerate((*by, tnd, wtnd, seconds)):
                        job_sums[i] += value
                    rows.append({"task": task_id, "node": node, "bytes": _bytes(by), "tnd": _r(tnd, 4),
                                 "wtnd": _r(wtnd, 4), "copy_seconds": _r(seconds)})
                for i in range(6):
                    shuffle_total[i] += job_sums[i]
                shuffle_reduces += len(rows)
                shuffle_fed += fed
                jobs_out[-1]["shuffle"] = _shuffle_summary(job_sums, len(rows), fed) | {"reduces": rows}
        first = self.first_submit if self.first_submit is not None else 0.0
        last = self.last_finish if self.last_finish is not None else (end if end is not None else first)
        makespan = max(0.0, last - first)
        maps_started = sum(self.locality)
        slots = self.total_slots
        busy_total = self.busy.get(MAP, 0.0) + self.busy.get(REDUCE, 0.0)
        denominator = (slots[MAP] + slots[REDUCE]) * makespan

        def util(busy: float, n: int) -> float | None:
            return _r(busy / (n * makespan), 4) if n and makespan > 0 else None

        unfinished = list(unfinished)
        summary = {
            "makespan": _r(makespan),
            "mean_response_time": _r(mean(responses)),
            "p95_response_time": _r(percentile(responses, 95)),
            "node_locality": _r(self.locality[0] / maps_started, 4) if maps_started else None,
            "rack_locality": _r((self.locality[0] + self.locality[1]) / maps_started, 4) if maps_started else None,
            "utilization": _r(busy_total / denominator, 4) if denominator > 0 else None,
            "map_utilization": util(self.busy.get(MAP, 0.0), slots[MAP]),
            "reduce_utilization": util(self.busy.get(REDUCE, 0.0), slots[REDUCE]),
            "preempted_tasks": self.preempted,
            "wasted_seconds": _r(self.wasted),
            "jobs": len(self.jobs),
            "finished_jobs": len(responses),
            "unfinished_jobs": len(unfinished),
            "rejected_jobs": len(self.rejected),
            "max_jobs_in_a_pool": max(self.pool_peak.values(), default=0),
            "tasks": self.finished_tasks,
            "map_launches": self.starts.get(MAP, 0),
            "reduce_launches": self.starts.get(REDUCE, 0),
            "reduce_copy_seconds": _r(self.copy_seconds),
            "slot_seconds_map": _r(self.busy.get(MAP, 0.0)),
            "slot_seconds_reduce": _r(self.busy.get(REDUCE, 0.0)),
            "nodes": self.nodes,
            "map_slots": slots[MAP],
            "reduce_slots": slots[REDUCE],
            "end_time": _r(end),
        }
        if shuffle_reduces:
            summary["shuffle"] = _shuffle_summary(shuffle_total, shuffle_reduces, shuffle_fed)
        if self.resources is not None:  # resource mode: utilisation per resource type
            per_type = {
                name: (_r(self.resource_seconds[name] / (total * makespan), 4) if total and makespan > 0 else None)
                for name, total in self.resources.items()
            }
            for name, value in per_type.items():
                summary[f"{name}_utilization"] = value
            known = [v for v in per_type.values() if v is not None]
            summary["utilization"] = max(known) if known else None  # the dominant resource's
            summary["resource_seconds"] = {k: _r(v) for k, v in self.resource_seconds.items()}
            summary["cluster_resources"] = dict(self.resources)
            summary["task_launches"] = self.starts.get("task", 0)
            summary["am_launches"] = self.starts.get("am", 0)
            # a node here has resources, not MR1 slots: the slot counts (the [cluster] defaults)
            # and utilisation per slot kind say nothing about it (they gave map_utilization
            # 1.2975 on a full cluster); the task seconds per kind above still hold
            for key in ("map_utilization", "reduce_utilization", "map_slots", "reduce_slots"):
                summary[key] = None
        pools_out = {}
        for name in sorted(set(self.pool_busy) | set(by_pool_jobs)):
            sums = self.pool_busy.get(name, [0.0, 0.0])
            values = by_pool.get(name, [])
            pools_out[name] = {
                "jobs": by_pool_jobs.get(name, 0),
                "mean_response_time": _r(mean(values)),
                "p95_response_time": _r(percentile(values, 95)),
                "slot_seconds_map": _r(sums[0]),
                "slot_seconds_reduce": _r(sums[1]),
                "max_concurrent_jobs": self.pool_peak.get(name, 0),
            }
            if self.resources is not None:
                spent = self.pool_resource_seconds.get(name, {})
                pools_out[name]["resource_seconds"] = {k: _r(spent.get(k, 0.0)) for k in self._lanes}
        bins_out = {}
        for name, b in sorted(bins.items(), key=lambda item: (item[1]["min_maps"], item[0])):
            loc = b["loc"]
            launched = sum(loc)
            bins_out[name] = {
                "jobs": b["jobs"],
                "mean_response_time": _r(mean(b["responses"])),
                "p95_response_time": _r(percentile(b["responses"], 95)),
                "node_locality": _r(loc[0] / launched, 4) if launched else None,
                "rack_locality": _r((loc[0] + loc[1]) / launched, 4) if launched else None,
            }
        timeline = {
            "interval": self.interval,
            "time": list(self.times),
            "utilization": {k: list(v) for k, v in self.util.items()},
            "pools": {
                name: (
                    {"running_map": rows[0], "running_reduce": rows[1], "fair_share_map": rows[2],
                     "fair_share_reduce": rows[3]}
                    if self.resources is None
                    else {"memory": rows[0], "vcores": rows[1], "fair_share_memory": rows[2],
                          "dominant_share": rows[3]}
                )
                for name, rows in sorted(self.series.items())
            },
        }
        out: dict[str, Any] = {
            "summary": summary,
            "jobs": jobs_out,
            "pools": pools_out,
            "bins": bins_out,
            "timeline": timeline,
        }
        if unfinished:
            out["unfinished"] = unfinished
        if self.rejected:
            out["rejected"] = dict(self.rejected)
        return out


def _bytes(by: Sequence[float]) -> dict[str, float]:
    return {"node": round(by[0]), "rack": round(by[1]), "off_rack": round(by[2])}


def _shuffle_summary(sums: Sequence[float], reduces: int, fed: int) -> dict[str, Any]:
    """Bytes by locality, off-rack fraction, total TND, mean WTND (over the ``fed`` reduces
    that had input: one with none has no distance to weigh), copy seconds, reduces."""
    total = sums[0] + sums[1] + sums[2]
    return {
        "bytes": _bytes(sums[:3]),
        "off_rack_fraction": _r(sums[2] / total, 4) if total > 0 else None,
        "tnd": _r(sums[3], 4),
        "wtnd_mean": _r(sums[4] / fed, 4) if fed else None,
        "copy_seconds": _r(sums[5]),
        "reduces": reduces,
    }


def metrics_from_events(
    events: Iterable[Mapping[str, Any]],
    total_slots: Mapping[str, int],
    sizes: Mapping[str, tuple[str, int, int]] = (),
    copy_holds_slot: bool = True,
) -> dict[str, Any]:
    """``metrics.json`` recomputed from an event list (no timeline samples):
    ``sizes`` maps a job id to (size bin, maps, reduces).  For a run under a
    copy/compute split pass ``copy_holds_slot=False``; the events must then
    include ``task_phase`` (``[simulation] phase_events = true``)."""
    collector = MetricsCollector(total_slots, copy_holds_slot=copy_holds_slot)
    for job_id, (size_bin, maps, reduces) in dict(sizes).items():
        collector.add_job(job_id, size_bin=size_bin, maps=maps, reduces=reduces)
    return collector.feed_all(events).result()


__all__ = ["MetricsCollector", "mean", "metrics_from_events", "percentile"]
