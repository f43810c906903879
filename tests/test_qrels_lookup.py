"""The qrels lookup of ranked rows (``JudgedTopics.grades_and_duplicate``) against the
plain answer: a dict from (topic, docno) to grade.

The lookup hashes docnos padded with one ``astype`` and searches only the keys between
a chunk's first and last wanted key; the qrels' grade counts come from ``np.bincount``.
Each must give what the straightforward computation gives (the old hash formula, a
dict, ``np.add.at``).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics import pairs
from relkit.metrics.data import Qrels
from relkit.metrics.judged import NONPOOL, UNJUDGED, JudgedTopics

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _old_pair_hash(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``pair_hash`` as it was written before (zero columns appended, new arrays)."""
    width = values.dtype.itemsize
    grid = values.view(np.uint8).reshape(len(values), width)
    if width % 8:
        grid = np.concatenate((grid, np.zeros((len(values), 8 - width % 8), np.uint8)), axis=1)
    words = np.ascontiguousarray(grid).view(np.uint64)
    h = q.astype(np.uint64) * _MIX
    for j in range(words.shape[1]):
        h ^= words[:, j]
        h *= _MIX
        h ^= h >> np.uint64(29)
    return h >> np.uint64(1)


_ids = st.binary(min_size=1, max_size=19).filter(lambda b: not b.endswith(b"\x00"))


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**31 - 1), _ids), max_size=40))
def test_pair_hash_same_as_before(rows: list[tuple[int, bytes]]) -> None:
    q = np.array([r[0] for r in rows], dtype=np.int64)
    width = max((len(r[1]) for r in rows), default=1)
    docs = np.array([r[1] for r in rows], dtype=f"S{width}")
    got = pairs.pair_hash(docs, q)
    assert got.dtype == np.uint64
    assert np.array_equal(got, _old_pair_hash(docs, q))
    assert np.array_equal(q, [r[0] for r in rows])            # the caller's q untouched


_doc = st.sampled_from([f"d{i}" for i in range(12)] + ["D0000001", "doc-with-a-long-name-17"])


@st.composite
def collections(draw: st.DrawFn) -> tuple[list[tuple[str, str, int]], list[tuple[str, str]]]:
    """Qrels (unique (topic, doc), grades -1..3) and run rows (unique per topic)."""
    topics = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    qrels = draw(st.lists(st.tuples(st.sampled_from(topics), _doc, st.integers(-1, 3)),
                          min_size=1, max_size=60, unique_by=lambda r: (r[0], r[1])))
    run = draw(st.lists(st.tuples(st.sampled_from(topics), _doc), max_size=60,
                        unique=True))
    return qrels, run


def _prepare(qrels: list[tuple[str, str, int]]) -> JudgedTopics:
    return JudgedTopics.prepare(Qrels({"query_id": [r[0] for r in qrels],
                                       "doc_id": [r[1] for r in qrels],
                                       "relevance": np.array([r[2] for r in qrels])}))


def _lookup(judged: JudgedTopics, run: list[tuple[str, str]],
            qrels: list[tuple[str, str, int]]) -> tuple[np.ndarray, np.ndarray]:
    """grades_and_duplicate on the run's rows of qrels topics, grouped by topic, and the
    grades a plain dict of the input ``qrels`` gives (not the prepared object's arrays)."""
    rows = sorted((judged.index[t], d) for t, d in run if t in judged.index)
    q = np.array([r[0] for r in rows], dtype=np.int32)
    # the qrels' width when the run's docnos fit in it, else wider
    width = max([judged.docs.dtype.itemsize, *(len(r[1]) for r in rows)])
    docs = np.array([r[1].encode() for r in rows], dtype=f"S{width}")
    out, dup = judged.grades_and_duplicate(q, docs, np.arange(len(rows)))
    assert dup is None
    grades = {(judged.index[t], d): g for t, d, g in qrels}
    want = np.array([NONPOOL if r not in grades else grades[r] if grades[r] >= 0
                     else UNJUDGED for r in rows], np.int64)
    return out, want


@settings(max_examples=examples(150), deadline=None)
@given(collections())
def test_lookup_gives_each_rows_grade(data: tuple[list, list]) -> None:
    qrels, run = data
    judged = _prepare(qrels)
    assert isinstance(judged.docs, np.ndarray)
    out, want = _lookup(judged, run, qrels)
    assert np.array_equal(out, want)
    # levels: counts per (topic, grade) of non-negative grades, as np.add.at counts them
    q, rel = judged.q, judged.rel
    ok = rel >= 0
    levels = np.zeros_like(judged.levels)
    np.add.at(levels, (q[ok], rel[ok]), 1)
    assert judged.levels.dtype == np.int64 and np.array_equal(judged.levels, levels)


@settings(max_examples=examples(60), deadline=None)
@given(collections(), st.data())
def test_lookup_of_some_topics_searches_a_slice(data: tuple[list, list],
                                                draw: st.DataObject) -> None:
    """A chunk holds some topics only: the search over the keys it can reach finds what
    a search over every key finds."""
    qrels, run = data
    judged = _prepare(qrels)
    chosen = draw.draw(st.sets(st.sampled_from(judged.topics)))
    out, want = _lookup(judged, [r for r in run if r[0] in chosen], qrels)
    assert np.array_equal(out, want)
