"""HDFS-style replica placement for map input blocks (:class:`ReplicaPlacer`),
shared by the workload readers and the simulator."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from corescheduler.config import ClusterConfig

# --------------------------------------------------------------------------- replica placement


class ReplicaPlacer:
    """HDFS's default block placement over a fixed set of racks and nodes.

    The first replica goes on a node chosen uniformly at random, the second on
    a random node of another rack, the third on another node of the second
    replica's rack; any further replicas on random nodes not yet used.  With
    one rack all replicas are distinct nodes of it; replication is capped at
    the number of nodes.  Build one placer and call :meth:`place` per block:
    the node lists are prepared once.
    """

    def __init__(self, nodes_by_rack: Mapping[str, Sequence[str]], replication: int = 3) -> None:
        racks = [tuple(nodes) for nodes in nodes_by_rack.values() if len(nodes)]
        self._flat: list[str] = [n for nodes in racks for n in nodes]
        if not self._flat:
            raise ValueError("no nodes to place replicas on")
        if replication < 1:
            raise ValueError(f"replication must be ≥ 1, got {replication}")
        self._start: list[int] = []  # index of each rack's first node in _flat
        self._size: list[int] = []
        self._rack_of: list[int] = []  # rack index of each node in _flat
        pos = 0
        for r, nodes in enumerate(racks):
            self._start.append(pos)
            self._size.append(len(nodes))
            self._rack_of.extend([r] * len(nodes))
            pos += len(nodes)
        self.replication = min(replication, len(self._flat))
        self.racks = len(racks)

    def place(self, rng: random.Random) -> tuple[str, ...]:
        """The nodes holding one block, first replica first."""
        flat, total = self._flat, len(self._flat)
        randrange = rng.randrange
        first = randrange(total)
        want = self.replication
        chosen = [first]
        if want >= 2 and self.racks >= 2:
            r1 = self._rack_of[first]
            size1 = self._size[r1]
            second = randrange(total - size1)  # any node off the first rack
            if second >= self._start[r1]:
                second += size1
            if want == 2:
                return (flat[first], flat[second])
            chosen.append(second)
            r2 = self._rack_of[second]
            size2 = self._size[r2]
            if size2 >= 2:
                start2 = self._start[r2]
                k = randrange(size2 - 1)  # another node of the second rack
                if start2 + k >= second:
                    k += 1
                if want == 3:  # HDFS's default: no set, no loop
                    return (flat[first], flat[second], flat[start2 + k])
                chosen.append(start2 + k)
        used = set(chosen)
        while len(chosen) < want:
            k = rng.randrange(total)
            if k not in used:
                used.add(k)
                chosen.append(k)
        return tuple(flat[k] for k in chosen)


def place_replicas(rng: random.Random, nodes_by_rack: Mapping[str, Sequence[str]], replication: int) -> tuple[str, ...]:
    """The nodes holding one block under HDFS's default placement (see
    :class:`ReplicaPlacer`; build one of those to place many blocks)."""
    return ReplicaPlacer(nodes_by_rack, replication).place(rng)


def _node_racks(nodes: Sequence[str] | Mapping[str, str] | None, cluster: ClusterConfig) -> dict[str, str] | None:
    """``node -> rack`` for the simulated cluster, or None when not given.

    A mapping is taken as ``node -> rack``; a plain sequence of names is taken
    as filled rack by rack (SPEC §5), ``nodes_per_rack`` from ``[cluster]``.
    """
    if nodes is None:
        return None
    if isinstance(nodes, Mapping):
        return {str(n): str(r) for n, r in nodes.items()}
    if isinstance(nodes, str):
        raise TypeError("nodes must be a sequence of node names, not a string")
    per = max(1, cluster.nodes_per_rack)
    return {str(n): f"r{i // per:02d}" for i, n in enumerate(nodes)}


def _by_rack(node_racks: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for node, rack in node_racks.items():
        out.setdefault(rack, []).append(node)
    return out
