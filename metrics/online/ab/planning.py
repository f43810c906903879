"""``relkit ab power``'s arithmetic: from the options to a row of the power table."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from relkit.metrics.core.options import OptionError
from relkit.metrics.online.ab.errors import ABError
from relkit.metrics.online.ab.power import mde_t, n_prop, n_t, power_prop, power_t
from relkit.metrics.online.ab.users import get_metric, per_user

if TYPE_CHECKING:
    import duckdb

# n_exact: the root of the power equation (R's n = 22.02); n_per_arm: the whole number
# of users to plan (23), n_total twice that.
HEADER = ["metric", "baseline", "mde", "mde_relative", "sd", "alpha", "power", "n_exact",
          "n_per_arm", "n_total", "method"]
# The option of each parameter a power function may refuse (p1 is the baseline rate,
# p2 the baseline plus the effect).
_OPTION = {"alpha": "--alpha", "power": "--power", "sd": "--sd", "mde": "--mde",
           "n": "--n", "p1": "--baseline", "p2": "--mde"}


def parse_mde(text: str, baseline: float) -> float:
    """``"1%"`` is relative to the baseline (0.01 x baseline), ``"0.004"`` absolute."""
    t = text.strip()
    try:
        value = float(t[:-1]) / 100 * baseline if t.endswith("%") else float(t)
    except ValueError:
        raise OptionError("--mde", f"expected a number or a percentage (1%); got {text!r}")\
            from None
    if not value or not math.isfinite(value):
        raise OptionError("--mde", f"the effect must be a non-zero number; got {text!r}")
    return abs(value)


def log_moments(con: duckdb.DuckDBPyConnection, log: str, assign: str, metric: str,
                name: str = "the log") -> tuple[float, float]:
    """The metric's ratio and per-user delta-method SD over all users of a log (called
    ``name`` in messages); :class:`ABError` when the log cannot give them."""
    from relkit.metrics.online.ab.moments import ratio, ratio_var
    from relkit.metrics.online.ab.users import Names, user_table

    m = get_metric(metric)
    table = user_table(con, log, assign, [m], files=Names(log=name))
    x, y = table.num[m.name], table.den[m.name]
    users = int((y > 0).sum())
    if users < 2:
        raise ABError(f"{name}: {users} user(s) with a value of {m.name}: need at least 2 "
                      "for a standard deviation")
    base, var = ratio(x, y), ratio_var(x, y)
    if not var > 0:
        raise ABError(f"{name}: every user has the same {m.name}: its standard deviation "
                      "is 0 (give --sd)")
    return base, math.sqrt(var)


def plan(metric: str, *, baseline: float | None, mde: str | None, n: int | None,
         power: float = 0.8, alpha: float = 0.05, sd: float | None = None,
         con: duckdb.DuckDBPyConnection | None = None, log: str | None = None,
         assign: str | None = None, log_name: str = "the log"
         ) -> tuple[list[str], list[list[str | int | float | None]]]:
    """The power table: n per arm for the MDE, or the power (and MDE) at ``n``.

    With a log, the SD is the per-user delta-method SD of the ratio metric and the test
    a t test (R's ``power.t.test``); without, a rate metric is a proportion per user
    (``power.prop.test``), anything else needs ``sd``. A parameter out of its range is
    an :class:`OptionError` naming its option.
    """
    from relkit.metrics.online.ab.errors import ParameterError

    try:
        return _plan(metric, baseline=baseline, mde=mde, n=n, power=power, alpha=alpha,
                     sd=sd, con=con, log=log, assign=assign, log_name=log_name)
    except ParameterError as exc:
        raise OptionError(_OPTION.get(exc.param, f"--{exc.param}"), str(exc)) from None


def _plan(metric: str, *, baseline: float | None, mde: str | None, n: int | None,
          power: float, alpha: float, sd: float | None,
          con: duckdb.DuckDBPyConnection | None, log: str | None, assign: str | None,
          log_name: str) -> tuple[list[str], list[list[str | int | float | None]]]:
    try:
        m = get_metric(metric)
    except ABError as exc:
        raise OptionError("--metric", str(exc)) from None
    if con is not None and log is not None and assign is not None:
        base_log, sd_log = log_moments(con, log, assign, m.name, log_name)
        baseline = base_log if baseline is None else baseline
        sd = sd_log if sd is None else sd
    if baseline is None:
        raise OptionError("--baseline", "needed (or --from-log to take it from a log)")
    if mde is None and n is None:
        raise OptionError("--mde", "give --mde (for the n needed) or --n (for the power)")
    effect = parse_mde(mde, baseline) if mde is not None else None
    rel = effect / baseline if effect is not None and baseline else None
    row: list[str | int | float | None]
    if sd is not None:
        method = "t test, delta-method SD" if log else "t test"
        if n is None:
            assert effect is not None
            need = n_t(power, effect, sd, alpha)
            row = [m.name, baseline, effect, rel, sd, alpha, power, need, math.ceil(need),
                   2 * math.ceil(need), method]
        else:
            found = mde_t(n, power, sd, alpha)
            pw = power_t(n, effect, sd, alpha) if effect is not None else power
            row = [m.name, baseline, effect if effect is not None else found,
                   (effect if effect is not None else found) / baseline if baseline else None,
                   sd, alpha, pw, n, n, 2 * n, method]
        return HEADER, [row]
    if not m.binary or per_user(m):
        raise OptionError("--sd", f"{m.name} is not a rate: give --sd or --from-log")
    if not 0 < baseline < 1:
        raise OptionError("--baseline", f"a rate must be in (0, 1); got {baseline}")
    if effect is None:
        raise OptionError("--mde", "needed for a rate metric without --sd")
    p2 = baseline + effect
    if not 0 < p2 < 1:
        raise OptionError("--mde", f"baseline + mde = {p2} is not a rate")
    if n is None:
        need = n_prop(power, baseline, p2, alpha)
        row = [m.name, baseline, effect, rel, math.sqrt(baseline * (1 - baseline)), alpha,
               power, need, math.ceil(need), 2 * math.ceil(need), "two proportions"]
    else:
        row = [m.name, baseline, effect, rel, math.sqrt(baseline * (1 - baseline)), alpha,
               power_prop(n, baseline, p2, alpha), n, n, 2 * n, "two proportions"]
    return HEADER, [row]
