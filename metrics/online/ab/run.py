"""``relkit ab analyze`` as one library call: options in, an :class:`~.analysis.Analysis` out.

:func:`analyze_log` checks the options (an impossible value is an
:class:`~relkit.metrics.core.options.OptionError` naming the option, before any file is
read), opens the log and the assignment table, aggregates them per user on the chosen
engine and runs :func:`~.analysis.analyze`. It raises and never prints: the CLI parses,
calls it and writes the table. The options are one keyword-only record,
:class:`AnalyzeOptions`, so a notebook or a script states only what it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.metrics.online.ab.analysis import Analysis
    from relkit.metrics.online.ab.users import Metric

# The metrics analysed when none is named.
DEFAULT_METRICS = ("ctr@1", "first_page_ctr", "abandonment")


@dataclass(frozen=True, kw_only=True)
class AnalyzeOptions:
    """Everything ``relkit ab analyze`` takes besides its two files (same defaults).

    ``metrics`` are names in :data:`~.metric_registry.METRICS` (a metric registered there by a
    user too); ``cuped`` is a pre-period log and ``cuped_columns`` ``METRIC=COLUMN``
    specs naming a numeric assignment column as a metric's covariate; ``expected`` the
    design's shares (``control=50,treatment=50``; default equal); ``html`` a report to
    write beside the table.
    """

    metrics: Sequence[str] = DEFAULT_METRICS
    unit: str = "user"
    i_know: bool = False
    variance: str = "delta"
    relative: str = "log"
    cuped: Path | None = None
    cuped_columns: Sequence[str] = ()
    correction: str = "holm"
    expected: str | None = None
    ignore_srm: bool = False
    srm_alpha: float = 0.001
    control: str | None = None
    level: float = 0.95
    good_dwell: float = 30.0
    samples: int = 1000
    seed: int = 0
    log_map: Sequence[str] = ()
    assign_map: Sequence[str] = ()
    html: Path | None = None
    engine: str = "local"
    spark_master: str | None = None


@dataclass(frozen=True)
class _Checked:
    """The options turned into what the analysis runs on."""

    defs: list[Metric]
    pre_columns: dict[str, str]
    design: dict[str, float] | None


def _check_choices(o: AnalyzeOptions) -> None:
    """The option values that are one of a list, and the combinations that cannot be."""
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.online.ab.analysis import VARIANCES
    from relkit.metrics.online.ab.effect import RELATIVE
    from relkit.metrics.online.ab.users import UNITS
    from relkit.metrics.online.engines import check_engine

    check_engine(o.engine, o.spark_master)
    if o.html is not None and o.engine == "spark":
        raise OptionError("--html", "not with --engine spark yet (the report's charts "
                          "query the log in DuckDB): run the table with spark, the report "
                          "locally")
    if o.html is not None:
        check_output(o.html, "--html")
    for opt, value, allowed in (("--unit", o.unit, UNITS), ("--variance", o.variance, VARIANCES),
                                ("--relative", o.relative, RELATIVE)):
        if value not in allowed:
            raise OptionError(opt, f"{value!r} is not one of {', '.join(allowed)}")
    if o.unit == "impression" and not o.i_know:
        raise OptionError("--unit", "impression: the arms were randomised by user, so a "
                          "per-impression test understates the variance; add --i-know to "
                          "run it anyway")
    if o.cuped is not None and o.unit == "impression":
        raise OptionError("--cuped", "CUPED needs --unit user")
    if o.cuped is not None and o.variance == "bootstrap":
        raise OptionError("--cuped", "CUPED works with --variance delta, not bootstrap")


def check_options(o: AnalyzeOptions) -> _Checked:
    """Every option checked before a file is read; :class:`OptionError` names the first
    bad one (the CLI's exit 2)."""
    from relkit.metrics.compare.corrections import get_correction
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.ab.inputs import cuped_columns
    from relkit.metrics.online.ab.srm import parse_expected
    from relkit.metrics.online.ab.users import get_metric

    _check_choices(o)
    names = list(o.metrics) or list(DEFAULT_METRICS)
    pre_columns = cuped_columns(list(o.cuped_columns), names)
    if pre_columns and (o.unit == "impression" or o.variance == "bootstrap"):
        raise OptionError("--cuped-column", "CUPED needs --unit user and --variance delta")
    with option_value("--metric"):
        defs = [get_metric(n) for n in names]
    with option_value("--correction"):
        get_correction(o.correction)
    design = None
    if o.expected is not None:
        with option_value("--expected"):
            design = parse_expected(o.expected)
    return _Checked(defs, pre_columns, design)


def analyze_log(log: Path, assign: Path, options: AnalyzeOptions | None = None, *,
                progress: Callable[[int, str], None] | None = None) -> Analysis:
    """Analyse an A/B test from its click log and assignment table.

    Parameters
    ----------
    log, assign
        The click log (Parquet, CSV/TSV, JSONL) and the assignment table.
    options
        :class:`AnalyzeOptions` (default: the CLI's defaults).
    progress
        Called ``progress(steps_done, label)`` as the local engine moves on (opening,
        aggregating, testing, writing the report).

    Returns
    -------
    Analysis
        The SRM check and one row per (metric, treatment arm).

    Raises
    ------
    OptionError
        An option value it cannot take (named as on the command line).
    RelkitError
        A file it cannot read or use, a sample-ratio mismatch (unless ``ignore_srm``).
    """
    from relkit.metrics.online.ab.inputs import check_cuped_columns, open_inputs
    from relkit.metrics.online.ab.users import Names, user_table

    o = options or AnalyzeOptions()
    checked = check_options(o)
    step = progress or (lambda done, label: None)
    if o.engine == "spark":
        from relkit.metrics.online.engines import spark_engine

        table = spark_engine().user_table(
            log, assign, checked.defs, log_map=list(o.log_map) or None,
            assign_map=list(o.assign_map) or None, pre=o.cuped,
            pre_columns=checked.pre_columns, good_dwell=o.good_dwell, master=o.spark_master)
        return _test(log, table, checked, o)
    con, view, aview, pre_view = open_inputs(log, assign, list(o.log_map) or None,
                                             list(o.assign_map) or None, o.cuped)
    assert view is not None
    step(1, f"aggregating {log.name} per user")
    check_cuped_columns(con, aview, checked.pre_columns, assign)
    table = user_table(con, view, aview, checked.defs, pre=pre_view,
                       pre_columns=checked.pre_columns, good_dwell=o.good_dwell,
                       files=Names(str(log), str(assign), str(o.cuped)))
    step(2, "testing")
    res = _test(log, table, checked, o)
    if o.html is not None:
        from relkit.metrics.online.ab.report import write_report

        step(3, f"writing {o.html.name}")
        write_report(o.html, con, view, aview, res, title=f"A/B test: {log.name}",
                     good_dwell=o.good_dwell)
        step(4, f"report written to {o.html}")  # the bar's last word: the file is there
    return res


def _test(log: Path, table: Any, checked: _Checked, o: AnalyzeOptions) -> Analysis:
    """The same tests on either engine's per-user table (the design defaults to equal
    shares of the variants seen); an error is about the log."""
    from relkit.metrics.online.ab.analysis import analyze
    from relkit.metrics.online.ab.inputs import about

    design = checked.design
    if design is None:
        design = {a: 1.0 for a in sorted(set(table.variant))}
    with about(log):
        return analyze(table, [d.name for d in checked.defs], expected=design,
                       srm_alpha=o.srm_alpha, ignore_srm=o.ignore_srm, control=o.control,
                       unit=o.unit, variance=o.variance,  # type: ignore[arg-type]
                       relative=o.relative,  # type: ignore[arg-type]
                       level=o.level, correction=o.correction, samples=o.samples,
                       seed=o.seed)
