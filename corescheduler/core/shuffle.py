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
