r"""Agreement between two assessors, from their confusion table.

Every function takes a batch of tables ``t`` of shape ``(..., k, k)``
(``t[i, j]``: items the first assessor put in grade ``i`` and the second in
``j``, over the declared scale's grades, used or not) and returns one value per
table; NaN marks "undefined" internally and becomes an explicit
:class:`~relkit.judging.agreement.result.Stat` with a reason in :func:`measure`.
Batches make the bootstrap a single vectorised call (replicate tables are
multinomial draws, see :mod:`relkit.judging.agreement.ci`).

Statistics are small declarative objects in :data:`REGISTRY`; the coefficients and their
standard errors are :mod:`.pair_coefficients` (every name importable from here too).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relkit.judging.agreement.frame import AgreementError
from relkit.judging.agreement.pair_coefficients import WEIGHTS as WEIGHTS
from relkit.judging.agreement.pair_coefficients import Weights as Weights
from relkit.judging.agreement.pair_coefficients import (
    _cohen,
    _diff_se,
    _kappa_se,
    _pabak_se,
    _parts_cohen,
    _parts_pabak,
    _parts_scott,
    _prop_se,
    _scott_w,
    _scott_w_se,
    _specific_se,
)
from relkit.judging.agreement.pair_coefficients import bias_index as bias_index
from relkit.judging.agreement.pair_coefficients import cohen_kappa as cohen_kappa
from relkit.judging.agreement.pair_coefficients import confusion as confusion
from relkit.judging.agreement.pair_coefficients import kappa_parts as kappa_parts
from relkit.judging.agreement.pair_coefficients import kappa_se as kappa_se
from relkit.judging.agreement.pair_coefficients import negative_agreement as negative_agreement
from relkit.judging.agreement.pair_coefficients import pabak as pabak
from relkit.judging.agreement.pair_coefficients import percent_agreement as percent_agreement
from relkit.judging.agreement.pair_coefficients import positive_agreement as positive_agreement
from relkit.judging.agreement.pair_coefficients import prevalence_index as prevalence_index
from relkit.judging.agreement.pair_coefficients import scott_parts as scott_parts
from relkit.judging.agreement.pair_coefficients import scott_pi as scott_pi
from relkit.judging.agreement.pair_coefficients import scott_pi_se as scott_pi_se
from relkit.judging.agreement.pair_coefficients import weight_matrix as weight_matrix
from relkit.judging.agreement.result import Interval, Stat, defined, undefined
from relkit.metrics.core.registry import Registry


@dataclass(frozen=True)
class PairStatistic:
    """A two-assessor statistic: its function, when it is undefined, its analytic SE."""

    name: str
    compute: Callable[[np.ndarray, np.ndarray], np.ndarray]
    undefined_reason: str
    se: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    chance_corrected: bool = True
    binary_only: bool = False
    bounds: tuple[float, float] = (-1.0, 1.0)   # analytic intervals are clipped to these
    # (P_a, P_e) of a chance-corrected coefficient, per table
    parts: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]] | None = None
    t_reference: bool = False           # its reference (irrCAC) gives a t(n - 1) interval


_ONE_GRADE = "chance agreement is 1 (both assessors used one and the same grade)"
REGISTRY: Registry[PairStatistic] = Registry("pairwise statistic", AgreementError)
REGISTRY.register(
    # irrCAC's table functions (pa2, cohen, bp) give these a t(n - 1) interval on the same SE
    PairStatistic("percent_agreement", percent_agreement, "no items", _prop_se,
                  chance_corrected=False, bounds=(0.0, 1.0), t_reference=True),
    PairStatistic("cohen_kappa", cohen_kappa, _ONE_GRADE, _kappa_se("none"),
                  parts=_parts_cohen("none"), t_reference=True),
    PairStatistic("cohen_kappa_linear", _cohen("linear"), _ONE_GRADE, _kappa_se("linear"),
                  parts=_parts_cohen("linear"), t_reference=True),
    PairStatistic("cohen_kappa_quadratic", _cohen("quadratic"), _ONE_GRADE,
                  _kappa_se("quadratic"), parts=_parts_cohen("quadratic"), t_reference=True),
    PairStatistic("scott_pi", scott_pi, _ONE_GRADE, scott_pi_se, parts=_parts_scott("identity"),
                  t_reference=True),
    PairStatistic("scott_pi_linear", _scott_w("linear"), _ONE_GRADE, _scott_w_se("linear"),
                  parts=_parts_scott("linear"), t_reference=True),
    PairStatistic("scott_pi_quadratic", _scott_w("quadratic"), _ONE_GRADE,
                  _scott_w_se("quadratic"), parts=_parts_scott("quadratic"), t_reference=True),
    PairStatistic("pabak", pabak, "no items, or a scale of one grade (k = 1: no chance "
                  "agreement to adjust for)", _pabak_se, parts=_parts_pabak, t_reference=True),
    PairStatistic("prevalence_index", prevalence_index, "no items", _diff_se((1, 1), (0, 0)),
                  chance_corrected=False, binary_only=True),
    PairStatistic("bias_index", bias_index, "no items", _diff_se((1, 0), (0, 1)),
                  chance_corrected=False, binary_only=True),
    PairStatistic("positive_agreement", positive_agreement,
                  "neither assessor judged any item relevant", _specific_se(1),
                  chance_corrected=False, binary_only=True, bounds=(0.0, 1.0)),
    PairStatistic("negative_agreement", negative_agreement,
                  "both assessors judged every item relevant", _specific_se(0),
                  chance_corrected=False, binary_only=True, bounds=(0.0, 1.0)),
)


def get(name: str) -> PairStatistic:
    """A statistic by name; the error suggests close names."""
    return REGISTRY.lookup(name)


def measure(stat: PairStatistic, t: np.ndarray, values: np.ndarray, *, level: float = 0.95,
            replicates: int = 1000, seed: int = 0, interval: str = "normal") -> Stat:
    """``stat`` on one table, with its analytic interval (if any) and a bootstrap one."""
    return measure_many(stat, np.asarray(t)[None], values, level=level, replicates=replicates,
                        seed=seed, interval=interval)[0]


def measure_many(stat: PairStatistic, tables: np.ndarray, values: np.ndarray, *,
                 level: float = 0.95, replicates: int = 1000, seed: int = 0,
                 interval: str = "normal") -> list[Stat]:
    """``stat`` on each of a stack of tables (n, k, k): values and SEs in one call.

    ``interval="t"``: a t(n - 1) analytic interval for statistics whose reference uses
    one (``t_reference``), the normal one for the others.
    """
    from relkit.judging.agreement import ci

    tables = np.asarray(tables)
    ns = tables.sum(axis=(-2, -1)).astype(int)
    vals = stat.compute(tables, values)
    ses = stat.se(tables, values) if stat.se is not None else None
    parts = stat.parts(tables, values) if stat.parts is not None else None
    cc = stat.chance_corrected
    # the normal interval's ends for the whole stack at its first use (a crowd has 10^5
    # tables); the t interval, asked for by name, stays per table
    ends: tuple[list[float], list[float]] | None = None
    low_bound, high_bound = stat.bounds
    # Python floats once for the stack (each the float() of its element)
    vl = np.asarray(vals, dtype=np.float64).tolist()
    sl = None if ses is None else np.asarray(ses, dtype=np.float64).tolist()
    pl = None if parts is None else [np.asarray(p, dtype=np.float64).tolist() for p in parts]
    out = []
    for i, n in enumerate(ns.tolist()):
        if n == 0:
            out.append(undefined(stat.name, 0, "no item was judged by both assessors", cc))
            continue
        if n == 1 and cc:
            out.append(undefined(stat.name, 1, "a single item was judged by both assessors", cc))
            continue
        v = vl[i]
        if not math.isfinite(v):
            out.append(undefined(stat.name, n, stat.undefined_reason, cc))
            continue
        analytic = None
        if ses is not None and sl is not None and math.isfinite(sl[i]):
            df = n - 1 if stat.t_reference else None
            if interval == "t" and df is not None and df >= 1:
                analytic = ci.analytic(v, sl[i], level, stat.bounds, interval, df)
            else:       # ci.normal's interval
                if ends is None:
                    ends = ci.normal_ends(vals, ses, level)
                analytic = Interval("analytic", max(ends[0][i], low_bound),
                                    min(ends[1][i], high_bound), level, se=sl[i])
        boot: Interval | None = None
        if replicates > 0:
            boot = ci.bootstrap_table(lambda b: stat.compute(b, values), tables[i], replicates,
                                      seed, level)
        pa: float | None = None
        pe: float | None = None
        if pl is not None:
            pa, pe = pl[0][i], pl[1][i]
        elif stat.name == "percent_agreement":
            pa = v
        out.append(defined(stat.name, v, n, cc, analytic=analytic, bootstrap=boot,
                           pa=pa, pe=pe))
    return out
