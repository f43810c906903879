"""Sampling and estimators, pool statistics, coverage, leave-one-out reuse, the CLI."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from helpers import CONFORMANCE, SHARED, needs_shared, run_cli
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.inferred.statap import estimated_relevant, stat_ap
from relkit.pooling.coverage import coverage
from relkit.pooling.depth import depth_pool
from relkit.pooling.pool import Pool, PoolEntry
from relkit.pooling.reuse import leave_out
from relkit.pooling.sample import (
    infap_qrels,
    parse_strata,
    prels,
    read_sample,
    stratified_sample,
    write_sample,
)
from relkit.pooling.stats import contributions, overlap, shared_by_one

CRAN = SHARED / "corpora" / "cranfield"

RUN = """\
1 Q0 a 1 5 r
1 Q0 b 2 4 r
1 Q0 c 3 3 r
1 Q0 d 4 2 r
"""


def test_stat_ap_with_every_probability_one_is_ap() -> None:
    q = {"1": {"a": 1, "b": 0, "c": 1, "e": 1}}
    ap = Evaluator(Qrels.from_dict(q), ["map"]).aggregate(Run.read(RUN)).iloc[0]
    est = stat_ap(Run.read(RUN), {"1": {d: (g, 1.0) for d, g in q["1"].items()}})
    # AP = (1/1 + 2/3) / 3
    assert est["1"] == pytest.approx(ap) == pytest.approx((1 + 2 / 3) / 3)


def test_stat_ap_hand_worked() -> None:
    # Sample: a (rel, pi 1), c (rel, pi 0.5), d (non-rel, pi 0.5), e (rel, pi 0.25, not
    # retrieved). R^ = 1 + 2 + 4 = 7.
    # a at rank 1: PC = (1 + 0)/1 = 1, term 1/1 = 1.
    # c at rank 3: PC = (1 + 1/1)/3 = 2/3, term (2/3)/0.5 = 4/3.
    # statAP = (1 + 4/3) / 7 = 1/3.
    p = {"1": {"a": (1, 1.0), "c": (2, 0.5), "d": (0, 0.5), "e": (1, 0.25)}}
    assert estimated_relevant(p) == {"1": 7.0}
    assert stat_ap(Run.read(RUN), p)["1"] == pytest.approx(1 / 3)
    assert stat_ap(Run.read(RUN), {"1": {"d": (0, 1.0)}}) == {"1": 0.0}


def test_horvitz_thompson_r_is_unbiased_over_every_sample() -> None:
    # Stratum 1: 4 docs, 2 drawn (pi 1/2), relevant: x1, x2, x3. Stratum 2: 3 docs, 1
    # drawn (pi 1/3), relevant: y1. True R = 4; the mean of R^ over all equally likely
    # samples must be exactly 4.
    s1 = {"x1": 1, "x2": 1, "x3": 1, "x4": 0}
    s2 = {"y1": 1, "y2": 0, "y3": 0}
    vals = []
    for a in itertools.combinations(s1, 2):
        for b in itertools.combinations(s2, 1):
            p = {"1": {**{d: (s1[d], 0.5) for d in a}, **{d: (s2[d], 1 / 3) for d in b}}}
            vals.append(estimated_relevant(p)["1"])
    assert math.fsum(vals) / len(vals) == pytest.approx(4.0)


def test_stratified_sample_probabilities_and_round_trip(tmp_path: Path) -> None:
    entries = tuple(PoolEntry("1", f"d{i:02d}", 1.0, (("r", i),)) for i in range(1, 21))
    pool = Pool(entries)
    strata = parse_strata("5:1,10:0.4,20:0.1")
    s = stratified_sample(pool, strata, seed=4)
    by = {}
    for x in s:
        by.setdefault(x.stratum, []).append(x)
    assert len(by[1]) == 5 and {x.probability for x in by[1]} == {1.0}
    assert len(by[2]) == 2 and {x.probability for x in by[2]} == {0.4}     # 2 of 5
    assert len(by[3]) == 1 and {x.probability for x in by[3]} == {0.1}     # 1 of 10
    assert s == stratified_sample(pool, strata, seed=4)
    f = tmp_path / "s.tsv"
    write_sample(s, f)
    assert read_sample(f) == s
    write_sample(read_sample(f), tmp_path / "t.tsv")
    assert f.read_bytes() == (tmp_path / "t.tsv").read_bytes()
    with pytest.raises(Exception, match="ranks increasing"):
        parse_strata("10:1,5:0.5")
    judged = {(x.topic, x.doc): 1 for x in s}
    q = infap_qrels(pool, s, judged)
    assert sum(1 for g in q["1"].values() if g == -1) == 20 - len(s)
    assert prels(s, judged)["1"]["d01"] == (1, 1.0)


def test_infap_with_everything_sampled_is_ap() -> None:
    run = Run.read(RUN)
    pool = depth_pool({"r": run}, 4)
    s = stratified_sample(pool, [(10, 1.0)])
    q = Qrels.from_dict(infap_qrels(pool, s, {("1", "a"): 1, ("1", "b"): 0, ("1", "c"): 1,
                                              ("1", "d"): 0}))
    v = Evaluator(q, ["map", "infAP"]).aggregate(run)
    assert v.iloc[1] == pytest.approx(v.iloc[0], abs=1e-4)   # eps = 1e-5 in m_infap.c


@needs_shared
def test_infap_from_minus_one_labels_matches_trec_eval() -> None:
    # qrels.rel_level marks 304 pooled-but-unjudged documents -1; out.test.aql is trec_eval's
    # output with -l2 (4 decimals).
    expected = {}
    for line in (CONFORMANCE / "out.test.aql").read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == "infAP":
            expected[parts[1]] = float(parts[2])
    ev = Evaluator(Qrels.read(CONFORMANCE / "qrels.rel_level"), ["infAP"], level=2)
    got = ev.evaluate(Run.read(CONFORMANCE / "results.test"))
    for t, v in zip(got["query_id"], got["value"], strict=True):
        assert v == pytest.approx(expected[t], abs=5e-5)
    assert len(got) == 3


def _pool() -> Pool:
    return Pool((PoolEntry("1", "a", 1.0, (("r1", 1), ("r2", 2))),
                 PoolEntry("1", "b", 1.0, (("r1", 2),)),
                 PoolEntry("1", "c", 1.0, (("r3", 1),)),
                 PoolEntry("2", "a", 1.0, (("r2", 1),))))


def test_pool_stats_hand_worked() -> None:
    by_run = {c.name: (c.contributed, c.unique) for c in contributions(_pool())}
    assert by_run == {"r1": (2, 1), "r2": (2, 1), "r3": (1, 1)}
    g = {c.name: (c.contributed, c.unique)
         for c in contributions(_pool(), {"r1": "G", "r2": "G", "r3": "H"})}
    assert g == {"G": (3, 3), "H": (1, 1)}
    ov = overlap(_pool())
    # r1 vs r2: topic 1 {a,b} vs {a} -> 1/2; topic 2 {} vs {a} -> 0; mean 1/4
    assert ov[("r1", "r2")] == pytest.approx(0.25)
    assert shared_by_one(_pool()) == 0.75


def test_coverage_hand_worked() -> None:
    q = Qrels.from_dict({"1": {"a": 1, "c": 0, "z": 1}})
    cov = coverage(q, {"r": Run.read(RUN)}, [2])
    # top 2 = a, b: a judged -> 1/2; whole ranking a, c judged of 4 -> unjudged 1/2
    assert cov == {"r": {"Judged@2": 0.5, "unjudged": 0.5}}


def test_leave_one_out_hand_worked() -> None:
    # x alone found relevant d2; y alone found relevant d3; both found d1 (relevant).
    x = Run.read("1 Q0 d1 1 3 x\n1 Q0 d2 2 2 x\n")
    y = Run.read("1 Q0 d1 1 3 y\n1 Q0 d3 2 2 y\n1 Q0 d4 3 1 y\n")
    q = Qrels.from_dict({"1": {"d1": 1, "d2": 1, "d3": 1, "d4": 0}})
    rows = {r.run: r for r in leave_out(q, {"x": x, "y": y}, depth=10)}
    # full: x AP = (1 + 1)/3 = 2/3; y AP = (1 + 1)/3 = 2/3 -> tied, rank 1 both
    assert rows["x"].full == pytest.approx(2 / 3) and rows["y"].full == pytest.approx(2 / 3)
    # without x's unique d2: R = 2, x retrieves d1 only -> AP 1/2
    assert rows["x"].left_out == pytest.approx(0.5) and rows["x"].removed == 1
    # without y's unique d3 and d4 (judged, one relevant): R = 2, y has d1 -> 1/2
    assert rows["y"].removed == 2 and rows["y"].removed_relevant == 1
    assert rows["y"].left_out == pytest.approx(0.5)
    assert rows["x"].rank_drop == 1 and rows["x"].tau is None   # one ordering all tied


@pytest.mark.slow
@pytest.mark.skipif(not CRAN.is_dir(), reason=f"{CRAN} not found")
def test_cli_on_cranfield(tmp_path: Path) -> None:
    runs = " ".join(str(p) for p in sorted((CRAN / "runs").glob("*/*.txt")))
    code, out, err = run_cli(f"pool {runs} --strategy fusion --param method=rrf --budget 10 "
                             f"-o {tmp_path / 'p.tsv'}")
    assert code == 0, err
    pool, _ = Pool.read(tmp_path / "p.tsv")
    assert set(pool.sizes().values()) == {10} and len(pool.sizes()) == 225
    code, out, err = run_cli(f"pool {runs} --depth 5 --topic 1 --topic 2")
    assert code == 0 and out.splitlines()[0] == "topic\tdoc\tpriority\tprovenance"
    assert {line.split("\t")[0] for line in out.splitlines()[1:]} == {"1", "2"}
    assert "warning" not in err          # Cranfield's rank columns follow the scores
    code, out, err = run_cli(f"pool-stats {tmp_path / 'p.tsv'} --overlap")
    assert code == 0 and out.count("\nrun\t") == 6 and "overlap\t" in out
    code, out, err = run_cli(f"pool-coverage {CRAN / 'cranqrel'} {runs} -k 10")
    assert code == 0 and len(out.splitlines()) == 7
    code, out, err = run_cli(f"pool-reuse {CRAN / 'cranqrel'} {runs} --depth 50 "
                             "--group-by dir")
    assert code == 0 and "taylorj8" in out, err
    svg = tmp_path / "curve.svg"
    code, out, err = run_cli(f"pool-simulate {CRAN / 'cranqrel'} {runs} -s depth "
                             f"-s bandit:policy=thompson --budget 5,10 --plot {svg}")
    assert code == 0, err
    assert len(out.splitlines()) == 5 and svg.read_text().startswith("<?xml")
    code, out, err = run_cli(f"pool {runs} --strategy bandt")
    # a value --strategy cannot take: a usage error (exit 2), with the suggestion
    assert code == 2 and err.startswith("relkit pool: error: Invalid value for --strategy: "
                                        "unknown pooling strategy 'bandt'; did you mean "
                                        "'bandit'?")
    code, out, err = run_cli("pool-strategies")
    from relkit.pooling.strategies import REGISTRY

    # a header, then one line per registered strategy (cal and whatever comes next)
    assert code == 0 and len(out.splitlines()) == 1 + len(REGISTRY) >= 10
    assert {line.split("\t")[0] for line in out.splitlines()[1:]} == set(REGISTRY.names())
    code, out, err = run_cli(f"pool-sample {tmp_path / 'p.tsv'} --strata 3:1,10:0.5 "
                             f"-o {tmp_path / 's.tsv'}")
    assert code == 0, err
    sample = read_sample(tmp_path / "s.tsv")
    assert {x.probability for x in sample if x.stratum == 1} == {1.0}
    assert all(x.probability < 1 for x in sample if x.stratum == 2)
