r"""Estimators of AP and nDCG from a sampled pool: xinfAP, infNDCG, statAP, infAP.

Each estimator reads a :class:`~relkit.metrics.inferred.prels.Prels` (every pooled
document with its stratum; sampled ones with their grade). Which designs each
fits, and ``relkit eval -R prels``: :mod:`relkit.metrics.inferred.estimators`.

**xinfAP** (Yilmaz, Kanoulas & Aslam, "A simple and efficient sampling method
for estimating AP and NDCG", SIGIR 2008). Per topic, stratum :math:`c` has
:math:`N_c` pooled documents of which :math:`n_c` were sampled (uniformly,
without replacement) and :math:`r_c` judged relevant. Then

.. math::

    \hat R_c = r_c \frac{N_c}{n_c}, \qquad \hat R = \sum_c \hat R_c,

and, walking the ranking, each sampled relevant document at rank :math:`k`
(0-based :math:`j = k - 1`) has the expected precision

.. math::

    \widehat{PC}(k) = \frac{1}{k} + \frac{j}{k} \sum_c \frac{a_c}{j}\,
        \frac{\rho_c + \varepsilon}{s_c + m\varepsilon}, \qquad m = 3\ (\text{or } 2)

with :math:`a_c, s_c, \rho_c` the pooled, sampled and sampled-relevant
documents of stratum :math:`c` above rank :math:`k` (unpooled documents above
count as non-relevant; :math:`\widehat{PC}(1) = 1`). With :math:`S_c` the sum
of :math:`\widehat{PC}` over stratum :math:`c`'s sampled relevant documents,

.. math::

    \widehat{AP} = \sum_{c:\ r_c > 0} \frac{\hat R_c}{\hat R}\,\frac{S_c}{r_c}
                 = \frac{1}{\hat R} \sum_c \frac{S_c}{n_c / N_c}.

:math:`\varepsilon = 10^{-5}` and the :math:`3\varepsilon` are NIST's
``sample_eval.pl``'s, the default (``smoothing="sample_eval"``): relkit gives its
numbers. ``smoothing="trec_eval"`` takes trec_eval's :math:`2\varepsilon`
(``m_infap.c``), so that on a single stratum (a uniform sample) xinfAP *is*
trec_eval's infAP, term for term (tested to the last bit). The two are not a
rounding apart: above a rank where a stratum has pooled documents but none
sampled, the fraction is :math:`\varepsilon / 3\varepsilon = 1/3` against
:math:`1/2`: on stratified samples of Cranfield's six runs they differ by up to 0.155
per topic and at the fourth decimal of every MAP (docs/pooling.md, "Sampling and
estimators", with the bias of each, measured by ``bench/prels_bias_bench.py``). Both
read the ranking to ``depth`` (1,000: ``sample_eval.pl``'s ``maxResultSize``).

**infNDCG** (same paper; ``sample_eval.pl``'s form): over the retrieved
documents (at most ``depth`` = 1,000), with :math:`a_c, s_c` the retrieved
pooled and sampled documents of stratum :math:`c` and :math:`G_c` the summed
:math:`g / \log_2(k + 1)` of its sampled documents with grade :math:`g > 0`,
:math:`\widehat{DCG} = \sum_c a_c G_c / s_c`; the ideal DCG ranks
:math:`\hat N_g = \sum_c (\text{sampled of grade } g \text{ in } c)\,N_c/n_c`
documents of each grade (rounded half up) from the highest grade down, cut at
``depth``; infNDCG is their ratio (0 with no relevant document). Gains are the
grades (trec_eval's ``ndcg``).

**statAP**: :func:`relkit.metrics.inferred.statap.stat_ap` with
:math:`\pi_d = n_c / N_c`, over every rank of the run it is given: relkit sets no
cut of its own (``eval -M`` sets one). **infAP**: trec_eval's, on the prels read as qrels
(unsampled documents at -1); it assumes a uniform sample and is refused on a
stratified one (biased by +42% to +78% on ``pool-sample``'s default design).

The ranking is trec_eval's (:func:`relkit.metrics.ranking.ranked_docnos`;
``sample_eval.pl`` sorts the same way: score descending, then docno descending).
``sample_eval.pl`` prints xinfAP under the name ``infAP``. Checked against it
(``tests/test_inferred.py``: recorded outputs of the script, and the script itself
when ``RELKIT_SAMPLE_EVAL`` names it): xinfAP and infNDCG agree to 5e-13 per topic,
and ``relkit eval -R prels`` prints the script's lines digit for digit.
Differences kept on purpose: ``sample_eval.pl`` strips leading zeros from the run's
topic ids (``007`` is topic ``7``) and keeps the last of a document listed twice;
relkit keeps ids as they are written and refuses the duplicate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal, TypeAlias, get_args

from relkit.metrics.data import Run
from relkit.metrics.inferred.prels import Prels
from relkit.metrics.readers.grades import is_judged

EPS = 0.00001
Smoothing = Literal["sample_eval", "trec_eval"]
SMOOTHINGS: tuple[str, ...] = get_args(Smoothing)   # the first is the default
Ranking: TypeAlias = "Run | Mapping[str, Sequence[str]]"   # a run, or its ranked docnos


def ranked(run: Ranking) -> Mapping[str, Sequence[str]]:
    r"""Each topic's docnos in trec_eval's order (passed through if already ranked, so
    that many samples are scored against one ranking without re-sorting it).

    Parameters
    ----------
    run : Run or Mapping[str, Sequence[str]]
        A run, or a ranking already.

    Returns
    -------
    Mapping[str, Sequence[str]]
        Topic -> docnos, best first.

    Examples
    --------
    >>> from relkit.metrics.data import Run
    >>> from relkit.metrics.inferred.measures import ranked
    >>> ranked(Run.read("q1 Q0 a 1 1 r\nq1 Q0 b 2 2 r\n"))
    {'q1': ['b', 'a']}
    """
    if isinstance(run, Run):
        from relkit.metrics.ranking import ranked_docnos

        return ranked_docnos(run)
    return run


SAMPLE_EVAL_DEPTH = 1000
"""Ranks ``sample_eval.pl`` reads of each topic (its ``maxResultSize``)."""


def reference_depth(smoothing: Smoothing) -> int | None:
    """The ranks xinfAP reads by default with ``smoothing``: as its reference does.

    ``sample_eval.pl`` reads the first :data:`SAMPLE_EVAL_DEPTH`; trec_eval's infAP
    (``m_infap.c``), which ``smoothing="trec_eval"`` reproduces, reads every rank.

    Parameters
    ----------
    smoothing : {"sample_eval", "trec_eval"}
        xinfAP's smoothing (:func:`xinf_ap`).

    Returns
    -------
    int or None
        The ranks read of each topic; None: all of them.

    Examples
    --------
    >>> from relkit.metrics.inferred.measures import reference_depth
    >>> reference_depth("sample_eval"), reference_depth("trec_eval")
    (1000, None)
    """
    return SAMPLE_EVAL_DEPTH if smoothing == "sample_eval" else None


def xinf_ap(run: Ranking, prels: Prels, level: int = 1, smoothing: Smoothing = "sample_eval",
            depth: int | None | Literal["reference"] = "reference") -> dict[str, float]:
    r"""xinfAP per topic of ``prels`` (formula in the module docstring).

    Parameters
    ----------
    run : Run or Mapping[str, Sequence[str]]
        The run, or its ranking (:func:`ranked`).
    prels : Prels
        The sampled universe with strata and grades.
    level : int, default 1
        Lowest grade that counts as relevant.
    smoothing : {"sample_eval", "trec_eval"}, default "sample_eval"
        :math:`3\varepsilon` (NIST's ``sample_eval.pl``) or :math:`2\varepsilon`
        (trec_eval's infAP) in the denominator of the stratum precision.
    depth : int, None or "reference", default "reference"
        Ranks read; None: all of them; "reference": as the smoothing's reference
        (:func:`reference_depth`: 1,000 for ``sample_eval``, all for ``trec_eval``).

    Returns
    -------
    dict[str, float]
        Topic -> estimated AP; 0 for a topic with no sampled relevant document
        or that the run lacks.

    Examples
    --------
    Stratum 1 (d1, d2) judged whole; stratum 2 (d3, d4, d5, d6) half sampled:
    d3 relevant, d5 not. R̂ = 1 + 1·4/2 = 3. d1 at rank 1: PC = 1. d3 at rank 3,
    above it d1 (stratum 1, relevant) and d2 (stratum 1, not): PC = 1/3 +
    (2/3)·(2/2)·(1+ε)/(2+3ε) ≈ 2/3. AP = (1/R̂)(1/1 + (2/3)/(1/2)) = 7/9:

    >>> from relkit.metrics.data import Run
    >>> from relkit.metrics.inferred.prels import Prels
    >>> from relkit.metrics.inferred.measures import xinf_ap
    >>> run = Run.read("q1 Q0 d1 1 4 r\nq1 Q0 d2 2 3 r\nq1 Q0 d3 3 2 r\nq1 Q0 d4 4 1 r\n")
    >>> p = Prels.from_rows([("q1", "d1", "1", 1), ("q1", "d2", "1", 0), ("q1", "d3", "2", 1),
    ...                      ("q1", "d4", "2", -1), ("q1", "d5", "2", 0), ("q1", "d6", "2", -1)])
    >>> round(xinf_ap(run, p)["q1"], 4), round((1 + (2 / 3) / 0.5) / 3, 4)
    (0.7778, 0.7778)
    """
    if smoothing not in SMOOTHINGS:
        from relkit.metrics.core.errors import MeasureError

        raise MeasureError(f"xinfAP's smoothing must be one of {', '.join(SMOOTHINGS)}; "
                           f"got {smoothing!r}")
    den_eps = 2 * EPS if smoothing == "trec_eval" else 3 * EPS
    if depth == "reference":
        depth = reference_depth(smoothing)
    order = ranked(run)
    out: dict[str, float] = {}
    for t, docs in prels.topics.items():
        sizes = prels.strata(t)
        rel = {s: 0 for s in sizes}
        for s, g in docs.values():
            rel[s] += g >= level
        r_hat = {s: rel[s] * sizes[s][1] / sizes[s][0] for s in sizes if sizes[s][0]}
        total = sum(r_hat.values())
        if total == 0:
            out[t] = 0.0
            continue
        above = {s: [0, 0, 0] for s in sizes}      # pooled, sampled, sampled relevant
        sums = dict.fromkeys(sizes, 0.0)
        for j, d in enumerate(order.get(t, ())[:depth]):
            hit = docs.get(d)
            if hit is None:
                continue
            s, g = hit
            if g >= level:
                if j == 0:
                    pc = 1.0
                else:
                    pc = 1.0 / (j + 1.0)
                    for a, n, r in above.values():
                        if a:
                            pc += (j / (j + 1.0)) * (a / j) * ((r + EPS) / (n + den_eps))
                sums[s] += pc
            c = above[s]
            c[0] += 1
            if is_judged(g):
                c[1] += 1
                c[2] += g >= level
        out[t] = sum(r_hat[s] / total * (sums[s] / rel[s]) for s in r_hat if rel[s])
    return out


def inf_ndcg(run: Ranking, prels: Prels, level: int = 1, depth: int = SAMPLE_EVAL_DEPTH
             ) -> dict[str, float]:
    r"""infNDCG per topic of ``prels`` (formula in the module docstring).

    Parameters
    ----------
    run : Run or Mapping[str, Sequence[str]]
        The run, or its ranking (:func:`ranked`).
    prels : Prels
        The sampled universe with strata and grades.
    level : int, default 1
        Accepted for a uniform signature; gains are the positive grades.
    depth : int, default 1000
        Ranks counted in the run and in the ideal ranking (``sample_eval.pl``'s; ``-M``
        moves both cuts).

    Returns
    -------
    dict[str, float]
        Topic -> estimated nDCG; 0 for a topic with no sampled relevant document.

    Examples
    --------
    Everything judged (one stratum, rate 1): infNDCG is nDCG. d1 (grade 2) at
    rank 2, d2 (grade 1) at rank 1: DCG = 1 + 2/log2(3), ideal 2 + 1/log2(3):

    >>> import math
    >>> from relkit.metrics.data import Run
    >>> from relkit.metrics.inferred.prels import Prels
    >>> from relkit.metrics.inferred.measures import inf_ndcg
    >>> run = Run.read("q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\n")
    >>> p = Prels.from_rows([("q1", "d1", "1", 2), ("q1", "d2", "1", 1), ("q1", "d3", "1", 0)])
    >>> round(inf_ndcg(run, p)["q1"], 4)
    0.8597
    >>> round((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)), 4)
    0.8597
    """
    del level
    order = ranked(run)
    out: dict[str, float] = {}
    for t, docs in prels.topics.items():
        sizes = prels.strata(t)
        per_grade: dict[int, float] = {}
        for s, g in docs.values():
            if g > 0:
                per_grade[g] = per_grade.get(g, 0.0) + sizes[s][1] / sizes[s][0]
        ideal = 0.0
        k = 0
        for g in sorted(per_grade, reverse=True):
            for _ in range(int(per_grade[g] + 0.5)):
                k += 1
                if k > depth:
                    break
                ideal += g / math.log2(k + 1)
        if ideal == 0:
            out[t] = 0.0
            continue
        seen = {s: [0, 0, 0.0] for s in sizes}     # retrieved pooled, sampled, gain
        for k, d in enumerate(order.get(t, ())[:depth], 1):
            hit = docs.get(d)
            if hit is None:
                continue
            s, g = hit
            c = seen[s]
            c[0] += 1
            if is_judged(g):
                c[1] += 1
                if g > 0:
                    c[2] += g / math.log2(k + 1)
        dcg = sum(a * gain / n for a, n, gain in seen.values() if n)
        out[t] = dcg / ideal
    return out


def stat_ap(run: Ranking, prels: Prels, level: int = 1) -> dict[str, float]:
    """statAP (:func:`relkit.metrics.inferred.statap.stat_ap`) with each stratum's n_c/N_c.

    Parameters
    ----------
    run : Run or Mapping[str, Sequence[str]]
        The run, or its ranking (:func:`ranked`).
    prels : Prels
        The sampled universe with strata and grades.
    level : int, default 1
        Lowest grade that counts as relevant.

    Returns
    -------
    dict[str, float]
        Topic -> estimated AP.

    Examples
    --------
    >>> from relkit.metrics.inferred.prels import Prels
    >>> from relkit.metrics.inferred.measures import stat_ap
    >>> p = Prels.from_rows([("q1", "d1", "1", 1), ("q1", "d3", "2", 1),
    ...                      ("q1", "d4", "2", -1)])
    >>> round(stat_ap({"q1": ["d1", "d2", "d3"]}, p)["q1"], 4)   # (1 + (2/3)/(1/2)) / 3
    0.7778
    """
    from relkit.metrics.inferred.statap import stat_ap_ranked

    return stat_ap_ranked(ranked(run), prels.probabilities(), level)


def inf_ap(run: Ranking, prels: Prels, level: int = 1) -> dict[str, float]:
    """trec_eval's infAP on the prels read as qrels (unsampled documents at -1).

    Parameters
    ----------
    run : Run or Mapping[str, Sequence[str]]
        The run, or its ranking (:func:`ranked`).
    prels : Prels
        The sampled universe; fits a uniform design only
        (:func:`relkit.metrics.inferred.estimators.check_fits`).
    level : int, default 1
        Lowest grade that counts as relevant.

    Returns
    -------
    dict[str, float]
        Topic -> infAP as ``m_infap.c`` computes it.

    Examples
    --------
    >>> from relkit.metrics.inferred.prels import Prels
    >>> from relkit.metrics.inferred.measures import inf_ap
    >>> p = Prels.from_rows([("q1", "a", "1", 1), ("q1", "b", "1", -1), ("q1", "c", "1", 1)])
    >>> round(inf_ap({"q1": ["a", "b", "c"]}, p)["q1"], 4)   # (1 + 1/3 + (2/3)(2/2)(1/1)) / 2
    1.0
    """
    order = ranked(run)
    if not any(order.get(t) for t in prels.topics):
        # nothing to evaluate: every topic scores 0 (the Evaluator would refuse the pair)
        return dict.fromkeys(prels.topics, 0.0)
    if not isinstance(run, Run):
        run = Run.read("".join(f"{t} Q0 {d} {i} {len(ds) - i} r\n" for t, ds in run.items()
                               for i, d in enumerate(ds, 1)))
    from relkit.metrics.data import Qrels
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.readers import shapes

    # named after the prels file, so that any error about these qrels names it
    qrels = Qrels(shapes.nested_table(prels.qrels(), "qrels", prels.source), prels.source)
    res = Evaluator(qrels, ["infAP"], level=level).compute(run)
    values = res.values[0]
    assert values is not None and not isinstance(values, list)
    got = {str(q): float(v) for q, v in zip(res.topics, values, strict=True)}
    return {t: got.get(t, 0.0) for t in prels.topics}
