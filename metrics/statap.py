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

from collections.abc import Mapping

from relkit.metrics.data import Run
from relkit.metrics.ranking import ranked_docnos

Prels = Mapping[str, Mapping[str, tuple[int, float]]]   # topic -> doc -> (grade, pi)


def estimated_relevant(prels: Prels, level: int = 1) -> dict[str, float]:
    r"""Horvitz-Thompson :math:`\hat R` per topic (unbiased for R)."""
    return {t: sum(1.0 / p for g, p in docs.values() if g >= level) for t, docs in prels.items()}


def stat_ap(run: Run, prels: Prels, level: int = 1) -> dict[str, float]:
    """statAP per topic of ``prels`` (topics the run lacks score 0)."""
    ranked = ranked_docnos(run)
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
