"""Stopping rules for adaptive judging (Cormack & Grossman, SIGIR 2016)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.pooling.errors import PoolingError
from relkit.pooling.stopping import (
    draw_target,
    knee,
    knee_stop,
    slope_ratio,
    target_stop,
)


def test_knee_hand_worked() -> None:
    # Five relevant first, then none. At s = 200: the line from (0,0) to (200,5);
    # |5i - 200 found(i)| is 975 at i = 5 (the largest), so the knee is 5 and
    # rho = (5/5) / ((5 - 5 + 1) / (200 - 5)) = 195 >= 156 - min(5, 150) = 151.
    gains = [1] * 5 + [0] * 300
    found = [min(i, 5) for i in range(306)]
    assert knee(found, 200) == 5
    assert slope_ratio(found, 200) == pytest.approx(195.0)
    # rho = s - 5 reaches 151 at s = 156 (s >= 150 holds from 150 on).
    assert knee_stop(gains) == 156
    # Checked only after batches (as the paper's review does): the first batch end >= 156.
    assert knee_stop(gains, checkpoints=[100, 150, 160, 200]) == 160
    # 150 relevant found lowers the bar to a ratio of 6: 150 relevant in 150, then a
    # flat tail of t: rho = 1 / (1 / t) = t, so it stops at t = 6, s = 156.
    assert knee_stop([1] * 150 + [0] * 50) == 156


def test_knee_never_stops_without_relevant_or_too_early() -> None:
    assert knee_stop([0] * 500) is None
    assert knee_stop([1] * 5 + [0] * 100) is None          # fewer than 150 judged
    with pytest.raises(PoolingError, match="'min_judged' parameter of the knee method"):
        knee_stop([1], min_judged=-1)


def test_target_hand_worked() -> None:
    docs = [f"d{i}" for i in range(20)]
    rel = {"d3", "d7", "d11", "d15"}
    target, cost = draw_target(docs, rel.__contains__, size=2, seed=1)
    assert len(target) == 2 and target <= rel
    assert 2 <= cost <= 20
    # Judging order d15, d0, d3, d7, ...: with target {d3, d7} done after 4 judgments.
    assert target_stop(["d15", "d0", "d3", "d7", "d11"], {"d3", "d7"}) == 4
    assert target_stop(["d15", "d0"], {"d3"}) is None
    assert target_stop(["d1"], set()) == 0
    # fewer relevant than the target size: all judged, every relevant one is the target
    assert draw_target(docs, rel.__contains__, size=10) == (rel, 20)
    with pytest.raises(PoolingError, match="'size' parameter of the target method"):
        draw_target(docs, rel.__contains__, size=0)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(st.booleans(), max_size=400), st.lists(st.booleans(), max_size=50),
       st.integers(0, 200))
def test_knee_stop_depends_only_on_the_judgments_so_far(gains: list[bool], more: list[bool],
                                                       min_judged: int) -> None:
    s = knee_stop(gains, min_judged=min_judged)
    if s is not None:
        assert max(min_judged, 2) <= s <= len(gains)
        assert knee_stop(gains + more, min_judged=min_judged) == s
        assert knee_stop(gains[:s], min_judged=min_judged) == s
        found = sum(gains[:s])
        assert slope_ratio([0] + [sum(gains[:i]) for i in range(1, s + 1)], s) >= \
            156 - min(found, 150)


@settings(max_examples=examples(80), deadline=None)
@given(st.permutations(list(range(30))), st.sets(st.integers(0, 29), max_size=8),
       st.integers(1, 5), st.integers(0, 3))
def test_target_properties(order: list[int], rel: set[int], size: int, seed: int) -> None:
    target, cost = draw_target(range(30), rel.__contains__, size, seed)
    assert target <= rel and len(target) == min(size, len(rel))
    stop = target_stop(order, target)
    assert stop is not None                      # the whole order judges everything
    assert target <= set(order[:stop])
    assert stop == 0 or order[stop - 1] in target
