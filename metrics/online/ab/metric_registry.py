"""The A/B metrics: what a metric is (:class:`Metric`), relkit's own, and their registry.

A metric is a pair of SQL expressions over one impression's rows (a value and its
denominator), summed per user by :mod:`.users`; a user adds their own with
``METRICS.register`` (docs/ab.md). The definitions are apart from the per-user
aggregation so that what each metric means reads in one place.

relkit's own, per impression *q*:

- ``ctr@1``: the result at rank 1 was clicked;
- ``first_page_ctr``: any result at ranks 1..10 of page 1 was clicked;
- ``abandonment``: no result was clicked;
- ``good_click_rate``: some clicked result was dwelt on for at least ``good_dwell``
  seconds;
- ``time_to_first_click``: seconds from the impression (``ts``) to its first click
  (``click_ts``), over clicked impressions only;
- ``sessions_per_user``: distinct sessions of the user (a per-user count, denominator 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, get_args

from relkit.metrics.core.registry import Registry
from relkit.metrics.online.ab.errors import ABError

# The units a metric's value is defined at, and the units an analysis may run at
# (``relkit ab analyze --unit``): a value per impression (a query), summed per user and
# analysed as a ratio of the users' sums (or naively per impression), or one value per
# user (a per-user count, denominator 1).
Unit = Literal["user", "impression"]
UNITS: tuple[str, ...] = get_args(Unit)


class Metric(Protocol):
    """What ``relkit ab`` needs of a query metric: a ratio of per-user sums.

    Like tea-tasting's aggregated metrics (``MetricBaseAggregated.aggr_cols``), a metric
    declares what to aggregate and relkit aggregates it in the engine: ``value`` and
    ``denominator`` are SQL expressions over one impression's rows (the log's canonical
    columns, ``clicked``, ``rank``, ``dwell_s``...; ``{page1}``, ``{good_dwell}``,
    ``{click_s}`` and ``{ts_s}`` are filled in), summed per user; the effect is the
    ratio of the arms' sums with the delta method (Deng et al., KDD 2018). ``unit`` is
    what one value is of, one of :data:`UNITS`: ``"impression"`` for those, ``"user"``
    for a per-user count (``sessions_per_user``; no SQL of its own). Register one
    in :data:`METRICS` and ``-m NAME`` finds it, without editing relkit::

        METRICS.register(MetricDef(name="deep_click_rate", description="...",
                                   value="max(CASE WHEN rank > 3 AND clicked > 0 "
                                         "THEN 1 ELSE 0 END)", denominator="1", needs=()))
    """

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def value(self) -> str: ...
    @property
    def denominator(self) -> str: ...
    @property
    def needs(self) -> tuple[str, ...]: ...
    @property
    def binary(self) -> bool: ...
    @property
    def unit(self) -> str: ...


@dataclass(frozen=True, kw_only=True)
class MetricDef:
    """One query metric: its per-impression SQL value and what it needs (a :class:`Metric`).

    ``unit`` is one of :data:`UNITS`. ``per_user=True``, the flag this class had before
    ``unit``, still means ``unit="user"``, so a metric declared that way keeps working;
    after construction both are set and agree.
    """

    name: str
    description: str
    value: str            # per-impression value (SQL over the impression's rows)
    denominator: str      # per-impression denominator (1, or 1 when clicked)
    needs: tuple[str, ...] = ()
    binary: bool = True   # a 0/1 value per impression (two-proportion z per impression)
    unit: str = ""        # "user": a per-user count, not a ratio over queries; "" from per_user
    per_user: bool | None = None  # the older declaration of unit="user"

    def __post_init__(self) -> None:
        unit = self.unit or ("user" if self.per_user else "impression")
        if unit not in UNITS:
            raise ABError(f"metric {self.name!r}: unit must be one of {', '.join(UNITS)}; "
                          f"got {self.unit!r}")
        if self.per_user is not None and self.per_user != (unit == "user"):
            raise ABError(f"metric {self.name!r}: per_user={self.per_user} contradicts "
                          f"unit={unit!r}")
        object.__setattr__(self, "unit", unit)
        object.__setattr__(self, "per_user", unit == "user")


def per_user(metric: Metric) -> bool:
    """Whether ``metric`` is one value per user (its :attr:`Metric.unit`).

    A metric written to the protocol before it had ``unit`` declared a ``per_user``
    flag instead; it is read as the unit it meant, so a user's own metric keeps working.
    """
    unit = getattr(metric, "unit", None)
    if unit is None:
        return bool(getattr(metric, "per_user", False))
    if unit not in UNITS:  # a typo must not quietly mean "per impression"
        raise ABError(f"metric {getattr(metric, 'name', metric)!r}: unit must be one of "
                      f"{', '.join(UNITS)}; got {unit!r}")
    return bool(unit == "user")


_CLICK = "clicked > 0"
# The registry of A/B metrics: relkit's own below, a user's added with METRICS.register.
# Names are found case-insensitively (``-m CTR@1``), as before the registry.
METRICS: Registry[Metric] = Registry("metric", ABError, ignore_case=True)
METRICS.register(
    MetricDef(name="ctr@1", description="share of queries whose rank-1 result was clicked",
              value=f"max(CASE WHEN rank = 1 AND {_CLICK} THEN 1 ELSE 0 END)",
              denominator="1"),
    MetricDef(name="first_page_ctr",
              description="share of queries with a click in ranks 1..10 of page 1",
              value=f"max(CASE WHEN rank <= 10 AND {{page1}} AND {_CLICK} THEN 1 ELSE 0 END)",
              denominator="1"),
    MetricDef(name="abandonment", description="share of queries with no click at all",
              value=f"1 - max(CASE WHEN {_CLICK} THEN 1 ELSE 0 END)", denominator="1"),
    MetricDef(name="good_click_rate",
              description="share of queries with a click dwelt on >= the good dwell",
              value=f"max(CASE WHEN {_CLICK} AND dwell_s >= {{good_dwell}} THEN 1 ELSE 0 END)",
              denominator="1", needs=("dwell_s",)),
    MetricDef(name="time_to_first_click",
              description="seconds from the query to its first click (clicked queries only)",
              value=f"min(CASE WHEN {_CLICK} THEN {{click_s}} - {{ts_s}} END)",
              denominator=f"max(CASE WHEN {_CLICK} AND click_ts IS NOT NULL THEN 1 ELSE 0 END)",
              needs=("ts", "click_ts"), binary=False),
    MetricDef(name="sessions_per_user", description="distinct sessions per user",
              value="", denominator="", needs=("session_id",), binary=False, unit="user"),
)
