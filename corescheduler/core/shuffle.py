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
    weights = [1.0 / (r + 1) ** skew for r in range(n_reduces)]
    total = sum(weights)
    return [w / total for w in weights]


def partition_matrix(map_output_bytes: list[float], n_reduces: int, skew: float = 0.0) -> list[list[float]]:
    """Bytes of each map's partition for each reduce: map ``m``'s output split by
    :func:`reduce_shares` (``[m][r]``)."""
    shares = reduce_shares(n_reduces, skew)
    return [[out * s for s in shares] for out in map_output_bytes]


def reduce_input_by_node(map_nodes: dict[int, str], matrix_row_of: dict[int, list[float]] | None,
                         reduce_index: int, shares: list[float] | None = None,
                         map_output_bytes: dict[int, float] | None = None) -> dict[str, float]:
    """Where reduce ``reduce_index``'s input lies so far: node → bytes, summed over the
    finished maps (``map_nodes``: map index → the node it ran on).  Sizes come from explicit
    matrix rows (``matrix_row_of``) or from ``shares`` × each map's output bytes."""
    out: dict[str, float] = {}
    for m, node in map_nodes.items():
        if matrix_row_of is not None:
            size = matrix_row_of[m][reduce_index]
        else:
            if shares is None or map_output_bytes is None:
                raise ValueError("give matrix rows, or shares and map output sizes")
            size = map_output_bytes[m] * shares[reduce_index]
        if size > 0:
            out[node] = out.get(node, 0.0) + size
    return out
