"""Static strategies: hand-worked priorities, budgets, the registry, determinism, edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics.core.errors import DuplicateDocumentError
from relkit.metrics.data import Run
from relkit.pooling.build import build_pool, judging_order, split_budget
from relkit.pooling.candidates import Candidates, rank_disagreements
from relkit.pooling.depth import depth_pool
from relkit.pooling.errors import PoolingError
from relkit.pooling.order import present
from relkit.pooling.pool import Pool
from relkit.pooling.strategies import get, load_all, names, parse_params

# Two runs, one topic. Scores decide the order (rank column ignored).
A = """\
1 Q0 a 1 0.9 A
1 Q0 b 2 0.5 A
1 Q0 c 3 0.1 A
"""
B = """\
1 Q0 b 1 3.0 B
1 Q0 d 2 1.0 B
"""


def runs() -> dict[str, Run]:
    return {"A": Run.read(A), "B": Run.read(B)}


def order(strategy: str, **params: object) -> list[tuple[str, float]]:
    return judging_order(strategy, Candidates.from_runs(runs()), params)["1"]


def test_fusion_hand_worked() -> None:
    # RRF k=60: a 1/61; b 1/62 + 1/61; c 1/63; d 1/62.
    rrf = dict(order("fusion", method="rrf"))
    assert rrf["b"] == pytest.approx(1 / 62 + 1 / 61) and rrf["a"] == pytest.approx(1 / 61)
    assert [d for d, _ in order("fusion", method="rrf")] == ["b", "a", "d", "c"]
    # Borda: A has 3 documents (3, 2, 1 points), B 2 (2, 1): a 3, b 2 + 2, c 1, d 1.
    assert dict(order("fusion", method="borda")) == {"a": 3.0, "b": 4.0, "c": 1.0, "d": 1.0}
    # c and d tie at 1: best rank 2 (d) before 3 (c).
    assert [d for d, _ in order("fusion", method="borda")] == ["b", "a", "d", "c"]
    # CombSUM, min-max per run: A a 1, b 0.5, c 0; B b 1, d 0.
    assert dict(order("fusion", method="combsum")) == pytest.approx(
        {"a": 1.0, "b": 1.5, "c": 0.0, "d": 0.0})
    # CombMNZ multiplies by the number of runs: b 3.0.
    assert dict(order("fusion", method="combmnz"))["b"] == pytest.approx(3.0)


def test_rbp_method_a_hand_worked() -> None:
    # p = 0.5: weight (1-p) p^(r-1): a 0.5, b 0.25 + 0.5, c 0.125, d 0.25.
    assert dict(order("rbp", p=0.5)) == {"a": 0.5, "b": 0.75, "c": 0.125, "d": 0.25}
    assert [d for d, _ in order("rbp", p=0.5)] == ["b", "a", "d", "c"]


def test_take_and_depth_orders() -> None:
    # best ranks: a 1, b 1 (two runs) -> b first; d 2, c 3
    assert [d for d, _ in order("take")] == ["b", "a", "d", "c"]
    assert [d for d, _ in order("depth", depth=2)] == ["a", "b", "d"]
    assert build_pool("take", runs(), budget=2).pairs() == {("1", "a"), ("1", "b")}


def test_split_budget() -> None:
    assert split_budget(10, {"1": 2, "2": 10, "3": 10}) == {"1": 2, "2": 4, "3": 4}
    assert split_budget(7, {"2": 5, "10": 5}) == {"2": 4, "10": 3}   # natural order gets extra
    assert split_budget(100, {"1": 3, "2": 4}) == {"1": 3, "2": 4}
    with pytest.raises(PoolingError, match="'total' budget must be an int >= 0"):
        split_budget(-1, {"1": 3})


@given(st.integers(0, 200), st.dictionaries(st.sampled_from([str(i) for i in range(12)]),
                                            st.integers(0, 40), min_size=1))
def test_split_budget_properties(total: int, avail: dict[str, int]) -> None:
    out = split_budget(total, avail)
    assert sum(out.values()) == min(total, sum(avail.values()))
    assert all(0 <= out[t] <= avail[t] for t in avail)
    open_ = [out[t] for t in avail if out[t] < avail[t]]
    # topics below their cap got the even share (or one more), and no capped topic
    # was given more than them
    if open_:
        assert max(open_) - min(open_) <= 1
        assert all(out[t] <= min(open_) + 1 for t in avail)


def test_global_budget_through_build_pool() -> None:
    two = {"A": Run.read(A + "2 Q0 x 1 1.0 A\n"), "B": Run.read(B)}
    pool = build_pool("rbp", two, total=3)
    assert pool.sizes() == {"1": 2, "2": 1}


def test_registry_names_and_suggestions() -> None:
    assert set(names("static")) == {"depth", "take", "fusion", "rbp"}
    assert set(names("adaptive")) == {"mtf", "bandit", "hedge", "rbp-adaptive", "cal"}
    with pytest.raises(PoolingError, match="did you mean 'bandit'"):
        get("bandt")
    with pytest.raises(PoolingError, match="has no parameter 'methd'; did you mean 'method'"):
        get("fusion").validate({"methd": "rrf"})
    with pytest.raises(PoolingError, match="did you mean 'borda'"):
        get("fusion").validate({"method": "brda"})
    with pytest.raises(PoolingError, match="is adaptive"):
        build_pool("bandit", runs())
    assert parse_params(["k=60", "method = rrf"]) == {"k": "60", "method": "rrf"}
    with pytest.raises(PoolingError, match="'name=value'"):
        parse_params(["k"])


BAD = {int: [0, -3, "x", 1.5, True], float: ["x", float("nan"), True, -1.0, 2.0],
       str: [3, "nope"]}


@pytest.mark.parametrize("name", sorted(load_all()))
def test_every_parameter_rejects_bad_values(name: str) -> None:
    s = get(name)
    for p in s.params:
        assert s.validate({})[p.name] == p.default
        assert s.validate({p.name: str(p.default)})[p.name] == p.default   # CLI text
        for bad in BAD[p.kind]:
            if p.kind is float and isinstance(bad, float) and p.low is not None and (
                    p.high is None and bad >= p.low):
                continue
            if p.kind is int and type(bad) is int and p.low is not None and bad >= p.low:
                continue    # within the range (cal's seed_depth and sample take 0)
            with pytest.raises(PoolingError,
                               match=rf"The '{p.name}' parameter of {name} must be "):
                s.validate({p.name: bad})


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 6))
def test_depth_strategy_equals_depth_pool(k: int) -> None:
    r = {"A": Run.read(A), "B": Run.read(B)}
    assert build_pool("depth", r, {"depth": k}).pairs() == depth_pool(r, k).pairs()


def test_same_input_same_bytes(tmp_path: Path) -> None:
    for s in names("static"):
        f1, f2 = tmp_path / f"{s}1.tsv", tmp_path / f"{s}2.tsv"
        build_pool(s, runs(), budget=3).write(f1)
        build_pool(s, {"B": Run.read(B), "A": Run.read(A)}, budget=3).write(f2)
        assert f1.read_bytes() == f2.read_bytes()
        assert Pool.read(f1)[0] == build_pool(s, runs(), budget=3)


def test_awkward_runs() -> None:
    # rank column disagrees with scores: scores decide, and it is detected
    bad = Run.read("q1 Q0 x 1 0.1 r\nq1 Q0 y 2 0.9 r\n")
    assert rank_disagreements(bad) == ["q1"]
    assert rank_disagreements(Run.read(A)) == []
    assert build_pool("take", {"r": bad}, budget=1).pairs() == {("q1", "y")}
    # duplicate document within the kept depth: an error naming the line
    dup = Run.read("1 Q0 d 1 2.0 r\n1 Q0 d 2 1.0 r\n")
    with pytest.raises(DuplicateDocumentError):
        build_pool("fusion", {"r": dup})
    # non-numeric and zero-padded topic ids stay strings, in natural order
    odd = Run.read("007 Q0 a 1 1 r\n7 Q0 b 1 1 r\nq2 Q0 c 1 1 r\n")
    # "007" and "7" are different topics; equal numbers fall back to string order
    assert build_pool("rbp", {"r": odd}).topics() == ["007", "7", "q2"]
    assert {e.topic for e in build_pool("rbp", {"r": odd})} == {"007", "7", "q2"}
    # a run shorter than the depth contributes what it has
    assert build_pool("depth", {"r": Run.read(B)}, {"depth": 10}).sizes() == {"1": 2}
    with pytest.raises(PoolingError, match="give a per-topic budget or a total"):
        build_pool("take", runs(), budget=1, total=2)


def test_presentation_order() -> None:
    items = [("b", 0.1), ("a", 0.5), ("c", 0.5)]
    assert present(items, "docno", docno=str) == ["a", "b", "c"]
    assert present(items, "priority", docno=str) == ["a", "c", "b"]
    r1 = present(items, "random", docno=str, seed="1:ann:5")
    assert r1 == present(list(reversed(items)), "random", docno=str, seed="1:ann:5")
    assert sorted(r1) == ["a", "b", "c"]
    assert len({tuple(present(items, "random", docno=str, seed=f"1:{a}:5"))
                for a in "abcdefgh"}) > 1
    with pytest.raises(PoolingError, match="did you mean 'random'"):
        present(items, "randm", docno=str)
