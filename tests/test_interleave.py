"""Interleaving and multileaving (relkit.metrics.online.interleave).

Exact cases are those of mpkato/interleaving's tests (MIT; restated here, not vendored);
the PyPI name ``interleaving`` is an unrelated empty package, so the probabilistic
allocations are checked against the closed form of Hofmann et al.'s softmax instead.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics.online.interleave import credit
from relkit.metrics.online.interleave.methods import balanced, probabilistic, team_draft
from relkit.metrics.online.interleave.optimized import credits, distribution


def _mat(*rankings: list[int], width: int | None = None) -> list[np.ndarray]:
    w = width or max(len(r) for r in rankings)
    return [np.array([r + [-1] * (w - len(r))], dtype=np.int64) for r in rankings]


def _outcomes(make, mats, depth, seeds=60) -> set[tuple[int, ...]]:
    return {tuple(int(x) for x in make(mats, depth, np.random.default_rng(s)).docs[0])
            for s in range(seeds)}


def test_team_draft_lists_of_the_reference() -> None:
    mats = _mat([1, 2], [2, 3])
    assert _outcomes(team_draft, mats, 2) == {(1, 2), (2, 1)}
    assert _outcomes(team_draft, mats, 3) == {(1, 2, 3), (2, 1, 3)}


def test_balanced_lists_of_the_reference() -> None:
    assert _outcomes(balanced, _mat([1, 2], [3, 4]), 3) == {(1, 3, 2), (3, 1, 4)}


@pytest.mark.parametrize(("clicks", "expected"), [
    ({0, 1, 2}, "B"), ({0, 1}, "tie"), ({0}, "A")])
def test_team_draft_credit_of_the_reference(clicks: set[int], expected: str) -> None:
    # shown ranking [1, 3, 4], teams A: [1], B: [3, 4]
    team = np.array([0, 1, 1])
    clicked = np.array([i in clicks for i in range(3)])
    out = credit.team_outcomes(np.zeros(3, dtype=np.int64), team, clicked, 1, 2)
    got = {(1.0, 0.0, 0.0): "A", (0.0, 1.0, 0.0): "B", (0.0, 0.0, 1.0): "tie"}[
        (out.win[0][0], out.loss[0][0], out.tie[0][0])]
    assert got == expected


def _softmax_draw(ranking: list[int], removed: set[int], doc: int, tau: float) -> float:
    w = {d: 1.0 / (i + 1) ** tau for i, d in enumerate(ranking)}
    total = sum(v for d, v in w.items() if d not in removed)
    return w.get(doc, 0.0) / total if doc not in removed and total > 0 else 0.0


@pytest.mark.parametrize("seed", range(5))
def test_probabilistic_allocations_are_the_softmax_with_tau_3(seed: int) -> None:
    a, b = [1, 2, 3, 4, 5], [5, 3, 6, 1]
    shown = probabilistic(_mat(a, b), 5, np.random.default_rng(seed))
    docs = [int(x) for x in shown.docs[0]]
    assert shown.probs is not None
    for k, d in enumerate(docs):
        removed = set(docs[:k])
        assert abs(shown.probs[0, 0, k] - _softmax_draw(a, removed, d, 3.0)) < 1e-12
        assert abs(shown.probs[1, 0, k] - _softmax_draw(b, removed, d, 3.0)) < 1e-12


def test_probabilistic_list_frequencies_follow_the_softmax() -> None:
    # first position: P(d) = (P_A(d) + P_B(d)) / 2
    a, b = [1, 2, 3], [3, 2, 1]
    mats = [np.repeat(m, 40000, axis=0) for m in _mat(a, b)]
    shown = probabilistic(mats, 1, np.random.default_rng(3))
    freq = np.bincount(shown.docs[:, 0], minlength=4)[1:] / 40000
    expect = [(_softmax_draw(a, set(), d, 3) + _softmax_draw(b, set(), d, 3)) / 2
              for d in (1, 2, 3)]
    assert np.allclose(freq, expect, atol=0.01)


def test_probabilistic_marginalisation_equals_enumerating_assignments() -> None:
    rng = np.random.default_rng(0)
    probs = rng.random((2, 4))
    clicked = np.array([True, False, True, True])
    out = credit.probabilistic_outcomes(np.zeros(4, dtype=np.int64), clicked, probs, 1)
    win = loss = tie = 0.0
    z = 0.0
    for assign in itertools.product((0, 1), repeat=4):
        w = float(np.prod([probs[a, k] for k, a in enumerate(assign)]))
        z += w
        ca = sum(1 for k, a in enumerate(assign) if clicked[k] and a == 0)
        cb = sum(1 for k, a in enumerate(assign) if clicked[k] and a == 1)
        win += w * (ca > cb)
        loss += w * (ca < cb)
        tie += w * (ca == cb)
    assert out.win[0][0] == pytest.approx(win / z, abs=1e-12)
    assert out.loss[0][0] == pytest.approx(loss / z, abs=1e-12)
    assert out.tie[0][0] == pytest.approx(tie / z, abs=1e-12)


def test_balanced_credit_follows_joachims() -> None:
    # A = [1, 2], B = [3, 4], shown (1, 3, 2); a click on 2 (lowest, rank_A 2, not in
    # B): k = 2, A has 1 clicked in its top 2, B none -> A wins
    out = credit.balanced_outcome(np.zeros(3, dtype=np.int64), np.array([1, 2, 3]),
                                  np.array([False, False, True]), np.array([1, 0, 2]),
                                  np.array([0, 1, 0]), 1)
    assert (out.win[0][0], out.loss[0][0]) == (1.0, 0.0)
    # clicks on 3 and 2: k = min(2, inf) = 2 -> A 1 (doc 2), B 1 (doc 3): a tie
    out = credit.balanced_outcome(np.zeros(3, dtype=np.int64), np.array([1, 2, 3]),
                                  np.array([False, True, True]), np.array([1, 0, 2]),
                                  np.array([0, 1, 0]), 1)
    assert out.tie[0][0] == 1.0


def test_optimized_distribution_is_unbiased_under_random_clicks() -> None:
    a, b = [1, 2, 3, 4], [3, 5, 1, 6]
    cands, p = distribution(a, b, 4)
    assert p.sum() == pytest.approx(1.0)
    cum = np.array([np.cumsum(credits(a, b, docs)) for docs, _ in cands])
    assert np.allclose(p @ cum, 0.0, atol=1e-9)
    for docs, _ in cands:   # every prefix is a union of prefixes of A and B
        for k in range(1, len(docs) + 1):
            assert any(set(docs[:k]) == set(a[:i]) | set(b[:j])
                       for i in range(5) for j in range(5))


def test_delta_and_bootstrap() -> None:
    assert credit.delta(3, 1, 2) == pytest.approx((3 + 1) / 6 - 0.5)
    user = np.array(["u1", "u1", "u2"])
    win, loss, tie = np.array([1.0, 1, 0]), np.array([0.0, 0, 1]), np.zeros(3)
    lo, hi = credit.bootstrap_delta(user, win, loss, tie, np.random.default_rng(1), 200)
    assert -0.5 <= lo <= hi <= 0.5
    again = credit.bootstrap_delta(user, win, loss, tie, np.random.default_rng(1), 200)
    assert (lo, hi) == again


rankings = st.lists(st.integers(0, 12), max_size=8, unique=True)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(rankings, min_size=2, max_size=4), st.integers(1, 10), st.integers(0, 99),
       st.sampled_from(["team-draft", "balanced", "probabilistic"]))
def test_properties(runs: list[list[int]], depth: int, seed: int, method: str) -> None:
    if method == "balanced":
        runs = runs[:2]
    make = {"team-draft": team_draft, "balanced": balanced, "probabilistic": probabilistic}[
        method]
    w = max(1, max(len(r) for r in runs))
    mats = _mat(*runs, width=w)
    one = make(mats, depth, np.random.default_rng(seed))
    two = make(mats, depth, np.random.default_rng(seed))
    assert np.array_equal(one.docs, two.docs) and np.array_equal(one.teams, two.teams)
    docs = [int(d) for d in one.docs[0] if d >= 0]
    union = set().union(*map(set, runs))
    assert len(docs) == len(set(docs)) == min(depth, len(union))
    assert set(docs) <= union
    assert all(d < 0 for d in one.docs[0][len(docs):])
    for d, t in zip(docs, one.teams[0], strict=False):
        assert d in runs[t]
    if method == "team-draft":
        # teams differ by at most one at every prefix, while every run still has documents
        counts = np.zeros(len(runs), dtype=int)
        for k, t in enumerate(one.teams[0][:len(docs)]):
            counts[t] += 1
            live = [r for r in range(len(runs)) if set(runs[r]) - set(docs[:k + 1])]
            if len(live) == len(runs):
                assert counts.max() - counts.min() <= 1


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def _relkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "relkit", *args], capture_output=True,
                          text=True)


@pytest.mark.slow
def test_cli_make_and_analyze(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.run", "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 2 A\nq1 Q0 d3 3 1 A\n")
    b = _write(tmp_path, "b.run", "q1 Q0 d3 1 3 B\nq1 Q0 d4 2 2 B\nq1 Q0 d1 3 1 B\n")
    lists = tmp_path / "lists.tsv"
    r = _relkit("interleave", "make", str(a), str(b), "--depth", "3", "--seed", "1",
                "-o", str(lists))
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in lists.read_text().splitlines()]
    assert rows[0] == ["query_id", "rank", "doc_id", "team"]
    shown = rows[1:]
    log = "impression_id\tuser_id\tquery_id\trank\tdoc_id\tclicked\n" + "".join(
        f"i{n}\tu{n % 2}\t{q}\t{k}\t{d}\t{int(t == 'B' or n % 2)}\n"
        for n in range(4) for q, k, d, t in shown)
    logp = _write(tmp_path, "log.tsv", log)
    r = _relkit("interleave", "analyze", str(logp), "--lists", str(lists), "--format", "json")
    assert r.returncode == 0, r.stderr
    import json

    (row,) = json.loads(r.stdout)
    # B gets a click on each of its documents; on odd impressions A on all of its own
    n_a = sum(t == "A" for *_, t in shown)
    n_b = len(shown) - n_a
    wins_a = sum(1 for n in range(4) if (n_a if n % 2 else 0) > n_b)
    wins_b = sum(1 for n in range(4) if (n_a if n % 2 else 0) < n_b)
    assert (row["wins_a"], row["wins_b"]) == (wins_a, wins_b)
    assert row["wins_a"] + row["wins_b"] + row["ties"] == 4
    from scipy.stats import binomtest

    k, n = round(row["wins_a"]), round(row["wins_a"]) + round(row["wins_b"])
    assert row["p_value"] == pytest.approx(binomtest(k, n).pvalue if n else float("nan"),
                                           nan_ok=True)
    # a log row that is not in the lists: one line naming the log and its line
    bad = _write(tmp_path, "bad.tsv", log.replace("\td1\t", "\tzz\t", 1))
    r = _relkit("interleave", "analyze", str(bad), "--lists", str(lists))
    assert r.returncode != 0
    assert r.stderr.count("\n") == 1 and "bad.tsv:" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_cli_bad_options(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.run", "q1 Q0 d1 1 3 A\n")
    r = _relkit("interleave", "make", str(a), str(a), str(a), "--method", "balanced")
    assert r.returncode != 0 and "--method" in r.stderr and "Traceback" not in r.stderr
    r = _relkit("interleave", "make", str(a), str(tmp_path / "nope.run"))
    assert r.returncode != 0 and "nope.run" in r.stderr and "Traceback" not in r.stderr
    bad = _write(tmp_path, "bad.run", "q1 Q0 d1 1 x A\n")
    r = _relkit("interleave", "make", str(a), str(bad))
    assert r.returncode != 0 and "bad.run:1" in r.stderr and "Traceback" not in r.stderr


def test_balanced_credit_over_several_impressions() -> None:
    # two impressions of the list (1, 3, 2) (A = [1, 2], B = [3, 4]): the first with a
    # click on 3 only (B wins), the second on 1 and 2 (A wins)
    imp = np.array([0, 0, 0, 1, 1, 1])
    position = np.array([1, 2, 3, 1, 2, 3])
    clicked = np.array([False, True, False, True, False, True])
    ra, rb = np.array([1, 0, 2] * 2), np.array([0, 1, 0] * 2)
    out = credit.balanced_outcome(imp, position, clicked, ra, rb, 2)
    assert list(out.win[0]) == [0.0, 1.0] and list(out.loss[0]) == [1.0, 0.0]


def test_multileave_credit_per_pair() -> None:
    # three teams; clicks: two on C, one on A -> C beats A and B, A beats B
    team = np.array([0, 1, 2, 2])
    clicked = np.array([True, False, True, True])
    out = credit.team_outcomes(np.zeros(4, dtype=np.int64), team, clicked, 1, 3)
    got = {pair: (out.win[p][0], out.loss[p][0]) for p, pair in enumerate(out.pairs)}
    assert got == {(0, 1): (1.0, 0.0), (0, 2): (0.0, 1.0), (1, 2): (0.0, 1.0)}


@pytest.mark.slow
def test_cli_probabilistic_multileave_of_a_run_with_itself_is_a_tie(tmp_path: Path) -> None:
    import json

    a = _write(tmp_path, "a.run", "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 2 A\nq1 Q0 d3 3 1 A\n")
    b = _write(tmp_path, "b.run", "q1 Q0 d3 1 3 B\nq1 Q0 d4 2 2 B\nq1 Q0 d1 3 1 B\n")
    lists = tmp_path / "lists.jsonl"
    r = _relkit("interleave", "make", str(a), str(b), str(a), "--method", "probabilistic",
                "--depth", "3", "-o", str(lists))
    assert r.returncode == 0, r.stderr
    shown = [json.loads(line) for line in lists.read_text().splitlines()]
    log = "impression_id\tquery_id\trank\tdoc_id\tclicked\n" + "".join(
        f"i{n}\t{s['query_id']}\t{s['rank']}\t{s['doc_id']}\t{int(s['rank'] != 2)}\n"
        for n in range(3) for s in shown)
    logp = _write(tmp_path, "log.tsv", log)
    r = _relkit("interleave", "analyze", str(logp), "--lists", str(lists), "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = {(x["run_a"], x["run_b"]): x for x in json.loads(r.stdout)}
    assert rows[("A", "C")]["delta"] == pytest.approx(0.0, abs=1e-12)
    assert rows[("A", "B")]["delta"] == pytest.approx(-rows[("B", "C")]["delta"], abs=1e-12)
    for x in rows.values():
        assert x["wins_a"] + x["wins_b"] + x["ties"] == pytest.approx(3.0)


def test_runs_are_ranked_as_trec_eval_ranks_them(tmp_path: Path) -> None:
    from relkit.metrics.data import Run
    from relkit.metrics.online.interleave.rankings import load_rankings
    from relkit.metrics.ranking import ranked_docnos

    text = ("q2 Q0 b 1 1 R\nq2 Q0 a 2 1 R\nq2 Q0 c 3 2 R\nq10 Q0 x 1 0.5 R\n"
            "q10 Q0 z 2 0.5 R\nq10 Q0 y 3 0.7 R\nq1 Q0 m 9 1 R\n")
    run = _write(tmp_path, "r.run", text)
    other = _write(tmp_path, "o.run", "q3 Q0 m 1 1 O\n")
    got = load_rankings([run, other], 3)
    expect = ranked_docnos(Run.read(run))
    queries = got.queries.to_pylist()
    assert queries == ["q1", "q10", "q2", "q3"]
    vocab = got.vocab.to_pylist()
    for i, qid in enumerate(queries):
        docs = [vocab[c] for c in got.mats[0][i] if c >= 0]
        assert docs == expect.get(qid, [])


def test_a_document_twice_is_an_error_naming_the_line(tmp_path: Path) -> None:
    from relkit.metrics.errors import DuplicateDocumentError
    from relkit.metrics.online.interleave.rankings import load_rankings

    run = _write(tmp_path, "r.run", "q1 Q0 a 1 3 R\nq1 Q0 b 2 2 R\nq1 Q0 a 3 1 R\n")
    with pytest.raises(DuplicateDocumentError, match=r"r\.run:3"):
        load_rankings([run, run], 3)


@settings(max_examples=examples(40), deadline=None)
@given(rankings, rankings, st.integers(1, 6), st.integers(0, 99))
def test_optimized_lists_are_candidates(a: list[int], b: list[int], depth: int,
                                        seed: int) -> None:
    from relkit.metrics.online.interleave.optimized import optimized

    mats = _mat(a, b, width=max(1, len(a), len(b)))
    one = optimized(mats, depth, np.random.default_rng(seed))
    two = optimized(mats, depth, np.random.default_rng(seed))
    assert np.array_equal(one.docs, two.docs)
    docs = [int(d) for d in one.docs[0] if d >= 0]
    assert len(docs) == len(set(docs)) == min(depth, len(set(a) | set(b)))
    for k in range(1, len(docs) + 1):
        assert any(set(docs[:k]) == set(a[:i]) | set(b[:j])
                   for i in range(len(a) + 1) for j in range(len(b) + 1))


@pytest.mark.parametrize(("make", "said"), [
    (None, "no such file"),
    (b"", "empty file (no header)"),
    (b"\x8f\x01\x02", "expected UTF-8 text; found byte 0x8f"),
    ("dir", "is a directory, not a file"),
], ids=["missing", "empty", "binary", "directory"])
def test_a_bad_lists_file_is_said_in_relkits_words(tmp_path: Path, make: object,
                                                   said: str) -> None:
    """Not Python's or pandas' ("[Errno 2]...", "No columns to parse from file", "'utf-8'
    codec can't decode..."), which a newcomer got from `interleave analyze --lists`."""
    from relkit.metrics.core.errors import InputError
    from relkit.metrics.online.interleave.lists import read_lists

    path = tmp_path / "lists.tsv"
    if make == "dir":
        path.mkdir()
    elif isinstance(make, bytes):
        path.write_bytes(make)
    with pytest.raises(InputError) as got:
        read_lists(path)
    assert str(got.value) == f"{path}: {said}"


def test_a_lists_file_from_a_pipe_is_read(tmp_path: Path) -> None:
    """`--lists <(relkit interleave make ...)`: a pipe is no regular file, and is read."""
    import os
    import threading

    from relkit.metrics.online.interleave.lists import read_lists

    fifo = tmp_path / "lists.tsv"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as f:
            f.write("query_id\trank\tdoc_id\tteam\n007\t1\td1\tA\n007\t2\td2\tB\n")

    writer = threading.Thread(target=write)
    writer.start()
    frame = read_lists(fifo)
    writer.join()
    assert list(frame["query_id"]) == ["007", "007"] and list(frame["rank"]) == [1, 2]
