"""The shuffle's geometry: network distance between nodes, and where a reduce's input lies.

A reduce task reads one partition from every map; each partition lives on the
node where its map ran.  CoGRS (Hammoud, Rehman, Sakr, "Center-of-Gravity
Reduce Task Scheduling to Lower MapReduce Network Traffic", IEEE CLOUD 2012)
measures a placement by the network distance its input travels:

* ``ND(a, b)``: 0 on the same node, 2 in the same rack, 4 across racks (the
  paper's values, hop counts of a two-level tree; :data:`DISTANCES`);
* ``TND(R) = Σᵢ ND(nᵢ, R)`` over the nodes ``nᵢ`` feeding reduce ``R``;
* ``WTND(R) = Σᵢ ND(nᵢ, R) × wᵢ``, ``wᵢ`` the share of R's input on ``nᵢ``
  (partitioning skew: a node holding most of the bytes pulls the reduce to it);
* the *center of gravity*: the candidate node with the least WTND.

These are functions of plain values (node → rack, node → bytes) so that the
simulator's shuffle metrics and a reduce TaskSelector compute them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from attrs import field, frozen

#: (same node, same rack, other rack): the paper's network distances
DISTANCES: tuple[float, float, float] = (0.0, 2.0, 4.0)


def network_distance(a: str, b: str, rack_of: Mapping[str, str],
                     distances: tuple[float, float, float] = DISTANCES) -> float:
    """``ND(a, b)``: same node, same rack or other rack (a node with no rack is in a rack of
    its own)."""
    if a == b:
        return distances[0]
    rack_a = rack_of.get(a)
    return distances[1] if rack_a is not None and rack_a == rack_of.get(b) else distances[2]


def total_network_distance(reduce_node: str, feeding: Iterable[str], rack_of: Mapping[str, str],
                           distances: tuple[float, float, float] = DISTANCES) -> float:
    """``TND(R)``: the distances from each feeding node to the reduce's node (a node listed
    twice counts twice, as two maps on it feed the reduce twice)."""
    return sum(network_distance(n, reduce_node, rack_of, distances) for n in feeding)


def weighted_total_network_distance(reduce_node: str, partitions: Mapping[str, float], rack_of: Mapping[str, str],
                                    distances: tuple[float, float, float] = DISTANCES) -> float:
    """``WTND(R) = Σᵢ ND(nᵢ, R) × wᵢ`` with ``wᵢ = bytesᵢ / Σ bytes`` over ``partitions``
    (feeding node → bytes of R's input there); 0 when R has no input yet."""
    total = sum(partitions.values())
    if total <= 0:
        return 0.0
    return sum(network_distance(n, reduce_node, rack_of, distances) * size / total
               for n, size in partitions.items() if size > 0)


def centers_of_gravity(partitions: Mapping[str, float], rack_of: Mapping[str, str],
                       candidates: Iterable[str] | None = None,
                       distances: tuple[float, float, float] = DISTANCES) -> list[str]:
    """The candidate nodes with the least WTND (ties kept, in candidate order); by default
    the candidates are the feeding nodes, as in CoGRS.  Empty if there are none."""
    nodes = list(candidates) if candidates is not None else [n for n, size in partitions.items() if size > 0]
    if not nodes:
        return []
    scored = [(weighted_total_network_distance(n, partitions, rack_of, distances), n) for n in nodes]
    best = min(score for score, _ in scored)
    return [n for score, n in scored if score <= best + 1e-12]


# --------------------------------------------------------------------------- partition sizes
def reduce_shares(n_reduces: int, skew: float = 0.0) -> list[float]:
    """Each reduce's share of every map's output: equal (``skew`` 0, a uniform partitioner on
    well-spread keys) or Zipf (reduce ``r`` ∝ ``1 / (r + 1) ** skew``: a few hot keys make a
    few big partitions, as in WordCount).  The shares sum to 1."""
    if n_reduces <= 0:
        return []
    if skew < 0 or skew != skew:
        raise ValueError(f"skew must be ≥ 0, got {skew}")
    weights = [_zipf_weight(r, skew) for r in range(n_reduces)]
    total = sum(weights)
    return [w / total for w in weights]


def _zipf_weight(r: int, skew: float) -> float:
    """``1 / (r + 1) ** skew``; 0 where the power overflows (a huge skew: all on the first)."""
    try:
        return 1.0 / (r + 1) ** skew
    except OverflowError:
        return 0.0


# --------------------------------------------------------------------------- a job's shuffle
@frozen
class ShuffleSpec:
    """A job's intermediate data, as a workload describes it.

    ``bytes``: the job's total map output (SWIM's shuffle bytes), split equally among its
    maps; each map's output goes to the reduces by :func:`reduce_shares` with Zipf
    exponent ``skew`` (0: uniform).  Or ``matrix``: bytes of each map's partition for each
    reduce (``[map][reduce]``), in which case ``bytes`` is its sum.
    """

    bytes: float = 0.0
    skew: float = 0.0
    matrix: tuple[tuple[float, ...], ...] | None = field(default=None, repr=False)

    def map_output(self, index: int, n_maps: int) -> float:
        """Bytes of map ``index``'s output (all its partitions)."""
        if self.matrix is not None:
            return float(sum(self.matrix[index]))
        return self.bytes / n_maps if n_maps else 0.0

    def shares(self, n_reduces: int) -> list[float]:
        """Each reduce's share of a map's output (not used with a matrix)."""
        return reduce_shares(n_reduces, self.skew)

    def partition(self, map_index: int, reduce_index: int, n_maps: int, n_reduces: int) -> float:
        """Bytes map ``map_index`` produces for reduce ``reduce_index``."""
        if self.matrix is not None:
            return float(self.matrix[map_index][reduce_index])
        return self.map_output(map_index, n_maps) * reduce_shares(n_reduces, self.skew)[reduce_index]

    def problem(self, n_maps: int, n_reduces: int) -> str | None:
        """Why this description does not fit a job of ``n_maps`` × ``n_reduces``, or None."""
        if self.matrix is None:
            if n_maps == 0 and self.bytes > 0:
                return "the job has no maps to produce its bytes"
            return None
        if len(self.matrix) != n_maps:
            return f"the matrix has {len(self.matrix)} rows; expected one per map ({n_maps})"
        for m, row in enumerate(self.matrix):
            if len(row) != n_reduces:
                return f"row {m} of the matrix has {len(row)} sizes; expected one per reduce ({n_reduces})"
        return None


class MapOutputs:
    """Where a job's finished maps left their output: the view a reduce TaskSelector reads
    (``job.map_outputs``), kept by the core as maps finish
    (:meth:`~corescheduler.core.scheduler.Scheduler.finish`).

    Sizes come from the job's :class:`ShuffleSpec`, from the size a caller measured
    (``Scheduler.finish(..., output_bytes=)``, e.g. the live service's Dask result sizes),
    or, when neither is known, one unit per map, so that weighted distances count maps
    (WTND is then TND divided by the number of feeding maps).

    Byte totals are kept per node and per rack, so the WTND of one node is O(1):
    ``WTND(n) = d₀·Wₙ + d₁·(W_rack(n) − Wₙ) + d₂·(1 − W_rack(n))`` with ``W`` the fraction
    of the reduce's input on the node and its rack.
    """

    __slots__ = ("_best", "_matrix", "_node_maps", "_node_out", "_out", "_rack_max", "_rack_out", "_spec", "_sum",
                 "distances", "n_maps", "n_reduces", "nodes", "rack_of", "shares", "version")

    def __init__(self, n_maps: int, n_reduces: int, spec: ShuffleSpec | None = None,
                 distances: tuple[float, float, float] = DISTANCES) -> None:
        self.n_maps = n_maps
        self.n_reduces = n_reduces
        self.distances = distances
        # sizes as floats, however the spec was written (ints stay ints in Python, and the
        # compiled build would turn them into floats: one answer for both)
        matrix = spec.matrix if spec is not None else None
        self._matrix = tuple(tuple(map(float, row)) for row in matrix) if matrix is not None else None
        self.shares: list[float] | None = None if self._matrix is not None else (
            spec.shares(n_reduces) if spec is not None else reduce_shares(n_reduces))
        self._spec = spec
        #: map index -> the node its output is on
        self.nodes: dict[int, str] = {}
        #: node -> rack, for every node holding output
        self.rack_of: dict[str, str] = {}
        self._out: dict[int, float] = {}  # map index -> its output bytes (shares mode)
        self._node_out: dict[str, Any] = {}  # node -> bytes (a float, or a per-reduce list with a matrix)
        self._rack_out: dict[str, Any] = {}
        self._node_maps: dict[str, int] = {}
        self._sum: Any = 0.0 if self._matrix is None else [0.0] * n_reduces  # all output so far
        self._rack_max: dict[str, float] = {}  # rack -> its fullest node's bytes (shares mode)
        #: changes with every recorded or forgotten output (a cache key for selectors)
        self.version = 0
        self._best: dict[int, tuple[int, float]] = {}

    def record(self, index: int, node: str, rack: str, output_bytes: float | None = None) -> None:
        """Map ``index`` finished on ``node``: its output lives there now.  ``output_bytes``:
        its measured size (ignored when the workload gives a matrix)."""
        if index in self.nodes:
            self.forget(index)
        self.nodes[index] = node
        self.rack_of[node] = rack
        self._node_maps[node] = self._node_maps.get(node, 0) + 1
        self.version += 1
        if self._matrix is not None:  # the workload's sizes (a measured total cannot split a matrix)
            row = self._matrix[index]
            for table, key in ((self._node_out, node), (self._rack_out, rack)):
                acc = table.get(key)
                table[key] = list(row) if acc is None else [a + b for a, b in zip(acc, row)]
            self._sum = [a + b for a, b in zip(self._sum, row)]
            return
        if output_bytes is None:
            output_bytes = self._spec.map_output(index, self.n_maps) if self._spec is not None else 1.0
        else:
            output_bytes = float(output_bytes)
        self._out[index] = output_bytes
        self._sum += output_bytes
        on_node = self._node_out[node] = self._node_out.get(node, 0.0) + output_bytes
        self._rack_out[rack] = self._rack_out.get(rack, 0.0) + output_bytes
        if on_node > self._rack_max.get(rack, 0.0):
            self._rack_max[rack] = on_node

    def move(self, index: int, node: str, rack: str) -> None:
        """Map ``index``'s output is now (only) on ``node`` (its first node left and a copy
        survives elsewhere): the same bytes, another place."""
        if index not in self.nodes or self.nodes[index] == node:
            return
        size = self._out.get(index)
        self.forget(index)
        self.record(index, node, rack, size)

    def forget(self, index: int) -> None:
        """Map ``index``'s output is gone (its node was lost): it no longer feeds anything.
        The totals of its node, its rack and the job are summed again from what remains
        (O(maps); outputs are rarely lost), so no subtraction residue is left behind."""
        node = self.nodes.pop(index, None)
        if node is None:
            return
        rack = self.rack_of[node]
        self.version += 1
        self._out.pop(index, None)
        self._node_maps[node] -= 1
        if not self._node_maps[node]:
            del self._node_maps[node]
        on_node = [i for i, n in self.nodes.items() if n == node]
        in_rack = [i for i, n in self.nodes.items() if self.rack_of[n] == rack]
        column_sums = self._column_sums
        self._sum = column_sums(list(self.nodes))
        for table, key, maps in ((self._node_out, node, on_node), (self._rack_out, rack, in_rack)):
            if maps:
                table[key] = column_sums(maps)
            else:
                table.pop(key, None)
        if self._matrix is None:
            fullest = max((v for n, v in self._node_out.items() if self.rack_of[n] == rack), default=None)
            if fullest is None:
                self._rack_max.pop(rack, None)
            else:
                self._rack_max[rack] = fullest

    def _column_sums(self, maps: list[int]) -> Any:
        """The output of ``maps``: per reduce (a list) with a matrix, else one float."""
        if self._matrix is not None:
            matrix = self._matrix
            return [sum(matrix[i][r] for i in maps) for r in range(self.n_reduces)]
        out = self._out
        return sum(out[i] for i in maps)

    # ------------------------------------------------------------------ queries
    def _size(self, value: Any, reduce_index: int) -> float:
        if self.shares is not None:
            return value * self.shares[reduce_index]
        return value[reduce_index]

    def input_by_node(self, reduce_index: int) -> dict[str, float]:
        """Reduce ``reduce_index``'s input so far: node → bytes (nodes with none left out)."""
        out = {}
        for node, value in self._node_out.items():
            size = self._size(value, reduce_index)
            if size > 0:
                out[node] = size
        return out

    def input_by_rack(self, reduce_index: int) -> dict[str, float]:
        """Reduce ``reduce_index``'s input so far: rack → bytes."""
        return {rack: size for rack, value in self._rack_out.items()
                if (size := self._size(value, reduce_index)) > 0}

    def total(self, reduce_index: int) -> float:
        """Bytes of reduce ``reduce_index``'s input so far."""
        return self._size(self._sum, reduce_index)

    def wtnd(self, reduce_index: int, node: str, rack: str | None) -> float:
        """WTND of placing reduce ``reduce_index`` on ``node`` (in ``rack``), by the input so
        far; 0 when it has none yet.  Computed as ``d₂ − ((d₂−d₁)·B_rack + (d₁−d₀)·B_node) / B``
        (bytes on the node, on its rack, in all), the same sum rearranged."""
        if self.shares is not None:  # every reduce has the same weights: no per-reduce scaling
            if not self.shares[reduce_index]:
                return 0.0
            total = self._sum
            on_node = self._node_out.get(node, 0.0)
            on_rack = self._rack_out.get(rack, 0.0) if rack is not None else on_node
        else:
            total = self._sum[reduce_index]
            row = self._node_out.get(node)
            on_node = row[reduce_index] if row is not None else 0.0
            rack_row = self._rack_out.get(rack) if rack is not None else row
            on_rack = rack_row[reduce_index] if rack_row is not None else 0.0
        if total <= 0:
            return 0.0
        d0, d1, d2 = self.distances
        return d2 - ((d2 - d1) * on_rack + (d1 - d0) * on_node) / total

    def best_wtnd(self, reduce_index: int) -> float:
        """The least WTND over the feeding nodes (the center of gravity's), cached per
        :attr:`version`.  With shares (uniform or Zipf) every reduce has the same, found from
        each rack's bytes and its fullest node (O(racks)); with a matrix, over the feeding
        nodes."""
        key = -1 if self.shares is not None else reduce_index
        cached = self._best.get(key)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        if self.shares is not None:
            d0, d1, d2 = self.distances
            total = self._sum
            if total <= 0 or not self.shares[reduce_index]:
                best = 0.0
            else:
                fullest = self._rack_max
                score = max(((d2 - d1) * on_rack + (d1 - d0) * fullest[rack]
                             for rack, on_rack in self._rack_out.items() if on_rack > 0), default=None)
                best = 0.0 if score is None else d2 - score / total
        else:
            best = min((self.wtnd(reduce_index, n, self.rack_of[n]) for n, row in self._node_out.items()
                        if row[reduce_index] > 0), default=0.0)
        self._best[key] = (self.version, best)
        return best

    def centers_of_gravity(self, reduce_index: int) -> list[str]:
        """The feeding nodes with the least WTND for reduce ``reduce_index`` (ties kept)."""
        best = self.best_wtnd(reduce_index)
        return [n for n, v in self._node_out.items() if self._size(v, reduce_index) > 0
                and self.wtnd(reduce_index, n, self.rack_of[n]) <= best + 1e-12]
