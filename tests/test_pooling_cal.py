"""The cal strategy (BMI continuous active learning) on Cranfield's real text and qrels.

Determinism, restart, several sessions, stopping, bad input; the batch rule against
the formula worked by hand. The recall/effort table is bench/cal_sim.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cal_corpora import CORPORA, qrels, runs, texts
from helpers import run_cli
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.cal.batches import grow, sizes
from relkit.pooling.cal.strategy import with_collection
from relkit.pooling.cal.texts import TextSource, read_texts
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.simulate import grades_of
from relkit.pooling.stopping import knee_stop

needs = pytest.mark.skipif(not (CORPORA / "cranfield").exists(), reason="needs ../shared")
TOPICS = ["1", "2", "8"]


def test_batches_grow_by_a_tenth_rounded_up() -> None:
    # B + ceil(B/10) by hand: 1..10 grow by one, then 11 -> 13 -> 15 -> 17 -> 19 -> 21 -> 24
    assert sizes(17) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 21, 24]
    assert grow(100) == 110
    with pytest.raises(ValueError):
        grow(0)


def _cands(whole: bool = True) -> Candidates:
    c = Candidates.from_runs(runs("cranfield"), 50, TOPICS)
    c = Candidates(c.lists, c.scores, c.depth, text=texts("cranfield"))
    return with_collection(c, texts("cranfield").docs) if whole else c


def _grader(topic: str):  # type: ignore[no-untyped-def]
    g = grades_of(qrels("cranfield")).get(topic, {})
    return lambda d: max(g.get(d, 0), 0)


def _pool(seed: int = 0, whole: bool = True, stop: str | None = None) -> AdaptivePool:
    return AdaptivePool("cal", _cands(whole), {"from": "collection" if whole else "runs"},
                        seed=seed, stop=stop)


@needs
def test_same_seed_same_order_and_found_beyond_the_runs() -> None:
    a = [j.doc for j in _pool().run("1", _grader("1"), 40)]
    b = [j.doc for j in _pool().run("1", _grader("1"), 40)]
    assert a == b and len(set(a)) == 40
    # from the collection it judges documents no run retrieved to depth 50
    in_runs = set(Candidates.from_runs(runs("cranfield"), 50, ["1"]).provenance("1"))
    assert set(a) - in_runs
    # from the runs it stays within them
    r = [j.doc for j in _pool(whole=False).run("1", _grader("1"), 40)]
    assert set(r) <= in_runs


@needs
def test_it_finds_relevant_documents_no_run_retrieved() -> None:
    pool, found = _pool(), 0
    for t in TOPICS:
        g = _grader(t)
        in_runs = set(Candidates.from_runs(runs("cranfield"), 50, [t]).provenance(t))
        found += sum(1 for j in pool.run(t, g, 60) if j.grade > 0 and j.doc not in in_runs)
    assert found >= 1


@needs
def test_restart_from_the_history_continues_the_same_sequence() -> None:
    whole = _pool().run("2", _grader("2"), 30)
    for cut in (1, 6, 17):   # inside a batch and at its end (batches 1,2,3: 1, 3, 6)
        again = _pool()
        again.resume(whole[:cut])
        rest = again.run("2", _grader("2"), 30)
        assert [j.doc for j in rest] == [j.doc for j in whole[cut:]]


@needs
def test_two_sessions_interleaving_a_batch_train_the_same_model() -> None:
    one = _pool().run("8", _grader("8"), 36)    # batches 1..8 (36 documents)
    two, g, at = _pool(), _grader("8"), 0
    for b in sizes(8):
        batch = [j.doc for j in one[at:at + b]]
        assert two.next("8") == batch[0]
        # the other session judges the batch's documents back to front (out of turn)
        for d in reversed(batch):
            two.record("8", d, g(d))
        at += b
    assert two.next("8") == _pool().run("8", g, 37)[-1].doc


@needs
def test_the_knee_rule_stops_cal_where_knee_stop_says() -> None:
    # Oracle: relkit.pooling.stopping.knee_stop on cal's own unstopped sequence.
    full = _pool().run("2", _grader("2"), 1400)
    at = knee_stop([j.grade > 0 for j in full])
    assert at is not None and 150 <= at < len(full)
    pool = _pool(stop="knee")
    seq = pool.run("2", _grader("2"), 1400)
    assert pool.stopped_after("2") == at and seq == full[:at]
    assert (pool.stopped("2") or "").startswith("knee: slope ratio reached after")


@needs
def test_the_target_rule_stops_cal_once_its_targets_are_found() -> None:
    pool = _pool(stop="target")
    seq = pool.run("1", _grader("1"), 1400)
    assert (pool.stopped("1") or "").startswith("target:10: every target document found")
    at = pool.stopped_after("1")
    assert at == len(seq) < 1400
    assert sum(j.grade > 0 for j in seq) >= 10


@needs
def test_a_topic_with_nothing_relevant_early_goes_on_from_its_text() -> None:
    pool = _pool()
    seq = pool.run("1", lambda d: 0, 25)    # no relevant document in the first batches
    assert len({j.doc for j in seq}) == 25


@needs
def test_documents_without_text_are_candidates_that_do_not_crowd_out_the_rest() -> None:
    src = texts("cranfield")
    blank = TextSource({**src.docs, "x1": "", "x2": "   "}, src.topics)
    assert blank.missing(["x1", "x2", "1"]) == 2
    c = Candidates.from_runs(runs("cranfield"), 50, ["1"])
    c = with_collection(Candidates(c.lists, c.scores, c.depth), blank.docs, blank)
    pool = AdaptivePool("cal", c, {"from": "collection"})
    seq = [j.doc for j in pool.run("1", _grader("1"), 60)]
    assert len(c.matrix("1").docs) == 1402 and not {"x1", "x2"} & set(seq)
    # scored by the intercept alone: the same score for both (all-zero features)
    feats = blank.features()
    assert feats.of(["x1", "x2", "nope"]).nnz == 0


def test_bad_text_input_says_it_in_one_line(tmp_path: Path) -> None:
    t = TextSource({"a": "wing"}, {"q": "  "})
    c = Candidates({"q": {"r": ["a"]}}, {"q": {"r": [1.0]}}, None, text=t)
    with pytest.raises(PoolingError, match="topic 'q' has no text"):
        AdaptivePool("cal", c, {}).next("q")
    empty = Candidates(c.lists, c.scores, text=TextSource({"a": "the of"}, {"q": "wing"}))
    with pytest.raises(PoolingError, match="no document has any word to learn from"):
        AdaptivePool("cal", empty, {}).next("q")
    with pytest.raises(PoolingError, match="needs the documents' and topics' text"):
        AdaptivePool("cal", Candidates(c.lists, c.scores), {}).next("q")
    with pytest.raises(PoolingError, match="needs the collection"):
        AdaptivePool("cal", c, {"from": "collection"}).next("q")
    bad = tmp_path / "d.jsonl"
    bad.write_text('{"_id": "a", "text": "x"}\nnot a tab line\n')
    with pytest.raises(PoolingError, match=r"d\.jsonl:2: expected 'id<TAB>text'"):
        read_texts(bad, "documents")
    bad.write_text('{"_id": "a"}\n{"_id": "a"}\n')
    with pytest.raises(PoolingError, match=r"d\.jsonl:2: document 'a' twice"):
        read_texts(bad, "documents")


def _tiny(tmp_path: Path) -> list[str]:
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 c 1\n1 0 b 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n")
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n"
                                              for k, v in [("a", "wing flutter"), ("b", "cats"),
                                                           ("c", "wing flutter lift")]))
    (tmp_path / "t.tsv").write_text("1\twing flutter\n")
    return [str(tmp_path / "q.txt"), str(tmp_path / "r.txt")]


def test_pool_simulate_takes_cal_from_the_collection(tmp_path: Path) -> None:
    files = _tiny(tmp_path)
    r = run_cli(["pool-simulate", *files, "-s", "cal:from=collection", "-s", "cal",
                 "--budget", "2,3", "--docs", str(tmp_path / "d.jsonl"), "--topics",
                 str(tmp_path / "t.tsv"), "--format", "tsv"])
    code, out, err = r
    assert code == 0, err
    rows = [x.split("\t") for x in out.splitlines()[1:]]
    found = {(x[0], x[1]): int(x[3]) for x in rows}
    # c is relevant and in no run: only from the collection can it be found
    assert found[("cal:from=collection", "2")] == 2 and found[("cal", "3")] == 1


@pytest.mark.parametrize("args, hint", [
    (["-s", "cal"], "--docs"),
    (["-s", "depth", "--docs", "{tmp}/d.jsonl"], "--docs"),
    (["-s", "depth", "--from", "collection"], "--from"),
    (["-s", "cal", "--from", "everything"], "--from"),
])
def test_pool_simulate_text_options_are_usage_errors(tmp_path: Path, args: list[str],
                                                     hint: str) -> None:
    files = _tiny(tmp_path)
    code, _, err = run_cli(["pool-simulate", *files, *(a.format(tmp=tmp_path) for a in args)])
    assert code == 2 and hint in err and len(err.strip().splitlines()) == 1


