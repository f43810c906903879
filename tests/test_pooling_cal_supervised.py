"""The supervised judge on Cranfield: trained on half of each topic's judged pool, it
ranks the other half's relevant documents above the non-relevant ones (AUC against the
qrels), deterministically; bad input in one line."""

from __future__ import annotations

import pytest

from cal_corpora import CORPORA, qrels, runs, texts
from relkit.pooling.cal.supervised import SupervisedJudge
from relkit.pooling.cal.texts import TextSource
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.simulate import grades_of

needs = pytest.mark.skipif(not (CORPORA / "cranfield").exists(), reason="needs ../shared")
TOPICS = [str(t) for t in range(1, 16)]


def _auc(pos: list[float], neg: list[float]) -> float:
    """Mann-Whitney: share of (relevant, non-relevant) pairs ordered right, ties half."""
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


@pytest.mark.slow
@needs
def test_it_ranks_held_out_relevant_documents_first() -> None:
    g = grades_of(qrels("cranfield"))
    cands = Candidates.from_runs(runs("cranfield"), 50, TOPICS)
    train, test = [], []
    for t in TOPICS:
        for k, d in enumerate(sorted(cands.provenance(t))):
            (train if k % 2 else test).append((t, d, max(g[t].get(d, 0), 0)))
    judge = SupervisedJudge.fit(texts("cranfield"), train)
    pos = [judge.relevance(t, d) for t, d, x in test if x > 0]
    neg = [judge.relevance(t, d) for t, d, x in test if x == 0]
    assert _auc(pos, neg) > 0.7          # the runs' own ordering is the bar to pass
    grade, p = judge.grade(*test[0][:2])
    assert 0 <= grade <= 4 and 0 < p <= 1
    again = SupervisedJudge.fit(texts("cranfield"), train)
    assert [again.grade(t, d) for t, d, _ in test[:30]] == [judge.grade(t, d)
                                                            for t, d, _ in test[:30]]


def test_relevant_only_judgments_learn_against_a_sample_and_bad_topics_say_so() -> None:
    src = TextSource({f"d{i}": ("wing flutter lift" if i < 3 else f"cats dogs n{i}")
                      for i in range(200)}, {"q": "wing", "e": " "})
    judge = SupervisedJudge.fit(src, [("q", "d0", 1), ("q", "d1", 1)], sample=30)
    grade, p = judge.grade("q", "d30")
    assert grade == 0 and p > 0.5
    assert judge.relevance("q", "d2") > judge.relevance("q", "d30")
    with pytest.raises(PoolingError, match="topic 'z' has no judgments"):
        judge.grade("z", "d1")
    with pytest.raises(PoolingError, match="topic 'e' has no text"):
        SupervisedJudge.fit(src, [("e", "d0", 1)])
