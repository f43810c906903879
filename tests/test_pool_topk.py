"""Depth pooling ranks only the rows that can reach each topic's top k.

:func:`relkit.pooling.candidates.ranked_lists` preselects, per topic, the rows
scoring at least the k-th highest score (every row tied with it included), and
ranks those alone. These tests hold it to ranking the whole run
(:func:`relkit.metrics.ranking.rank` with ``max_docs``): the same documents in
the same order (score descending, then docno descending), the same duplicate
errors (a duplicate below the cut is never seen, as in trec_eval), for runs in
both forms the readers give (numpy for small inputs, Arrow for large ones),
and the pool file byte for byte on the benchmark's shape.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError
from relkit.metrics.ranking import JudgedTopics, rank, topic_order
from relkit.metrics.readers import io as _io
from relkit.pooling import candidates
from relkit.pooling.candidates import ranked_lists
from relkit.pooling.pool import Pool


def _full(run: Run, depth: int | None) -> list[tuple[str, list[str]]]:
    """Ranking the whole run, cut at ``depth``: the reference."""
    topics = topic_order([str(t) for t in run.arrow()["query_id"].to_pylist()])
    fake = Qrels({
        "query_id": np.array([t.encode() for t in topics], dtype=bytes),
        "doc_id": np.array([b""] * len(topics), dtype=bytes),
        "relevance": np.zeros(len(topics), dtype=np.int64)})
    r = rank(run, JudgedTopics.prepare(fake), max_docs=depth)
    return _lists(r)


def _lists(r: object) -> list[tuple[str, list[str]]]:
    docs = r.docs.to_pylist()  # type: ignore[attr-defined]
    off = r.offsets  # type: ignore[attr-defined]
    return [(t, docs[off[i]:off[i + 1]]) for i, t in enumerate(r.topics)]  # type: ignore[attr-defined]


def _text(rows: list[tuple[str, str, float]]) -> str:
    return "".join(f"{t} Q0 {d} {k} {s!r} tag\n" for k, (t, d, s) in enumerate(rows, 1))


def _forms(text: str, monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """The run as the small-input reader (numpy) and the Arrow reader give it."""
    small = Run.read(text)
    with monkeypatch.context() as m:
        m.setattr(_io, "SMALL_INPUT_BYTES", 0)
        big = Run.read(text)
    assert not isinstance(big.column("doc_id"), np.ndarray)
    return [small, big]


# Few distinct scores and docnos: many ties at the cut, duplicates within a topic,
# topics interleaved (not contiguous) or in file order.
_rows = st.lists(st.tuples(st.sampled_from(["1", "2", "10", "q1"]),
                           st.sampled_from([f"d{i}" for i in range(15)] + ["d10a", "e"]),
                           st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0, 1e300])),
                 min_size=1, max_size=60)


@settings(max_examples=examples(300), deadline=None)
@given(rows=_rows, depth=st.integers(1, 8), sort=st.booleans())
def test_same_ranking_and_errors_as_the_whole_run(rows: list[tuple[str, str, float]],
                                                  depth: int, sort: bool) -> None:
    if sort:   # as systems write runs: topics contiguous, scores non-increasing
        rows = sorted(rows, key=lambda r: (r[0], -r[2]))
    text = _text(rows)
    mp = pytest.MonkeyPatch()
    try:
        for run in _forms(text, mp):
            try:
                want = _full(run, depth)
            except DuplicateDocumentError as e:
                with pytest.raises(DuplicateDocumentError) as got:
                    ranked_lists(run, depth)
                assert str(got.value) == str(e)     # the same file line named
                continue
            got_r = ranked_lists(run, depth)
            assert _lists(got_r) == want
            # rows are positions in the whole run, source_docs its docno column
            src = run.arrow()["doc_id"].to_pylist()
            assert [src[i] for i in got_r.rows.tolist()] == [d for _, ds in want for d in ds]
    finally:
        mp.undo()


def test_a_duplicate_below_the_cut_is_not_seen_and_above_it_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0), ("1", "a", 0.5)]
    for run in _forms(_text(rows), monkeypatch):
        assert _lists(ranked_lists(run, 2)) == [("1", ["a", "b"])]
        with pytest.raises(DuplicateDocumentError, match=":4: "):
            ranked_lists(run, 4)


def test_ties_at_the_cut_are_decided_by_docno(monkeypatch: pytest.MonkeyPatch) -> None:
    # Five documents tied at the 2nd score: docno descending picks e, then d.
    rows = [("1", "z", 9.0)] + [("1", d, 1.0) for d in "abcde"]
    for run in _forms(_text(rows), monkeypatch):
        assert _lists(ranked_lists(run, 3)) == [("1", ["z", "e", "d"])]


def test_the_preselection_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run deeper than the depth is ranked on its head only (the speed-up)."""
    rows = [("1", f"d{i:03d}", float(100 - i)) for i in range(100)]
    seen: list[int] = []
    real = candidates.rank

    def spy(run: Run, *a: object, **kw: object) -> object:
        seen.append(len(run))
        return real(run, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(candidates, "rank", spy)
    for run in _forms(_text(rows), monkeypatch):
        ranked_lists(run, 10)
    assert seen == [10, 10]


def test_pool_file_bytes_unchanged(tmp_path: Path) -> None:
    """The pool file with and without the preselection (the generic rank of every
    row) on runs shaped like bench/pool_bench.py's, ties included."""
    rng = np.random.default_rng(3)
    paths = []
    for r in range(6):
        lines = []
        for t in ("1", "2", "10"):
            docs = rng.choice(400, 200, replace=False)
            scores = np.sort(rng.integers(0, 40, 200))[::-1]   # many ties
            lines += [f"{t} Q0 D{d} {k} {s} run{r}\n"
                      for k, (d, s) in enumerate(zip(docs, scores, strict=True), 1)]
        paths.append(tmp_path / f"run{r}.txt")
        paths[-1].write_text("".join(lines))
    out = tmp_path / "pool.tsv"
    code, _, err = run_cli(["pool", "--strategy", "depth", "--depth", "20", "-o", str(out),
                            *map(str, paths)])
    assert code == 0, err
    fast = out.read_bytes()
    from relkit.pooling.depth import depth_pool, run_name

    runs = {run_name(p): Run.read(p) for p in paths}
    with pytest.MonkeyPatch.context() as m:
        m.setattr(candidates, "_head_rows", lambda *a: None)   # rank every row
        slow_pool = depth_pool(runs, 20)
    slow = tmp_path / "slow.tsv"
    Pool(tuple(slow_pool.entries)).write(slow)     # the entry-by-entry writer
    assert fast == slow.read_bytes()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "q3"]), st.integers(1, 6),
                          st.sampled_from([0.5, 1.0, 2.0, 3.0])), min_size=1, max_size=20))
def test_rank_disagreements_on_runs_in_file_order(rows: list[tuple[str, int, float]]) -> None:
    """Runs written topic by topic in rank order skip the sort: same answer."""
    from relkit.pooling.candidates import _rank_disagreements_rows, rank_disagreements

    rows = sorted(rows, key=lambda r: (r[0], r[1]))
    text = "".join(f"{t} Q0 d{i} {k} {x} r\n" for i, (t, k, x) in enumerate(rows))
    mp = pytest.MonkeyPatch()
    try:
        for run in _forms(text, mp):
            assert rank_disagreements(run) == _rank_disagreements_rows(run)
    finally:
        mp.undo()
