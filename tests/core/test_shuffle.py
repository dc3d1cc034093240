"""Network distance, TND and WTND (CoGRS, IEEE CLOUD 2012), on the paper's Figure 7 and on
hand-made cases whose sums are worked out here."""

from __future__ import annotations

import pytest

from corescheduler.core.shuffle import (
    centers_of_gravity,
    network_distance,
    total_network_distance,
    weighted_total_network_distance,
)

#: Figure 7: two racks of three TaskTrackers
FIG7 = {"TT1": "r1", "TT2": "r1", "TT3": "r1", "TT4": "r2", "TT5": "r2", "TT6": "r2"}


def test_network_distance_is_0_same_node_2_same_rack_4_across() -> None:
    assert network_distance("TT1", "TT1", FIG7) == 0
    assert network_distance("TT1", "TT3", FIG7) == 2
    assert network_distance("TT1", "TT4", FIG7) == 4
    assert network_distance("x", "y", {}) == 4  # no rack known: a rack of its own
    assert network_distance("TT1", "TT4", FIG7, (0, 1, 10)) == 10


def test_figure_7_tnd_on_a_feeding_node_and_across_the_racks() -> None:
    """Feeding TT1 and TT2: the reduce on TT4 has TND 8; on TT1 or TT2, 2."""
    feeding = ["TT1", "TT2"]
    assert total_network_distance("TT4", feeding, FIG7) == 8
    assert total_network_distance("TT1", feeding, FIG7) == 2
    assert total_network_distance("TT2", feeding, FIG7) == 2
    assert total_network_distance("TT3", feeding, FIG7) == 4


def test_wtnd_weighs_each_node_by_its_share_of_the_input() -> None:
    # 75 % of the input on TT1, 25 % on TT4: on TT1 → 0×.75 + 4×.25 = 1; on TT4 → 4×.75 = 3;
    # on TT2 → 2×.75 + 4×.25 = 2.5; on TT5 → 4×.75 + 2×.25 = 3.5
    parts = {"TT1": 300.0, "TT4": 100.0}
    assert weighted_total_network_distance("TT1", parts, FIG7) == pytest.approx(1.0)
    assert weighted_total_network_distance("TT4", parts, FIG7) == pytest.approx(3.0)
    assert weighted_total_network_distance("TT2", parts, FIG7) == pytest.approx(2.5)
    assert weighted_total_network_distance("TT5", parts, FIG7) == pytest.approx(3.5)
    assert centers_of_gravity(parts, FIG7) == ["TT1"]
    assert centers_of_gravity(parts, FIG7, candidates=["TT5", "TT2"]) == ["TT2"]
    assert weighted_total_network_distance("TT1", {}, FIG7) == 0.0
    assert centers_of_gravity({}, FIG7) == []


def test_skew_moves_the_center_where_tnd_alone_cannot_decide() -> None:
    # TND ties (one feeding node a rack): equal sizes tie the centers too; skew breaks the tie
    assert centers_of_gravity({"TT1": 1.0, "TT4": 1.0}, FIG7) == ["TT1", "TT4"]
    assert centers_of_gravity({"TT1": 1.0, "TT4": 9.0}, FIG7) == ["TT4"]


def test_reduce_shares_uniform_and_zipf() -> None:
    from corescheduler.core.shuffle import reduce_shares

    assert reduce_shares(4) == [0.25] * 4
    zipf = reduce_shares(3, skew=1.0)  # 1, 1/2, 1/3 over 11/6
    assert zipf == pytest.approx([6 / 11, 3 / 11, 2 / 11])
    assert sum(reduce_shares(50, skew=1.5)) == pytest.approx(1.0)
    assert reduce_shares(0) == []
    with pytest.raises(ValueError, match="skew"):
        reduce_shares(3, skew=-1)


def test_a_reduce_s_input_by_node_feeds_its_center_of_gravity() -> None:
    from corescheduler.core.shuffle import MapOutputs, ShuffleSpec, reduce_shares

    # three maps of 100, 100 and 400 bytes ran on TT1, TT1 and TT4; two reduces, Zipf skew 1
    outputs = {0: 100.0, 1: 100.0, 2: 400.0}
    nodes = {0: "TT1", 1: "TT1", 2: "TT4"}
    shares = reduce_shares(2, skew=1.0)  # 2/3, 1/3
    measured = MapOutputs(3, 2, ShuffleSpec(skew=1.0))
    for m, node in nodes.items():
        measured.record(m, node, FIG7[node], output_bytes=outputs[m])
    r0 = measured.input_by_node(0)
    assert r0 == pytest.approx({"TT1": 200 * 2 / 3, "TT4": 400 * 2 / 3})
    assert centers_of_gravity(r0, FIG7) == ["TT4"] == measured.centers_of_gravity(0)  # 2/3 of R0's input
    matrix = ShuffleSpec(matrix=tuple(tuple(out * s for s in shares) for out in outputs.values()))
    by_matrix = MapOutputs(3, 2, matrix)
    assert by_matrix.input_by_node(1) == {}
    for m, node in nodes.items():
        by_matrix.record(m, node, FIG7[node])
    assert by_matrix.input_by_node(1) == pytest.approx({"TT1": 200 / 3, "TT4": 400 / 3})


# --------------------------------------------------------------------------- MapOutputs (the core's view)
def _outputs(spec=None, n_maps=4, n_reduces=2):
    from corescheduler.core.shuffle import MapOutputs

    return MapOutputs(n_maps, n_reduces, spec)


def test_map_outputs_sum_bytes_per_node_and_rack_and_give_exact_wtnd() -> None:
    from corescheduler.core.shuffle import ShuffleSpec

    out = _outputs(ShuffleSpec(bytes=400.0), n_maps=4, n_reduces=2)  # 100 bytes a map, 50 per reduce
    out.record(0, "TT1", "r1")
    out.record(1, "TT1", "r1")
    out.record(2, "TT2", "r1")
    out.record(3, "TT4", "r2")
    assert out.input_by_node(0) == {"TT1": 100.0, "TT2": 50.0, "TT4": 50.0}
    assert out.input_by_rack(1) == {"r1": 150.0, "r2": 50.0}
    assert out.total(0) == 200.0
    # on TT1: 0×.5 + 2×.25 + 4×.25 = 1.5; on TT4: 4×.75 = 3; on TT3 (r1, no input): 2×.75 + 4×.25 = 2.5
    assert out.wtnd(0, "TT1", "r1") == pytest.approx(1.5)
    assert out.wtnd(0, "TT4", "r2") == pytest.approx(3.0)
    assert out.wtnd(0, "TT3", "r1") == pytest.approx(2.5)
    assert out.wtnd(0, "TT6", "r3") == pytest.approx(4.0)
    assert out.best_wtnd(1) == pytest.approx(1.5)
    assert out.centers_of_gravity(0) == ["TT1"]
    for node, rack in (("TT1", "r1"), ("TT4", "r2"), ("TT3", "r1")):  # the same sums as the plain function
        assert out.wtnd(0, node, rack) == pytest.approx(
            weighted_total_network_distance(node, out.input_by_node(0), {**FIG7, "TT3": "r1"}))


def test_map_outputs_matrix_gives_each_reduce_its_own_center() -> None:
    from corescheduler.core.shuffle import ShuffleSpec

    # reduce 0 is fed mostly by map 0 (on TT1), reduce 1 by map 1 (on TT4): partitioning skew
    spec = ShuffleSpec(matrix=((90.0, 10.0), (10.0, 90.0)))
    out = _outputs(spec, n_maps=2, n_reduces=2)
    out.record(0, "TT1", "r1")
    out.record(1, "TT4", "r2")
    assert out.centers_of_gravity(0) == ["TT1"]
    assert out.centers_of_gravity(1) == ["TT4"]
    assert out.wtnd(0, "TT1", "r1") == pytest.approx(0.4)  # 4 × 10/100
    assert out.wtnd(1, "TT1", "r1") == pytest.approx(3.6)
    out.forget(1)  # TT4's output lost: reduce 1 is fed by TT1 only
    assert out.input_by_node(1) == {"TT1": 10.0}
    assert out.wtnd(1, "TT1", "r1") == 0.0
    assert out.centers_of_gravity(1) == ["TT1"]


def test_map_outputs_without_sizes_count_maps_and_measured_sizes_override() -> None:
    out = _outputs(None, n_maps=3, n_reduces=1)
    out.record(0, "TT1", "r1")
    out.record(1, "TT4", "r2")
    out.record(2, "TT5", "r2")
    # one unit a map: WTND = TND / maps (Figure 7's distances)
    assert out.wtnd(0, "TT4", "r2") == pytest.approx(total_network_distance("TT4", ["TT1", "TT4", "TT5"], FIG7) / 3)
    out.record(0, "TT1", "r1", output_bytes=8.0)  # re-recorded with a measured size
    assert out.input_by_node(0) == {"TT1": 8.0, "TT4": 1.0, "TT5": 1.0}
    assert out.centers_of_gravity(0) == ["TT1"]


def test_shuffle_spec_sizes_and_shape_check() -> None:
    from corescheduler.core.shuffle import ShuffleSpec

    zipf = ShuffleSpec(bytes=300.0, skew=1.0)
    assert zipf.map_output(0, 3) == 100.0
    # shares 1 : 1/2 : 1/3 of 11/6
    assert zipf.partition(0, 0, 3, 3) == pytest.approx(100 * 6 / 11)
    assert zipf.partition(0, 2, 3, 3) == pytest.approx(100 * 2 / 11)
    matrix = ShuffleSpec(matrix=((1.0, 2.0), (3.0, 4.0)))
    assert matrix.problem(2, 2) is None
    assert "rows" in matrix.problem(3, 2)
    assert "row 0" in matrix.problem(2, 3)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_NODES = [f"n{i}" for i in range(7)]
_RACK = {n: f"r{i % 3}" for i, n in enumerate(_NODES)}


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(st.tuples(st.integers(0, 9), st.sampled_from(_NODES), st.booleans(),
                              st.integers(0, 10**9).map(float)), max_size=25),
       matrix=st.booleans(), skew=st.floats(0, 3))
def test_map_outputs_agree_with_the_plain_sums_after_any_records_and_losses(ops, matrix, skew) -> None:
    """Whatever maps finish and are lost, WTND and the center's WTND equal the plain
    functions' sums over ``input_by_node`` (the O(1)/O(racks) bookkeeping is exact)."""
    from corescheduler.core.shuffle import MapOutputs, ShuffleSpec

    rows = tuple(tuple(float((m * 7 + r * 3) % 5) * 1e6 for r in range(3)) for m in range(10))
    spec = ShuffleSpec(matrix=rows) if matrix else ShuffleSpec(bytes=4e9, skew=skew)
    out = MapOutputs(10, 3, spec)
    for index, node, lose, size in ops:
        if lose:
            out.forget(index)
        else:
            out.record(index, node, _RACK[node], output_bytes=None if matrix else size)
    for r in range(3):
        parts = out.input_by_node(r)
        for node in _NODES:
            assert out.wtnd(r, node, _RACK[node]) == pytest.approx(
                weighted_total_network_distance(node, parts, _RACK), abs=1e-9)
        best = min((weighted_total_network_distance(n, parts, _RACK) for n in parts), default=0.0)
        assert out.best_wtnd(r) == pytest.approx(best, abs=1e-9)
        assert all(out.wtnd(r, n, _RACK[n]) == pytest.approx(best, abs=1e-9) for n in out.centers_of_gravity(r))


def test_forgetting_every_output_leaves_exact_zeros_and_move_keeps_the_size() -> None:
    from corescheduler.core.shuffle import MapOutputs, ShuffleSpec

    out = MapOutputs(3, 2, ShuffleSpec(bytes=1e9))
    for i, (node, rack) in enumerate((("a", "r0"), ("b", "r1"), ("b", "r1"))):
        out.record(i, node, rack)
    out.move(0, "c", "r1")  # a copy survives on c after a left
    assert out.input_by_node(0) == pytest.approx({"b": 1e9 / 3, "c": 1e9 / 6})
    for i in range(3):
        out.forget(i)
    assert out.total(0) == 0.0 and out.input_by_rack(0) == {}
    assert out.best_wtnd(0) == 0.0 and out.wtnd(0, "z", "r9") == 0.0
