r"""Experiment (issue 37): AP and nDCG from few human labels by ratio estimators.

Why ``relkit eval --ppi`` still refuses AP and nDCG: this is the method tried, and
``main`` measures its coverage on Cranfield, which misses [0.93, 0.97] far
(docs/automatic-judges.md, "Normalised measures"). The estimators are right (every
total is design-unbiased; with every pair labelled the estimate is trec_eval's value,
tests/test_ppi_ratio.py); the per-topic ratios are not, with a few labels per topic:
each topic's ratio has an :math:`O(1/n_t)` bias that the mean over :math:`|T|` topics
keeps while its standard error shrinks as :math:`1/\sqrt{|T| n_t}`, so the bias is
:math:`\sqrt{|T|/n_t}` times a constant in standard errors (225 topics, about 7 labels
each at 1,500 labels). bench/ppi_ratio_diagnose.py takes it apart (the human-only
column's 0/0 topics, lambda tuning, the floor and the clip, larger budgets, deeper
pools, Taylor and jackknife bias corrections). Run::

    .venv/bin/python bench/ppi_ratio.py [REPLICATES] [BUDGET]

The method:

**Estimand.** As for the linear measures (:mod:`relkit.metrics.ppi.measures`): for a
system with topics :math:`T` (its topics in the automatic qrels), the mean over them of
the measure computed with *human* labels on every pooled pair,
:math:`\theta = |T|^{-1} \sum_{t \in T} M_t(h)`, unpooled documents non-relevant and the
normaliser (the relevant count, the ideal DCG) taken from the pool, as trec_eval does
with the pool as qrels.

**Totals.** Each :math:`M_t` is a smooth function of a few population totals of the
topic's pooled pairs :math:`i`, with :math:`y_i = [h_i \ge \ell]`, :math:`r_i` the
pair's rank in the run (:math:`1/r_i = 0` when not retrieved in the top 1,000),
:math:`B_{ij} = 1/\max(r_i, r_j)` for two retrieved pairs, and :math:`D_k(x)` the
ideal discount of the best :math:`x` ranks (linear between integers, constant past
:math:`k`):

.. math::

    \mathrm{AP}_t = \frac{\sum_i y_i / r_i + \tfrac12 \sum_{i \ne j} B_{ij}\, y_i y_j}
                         {\sum_i y_i}, \qquad
    \mathrm{nDCG@k}_t = \frac{\sum_i w_i\, g(h_i)}{\sum_{c \ge 1} D_k(N_{\ge c})},
    \quad N_{\ge c} = \sum_i [h_i \ge c],

(AP's numerator is :math:`\sum_r y_r\,\mathrm{P@}r`; the ideal DCG with linear gains is
:math:`\sum_{c\ge1} D_k(N_{\ge c})`, the plug-in of the grade counts.)

**Estimator.** Each total is estimated by the difference (PPI) estimator of
:mod:`relkit.metrics.ppi.estimators` restricted to the topic (a domain total): the
automatic values on every pair plus the Horvitz–Thompson estimate of the human-minus-
:math:`\lambda`-automatic total. AP's quadratic total uses the sampled *pairs of pairs*
with their joint inclusion probabilities :math:`\pi_{ij}` (in one stratum
:math:`n_h(n_h-1)/(N_h(N_h-1))`, across strata :math:`\pi_i\pi_j`), so every total is
unbiased for a fixed :math:`\lambda`, however wrong the automatic grades are. The
measure is the plug-in ratio, :math:`\hat M_t = \hat A_t / \hat B_t` clipped to
[0, 1] (0 where :math:`\hat B_t \le 0`), every estimated count floored at the count
seen in the topic's sample (a count under it is impossible and makes the ratio blow
up), and :math:`\hat\theta = |T|^{-1}\sum_t \hat M_t`.

**Not unbiased.** A ratio of unbiased totals is consistent, with an :math:`O(1/n)`
bias, not unbiased (Särndal, Swensson & Wretman, *Model Assisted Survey Sampling*,
1992, §5.6); with every pair judged it is exact.

**Variance (delta method, linearisation).** :math:`\hat\theta - \theta \approx
\sum_{i\in S} u_i/\pi_i - \sum_i u_i`, with the linearised variable

.. math::

    u_i = v_i - \lambda \hat v_i, \qquad
    v_i = \frac{1}{|T|\,\hat B_t}\Big(\partial_i A - \hat M_t\, \partial_i B\Big)(h),

:math:`\hat v_i` the same with the automatic grades; for AP
:math:`\partial_i A = y_i/r_i + y_i \sum_{j} B_{ij} y_j` (the Hájek projection of the
quadratic total, its inner sum itself estimated), :math:`\partial_i B = y_i`; for nDCG
:math:`\partial_i A = w_i g(h_i)`, :math:`\partial_i B = \sum_c D_k'(\hat N_{\ge c})
[h_i \ge c]`. The variance is that of a stratified total of :math:`u`
(:math:`\sum_h N_h^2(1-n_h/N_h) s_h^2(u)/n_h`) with the interval of
:func:`~relkit.metrics.ppi.estimators.difference_estimate` (Student at Satterthwaite's
degrees of freedom). Särndal et al. (1992, §5.5–5.7) for the linearisation of functions
of totals; PPI: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (*Science* 382, 2023);
its use for evaluation: Boyeau et al. (2024, arXiv:2403.07008).

**Power tuning (PPI++).** :math:`\lambda` minimises the estimated variance of
:math:`\sum_S u_i/\pi_i` with :math:`v, \hat v` taken at the PPI (:math:`\lambda=1`)
estimate (Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453, §6: the tuning of a
general estimator through its linearisation); the estimate is then recomputed at that
:math:`\lambda`. :math:`\lambda = 0` is the human-only estimate. The tuned
:math:`\lambda` is clipped to [0, 1] as ``ppi_py`` clips it; a clipped topic's ratio
has derivative 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from relkit.metrics.core.errors import EvaluationError
from relkit.metrics.ppi.estimators import Estimate, difference_estimate

MAX_DOCS = 1000   # trec_eval's default -M: the ranks a run contributes


@dataclass(frozen=True)
class Parts:
    """The last estimate's pieces (for bench/ppi_ratio_diagnose.py): the sampled units'
    topics, each topic's estimated numerator and denominator totals, and the sampled
    units' linearised residuals (human minus lambda automatic) of each."""

    topic: np.ndarray
    num: np.ndarray
    den: np.ndarray
    d_num: np.ndarray
    d_den: np.ndarray


@dataclass(frozen=True)
class Topics:
    """The system's topics over the pool: each pair's topic index (-1: not counted)."""

    of: np.ndarray
    count: int

    @classmethod
    def of_run(cls, pool: object, ranked: Mapping[str, Sequence[str]]) -> Topics:
        counted = sorted(t for t in ranked if t in pool.topics)   # type: ignore[attr-defined]
        if not counted:
            raise EvaluationError("the run has no topic of the automatic qrels")
        code = {t: i for i, t in enumerate(counted)}
        return cls(np.array([code.get(t, -1) for t in pool.topic_of],  # type: ignore[attr-defined]
                            dtype=np.int64), len(counted))


class Sample:
    """The human sample's design quantities: :math:`1/\\pi_i`, strata, :math:`n_h, N_h`."""

    def __init__(self, human: object) -> None:
        self.where: np.ndarray = human.where            # type: ignore[attr-defined]
        self.grades: np.ndarray = human.grades          # type: ignore[attr-defined]
        self.strata: np.ndarray = human.strata          # type: ignore[attr-defined]
        self.sizes: dict[int, int] = human.sizes        # type: ignore[attr-defined]
        self._design()

    def without(self, drop: np.ndarray) -> Sample:
        """The sample less the units where ``drop`` (the others reweighted)."""
        out = object.__new__(Sample)
        keep = ~drop
        out.where, out.grades = self.where[keep], self.grades[keep]
        out.strata, out.sizes = self.strata[keep], self.sizes
        out._design()
        return out

    def _design(self) -> None:
        uniq, counts = np.unique(self.strata, return_counts=True)
        taken = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
        self.n = np.array([taken[h] for h in self.strata.tolist()], dtype=float)
        self.big_n = np.array([self.sizes[h] for h in self.strata.tolist()], dtype=float)
        self.ipw = self.big_n / self.n

    def pair_factor(self, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        r""":math:`\pi_{pq}/(\pi_p\pi_q)` for sampled units ``p != q``: 1 across strata,
        :math:`(n_h-1)N_h/((N_h-1)n_h)` within (sampling without replacement)."""
        same = self.strata[p] == self.strata[q]
        n, big = self.n[p], self.big_n[p]
        within = np.where(big > 1, (n - 1) * big / np.maximum((big - 1) * n, 1e-300), 1.0)
        return np.where(same, within, 1.0)


def _domain_totals(z_all: np.ndarray, z_s: np.ndarray, zhat_s: np.ndarray, lam: float,
                   topics: Topics, sample: Sample) -> np.ndarray:
    """Per topic :math:`\\lambda\\sum_{i\\in t}\\hat z_i + \\sum_{i\\in S\\cap t}
    (z_i - \\lambda\\hat z_i)/\\pi_i`."""
    keep = topics.of >= 0
    out = lam * np.bincount(topics.of[keep], weights=z_all[keep], minlength=topics.count)
    ts = topics.of[sample.where]
    ks = ts >= 0
    out += np.bincount(ts[ks], weights=((z_s - lam * zhat_s) * sample.ipw)[ks],
                       minlength=topics.count)
    return out


def _observed(flags: np.ndarray, topics: Topics, sample: Sample) -> np.ndarray:
    """Per topic, the sampled pairs with ``flags``: a floor under the estimated count."""
    ts = topics.of[sample.where]
    ks = ts >= 0
    return np.bincount(ts[ks], weights=flags[ks], minlength=topics.count)


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``num / den`` in [0, 1] (the measure's range), 0 where ``den <= 0``; and
    ``1/den`` where the ratio is inside (0, 1), else 0 (a clipped ratio's derivative)."""
    ok = den > 0
    raw = np.where(ok, num / np.where(ok, den, 1.0), 0.0)
    inside = ok & (raw > 0) & (raw < 1)
    return np.clip(raw, 0.0, 1.0), np.where(inside, 1.0 / np.where(ok, den, 1.0), 0.0)


class APStructure:
    """A run's ranks over the pool for AP: :math:`1/r_i` and the sparse :math:`B`."""

    def __init__(self, pool: object, ranked: Mapping[str, Sequence[str]], level: int) -> None:
        from scipy.sparse import csr_matrix

        self.topics = Topics.of_run(pool, ranked)
        index = pool.index                              # type: ignore[attr-defined]
        size = len(pool.pairs)                          # type: ignore[attr-defined]
        self.inv_rank = np.zeros(size)
        rows: list[int] = []
        cols: list[int] = []
        vals: list[float] = []
        for t in ranked:
            hits = [(r, index[(t, d)]) for r, d in enumerate(ranked[t][:MAX_DOCS], start=1)
                    if (t, d) in index]
            if not hits or self.topics.of[hits[0][1]] < 0:
                continue
            for a, (r, i) in enumerate(hits):
                self.inv_rank[i] = 1.0 / r
                for _, j in hits[:a]:          # j ranked above i: the pair weighs 1/r_i
                    rows += [i, j]
                    cols += [j, i]
                    vals += [1.0 / r, 1.0 / r]
        self.b = csr_matrix((vals, (rows, cols)), shape=(size, size))
        self.level = level

    def estimate(self, auto: np.ndarray, sample: Sample, lam: float
                 ) -> tuple[float, np.ndarray, np.ndarray]:
        """:math:`\\hat\\theta` and the linearised :math:`v, \\hat v` of the sampled units."""
        t, s = self.topics, sample
        ya = (auto >= self.level).astype(float)
        yh = (s.grades >= self.level).astype(float)
        ys_a = ya[s.where]
        inv_r = self.inv_rank[s.where]
        ba = self.b @ ya                                        # sum_j B_ij a_j
        r_hat = np.maximum(_domain_totals(ya, yh, ys_a, lam, t, s), _observed(yh, t, s))
        l_hat = _domain_totals(ya * self.inv_rank, yh * inv_r, ys_a * inv_r, lam, t, s)
        keep = t.of >= 0
        q_hat = lam * np.bincount(t.of[keep], weights=(0.5 * ya * ba)[keep],
                                  minlength=t.count)
        sub = self.b[s.where][:, s.where].tocoo()              # sampled pairs of pairs
        p, q = sub.row, sub.col
        factor = s.pair_factor(p, q)
        # Q: (1/2) sum over ordered sampled pairs of B (y_p y_q - lam a_p a_q) / pi_pq
        d = sub.data * (yh[p] * yh[q] - lam * ys_a[p] * ys_a[q])
        tp = t.of[s.where[p]]
        q_hat += np.bincount(tp, weights=0.5 * d * s.ipw[p] * s.ipw[q] / factor,
                             minlength=t.count) if len(p) else 0.0
        # S_p = sum_j B_pj y_j, estimated given p sampled (pi_q|p = pi_q x factor)
        s_hat = lam * ba[s.where]
        s_hat += np.bincount(p, weights=sub.data * (yh[q] - lam * ys_a[q]) * s.ipw[q]
                             / factor, minlength=len(s.where)) if len(p) else 0.0
        ap, inv = _ratio(l_hat + q_hat, r_hat)
        ts = t.of[s.where]
        scale = np.where(ts >= 0, inv[np.maximum(ts, 0)], 0.0)
        m = ap[np.maximum(ts, 0)]
        v = (yh * inv_r + yh * s_hat - m * yh) * scale / t.count
        vhat = (ys_a * inv_r + ys_a * ba[s.where] - m * ys_a) * scale / t.count
        self.parts = Parts(ts, l_hat + q_hat, r_hat,
                           yh * inv_r + yh * s_hat - lam * (ys_a * inv_r + ys_a * ba[s.where]),
                           yh - lam * ys_a)
        return float(ap.sum() / t.count), v, vhat


class NDCGStructure:
    """A run's discounts over the pool for nDCG@k (``k=None``: nDCG, every rank)."""

    def __init__(self, pool: object, ranked: Mapping[str, Sequence[str]],
                 k: int | None) -> None:
        self.topics = Topics.of_run(pool, ranked)
        index = pool.index                              # type: ignore[attr-defined]
        self.w = np.zeros(len(pool.pairs))              # type: ignore[attr-defined]
        depth = MAX_DOCS if k is None else min(k, MAX_DOCS)
        for t in ranked:
            for r, d in enumerate(ranked[t][:depth], start=1):
                i = index.get((t, d))
                if i is not None and self.topics.of[i] >= 0:
                    self.w[i] = 1.0 / math.log2(r + 1)
        per_topic = np.bincount(self.topics.of[self.topics.of >= 0],
                                minlength=self.topics.count)
        self.cap = float(min(depth, int(per_topic.max(initial=0))))
        ranks = int(self.cap) + 1
        self.disc = 1.0 / np.log2(np.arange(1, ranks + 1) + 1.0)   # discount of rank r
        self.cum = np.concatenate([[0.0], np.cumsum(self.disc)])   # D at integers

    def ideal(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:math:`D_k(x)` and :math:`D_k'(x)`: linear between integers, 0 below 0,
        constant from the cut (or the topic's pool size) on."""
        x = np.clip(x, 0.0, self.cap)
        fl = np.floor(x).astype(np.int64)
        frac = x - fl
        nxt = np.minimum(fl, len(self.disc) - 1)
        value = self.cum[fl] + frac * self.disc[nxt]
        slope = np.where((x > 0) & (x < self.cap), self.disc[nxt], 0.0)
        slope = np.where(x == 0, self.disc[0], slope)   # right derivative at 0
        return value, slope

    def estimate(self, auto: np.ndarray, sample: Sample, lam: float
                 ) -> tuple[float, np.ndarray, np.ndarray]:
        t, s = self.topics, sample
        ga, gh = np.maximum(auto, 0).astype(float), np.maximum(s.grades, 0).astype(float)
        gs_a = ga[s.where]
        w_s = self.w[s.where]
        dcg = _domain_totals(ga * self.w, gh * w_s, gs_a * w_s, lam, t, s)
        top = int(max(auto.max(initial=0), s.grades.max(initial=0)))
        idcg = np.zeros(t.count)
        dh = np.zeros(len(s.where))
        da = np.zeros(len(s.where))
        ts = t.of[s.where]
        for c in range(1, top + 1):
            ca, ch = (auto >= c).astype(float), (s.grades >= c).astype(float)
            count = np.maximum(_domain_totals(ca, ch, ca[s.where], lam, t, s),
                               _observed(ch, t, s))
            value, slope = self.ideal(count)
            idcg += value
            sl = np.where(ts >= 0, slope[np.maximum(ts, 0)], 0.0)
            dh += sl * ch
            da += sl * ca[s.where]
        ndcg, inv = _ratio(dcg, idcg)
        scale = np.where(ts >= 0, inv[np.maximum(ts, 0)], 0.0)
        m = ndcg[np.maximum(ts, 0)]
        v = (gh * w_s - m * dh) * scale / t.count
        vhat = (gs_a * w_s - m * da) * scale / t.count
        self.parts = Parts(ts, dcg, idcg, (gh - lam * gs_a) * w_s, dh - lam * da)
        return float(ndcg.sum() / t.count), v, vhat


def ratio_estimate(structure: APStructure | NDCGStructure, auto: np.ndarray,
                   sample: Sample, *, lam: float | str = "tuned",
                   alpha: float = 0.05) -> tuple[Estimate, np.ndarray]:
    """The estimate of the system's mean AP / nDCG with its delta-method interval, and
    the linearised human values :math:`v` (for the effective number of labels).

    ``lam``: ``"tuned"`` (PPI++), 1 (PPI), 0 (human-only) or a number. Consistent, not
    unbiased (a ratio); exact with zero width when every pooled pair is labelled.
    """
    if lam == "tuned":
        _, v, vhat = structure.estimate(auto, sample, 1.0)
        tuned = difference_estimate(v, vhat, 0.0, sample.strata, sample.sizes, lam="tuned")
        lam_value = min(max(tuned.lam, 0.0), 1.0)    # as ppi_py clips PPI++'s lambda
    else:
        lam_value = float(lam)
    value, v, vhat = structure.estimate(auto, sample, lam_value)
    spread = difference_estimate(v, vhat, 0.0, sample.strata, sample.sizes,
                                 lam=lam_value, alpha=alpha)
    half = spread.high - spread.value
    return Estimate(value, spread.se, value - half, value + half, lam_value), v



def main(replicates: int = 100, budget: int = 1500) -> None:
    """Coverage of the PPI++ and human-only intervals of mean AP and nDCG@10 on the
    Cranfield pool of ``bench/ppi_coverage.py``, its four planted judges, both designs."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import ppi_coverage as bench

    from relkit.metrics.ppi.design import draw, strata
    from relkit.metrics.ppi.measures import Human, Pool

    truth, runs = bench.truth_and_runs()
    pool = Pool(truth)
    true = pool.auto.copy()
    whole = Sample(Human(np.arange(len(true)), true, np.zeros(len(true), np.int64),
                         {0: len(true)}))
    made: dict[tuple[str, str], APStructure | NDCGStructure] = {}
    for system, ranked in runs.items():
        made[(system, "AP")] = APStructure(pool, ranked, bench.LEVEL)
        made[(system, "nDCG@10")] = NDCGStructure(pool, ranked, 10)
    target = {key: ratio_estimate(st, true, whole, lam=0.0)[0].value
              for key, st in made.items()}
    print(f"Cranfield pool {len(pool.pairs):,} pairs, {budget} human labels, "
          f"{replicates} replicates per setting, 95% intervals\n")
    print("| judge | design | measure | PPI++ coverage | lowest run | PPI++ bias / sd "
          "| human-only coverage | PPI++ width | human-only width |")
    print("|---|---|---|---|---|---|---|---|---|")
    planted = [j for j in bench.JUDGES if j[0] != "supervised"]
    for j, (kind, rate) in enumerate(planted):
        auto = bench.judge(true, kind, rate, np.random.default_rng(100 + j))
        for design in ("simple", "stratified"):
            codes = strata(auto, design)
            uniq, counts = np.unique(codes, return_counts=True)
            sizes = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
            rows: dict = {key: [] for key in made}
            for r in range(replicates):
                drawn = draw(pool.pairs, auto.tolist(), budget, design, seed=r)
                where = np.array([pool.index[(t, d)] for t, d, _, _ in drawn])
                sample = Sample(Human(where, true[where], codes[where], sizes))
                for key, st in made.items():
                    e = ratio_estimate(st, auto, sample)[0]
                    c = ratio_estimate(st, auto, sample, lam=0.0)[0]
                    rows[key].append((e.low <= target[key] <= e.high, e.value,
                                      c.low <= target[key] <= c.high,
                                      e.high - e.low, c.high - c.low))
            label = f"noise {rate}" if kind == "noise" else f"{kind} {rate}"
            for measure in ("AP", "nDCG@10"):
                per = {key: np.array(v, dtype=float) for key, v in rows.items()
                       if key[1] == measure}
                cov = np.mean([v[:, 0].mean() for v in per.values()])
                low = min(v[:, 0].mean() for v in per.values())
                bias = np.mean([(v[:, 1].mean() - target[key]) / max(v[:, 1].std(), 1e-12)
                                for key, v in per.items()])
                cov0 = np.mean([v[:, 2].mean() for v in per.values()])
                wid = np.mean([v[:, 3].mean() for v in per.values()])
                wid0 = np.mean([v[:, 4].mean() for v in per.values()])
                print(f"| {label} | {design} | {measure} | {cov:.3f} | {low:.3f} | "
                      f"{bias:+.1f} | {cov0:.3f} | {wid:.4f} | {wid0:.4f} |", flush=True)


if __name__ == "__main__":
    import sys

    main(*(int(a) for a in sys.argv[1:3]))
