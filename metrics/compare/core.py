"""Compare systems: means (with intervals), paired tests, corrections, effect sizes.

Which pairs are tested: each system against the baseline when one is named,
otherwise every pair. The correction for multiple comparisons is applied per
measure over the pairs tested for that measure (the family of hypotheses one
column of the table makes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from relkit.metrics.compare.comparison import Comparison as Comparison
from relkit.metrics.compare.comparison import PairTest as PairTest
from relkit.metrics.compare.corrections import get_correction
from relkit.metrics.compare.effect import bootstrap_interval, cohens_dz, t_interval
from relkit.metrics.compare.errors import CompareError
from relkit.metrics.compare.scores import DEFAULT_MEASURES, Scores, score_matrix
from relkit.metrics.compare.significance import Resampling, get_test
from relkit.metrics.core.params import bad_param

if TYPE_CHECKING:
    from relkit.metrics.data import Qrels, Run

CIMethod = Literal["t", "bootstrap"]
CI_METHODS = get_args(CIMethod)


def _pairs(systems: Sequence[str], baseline: str | None) -> list[tuple[int, int]]:
    if baseline is not None:
        b = list(systems).index(baseline)
        return [(i, b) for i in range(len(systems)) if i != b]
    return [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]


def compare_scores(scores: Scores, *, baseline: str | None = None, test: str = "t",
                   correction: str = "holm", alpha: float = 0.05, samples: int = 10_000,
                   seed: int = 0, ci: float | None = None,
                   ci_method: CIMethod = "t") -> Comparison:
    """Compare the systems of a score matrix already computed.

    :func:`compare` evaluates runs and calls this; call it directly with scores
    from elsewhere.

    Parameters
    ----------
    scores : Scores
        Per-topic values, measures x systems x topics.
    baseline, test, correction, alpha, samples, seed, ci, ci_method
        As for :func:`compare`.

    Returns
    -------
    Comparison

    Raises
    ------
    CompareError
        For an unknown test, correction or baseline, or fewer than 2 topics.
    MeasureError
        For ``alpha``, ``ci``, ``ci_method``, ``samples`` or ``seed`` out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> from relkit.metrics.compare.core import compare_scores
    >>> scores = Scores(("bm25", "lm"), ("AP",), ("q1", "q2", "q3", "q4"),
    ...                 np.array([[[0.5, 0.6, 0.2, 0.9], [0.1, 0.3, 0.1, 0.5]]]))
    >>> cmp = compare_scores(scores, baseline="bm25", ci=0.95)
    >>> cmp.pairs[0].a, cmp.pairs[0].b, round(cmp.pairs[0].statistic, 4)
    ('lm', 'bm25', -4.2426)
    >>> cmp.ci_low.round(3), cmp.ci_high.round(3)    # Student's t: not clipped to [0, 1]
    (array([[ 0.091, -0.055]]), array([[1.009, 0.555]]))
    >>> compare_scores(scores, test="z")
    Traceback (most recent call last):
    ...
    relkit.metrics.compare.errors.CompareError: unknown significance test 'z' (known: ...)
    """
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise bad_param("compare", "alpha", "a number in (0, 1)", alpha)
    if ci is not None and not (isinstance(ci, float | int) and 0 < ci < 1):
        raise bad_param("compare", "ci", "a confidence level in (0, 1)", ci)
    if ci_method not in CI_METHODS:
        raise bad_param("compare", "ci_method", f"one of {', '.join(CI_METHODS)}", ci_method)
    sig = get_test(test)
    corr = get_correction(correction)
    opts = Resampling(samples, seed)
    if baseline is not None:
        scores.system_index(baseline)            # raises, with suggestions, if unknown
    if len(scores.topics) < 2:
        raise CompareError(f"paired tests need at least 2 topics; got {len(scores.topics)}")
    means = scores.values.mean(axis=2)
    low = high = None
    if ci is not None:
        per_topic = scores.values.transpose(2, 0, 1).reshape(len(scores.topics), -1)
        lo, hi = (t_interval(per_topic, ci) if ci_method == "t" else
                  bootstrap_interval(per_topic, ci, samples, seed))
        low, high = lo.reshape(means.shape), hi.reshape(means.shape)
    pairs = _pairs(scores.systems, baseline)
    out: list[PairTest] = []
    if pairs:
        # one column per (measure, pair): every test runs once over all of them
        D = np.stack([scores.values[m, i] - scores.values[m, j]
                      for m in range(len(scores.measures)) for i, j in pairs], axis=1)
        stat, p = sig.run(D, opts)
        effect = cohens_dz(D)
        for m, meas in enumerate(scores.measures):
            cols = slice(m * len(pairs), (m + 1) * len(pairs))
            adj = corr.adjust(p[cols])
            for c, (i, j) in enumerate(pairs):
                k = m * len(pairs) + c
                out.append(PairTest(meas, scores.systems[i], scores.systems[j],
                                    float(D[:, k].mean()), float(stat[k]), float(p[k]),
                                    float(adj[c]), float(effect[k]), bool(adj[c] <= alpha)))
    return Comparison(scores, sig.name, corr.name, float(alpha), opts, baseline, means, ci,
                      ci_method, low, high, tuple(out))


def compare(qrels: Qrels, runs: Mapping[str, Run] | Sequence[Run],
            measures: Sequence[str] = DEFAULT_MEASURES, *, baseline: str | None = None,
            test: str = "t", correction: str = "holm", alpha: float = 0.05,
            samples: int = 10_000, seed: int = 0, ci: float | None = None,
            ci_method: CIMethod = "t", level: int = 1, complete: bool = False,
            judged_only: bool = False, max_docs: int | None = None, compat: int = 10,
            progress: Callable[[int, int], None] | None = None) -> Comparison:
    r"""Evaluate ``runs`` and compare them.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    runs : Mapping[str, Run] or Sequence[Run]
        System name -> run, or a list of runs named by their run ids.
    measures : Sequence[str], default ("AP", "nDCG@10", "P@10")
        Measures averaged over topics, in either spelling (``nDCG@10`` or
        ``ndcg_cut.10``); measures that are not (``num_ret``...) are left out.
    baseline : str, optional
        Test every system against this one; ``None``: every pair.
    test : str, default "t"
        A name from ``significance.TESTS``: ``t``, ``wilcoxon``, ``sign``,
        ``randomisation``, ``bootstrap``.
    correction : str, default "holm"
        A name from ``corrections.CORRECTIONS``: ``none``, ``bonferroni``,
        ``holm``, ``bh``; applied per measure over the tested pairs.
    alpha : float, default 0.05
        Significance level for the adjusted p-values, in (0, 1).
    samples, seed : int, default 10000 and 0
        For the randomisation and bootstrap tests (and bootstrap intervals).
    ci : float, optional
        Confidence level of an interval around each mean, in (0, 1); ``None``:
        no interval.
    ci_method : {"t", "bootstrap"}, default "t"
        Student's t interval or the percentile bootstrap.
    level, complete, judged_only, max_docs, compat
        As for :class:`~relkit.metrics.evaluator.Evaluator`. A topic one run lacks
        scores 0 for it (trec_eval ``-c``), so every test is paired.
    progress : callable, optional
        ``progress(done, total)`` after each run is evaluated.

    Returns
    -------
    Comparison
        Means, intervals and every tested pair; ``.table(fmt)`` renders it.

    Raises
    ------
    CompareError
        For an unknown test, correction or baseline, two runs with one name, no
        measure averaged over topics, or fewer than 2 topics.
    MeasureError
        For an unknown measure, or a parameter out of range.

    See Also
    --------
    compare_scores : the same, from a score matrix.

    Examples
    --------
    Three topics; ``lm`` ranks a non-relevant document first on q1 and q2:

    >>> from relkit.metrics.compare import compare
    >>> from relkit.metrics.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1},
    ...                          "q3": {"d4": 1, "d5": 1}})
    >>> bm25 = Run.read("q1 Q0 d1 1 3 bm25\nq1 Q0 d9 2 2 bm25\nq1 Q0 d2 3 1 bm25\n"
    ...                 "q2 Q0 d3 1 1 bm25\n"
    ...                 "q3 Q0 d9 1 3 bm25\nq3 Q0 d4 2 2 bm25\nq3 Q0 d5 3 1 bm25\n")
    >>> lm = Run.read("q1 Q0 d9 1 3 lm\nq1 Q0 d1 2 2 lm\nq1 Q0 d2 3 1 lm\n"
    ...               "q2 Q0 d9 1 2 lm\nq2 Q0 d3 2 1 lm\n"
    ...               "q3 Q0 d4 1 2 lm\nq3 Q0 d5 2 1 lm\n")
    >>> cmp = compare(qrels, {"bm25": bm25, "lm": lm}, ["AP", "P@1"], baseline="bm25")

    AP of bm25 is (5/6 + 1 + 7/12) / 3, of lm (7/12 + 1/2 + 1) / 3; lm wins only on
    q3, so no difference is significant:

    >>> print(cmp.table("markdown"))
    | System | AP | P@1 |
    |---|---:|---:|
    | bm25 (baseline) | **0.8056** | **0.6667** |
    | lm | 0.6944 | 0.3333 |
    <BLANKLINE>
    Mean over 3 topics; best in bold (and every mean printed the same). paired Student's ...
    >>> [(p.measure, round(p.diff, 4), round(p.p, 4)) for p in cmp.pairs]
    [('AP', -0.1111, 0.724), ('P@1', -0.3333, 0.6667)]
    """
    scores = score_matrix(qrels, runs, measures, level=level, complete=complete,
                          judged_only=judged_only, max_docs=max_docs, compat=compat,
                          progress=progress)
    return compare_scores(scores, baseline=baseline, test=test, correction=correction,
                          alpha=alpha, samples=samples, seed=seed, ci=ci,
                          ci_method=ci_method)
