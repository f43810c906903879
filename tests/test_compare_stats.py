"""Significance tests, corrections, effect size and intervals against scipy/statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from helpers import examples
from relkit.metrics.compare.corrections import CORRECTIONS, get_correction
from relkit.metrics.compare.effect import bootstrap_interval, cohens_dz, t_interval
from relkit.metrics.compare.errors import CompareError
from relkit.metrics.compare.significance import TESTS, Resampling, bootstrap_means, paired_test
from relkit.metrics.core.errors import MeasureError, RelkitError

# Fixed inputs: AP of two systems on 12 topics (made-up but IR-shaped: ties, a zero).
A = np.array([0.31, 0.12, 0.55, 0.08, 0.40, 0.22, 0.67, 0.05, 0.29, 0.18, 0.44, 0.36])
B = np.array([0.25, 0.15, 0.41, 0.08, 0.33, 0.10, 0.60, 0.02, 0.31, 0.11, 0.39, 0.30])
# 30 topics: too many for the exact randomisation test with 10,000 samples
rng0 = np.random.default_rng(42)
A30 = rng0.random(30)
B30 = np.clip(A30 - rng0.normal(0.04, 0.12, 30), 0, 1)


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def test_t_equals_scipy_ttest_rel() -> None:
    stat, p = paired_test("t", A, B)
    ref = stats.ttest_rel(A, B)
    assert stat == pytest.approx(ref.statistic, rel=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_wilcoxon_equals_scipy() -> None:
    for a, b in ((A, B), (A30, B30)):
        stat, p = paired_test("wilcoxon", a, b)
        ref = stats.wilcoxon(a - b, zero_method="wilcox")
        assert stat == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_sign_test_equals_scipy_binomtest() -> None:
    d = A - B                       # 9 wins, 2 losses, 1 tie (topic 4)
    wins, p = paired_test("sign", A, B)
    assert wins == 9
    assert p == pytest.approx(stats.binomtest(9, 11, 0.5).pvalue, rel=1e-12)
    assert (d == 0).sum() == 1
    for a, b in ((A30, B30), (B30, A30)):
        k = int((a > b).sum())
        m = int((a != b).sum())
        assert paired_test("sign", a, b)[1] == pytest.approx(stats.binomtest(k, m).pvalue,
                                                            rel=1e-12)


def test_randomisation_exact_equals_scipy_permutation_test() -> None:
    # 2^12 = 4096 sign vectors <= 10,000 samples: both enumerate them all (exact)
    stat, p = paired_test("randomisation", A, B, samples=10_000)
    ref = stats.permutation_test((A - B,), _mean, permutation_type="samples",
                                 n_resamples=10_000, vectorized=True)
    assert stat == pytest.approx(ref.statistic, rel=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-12)


def test_randomisation_sampled_agrees_with_scipy_within_monte_carlo_error() -> None:
    samples = 20_000
    _, p = paired_test("randomisation", A30, B30, samples=samples, seed=3)
    ref = stats.permutation_test((A30 - B30,), _mean, permutation_type="samples",
                                 n_resamples=samples, vectorized=True,
                                 rng=np.random.default_rng(11)).pvalue
    se = np.sqrt(ref * (1 - ref) / samples) * np.sqrt(2)   # two independent estimates
    assert 0.001 < ref < 0.5        # a p-value with room on both sides
    assert abs(p - ref) < 5 * se + 2 / samples


def test_bootstrap_resamples_and_interval_equal_scipy_bootstrap() -> None:
    # same generator -> same resamples as scipy.stats.bootstrap -> same interval
    for level in (0.9, 0.95):
        lo, hi = bootstrap_interval(A30, level, 3_000, 5)
        ref = stats.bootstrap((A30,), np.mean, n_resamples=3_000, method="percentile",
                              confidence_level=level, rng=np.random.default_rng(5))
        assert lo == pytest.approx(ref.confidence_interval.low, rel=1e-12)
        assert hi == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_bootstrap_test_equals_direct_shift_method() -> None:
    d = A30 - B30
    samples, seed = 4_000, 9
    idx = np.random.default_rng(seed).integers(0, len(d), size=(samples, len(d)))
    z = d - d.mean()
    extreme = np.abs(z[idx].mean(axis=1)) >= abs(d.mean()) - 1e-13
    expected = (extreme.sum() + 1) / (samples + 1)
    stat, p = paired_test("bootstrap", A30, B30, samples=samples, seed=seed)
    assert stat == pytest.approx(d.mean())
    assert p == pytest.approx(expected, rel=1e-12)
    means = bootstrap_means(d[:, None], samples, seed)[:, 0]
    assert np.allclose(means, d[idx].mean(axis=1))


def test_bootstrap_and_randomisation_agree_with_t_on_clear_cases() -> None:
    # a large, consistent difference: every test rejects; identical systems: none does
    a = np.linspace(0.2, 0.8, 40)
    b = a - 0.05 - 0.01 * np.sin(np.arange(40))
    for name in TESTS.names():
        assert paired_test(name, a, b)[1] < 0.001, name
        assert paired_test(name, a, a)[1] == 1.0, name


@pytest.mark.slow
@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=3, max_size=25),
       st.integers(0, 2**31), st.sampled_from(TESTS.names()))
def test_every_test_is_symmetric_and_a_probability(xs: list[float], seed: int,
                                                   name: str) -> None:
    a = np.array(xs)
    b = np.random.default_rng(seed).permutation(a)
    _, p_ab = paired_test(name, a, b, samples=500, seed=seed % 1000)
    _, p_ba = paired_test(name, b, a, samples=500, seed=seed % 1000)
    assert 0 < p_ab <= 1
    assert p_ab == pytest.approx(p_ba, abs=1e-12)        # swapping the systems
    order = np.random.default_rng(seed + 1).permutation(len(a))
    if name not in ("randomisation", "bootstrap") or 2 ** len(a) <= 500:
        # topic order does not matter (the sampled tests draw per position)
        assert paired_test(name, a[order], b[order], samples=500)[1] == \
            pytest.approx(paired_test(name, a, b, samples=500)[1], abs=1e-12)


def test_effect_size_is_t_over_sqrt_n() -> None:
    d = A - B
    dz = cohens_dz(d)[0]
    assert dz == pytest.approx(d.mean() / d.std(ddof=1))
    assert dz * np.sqrt(len(d)) == pytest.approx(stats.ttest_rel(A, B).statistic)
    assert np.isnan(cohens_dz(np.full(5, 0.1))[0])


def test_t_interval_equals_scipy() -> None:
    lo, hi = t_interval(A30, 0.9)
    ref = stats.ttest_1samp(A30, 0).confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((ref.low, ref.high), rel=1e-12)


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30),
       st.sampled_from(["bonferroni", "holm", "bh"]))
def test_corrections_equal_statsmodels(ps: list[float], name: str) -> None:
    from statsmodels.stats.multitest import multipletests

    method = {"bh": "fdr_bh"}.get(name, name)
    expected = multipletests(ps, method=method)[1]
    got = get_correction(name).adjust(np.array(ps))
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-15)
    assert np.all(got >= np.array(ps) - 1e-15)


def test_correction_worked_example() -> None:
    # Holm's and BH's steps by hand for p = (0.01, 0.04, 0.03, 0.005), m = 4:
    # Holm sorted: 0.005*4=0.02, 0.01*3=0.03, 0.03*2=0.06, 0.04*1 -> max so far 0.06
    # BH sorted: 0.005*4/1=0.02, 0.01*4/2=0.02, 0.03*4/3=0.04, 0.04*4/4=0.04
    p = np.array([0.01, 0.04, 0.03, 0.005])
    assert np.allclose(get_correction("holm").adjust(p), [0.03, 0.06, 0.06, 0.02])
    assert np.allclose(get_correction("bh").adjust(p), [0.02, 0.04, 0.04, 0.02])
    assert np.allclose(get_correction("bonferroni").adjust(p), [0.04, 0.16, 0.12, 0.02])
    assert np.array_equal(get_correction("none").adjust(p), p)


def test_registries_find_aliases_and_suggest() -> None:
    assert TESTS.lookup("permutation").name == "randomisation"
    assert TESTS.lookup("Student").name == "t"
    assert CORRECTIONS.lookup("fdr_bh").name == "bh"
    with pytest.raises(CompareError, match="unknown significance test 'wilcoxn'; "
                                           "did you mean 'wilcoxon'?"):
        TESTS.lookup("wilcoxn")
    with pytest.raises(CompareError, match=r"\(known: none, bonferroni, holm, bh\)"):
        CORRECTIONS.lookup("sidak")


@pytest.mark.parametrize("samples, seed", [(0, 0), (-5, 0), (1.5, 0), (True, 0), (10, -1)])
def test_bad_resampling_parameters(samples: object, seed: object) -> None:
    with pytest.raises(MeasureError, match=r"The '(samples|seed)' parameter of the "
                       r"resampling tests must be an int >= [01]; got"):
        Resampling(samples, seed)  # type: ignore[arg-type]
    assert issubclass(MeasureError, RelkitError)


def test_t_on_underflowing_differences_is_no_evidence() -> None:
    # Found by hypothesis: the variance of differences ~1e-295 underflows to 0 and
    # scipy's t test returns NaN; a p-value must stay a probability.
    a = np.array([0.0, 0.0, 9.17e-295])
    b = np.array([0.0, 9.17e-295, 0.0])
    assert paired_test("t", a, b) == (0.0, 1.0)


def test_the_t_test_gives_scipys_bits_without_importing_scipy_stats() -> None:
    """student_t computes ttest_1samp's statistic and p-value itself (same operations)."""
    import warnings

    from relkit.metrics.compare.significance import _ttest_1samp

    rng = np.random.default_rng(0)
    for trial in range(600):
        n, k = int(rng.integers(2, 200)), int(rng.integers(1, 8))
        D = (rng.normal(size=(n, k)) * rng.choice([1e-3, 0.2, 1.0]) if trial % 2
             else np.round(rng.uniform(-1, 1, size=(n, k)), 3))
        if trial % 7 == 0:
            D[:, 0] = 0.0
        if trial % 11 == 0:
            D[:, -1] = 0.1            # constant: no variance
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            ref = stats.ttest_1samp(D, 0.0, axis=0)
        t, p = _ttest_1samp(D)
        assert np.array_equal(t, np.asarray(ref.statistic, float), equal_nan=True), trial
        assert np.array_equal(p, np.asarray(ref.pvalue, float), equal_nan=True), trial


def test_a_paired_t_test_imports_no_scipy_stats() -> None:
    import subprocess
    import sys

    code = ("import sys, numpy as np\n"
            "from relkit.metrics.compare.significance import paired_test\n"
            "print(paired_test('t', [0.1, 0.5, 0.3], [0.2, 0.1, 0.3]))\n"
            "print('scipy.stats' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split("\n")
    assert out[1] == "False", out
