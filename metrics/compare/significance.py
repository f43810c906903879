"""Paired significance tests over topics, one small object per test.

Every test takes the per-topic differences ``D`` (topics x columns: one column
per pair of systems and measure) and returns a statistic and a two-sided
p-value per column, so all comparisons of a run are tested in one pass. The
resampling tests draw their random signs / resamples once and reuse them for
every column: each p-value is still a valid test; they are just not
independent of each other (neither are the differences).

Find a test by name with :func:`get_test`; :data:`TESTS` lists them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relkit.metrics.compare.errors import CompareError
from relkit.metrics.core.params import bad_param
from relkit.metrics.core.registry import Registry

# Tolerance for "at least as extreme": the same mean summed in another order
# (a matrix product, a resample) may differ in its last bits, and a null value
# equal to the observed one must count. The rounding error of a mean is about
# eps * mean|d| * log n; 100 eps * mean|d| covers it and is far below any real
# difference (scipy's permutation_test uses 100 eps * |observed|, which fails
# when the observed mean is 0 but rounds to 1e-17).
_REL_TOL = 100 * np.finfo(np.float64).eps

# Work arrays of the resampling tests are processed in blocks of about this many
# float64 cells (16 MiB), whatever the number of topics and samples.
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class Resampling:
    """Options of the resampling tests: number of samples and the seed."""

    samples: int = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.samples, bool) or not isinstance(self.samples, int) \
                or self.samples < 1:
            raise bad_param("the resampling tests", "samples", "an int >= 1", self.samples)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise bad_param("the resampling tests", "seed", "an int >= 0", self.seed)


Outcome = tuple[np.ndarray, np.ndarray]          # statistic, p-value (one per column)


@dataclass(frozen=True)
class SigTest:
    """One paired test: ``run(D, resampling) -> (statistic, p)`` per column of D."""

    name: str
    aliases: tuple[str, ...]
    description: str
    statistic: str
    run: Callable[[np.ndarray, Resampling], Outcome]
    resampling: bool = False


TESTS: Registry[SigTest] = Registry("significance test", CompareError, ignore_case=True)


def get_test(name: str) -> SigTest:
    """The test called ``name`` (or one of its aliases)."""
    return TESTS.lookup(name)


def paired_test(name: str, a: np.ndarray, b: np.ndarray, *, samples: int = 10_000,
                seed: int = 0) -> tuple[float, float]:
    """Test ``a`` against ``b`` (per-topic scores, same topic order).

    Returns ``(statistic, p)``; the difference is taken as ``a - b``.
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    stat, p = get_test(name).run(d.reshape(-1, 1), Resampling(samples, seed))
    return float(stat[0]), float(p[0])


def _all_zero(D: np.ndarray) -> np.ndarray:
    zero: np.ndarray = ~np.any(D != 0, axis=0)   # numpy's stubs: reductions over an axis are Any
    return zero


def student_t(D: np.ndarray, _: Resampling) -> Outcome:
    r"""Paired Student's t test.

    .. math:: t = \bar d / (s_d / \sqrt n), \quad \nu = n - 1

    with :math:`s_d` the sample standard deviation (ddof 1) of the differences;
    ``scipy.stats.ttest_rel``. Identical systems get t = 0, p = 1 (scipy: NaN); so
    do differences too small for their variance to be represented (around 1e-160
    and below it underflows to 0 and scipy returns NaN): there is no evidence.

    Reference: W. S. Gosset ("Student"), Biometrika 6(1), 1908; for IR, Smucker,
    Allan & Carterette, "A comparison of statistical significance tests for
    information retrieval evaluation", CIKM 2007.
    """
    stat, p = _ttest_1samp(D)
    zero = _all_zero(D) | np.isnan(p)
    return np.where(zero, 0.0, stat), np.where(zero, 1.0, p)


def _ttest_1samp(D: np.ndarray) -> Outcome:
    """``scipy.stats.ttest_1samp(D, 0.0, axis=0)``'s statistic and two-sided p-value.

    The same operations in the same order (scipy 1.17's ``_var`` and ``_get_pvalue``),
    so the same bits (tests/test_compare_stats.py compares them on random matrices),
    without importing ``scipy.stats``: the test needs only Student's t distribution
    (``scipy.special.stdtr``), and ``scipy.stats`` costs more to import than the rest
    of a paired test of two TREC-sized runs. (scipy's warning about nearly identical
    data is not given: such a pair gets t = 0, p = 1 below, or an infinite t.)
    """
    from scipy.special import stdtr

    n = D.shape[0]
    mean = np.mean(D, axis=0)
    v = np.mean((D - np.mean(D, axis=0, keepdims=True)) ** 2, axis=0)
    count = np.asarray(n, dtype=D.dtype)
    v *= count / (count - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.divide(mean - 0.0, np.sqrt(v / n))
        p = 2 * stdtr(np.asarray(n - 1, dtype=t.dtype), -np.abs(t))
    return np.asarray(t, float), np.asarray(p, float)


def wilcoxon(D: np.ndarray, _: Resampling) -> Outcome:
    r"""Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, zero differences dropped).

    .. math:: W = \min(W^+, W^-), \quad W^\pm = \sum_{d_i \gtrless 0} \operatorname{rank}(|d_i|)

    Exact distribution for n <= 50 without ties, else the normal approximation
    with tie correction (scipy's ``method='auto'``). Identical systems: p = 1.

    Reference: F. Wilcoxon, "Individual comparisons by ranking methods",
    Biometrics Bulletin 1(6), 1945.
    """
    from scipy import stats

    stat = np.zeros(D.shape[1])
    p = np.ones(D.shape[1])
    for j in np.flatnonzero(~_all_zero(D)):
        res = stats.wilcoxon(D[:, j], zero_method="wilcox")
        stat[j], p[j] = float(res.statistic), float(res.pvalue)
    return stat, p


def sign(D: np.ndarray, _: Resampling) -> Outcome:
    r"""Sign test: the number of topics where the first system wins.

    Ties (zero differences) are dropped; under the null the wins
    :math:`k` among :math:`m` untied topics are Binomial(m, 1/2), and
    :math:`p = \min(1, 2\,P[X \le \min(k, m-k)])`, as
    ``scipy.stats.binomtest(k, m).pvalue`` for p = 1/2.

    Reference: W. J. Dixon & A. M. Mood, "The statistical sign test", JASA 41,
    1946; Smucker, Allan & Carterette, CIKM 2007.
    """
    from scipy import stats

    wins = (D > 0).sum(axis=0)
    losses = (D < 0).sum(axis=0)
    m = wins + losses
    p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(wins, losses), m, 0.5))
    return wins.astype(float), np.where(m == 0, 1.0, p)


def _extreme(null: np.ndarray, observed: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Per column, how many null values are at least as extreme as observed."""
    bound = np.abs(observed) - _REL_TOL * np.abs(D).mean(axis=0)
    count: np.ndarray = (np.abs(null) >= bound).sum(axis=0)   # stubs: Any
    return count


def randomisation(D: np.ndarray, opts: Resampling) -> Outcome:
    r"""Paired randomisation (permutation) test of the mean difference.

    Under the null the two systems' labels are exchangeable on each topic, so
    each difference keeps or flips its sign with probability 1/2:

    .. math:: p = \frac{1 + \#\{b : |\bar d^{(b)}| \ge |\bar d|\}}{1 + B}

    over :math:`B` random sign vectors (Phipson & Smyth's +1 keeps p > 0 and the
    test exact), or, when :math:`2^n \le B`, the exact p over all :math:`2^n`
    sign vectors. The sign vectors are a (B x n) matrix, so the whole
    distribution is one matrix product. Agrees with
    ``scipy.stats.permutation_test(..., permutation_type='samples')``.

    References: R. A. Fisher, The Design of Experiments, 1935; Smucker, Allan &
    Carterette, CIKM 2007; B. Phipson & G. K. Smyth, "Permutation p-values should
    never be zero", SAGMB 9(1), 2010.
    """
    n, k = D.shape
    observed = D.mean(axis=0)
    if n < 63 and 2 ** n <= opts.samples:   # exact: every sign vector once
        bits = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
        null = (1.0 - 2.0 * bits) @ D / n
        return observed, _extreme(null, observed, D) / 2 ** n
    rng = np.random.default_rng(opts.seed)
    count = np.zeros(k, dtype=np.int64)
    block = max(1, _BLOCK_CELLS // max(n, k))
    done = 0
    while done < opts.samples:
        b = min(block, opts.samples - done)
        signs = rng.integers(0, 2, size=(b, n), dtype=np.int8).astype(np.float64) * 2 - 1
        count += _extreme(signs @ D / n, observed, D)
        done += b
    return observed, (count + 1) / (opts.samples + 1)


def bootstrap_means(x: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """Means of ``samples`` bootstrap resamples of each column of ``x`` (samples x k).

    Resample ``b`` draws n topic indices ``rng.integers(0, n, (samples, n))``
    (the scheme of ``scipy.stats.bootstrap``, so the same generator gives the
    same resamples); the mean of a resample is its count vector times x / n.
    """
    n, k = x.shape
    rng = np.random.default_rng(seed)
    out = np.empty((samples, k))
    block = max(1, _BLOCK_CELLS // max(n, k))
    done = 0
    while done < samples:
        b = min(block, samples - done)
        idx = rng.integers(0, n, size=(b, n))
        flat = (np.arange(b)[:, None] * n + idx).ravel()
        counts = np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)
        out[done:done + b] = counts @ x / n
        done += b
    return out


def bootstrap(D: np.ndarray, opts: Resampling) -> Outcome:
    r"""Paired bootstrap test of the mean difference (shift method).

    The differences are centred, :math:`z_i = d_i - \bar d`, so the null (mean
    0) holds in the resampling population; with :math:`\bar z^{(b)}` the mean
    of resample :math:`b` of :math:`z`:

    .. math:: p = \frac{1 + \#\{b : |\bar z^{(b)}| \ge |\bar d|\}}{1 + B}

    Since each resample's counts sum to n, :math:`\bar z^{(b)} = \bar d^{(b)} -
    \bar d`: one pass gives both the test and the percentile interval.

    References: B. Efron & R. J. Tibshirani, An Introduction to the Bootstrap,
    1993, algorithm 16.1; T. Sakai, "Evaluating evaluation metrics based on the
    bootstrap", SIGIR 2006.
    """
    observed = D.mean(axis=0)
    means = bootstrap_means(D, opts.samples, opts.seed)
    count = _extreme(means - observed, observed, D)
    return observed, (count + 1) / (opts.samples + 1)


TESTS.register(
    SigTest("t", ("student", "ttest", "t-test", "paired-t"), "paired Student's t test", "t",
            student_t),
    SigTest("wilcoxon", ("signed-rank", "wilcoxon-signed-rank"),
            "Wilcoxon signed-rank test", "W", wilcoxon),
    SigTest("sign", ("sign-test", "binomial"), "sign test (wins among untied topics)", "wins",
            sign),
    SigTest("randomisation", ("randomization", "permutation", "fisher", "rand"),
            "paired randomisation test of the mean difference", "mean diff", randomisation,
            resampling=True),
    SigTest("bootstrap", ("boot",), "paired bootstrap test of the mean difference",
            "mean diff", bootstrap, resampling=True),
)
