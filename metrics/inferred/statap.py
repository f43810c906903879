r"""statAP: average precision estimated from a sample with known inclusion probabilities.

Given a sample S of judged documents, each drawn with probability
:math:`\pi_d`, Horvitz-Thompson estimates (Aslam, Pavlu & Yilmaz, SIGIR 2006;
Pavlu & Aslam, "A practical sampling strategy for efficient retrieval
evaluation", 2007; used for statAP in the TREC Million Query track):

.. math::

    \hat R = \sum_{d \in S,\ rel(d)} \frac{1}{\pi_d}, \qquad
    \widehat{PC}(r) = \frac{1}{r}\Big(1 + \sum_{d' \in S,\ rel(d'),\ rank(d') < r}
        \frac{1}{\pi_{d'}}\Big),

    \widehat{AP} = \frac{1}{\hat R} \sum_{d \in S,\ rel(d),\ d \text{ retrieved}}
        \frac{\widehat{PC}(rank(d))}{\pi_d}.

The 1 in :math:`\widehat{PC}` is the sampled relevant document itself (it is
known to be relevant when its term is counted). With every :math:`\pi_d = 1`
(everything judged) this is exactly AP. A topic with no sampled relevant
document scores 0 (as AP does with R = 0). Ranking order is trec_eval's
(:func:`relkit.metrics.ranking.ranked_docnos`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from relkit.metrics.data import Run
from relkit.metrics.ranking import ranked_docnos

Prels = Mapping[str, Mapping[str, tuple[int, float]]]   # topic -> doc -> (grade, pi)


def estimated_relevant(prels: Prels, level: int = 1) -> dict[str, float]:
    r"""Horvitz-Thompson :math:`\hat R` per topic (unbiased for R).

    Parameters
    ----------
    prels : Mapping[str, Mapping[str, tuple[int, float]]]
        Topic -> sampled document -> (grade, inclusion probability
        :math:`\pi_d` in (0, 1]).
    level : int, default 1
        Lowest grade that counts as relevant.

    Returns
    -------
    dict[str, float]
        Topic -> :math:`\hat R = \sum_{d \in S,\ rel(d)} 1/\pi_d`.

    Examples
    --------
    A relevant document sampled with probability 1/2 stands for two:

    >>> from relkit.metrics.inferred.statap import estimated_relevant
    >>> estimated_relevant({"q1": {"d1": (1, 1.0), "d2": (0, 1.0), "d3": (2, 0.5)}})
    {'q1': 3.0}
    >>> estimated_relevant({"q1": {"d1": (1, 1.0), "d2": (0, 1.0), "d3": (2, 0.5)}}, level=2)
    {'q1': 2.0}
    """
    return {t: sum(1.0 / p for g, p in docs.values() if g >= level) for t, docs in prels.items()}


def stat_ap(run: Run, prels: Prels, level: int = 1) -> dict[str, float]:
    r"""statAP per topic of ``prels`` (see the module's formula).

    Parameters
    ----------
    run : Run
        The ranking (trec_eval's order).
    prels : Mapping[str, Mapping[str, tuple[int, float]]]
        Topic -> sampled document -> (grade, inclusion probability
        :math:`\pi_d` in (0, 1]).
    level : int, default 1
        Lowest grade that counts as relevant.

    Returns
    -------
    dict[str, float]
        Topic of ``prels`` -> estimated AP. A topic the run lacks, or with no
        sampled relevant document, scores 0.

    Examples
    --------
    d1 (relevant, :math:`\pi = 1`) at rank 1 and d3 (relevant, :math:`\pi = 1/2`)
    at rank 3, so :math:`\hat R = 3` and
    :math:`\widehat{AP} = (1/1 + \frac{1 + 1}{3} / \tfrac12) / 3 = 7/9`:

    >>> from relkit.metrics.data import Run
    >>> from relkit.metrics.inferred.statap import stat_ap
    >>> run = Run.read("q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\nq1 Q0 d3 3 1.0 bm25\n")
    >>> sample = {"q1": {"d1": (1, 1.0), "d2": (0, 1.0), "d3": (2, 0.5)}}
    >>> round(stat_ap(run, sample)["q1"], 4)
    0.7778

    With every :math:`\pi_d = 1` it is AP, (1/1 + 2/3) / 2:

    >>> full = {"q1": {"d1": (1, 1.0), "d2": (0, 1.0), "d3": (2, 1.0)}}
    >>> round(stat_ap(run, full)["q1"], 4)
    0.8333
    >>> stat_ap(run, {"q9": {"d1": (1, 1.0)}})
    {'q9': 0.0}
    """
    return stat_ap_ranked(ranked_docnos(run), prels, level)


def stat_ap_ranked(ranked: Mapping[str, Sequence[str]], prels: Prels, level: int = 1
                   ) -> dict[str, float]:
    r"""statAP of a run already in trec_eval's order (many samples, one ranking).

    Parameters
    ----------
    ranked : Mapping[str, Sequence[str]]
        Topic -> docnos in trec_eval's order
        (:func:`relkit.metrics.ranking.ranked_docnos`).
    prels : Mapping[str, Mapping[str, tuple[int, float]]]
        Topic -> sampled document -> (grade, inclusion probability).
    level : int, default 1
        Lowest grade that counts as relevant.

    Returns
    -------
    dict[str, float]
        As :func:`stat_ap`.

    Examples
    --------
    >>> from relkit.metrics.inferred.statap import stat_ap_ranked
    >>> sample = {"q1": {"d1": (1, 1.0), "d2": (0, 1.0), "d3": (2, 0.5)}}
    >>> round(stat_ap_ranked({"q1": ["d1", "d2", "d3"]}, sample)["q1"], 4)
    0.7778
    """
    r_hat = estimated_relevant(prels, level)
    out: dict[str, float] = {}
    for t, docs in prels.items():
        if r_hat[t] == 0:
            out[t] = 0.0
            continue
        above = 0.0
        total = 0.0
        for r, d in enumerate(ranked.get(t, []), 1):
            hit = docs.get(d)
            if hit is None or hit[0] < level:
                continue
            pi = hit[1]
            total += (1.0 + above) / r / pi
            above += 1.0 / pi
        out[t] = total / r_hat[t]
    return out
