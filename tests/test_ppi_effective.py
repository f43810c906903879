"""The effective number of labels of PPI (review 4, finding 6): the human labels the
human-only estimate would need, at the same design, for PPI's variance. The pool is
finite, so it is never more than the pool; the oracle is the classical variance
estimate itself (:func:`difference_estimate` with lambda 0) at another number of
labels, and the one-stratum formula worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from relkit.metrics.ppi.estimators import difference_estimate, effective_labels
from relkit.metrics.ppi.measures import ppi_evaluate


def _like(values: np.ndarray, m: int, seed: int) -> np.ndarray:
    """``m`` values with the same sample variance (ddof 1) as ``values``."""
    x = np.random.default_rng(seed).normal(size=m)
    x = (x - x.mean()) / x.std(ddof=1)
    return x * values.std(ddof=1) + 3.0


def _classical_var(z: np.ndarray, strata: np.ndarray, sizes: dict[int, int]) -> float:
    return difference_estimate(z, np.zeros(len(z)), 0.0, strata, sizes, lam=0.0).se ** 2


@pytest.mark.parametrize(("sizes", "labels", "more"), [
    ({0: 40}, {0: 10}, {0: 25}),                       # simple design
    ({0: 60, 1: 30, 2: 10}, {0: 6, 1: 3, 2: 2},         # stratified, proportional-ish
     {0: 18, 1: 9, 2: 6}),
])
def test_effective_labels_is_the_classical_size_with_that_variance(
        sizes: dict[int, int], labels: dict[int, int], more: dict[int, int]) -> None:
    """Take PPI's variance to be the classical variance estimate of a sample of ``more``
    labels (each stratum the same multiple of its labels, the same sample variance):
    the effective number must be that sample's size."""
    rng = np.random.default_rng(3)
    z = np.concatenate([rng.normal(h, 1 + h, n) for h, n in labels.items()])
    strata = np.concatenate([np.full(n, h) for h, n in labels.items()])
    big = np.concatenate([_like(z[strata == h], m, seed=h) for h, m in more.items()])
    big_strata = np.concatenate([np.full(m, h) for h, m in more.items()])
    target = _classical_var(big, big_strata, sizes)
    assert effective_labels(z, strata, sizes, target) == pytest.approx(len(big), rel=1e-9)
    # PPI's variance equal to the classical one at the same labels: the same number.
    same = _classical_var(z, strata, sizes)
    assert effective_labels(z, strata, sizes, same) == pytest.approx(len(z), rel=1e-9)


def test_one_stratum_by_hand() -> None:
    """N = 40, n = 30, s^2 = 1: V_cls = 40^2 (1/30 - 1/40) = 13.333...; with
    V_PPI = V_cls / 4 the old count n V_cls / V_PPI was 120 (three times the pool);
    1 / ((1/4)(1/30 - 1/40) + 1/40) = 1 / (1/480 + 12/480) = 480/13."""
    z = _like(np.array([0.0, np.sqrt(2.0)]), 30, seed=0)   # sample variance 1
    strata = np.zeros(30, dtype=np.int64)
    v_cls = 40 ** 2 * (1 / 30 - 1 / 40)
    assert _classical_var(z, strata, {0: 40}) == pytest.approx(v_cls, rel=1e-12)
    assert effective_labels(z, strata, {0: 40}, v_cls / 4) == pytest.approx(480 / 13)
    assert effective_labels(z, strata, {0: 40}, 0.0) == 40       # the whole pool
    assert effective_labels(np.ones(30), strata, {0: 40}, 0.0) == 30  # nothing to gain


def test_reviewers_pool_never_gives_more_labels_than_pairs() -> None:
    """The review's case: a pool of 40 pairs, 30 human labels, a judge wrong on 10% of
    the pairs (ppi_evaluate reported 84 effective labels)."""
    rng = np.random.default_rng(11)
    truth = {f"d{i:02d}": int(rng.random() < 0.5) for i in range(40)}
    flip = set(rng.choice(40, 4, replace=False).tolist())
    auto = {"1": {d: 1 - g if i in flip else g for i, (d, g) in enumerate(truth.items())}}
    human = {"1": dict(list(truth.items())[:30])}
    run = {"1": {d: 40 - i for i, d in enumerate(truth)}}
    (row,) = ppi_evaluate(human, auto, {"r": run}, ["P@40"])
    assert row.labels == 30
    assert 30 <= row.effective <= 40
    z = np.array([truth[d] for d in human["1"]], dtype=float) / 40
    var_ppi, var_cls = row.ppi.se ** 2, row.classical.se ** 2
    by_hand = 1 / ((var_ppi / var_cls) * (1 / 30 - 1 / 40) + 1 / 40)
    assert row.effective == pytest.approx(min(40, by_hand), rel=1e-9)
    assert effective_labels(z, np.zeros(30, dtype=np.int64), {0: 40},
                            var_ppi) == pytest.approx(row.effective, rel=1e-12)
