"""Depth-k pools: trec_eval's order, provenance, the TSV round trip, set algebra."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import SHARED, examples, run_cli
from relkit.metrics.core.errors import DuplicateDocumentError, FormatError
from relkit.metrics.data import Run
from relkit.pooling.depth import PoolingError, depth_pool, run_name
from relkit.pooling.pool import Pool, PoolEntry, natural

CRAN = SHARED / "corpora" / "cranfield"

RUN_A = """\
1 Q0 d1 1 3.0 a
1 Q0 d2 2 2.0 a
1 Q0 d3 3 2.0 a
2 Q0 d9 1 1.0 a
"""
# The rank column disagrees with the scores: the scores decide (d5 first).
RUN_B = """\
1 Q0 d4 1 0.5 b
1 Q0 d5 2 0.9 b
007 Q0 x 1 1.0 b
"""


def test_depth_pool_hand_worked() -> None:
    runs = {"a": Run.read(RUN_A), "b": Run.read(RUN_B)}
    pool = depth_pool(runs, 2)
    # a@2 on topic 1: d1 (3.0), then the 2.0 tie broken by docno descending -> d3.
    # b@2 on topic 1: d5 (0.9), d4 (0.5). Topic 2: d9. Topic 007: x.
    assert [(e.topic, e.doc) for e in pool] == [
        ("1", "d1"), ("1", "d3"), ("1", "d4"), ("1", "d5"), ("2", "d9"), ("007", "x")]
    d5 = next(e for e in pool if e.doc == "d5")
    assert d5.provenance == (("b", 1),) and d5.priority == 1.0
    assert next(e for e in pool if e.doc == "d4").best_rank == 2
    assert depth_pool(runs, {"a": 1, "b": 1}).sizes() == {"1": 2, "2": 1, "007": 1}
    assert depth_pool(runs, 5, topics=["007"]).pairs() == {("007", "x")}


def test_bad_parameters_and_duplicates() -> None:
    with pytest.raises(PoolingError, match="must be an int >= 1; got 0"):
        depth_pool({"a": Run.read(RUN_A)}, 0)
    with pytest.raises(PoolingError, match="no depth given"):
        depth_pool({"a": Run.read(RUN_A), "b": Run.read(RUN_B)}, {"a": 3})
    dup = Run.read("1 Q0 d1 1 2.0 a\n1 Q0 d1 2 1.0 a\n")
    with pytest.raises(DuplicateDocumentError):
        depth_pool({"a": dup}, 5)


def test_write_read_round_trip_is_byte_identical(tmp_path: Path) -> None:
    pool = depth_pool({"a": Run.read(RUN_A), "b": Run.read(RUN_B)}, 3)
    f1, f2 = tmp_path / "p1.tsv", tmp_path / "p2.tsv"
    pool.write(f1)
    back, lines = Pool.read(f1)
    assert back == pool and lines[0] == 2
    back.write(f2)
    assert f1.read_bytes() == f2.read_bytes()


def test_set_algebra() -> None:
    a = Pool((PoolEntry("1", "x", 0.5, (("r1", 2),)), PoolEntry("1", "y", 1.0, (("r1", 1),))))
    b = Pool((PoolEntry("1", "x", 1.0, (("r2", 1),)),))
    u = a.union(b)
    x = next(e for e in u if e.doc == "x")
    assert x.priority == 1.0 and x.provenance == (("r1", 2), ("r2", 1))
    assert u.minus({("1", "x")}).pairs() == {("1", "y")}
    with pytest.raises(ValueError, match="twice"):
        Pool((PoolEntry("1", "x"), PoolEntry("1", "x")))


def test_pool_file_errors(tmp_path: Path) -> None:
    f = tmp_path / "p.tsv"
    f.write_text("topic\tdoc\tpriority\tprovenance\n1\td1\t1.0\tr:1\n1\td1\t0.5\t\n")
    with pytest.raises(FormatError, match=r"p\.tsv:3: .*first at line 2"):
        Pool.read(f)
    f.write_text("1\td1\tnan?\t\n")
    with pytest.raises(FormatError, match=r"p\.tsv:1: expected a number for the priority"):
        Pool.read(f)


runs_strategy = st.dictionaries(
    st.sampled_from(["r1", "r2", "r3"]),
    st.dictionaries(st.sampled_from(["1", "2", "007"]),
                    st.lists(st.tuples(st.sampled_from([f"d{i}" for i in range(12)]),
                                       st.integers(0, 5)), max_size=10,
                             unique_by=lambda t: t[0]), min_size=1),
    min_size=1)


@settings(max_examples=examples(60), deadline=None)
@given(runs_strategy, st.integers(1, 6))
def test_depth_pool_is_union_of_each_runs_top_k(spec: dict[str, dict[str, list[tuple[str, int]]]],
                                                k: int) -> None:
    runs, expected = {}, set()
    prov: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for name, topics in sorted(spec.items()):
        lines = [f"{t} Q0 {d} 0 {s} {name}" for t, docs in topics.items() for d, s in docs]
        if not lines:
            continue
        runs[name] = Run.read("\n".join(lines) + "\n")
        for t, docs in topics.items():
            # trec_eval order computed directly: score descending, docno descending.
            by_doc = sorted(docs, key=lambda x: x[0].encode(), reverse=True)
            top = sorted(by_doc, key=lambda x: -x[1])[:k]  # stable: ties keep docno desc
            expected |= {(t, d) for d, _ in top}
            for r, (d, _) in enumerate(top, 1):
                prov.setdefault((t, d), []).append((name, r))
    if not runs:
        return
    pool = depth_pool(runs, k)
    assert pool.pairs() == expected
    # The vectorised builder gives exactly the entries (order, priority 1/best rank,
    # provenance in run-name order) that a plain dict-of-lists union gives.
    reference = Pool(tuple(PoolEntry(t, d, 1.0 / min(r for _, r in p), tuple(p))
                           for (t, d), p in prov.items()))
    assert pool.entries == reference.entries
    assert all(len(e.provenance) >= 1 and e.best_rank is not None and e.best_rank <= k
               for e in pool)


@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
def test_cranfield_pool_and_cli(tmp_path: Path) -> None:
    paths = sorted(CRAN.glob("runs/*/*.txt"))
    assert len(paths) == 6 and len({run_name(p) for p in paths}) == 6
    pool = depth_pool({run_name(p): Run.read(p) for p in paths}, 10)
    assert len(pool.topics()) == 225
    out = tmp_path / "pool.tsv"
    code, _, err = run_cli(["pool", *map(str, paths), "--depth", "10", "-o", str(out)])
    assert code == 0, err
    assert Pool.read(out)[0] == pool


@given(st.lists(st.from_regex(r"[a-z]{0,2}[0-9]{0,3}[a-z]{0,1}", fullmatch=True), max_size=30))
def test_natural_order_is_total_and_numeric_within_prefixes(ids: list[str]) -> None:
    ordered = sorted(ids, key=natural)
    assert sorted(ordered, key=natural) == ordered
    assert sorted(ids, key=natural) == sorted(reversed(ids), key=natural)
    for a, b in zip(ordered, ordered[1:], strict=False):
        pa, pb = a.rstrip("0123456789"), b.rstrip("0123456789")
        na, nb = a[len(pa):], b[len(pb):]
        if pa == pb and pa and na and nb:  # same prefix, then a number: numeric order
            assert int(na) <= int(nb)


def test_natural_order_examples() -> None:
    assert sorted(["q13", "q2", "10", "7", "q1b", "q1a", "a"], key=natural) == [
        "7", "10", "a", "q1a", "q1b", "q2", "q13"]
