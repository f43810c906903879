"""Stopping rules in adaptive judging: AdaptivePool, the judging store, the CLI.

Oracles: :func:`relkit.pooling.stopping.knee_stop`, ``draw_target`` and
``target_stop`` (the rules over whole judgment sequences, hand-checked in
``test_pool_stopping.py``) applied to the sequence the same strategy picks
without a rule.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store import adaptive
from relkit.judging.store.assign import Store
from relkit.metrics.data import Run
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.stopping import KneeState, StopRule, draw_target, knee_stop, parse_stop


def synthetic(n_topics: int = 3, n_docs: int = 1200, n_rel: int = 200, n_runs: int = 12,
              seed: int = 0) -> tuple[Candidates, dict[str, dict[str, int]]]:
    """Runs that rank relevant documents higher, noisily (a score per run and document)."""
    rng = np.random.default_rng(seed)
    lists: dict[str, dict[str, list[str]]] = {}
    grades: dict[str, dict[str, int]] = {}
    for t in range(n_topics):
        topic = f"q{t}"
        rel = rng.permutation(n_docs) < n_rel
        docs = [f"{topic}-d{i:05d}" for i in range(n_docs)]
        grades[topic] = {d: int(r) for d, r in zip(docs, rel, strict=True)}
        for r in range(n_runs):
            score = rel * rng.uniform(0.5, 2.0) + rng.normal(size=n_docs)
            order = np.argsort(-score, kind="stable")
            lists.setdefault(f"r{r}", {})[topic] = [docs[i] for i in order]
    runs = {name: Run.from_dict({t: {d: float(-k) for k, d in enumerate(ds)}
                                 for t, ds in per.items()}) for name, per in lists.items()}
    return Candidates.from_runs(runs, None), grades


def test_parse_stop() -> None:
    assert parse_stop("knee") == StopRule("knee")
    assert parse_stop("target") == StopRule("target", 10)   # the paper's T
    assert parse_stop("target:3") == StopRule("target", 3)
    assert str(parse_stop("target:3")) == "target:3" and parse_stop(None) is None
    for bad in ("kne", "target:0", "target:x", "knee:2"):
        with pytest.raises(PoolingError):
            parse_stop(bad)


def test_knee_hand_worked_paper_parameters() -> None:
    # 150 relevant, then non-relevant: the knee is at 150, rho = 1 / (1 / (s - 150))
    # = s - 150 (the +1 keeps the flat tail finite), and with 150 found the rule
    # wants rho >= 156 - 150 = 6: stop at s = 156.
    k = KneeState()
    stops = [k.add(g) for g in [True] * 150 + [False] * 10]
    assert stops.index(True) + 1 == 156 == k.stopped_at
    # 10 relevant: a steeper knee is needed, rho = s - 10 >= 156 - 10 = 146: s = 156.
    k = KneeState()
    for g in [True] * 10 + [False] * 200:
        k.add(g)
    assert k.stopped_at == 156
    # 100 relevant, then non-relevant: s - 100 >= 156 - 100, s = 156 again (a clean
    # step always stops at 156 with fewer than 150 found: the threshold falls by one
    # per relevant document as the tail needs one more non-relevant one).
    k = KneeState()
    for g in [True] * 100 + [False] * 60:
        k.add(g)
    assert k.stopped_at == 156
    # The minimum binds when raised: 10 relevant, the rule met at 156, but not
    # checked before 200 judgments (rho = 190 >= 146 there).
    k = KneeState(min_judged=200)
    for g in [True] * 10 + [False] * 300:
        k.add(g)
    assert k.stopped_at == 200 == knee_stop([True] * 10 + [False] * 300, min_judged=200)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.booleans(), max_size=400), st.integers(0, 200))
def test_knee_state_equals_knee_stop(gains: list[bool], min_judged: int) -> None:
    k = KneeState(min_judged=min_judged)
    for g in gains:
        k.add(g)
    assert k.stopped_at == knee_stop(gains, min_judged=min_judged)


STRATEGIES = [("bandit", {}), ("bandit", {"policy": "mm-ns"}), ("mtf", {}), ("hedge", {})]


@pytest.mark.parametrize(("strategy", "params"), STRATEGIES)
def test_knee_stops_the_adaptive_sequence_where_knee_stop_says(strategy: str,
                                                                params: dict[str, Any]) -> None:
    cands, grades = synthetic(n_topics=2, n_docs=800, n_rel=160, n_runs=6)
    free = AdaptivePool(strategy, cands, params, seed=3)
    ruled = AdaptivePool(strategy, cands, params, seed=3, stop="knee")
    for t in cands.topics:
        g = grades[t]
        full = free.run(t, g.__getitem__, 10_000)
        cut = ruled.run(t, g.__getitem__, 10_000)
        s = knee_stop([j.grade for j in full])
        assert s is not None and len(cut) == s < len(full)
        assert cut == full[:s]
        assert ruled.next(t) is None and ruled.stopped_after(t) == s
        assert "knee" in (ruled.stopped(t) or "") and free.stopped(t) is None


@pytest.mark.parametrize(("strategy", "params"), STRATEGIES)
@pytest.mark.parametrize("size", [1, 3, 10])
def test_target_method_samples_then_reviews_until_every_target_is_found(
        strategy: str, params: dict[str, Any], size: int) -> None:
    cands, grades = synthetic(n_topics=2, n_docs=400, n_rel=30, n_runs=5, seed=1)
    free = AdaptivePool(strategy, cands, params, seed=4)
    ruled = AdaptivePool(strategy, cands, params, seed=4, stop=f"target:{size}")
    for t in cands.topics:
        g = grades[t]
        docs = cands.matrix(t).docs
        # The sample: a simple random sample until `size` relevant (draw_target).
        target, cost = draw_target(docs, lambda d, g=g: g[d] > 0, size,
                                   seed=f"4:target:{t}")  # type: ignore[arg-type]
        shown = [j.doc for j in ruled.run(t, g.__getitem__, 10_000)]
        sample = shown[:cost]
        assert len(set(sample)) == cost and target <= set(sample)
        assert sum(g[d] for d in sample) == size and g[sample[-1]] == 1
        # The review is the strategy's own sequence (the sample kept from it), cut
        # when its picks hold every target; documents the sample judged are not
        # shown again.
        order = [j.doc for j in free.run(t, g.__getitem__, 10_000)]
        stop = max(order.index(d) for d in target) + 1
        assert shown[cost:] == [d for d in order[:stop] if d not in set(sample)]
        assert ruled.next(t) is None and "every target document" in (ruled.stopped(t) or "")
        assert ruled.stopped_after(t) == len(shown)


def test_target_without_relevant_judges_everything_then_stops() -> None:
    cands, grades = synthetic(n_topics=1, n_docs=50, n_rel=0, n_runs=3)
    pool = AdaptivePool("bandit", cands, {}, seed=0, stop="target")
    shown = pool.run("q0", grades["q0"].__getitem__, 10_000)
    assert len(shown) == 50 and "nothing relevant" in (pool.stopped("q0") or "")


def test_stopping_rule_resumes_exactly() -> None:
    cands, grades = synthetic(n_topics=1, n_docs=500, n_rel=40, n_runs=5, seed=2)
    for rule in ("knee", "target:5"):
        a = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=9, stop=rule)
        seq = a.run("q0", grades["q0"].__getitem__, 10_000)
        b = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=9, stop=rule)
        b.resume(seq[:37])
        rest = b.run("q0", grades["q0"].__getitem__, 10_000)
        assert seq[:37] + rest == seq and b.stopped("q0") == a.stopped("q0")


def test_knee_reaches_high_recall_on_a_synthetic_collection() -> None:
    """Cormack & Grossman (SIGIR 2016): the knee method stops with high recall (their
    reliability target: recall >= 0.7 on nearly every topic) at a fraction of the
    documents. Here: 200 relevant of 1,200 candidates per topic, 12 noisy runs."""
    cands, grades = synthetic(n_topics=4, n_docs=1200, n_rel=200, n_runs=12, seed=5)
    pool = AdaptivePool("bandit", cands, {"policy": "mm-ns"}, seed=0, stop="knee")
    recalls, effort = [], []
    for t in cands.topics:
        seq = pool.run(t, grades[t].__getitem__, 10_000)
        assert pool.stopped(t) is not None
        recalls.append(sum(j.grade for j in seq) / 200)
        effort.append(len(seq) / 1200)
    assert min(recalls) >= 0.7 and sum(recalls) / len(recalls) >= 0.85
    assert max(effort) < 1.0


# -- the judging store and the CLI ---------------------------------------------------------------
DOCS = [f"d{i:03d}" for i in range(300)]
GR = {d: int(i % 7 == 0) * 2 for i, d in enumerate(DOCS)}   # TREC DL: 2 is relevant


def store_runs() -> dict[str, Run]:
    rng = random.Random(7)
    runs = {}
    for r in range(4):
        ranked = sorted(DOCS, key=lambda d: -(GR[d] * rng.uniform(0.5, 1.5)
                                              + rng.random()))
        runs[f"r{r}"] = Run.from_dict({"1": {d: float(-k) for k, d in enumerate(ranked)}})
    return runs


def test_store_stops_the_primary_and_status_reports_it(db_url: str) -> None:
    store = Store.open(db_url)
    store.create_collection("c", TREC_DL, [Topic("1", "one")],
                            [Document(d, d, f"text {d}") for d in DOCS])
    cands = Candidates.from_runs(store_runs(), None)
    adaptive.import_pool(store, cands, adaptive.Definition("bandit", {}, 2, 280, stop="knee"),
                         name="ad")
    store.assign(["ann"], seed=1)
    assert adaptive.stops(store) == []
    view = store.assessor("ann")
    shown = []
    while (item := view.next_item("1")) is not None:
        shown.append(item.doc)
        view.record(topic="1", doc=item.doc, grade=GR[item.doc])
    ref = AdaptivePool("bandit", cands, {}, seed=2, level=2, max_grade=3)
    full = [j.doc for j in ref.run("1", GR.__getitem__, 280)]
    s = knee_stop([GR[d] >= 2 for d in full])
    assert s is not None and s < 280 and shown == full[:s]
    (only,) = adaptive.stops(store)
    assert (only.topic, only.assessor, only.pool, only.rule, only.judged, only.budget) == \
        ("1", "ann", "ad", "knee", s, 280)
    assert store.assessor("ann").next_item("1") is None   # a cold view agrees
    code, out, err = run_cli(["status", "--db", db_url])
    assert code == 0, err
    assert out.splitlines()[-2:] == ["stopped  assessor  pool  rule  judged  budget",
                                     f"1        ann       ad    knee  {s:<6}  280"]
    code, out, err = run_cli(["status", "--db", db_url, "--format", "tsv"])
    assert out.splitlines()[-1] == f"1\tann\tad\tknee\t{s}\t280"
    code, out, err = run_cli(["status", "--db", db_url, "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["stopped"][0]["judged"] == s


def test_cli_pool_stop(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = Store.open(str(db))
    store.create_collection("c", TREC_DL, [Topic("1", "one")],
                            [Document(d, d, f"text {d}") for d in DOCS])
    store.close()
    files = []
    for name, run in store_runs().items():
        p = tmp_path / f"{name}.txt"
        run.write(p)
        files.append(str(p))
    code, _, err = run_cli(["pool", *files, "-s", "bandit", "--budget", "280", "--stop", "kne",
                            "--db", str(db)])
    assert code == 2 and "--stop" in err and "Traceback" not in err
    code, _, err = run_cli(["pool", *files, "--stop", "knee", "-o", str(tmp_path / "x.tsv")])
    assert code == 2 and "--stop" in err
    code, _, err = run_cli(["pool", *files, "-s", "bandit", "--budget", "280", "--stop",
                            "target:3", "--db", str(db)])
    assert code == 0, err
    assert "stop target:3" in err
    code, out, err = run_cli(["status", "--db", str(db)])
    assert code == 0 and "stopped" not in out       # nothing judged yet


def test_simulate_with_a_stopping_rule() -> None:
    from relkit.metrics.data import Qrels
    from relkit.pooling.simulate import Plan, simulate

    cands, grades = synthetic(n_topics=2, n_docs=800, n_rel=160, n_runs=6)
    runs = {r: Run.from_dict({t: {d: float(-k) for k, d in enumerate(cands.lists[t][r])}
                              for t in cands.topics}) for r in cands.runs}
    qrels = Qrels.from_dict(grades)
    plans = [Plan("depth", "depth", {}), Plan("bandit", "bandit", {})]
    free = simulate(qrels, runs, plans, [800])
    ruled = simulate(qrels, runs, plans, [800], stop="knee")
    pool = AdaptivePool("bandit", cands, {}, seed=0, stop="knee")
    want = {}
    for t in cands.topics:
        pool.run(t, grades[t].__getitem__, 800)
        want[t] = pool.stopped_after(t)
    assert ruled.stopped == {"bandit": want} and free.stopped == {}
    by = {(r.label, r.budget): r for r in ruled.rows}
    assert by[("bandit", 800)].judged == sum(want.values())          # stopped early
    assert by[("depth", 800)] == {(r.label, r.budget): r for r in free.rows}[("depth", 800)]
    code, _, err = run_cli(["pool-simulate", "-", "--stop", "nope", "x.txt"])
    assert code == 2 and "--stop" in err


def test_a_replayed_target_pool_knows_it_stopped_without_another_pick() -> None:
    """Tester: ``relkit status`` (a fresh replay of the history) listed only some
    stopped topics. A pool that replays the judgments knows the verdict the pool that
    took them reached, also when the rule stops on the review's next pick."""
    cands, grades = synthetic(n_topics=1, n_docs=500, n_rel=40, n_runs=5, seed=2)
    for size in (1, 3, 5):
        a = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=9, stop=f"target:{size}")
        seq = a.run("q0", grades["q0"].__getitem__, 10_000)
        assert a.stopped("q0") is not None
        b = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=9, stop=f"target:{size}")
        b.resume(seq)
        assert b.stopped("q0") == a.stopped("q0")
        assert b.stopped_after("q0") == a.stopped_after("q0") == len(seq)
