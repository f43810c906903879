"""The looks of a running experiment: one metric's effect at successive cut-off times.

Each look re-aggregates the log up to its cut-off (units exposed by then, their
impressions by then) and tests the effect with a group-sequential bound
(:func:`~.sequential.obrien_fleming_bounds`) or an always-valid mSPRT p-value
(:func:`~.sequential.msprt`). The same looks give the HTML report's cumulative effect.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from relkit.metrics.online.ab.analysis import arms_of
from relkit.metrics.online.ab.effect import Arm, Effect, ratio_effect
from relkit.metrics.online.ab.errors import ABError, ParameterError, check_open_unit
from relkit.metrics.online.ab.sequential import msprt, obf_spending, obrien_fleming_bounds
from relkit.metrics.online.ab.users import Names, get_metric, user_table

if TYPE_CHECKING:
    import duckdb

Method = Literal["obf", "msprt"]
METHODS: tuple[str, ...] = get_args(Method)


@dataclass(frozen=True, kw_only=True)
class Look:
    """One look: its cut-off (seconds), units so far, the effect and the decision."""

    index: int
    cutoff: float
    effect: Effect
    fraction: float = float("nan")
    bound: float = float("nan")
    alpha_spent: float = float("nan")
    p: float = float("nan")          # mSPRT's always-valid p
    low: float = float("nan")        # mSPRT's always-valid interval
    high: float = float("nan")
    reject: bool = False


def cutoffs(con: duckdb.DuckDBPyConnection, log: str, looks: int) -> list[float]:
    """``looks`` equally spaced cut-offs from the first impression to the last (``ts``);
    :class:`ABError` when the log has no times."""
    from relkit.metrics.online.ab.users import column_types

    if "ts" not in column_types(con, log):
        raise ABError("the log has no ts column (map one with --map ts=COLUMN): the looks "
                      "cut the log by the time each page was shown")
    if looks < 1:
        raise ParameterError("looks", f"looks must be at least 1; got {looks}")
    row = con.execute(f"SELECT min(ts), max(ts) FROM {log}").fetchone()
    if row is None or row[0] is None:
        raise ABError("the log has no impression times (ts): cannot cut it into looks")
    lo, hi = float(row[0]), float(row[1])
    return [lo + (hi - lo) * (k + 1) / looks for k in range(looks)]


def effects_over_time(con: duckdb.DuckDBPyConnection, log: str, assign: str, metric: str,
                      times: Sequence[float], *, control: str | None = None,
                      good_dwell: float = 30.0, files: Names | None = None,
                      progress: Callable[[int], None] | None = None
                      ) -> list[tuple[float, Effect]]:
    """The metric's delta-method effect (first treatment arm) on the data up to each time.

    ``progress(k)`` is called after the k-th time; ``files`` names the inputs in errors.
    """
    m = get_metric(metric)
    out = []
    for t in times:
        table = user_table(con, log, assign, [m], good_dwell=good_dwell,
                           until=f"{float(t)!r}::DOUBLE", files=files)
        ctrl, treats = arms_of(table, control)
        variant = np.asarray(table.variant)
        c, tr = variant == ctrl, variant == treats[0]
        eff = ratio_effect(Arm(table.num[m.name][c], table.den[m.name][c]),
                           Arm(table.num[m.name][tr], table.den[m.name][tr]))
        out.append((float(t), eff))
        if progress is not None:
            progress(len(out))
    return out


def monitor(over_time: Sequence[tuple[float, Effect]], *, method: Method = "obf",
            alpha: float = 0.05, planned_units: int | None = None,
            tau: float | None = None) -> list[Look]:
    """Test each look: O'Brien–Fleming-type bounds or mSPRT always-valid p-values.

    The information of a look is :math:`1/SE^2` of its delta, and its information
    fraction that over the planned information: the last look's, scaled by
    ``planned_units`` over the last look's units when given (default: the last look is
    the final analysis and spends all of alpha). ``tau``, the mSPRT mixture's scale in
    the metric's units, defaults to 1% of the control mean at the last look (a prior
    centred on changes of about that size).
    """
    check_open_unit("alpha", alpha)
    if planned_units is not None and planned_units < 1:
        raise ParameterError("planned-users", f"planned users must be at least 1; got "
                             f"{planned_units}")
    if tau is not None and not (tau > 0 and math.isfinite(tau)):
        raise ParameterError("tau", f"tau must be a positive number; got {tau}")
    if not over_time:
        return []
    info = [1 / e.se ** 2 if e.se > 0 else 0.0 for _, e in over_time]
    units = over_time[-1][1].n_control + over_time[-1][1].n_treatment
    planned = info[-1] * (planned_units / units if planned_units else 1.0)
    looks: list[Look] = []
    if method == "obf":
        # Only looks with new information count (a look with no more information than
        # the one before keeps that one's bound).
        fractions = [min(i / planned, 1.0) for i in info]
        keep = [i for i, f in enumerate(fractions)
                if f > 0 and (i == 0 or f > max(fractions[:i]))]
        bounds = obrien_fleming_bounds([fractions[i] for i in keep], alpha)
        bound_of = dict(zip(keep, bounds, strict=True))
        crossed = False
        last = math.inf
        for i, (t, e) in enumerate(over_time):
            b = bound_of.get(i, last)
            last = b
            crossed = crossed or abs(e.statistic) >= b
            looks.append(Look(index=i + 1, cutoff=t, effect=e, fraction=fractions[i], bound=b,
                              alpha_spent=obf_spending(fractions[i], alpha), reject=crossed))
        return looks
    scale = tau if tau is not None else 0.01 * abs(over_time[-1][1].control)
    if not scale > 0:
        raise ABError("cannot choose the mSPRT scale tau from a zero control mean; give --tau")
    res = msprt([e.delta for _, e in over_time], [e.se ** 2 for _, e in over_time], scale,
                alpha)
    for i, ((t, e), r) in enumerate(zip(over_time, res, strict=True)):
        looks.append(Look(index=i + 1, cutoff=t, effect=e, p=r.p, low=r.low, high=r.high,
                          reject=r.p <= alpha))
    return looks
