"""`relkit ab` statistics against published numbers, tea-tasting and statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ab_helpers import user_sums
from helpers import oracle
from relkit.metrics.online.ab.effect import Arm, bootstrap_effect, ratio_effect
from relkit.metrics.online.ab.errors import ABError
from relkit.metrics.online.ab.moments import ratio_var
from relkit.metrics.online.ab.plain import proportion_z, welch_from_sums
from relkit.metrics.online.ab.power import mde_t, n_prop, n_t, power_prop, power_t
from relkit.metrics.online.ab.sequential import msprt, obf_spending, obrien_fleming_bounds
from relkit.metrics.online.ab.srm import parse_expected, srm_test

tt = oracle("tea_tasting", skip=True)


def arms(d: dict[str, np.ndarray], cuped: bool = False) -> tuple[Arm, Arm]:
    c, t = ~d["treat"], d["treat"]
    if cuped:
        return (Arm(d["x"][c], d["y"][c], d["xc"][c], d["yc"][c]),
                Arm(d["x"][t], d["y"][t], d["xc"][t], d["yc"][t]))
    return Arm(d["x"][c], d["y"][c]), Arm(d["x"][t], d["y"][t])


def frame(d: dict[str, np.ndarray]) -> pd.DataFrame:
    return pd.DataFrame({"variant": d["treat"].astype(int), "x": d["x"], "y": d["y"],
                         "xc": d["xc"], "yc": d["yc"]})


# --- published numbers -----------------------------------------------------------------

def test_power_t_matches_r_power_t_test() -> None:
    # R: power.t.test(n = 20, delta = 1)$power = 0.8689528
    assert power_t(20, 1) == pytest.approx(0.8689528, abs=5e-8)
    # R: power.t.test(power = .90, delta = 1)$n = 22.02110
    assert n_t(0.9, 1) == pytest.approx(22.02110, abs=5e-5)
    # and the MDE at that n is the delta back
    assert mde_t(22.02110, 0.9) == pytest.approx(1.0, abs=1e-5)


def test_power_prop_matches_r_power_prop_test() -> None:
    # R: power.prop.test(p1 = .50, p2 = .75, power = .90)$n = 76.7 (76.65 rounds ... 76.7)
    n = n_prop(0.9, 0.5, 0.75)
    assert n == pytest.approx(76.7, abs=0.05)
    assert power_prop(n, 0.5, 0.75) == pytest.approx(0.9, abs=1e-9)


def test_srm_kohavi_example() -> None:
    # Kohavi, Tang & Xu (2020), ch. 21: 821,588 vs 815,482 on 50/50, p ~ 1.8e-6
    res = srm_test({"control": 821588, "treatment": 815482},
                   parse_expected("control=50,treatment=50"))
    assert res.p == pytest.approx(1.8e-6, rel=0.02)
    assert res.df == 1


def test_obf_bounds_match_ldbounds() -> None:
    # R ldbounds / gsDesign: Lan-DeMets O'Brien-Fleming-type, 5 equal looks, alpha .05
    # two-sided symmetric: 4.8769 3.3569 2.6803 2.2898 2.0310
    got = obrien_fleming_bounds([0.2, 0.4, 0.6, 0.8, 1.0])
    assert got == pytest.approx([4.8769, 3.3569, 2.6803, 2.2898, 2.0310], abs=2e-4)
    assert obf_spending(1.0) == pytest.approx(0.05)


# --- tea-tasting, to 1e-10 ---------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_delta_method_agrees_with_tea_tasting(seed: int) -> None:
    d = user_sums(4000, seed, effect=0.03)
    ref = tt.Experiment(m=tt.RatioOfMeans("x", "y")).analyze(frame(d))["m"]
    e = ratio_effect(*arms(d))
    for ours, theirs in [(e.control, ref.control), (e.treatment, ref.treatment),
                         (e.delta, ref.effect_size), (e.delta_low, ref.effect_size_ci_lower),
                         (e.delta_high, ref.effect_size_ci_upper), (e.rel, ref.rel_effect_size),
                         (e.rel_low, ref.rel_effect_size_ci_lower),
                         (e.rel_high, ref.rel_effect_size_ci_upper), (e.p, ref.pvalue)]:
        assert ours == pytest.approx(theirs, abs=1e-10, rel=1e-10)


@pytest.mark.parametrize("seed", [4, 5])
def test_cuped_agrees_with_tea_tasting(seed: int) -> None:
    d = user_sums(4000, seed, effect=0.03)
    ref = tt.Experiment(m=tt.RatioOfMeans("x", "y", "xc", "yc")).analyze(frame(d))["m"]
    e = ratio_effect(*arms(d, cuped=True))
    for ours, theirs in [(e.control, ref.control), (e.treatment, ref.treatment),
                         (e.delta_low, ref.effect_size_ci_lower),
                         (e.rel_high, ref.rel_effect_size_ci_upper), (e.p, ref.pvalue)]:
        assert ours == pytest.approx(theirs, abs=1e-10, rel=1e-10)
    assert e.variance_reduction is not None and 0 < e.variance_reduction < 1


def test_plain_mean_agrees_with_tea_tasting_mean() -> None:
    d = user_sums(3000, 6)
    d["y"] = np.ones_like(d["y"])
    ref = tt.Experiment(m=tt.Mean("x")).analyze(frame(d))["m"]
    e = ratio_effect(*arms(d))
    assert e.p == pytest.approx(ref.pvalue, abs=1e-10)
    assert e.delta_high == pytest.approx(ref.effect_size_ci_upper, abs=1e-10)


def test_srm_agrees_with_tea_tasting() -> None:
    rng = np.random.default_rng(7)
    treat = rng.random(20011) < 0.51
    ref = tt.Experiment(srm=tt.SampleRatio(method="norm", correction=False)).analyze(
        pd.DataFrame({"variant": treat.astype(int)}))["srm"]
    res = srm_test({"c": int((~treat).sum()), "t": int(treat.sum())}, {"c": 1, "t": 1})
    assert res.p == pytest.approx(ref.pvalue, abs=1e-10, rel=1e-10)


@pytest.mark.parametrize("n_total", [2000, 20000])
def test_power_agrees_with_tea_tasting(n_total: int) -> None:
    # tea-tasting's power: Welch df, both tails, the sample's delta-method variance.
    d = user_sums(3000, 8)
    df = frame(d)
    effect = 0.01
    ref = tt.RatioOfMeans("x", "y", effect_size=effect, n_obs=n_total).solve_power(
        df, "power")[0]
    sd = math.sqrt(ratio_var(d["x"], d["y"]))
    ours = power_t(n_total / 2, effect, sd, strict=True)
    assert ours == pytest.approx(ref.power, abs=1e-10)


# --- statsmodels / scipy on the plain tests ---------------------------------------------

def test_proportion_z_agrees_with_statsmodels() -> None:
    from statsmodels.stats.proportion import proportions_ztest

    e = proportion_z(420, 1000, 465, 1010)
    _, p = proportions_ztest([465, 420], [1010, 1000])
    assert e.p == pytest.approx(p, abs=1e-12)


def test_welch_from_sums_agrees_with_statsmodels() -> None:
    from statsmodels.stats.weightstats import ttest_ind

    rng = np.random.default_rng(9)
    a, b = rng.exponential(8, 300), rng.exponential(9, 350)
    e = welch_from_sums(a.sum(), (a * a).sum(), len(a), b.sum(), (b * b).sum(), len(b))
    _, p, df = ttest_ind(b, a, usevar="unequal")
    assert e.p == pytest.approx(p, abs=1e-10)
    assert e.df == pytest.approx(df, rel=1e-10)


def test_ratio_with_unit_denominator_is_statsmodels_welch() -> None:
    from statsmodels.stats.weightstats import ttest_ind

    rng = np.random.default_rng(10)
    a, b = rng.poisson(3, 400).astype(float), rng.poisson(3.3, 380).astype(float)
    e = ratio_effect(Arm(a, np.ones_like(a)), Arm(b, np.ones_like(b)))
    _, p, _ = ttest_ind(b, a, usevar="unequal")
    assert e.p == pytest.approx(p, abs=1e-10)


def test_corrections_agree_with_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    from relkit.metrics.compare.corrections import get_correction

    p = np.array([0.001, 0.04, 0.03, 0.2, 0.011])
    for ours, theirs in [("holm", "holm"), ("bh", "fdr_bh")]:
        np.testing.assert_allclose(get_correction(ours).adjust(p),
                                   multipletests(p, method=theirs)[1], atol=1e-12)


# --- the relative interval ----------------------------------------------------------------

def test_fieller_interval_contains_the_ratio_and_is_close_to_log_when_precise() -> None:
    d = user_sums(20000, 12, effect=0.05)
    log = ratio_effect(*arms(d))
    fie = ratio_effect(*arms(d), relative="fieller")
    assert fie.rel_low < fie.rel < fie.rel_high
    assert fie.rel_low == pytest.approx(log.rel_low, abs=2e-3)
    assert fie.rel_high == pytest.approx(log.rel_high, abs=2e-3)


def test_fieller_is_unbounded_when_the_control_mean_is_not_distinguishable_from_0() -> None:
    x = np.array([0.0, 0.0, 2.0, 0.0, -1.0, 0.5])  # mean .25, SE of the mean ~.41
    c = Arm(x, np.ones(6))
    t = Arm(np.array([1.0, 2.0, 1.0, 2.0, 1.0, 2.0]), np.ones(6))
    e = ratio_effect(c, t, relative="fieller")
    assert (e.rel_low, e.rel_high) == (-math.inf, math.inf)


# --- properties -------------------------------------------------------------------------

def test_naive_per_impression_se_is_below_the_delta_method_se_on_clustered_data() -> None:
    d = user_sums(20000, 13)
    c, t = arms(d)
    e = ratio_effect(c, t)
    naive = proportion_z(c.x.sum(), c.y.sum(), t.x.sum(), t.y.sum())
    assert naive.se < 0.9 * e.se


def test_cuped_with_x_equal_y_removes_all_variance() -> None:
    d = user_sums(5000, 14)
    d["xc"], d["yc"] = d["x"].copy(), d["y"].copy()
    e = ratio_effect(*arms(d, cuped=True))
    assert e.variance_reduction == pytest.approx(1.0, abs=1e-9)


def test_cuped_with_an_independent_covariate_removes_about_none() -> None:
    d = user_sums(20000, 15)
    other = user_sums(20000, 99)
    d["xc"], d["yc"] = other["x"], other["y"]
    e = ratio_effect(*arms(d, cuped=True))
    assert e.variance_reduction is not None and abs(e.variance_reduction) < 0.01


def test_delta_method_se_is_close_to_the_cluster_bootstrap() -> None:
    d = user_sums(100_000, 16, effect=0.01)
    e = ratio_effect(*arms(d))
    b = bootstrap_effect(*arms(d), samples=400, seed=1)
    # 400 replicates: the bootstrap SE itself is known to about 1/sqrt(2*400) = 3.5%;
    # the slow test below uses more replicates for the 2% bound.
    assert b.se == pytest.approx(e.se, rel=0.08)


@pytest.mark.slow
def test_delta_method_se_within_2_percent_of_the_cluster_bootstrap_at_1e5_users() -> None:
    d = user_sums(100_000, 17, effect=0.01)
    e = ratio_effect(*arms(d))
    b = bootstrap_effect(*arms(d), samples=4000, seed=2)
    assert b.se == pytest.approx(e.se, rel=0.02)


@pytest.mark.slow
def test_coverage_of_a_planted_one_percent_ctr_effect() -> None:
    # +1% relative on CTR@1: the 95% interval of the relative change covers it.
    covered = 0
    for seed in range(200):
        d = user_sums(20000, 1000 + seed, effect=0.01)  # clustered users (spread .15)
        e = ratio_effect(*arms(d))
        covered += e.rel_low <= 0.01 <= e.rel_high
    assert covered >= 0.94 * 200


@pytest.mark.slow
def test_aa_rejects_at_about_the_nominal_rate() -> None:
    rejects = sum(ratio_effect(*arms(user_sums(5000, 5000 + s))).p < 0.05 for s in range(400))
    # 400 A/A tests at alpha .05: 20 expected, sd ~4.4
    assert 8 <= rejects <= 34


def test_msprt_p_is_non_increasing_and_valid() -> None:
    res = msprt([0.0, 0.01, 0.02, 0.03], [1e-4, 5e-5, 3e-5, 2e-5], tau=0.02)
    ps = [r.p for r in res]
    assert ps == sorted(ps, reverse=True)
    assert all(0 < p <= 1 for p in ps)
    assert res[-1].low <= 0.03 <= res[-1].high


@pytest.mark.slow
def test_obf_bounds_keep_the_type_one_error() -> None:
    rng = np.random.default_rng(18)
    t = np.array([0.2, 0.4, 0.6, 0.8, 1.0])
    b = np.array(obrien_fleming_bounds(list(t)))
    inc = rng.normal(size=(200_000, 5)) * np.sqrt(np.diff(np.r_[0, t]))
    z = np.cumsum(inc, axis=1) / np.sqrt(t)
    rate = float((np.abs(z) >= b).any(axis=1).mean())
    assert rate == pytest.approx(0.05, abs=0.003)


def test_expected_is_parsed_and_checked() -> None:
    assert parse_expected("control=50,treatment=50") == {"control": 50.0, "treatment": 50.0}
    for bad in ["control=50", "control=50,treatment", "control=-1,treatment=1",
                "a=1,a=2"]:
        with pytest.raises(ABError):
            parse_expected(bad)
    with pytest.raises(ABError, match="'other'"):
        srm_test({"control": 5, "other": 5}, {"control": 1, "treatment": 1})
