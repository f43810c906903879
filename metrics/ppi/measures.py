r"""Each system's mean P@k or DCG@k from few human labels and a full automatic qrels.

**Estimand.** For a system :math:`s` with topics :math:`T_s` (its topics that the
automatic qrels have), the mean over those topics of the measure computed with *human*
labels on every pooled pair (documents outside the pool count as non-relevant, as in
trec_eval):

.. math::

    \theta_s = \frac{1}{|T_s|} \sum_{t \in T_s} M_t(h), \qquad
    M_t(h) = \sum_{d} w_{s,t,d}\, g(h_{t,d})

for the measures linear in the labels: P@k (:math:`w = 1/k` in the top :math:`k`,
:math:`g(h) = [h \ge \ell]`, ``level``) and DCG@k (:math:`w = 1/\log_2(r+1)` at rank
:math:`r \le k`, :math:`g(h) = \max(h, 0)`, trec_eval's linear gain). So
:math:`\theta_s = \sum_i z_i` over the pooled pairs :math:`i`, with
:math:`z_i = w_i g(h_i)/|T_s|`, and :math:`\hat z_i = w_i g(a_i)/|T_s|` with the automatic
grade :math:`a_i`: a finite-population total, estimated by
:func:`relkit.metrics.ppi.estimators.difference_estimate` under the declared design.
The topics are fixed: the interval is about the labels not judged by a human, not
about other topics one could have drawn.

Measures with a normaliser (AP, nDCG, R-precision) are not linear in the labels and are
refused under these per-pair designs; ``design="topics"`` (whole topics sampled,
:mod:`relkit.metrics.ppi.topics`) takes them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.metrics.core.errors import EvaluationError, InputError, MeasureError
from relkit.metrics.ppi.design import ALL_DESIGNS, check_design, strata
from relkit.metrics.ppi.estimators import Estimate, difference_estimate, effective_labels

_NAME = re.compile(r"^(P|DCG|dcg_cut)(?:@|\.|_)(\d+)$")


def parse_linear(name: str) -> tuple[str, int]:
    """``"P@10"`` -> ``("P", 10)``, ``"DCG@5"``/``"dcg_cut.5"`` -> ``("DCG", 5)``."""
    m = _NAME.match(name)
    if m is None or int(m.group(2)) < 1:
        raise MeasureError(f"PPI takes measures linear in the labels, P@k and DCG@k; got "
                           f"{name!r} (AP, nDCG and other normalised measures are not "
                           "supported under the per-pair designs: use --design topics)")
    return ("P" if m.group(1) == "P" else "DCG"), int(m.group(2))


def measure_label(kind: str, k: int) -> str:
    return f"{kind}@{k}"


class Pool:
    """The pooled pairs of an automatic qrels, in a fixed order, with their grades."""

    def __init__(self, auto: Mapping[str, Mapping[str, int]],
                 source: str = "the automatic qrels") -> None:
        self.pairs: list[tuple[str, str]] = [(t, d) for t in auto for d in auto[t]]
        if not self.pairs:
            raise InputError(f"{source}: no pair; --auto lists every pooled pair")
        self.source = source
        self.index = {p: i for i, p in enumerate(self.pairs)}
        self.auto = np.array([auto[t][d] for t, d in self.pairs], dtype=np.int64)
        self.topic_of = [t for t, _ in self.pairs]
        self.topics = set(self.topic_of)

    def weights(self, ranked: Mapping[str, Sequence[str]], kind: str, k: int
                ) -> tuple[np.ndarray, int]:
        """:math:`w_i/|T_s|` for every pooled pair, and :math:`|T_s|`."""
        topics = [t for t in ranked if t in self.topics]
        if not topics:
            raise EvaluationError("the run has no topic of the automatic qrels")
        w = np.zeros(len(self.pairs))
        for t in topics:
            for r, d in enumerate(ranked[t][:k], start=1):
                i = self.index.get((t, d))
                if i is not None:
                    w[i] = 1.0 / k if kind == "P" else 1.0 / math.log2(r + 1)
        return w / len(topics), len(topics)


def gain(grades: np.ndarray, kind: str, level: int) -> np.ndarray:
    """:math:`g(h)`: relevant (P) or the positive grade (DCG)."""
    out: np.ndarray = ((grades >= level) if kind == "P" else np.maximum(grades, 0))
    return out.astype(float)


@dataclass(frozen=True)
class Human:
    """The human sample located in a :class:`Pool`: positions, grades and strata."""

    where: np.ndarray
    grades: np.ndarray
    strata: np.ndarray
    sizes: dict[int, int]

    @classmethod
    def locate(cls, pool: Pool, human: Mapping[str, Mapping[str, int]], design: str,
               source: str = "the human qrels") -> Human:
        check_design(design)
        where, grades = [], []
        for t in human:
            for d, g in human[t].items():
                i = pool.index.get((t, d))
                if i is None:
                    raise InputError(f"{source}: topic {t!r} document {d!r} is not in "
                                     f"{pool.source} (the pool); every human label must "
                                     "be of a pooled pair")
                where.append(i)
                grades.append(g)
        if not where:
            raise InputError(f"{source}: no human label; PPI needs a human sample")
        codes = strata(pool.auto, design)
        pos = np.array(where, dtype=np.int64)
        uniq, counts = np.unique(codes, return_counts=True)
        sizes = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
        taken = np.unique(codes[pos], return_counts=True)
        labelled = dict(zip(taken[0].tolist(), taken[1].tolist(), strict=True))
        for h, size in sizes.items():   # the estimator's own check, naming the file
            n = labelled.get(h, 0)
            if n < 2 and n < size:
                what = "the pool" if design == "simple" else f"automatic grade {h}"
                raise InputError(f"{source}: {n} human label(s) of the {size} pairs of "
                                 f"{what} ({design} design); the design needs at least 2 "
                                 "in every stratum")
        return cls(pos, np.array(grades, dtype=np.int64), codes[pos], sizes)


@dataclass(frozen=True)
class SystemEstimate:
    """One system's estimate of one measure: PPI++, and human-only at the same budget."""

    system: str
    measure: str
    topics: int
    labels: int
    ppi: Estimate
    classical: Estimate
    effective: float


def estimate(pool: Pool, human: Human, w: np.ndarray, kind: str, level: int,
             alpha: float = 0.05, lam: float | str = "tuned") -> tuple[Estimate, Estimate]:
    """PPI (``lam``) and classical estimates of :math:`\\sum_i w_i g(h_i)`."""
    g_auto = gain(pool.auto, kind, level) * w
    z = gain(human.grades, kind, level) * w[human.where]
    zhat = g_auto[human.where]
    ppi = difference_estimate(z, zhat, float(g_auto.sum()), human.strata, human.sizes,
                              lam=lam, alpha=alpha)
    classical = difference_estimate(z, zhat, 0.0, human.strata, human.sizes, lam=0.0,
                                    alpha=alpha)
    return ppi, classical


def ppi_evaluate(human: Any, auto: Any, runs: Mapping[str, Any], measures: Sequence[str],
                 *, design: str = "simple", level: int = 1, alpha: float = 0.05,
                 lam: float | str = "tuned") -> list[SystemEstimate]:
    """Each run's prediction-powered estimate of each linear measure.

    Parameters
    ----------
    human, auto
        Qrels (anything :meth:`relkit.metrics.data.Qrels.coerce` takes): the human
        sample, and the automatic grades of every pooled pair.
    runs
        ``{name: run}`` (anything :meth:`relkit.metrics.data.Run.coerce` takes).
    measures
        ``P@k`` and ``DCG@k`` names; under ``design="topics"`` any measure whose
        summary is the mean over topics (AP, nDCG@k...).
    design
        ``"simple"`` or ``"stratified"`` (by automatic grade), as the sample was drawn;
        ``"topics"``: whole topics drawn at random, each judged on all its pooled pairs
        (:mod:`relkit.metrics.ppi.topics`).
    level, alpha, lam
        Lowest relevant grade for P@k; the intervals' level is :math:`1-\\alpha`;
        ``lam``: ``"tuned"`` (PPI++), 1 (PPI) or a number.
    """
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.ranking import ranked_docnos

    auto_q, human_q = Qrels.coerce(auto), Qrels.coerce(human)
    if check_design(design, ALL_DESIGNS) == "topics":
        from relkit.metrics.ppi.topics import ppi_evaluate_topics

        return [SystemEstimate(*row) for row in ppi_evaluate_topics(
            human_q, auto_q, runs, measures, level=level, alpha=alpha, lam=lam)]
    parsed = [parse_linear(m) for m in measures]
    pool = Pool(auto_q.to_dict(), getattr(auto_q, "source", "the automatic qrels"))
    located = Human.locate(pool, human_q.to_dict(), design,
                           getattr(human_q, "source", "the human qrels"))
    out = []
    for name, run in runs.items():
        coerced = Run.coerce(run)
        ranked = ranked_docnos(coerced)
        for kind, k in parsed:
            try:
                w, n_topics = pool.weights(ranked, kind, k)
            except EvaluationError as exc:   # name the run's file (or its name)
                src = str(getattr(coerced, "source", "") or "")
                where = src if src and not src.startswith("<") else f"run {name!r}"
                raise EvaluationError(f"{where}: {exc}") from None
            ppi, classical = estimate(pool, located, w, kind, level, alpha, lam)
            z = gain(located.grades, kind, level) * w[located.where]
            out.append(SystemEstimate(name, measure_label(kind, k), n_topics,
                                      len(located.where), ppi, classical,
                                      effective_labels(z, located.strata, located.sizes,
                                                       ppi.se ** 2)))
    return out
