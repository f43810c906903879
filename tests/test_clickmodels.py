"""Click models: parameter recovery from simulated logs, EM monotonicity, the random
model's perplexity, SDBN by hand, the model file."""

from __future__ import annotations

import numpy as np
import pytest

from clickmodel_recovery import TOL, errors
from clickmodel_recovery import log as _log
from relkit.metrics.online.clickmodels.base import evaluate
from relkit.metrics.online.clickmodels.cascade import SDBN, Cascade
from relkit.metrics.online.clickmodels.ctr import DCTR, GCTR, RCTR, RandomClickModel
from relkit.metrics.online.clickmodels.data import ClickData
from relkit.metrics.online.clickmodels.dbn import DBN
from relkit.metrics.online.clickmodels.registry import MODELS
from relkit.metrics.online.clickmodels.store import load, save


def _recovered(truth, fitted, data: ClickData, kind: str) -> None:
    """Every parameter with at least MIN_OBS observations is within TOL."""
    found = errors(truth, fitted, data, kind)
    assert found["alpha"][0] > 0
    if kind == "dcm":
        assert found["lambda"][0] >= data.max_rank - 1
    for name, (_, err) in found.items():
        assert err < TOL, (name, err)


# Sizes: TOL = 0.01 on parameters seen >= MIN_OBS = 10^4 times. A click rate estimated
# from n observations has a standard error of at most 0.5/sqrt(n) = 0.005 at 10^4, so
# the bound is 2 standard errors at the worst p (the seeds are fixed: the test is
# deterministic). 200k sessions on 10 (query, document) pairs at depth 5 give every
# pair and rank 10^4 to 10^5 observations, so alpha, the examination/continuation
# parameters and tau are all checked, and a wrong M-step fails: in DCM's, dropping the
# posterior "went on after the last click" from lambda's numerator leaves alpha 0.015
# off, halving the unseen-tail term of alpha's leaves it 0.20 off (both tried). The same
# recovery on 10^6 sessions at depth 10 (every rank of UBM's 10 x 11 gamma grid) is
# bench/clickmodels_recovery.py, which prints the table: 70 CPU-s a model, a benchmark
# rather than a test.
@pytest.mark.parametrize("kind", ["pbm", "ubm", "dcm", "ccm"])
def test_recovers_parameters_small(kind: str) -> None:
    truth, data = _log(kind, 200_000, [5, 5], 5, seed=7)
    fitted = MODELS[kind]().fit(data, iterations=100, seed=1)
    _recovered(truth, fitted, data, kind)


def test_recovers_dbn_small() -> None:
    # sigma is seen on clicks only: more sessions per pair than PBM needs. Satisfaction
    # is seen only through the absence of later clicks, so its estimate is noisier than
    # a click rate: over 6 replicate logs (200k sessions each, EM converged) sigma's
    # standard deviation scaled to 10^4 clicks was 0.0062 (median over pairs; up to
    # 0.013), so 0.01 at 10^4 clicks is 1.6 standard deviations; the E-step's likelihood
    # equals the forward one and the estimates equal an independent forward-backward's
    # to 1e-14 (converged), so a miss here is noise of the log, not EM.
    truth, data = _log("dbn", 300_000, [4, 4], 4, seed=7)
    fitted = DBN().fit(data, iterations=100, seed=1)
    _recovered(truth, fitted, data, "dbn")


@pytest.mark.parametrize("kind", ["pbm", "ubm", "dbn", "dcm", "ccm"])
def test_em_log_likelihood_never_decreases(kind: str) -> None:
    _, data = _log(kind, 20_000, [6, 3, 8], 6, seed=3)
    for seed in (0, 1):
        trace = np.asarray(MODELS[kind]().fit(data, iterations=40, seed=seed).trace)
        assert len(trace) == 41
        # relative tolerance: float rounding of sums over 10^5 terms
        assert (np.diff(trace) >= -1e-9 * np.abs(trace[1:])).all()


def test_random_model_perplexity_is_two_at_every_rank() -> None:
    _, data = _log("dbn", 5_000, [7, 2, 9], 8, seed=5)
    ev = evaluate(RandomClickModel().fit(data), data)
    assert ev.perplexity == [2.0] * 8
    assert ev.mean_perplexity == 2.0
    assert ev.log_likelihood == pytest.approx(np.log(0.5) * data.shown.sum() / data.n_sessions)


def test_sdbn_hand_worked() -> None:
    # One query, documents a, b, c; l = rank of the last click (no click: the last rank).
    #   s1: a b c, clicks a     -> l=1: examined a;        last-clicked a
    #   s2: a b c, clicks b     -> l=2: examined a, b;     last-clicked b
    #   s3: b a c, clicks b, c  -> l=3: examined b, a, c;  last-clicked c
    #   s4: b a c, no click     -> all examined: b, a, c
    #   s5: c a b, clicks a     -> l=2: examined c, a;     last-clicked a
    # alpha = clicks / examined: a 2/5, b 2/3, c 1/3
    # sigma = last-clicked / clicks: a 2/2, b 1/2, c 1/1
    a, b, c = 0, 1, 2
    pair = np.array([[a, b, c], [a, b, c], [b, a, c], [b, a, c], [c, a, b]])
    click = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1], [0, 0, 0], [0, 1, 0]], dtype=bool)
    data = ClickData(pair, click, np.array(["q"] * 3, dtype=object),
                     np.array(["a", "b", "c"], dtype=object))
    m = SDBN().fit(data)
    assert m.params["alpha"] == pytest.approx([2 / 5, 2 / 3, 1 / 3], abs=1e-15)
    assert m.params["sigma"] == pytest.approx([1.0, 1 / 2, 1.0], abs=1e-15)


def test_counting_models_by_hand() -> None:
    pair = np.array([[0, 1], [1, 0], [0, -1]])
    click = np.array([[1, 0], [1, 1], [0, 0]], dtype=bool)
    data = ClickData(pair, click, np.array(["q", "q"], dtype=object),
                     np.array(["x", "y"], dtype=object))
    assert GCTR().fit(data).params["rho"][0] == pytest.approx(3 / 5)
    assert RCTR().fit(data).params["rho"] == pytest.approx([2 / 3, 1 / 2])
    assert DCTR().fit(data).params["alpha"] == pytest.approx([2 / 3, 1 / 2])
    # cascade: examined up to the first click: x (s1), y (s2), x (s3: no click, all)
    assert Cascade().fit(data).params["alpha"] == pytest.approx([1 / 2, 1.0])


def test_split_holds_out_sessions_within_each_query() -> None:
    _, data = _log("pbm", 1_000, [3, 4], 3, seed=2)
    train, test = data.split(0.2, seed=4)
    assert train.n_sessions + test.n_sessions == data.n_sessions
    q_all, q_test = data.session_query(), test.session_query()
    for q in np.unique(q_all):
        n = int((q_all == q).sum())
        assert int((q_test == q).sum()) == int(np.floor(n * 0.2))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_file_round_trip(name: str, tmp_path) -> None:
    _, data = _log("dbn", 3_000, [3, 4], 4, seed=9)
    m = MODELS[name]().fit(data, iterations=5)
    save(m, tmp_path / "m.json", {"iterations": 5})
    back, fit = load(tmp_path / "m.json")
    assert fit == {"iterations": 5} and back.name == name
    assert list(back.queries) == list(m.queries)
    c1, m1 = m.probabilities(data.pair, data.click)
    c2, m2 = back.probabilities(back.recode(data), data.click)
    assert np.array_equal(c1, c2) and np.array_equal(m1, m2)


@pytest.mark.parametrize("kind", ["dbn", "dcm", "ccm"])
def test_em_trace_is_the_models_likelihood(kind: str) -> None:
    # The E-step's likelihood (closed form above the last click, backward pass below)
    # equals the likelihood of the conditional click probabilities, computed forward.
    from relkit.metrics.online.clickmodels.base import session_log_likelihood

    _, data = _log(kind, 5_000, [6, 3, 8], 6, seed=4)
    m = MODELS[kind]().fit(data, iterations=3, seed=0)
    cond, _ = m.probabilities(data.pair, data.click)
    assert m.trace[-1] == pytest.approx(
        session_log_likelihood(cond, data.click, data.shown), rel=1e-12)
