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

Measures with a normaliser (AP, nDCG) are not linear in the labels: they are ratio
estimators with a delta-method interval, :mod:`relkit.metrics.ppi.ratio`; other
measures (R-precision, ...) are refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.metrics.core.errors import EvaluationError, InputError, MeasureError
from relkit.metrics.ppi.design import check_design, strata
from relkit.metrics.ppi.estimators import Estimate, difference_estimate, effective_labels

_NAME = re.compile(r"^(P|DCG|dcg_cut)(?:@|\.|_)(\d+)$")
_NDCG = re.compile(r"^(?:nDCG|ndcg|ndcg_cut)(?:@|\.|_)(\d+)$")
SUPPORTED = "P@k, DCG@k, AP and nDCG[@k]"


def parse_measure(name: str) -> tuple[str, int | None]:
    """``"P@10"`` -> ``("P", 10)``, ``"DCG@5"``/``"dcg_cut.5"`` -> ``("DCG", 5)``,
    ``"AP"``/``"map"`` -> ``("AP", None)``, ``"nDCG@10"``/``"ndcg_cut.10"`` ->
    ``("nDCG", 10)``, ``"nDCG"``/``"ndcg"`` -> ``("nDCG", None)``."""
    if name in ("AP", "map"):
        return "AP", None
    if name in ("nDCG", "ndcg"):
        return "nDCG", None
    m = _NDCG.match(name)
    if m is not None and int(m.group(1)) >= 1:
        return "nDCG", int(m.group(1))
    return parse_linear(name)


def parse_linear(name: str) -> tuple[str, int]:
    """``"P@10"`` -> ``("P", 10)``, ``"DCG@5"``/``"dcg_cut.5"`` -> ``("DCG", 5)``."""
    m = _NAME.match(name)
    if m is None or int(m.group(2)) < 1:
        raise MeasureError(f"PPI takes {SUPPORTED}; got {name!r}")
    return ("P" if m.group(1) == "P" else "DCG"), int(m.group(2))


def measure_label(kind: str, k: int | None) -> str:
    return kind if k is None else f"{kind}@{k}"


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
    """Each run's prediction-powered estimate of each measure.

    Parameters
    ----------
    human, auto
        Qrels (anything :meth:`relkit.metrics.data.Qrels.coerce` takes): the human
        sample, and the automatic grades of every pooled pair.
    runs
        ``{name: run}`` (anything :meth:`relkit.metrics.data.Run.coerce` takes).
    measures
        ``P@k``, ``DCG@k`` (linear: the difference estimator), ``AP``, ``nDCG@k`` and
        ``nDCG`` (ratios: :mod:`relkit.metrics.ppi.ratio`).
    design
        ``"simple"`` or ``"stratified"`` (by automatic grade), as the sample was drawn.
    level, alpha, lam
        Lowest relevant grade for P@k; the intervals' level is :math:`1-\\alpha`;
        ``lam``: ``"tuned"`` (PPI++), 1 (PPI) or a number.
    """
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.ranking import ranked_docnos

    parsed = [parse_measure(m) for m in measures]
    auto_q, human_q = Qrels.coerce(auto), Qrels.coerce(human)
    pool = Pool(auto_q.to_dict(), getattr(auto_q, "source", "the automatic qrels"))
    located = Human.locate(pool, human_q.to_dict(), design,
                           getattr(human_q, "source", "the human qrels"))
    out = []
    for name, run in runs.items():
        coerced = Run.coerce(run)
        ranked = ranked_docnos(coerced)
        for kind, k in parsed:
            try:
                if kind in ("AP", "nDCG"):
                    out.append(_normalised(pool, located, ranked, name, kind, k, level,
                                           alpha, lam))
                    continue
                assert k is not None
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


def _normalised(pool: Pool, human: Human, ranked: Mapping[str, Sequence[str]], name: str,
                kind: str, k: int | None, level: int, alpha: float,
                lam: float | str) -> SystemEstimate:
    """AP or nDCG[@k]: the ratio estimators of :mod:`relkit.metrics.ppi.ratio`."""
    from relkit.metrics.ppi.ratio import APStructure, NDCGStructure, Sample, ratio_estimate

    structure: APStructure | NDCGStructure = (
        APStructure(pool, ranked, level) if kind == "AP" else NDCGStructure(pool, ranked, k))
    sample = Sample(human)
    ppi, _ = ratio_estimate(structure, pool.auto, sample, lam=lam, alpha=alpha)
    classical, v0 = ratio_estimate(structure, pool.auto, sample, lam=0.0, alpha=alpha)
    return SystemEstimate(name, measure_label(kind, k), structure.topics.count,
                          len(human.where), ppi, classical,
                          effective_labels(v0, human.strata, human.sizes, ppi.se ** 2))
