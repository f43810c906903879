"""``relkit ab``: A/B tests over click logs (srm, analyze, power, monitor).

numpy, scipy and DuckDB are imported inside the commands, so ``relkit --help`` and
the other commands do not pay for them. Registered in ``judging/cli.py`` as a group.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from relkit.metrics.commands.numopt import COUNT, PROPORTION, SEED, Num
from relkit.metrics.commands.tableopts import TableFormat, TableOutput
from relkit.metrics.core.progress import Bar
from relkit.metrics.online.ab.inputs import about, open_inputs
from relkit.metrics.online.engines import ENGINE_HELP, MASTER_HELP

if TYPE_CHECKING:
    from relkit.metrics.online.ab.analysis import Analysis

app = typer.Typer(help="A/B tests over click logs: sample-ratio mismatch, metrics at the "
                  "user with the delta method, power, sequential looks.",
                  no_args_is_help=True, add_completion=False,
                  epilog="Example: relkit ab analyze clicks.parquet --assign assign.csv "
                  "-m ctr@1 -m abandonment")

MAP_HELP = "Map a canonical field to the file's column: name=column (repeatable)"
METRIC_HELP = ("Metric (repeatable): ctr@1, first_page_ctr, abandonment, good_click_rate, "
               "time_to_first_click, sessions_per_user")

# The options several commands share, declared once.
MapOpt = Annotated[list[str] | None, typer.Option("--map", help=MAP_HELP)]
AssignOpt = Annotated[Path, typer.Option("--assign", help="Assignment table")]


def _say(msg: str) -> None:
    sys.stderr.write(f"relkit: {msg}\n")


@app.command("srm", epilog="Example: relkit ab srm assign.csv --expected control=50,"
             "treatment=50")
def srm_cmd(
    assign: Annotated[Path, typer.Argument(help="Assignment table (unit_id, variant, ...)")],
    expected: Annotated[str, typer.Option(
        "--expected", help="The design's shares: name=weight,... (weights normalised)")],
    alpha: Annotated[float, Num(
        "--alpha", within=PROPORTION, help="Fail (exit 1) when the p-value is below this")] = 0.001,
    assign_map: MapOpt = None,
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Sample-ratio mismatch: chi-squared test of units per arm against the design.

    One row per arm (observed, expected, share); the p-value on stderr. Exit 1 when
    p < --alpha: the assignment or the logging is broken.

    Example: relkit ab srm assign.parquet --expected control=50,treatment=50
    """
    from relkit.metrics.core.options import option_value
    from relkit.metrics.core.tables import check_table_options, write_table
    from relkit.metrics.online.ab.errors import ABError
    from relkit.metrics.online.ab.srm import parse_expected, srm_test
    from relkit.metrics.online.pvalues import p_columns

    check_table_options(fmt, output)
    with option_value("--expected"):
        design = parse_expected(expected)
    con, _, view, _ = open_inputs(None, assign, None, assign_map)
    counts = {str(v): int(n) for v, n in
              con.execute(f"SELECT variant, count(*) FROM {view} GROUP BY 1").fetchall()}
    with about(assign):
        res = srm_test(counts, design)
    total = sum(res.observed)
    rows = [[a, o, e, o / total if total else None, res.p]
            for a, o, e in zip(res.arms, res.observed, res.expected, strict=True)]
    header = ["arm", "observed", "expected", "share", "p"]
    write_table(header, p_columns(header, rows, fmt, ["p"]), fmt, output)
    _say(f"SRM chi2 = {res.chi2:.4f} (df {res.df}), p = {res.p:.3g}")
    if res.p < alpha:
        raise ABError(f"sample-ratio mismatch in {assign}: p = {res.p:.3g} < {alpha}")


@app.command("analyze", epilog="Example: relkit ab analyze clicks.parquet --assign "
             "assign.csv -m ctr@1 -m first_page_ctr --cuped pre.parquet --html ab.html")
def analyze_cmd(
    log: Annotated[Path, typer.Argument(help="Click log (Parquet, CSV/TSV, JSONL)")],
    assign: AssignOpt,
    metric: Annotated[list[str] | None, typer.Option("-m", "--metric", help=METRIC_HELP)]
        = None,
    unit: Annotated[str, typer.Option(
        "--unit", help="Analysis unit: user (the randomisation unit) or impression "
        "(naive; needs --i-know)")] = "user",
    i_know: Annotated[bool, typer.Option(
        "--i-know", help="Run the per-impression test on user-randomised data anyway "
        "(the rows are flagged)")] = False,
    variance: Annotated[str, typer.Option(
        "--variance", help="delta (the delta method) or bootstrap (cluster bootstrap over "
        "users)")] = "delta",
    relative: Annotated[str, typer.Option(
        "--relative", help="Interval of the relative change: log (delta method on the log "
        "ratio) or fieller")] = "log",
    cuped: Annotated[Path | None, typer.Option(
        "--cuped", help="Pre-period click log: CUPED with each metric's pre-period value")]
        = None,
    cuped_column: Annotated[list[str] | None, typer.Option(
        "--cuped-column", help="METRIC=COLUMN: CUPED with the assignment table's numeric "
        "COLUMN as METRIC's pre-period value (repeatable; instead of --cuped for that "
        "metric)")] = None,
    correction: Annotated[str, typer.Option(
        "--correction", help="Multiple-comparison correction: holm, bh, bonferroni, none")]
        = "holm",
    expected: Annotated[str | None, typer.Option(
        "--expected", help="The design's shares for the SRM check (default: equal)")] = None,
    ignore_srm: Annotated[bool, typer.Option(
        "--ignore-srm", help="Go on after a sample-ratio mismatch")] = False,
    srm_alpha: Annotated[float, Num(
        "--srm-alpha", within=PROPORTION, help="SRM threshold")] = 0.001,
    control: Annotated[str | None, typer.Option(
        "--control", help="The control arm (default: 'control', else the first by name)")]
        = None,
    level: Annotated[float, Num("--level", within=PROPORTION, help="Confidence level")] = 0.95,
    good_dwell: Annotated[float, Num(
        "--good-dwell", within="x >= 0", help="Seconds of dwell that make a good click")] = 30.0,
    samples: Annotated[int, Num("--samples", within=COUNT, help="Bootstrap samples")] = 1000,
    seed: Annotated[int, Num("--seed", within=SEED, help="Bootstrap seed")] = 0,
    log_map: MapOpt = None,
    assign_map: Annotated[list[str] | None, typer.Option(
        "--assign-map", help="Like --map, for the assignment table")] = None,
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
    html: Annotated[Path | None, typer.Option(
        "--html", help="Also write a self-contained HTML report here")] = None,
    engine: Annotated[str, typer.Option("--engine", help=ENGINE_HELP)] = "local",
    spark_master: Annotated[str | None, typer.Option("--spark-master", help=MASTER_HELP)]
        = None,
) -> None:
    """Analyse an A/B test: SRM first, then each metric at the user with the delta method.

    One row per metric and treatment arm: n, mean per arm, delta, relative delta with
    its interval, p and adjusted p. A sample-ratio mismatch stops the analysis (exit 1)
    unless --ignore-srm.

    Example: relkit ab analyze clicks.parquet --assign assign.csv -m ctr@1 -m abandonment
    """
    from relkit.metrics.core.tables import check_table_options
    from relkit.metrics.online.ab.run import AnalyzeOptions, analyze_log

    check_table_options(fmt, output)
    opts = AnalyzeOptions(
        metrics=metric or (), unit=unit, i_know=i_know, variance=variance, relative=relative,
        cuped=cuped, cuped_columns=cuped_column or (), correction=correction,
        expected=expected, ignore_srm=ignore_srm, srm_alpha=srm_alpha, control=control,
        level=level, good_dwell=good_dwell, samples=samples, seed=seed,
        log_map=log_map or (), assign_map=assign_map or (), html=html, engine=engine,
        spark_master=spark_master)
    if engine == "spark":  # no steps to show: the bar is the local engine's
        res = analyze_log(log, assign, opts)
    else:
        with Bar(f"opening {log.name}", total=3 + (html is not None), unit="steps") as bar:
            res = analyze_log(log, assign, opts,
                              progress=lambda done, label: bar.update(done, label=label))
    _write_analysis(res, fmt, output)


def _write_analysis(res: Analysis, fmt: str, output: Path | None) -> None:
    """The SRM line and the warning on stderr, the table on stdout (or ``output``)."""
    from relkit.metrics.core.tables import write_table
    from relkit.metrics.online.ab.analysis import HEADER, NAIVE_FLAG, table_rows
    from relkit.metrics.online.pvalues import p_columns

    rows = p_columns(HEADER, table_rows(res), fmt, ["p", "p_adjusted"])
    if res.srm is not None:
        _say(f"SRM p = {res.srm.p:.3g} ({', '.join(f'{a}={o}' for a, o in zip(res.srm.arms, res.srm.observed, strict=True))})")  # noqa: E501
    if any(r.flag == NAIVE_FLAG for r in res.rows):
        _say("WARNING: per-impression test on user-randomised data (--unit impression): "
             "the standard errors are too small")
    blank = [r for r in res.rows if r.flag and r.flag != NAIVE_FLAG]
    if blank:
        _say(f"WARNING: {len(blank)} row(s) have no p-value ({blank[0].metric}, "
             f"{blank[0].treatment_arm}: {blank[0].flag}); their flag says why")
    write_table(HEADER, rows, fmt, output)


@app.command("power", epilog="Example: relkit ab power -m ctr@1 --baseline 0.42 --mde 1%")
def power_cmd(
    metric: Annotated[str, typer.Option("-m", "--metric", help=METRIC_HELP)] = "ctr@1",
    baseline: Annotated[float | None, Num(
        "--baseline", within="x > 0",
        help="The control's value of the metric (default: from --from-log)")]
        = None,
    mde: Annotated[str | None, typer.Option(
        "--mde", help="Effect to detect: absolute (0.004) or relative to the baseline (1%)")]
        = None,
    n: Annotated[int | None, Num(
        "--n", within="x >= 2",
        help="Users per arm: report the power (and the MDE) at this n")] = None,
    power: Annotated[float, Num("--power", within=PROPORTION, help="Target power")] = 0.8,
    alpha: Annotated[float, Num("--alpha", within=PROPORTION, help="Two-sided significance level")]
        = 0.05,
    sd: Annotated[float | None, Num(
        "--sd", within="x > 0",
        help="Per-user standard deviation (default: binomial, or from --from-log)")]
        = None,
    from_log: Annotated[Path | None, typer.Option(
        "--from-log", help="Click log: the per-user delta-method SD and baseline from it")]
        = None,
    assign: Annotated[Path | None, typer.Option(
        "--assign", help="Assignment table of --from-log (default: its users)")] = None,
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Power analysis: users per arm for an MDE, or the power and MDE at a given n.

    Without a log a rate metric is a proportion (R's power.prop.test); with --from-log
    the per-user SD of the ratio metric comes from the delta method (power.t.test).

    Example: relkit ab power -m ctr@1 --baseline 0.42 --mde 1% --from-log pre.parquet --assign a.csv
    """
    from relkit.metrics.core.tables import check_table_options, write_table
    from relkit.metrics.online.ab.planning import plan

    check_table_options(fmt, output)
    view = aview = None
    con = None
    if from_log is not None or assign is not None:
        if from_log is None:
            from relkit.metrics.core.options import OptionError
            from relkit.metrics.online.source import connect, open_assignments

            assert assign is not None
            open_assignments(assign, con=connect())  # an unreadable file is named first
            raise OptionError("--assign", "goes with --from-log (the log's arms)")
        with Bar(f"reading {from_log.name}", total=None, unit="steps"):
            con, view, aview, _ = open_inputs(from_log, assign, None, None)
    header, rows = plan(metric, baseline=baseline, mde=mde, n=n, power=power, alpha=alpha,
                        sd=sd, con=con, log=view, assign=aview, log_name=str(from_log))
    write_table(header, rows, fmt, output)


@app.command("monitor", epilog="Example: relkit ab monitor clicks.parquet --assign a.csv "
             "-m ctr@1 --looks 5")
def monitor_cmd(
    log: Annotated[Path, typer.Argument(help="Click log (with ts)")],
    assign: AssignOpt,
    metric: Annotated[str, typer.Option("-m", "--metric", help=METRIC_HELP)] = "ctr@1",
    looks: Annotated[int, Num("--looks", within=COUNT, help="Equally spaced looks")] = 5,
    method: Annotated[str, typer.Option(
        "--method", help="obf (O'Brien-Fleming-type alpha spending) or msprt "
        "(always-valid p-values)")] = "obf",
    alpha: Annotated[float, Num("--alpha", within=PROPORTION, help="Overall type I error")] = 0.05,
    planned: Annotated[int | None, Num(
        "--planned-users", within=COUNT,
        help="The design's total users: the planned information is the "
        "last look's scaled by it (default: the last look is final)")] = None,
    tau: Annotated[float | None, Num(
        "--tau", within="x > 0",
        help="mSPRT mixture scale (default: 1% of the control mean)")] = None,
    control: Annotated[str | None, typer.Option("--control", help="The control arm")] = None,
    log_map: MapOpt = None,
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
) -> None:
    """Sequential looks at one metric: one row per look, with its bound or always-valid p.

    Example: relkit ab monitor clicks.parquet --assign assign.csv -m ctr@1 --method msprt
    """
    from relkit.metrics.core.options import OptionError, option_value
    from relkit.metrics.core.tables import check_table_options, write_table
    from relkit.metrics.online.ab.monitor import METHODS, cutoffs, effects_over_time, monitor
    from relkit.metrics.online.ab.users import Names, get_metric
    from relkit.metrics.online.pvalues import p_columns

    check_table_options(fmt, output)
    if method not in METHODS:
        raise OptionError("--method", f"{method!r} is not one of {', '.join(METHODS)}")
    with option_value("--metric"):
        get_metric(metric)
    with Bar(f"looking at {log.name}", total=looks, unit="looks") as bar, about(log):
        con, view, aview, _ = open_inputs(log, assign, log_map, None)
        assert view is not None
        files = Names(str(log), str(assign))
        over = effects_over_time(con, view, aview, metric, cutoffs(con, view, looks),
                                 control=control, files=files,
                                 progress=lambda done: bar.update(done))
    with about(log):
        res = monitor(over, method=method, alpha=alpha,  # type: ignore[arg-type]
                      planned_units=planned, tau=tau)
    header = ["look", "cutoff_ts", "users", "control", "treatment", "delta", "z"]
    header += (["fraction", "bound", "alpha_spent", "reject"] if method == "obf"
               else ["p_always_valid", "low", "high", "reject"])
    rows: list[list[str | int | float | None]] = []
    for lk in res:
        e = lk.effect
        row: list[str | int | float | None] = [lk.index, lk.cutoff, e.n_control + e.n_treatment,
                                               e.control, e.treatment, e.delta, e.statistic]
        row += ([lk.fraction, lk.bound, lk.alpha_spent] if method == "obf"
                else [lk.p, lk.low, lk.high])
        rows.append([*row, "yes" if lk.reject else "no"])
    write_table(header, p_columns(header, rows, fmt, ["p_always_valid", "alpha_spent"]),
                fmt, output)
