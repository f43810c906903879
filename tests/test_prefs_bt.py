"""Bradley–Terry with ties (relkit.metrics.prefs.bt) against crowd-kit's Bradley–Terry
(tie-free data) and an independent scipy.optimize fit of Davidson's likelihood."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import oracle
from prefs_data import planted
from relkit.metrics.prefs.answers import Answer
from relkit.metrics.prefs.bt import fit_bt

crowdkit = oracle("crowdkit.aggregation")


def _answer(left: str, right: str, answer: str) -> Answer:
    return Answer(topic_id="1", left=left, right=right, answer=answer, assessor="a")


def test_tie_free_scores_equal_crowd_kits_bradley_terry() -> None:
    import pandas as pd

    theta, answers = planted(8, 600, seed=3)
    docs = [f"d{i}" for i in range(8)]
    fit = fit_bt(answers, docs, tol=1e-12)
    assert fit.mle and fit.nu == 0.0
    frame = pd.DataFrame({"worker": [a.assessor for a in answers],
                          "left": [a.left for a in answers],
                          "right": [a.right for a in answers],
                          "label": [a.winner for a in answers]})
    # crowd-kit 1.4's stopping test compares its score array with itself (`p_old = p_new`
    # aliases the array updated in place), so any tol > 0 stops it after two MM steps.
    # tol=0 runs all n_iter steps; on this input its scores stop moving (< 1e-15) after
    # about 500 MM steps, past relkit's Newton tolerance (1e-12 on theta).
    bt = crowdkit.BradleyTerry(n_iter=1_000, tol=0.0).fit(frame)
    theirs = bt.scores_.reindex(docs).to_numpy()
    ours = np.exp(fit.theta)
    np.testing.assert_allclose(ours / ours.sum(), theirs / theirs.sum(), atol=1e-6, rtol=0)
    # and the planted order comes back (not a tautology: 600 answers, 8 docs)
    assert np.corrcoef(fit.theta, theta)[0, 1] > 0.9


def _davidson_nll(x: np.ndarray, answers: list[Answer], docs: list[str]) -> float:
    """-log L written per answer, independently of relkit's per-pair counts."""
    theta = np.append(x[:-1], 0.0)
    nu = np.exp(x[-1])
    idx = {d: k for k, d in enumerate(docs)}
    total = 0.0
    for a in answers:
        pi, pj = np.exp(theta[idx[a.left]]), np.exp(theta[idx[a.right]])
        tie = nu * np.sqrt(pi * pj)
        p = pi if a.answer == "left" else pj if a.answer == "right" else tie
        total -= np.log(p / (pi + pj + tie))
    return float(total)


def test_davidson_fit_equals_an_independent_scipy_fit_and_its_standard_errors() -> None:
    from scipy.optimize import minimize

    _, answers = planted(6, 500, nu=0.7, seed=5)
    docs = [f"d{i}" for i in range(6)]
    fit = fit_bt(answers, docs, tol=1e-12)
    assert fit.mle and fit.nu > 0
    res = minimize(_davidson_nll, np.zeros(6), args=(answers, docs), method="BFGS",
                   jac="3-point",
                   options={"gtol": 1e-10, "maxiter": 10_000})
    ref_theta = np.append(res.x[:-1], 0.0)
    ref_theta -= ref_theta.mean()
    np.testing.assert_allclose(fit.theta, ref_theta, atol=1e-6, rtol=0)
    assert fit.nu == pytest.approx(np.exp(res.x[-1]), abs=1e-6)
    # standard errors: the inverse of a central-difference Hessian of the same -log L
    h, size = 1e-3, len(res.x)
    hess = np.empty((size, size))
    for k in range(size):
        for m in range(size):
            ek, em = np.eye(size)[k] * h, np.eye(size)[m] * h
            hess[k, m] = (_davidson_nll(res.x + ek + em, answers, docs)
                          - _davidson_nll(res.x + ek - em, answers, docs)
                          - _davidson_nll(res.x - ek + em, answers, docs)
                          + _davidson_nll(res.x - ek - em, answers, docs)) / (4 * h * h)
    cov = np.linalg.inv(0.5 * (hess + hess.T))
    full = np.zeros((6, 6))
    full[:5, :5] = cov[:5, :5]
    centre = np.eye(6) - 1 / 6
    ref_se = np.sqrt(np.diag(centre @ full @ centre.T))
    np.testing.assert_allclose(fit.se, ref_se, rtol=1e-4)


def test_a_document_that_never_loses_gets_the_prior_and_finite_scores() -> None:
    answers = [_answer("a", "b", "left"), _answer("a", "c", "left"),
               _answer("b", "c", "left"), _answer("c", "b", "left")]
    fit = fit_bt(answers)
    assert not fit.mle
    assert np.all(np.isfinite(fit.theta)) and np.all(np.isfinite(fit.se))
    assert fit.ranking()[0] == "a"


def test_a_disconnected_graph_and_only_ties_fit_with_the_prior() -> None:
    fit = fit_bt([_answer("a", "b", "left"), _answer("b", "a", "left"),
                  _answer("c", "d", "left"), _answer("d", "c", "right")])
    assert not fit.mle and fit.ranking()[0] == "c"
    ties = fit_bt([_answer("a", "b", "equal"), _answer("b", "c", "neither")])
    assert not ties.mle and np.allclose(ties.theta, 0.0) and np.isfinite(ties.nu)


def test_a_strongly_connected_graph_is_a_maximum_likelihood_fit() -> None:
    answers = [_answer("a", "b", "left"), _answer("b", "c", "left"),
               _answer("c", "a", "left"), _answer("a", "c", "equal")]
    fit = fit_bt(answers)
    assert fit.mle and fit.nu > 0


def test_recovery_of_the_planted_order_grows_with_the_answers() -> None:
    from scipy.stats import kendalltau

    taus = []
    for n in (40, 400, 4000):
        theta, answers = planted(10, n, nu=0.5, seed=11)
        fit = fit_bt(answers, [f"d{i}" for i in range(10)])
        taus.append(kendalltau(fit.theta, theta).statistic)
    assert taus[0] < taus[2] and taus[2] > 0.9
