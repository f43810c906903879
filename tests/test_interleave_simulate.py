"""``relkit interleave simulate``: the agreement of interleaving with the nDCG winner.

Hand-checkable cases on a synthetic collection (20 topics of 10 documents, d0-d2 relevant
in every topic) with the perfect user (binary grades: a relevant result is always
clicked, a non-relevant one never, nobody stops), the per-impression credit checked
against the credit rules ``relkit interleave analyze`` applies (:mod:`credit`, itself
checked against mpkato/interleaving's cases in test_interleave.py), and the published
direction (interleaving finds the offline winner with fewer impressions than an A/B
test) on Cranfield's real runs and qrels.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli
from relkit.metrics.online.interleave import credit, outcomes
from relkit.metrics.online.interleave.methods import probabilistic
from relkit.metrics.online.interleave.simsetup import TopicMismatch, prepare
from relkit.metrics.online.interleave.simulate import (
    AB,
    METHODS,
    PairResult,
    header,
    simulate,
    table_rows,
)

CRANFIELD = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "cranfield"
TOPICS = 20


def _run(path: Path, order: list[int], tag: str, topics: int = TOPICS) -> Path:
    path.write_text("".join(f"q{t} Q0 d{d} {i + 1} {10 - i} {tag}\n"
                            for t in range(topics) for i, d in enumerate(order)))
    return path


@pytest.fixture()
def collection(tmp_path: Path) -> dict[str, Path]:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{t} 0 d{d} {int(d < 3)}\n" for t in range(TOPICS)
                             for d in range(10)))
    return {
        "qrels": qrels,
        # good: the relevant documents on top; bad: at the bottom
        "good": _run(tmp_path / "good.run", list(range(10)), "good"),
        "bad": _run(tmp_path / "bad.run", list(range(9, -1, -1)), "bad"),
        "same": _run(tmp_path / "same.run", list(range(10)), "same"),
    }


def _rows(paths: list[Path], qrels: Path, preset: str = "perfect", methods=METHODS,
          grid=(1, 2, 10), trials: int = 40, seed: int = 0) -> list[PairResult]:
    setup = prepare([str(p) for p in paths], str(qrels), 10, 10, preset=preset)
    return simulate(setup, list(methods), list(grid), trials, seed)


def test_perfect_user_and_a_clearly_better_run_every_method_agrees(collection) -> None:
    rows = _rows([collection["good"], collection["bad"]], collection["qrels"])
    assert [r.method for r in rows] == [*METHODS, AB]
    for r in rows:
        assert r.ndcg_a == pytest.approx(1.0) and r.truth == 1
    for r in rows[:-1]:
        # every impression has clicks on d0-d2 only, all in good's top three, none in
        # bad's top seven: good wins every impression, so every experiment
        assert list(r.agreement) == [1.0, 1.0, 1.0], r.method
        assert r.needed() == 1
    ab = rows[-1]
    # A/B: one impression shows only good (CTR@1 1 vs no impression of bad: a tie);
    # from two on, good's CTR@1 is 1 and bad's 0
    assert list(ab.agreement) == [0.5, 1.0, 1.0]
    assert ab.needed() == 2


def test_identical_runs_split_the_wins(collection) -> None:
    rows = _rows([collection["good"], collection["same"]], collection["qrels"],
                 grid=(1, 5, 50), trials=400)
    for r in rows:
        assert r.truth == 0 and r.agreement is None
        assert np.allclose(r.win_a + r.win_b + r.tie, 1.0)
        assert np.all(np.abs(r.win_a - r.win_b) < 0.1), r.method
    by = {r.method: r for r in rows}
    # balanced and optimized credit both runs equally on identical lists: always a tie
    assert list(by["balanced"].tie) == [1.0, 1.0, 1.0]
    assert list(by["optimized"].tie) == [1.0, 1.0, 1.0]
    # team draft: clicks on positions 1-3, teams alternate: the first pick wins 2-1
    assert by["team-draft"].tie[0] == 0.0
    assert 0.4 < by["team-draft"].win_a[0] < 0.6
    # the table: no agreement without an offline winner
    table = table_rows(rows)
    assert all(cell is None for row in table for cell in row[5:])


def test_the_same_seed_gives_the_same_table_and_methods_do_not_interact(collection) -> None:
    paths = [collection["good"], collection["bad"], collection["same"]]
    one = table_rows(_rows(paths, collection["qrels"], preset="informational", seed=7))
    two = table_rows(_rows(paths, collection["qrels"], preset="informational", seed=7))
    assert one == two
    alone = table_rows(_rows(paths, collection["qrels"], preset="informational", seed=7,
                             methods=["probabilistic"]))
    assert [r for r in one if r[4] == "probabilistic"] == \
        [r for r in alone if r[4] == "probabilistic"]
    other = table_rows(_rows(paths, collection["qrels"], preset="informational", seed=8))
    assert other != one
    assert len(one) == 3 * (len(METHODS) + 1)
    assert len(header([1, 2, 10])) == len(one[0])


def test_needed_impressions() -> None:
    grid = [1, 10, 100, 1000]
    r = PairResult("a", "b", 0.5, 0.4, "team-draft", grid, np.array([0.5, 0.96, 0.94, 1.0]),
                   np.zeros(4), np.array([0.5, 0.04, 0.06, 0.0]))
    # 0.5 + 0.5/2 = 0.75, 0.98, 0.97, 1.0: from 10 on at or above 0.95
    assert list(r.agreement) == pytest.approx([0.75, 0.98, 0.97, 1.0])
    assert r.needed() == 10
    assert r.needed(0.975) == 1000        # dips below at 100
    low = PairResult("a", "b", 0.5, 0.4, AB, grid, np.array([0.2, 0.3, 0.4, 0.45]),
                     np.array([0.3, 0.3, 0.4, 0.45]), np.array([0.5, 0.4, 0.2, 0.1]))
    assert low.needed() is None and low.needed(of_final=True) is None   # final 0.5


def _random_impressions(seed: int, n: int = 300, depth: int = 6):
    rng = np.random.default_rng(seed)
    a = np.stack([rng.permutation(12)[:depth] for _ in range(n)])
    b = np.stack([rng.permutation(12)[:depth] for _ in range(n)])
    clicks = rng.random((n, depth)) < 0.3
    return a, b, clicks, rng


def _flat(clicks: np.ndarray):
    n, depth = clicks.shape
    return np.repeat(np.arange(n), depth), clicks.ravel()


def _net(out: credit.Outcomes, n: int) -> np.ndarray:
    v = np.zeros(n)
    v[out.imp] = out.win[0] - out.loss[0]
    return v


@pytest.mark.parametrize("seed", range(3))
def test_outcomes_equal_analyze_credit(seed: int) -> None:
    from relkit.metrics.online.interleave.methods import balanced, team_draft

    a, b, clicks, rng = _random_impressions(seed)
    n, depth = clicks.shape
    imp, flat = _flat(clicks)
    td = team_draft([a, b], depth, rng)
    got = outcomes.team_outcome(td.teams, clicks)
    want = _net(credit.team_outcomes(imp, td.teams.ravel(), flat, n, 2), n)
    assert np.array_equal(got, want)
    bl = balanced([a, b], depth, rng)
    ra, rb = outcomes.ranks_in(bl.docs, a), outcomes.ranks_in(bl.docs, b)
    got = outcomes.balanced_outcome(bl.docs, clicks, a, b)
    want = _net(credit.balanced_outcome(imp, np.tile(np.arange(1, depth + 1), n), flat,
                                        ra.ravel(), rb.ravel(), n), n)
    assert np.array_equal(got, want)
    cred = rng.normal(size=(n, depth))
    got = outcomes.credit_outcome(cred, clicks)
    want = _net(credit.credit_outcomes(imp, flat, cred.ravel(), n), n)
    assert np.array_equal(got, want)
    pr = probabilistic([a, b], depth, rng)
    assert pr.probs is not None
    got = outcomes.probabilistic_outcome(pr.probs, clicks)
    want = _net(credit.probabilistic_outcomes(imp, flat, pr.probs.reshape(2, -1), n), n)
    assert np.allclose(got, want, atol=1e-12)


def test_probabilistic_later_draws_follow_the_softmax_over_what_is_left() -> None:
    # one run [1..5] against itself: the second document, given the first, has
    # probability w(r) / (sum of w over the other ranks), w(r) = 1 / r^3
    a = np.tile(np.arange(1, 6), (60000, 1))
    shown = probabilistic([a, a.copy()], 2, np.random.default_rng(11))
    w = 1 / np.arange(1, 6) ** 3.0
    first, second = shown.docs[:, 0], shown.docs[:, 1]
    for d1 in (1, 2):
        mine = first == d1
        freq = np.bincount(second[mine], minlength=6)[1:] / mine.sum()
        expect = np.where(np.arange(1, 6) == d1, 0.0, w) / (w.sum() - w[d1 - 1])
        assert np.allclose(freq, expect, atol=0.015), (d1, freq, expect)
    # and the kept probabilities are those of the closed form
    k = np.flatnonzero(first == 1)[0]
    assert shown.probs is not None
    assert shown.probs[0, k, 1] == pytest.approx(w[second[k] - 1] / (w.sum() - w[0]),
                                                abs=1e-12)


def _cranfield_qrels(tmp_path: Path) -> Path:
    from relkit.corpora.known import CRANFIELD_GRADES

    out = tmp_path / "cranfield.qrels"
    lines = [line.split() for line in (CRANFIELD / "cranqrel").read_text().splitlines()]
    out.write_text("".join(f"{q} 0 {d} {CRANFIELD_GRADES[int(g)]}\n"
                           for q, d, g in (p[:3] for p in lines if len(p) >= 3)))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not CRANFIELD.is_dir(), reason="needs ../shared/corpora/cranfield")
def test_published_direction_interleaving_beats_ab_on_cranfield(tmp_path: Path) -> None:
    # Chapelle et al. (TOIS 2012), Schuth et al.: interleaving reaches the offline
    # winner with far fewer impressions than an A/B test. BM25 (nDCG@10 0.366) against
    # LM-Dirichlet (0.295), navigational users.
    runs = [CRANFIELD / "runs" / "cosmopolitan033" / "query_results_bm25_3.3_0.8.txt",
            CRANFIELD / "runs" / "cosmopolitan033" / "query_results_lmdirichlet_1500.0.txt"]
    rows = _rows(runs, _cranfield_qrels(tmp_path), preset="navigational",
                 grid=(50, 200), trials=100, seed=3)
    ab = next(r for r in rows if r.method == AB)
    assert ab.agreement is not None
    for r in rows:
        assert r.truth == 1
        if r.method != AB:
            assert r.agreement is not None
            assert r.agreement[1] > ab.agreement[1] + 0.1, r.method
            assert r.agreement[1] >= 0.9, r.method
    assert ab.agreement[1] < 0.8


def test_model_users_from_a_fitted_model(collection, tmp_path: Path) -> None:
    good, bad, qrels = collection["good"], collection["bad"], collection["qrels"]
    log, model = tmp_path / "log.parquet", tmp_path / "sdbn.json"
    code, _, err = run_cli(["clicks", "simulate", "--runs", str(good), "--runs", str(bad),
                            "--preset", "perfect", "--qrels", str(qrels), "--sessions",
                            "4000", "-o", str(log)])
    assert code == 0, err
    code, _, err = run_cli(["clicks", "fit", str(log), "--model", "sdbn", "-o", str(model)])
    assert code == 0, err
    code, out, err = run_cli(["interleave", "simulate", str(good), str(bad), "--qrels",
                              str(qrels), "--model", str(model), "--methods",
                              "team-draft,balanced", "--impressions", "1,20",
                              "--trials", "20", "--format", "json"])
    assert code == 0, err
    rows = json.loads(out)
    assert [r["method"] for r in rows] == ["team-draft", "balanced", AB]
    # the model learnt that d0-d2 are clicked: good wins from the first impression
    assert rows[0]["agree@1"] == 1.0 and rows[0]["agree@20"] == 1.0


def test_cli_table_and_plot(collection, tmp_path: Path) -> None:
    svg = tmp_path / "agree.svg"
    args = ["interleave", "simulate", str(collection["good"]), str(collection["bad"]),
            "--qrels", str(collection["qrels"]), "--preset", "perfect", "--impressions",
            "1,2", "--trials", "5", "--methods", "team-draft", "--plot", str(svg)]
    code, out, err = run_cli(args)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split("\t") == ["run_a", "run_b", "ndcg_a", "ndcg_b", "method",
                                    "agree@1", "agree@2", "n_95", "n_95_final"]
    # bad's nDCG@10: relevant at ranks 8-10, (1/log2 9 + 1/log2 10 + 1/log2 11) /
    # (1 + 1/log2 3 + 1/log2 4) = 0.9056 / 2.1309 = 0.4250
    assert lines[1].split("\t") == ["good", "bad", "1.0000", "0.4250", "team-draft",
                                    "1.0000", "1.0000", "1", "1"]
    assert lines[2].split("\t")[4:] == ["ab-ctr@1", "0.5000", "1.0000", "2", "2"]
    first = svg.read_bytes()
    assert first.startswith(b"<?xml") and b"team-draft" in first
    code, _, err = run_cli(args)
    assert code == 0 and svg.read_bytes() == first     # the same bytes: reproducible


@pytest.mark.parametrize(("extra", "where"), [
    (["--preset", "perfect", "--methods", "team-draft,tem-draft"], "--methods"),
    (["--preset", "perfect", "--methods", ""], "--methods"),
    ([], "--preset"),
    (["--preset", "lazy"], "--preset"),
    (["--preset", "perfect", "--impressions", "10,x"], "--impressions"),
    (["--preset", "perfect", "--impressions", "0,10"], "--impressions"),
    (["--preset", "perfect", "--names", "a"], "--names"),
    (["--preset", "perfect", "--plot", "x.png"], "--plot"),
])
def test_cli_bad_options_one_line_exit_2(collection, extra: list[str], where: str) -> None:
    code, out, err = run_cli(["interleave", "simulate", str(collection["good"]),
                              str(collection["bad"]), "--qrels", str(collection["qrels"]),
                              *extra])
    assert code == 2, err
    assert out == "" and err.count("\n") == 1 and where in err and "Traceback" not in err


def test_two_runs_with_one_name_are_refused(collection) -> None:
    # the same file twice (or two files with the same stem): rows would not say which
    # run is which; --names tells them apart
    good, qrels = str(collection["good"]), str(collection["qrels"])
    code, out, err = run_cli(["interleave", "simulate", good, good, "--qrels", qrels,
                              "--preset", "perfect", "--impressions", "10", "--trials", "2"])
    assert code == 2 and out == "" and err.count("\n") == 1 and "--names" in err, err
    code, out, err = run_cli(["interleave", "simulate", good, good, "--qrels", qrels,
                              "--preset", "perfect", "--impressions", "10", "--trials", "2",
                              "--names", "a,b"])
    assert code == 0, err


def test_unknown_method_suggests_the_close_one(collection) -> None:
    _, _, err = run_cli(["interleave", "simulate", str(collection["good"]),
                         str(collection["bad"]), "--qrels", str(collection["qrels"]),
                         "--preset", "perfect", "--methods", "tem-draft"])
    assert "did you mean 'team-draft'" in err


def test_mismatched_topics_exit_2(collection, tmp_path: Path) -> None:
    short = _run(tmp_path / "short.run", list(range(10)), "short", topics=TOPICS - 1)
    code, _, err = run_cli(["interleave", "simulate", str(collection["good"]), str(short),
                            "--qrels", str(collection["qrels"]), "--preset", "perfect"])
    assert code == 2 and err.count("\n") == 1
    assert "short.run" in err and "'q19'" in err and "Traceback" not in err
    # a topic the qrels do not judge
    more = _run(tmp_path / "more.run", list(range(10)), "more", topics=TOPICS + 1)
    more2 = _run(tmp_path / "more2.run", list(range(10)), "more2", topics=TOPICS + 1)
    code, _, err = run_cli(["interleave", "simulate", str(more), str(more2),
                            "--qrels", str(collection["qrels"]), "--preset", "perfect"])
    assert code == 2 and err.count("\n") == 1 and "'q20'" in err and "qrels" in err
    with pytest.raises(TopicMismatch):
        prepare([str(collection["good"]), str(short)], str(collection["qrels"]), 10, 10,
                preset="perfect")


def test_cli_missing_file_is_one_line(collection, tmp_path: Path) -> None:
    code, _, err = run_cli(["interleave", "simulate", str(collection["good"]),
                            str(tmp_path / "nope.run"), "--qrels",
                            str(collection["qrels"]), "--preset", "perfect"])
    assert code == 1 and err.count("\n") == 1 and "nope.run" in err


def test_cli_defaults_match_the_library() -> None:
    from relkit.metrics.online.interleave import cli
    from relkit.metrics.online.interleave import simulate as sim

    assert cli.SIM_METHODS == sim.METHODS
    assert cli.SIM_GRID == sim.DEFAULT_GRID


def test_every_pair_is_simulated_in_order(collection) -> None:
    rows = _rows([collection["good"], collection["bad"], collection["same"]],
                 collection["qrels"], methods=["team-draft"], grid=(1,), trials=2)
    pairs = [(r.run_a, r.run_b) for r in rows]
    assert pairs == [p for p in itertools.chain.from_iterable(
        [(a, b)] * 2 for a, b in itertools.combinations(["good", "bad", "same"], 2))]


@pytest.mark.parametrize("seed", range(4))
def test_rankings_fast_path_equals_the_sorting_path(tmp_path: Path, seed: int,
                                                    monkeypatch) -> None:
    # a run written in trec_eval's order takes the path without sorting; the same run
    # shuffled, with a tie, or with a topic split in two blocks takes the sorting path:
    # the matrices must be the same
    from relkit.metrics.online.interleave import rankings

    rng = np.random.default_rng(seed)
    lines = []
    for t in range(30):
        n = int(rng.integers(1, 15))
        scores = np.sort(rng.random(n))[::-1]
        lines += [f"t{t} Q0 d{d} {i + 1} {s:.6f} r\n"
                  for i, (d, s) in enumerate(zip(rng.permutation(40)[:n], scores, strict=True))]
    grouped = tmp_path / "grouped.run"
    grouped.write_text("".join(lines))
    shuffled = tmp_path / "shuffled.run"
    shuffled.write_text("".join(rng.permutation(lines)))
    fast = rankings.load_rankings([str(grouped), str(shuffled)], 8)
    monkeypatch.setattr(rankings, "_top_rows", lambda *a: None)
    slow = rankings.load_rankings([str(grouped), str(shuffled)], 8)
    assert fast.queries.equals(slow.queries)

    def docs(r, m):     # codes are numbered in order of appearance: compare the ids
        ids = np.asarray(r.vocab.to_pylist() + [""], dtype=object)
        return ids[np.where(m >= 0, m, len(ids) - 1)]

    for f, s in zip(fast.mats, slow.mats, strict=True):
        assert np.array_equal(docs(fast, f), docs(slow, s))
    # and both runs are the same ranking
    assert np.array_equal(docs(fast, fast.mats[0]), docs(fast, fast.mats[1]))
