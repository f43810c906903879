"""``relkit.metrics.pairs.grouped_order``: rows sorted by (topic, hash), one sort per topic.

Topics of equal length (most runs) take a shortcut that reads the hashes in place; it must
give the very order of the padded grid (the same values sorted the same way), so every
ranking, and every number, stays bit-identical.
"""

from __future__ import annotations

import numpy as np
import pytest

from relkit.metrics.pairs import _padded_grid_order, grouped_order


def _blocks(q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    by_topic = np.argsort(q[starts], kind="stable")
    sizes = np.diff(np.append(starts, len(q)))
    return starts[by_topic], sizes[by_topic], by_topic


def _check(h: np.ndarray, q: np.ndarray, order: np.ndarray) -> None:
    assert sorted(order.tolist()) == list(range(len(q)))       # a permutation
    key = np.lexsort((h[order], q[order]))
    assert np.array_equal(key, np.arange(len(q)))              # sorted by (q, h)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("topic_order", ["ascending", "shuffled"])
def test_equal_topics_same_order_as_padded_grid(seed: int, topic_order: str) -> None:
    rng = np.random.default_rng(seed)
    topics, width = int(rng.integers(1, 40)), int(rng.integers(1, 60))
    codes = np.arange(topics)
    if topic_order == "shuffled":
        rng.shuffle(codes)
    q = np.repeat(codes, width)
    # few distinct hashes: many ties, where an unstable sort could differ
    h = rng.integers(0, 5 if seed % 2 else 2**62, len(q)).astype(np.uint64)
    got = grouped_order(h, q)
    assert got is not None
    starts, sizes, _ = _blocks(q)
    assert np.array_equal(got, _padded_grid_order(h, starts, sizes, width))
    _check(h, q, got)


def test_uneven_topics_and_split_topic() -> None:
    rng = np.random.default_rng(7)
    sizes = [3, 1, 5, 5, 2]
    q = np.repeat(np.array([4, 0, 2, 1, 3]), sizes)
    h = rng.integers(0, 2**62, len(q)).astype(np.uint64)
    got = grouped_order(h, q)
    assert got is not None
    _check(h, q, got)
    assert grouped_order(h[:4], np.array([0, 1, 0, 1])) is None   # topic in two blocks
