"""cal's fit (pooling/cal/model.py) on the columns its labelled rows use: the same model
as liblinear on every column of the vocabulary (the oracle here: scikit-learn's own fit
on the full width), at a fraction of the cost that made the judging screen's batch ends
slow (issue 36, bench/tui_bench.py --cal). No timed assertions: what is checked is which
columns the solver is given, and that the scores and orders equal the full-width fit's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.sparse import random as sparse_random
from scipy.sparse import vstack

from cal_corpora import CORPORA, qrels, runs, texts
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.cal import model
from relkit.pooling.cal import plan as cal_plan
from relkit.pooling.cal.strategy import with_collection
from relkit.pooling.candidates import Candidates
from relkit.pooling.simulate import grades_of

needs = pytest.mark.skipif(not (CORPORA / "cranfield").exists(), reason="needs ../shared")


def full_width(candidates: Any, topic: Any, relevant: Any, other: Any,
               c: float = 1.0) -> np.ndarray:
    """The oracle: the logistic regression fitted on every column (the fit before)."""
    from sklearn.linear_model import LogisticRegression

    x = vstack([topic, relevant, other], format="csr")
    y = np.concatenate([np.ones(1 + relevant.shape[0]), np.zeros(other.shape[0])])
    if y.min() == y.max():
        return np.asarray(candidates @ topic.T.toarray()).ravel()
    clf = LogisticRegression(C=c, solver="liblinear", random_state=0).fit(x, y)
    return np.asarray(candidates @ clf.coef_.ravel().astype(np.float32)).ravel() + float(
        clf.intercept_[0])


def _data(seed: int) -> tuple[Any, Any, Any, Any]:
    """A 1,000-document, 4,000-word collection (40 words a row), l2-normalised."""
    from sklearn.preprocessing import normalize

    m = normalize(sparse_random(1000, 4000, density=0.01, format="csr",
                                dtype=np.float32, random_state=seed))
    return m, m[[0]], m[1:12], m[12:130]


def test_the_solver_is_given_only_the_columns_the_labelled_rows_hold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sklearn.linear_model import LogisticRegression

    widths, fit = [], LogisticRegression.fit

    def spy(self: Any, x: Any, y: Any, *a: Any, **k: Any) -> Any:
        widths.append(x.shape[1])
        return fit(self, x, y, *a, **k)

    monkeypatch.setattr(LogisticRegression, "fit", spy)
    cands, topic, rel, other = _data(0)
    model.fit_scores(cands, topic, rel, other)
    used = np.unique(vstack([topic, rel, other], format="csr").indices)
    assert widths == [len(used)] and len(used) < cands.shape[1]


def test_labelled_rows_without_a_word_fit_the_intercept_as_the_full_width_fit_does() -> None:
    """A topic of stop words only and a judged document without text: no labelled row
    holds a column; the fit is the full-width one (weights 0), not a 0-column error."""
    from scipy.sparse import csr_matrix

    cands, _, _, _ = _data(3)
    empty = csr_matrix((1, cands.shape[1]), dtype=np.float32)
    other = csr_matrix((2, cands.shape[1]), dtype=np.float32)
    got = model.fit_scores(cands, empty, empty[:0], other)
    want = full_width(cands, empty, empty[:0], other, 1.0)
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    assert len(set(got.tolist())) == 1     # the intercept alone: every candidate ties


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_scores_are_the_full_width_fits(seed: int) -> None:
    cands, topic, rel, other = _data(seed)
    got = model.fit_scores(cands, topic, rel, other, 0.5)
    want = full_width(cands, topic, rel, other, 0.5)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    assert np.array_equal(np.lexsort((np.arange(len(got)), -got)),
                          np.lexsort((np.arange(len(want)), -want)))


@needs
def test_cal_judges_cranfield_in_the_full_width_fits_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    q, src = grades_of(qrels("cranfield")), texts("cranfield")
    topics = ["1", "2", "8", "23"]
    c = Candidates.from_runs(runs("cranfield"), 50, topics)
    c = with_collection(Candidates(c.lists, c.scores, c.depth, text=src), src.docs)

    def order(topic: str) -> list[str]:
        g = q.get(topic, {})
        pool = AdaptivePool("cal", c, {"from": "collection"}, seed=5)
        return [j.doc for j in pool.run(topic, lambda d: max(g.get(d, 0), 0), 45)]

    ours = {t: order(t) for t in topics}
    monkeypatch.setattr(cal_plan, "fit_scores", full_width)
    assert {t: order(t) for t in topics} == ours
