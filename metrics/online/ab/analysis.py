"""An A/B analysis: SRM first, then each metric's effect, then the correction.

:func:`analyze` takes the per-user table of :mod:`.users` and returns one
:class:`MetricRow` per (metric, treatment arm), ready for a table or the HTML report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

import numpy as np

from relkit.metrics.online.ab.effect import Arm, Effect, Relative, bootstrap_effect, ratio_effect
from relkit.metrics.online.ab.errors import ABError, ParameterError, check_open_unit
from relkit.metrics.online.ab.plain import proportion_z, welch_from_sums
from relkit.metrics.online.ab.srm import SRMResult, srm_test
from relkit.metrics.online.ab.users import UNITS as UNITS  # importable here, as before
from relkit.metrics.online.ab.users import Unit, UserTable, get_metric, per_user

Variance = Literal["delta", "bootstrap"]
VARIANCES: tuple[str, ...] = get_args(Variance)

# The flag a per-impression row carries into every output.
NAIVE_FLAG = "per-impression test on user-randomised data: SE too small"


@dataclass(frozen=True, kw_only=True)
class MetricRow:
    """One metric's comparison of one treatment arm with control."""

    metric: str
    control_arm: str
    treatment_arm: str
    effect: Effect
    test: str
    p: float
    p_adjusted: float = float("nan")
    flag: str = ""


@dataclass
class Analysis:
    """The SRM check and the metric rows of one analysis."""

    srm: SRMResult | None
    rows: list[MetricRow] = field(default_factory=list)


def arms_of(table: UserTable, control: str | None = None) -> tuple[str, list[str]]:
    """The control arm (``control``, else one called "control", else the first by name)
    and the treatment arms."""
    names = sorted(set(table.variant))
    if len(names) < 2:
        raise ABError(f"need at least two arms; the assignment has {names}")
    if control is None:
        control = "control" if "control" in names else names[0]
    if control not in names:
        raise ABError(f"no arm called {control!r} (arms: {', '.join(names)})")
    return control, [n for n in names if n != control]


def analyze(table: UserTable, metrics: Sequence[str], *,
            expected: Mapping[str, float] | None = None, srm_alpha: float = 0.001,
            ignore_srm: bool = False, control: str | None = None, unit: Unit = "user",
            variance: Variance = "delta", relative: Relative = "log", level: float = 0.95,
            correction: str = "holm", samples: int = 1000, seed: int = 0) -> Analysis:
    """Run the analysis: SRM (when ``expected`` is given), the effects, the correction.

    An SRM p below ``srm_alpha`` raises :class:`ABError` unless ``ignore_srm``. A
    metric whose pre-period sums the table carries is CUPED-adjusted (delta method
    only). ``unit="impression"`` runs the naive per-impression tests (flagged rows).
    """
    from relkit.metrics.compare.corrections import get_correction

    check_open_unit("level", level)
    if not 0 <= srm_alpha <= 1:
        raise ParameterError("srm-alpha", f"srm-alpha must be in [0, 1]; got {srm_alpha}")
    if variance == "bootstrap" and samples < 2:
        raise ParameterError("samples", f"samples must be at least 2; got {samples}")
    variant = np.asarray(table.variant)
    ctrl, treatments = arms_of(table, control)
    srm = None
    if expected is not None:
        counts = {a: int((variant == a).sum()) for a in sorted(set(table.variant))}
        srm = srm_test(counts, expected)
        if srm.p < srm_alpha and not ignore_srm:
            obs = ", ".join(f"{a}={o}" for a, o in zip(srm.arms, srm.observed, strict=True))
            raise ABError(f"sample-ratio mismatch: p = {srm.p:.3g} < {srm_alpha} ({obs}); "
                          "the analysis stops (--ignore-srm to go on)")
    if table.pre_num and variance == "bootstrap":
        raise ABError("CUPED (--cuped) works with the delta method, not --variance bootstrap")
    out = Analysis(srm)
    masks = {a: variant == a for a in [ctrl, *treatments]}
    for name in metrics:
        m = get_metric(name)
        for t in treatments:
            out.rows.append(_one(table, m.name, m.binary, per_user(m), masks[ctrl], masks[t],
                                 ctrl, t, unit, variance, relative, level, samples, seed))
    if out.rows and not any(_usable(r) for r in out.rows):
        # nothing to report: the reason, not a table of blanks
        raise ABError(f"no metric can be tested: {out.rows[0].flag}")
    corr = get_correction(correction)
    adjusted = corr.adjust(np.array([r.p for r in out.rows]))
    out.rows = [replace(r, p_adjusted=float(a)) for r, a in zip(out.rows, adjusted, strict=True)]
    return out


def _arm(table: UserTable, name: str, mask: np.ndarray) -> Arm:
    if name in table.pre_num:
        return Arm(table.num[name][mask], table.den[name][mask],
                   table.pre_num[name][mask], table.pre_den[name][mask])
    return Arm(table.num[name][mask], table.den[name][mask])


def _one(table: UserTable, name: str, binary: bool, per_user: bool, cmask: np.ndarray,
         tmask: np.ndarray, ctrl: str, treat: str, unit: Unit, variance: Variance,
         relative: Relative, level: float, samples: int, seed: int) -> MetricRow:
    if unit == "impression" and not per_user:
        num, den, sq = table.num[name], table.den[name], table.sq[name]
        sums = [float(a[mask].sum()) for mask in (cmask, tmask) for a in (num, sq, den)]
        if binary:
            eff = proportion_z(sums[0], sums[2], sums[3], sums[5], level=level)
            test = "two-proportion z (per impression)"
        else:
            eff = welch_from_sums(*sums, level=level)
            test = "Welch t (per impression)"
        return MetricRow(metric=name, control_arm=ctrl, treatment_arm=treat, effect=eff,
                         test=test, p=eff.p, flag=NAIVE_FLAG)
    c, t = _arm(table, name, cmask), _arm(table, name, tmask)
    if variance == "bootstrap":
        eff = bootstrap_effect(c, t, samples=samples, seed=seed, level=level)
        test = f"cluster bootstrap ({samples})"
    else:
        eff = ratio_effect(c, t, level=level, relative=relative)
        test = "Welch t" if per_user else "Welch t, delta method"
        if c.xc is not None:
            test += ", CUPED"
    # One row, one method: the p-value is the test of the interval beside it (for the
    # time to first click too: a rank test's p next to the delta method's interval of
    # the means told two stories on one row).
    return MetricRow(metric=name, control_arm=ctrl, treatment_arm=treat, effect=eff,
                     test=test, p=eff.p, flag=_why_blank(name, c, t, ctrl, treat, eff))


def _usable(row: MetricRow) -> bool:
    """A row with a p-value, or with a difference of two arms of 2+ users each whose
    standard error is 0 (a covariate that explains everything: a result, not a blank)."""
    e = row.effect
    return bool(np.isfinite(row.p) or (np.isfinite(e.delta) and e.se == 0
                                       and min(e.n_control, e.n_treatment) >= 2))


def _why_blank(name: str, c: Arm, t: Arm, ctrl: str, treat: str, eff: Effect) -> str:
    """Why a row has no p-value ("" when it has one): the reason, for its flag."""
    if np.isfinite(eff.p):
        return ""
    for arm, a in ((ctrl, c), (treat, t)):
        if a.n < 2:
            return f"arm {arm!r} has {a.n} user{'s' if a.n != 1 else ''}: need at least 2"
    what = "clicked queries" if name == "time_to_first_click" else "queries"
    for arm, a in ((ctrl, c), (treat, t)):
        if not float(np.sum(a.y)) > 0:
            return f"arm {arm!r} has no {what}: {name} is undefined there"
    for arm, a in ((ctrl, c), (treat, t)):
        if int(np.sum(a.y > 0)) < 2:
            return f"arm {arm!r} has fewer than 2 users with {what}: no variance"
    return "no variance: every user of both arms has the same value"


HEADER = ["metric", "arm", "n_control", "n_treatment", "control", "treatment", "delta",
          "delta_low", "delta_high", "rel_delta", "rel_low", "rel_high", "p", "p_adjusted",
          "variance_reduction", "test", "flag"]


def table_rows(analysis: Analysis) -> list[list[str | int | float | None]]:
    """The rows of the output table, in :data:`HEADER`'s order."""
    def num(x: float | None) -> float | None:
        return None if x is None or not np.isfinite(x) else float(x)

    out: list[list[str | int | float | None]] = []
    for r in analysis.rows:
        e = r.effect
        out.append([r.metric, r.treatment_arm, e.n_control, e.n_treatment, num(e.control),
                    num(e.treatment), num(e.delta), num(e.delta_low), num(e.delta_high),
                    num(e.rel), num(e.rel_low), num(e.rel_high), num(r.p), num(r.p_adjusted),
                    num(e.variance_reduction), r.test, r.flag])
    return out
