r"""Agreement among many assessors, with missing labels.

An item's contribution to every statistic here depends only on its vector
of grade counts :math:`n_{i\cdot} = (n_{i1}, \dots, n_{iq})` over the declared
scale's q grades (:math:`m_i = \sum_c n_{ic}` assessors judged it). Items are
grouped into distinct count vectors ("patterns"), and each statistic is a
function of pattern counts ``W`` of shape (batch, patterns): the batch is the
bootstrap replicates, or the topics. Not every assessor judges every item;
items judged once carry no agreement (only, for Fleiss and Gwet, chance
information, following Gwet).

The mean of the pairwise Cohen's kappas is :mod:`.mean_pairwise` (importable from here
too, as before).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal, get_args

import numpy as np

from relkit.judging.agreement import ci, many
from relkit.judging.agreement import variance as V
from relkit.judging.agreement.frame import AgreementError
from relkit.judging.agreement.mean_pairwise import MAX_BOOT_ASSESSORS as MAX_BOOT_ASSESSORS
from relkit.judging.agreement.mean_pairwise import mean_kappa_by_topic as mean_kappa_by_topic
from relkit.judging.agreement.mean_pairwise import mean_pairwise_cohen as mean_pairwise_cohen
from relkit.judging.agreement.mean_pairwise import pair_labels as pair_labels
from relkit.judging.agreement.mean_pairwise import pair_tables as pair_tables
from relkit.judging.agreement.mean_pairwise import pair_topic_tables as pair_topic_tables
from relkit.judging.agreement.pairwise import weight_matrix
from relkit.judging.agreement.result import Interval, Stat, defined, undefined
from relkit.metrics.core.registry import Registry

Metric = Literal["nominal", "ordinal", "interval", "ratio"]
METRICS: tuple[str, ...] = get_args(Metric)


@dataclass(frozen=True)
class Patterns:
    counts: np.ndarray        # (P, q) grade counts of each distinct pattern
    freq: np.ndarray          # (P,) items with that pattern
    item_pattern: np.ndarray  # (items,) pattern of each item (-1: judged by nobody)

    @property
    def m(self) -> np.ndarray:
        return self.counts.sum(axis=1)


def patterns(codes: np.ndarray, q: int) -> Patterns:
    """Group items (rows of grade positions, -1 missing) by their grade-count vector."""
    counts = np.stack([(codes == c).sum(axis=1) for c in range(q)], axis=1).astype(np.int64)
    judged = counts.sum(axis=1) > 0
    base = codes.shape[1] + 1
    item_pattern = np.full(len(codes), -1, dtype=np.int64)
    if q * np.log2(base) < 62:
        key = counts[judged] @ (base ** np.arange(q, dtype=np.int64))
        uniq, first, inv, freq = np.unique(key, return_index=True, return_inverse=True,
                                           return_counts=True)
        pat = counts[judged][first]
    else:  # too many assessors x grades for one integer key
        pat, inv, freq = np.unique(counts[judged], axis=0, return_inverse=True,
                                   return_counts=True)
    item_pattern[judged] = inv.ravel()
    return Patterns(pat, freq, item_pattern)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(a, dtype=np.float64) / b
    return np.where(np.abs(b) < 1e-15, np.nan, out)


def _pa_pi(C: np.ndarray, W: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed agreement among pairable items and mean grade shares (Gwet 2014, ch. 2)."""
    m = C.sum(axis=1).astype(np.float64)
    two = m >= 2
    rstar = C @ w.T
    pa_p = (C * (rstar - 1)).sum(axis=1)[two] / (m[two] * (m[two] - 1))
    Wt = W[:, two]
    pa = _div(Wt @ pa_p, Wt.sum(axis=1))
    pi = _div(W @ (C / m[:, None]), W.sum(axis=1)[:, None])
    return pa, pi


def percent_agreement(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Share of agreeing assessor pairs per item, averaged over items judged twice or more:
    :math:`p_a = \frac1{n'}\sum_i \sum_c \frac{n_{ic}(n_{ic}-1)}{m_i(m_i-1)}`."""
    return _pa_pi(C, W, np.eye(C.shape[1]))[0]


def fleiss_kappa(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Fleiss' kappa, missing-aware: :math:`\kappa = (p_a - p_e)/(1 - p_e)`.

    :math:`p_a` as in :func:`percent_agreement`; :math:`p_e = \sum_c \pi_c^2` with
    :math:`\pi_c = \frac1n \sum_i n_{ic}/m_i` over all judged items. With every
    item judged by the same number of assessors this is Fleiss (1971) exactly.
    Fleiss, "Measuring nominal scale agreement among many raters", Psychological
    Bulletin 76(5), 1971; the missing-data form: Gwet, *Handbook of Inter-Rater
    Reliability*, 4th ed., 2014, eq. 2.6 ff. (``irrCAC::fleiss.kappa.raw``).
    """
    pa, pi = _pa_pi(C, W, np.eye(C.shape[1]))
    pe = (pi ** 2).sum(axis=1)
    return _div(pa - pe, 1 - pe)


def _gwet(kind: str) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        q = C.shape[1]
        w = weight_matrix(values, kind)  # type: ignore[arg-type]
        pa, pi = _pa_pi(C, W, w)
        if q < 2:
            return np.full(len(W), np.nan)
        pe = w.sum() * (pi * (1 - pi)).sum(axis=1) / (q * (q - 1))
        return _div(pa - pe, 1 - pe)
    f.__doc__ = r"""Gwet's AC1 (unweighted) / AC2 (weighted), missing-aware.

    :math:`AC = (p_a - p_e)/(1 - p_e)`, :math:`p_e = \frac{T_w}{q(q-1)} \sum_c \pi_c(1-\pi_c)`,
    :math:`T_w` the sum of the weights, q the declared scale's grades (used or
    not: an unused grade changes :math:`p_e`). Gwet, "Computing inter-rater
    reliability and its variance in the presence of high agreement", BJMSP 61,
    2008; Gwet 2014, ch. 4 (``irrCAC::gwet.ac1.raw``)."""
    return f


gwet_ac1 = _gwet("none")


def _delta(metric: Metric, values: np.ndarray, nc: np.ndarray) -> np.ndarray:
    v = values
    if metric == "nominal":
        return 1.0 - np.eye(len(v))
    if metric == "interval":
        return (v[:, None] - v[None, :]) ** 2
    if metric == "ratio":
        s = v[:, None] + v[None, :]
        return np.where(s == 0, 0.0, _div((v[:, None] - v[None, :]), s) ** 2)
    # ordinal: (sum of n_g for g from c to k) - (n_c + n_k)/2, squared; depends on the data
    cum = np.cumsum(nc, axis=-1)
    lo_c = cum[..., :, None] - nc[..., :, None]            # sum of n_g for g < c
    span = np.maximum(cum[..., :, None], cum[..., None, :]) - np.minimum(
        lo_c, cum[..., None, :] - nc[..., None, :])
    return (span - (nc[..., :, None] + nc[..., None, :]) / 2) ** 2


def krippendorff_alpha(metric: Metric) -> Callable[[np.ndarray, np.ndarray, np.ndarray],
                                                    np.ndarray]:
    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        q = C.shape[1]
        m = C.sum(axis=1).astype(np.float64)
        two = m >= 2
        c = C[two].astype(np.float64)
        o_p = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(q)) / (m[two] - 1)[
            :, None, None]
        o = (W[:, two] @ o_p.reshape(len(c), q * q)).reshape(len(W), q, q)
        nc = o.sum(axis=-1)
        n = nc.sum(axis=-1)
        d = _delta(metric, values, nc)
        do = (o * d).sum(axis=(-2, -1))
        de = (nc[:, :, None] * nc[:, None, :] * d).sum(axis=(-2, -1))
        return 1.0 - _div((n - 1) * do, de)
    f.__doc__ = rf"""Krippendorff's alpha ({metric}): :math:`\alpha = 1 - D_o/D_e`.

    From the coincidence matrix :math:`o_{{ck}} = \sum_u \frac{{n_{{uc}} n_{{uk}} -
    [c=k]\,n_{{uc}}}}{{m_u - 1}}` over items judged twice or more,
    :math:`\alpha = 1 - (n - 1)\frac{{\sum o_{{ck}}\delta^2_{{ck}}}}
    {{\sum n_c n_k \delta^2_{{ck}}}}`.
    Krippendorff, "Computing Krippendorff's alpha-reliability", 2011."""
    return f


Fn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class MultiStatistic:
    """A many-assessor statistic over grade-count patterns; ``se``: its analytic SE."""

    name: str
    compute: Fn
    undefined_reason: str
    chance_corrected: bool = True
    se: Fn | None = None
    parts: many.Parts | None = None     # (P_a, P_e) per batch row
    t_reference: bool = True            # irrCAC/Gwet give its interval from t(n - 1)
    t_pairable: bool = False            # ... with n the items judged twice or more (alpha)


_ONE = "every pairable judgment is the same grade (expected disagreement is 0)"
_CHANCE1 = "chance agreement is 1"
# Ordinal alpha has no analytic SE here: its distances depend on the observed marginals.
REGISTRY: Registry[MultiStatistic] = Registry("many-assessor statistic", AgreementError)
REGISTRY.register(
    MultiStatistic("percent_agreement", percent_agreement, "no items", False,
                   V.percent_agreement_se, t_reference=False),
    MultiStatistic("fleiss_kappa", fleiss_kappa, _ONE, se=V.fleiss_se,
                   parts=many.parts("fleiss", "identity")),
    MultiStatistic("krippendorff_alpha_nominal", krippendorff_alpha("nominal"), _ONE,
                   se=V.krippendorff_se("nominal"), parts=many.alpha_parts("nominal"),
                   t_pairable=True),
    MultiStatistic("krippendorff_alpha_ordinal", krippendorff_alpha("ordinal"), _ONE),
    MultiStatistic("krippendorff_alpha_interval", krippendorff_alpha("interval"), _ONE,
                   se=V.krippendorff_se("interval"), parts=many.alpha_parts("interval"),
                   t_pairable=True),
    MultiStatistic("krippendorff_alpha_ratio", krippendorff_alpha("ratio"),
                   _ONE + ", or grades are not positive ratios", se=V.krippendorff_se("ratio"),
                   parts=many.alpha_parts("ratio"), t_pairable=True),
    MultiStatistic("gwet_ac1", gwet_ac1, _CHANCE1, se=V.gwet_se("none"),
                   parts=many.parts("gwet", "identity")),
    MultiStatistic("gwet_ac2_linear", _gwet("linear"), _CHANCE1, se=V.gwet_se("linear"),
                   parts=many.parts("gwet", "linear")),
    MultiStatistic("gwet_ac2_quadratic", _gwet("quadratic"), _CHANCE1,
                   se=V.gwet_se("quadratic"), parts=many.parts("gwet", "quadratic")),
)
# Gwet (2014) ch. 2-3: weighted Fleiss and Brennan-Prediger (see .many); on two grades
# every weighting equals the unweighted coefficient (analysis.SAME_ON_BINARY).
for _kind in ("linear", "quadratic", "ordinal"):
    REGISTRY.register(MultiStatistic(
        f"fleiss_kappa_{_kind}", many.coefficient("fleiss", _kind), _ONE,
        se=many.se("fleiss", _kind), parts=many.parts("fleiss", _kind)))
REGISTRY.register(MultiStatistic(
    "gwet_ac2_ordinal", many.coefficient("gwet", "ordinal"), _CHANCE1,
    se=many.se("gwet", "ordinal"), parts=many.parts("gwet", "ordinal")))
for _kind in ("identity", "linear", "quadratic", "ordinal"):
    REGISTRY.register(MultiStatistic(
        "brennan_prediger" + ("" if _kind == "identity" else f"_{_kind}"),
        many.coefficient("brennan_prediger", _kind), _CHANCE1,
        se=many.se("brennan_prediger", _kind), parts=many.parts("brennan_prediger", _kind)))


def _pairable_reason(n: int) -> str | None:
    if n == 0:
        return "no item was judged by two assessors"
    if n == 1:
        return "a single item was judged by two assessors"
    return None


_BOUNDS = (-np.inf, 1.0)       # analytic intervals: a coefficient never exceeds 1


def _analytic(stat: MultiStatistic, se: float, v: float, level: float, interval: str = "normal",
              n: float | None = None) -> Interval | None:
    """Normal, or with ``interval="t"`` and a t reference, t with n - 1 df (n: items judged)."""
    if not np.isfinite(se):
        return None
    bounds = (0.0, 1.0) if not stat.chance_corrected else _BOUNDS
    df = n - 1 if (stat.t_reference and n is not None) else None
    return ci.analytic(v, se, level, bounds, interval, df)


def measure(stat: MultiStatistic, pat: Patterns, values: np.ndarray, *, level: float = 0.95,
            replicates: int = 1000, seed: int = 0, interval: str = "normal") -> Stat:
    """``stat`` over all items, with its analytic interval (if any) and a bootstrap one."""
    return per_topic(stat, pat, np.zeros(len(pat.item_pattern), dtype=np.int64), 1, values,
                     level=level, replicates=replicates, seed=seed, interval=interval)[0]


def _on(fn: Fn, C: np.ndarray, values: np.ndarray, w: np.ndarray) -> np.ndarray:
    return fn(C, w, values)


def topic_weights(pat: Patterns, item_topic: np.ndarray, topics: int) -> np.ndarray:
    """Pattern counts per topic, (topics, patterns)."""
    ok = pat.item_pattern >= 0
    P = len(pat.freq)
    return np.bincount(item_topic[ok] * P + pat.item_pattern[ok],
                       minlength=topics * P).reshape(topics, P).astype(np.float64)


def per_topic(stat: MultiStatistic, pat: Patterns, item_topic: np.ndarray, topics: int,
              values: np.ndarray, *, level: float = 0.95, replicates: int = 0,
              seed: int = 0, boot_only_without_se: bool = False,
              interval: str = "normal") -> list[Stat]:
    """``stat`` within each topic: values and analytic SEs in one vectorised call.

    The bootstrap (``replicates`` > 0) resamples each topic's own items, seeded
    by ``seed`` and the topic's position; with ``boot_only_without_se`` it runs
    only for statistics that have no analytic SE. ``interval="t"``: t-based analytic
    intervals for the statistics whose reference (irrCAC, Gwet) uses them.
    """
    cc = stat.chance_corrected
    W = topic_weights(pat, item_topic, topics)
    P = len(pat.freq)
    vals = stat.compute(pat.counts, W, values) if P else np.full(topics, np.nan)
    ses = stat.se(pat.counts, W, values) if (P and stat.se is not None) else None
    pa_pe = stat.parts(pat.counts, W, values) if (P and stat.parts is not None) else None
    judged = W.sum(axis=1)
    pairable = W[:, pat.m >= 2].sum(axis=1).astype(int)
    boot = replicates > 0 and not (boot_only_without_se and stat.se is not None)
    out = []
    for t in range(topics):
        n = int(pairable[t])
        why = _pairable_reason(n)
        if why is None and stat.name == "krippendorff_alpha_ratio" and values.min() < 0:
            why = "the ratio metric needs grades >= 0"
        if why is None and not np.isfinite(vals[t]):
            why = stat.undefined_reason
        if why:
            out.append(undefined(stat.name, n, why, cc))
            continue
        v = float(vals[t])
        df_n = float(pairable[t] if stat.t_pairable else judged[t])
        analytic = (_analytic(stat, float(ses[t]), v, level, interval, df_n)
                    if ses is not None else None)
        b = None
        if boot:
            used = np.flatnonzero(W[t])
            C = pat.counts[used]
            b = ci.bootstrap_weights(partial(_on, stat.compute, C, values), W[t, used],
                                     replicates, seed + t, level)
        pa: float | None = None
        pe: float | None = None
        if pa_pe is not None:
            pa, pe = float(pa_pe[0][t]), float(pa_pe[1][t])
        elif stat.name == "percent_agreement":
            pa = v
        out.append(defined(stat.name, v, n, cc, analytic=analytic, bootstrap=b, pa=pa, pe=pe))
    return out


