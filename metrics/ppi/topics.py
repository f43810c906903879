r"""Prediction-powered evaluation with the topic as the sampling unit (any measure).

**Design.** The human sample is a simple random sample, without replacement, of
:math:`n` of the pool's topics, each judged completely on its pooled pairs (the pairs
of the automatic qrels for that topic). Within a system's topics :math:`T_s`
(:math:`N = |T_s|`, those of its topics the automatic qrels have) the sampled ones,
:math:`S`, are a simple random sample of :math:`n` of them given :math:`n`.

**Estimand.** As for the per-pair designs, the mean over the system's topics of the
measure computed with human labels on every pooled pair,
:math:`\theta_s = \frac1N \sum_{t \in T_s} H_t`. For each topic, :math:`A_t` is the
measure with the automatic labels (known for every topic) and :math:`H_t` with the human
ones (known on :math:`S`; the topic is judged completely, so :math:`H_t` is exactly its
term of the estimand). Nothing is asked of the measure but a value per topic, so AP,
nDCG@k, P@k, DCG@k and the other per-topic measures of ``relkit eval`` all qualify.

**Estimator.** The difference estimator with the topic as unit (PPI, Angelopoulos et
al., *Science* 2023; the query as the unit as in Boyeau et al. 2024, "AutoEval Done
Right", arXiv:2403.07008):

.. math::

    \hat\theta_\lambda = \lambda\,\frac1N \sum_{t \in T_s} A_t
        + \frac1n \sum_{t \in S} (H_t - \lambda A_t),

unbiased for every fixed :math:`\lambda` whatever the automatic labels are, with design
variance :math:`(1 - n/N)\, s^2_{H - \lambda A} / n` (simple random sampling without
replacement; Cochran, *Sampling Techniques*, 1977, §2.4; Särndal, Swensson & Wretman
1992, §3.3) and Student's interval. :math:`\lambda` is tuned as PPI++ (Angelopoulos,
Duchi & Zrnic 2023) and the regression estimator do,
:math:`\widehat{\mathrm{Cov}}(H, A)/\widehat{\mathrm{Var}}(A)` on the sampled topics.
This is :func:`relkit.metrics.ppi.estimators.difference_estimate` with one stratum and
the topics as units (:math:`z_t = H_t/N`, :math:`\hat z_t = A_t/N`): for a fixed
:math:`\lambda` its :math:`s^2` has divisor :math:`n - 1` and its degrees of freedom
are :math:`n - 1`, fewer only when sampled topics are 0 on both sides
(:func:`~relkit.metrics.ppi.estimators.sparse_count`); with the tuned :math:`\lambda`,
one parameter estimated from the same topics, the divisor and the degrees of freedom
are one fewer (:func:`_one_more_parameter`, the regression estimator's variance).
The human-only estimate is
:math:`\frac1n\sum_{t\in S} H_t` (:math:`\lambda = 0`) with its own interval.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from relkit.metrics.core.errors import EvaluationError, InputError, MeasureError, RelkitError

# Measures whose summary is not the mean of the per-topic values (geometric means,
# counts summed over topics, strings): the estimand above is not theirs.
_NOT_MEANS = ("gm_", "num_", "runid", "relstring")
#: sampled topics a run needs: PPI++ estimates lambda from them and the variance then has
#: n - 2 degrees of freedom
MIN_TOPICS = 3


def check_measures(names: Sequence[str]) -> None:
    """A :class:`MeasureError` for a name relkit eval does not know, or whose summary is
    not the arithmetic mean over topics."""
    from relkit.metrics.names import parse_measure

    for name in names:
        for m in parse_measure(name):
            if m.family.startswith(_NOT_MEANS):
                raise MeasureError(f"--design topics estimates means over topics; {name!r} "
                                   "is not one")


def topic_count(pairs_per_topic: Mapping[str, int], budget: int) -> int:
    """Topics whose expected number of pooled pairs is at most ``budget`` labels:
    :math:`\\lfloor B\\,N/P \\rfloor` (:math:`N` topics, :math:`P` pairs), at least
    :data:`MIN_TOPICS`."""
    total, big_n = sum(pairs_per_topic.values()), len(pairs_per_topic)
    if not 0 < budget <= total:
        raise RelkitError(f"a budget is between 1 and the {total:,} pooled pairs; "
                          f"got {budget:,}")
    n = budget * big_n // total
    if n < MIN_TOPICS:
        raise RelkitError(f"{budget:,} labels are {n} topic(s) of {total / big_n:.1f} "
                          f"pooled pairs on average; --design topics needs at least "
                          f"{MIN_TOPICS}")
    return n


def draw_topics(topics: Sequence[str], n: int, seed: int = 0) -> list[str]:
    """A simple random sample of ``n`` of ``topics`` without replacement (seeded)."""
    rng = random.Random(f"ppi:topics:{seed}")
    return sorted(rng.sample(sorted(topics), n))


def check_complete(human: Mapping[str, Mapping[str, int]],
                   auto: Mapping[str, Mapping[str, int]], source: str,
                   pool_source: str) -> None:
    """Every human label is of a pooled pair, and every sampled topic is complete."""
    if not any(human.values()):
        raise InputError(f"{source}: no human label; PPI needs a human sample")
    for t, docs in human.items():
        pooled = auto.get(t, {})
        for d in docs:
            if d not in pooled:
                raise InputError(f"{source}: topic {t!r} document {d!r} is not in "
                                 f"{pool_source} (the pool); every human label must be "
                                 "of a pooled pair")
        missing = sum(1 for d in pooled if d not in docs)
        if missing:
            raise InputError(f"{source}: topic {t!r} lacks human labels for {missing} of "
                             f"its {len(pooled)} pooled pairs; --design topics needs "
                             "every pooled pair of a sampled topic judged")


def per_topic(qrels: Any, run: Any, measures: Sequence[str], level: int
              ) -> dict[str, dict[str, float]]:
    """``{label: {topic: value}}``: relkit eval's per-topic values (trec_eval's topics:
    those with run lines and judgments), in the order the measures were named."""
    from relkit.metrics.evaluator import Evaluator  # what relkit.evaluate runs

    out: dict[str, dict[str, float]] = {}
    for name in measures:
        res = Evaluator(qrels, [name], level=level).compute(run)
        for label, values in zip(res.to_dict(), res.values, strict=True):
            out.setdefault(label, dict(zip(res.topics, map(float, values), strict=True)))
    return out


def topic_estimates(a: Mapping[str, float], h: Mapping[str, float], *,
                    alpha: float = 0.05, lam: float | str = "tuned") -> tuple[Any, Any, float]:
    """PPI (``lam``) and human-only estimates of :math:`\\frac1N\\sum_t H_t` over the
    topics of ``a`` (every topic, automatic values) from ``h`` (sampled topics), and the
    effective number of topics (:func:`~relkit.metrics.ppi.estimators.effective_labels`).
    """
    from relkit.metrics.ppi.estimators import difference_estimate, effective_labels

    topics = [t for t in a if t in h]
    big_n, n = len(a), len(topics)
    if n < MIN_TOPICS and n < big_n:
        raise EvaluationError(f"{n} sampled topic(s) of {big_n}; --design topics needs "
                              f"at least {MIN_TOPICS}")
    z = np.array([h[t] for t in topics]) / big_n
    zhat = np.array([a[t] for t in topics]) / big_n
    total = float(np.sum(np.fromiter(a.values(), float))) / big_n
    strata, sizes = np.zeros(n, dtype=np.int64), {0: big_n}
    ppi = difference_estimate(z, zhat, total, strata, sizes, lam=lam, alpha=alpha)
    if lam == "tuned" and n < big_n:
        ppi = _one_more_parameter(ppi, z, zhat, n, alpha)
    classical = difference_estimate(z, zhat, 0.0, strata, sizes, lam=0.0, alpha=alpha)
    return ppi, classical, effective_labels(z, strata, sizes, ppi.se ** 2)


def _one_more_parameter(est: Any, z: np.ndarray, zhat: np.ndarray, n: int,
                        alpha: float) -> Any:
    r"""The regression estimator's variance when :math:`\lambda` is estimated from the
    same :math:`n` topics: residual sum of squares over :math:`n - 2`, Student's
    quantile at :math:`m - 2` (:math:`m` = :func:`sparse_count`, :math:`n` unless
    topics are 0 on both sides) (Cochran 1977, §7.3, the sample estimate of the variance
    of the regression estimate; one degree of freedom
    for :math:`\lambda`). With tens of topics the tuned :math:`\lambda` fits the
    sample's own residuals, and the :math:`n - 1` form undercovers (600 labels, 17
    topics, on Cranfield: 0.91-0.94, docs/automatic-judges.md)."""
    from scipy.stats import t

    from relkit.metrics.ppi.estimators import Estimate, sparse_count

    df = sparse_count(z, zhat, est.lam) - 2
    se = est.se * float(np.sqrt((n - 1) / (n - 2)))
    half = float(t.ppf(1 - alpha / 2, max(df, 1))) * se
    return Estimate(est.value, se, est.value - half, est.value + half, est.lam)


def ppi_evaluate_topics(human_q: Any, auto_q: Any, runs: Mapping[str, Any],
                        measures: Sequence[str], *, level: int = 1, alpha: float = 0.05,
                        lam: float | str = "tuned") -> list[tuple[Any, ...]]:
    """:func:`relkit.metrics.ppi.measures.ppi_evaluate` under ``design="topics"``: per
    run and measure ``(run, measure, topics, labels, ppi, classical, effective)``, the
    fields of :class:`~relkit.metrics.ppi.measures.SystemEstimate`."""
    from relkit.metrics.data import Run

    check_measures(measures)
    auto, human = auto_q.to_dict(), human_q.to_dict()
    pool_source = getattr(auto_q, "source", "the automatic qrels")
    if not any(auto.values()):
        raise InputError(f"{pool_source}: no pair; --auto lists every pooled pair")
    check_complete(human, auto, getattr(human_q, "source", "the human qrels"),
                   pool_source)
    out = []
    for name, run in runs.items():
        coerced = Run.coerce(run)
        try:
            a_all = per_topic(auto_q, coerced, measures, level)
            h_all = per_topic(human_q, coerced, measures, level)
            for label, a in a_all.items():
                h = h_all.get(label, {})
                ppi, classical, eff_topics = topic_estimates(a, h, alpha=alpha, lam=lam)
                sampled = [t for t in a if t in h]
                labels = sum(len(auto[t]) for t in sampled)
                effective = eff_topics * labels / len(sampled)
                out.append((name, label, len(a), labels, ppi, classical, effective))
        except EvaluationError as exc:   # name the run's file (or its name)
            src = str(getattr(coerced, "source", "") or "")
            where = src if src and not src.startswith("<") else f"run {name!r}"
            raise EvaluationError(f"{where}: {exc}") from None
    return out
