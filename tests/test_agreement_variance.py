"""Analytic standard errors against irrCAC (Gwet's own formulas) and the delta method.

The ``irrCAC`` Python package (0.4.4) pins scipy==1.12 and pandas<3, so it is not in the
``test`` extra (it would downgrade the project's stack): ``make setup`` installs it beside
them with ``pip install --no-deps``, and the live oracle tests fail (not skip) without it.
The values it printed (``digits=10``) for the published data sets are also kept here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreement_data import KRIPP, long_frame
from relkit.corpora.types import RelevanceScale
from relkit.judging.agreement import multi, pairwise, variance
from relkit.judging.agreement.frame import Ratings

APPLICANTS = np.array([[25, 6], [2, 61]])
BIN = np.array([0.0, 1.0])

# irrCAC 0.4.4, CAC(raw_4raters, categories=[1..5], weights=..., digits=10): the 12 units x 4
# raters of Krippendorff (2011), the package's (and R irrCAC's) cac.raw4raters.
IRRCAC_RAW4 = {
    "fleiss_kappa": (0.7611692754, 0.1530192035),
    "gwet_ac1": (0.7754440681, 0.1429499506),
    "gwet_ac2_linear": (0.8587391364, 0.1173290219),
    "gwet_ac2_quadratic": (0.9140007236, 0.1039622446),
    "krippendorff_alpha_nominal": (0.7434210526, 0.145573887),
    "krippendorff_alpha_interval": (0.8491071429, 0.1291299657),
    "krippendorff_alpha_ratio": (0.7974027747, 0.1404810538),
}
# irrCAC 0.4.4 table CAC(...).scott(), digits=10
IRRCAC_SCOTT = [(APPLICANTS, 0.800530504, 0.0672399286),
                (np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]]), 0.4532374101, 0.1655905532)]


def _kripp() -> Ratings:
    scale = RelevanceScale.from_values("k", range(1, 6))
    return Ratings.from_frame(long_frame(KRIPP, by_item=False), scale)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(IRRCAC_RAW4))
def test_multi_se_matches_irrcac_published_data(name: str) -> None:
    r = _kripp()
    s = multi.measure(multi.REGISTRY[name], multi.patterns(r.codes, 5), r.values, replicates=0)
    value, se = IRRCAC_RAW4[name]
    assert s.value == pytest.approx(value, abs=1e-9)
    assert s.analytic is not None and s.analytic.se == pytest.approx(se, abs=1e-9)
    assert s.analytic.high <= 1.0


def test_ordinal_alpha_has_no_analytic_se() -> None:
    r = _kripp()
    s = multi.measure(multi.REGISTRY["krippendorff_alpha_ordinal"], multi.patterns(r.codes, 5),
                      r.values, replicates=100)
    assert s.analytic is None and s.bootstrap is not None


@pytest.mark.parametrize("t,value,se", IRRCAC_SCOTT)
def test_scott_pi_se_matches_irrcac(t: np.ndarray, value: float, se: float) -> None:
    vals = np.arange(float(t.shape[0]))
    s = pairwise.measure(pairwise.REGISTRY["scott_pi"], t, vals, replicates=0)
    assert s.value == pytest.approx(value, abs=1e-9)
    assert s.analytic is not None and s.analytic.se == pytest.approx(se, abs=1e-9)


def test_scott_pi_is_fleiss_with_two_assessors_up_to_n_over_n_minus_1() -> None:
    """The table formula and Gwet's raw-data linearisation differ only by n/(n - 1)."""
    t = APPLICANTS
    n = t.sum()
    pats = (np.eye(2, dtype=int)[:, None] + np.eye(2, dtype=int)[None, :]).reshape(4, 2)
    raw = float(variance.fleiss_se(pats, t.reshape(1, 4), BIN)[0])
    assert float(pairwise.scott_pi_se(t, BIN)) == pytest.approx(raw * np.sqrt((n - 1) / n))


def _delta_method_se(f, t: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Numerical delta method: gradient of f over cell shares, multinomial covariance."""
    p = t.ravel() / t.sum()
    g = np.zeros_like(p)
    for i in range(len(p)):
        h = np.zeros_like(p)
        h[i] = 1e-6
        g[i] = (f((p + h).reshape(t.shape)) - f((p - h).reshape(t.shape))) / 2e-6
    cov = (np.diag(p) - np.outer(p, p)) / t.sum()
    return float(np.sqrt(g @ cov @ g))


@pytest.mark.parametrize("name", ["positive_agreement", "negative_agreement",
                                  "prevalence_index", "bias_index", "cohen_kappa",
                                  "percent_agreement", "pabak"])
@pytest.mark.parametrize("t", [APPLICANTS, np.array([[40, 9], [14, 7]])])
def test_binary_se_is_the_delta_method(name: str, t: np.ndarray) -> None:
    """Graham & Bull (1998) specific agreement, PI/BI, kappa: the delta method, numerically."""
    st = pairwise.REGISTRY[name]
    assert st.se is not None
    ours = float(st.se(t, BIN))
    ref = _delta_method_se(lambda p: float(st.compute(p * 1000, BIN)), t)
    assert ours == pytest.approx(ref, rel=1e-5)


def test_graham_bull_closed_form() -> None:
    a, b, c, d = 61, 2, 6, 25          # applicants: both yes 61, A yes B no 2, A no B yes 6
    se = pairwise.REGISTRY["positive_agreement"].se
    assert se is not None
    assert float(se(APPLICANTS, BIN)) == pytest.approx(
        np.sqrt(4 * a * (b + c) * (a + b + c)) / (2 * a + b + c) ** 2)
    se = pairwise.REGISTRY["negative_agreement"].se
    assert se is not None
    assert float(se(APPLICANTS, BIN)) == pytest.approx(
        np.sqrt(4 * d * (b + c) * (d + b + c)) / (2 * d + b + c) ** 2)


def test_percent_agreement_se_is_se_of_the_item_mean() -> None:
    r = _kripp()
    pat = multi.patterns(r.codes, 5)
    s = multi.measure(multi.REGISTRY["percent_agreement"], pat, r.values, replicates=0)
    c = np.stack([(r.codes == k).sum(1) for k in range(5)], 1).astype(float)
    m = c.sum(1)
    two = m >= 2
    per = (c[two] * (c[two] - 1)).sum(1) / (m[two] * (m[two] - 1))
    assert s.value == pytest.approx(per.mean())
    assert s.analytic is not None
    assert s.analytic.se == pytest.approx(per.std(ddof=1) / np.sqrt(len(per)))


def test_per_topic_equals_each_topic_alone() -> None:
    """The vectorised per-topic values and SEs are those of each topic's items alone."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 4, size=(300, 4)).astype(np.int8)
    codes[:, 1] = np.where(rng.random(300) < 0.5, codes[:, 0], codes[:, 1])
    codes[rng.random(codes.shape) < 0.25] = -1
    topic = rng.integers(0, 5, size=300)
    vals = np.arange(4.0)
    pat = multi.patterns(codes, 4)
    for name, st in multi.REGISTRY.items():
        per = multi.per_topic(st, pat, topic, 5, vals, replicates=50, seed=3)
        for t in range(5):
            alone = multi.measure(st, multi.patterns(codes[topic == t], 4), vals,
                                  replicates=50, seed=3 + t)
            assert per[t].value == pytest.approx(alone.value, abs=1e-12), name
            if alone.analytic is not None:
                assert per[t].analytic is not None
                assert per[t].analytic.se == pytest.approx(alone.analytic.se, abs=1e-12)
            assert per[t].bootstrap == alone.bootstrap


def _irrcac():  # type: ignore[no-untyped-def]
    import irrCAC.raw  # make setup installs it (--no-deps); a skip would hide the oracle

    return irrCAC.raw


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_live_irrcac_on_random_data_with_missing(seed: int) -> None:
    raw = _irrcac()
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(80, 5))
    codes[:, 2] = np.where(rng.random(80) < 0.6, codes[:, 0], codes[:, 2])
    codes[rng.random(codes.shape) < 0.3] = -1
    codes = codes[(codes >= 0).any(1)]
    vals = np.arange(1.0, 5.0)
    pat = multi.patterns(codes, 4)
    d = pd.DataFrame(np.where(codes < 0, np.nan, codes + 1.0))
    cases = {"fleiss_kappa": ("fleiss", "identity"), "gwet_ac1": ("gwet", "identity"),
             "gwet_ac2_linear": ("gwet", "linear"), "gwet_ac2_quadratic": ("gwet", "quadratic"),
             "krippendorff_alpha_nominal": ("krippendorff", "identity"),
             "krippendorff_alpha_interval": ("krippendorff", "quadratic"),
             "krippendorff_alpha_ratio": ("krippendorff", "ratio")}
    for name, (fn, wt) in cases.items():
        # categories given: without them irrCAC (pandas 3) counts NaN as one more category
        ref = getattr(raw.CAC(d, weights=wt, categories=list(vals), digits=12), fn)()["est"]
        s = multi.measure(multi.REGISTRY[name], pat, vals, replicates=0)
        assert s.value == pytest.approx(ref["coefficient_value"], abs=1e-10), name
        assert s.analytic is not None
        assert s.analytic.se == pytest.approx(ref["se"], abs=1e-10), name


def test_live_irrcac_scott() -> None:
    _irrcac()
    from irrCAC.table import CAC

    rng = np.random.default_rng(5)
    for _ in range(5):
        t = rng.integers(0, 30, size=(3, 3)) + np.diag(rng.integers(10, 40, 3))
        ref = CAC(pd.DataFrame(t), digits=12).scott()["est"]
        assert float(pairwise.scott_pi_se(t, np.arange(3.0))) == pytest.approx(ref["se"],
                                                                                 abs=1e-10)
