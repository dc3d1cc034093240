"""The shuffle over the network: where a reduce's input lies and when it has fetched it.

A job that describes its intermediate data (docs/workloads.md, "shuffle") leaves each
finished map's output on the node it ran on; a reduce fetches its partitions one at a time,
in the order their maps finished, each at the bandwidth of where it lies — its own node's
disk, its rack's link or the core — and no partition before its map has finished: a
single-server queue (docs/simulator.md, "The shuffle over the network").  The engine
(:class:`~corescheduler.sim.simulator.Simulation`) tells this model when a map finishes and
a reduce launches, and is told when a reduce's fetch ends, with its shuffle row (bytes by
locality, TND, WTND).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from corescheduler.core.model import MAP, RUNNING, Cluster, Task

#: above this many finished maps a reduce's fetch is computed with numpy, below in plain Python
_NUMPY_FETCH = 48


class _NetJob:
    """A job whose reduces fetch over the network model: its finished maps, in finishing order
    (time, node index, rack index, map index), and the reduces launched before its last map
    (task, attempt, launch time, maps finished at launch)."""

    __slots__ = ("_map_bytes", "arrays", "maps", "matrix", "nodes", "out", "racks", "shares", "times", "waiting")

    def __init__(self, job: Any) -> None:
        spec = job.spec.shuffle
        n_maps, n_reduces = len(job.spec.maps), len(job.spec.reduces)
        self.times: list[float] = []
        self.nodes: list[int] = []
        self.racks: list[int] = []
        self.maps: list[int] = []
        self.out: list[float] = []  # bytes of each finished map's output (shares mode)
        self.waiting: list[tuple[Task, int, float, int]] = []
        self.matrix = spec.matrix
        self.shares = None if spec.matrix is not None else spec.shares(n_reduces)
        #: every map's output with shares (a matrix gives its own sizes; ``out`` is unused then)
        self._map_bytes = spec.map_output(0, n_maps) if spec.matrix is None else 0.0
        self.arrays: tuple[Any, ...] | None = None

    def done(self, t: float, node: int, rack: int, index: int) -> None:
        self.times.append(t)
        self.nodes.append(node)
        self.racks.append(rack)
        self.maps.append(index)
        self.out.append(self._map_bytes)


class ShuffleNetwork:
    """The network model of one simulated cluster: per job with a shuffle description, its
    finished maps' outputs and the reduces waiting for its last map.

    :param cluster: the nodes (their order numbers the nodes, their racks the racks).
    :param cc: the ``[cluster]`` settings (``disk_bandwidth``, ``rack_bandwidth``,
        ``core_bandwidth``, ``network_distances``).
    :param fetched: called as ``fetched(end, task, attempt, row, t0)`` when reduce ``task``
        (that attempt, launched at ``t0``) will have fetched its whole input at ``end``.
    """

    def __init__(self, cluster: Cluster, cc: Any,
                 fetched: Callable[[float, Task, int, tuple[Any, ...], float], None]) -> None:
        self._fetched = fetched
        self._net: dict[str, _NetJob] = {}
        self._node_ix = {name: i for i, name in enumerate(cluster.nodes)}
        rack_ix: dict[str, int] = {}
        self._rack_ix = [rack_ix.setdefault(node.rack, len(rack_ix)) for node in cluster.nodes.values()]
        self._inv_bw = (1.0 / cc.disk_bandwidth, 1.0 / cc.rack_bandwidth, 1.0 / cc.core_bandwidth)
        self._distances = cc.network_distances

    def forget(self, job_id: str) -> None:
        """The job finished: drop what is kept of it."""
        self._net.pop(job_id, None)

    def map_done(self, job: Any, task: Task, node: str, t: float) -> None:
        """A map of a job with a shuffle description finished on ``node``: its output is there;
        after the job's last map, the reduces launched before it learn when their fetch ends."""
        nj = self._net.get(job.id)
        if nj is None:
            nj = self._net[job.id] = _NetJob(job)
        i = self._node_ix[node]
        nj.done(t, i, self._rack_ix[i], task.index)
        if job.complete[MAP] == job.num_maps:
            waiting, nj.waiting = nj.waiting, []
            for reduce, attempt, t0, p0 in waiting:
                if reduce.attempts == attempt and reduce.state == RUNNING:  # else preempted meanwhile
                    self._fetch_end(nj, reduce, attempt, t0, p0)

    def reduce_started(self, task: Task, t: float) -> None:
        """A reduce of a job with a shuffle description launched: it fetches the output of the
        maps finished so far, then of each later one as it finishes (``_fetch_end``)."""
        job = task.job
        nj = self._net.get(job.id)
        if nj is None:
            nj = self._net[job.id] = _NetJob(job)
        if job.complete[MAP] >= job.num_maps:
            self._fetch_end(nj, task, task.attempts, t, len(nj.times))
        else:
            nj.waiting.append((task, task.attempts, t, len(nj.times)))

    def _fetch_end(self, nj: _NetJob, task: Task, attempt: int, t0: float, p0: int) -> None:
        """When reduce ``task`` (launched at ``t0`` after ``p0`` maps had finished) has fetched
        every map's partition: one fetch at a time at the bandwidth of where the partition is
        (its node's disk, its rack's link, the core), in the order the maps finished; a
        partition is fetched no earlier than its map finished.  That is a queue:
        ``end = max(t0 + Σₖ fₖ, maxₖ≥p0 (tₖ + Σⱼ≥ₖ fⱼ))``.  Tells the engine (``fetched``) with the shuffle row
        (bytes by locality, TND, WTND)."""
        node = self._node_ix[task.node]  # type: ignore[index]
        rack = self._rack_ix[node]
        fetch = self._fetch_numpy if len(nj.times) > _NUMPY_FETCH else self._fetch_python
        end, by, tnd, wsum = fetch(nj, task.index, node, rack, t0, p0)
        total = by[0] + by[1] + by[2]
        row = (by, tnd, wsum / total if total > 0 else 0.0)
        self._fetched(end, task, attempt, row, t0)

    def _fetch_python(self, nj: _NetJob, r: int, node: int, rack: int, t0: float,
                      p0: int) -> tuple[float, list[float], float, float]:
        """:meth:`_fetch_end`'s queue and sums, one map at a time: (end, bytes by locality,
        TND, Σ distance × bytes)."""
        inv = self._inv_bw
        d = self._distances
        share = nj.shares[r] if nj.shares is not None else None
        matrix = nj.matrix
        by = [0.0, 0.0, 0.0]
        tnd = wsum = 0.0
        end = t0
        times, nodes, racks, out, maps = nj.times, nj.nodes, nj.racks, nj.out, nj.maps
        for k in range(len(times)):
            size = out[k] * share if share is not None else matrix[maps[k]][r]
            c = 0 if nodes[k] == node else (1 if racks[k] == rack else 2)
            by[c] += size
            if size > 0:
                tnd += d[c]
                wsum += d[c] * size
            if k >= p0 and times[k] > end:
                end = times[k]
            end += size * inv[c]
        return end, by, tnd, wsum

    def _fetch_numpy(self, nj: _NetJob, r: int, node: int, rack: int, t0: float,
                     p0: int) -> tuple[float, list[float], float, float]:
        """:meth:`_fetch_end`'s sums for a job of many maps, vectorised (same queue)."""
        import numpy as np

        arrays = nj.arrays
        if arrays is None:
            matrix = np.asarray(nj.matrix, dtype=float)[nj.maps] if nj.matrix is not None else None
            arrays = nj.arrays = (np.asarray(nj.times), np.asarray(nj.nodes), np.asarray(nj.racks),
                                  np.asarray(nj.out), matrix, np.asarray(self._inv_bw), np.asarray(self._distances))
        times, nodes, racks, out, matrix, inv, dist = arrays
        sizes = out * nj.shares[r] if matrix is None else matrix[:, r]  # type: ignore[index]
        cls = np.where(nodes == node, 0, np.where(racks == rack, 1, 2))
        cost = sizes * inv[cls]
        end = t0 + float(cost[:p0].sum())
        if p0 < len(cost):
            suffix = np.cumsum(cost[p0:][::-1])[::-1]
            end = max(end + float(suffix[0]), float((times[p0:] + suffix).max()))
        by = np.bincount(cls, weights=sizes, minlength=3)
        dd = dist[cls]
        tnd = float(dd[sizes > 0].sum())
        return end, [float(by[0]), float(by[1]), float(by[2])], tnd, float((dd * sizes).sum())


__all__ = ["ShuffleNetwork"]
