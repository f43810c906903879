"""Rank correlation: Kendall's tau against scipy, tau_AP against hand-worked examples."""

from __future__ import annotations

import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from relkit.metrics.compare.correlation import (
    CorrelationError,
    kendall_tau,
    rank_correlation,
    tau_ap,
    tau_ap_symmetric,
)

REF = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}


def test_tau_ap_top_swap_hand_worked() -> None:
    # other ranks B > A > C > D. Reference order A, B, C, D:
    # i=2 (B): above {A}; other puts A below B -> C(2)=0, 0/1
    # i=3 (C): above {A,B}; both above C in other -> 2/2
    # i=4 (D): above {A,B,C}; all above D -> 3/3
    # tau_ap = 2/3 * (0 + 1 + 1) - 1 = 1/3 ; Kendall tau = (5-1)/6 = 2/3
    other = {"B": 4.0, "A": 3.0, "C": 2.0, "D": 1.0}
    assert tau_ap(REF, other).value == pytest.approx(1 / 3)
    assert kendall_tau(REF, other).value == pytest.approx(2 / 3)


def test_tau_ap_bottom_swap_hand_worked() -> None:
    # other ranks A > B > D > C: i=2: 1/1, i=3 (C): {A,B} above C in other -> 2/2,
    # i=4 (D): {A,B,C} above, other has C below D -> 2/3.
    # tau_ap = 2/3 * (1 + 1 + 2/3) - 1 = 7/9: a swap at the bottom costs less.
    other = {"A": 4.0, "B": 3.0, "D": 2.0, "C": 1.0}
    assert tau_ap(REF, other).value == pytest.approx(7 / 9)
    assert kendall_tau(REF, other).value == pytest.approx(2 / 3)
    assert tau_ap(REF, other).discordant == 1


def test_identical_and_reversed() -> None:
    rev = {k: -v for k, v in REF.items()}
    assert kendall_tau(REF, REF).value == 1.0
    assert tau_ap(REF, REF).value == 1.0
    assert kendall_tau(REF, rev).value == -1.0
    assert tau_ap(REF, rev).value == pytest.approx(-1.0)


def test_symmetric_is_mean_of_directions() -> None:
    other = {"B": 4.0, "A": 3.0, "D": 2.0, "C": 1.0}
    both = (tau_ap(REF, other).value + tau_ap(other, REF).value) / 2  # type: ignore[operator]
    assert tau_ap_symmetric(REF, other).value == pytest.approx(both)


scores = st.lists(st.integers(0, 5).map(float), min_size=2, max_size=12)


@given(scores, scores)
def test_kendall_matches_scipy(xs: list[float], ys: list[float]) -> None:
    n = min(len(xs), len(ys))
    a = {f"s{i:02d}": xs[i] for i in range(n)}
    b = {f"s{i:02d}": ys[i] for i in range(n)}
    ours = kendall_tau(a, b)
    ref = scipy.stats.kendalltau(xs[:n], ys[:n]).statistic
    if ours.value is None:
        assert ref != ref  # scipy gives NaN exactly where tau is undefined
    else:
        assert ours.value == pytest.approx(ref, abs=1e-12)


@given(st.permutations(list(range(8))))
def test_tau_ap_in_range_and_one_only_for_identity(perm: list[int]) -> None:
    ref = {f"s{i}": float(-i) for i in range(8)}
    other = {f"s{i}": float(-perm[i]) for i in range(8)}
    v = tau_ap(ref, other).value
    assert v is not None and -1.0 - 1e-12 <= v <= 1.0 + 1e-12
    assert (v == pytest.approx(1.0)) == (perm == sorted(perm))


def test_mismatched_systems_and_degenerate() -> None:
    with pytest.raises(CorrelationError, match="only in the first: \\['D'\\]"):
        kendall_tau(REF, {"A": 1.0, "B": 2.0, "C": 3.0})
    one = kendall_tau({"A": 1.0}, {"A": 2.0})
    assert one.value is None and "fewer than two" in one.reason
    flat = kendall_tau({"A": 1.0, "B": 1.0}, {"A": 2.0, "B": 1.0})
    assert flat.value is None and "tied" in flat.reason
    with pytest.raises(CorrelationError, match="unknown rank correlation"):
        rank_correlation(REF, REF, "rho")  # type: ignore[arg-type]


def test_ids_are_strings_matched_by_name() -> None:
    a = {"007": 1.0, "7": 2.0}
    b = {"7": 2.0, "007": 1.0}
    assert kendall_tau(a, b).value == 1.0
