"""Adaptive strategies: determinism, resumption, replay on Cranfield against depth-k."""

from __future__ import annotations

import pytest

from helpers import SHARED
from relkit.metrics.data import Qrels, Run
from relkit.pooling.adaptive import AdaptivePool, Judgment
from relkit.pooling.cal.texts import TextSource
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.simulate import Plan, grades_of, simulate
from relkit.pooling.strategies import names

CRAN = SHARED / "corpora" / "cranfield"
needs_cranfield = pytest.mark.skipif(not CRAN.is_dir(), reason=f"{CRAN} not found")

A = "".join(f"1 Q0 d{i:02d} {i} {100 - i} A\n" for i in range(1, 21))
B = "".join(f"1 Q0 d{i:02d} {i} {100 - i} B\n" for i in range(40, 10, -1))
REL = {"d03", "d05", "d12", "d30", "d33"}


# The documents' text, for the strategies that read it (cal); the others ignore it.
TEXT = TextSource({f"d{i:02d}": f"report {('alpha', 'beta', 'gamma')[i % 3]} item{i}"
                   for i in range(1, 41)}, {"1": "alpha report"})


def cands() -> Candidates:
    c = Candidates.from_runs({"A": Run.read(A), "B": Run.read(B)})
    return Candidates(c.lists, c.scores, c.depth, text=TEXT)


def drive(pool: AdaptivePool, n: int) -> list[str]:
    out = []
    for _ in range(n):
        d = pool.next("1")
        if d is None:
            break
        pool.record("1", d, 1 if d in REL else 0)
        out.append(d)
    return out


@pytest.mark.parametrize("name", names("adaptive"))
def test_same_seed_same_sequence_and_resume(name: str) -> None:
    params = {"policy": "thompson"} if name == "bandit" else {}
    first = AdaptivePool(name, cands(), params, seed=3)
    seq = drive(first, 40)
    assert len(seq) == len(set(seq)) == 40        # 40 distinct candidates, each judged once
    assert seq == drive(AdaptivePool(name, cands(), params, seed=3), 40)
    # interrupted after 15 judgments: replaying the log continues the same sequence
    again = AdaptivePool(name, cands(), params, seed=3)
    again.resume(first.log[:15])
    assert again.log == first.log[:15]
    assert drive(again, 25) == seq[15:]
    # next() is idempotent until a judgment is recorded
    p = AdaptivePool(name, cands(), params, seed=3)
    assert p.next("1") == p.next("1") == seq[0]
    assert drive(AdaptivePool(name, cands(), params, seed=3), 50) == seq  # then exhausted


def test_thompson_depends_on_seed_and_mtf_follows_relevance() -> None:
    seqs = {tuple(drive(AdaptivePool("bandit", cands(), {"policy": "thompson"}, seed=s), 20))
            for s in range(6)}
    assert len(seqs) > 1
    # MTF, runs queued A, B. B ranks d11 first (highest score; its rank column runs the
    # other way). A's d01 is not relevant -> B to the front: d11 (no) -> A: d02 (no) ->
    # B: d12 (relevant: B stays) -> d13 (no) -> A: d03 (relevant) -> d04.
    assert drive(AdaptivePool("mtf", cands()), 7) == [
        "d01", "d11", "d02", "d12", "d13", "d03", "d04"]


def test_hedge_first_choice_and_errors() -> None:
    # Equal weights: the first pick maximises the summed rank value v_A + v_B. d11 is
    # rank 11 in A and rank 1 in B: v_B = 1 plus v_A(11) > 0 beats d01 (v_A = 1 only).
    h = AdaptivePool("hedge", cands())
    assert h.next("1") == "d11"
    with pytest.raises(PoolingError, match="not a candidate"):
        h.record("1", "zzz", 1)
    h.record("1", "d07", 0)                       # out of turn: marked judged
    with pytest.raises(PoolingError, match="already judged"):
        h.record("1", "d07", 1)
    with pytest.raises(PoolingError, match="has no candidates"):
        h.next("2")
    with pytest.raises(PoolingError, match="static strategy"):
        AdaptivePool("depth", cands())
    assert h.judged_count("1") == 1


def test_judgment_log_is_plain_data() -> None:
    p = AdaptivePool("bandit", cands(), seed=1)
    drive(p, 3)
    assert all(isinstance(j, Judgment) for j in p.log) and len(p.log) == 3


@pytest.mark.slow
@needs_cranfield
def test_cranfield_adaptive_beats_depth_at_equal_budget() -> None:
    paths = sorted((CRAN / "runs").glob("*/*.txt"))
    from relkit.pooling.depth import run_name

    runs = {run_name(p): Run.read(p) for p in paths}
    qrels = Qrels.read(CRAN / "cranqrel")
    plans = [Plan("depth", "depth", {}), Plan("mtf", "mtf", {}),
             Plan("bandit", "bandit", {}), Plan("thompson", "bandit", {"policy": "thompson"}),
             Plan("hedge", "hedge", {})]
    sim = simulate(qrels, runs, plans, [25, 50, 100])
    found = {(r.label, r.budget): r.relevant for r in sim.rows}
    # 1,612 relevant (grades 1-4) in the qrels; 1,071 retrieved by some run's top 50
    row = sim.rows[0]
    assert (row.relevant_total, row.relevant_in_runs) == (1612, 1071)
    for label in ("mtf", "bandit", "thompson", "hedge"):
        for b in (25, 50):
            assert found[(label, b)] > found[("depth", b)], (label, b)
        # at 100 per topic the whole pool (83 documents per topic on average) is judged
        assert found[(label, 100)] == found[("depth", 100)] == 1071
    assert all(r.tau is not None and r.tau >= 0.7 for r in sim.rows)
    # the curve ends where the table does
    assert sim.curves["hedge"][25] == found[("hedge", 25)]


def test_grades_of_keeps_negative_as_pooled_not_judged() -> None:
    # one meaning for -1 (relkit.metrics.readers.grades; tests/test_grades_rule.py)
    q = Qrels.read("1 0 a -1\n1 0 b 2\n")
    assert grades_of(q) == {"1": {"a": -1, "b": 2}}
