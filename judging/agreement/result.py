"""One statistic's outcome: a value with its intervals, or an explicit "undefined".

Degenerate inputs (everyone used one grade, one item, no pair judged twice)
give ``status="undefined"`` and a reason: never NaN, never a silent 1.0.
"""

from __future__ import annotations

import gc
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal

Status = Literal["ok", "undefined"]

# Landis & Koch (1977), "The measurement of observer agreement for categorical
# data", Biometrics 33(1):159-174, p. 165. Upper bounds, inclusive.
BANDS: tuple[tuple[float, str], ...] = (
    (0.0, "poor"), (0.20, "slight"), (0.40, "fair"), (0.60, "moderate"),
    (0.80, "substantial"), (1.0, "almost perfect"))


def landis_koch(value: float | None) -> str | None:
    """The Landis & Koch label of a chance-corrected coefficient (a label, not a test)."""
    if value is None:
        return None
    if value < 0:
        return "poor"
    for upper, label in BANDS[1:]:
        if value <= upper + 1e-12:
            return label
    return BANDS[-1][1]


@dataclass(frozen=True)
class Interval:
    """A confidence interval; ``method`` is ``analytic`` or ``bootstrap``."""

    method: str
    low: float
    high: float
    level: float = 0.95
    se: float | None = None            # analytic standard error
    replicates: int | None = None      # bootstrap: replicates with a defined value
    seed: int | None = None
    # analytic: the reference distribution of the interval ("normal", "t" with ``df``
    # degrees of freedom, as irrCAC/Gwet use for their coefficients, or "F" for the ICC)
    distribution: str = "normal"
    df: float | None = None


@dataclass(frozen=True)
class Stat:
    """A statistic's value, its intervals and whether it is defined.

    ``chance_corrected`` statistics (kappa, pi, alpha, AC1) get a Landis &
    Koch band; proportions (percent agreement, specific agreement) do not.
    """

    name: str
    value: float | None
    n: int                              # items (or pairable items) it was computed on
    status: Status = "ok"
    reason: str = ""
    analytic: Interval | None = None
    bootstrap: Interval | None = None
    chance_corrected: bool = True
    pa: float | None = None             # observed agreement P_a of a chance-corrected coefficient
    pe: float | None = None             # its chance agreement P_e (None: no chance term)

    @property
    def band(self) -> str | None:
        return landis_koch(self.value) if self.chance_corrected else None

    def with_intervals(self, analytic: Interval | None = None,
                       bootstrap: Interval | None = None) -> Stat:
        return replace(self, analytic=analytic or self.analytic,
                       bootstrap=bootstrap or self.bootstrap)

    def with_parts(self, pa: float | None, pe: float | None) -> Stat:
        """The same statistic with its observed and chance agreement (NaN: not given)."""
        return replace(self, pa=_part(pa), pe=_part(pe))

    def to_dict(self) -> dict[str, Any]:
        a, b = self.analytic, self.bootstrap
        return {"value": self.value, "n": self.n, "status": self.status,
                "reason": self.reason or None, "band": self.band,
                "pa": self.pa, "pe": self.pe,
                "analytic": None if a is None else _interval_dict(a),
                "bootstrap": None if b is None else _interval_dict(b)}


def _interval_dict(i: Interval) -> dict[str, Any]:
    """An interval as ``--format json`` writes it (keys in this order)."""
    d: dict[str, Any] = {"low": i.low, "high": i.high, "level": i.level}
    if i.se is not None:
        d["se"] = i.se
    if i.method == "analytic":
        d["distribution"] = i.distribution
        if i.df is not None:
            d["df"] = i.df
    if i.replicates is not None:
        d["replicates"] = i.replicates
        d["seed"] = i.seed
    return d


_gc_lock = threading.Lock()
_gc_depth = 0          # pauses in progress (nested or in several threads)
_gc_was_on = True      # the collector's state when the first of them began


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a report is computed and its records
    built (the statistics, their intervals, bootstraps included, and the JSON's dicts).

    Crowd data makes about a million :class:`Stat` and interval records and as many
    dictionaries for the JSON: none of them forms a reference cycle, so reference
    counting frees them all, but each collection the allocations trigger walks every
    live container again (15 of 38 CPU-s of ``relkit agree`` on the TREC 2010 crowd
    file). The collector is process-wide: pauses nest and may overlap in threads, and
    it is back on when the last one ends, if it was on when the first began (also on an
    error). Code outside relkit that switches it meanwhile is not tracked.
    """
    global _gc_depth, _gc_was_on
    with _gc_lock:
        if _gc_depth == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _gc_depth += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth -= 1
            if _gc_depth == 0 and _gc_was_on:
                gc.enable()


def undefined(name: str, n: int, reason: str, chance_corrected: bool = True) -> Stat:
    return Stat(name, None, n, "undefined", reason, chance_corrected=chance_corrected)


def _part(x: float | None) -> float | None:
    """P_a or P_e as a Stat keeps it: a float, or None when not given (None or NaN)."""
    return float(x) if x is not None and math.isfinite(x) else None


def defined(name: str, value: float, n: int, chance_corrected: bool = True, *,
            analytic: Interval | None = None, bootstrap: Interval | None = None,
            pa: float | None = None, pe: float | None = None) -> Stat:
    """A value that must be finite: a NaN here is a bug upstream, not a result.

    Built once with its final fields (intervals, P_a and P_e; a NaN part is None):
    crowd data makes a million of these, and copying each one through
    :meth:`Stat.with_intervals` / :meth:`Stat.with_parts` cost more than computing them.
    """
    if not math.isfinite(value):
        raise ArithmeticError(f"{name} computed a non-finite value {value!r}")
    return Stat(name, float(value), n, "ok", "", analytic, bootstrap, chance_corrected,
                _part(pa), _part(pe))
