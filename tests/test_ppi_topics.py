"""Prediction-powered evaluation with whole topics sampled (``--design topics``): any
measure (AP, nDCG too), exact with every topic, ppi_py's numbers on the topic values."""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import SHARED, oracle, run_cli
from relkit import evaluate
from relkit.metrics.ppi.estimators import sparse_count
from relkit.metrics.ppi.measures import ppi_evaluate
from relkit.metrics.ppi.topics import draw_topics, topic_count

ppi_py = oracle("ppi_py", skip=True)
BENCH = Path(__file__).resolve().parents[1] / "bench"
MEASURES = ["AP", "nDCG@10", "P@5", "DCG@5"]


def _collection(seed: int = 3, topics: int = 24):
    """Random truth, a noisy judge's grades of the same pool, and a run."""
    rng = np.random.default_rng(seed)
    truth, auto, run = {}, {}, {}
    for i in range(topics):
        t = f"t{i}"
        docs = [f"d{j}" for j in range(int(rng.integers(6, 14)))]
        truth[t] = {d: int(rng.choice(4, p=[0.6, 0.2, 0.1, 0.1])) for d in docs}
        auto[t] = {d: int(min(3, g + rng.integers(0, 2))) if rng.random() < 0.7
                   else int(rng.integers(0, 4)) for d, g in truth[t].items()}
        ranked = list(rng.permutation(docs + ["x1", "x2"]))
        run[t] = {str(d): float(len(ranked) - r) for r, d in enumerate(ranked)}
    return truth, auto, run


def _sample(truth: dict, topics: list[str]) -> dict:
    return {t: truth[t] for t in topics}


def test_every_topic_sampled_gives_relkit_evals_exact_mean_and_no_width() -> None:
    truth, auto, run = _collection()
    rows = ppi_evaluate(truth, auto, {"r": run}, MEASURES, design="topics")
    exact = evaluate(truth, run, MEASURES).to_dict()
    assert [r.measure for r in rows] == MEASURES
    for r in rows:
        assert r.ppi.value == pytest.approx(exact[r.measure], abs=1e-12)
        assert r.ppi.high - r.ppi.low == pytest.approx(0.0, abs=1e-12)
        assert r.classical.value == pytest.approx(exact[r.measure], abs=1e-12)
        assert r.topics == 24 and r.labels == sum(len(d) for d in truth.values())


@pytest.mark.parametrize("measure", ["AP", "nDCG@10"])
def test_design_unbiased_over_every_sample_of_topics(measure: str) -> None:
    """The mean of the lambda = 1 and lambda = 0.4 estimates over all samples of 3 of 6
    topics is the exact mean: unbiased for a fixed lambda, for a normalised measure."""
    truth, auto, run = _collection(5, topics=6)
    exact = evaluate(truth, run, [measure]).to_dict()[measure]
    for lam in (1.0, 0.4):
        values = [ppi_evaluate(_sample(truth, list(s)), auto, {"r": run}, [measure],
                               design="topics", lam=lam)[0].ppi.value
                  for s in itertools.combinations(sorted(truth), 3)]
        assert float(np.mean(values)) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("measure", MEASURES)
def test_mean_and_interval_are_ppi_pys_on_the_topic_values(measure: str) -> None:
    """ppi_py's ppi_mean on the topic-level values (H on the sampled topics, A on every
    topic as the unlabelled set): the same point estimate at lambda = 1 and at 0 (the
    human-only mean). ppi_py's variance is i.i.d. (divisor n, an unlabelled term, the
    normal quantile); relkit's is the finite-population one, so the test takes ppi_py's
    labelled term out of its interval and checks relkit's variance is it times
    n/(n-1) (divisor n-1) times the finite-population factor 1 - n/N, with Student's
    quantile at n - 1 (fewer when sampled topics are 0 on both sides: sparse_count)."""
    from scipy.stats import norm, t

    truth, auto, run = _collection(7)
    topics = draw_topics(list(truth), 9, seed=2)
    per = evaluate(auto, run, [measure])
    a_all = np.array(per.values[0])
    hum = evaluate(_sample(truth, topics), run, [measure])
    h = np.array(hum.values[0])
    a = np.array([a_all[per.topics.index(x)] for x in hum.topics])
    big_n, n = len(a_all), len(h)
    for lam in (1.0, 0.0):
        row = ppi_evaluate(_sample(truth, topics), auto, {"r": run}, [measure],
                           design="topics", lam=lam)[0]
        point = float(np.ravel(ppi_py.ppi_mean_pointestimate(h, a, a_all, lam=lam))[0])
        lo, hi = (float(np.ravel(x)[0]) for x in ppi_py.ppi_mean_ci(h, a, a_all,
                                                                     alpha=0.05, lam=lam))
        assert row.ppi.value == pytest.approx(point, rel=1e-12)
        se_py = (hi - lo) / 2 / norm.ppf(0.975)
        labelled = se_py ** 2 - lam ** 2 * float(np.var(a_all)) / big_n
        assert labelled == pytest.approx(float(np.var(h - lam * a)) / n, rel=1e-9)
        assert row.ppi.se ** 2 == pytest.approx(labelled * n / (n - 1) * (1 - n / big_n),
                                                rel=1e-9)
        df = sparse_count(h, a, lam) - 1   # n - 1 unless topics are 0 on both sides
        assert row.ppi.high - row.ppi.value == pytest.approx(
            t.ppf(0.975, df) * row.ppi.se, rel=1e-9)
    assert row.classical.value == pytest.approx(float(h.mean()), rel=1e-12)


def test_tuned_lambda_costs_one_degree_of_freedom() -> None:
    """PPI++'s lambda, Cov(H, A)/Var(A) on the sampled topics, is the regression
    estimator's slope: its variance is (1 - n/N) sum(e^2) / (n (n - 2)), e the residuals
    about their mean, with Student's quantile at n - 2 (Cochran 1977, §7.3), computed
    here by hand from relkit eval's per-topic values."""
    from scipy.stats import t

    truth, auto, run = _collection(11)
    topics = draw_topics(list(truth), 10, seed=1)
    per = evaluate(auto, run, ["AP"])
    a_all = np.array(per.values[0])
    hum = evaluate(_sample(truth, topics), run, ["AP"])
    h = np.array(hum.values[0])
    a = np.array([a_all[per.topics.index(x)] for x in hum.topics])
    big_n, n = len(a_all), len(h)
    lam = float(np.cov(h, a, ddof=1)[0, 1] / np.var(a, ddof=1))
    e = h - lam * a
    row = ppi_evaluate(_sample(truth, topics), auto, {"r": run}, ["AP"],
                       design="topics")[0]
    assert row.ppi.lam == pytest.approx(lam, rel=1e-12)
    assert row.ppi.value == pytest.approx(lam * a_all.mean() + e.mean(), rel=1e-12)
    var = (1 - n / big_n) * float(np.sum((e - e.mean()) ** 2)) / (n * (n - 2))
    assert row.ppi.se ** 2 == pytest.approx(var, rel=1e-9)
    assert sparse_count(h, a, lam) == n    # no topic 0 on both sides here
    assert row.ppi.high - row.ppi.value == pytest.approx(
        t.ppf(0.975, n - 2) * row.ppi.se, rel=1e-9)


def _write(path: Path, qrels: dict) -> Path:
    path.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items()
                            for d, g in docs.items()))
    return path


def _files(tmp_path: Path):
    truth, auto, run = _collection()
    runf = tmp_path / "run.txt"
    runf.write_text("".join(f"{t} Q0 {d} {i} {s} tag\n" for t, docs in run.items()
                            for i, (d, s) in enumerate(docs.items(), 1)))
    return truth, _write(tmp_path / "auto.qrels", auto), runf


def test_cli_topics_design_end_to_end(tmp_path: Path) -> None:
    """pool-sample draws whole topics (seeded); eval --ppi --design topics prints AP and
    nDCG rows, the same numbers as the API."""
    from relkit.pooling.sample import read_sample

    truth, auto, run = _files(tmp_path)
    pairs = sum(len(d) for d in truth.values())
    out = tmp_path / "s.tsv"
    code, _, err = run_cli(["pool-sample", str(auto), "--for", "ppi", "--design", "topics",
                            "--budget", "100", "--seed", "4", "-o", str(out)])
    assert code == 0, err
    sample = read_sample(out)
    n = 100 * 24 // pairs
    chosen = sorted({s.topic for s in sample})
    assert len(chosen) == n == topic_count({t: len(d) for t, d in truth.items()}, 100)
    assert len(sample) == sum(len(truth[t]) for t in chosen)   # whole topics
    assert all(s.probability == pytest.approx(n / 24) for s in sample)
    again = tmp_path / "again.tsv"
    run_cli(["pool-sample", str(auto), "--for", "ppi", "--design", "topics", "--budget",
             "100", "--seed", "4", "-o", str(again)])
    assert again.read_bytes() == out.read_bytes()
    human = _write(tmp_path / "human.qrels", _sample(truth, chosen))
    code, got, err = run_cli(["eval", "--ppi", "--human", str(human), "--auto", str(auto),
                              "--design", "topics", "-m", "AP", "-m", "nDCG@10", str(run)])
    assert code == 0, err
    lines = [x.split("\t") for x in got.splitlines()[1:]]
    api = ppi_evaluate(_sample(truth, chosen), tmp_path / "auto.qrels", {"tag": run},
                       ["AP", "nDCG@10"], design="topics")
    assert [x[1] for x in lines] == ["AP", "nDCG@10"]
    for fields, r in zip(lines, api, strict=True):
        assert float(fields[2]) == pytest.approx(r.ppi.value, abs=5e-5)
        assert float(fields[7]) == pytest.approx(r.classical.high, abs=5e-5)
        assert fields[8] == str(len(sample))


@pytest.mark.parametrize(("human", "extra", "code", "says"), [
    ("incomplete", ["--design", "topics"], 1, "topic 't1' lacks human labels for 1 of"),
    ("one", ["--design", "topics"], 1, "1 sampled topic(s) of 24"),
    ("two", ["--design", "topics"], 1, "2 sampled topic(s) of 24; --design topics needs "
     "at least 3"),
    ("two", ["-m", "AP"], 2, "use --design topics"),
    ("two", ["--design", "stratified", "-m", "nDCG@10"], 2, "use --design topics"),
    ("two", ["--design", "topics", "-m", "gm_map"], 2, "means over topics"),
    ("two", ["--design", "topicz"], 2, "simple, stratified, topics"),
])
def test_bad_input_is_one_line(tmp_path: Path, human: str, extra: list[str], code: int,
                               says: str) -> None:
    truth, auto, run = _files(tmp_path)
    chosen = {"incomplete": ["t0", "t1"], "one": ["t0"], "two": ["t0", "t1"]}[human]
    sample = _sample(truth, chosen)
    if human == "incomplete":
        sample["t1"] = dict(list(sample["t1"].items())[1:])
    h = _write(tmp_path / "human.qrels", sample)
    got, out, err = run_cli(["eval", "--ppi", "--human", str(h), "--auto", str(auto),
                             *extra, str(run)])
    assert (got, out) == (code, "")
    assert len(err.strip().splitlines()) == 1 and says in err, err
    if human == "incomplete":
        assert str(h) in err


def test_pool_sample_topics_budget_below_two_topics_is_one_line(tmp_path: Path) -> None:
    _, auto, _ = _files(tmp_path)
    code, _, err = run_cli(["pool-sample", str(auto), "--for", "ppi", "--design", "topics",
                            "--budget", "5", "-o", str(tmp_path / "s.tsv")])
    assert code == 2 and "--budget" in err and "at least 3" in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "corpora" / "cranfield").exists(), reason="no Cranfield")
def test_topic_coverage_on_cranfield_is_sane(capsys: pytest.CaptureFixture[str]) -> None:
    """A lean run of bench/ppi_topics.py: 200 replicates (the bench does 1,000)."""
    sys.path.insert(0, str(BENCH))
    try:
        import ppi_topics
    finally:
        sys.path.remove(str(BENCH))
    ppi_topics.main(200, 1500, judges=[("over-grades", 0.5)])
    rows = [r.split("|")[1:-1] for r in capsys.readouterr().out.splitlines()
            if r.startswith("| ") and not r.startswith("| judge")]
    assert [r[1].strip() for r in rows] == ["AP", "nDCG@10", "P@10", "DCG@10"]
    for row in rows:
        coverage, width, width0 = float(row[2]), float(row[6]), float(row[7])
        assert 0.90 <= coverage <= 1.0, row     # 200 x 6 intervals: sd about 0.01
        assert width <= width0 * 1.05, row
    assert not math.isnan(coverage)
