"""The fast paths of interleaving agree with the plain versions they replaced.

Balanced interleaving keeps each shown document's rank in both runs while it builds the
lists; the lists writer used to search every ranking for it (a ``(queries, depth,
width)`` comparison). Both must give the same table, column for column.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from relkit.metrics.online.interleave.lists import to_table
from relkit.metrics.online.interleave.methods import Interleaved, balanced
from relkit.metrics.online.interleave.rankings import Rankings


def _random_mats(rng: np.random.Generator, queries: int, width: int, pool: int
                 ) -> list[np.ndarray]:
    """Two runs of distinct codes per row, some rows shorter (-1 pads), some empty."""
    mats = []
    for _ in range(2):
        m = np.argsort(rng.random((queries, pool)), axis=1)[:, :width].astype(np.int64)
        length = rng.integers(0, width + 1, queries)
        m[np.arange(width)[None, :] >= length[:, None]] = -1
        mats.append(m)
    return mats


def _searched_ranks(docs: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The previous writer's rule: the 1-based rank of each shown code in ``m``, 0: absent."""
    ok = docs >= 0
    eq = (docs[:, :, None] == m[:, None, :]) & ok[:, :, None]
    return np.where(eq.any(axis=2), eq.argmax(axis=2) + 1, 0)


@pytest.mark.parametrize("seed", range(8))
def test_balanced_ranks_equal_searching_the_rankings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    width = int(rng.integers(1, 12))
    depth = int(rng.integers(1, 2 * width + 2))
    mats = _random_mats(rng, 300, width, int(rng.integers(width, 3 * width + 1)))
    shown = balanced(mats, depth, np.random.default_rng(seed))
    assert shown.ranks is not None
    ok = shown.docs >= 0
    for r in range(2):
        expected = _searched_ranks(shown.docs, mats[r])
        assert np.array_equal(np.where(ok, shown.ranks[r], 0), expected)


@pytest.mark.parametrize("seed", range(4))
def test_balanced_table_equals_the_previous_writer(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    width, depth = 10, 10
    mats = _random_mats(rng, 500, width, 25)
    rankings = Rankings(pa.array([f"q{i}" for i in range(500)]),
                        pa.array([f"d{i}" for i in range(25)]), mats, ["a", "b"])
    shown = balanced(mats, depth, np.random.default_rng(seed))
    new = to_table(rankings, shown, "balanced")
    old = to_table(rankings, Interleaved(shown.docs, shown.teams), "balanced")
    assert new.column_names == old.column_names
    assert new.equals(old)


@pytest.mark.parametrize("seed", range(4))
def test_position_table_equals_comparing_every_pair(seed: int) -> None:
    from relkit.metrics.online.interleave.methods import position_table

    rng = np.random.default_rng(200 + seed)
    mats = _random_mats(rng, 200, 8, 20) + _random_mats(rng, 200, 8, 20)[:1]
    pos = position_table(mats)
    for r, a in enumerate(mats):
        for s, b in enumerate(mats):
            if r != s:
                expected = np.where(a >= 0, _searched_ranks(a, b) - 1, -1)
                assert np.array_equal(pos[r][s], expected)


def _probabilistic_loop(imp: np.ndarray, clicked: np.ndarray, probs: np.ndarray,
                        n_imp: int) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray],
                                             list[np.ndarray]]:
    """The previous implementation: one convolution per impression, in Python."""
    from itertools import combinations

    n_runs = probs.shape[0]
    keep = np.flatnonzero(np.bincount(imp[clicked], minlength=n_imp) > 0)
    rows = np.flatnonzero(clicked)
    post = probs[:, rows]
    total = post.sum(axis=0)
    post = post / np.where(total > 0, total, 1.0)
    ci = imp[rows]
    starts = np.searchsorted(ci, keep)
    ends = np.searchsorted(ci, keep, side="right")
    pairs = list(combinations(range(n_runs), 2))
    win = [np.zeros(len(keep)) for _ in pairs]
    loss = [np.zeros(len(keep)) for _ in pairs]
    tie = [np.zeros(len(keep)) for _ in pairs]
    for p, (i, j) in enumerate(pairs):
        for n, (s, e) in enumerate(zip(starts, ends, strict=True)):
            m = e - s
            dist = np.zeros(2 * m + 1)
            dist[m] = 1.0
            for qi, qj in zip(post[i, s:e], post[j, s:e], strict=True):
                step = dist * (1.0 - qi - qj)
                step[1:] += dist[:-1] * qi
                step[:-1] += dist[1:] * qj
                dist = step
            win[p][n] = dist[m + 1:].sum()
            loss[p][n] = dist[:m].sum()
            tie[p][n] = dist[m]
    return keep, win, loss, tie


@pytest.mark.parametrize("seed", range(10))
def test_probabilistic_credit_equals_the_loop_per_impression(seed: int) -> None:
    from relkit.metrics.online.interleave.credit import probabilistic_outcomes

    rng = np.random.default_rng(300 + seed)
    n_imp = int(rng.integers(1, 400))
    n_runs = int(rng.integers(2, 5))
    shown = rng.integers(1, 25, n_imp)                 # up to 24 positions: long sums
    imp = np.repeat(np.arange(n_imp), shown)
    clicked = rng.random(len(imp)) < rng.uniform(0.05, 0.9)
    probs = rng.random((n_runs, len(imp))) * (rng.random((n_runs, len(imp))) < 0.8)
    out = probabilistic_outcomes(imp, clicked, probs, n_imp)
    keep, win, loss, tie = _probabilistic_loop(imp, clicked, probs, n_imp)
    assert np.array_equal(out.imp, keep)
    for p in range(len(out.pairs)):
        assert np.array_equal(out.win[p], win[p])     # identical, not merely close
        assert np.array_equal(out.loss[p], loss[p])
        assert np.array_equal(out.tie[p], tie[p])


@pytest.mark.parametrize("values", [[True, False, True] * 7, [], [False], [True] * 9])
def test_bools_equals_pyarrows_to_numpy(values: list[bool]) -> None:
    from relkit.metrics.online.interleave.rankings import _bools

    a = pa.array(values, pa.bool_())
    for x in (a, a.slice(min(3, len(a))), pa.chunked_array([a, a.slice(1 if values else 0)]),
              pa.array([*values, None], pa.bool_())):
        expected = np.asarray(x.to_numpy(zero_copy_only=False), dtype=bool)
        assert np.array_equal(_bools(x), expected)
