"""The statistics that need to know which assessor gave each grade: Conger's kappa and ICC.

The pattern statistics of :mod:`.multi` see only each item's grade counts;
these take the item x assessor code matrix and turn :mod:`.conger` and
:mod:`.icc` results into :class:`~relkit.judging.agreement.result.Stat` rows.
"""

from __future__ import annotations

import numpy as np

from relkit.judging.agreement import ci
from relkit.judging.agreement.conger import conger
from relkit.judging.agreement.icc import FORMS, complete, icc
from relkit.judging.agreement.result import Interval, Stat, defined, undefined
from relkit.judging.agreement.weights import matrix

CONGER = {"conger_kappa": "identity", "conger_kappa_linear": "linear",
          "conger_kappa_quadratic": "quadratic", "conger_kappa_ordinal": "ordinal"}
ICC_NAMES = {f: f"icc_{f[3]}_{'k' if f.endswith('k') else '1'}" for f in FORMS}


def conger_stats(codes: np.ndarray, values: np.ndarray, *, level: float = 0.95,
                 interval: str = "normal", names: tuple[str, ...] = tuple(CONGER)
                 ) -> dict[str, Stat]:
    """Conger's kappa (unweighted and weighted) with Gwet's SE; no bootstrap (the pattern
    bootstrap of :mod:`.ci` forgets who judged what)."""
    out: dict[str, Stat] = {}
    for name in names:
        r = conger(codes, matrix(values, CONGER[name]))
        if r.pairable < 2:
            why = ("no item was judged by two assessors" if r.pairable == 0 else
                   "a single item was judged by two assessors")
            out[name] = undefined(name, r.pairable, why)
            continue
        if not np.isfinite(r.value):
            out[name] = undefined(name, r.pairable, "chance agreement is 1")
            continue
        iv = (ci.analytic(r.value, r.se, level, (-np.inf, 1.0), interval, r.n - 1)
              if np.isfinite(r.se) else None)
        out[name] = defined(name, r.value, r.pairable, analytic=iv, pa=r.pa, pe=r.pe)
    return out


def icc_stats(codes: np.ndarray, values: np.ndarray, *, level: float = 0.95
              ) -> tuple[dict[str, Stat], int]:
    """The six ICC forms on the items every assessor judged, and how many items were dropped.

    ICC is computed on grade *values* (the declared scale's numbers), so it
    treats the scale as interval. Its intervals come from the F distribution
    whatever ``--interval`` says (Shrout & Fleiss 1979).
    """
    rows, dropped = complete(codes)
    x = np.asarray(values, dtype=np.float64)[codes[rows].astype(np.int64)]
    k = codes.shape[1]
    res = icc(x, level)
    out: dict[str, Stat] = {}
    for form, name in ICC_NAMES.items():
        r = res[form]
        if len(rows) < 2:
            out[name] = undefined(name, len(rows), f"fewer than two items were judged by all "
                                  f"{k} assessors ({dropped:,} items judged by some)",
                                  chance_corrected=False)
        elif not np.isfinite(r.value):
            out[name] = undefined(name, len(rows), "no variance between items (or the ANOVA "
                                  "estimate of its denominator is not positive)",
                                  chance_corrected=False)
        else:
            iv = (Interval("analytic", r.low, r.high, level, distribution="F", df=r.df2)
                  if np.isfinite(r.low) and np.isfinite(r.high) else None)
            out[name] = defined(name, r.value, len(rows), chance_corrected=False, analytic=iv)
    return out, dropped
