"""``relkit agree`` as library calls: judgments in, a rendered report out.

:func:`agree` reads the judgments (files, else the judging database), checks the
options before any work (an impossible value is an
:class:`~relkit.metrics.core.options.OptionError` naming it; a file it cannot use an
:class:`~relkit.judging.agreement.frame.AgreementError`), runs
:func:`~relkit.judging.agreement.analysis.analyse`, adds the effect on conclusions when
runs are given, and renders the report. :func:`agree_workers` is ``agree --workers``:
the crowd's per-worker report. Neither prints: what a user should know on the way
(an inferred scale, dropped codes, the gold assessor) goes to ``notify``, one line
each, and the CLI writes it on stderr and the text on stdout or in ``-o``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    import pandas as pd

    from relkit.corpora.types import RelevanceScale
    from relkit.judging.agreement.analysis import Analysis
    from relkit.judging.agreement.frame import Ratings
    from relkit.judging.agreement.report import ReportFormat

Notify = Callable[[str], None]
# progress(done, total, label): `done` of `total` steps finished, `label` the next one
Progress = Callable[[int, int, str], None]


def _quiet(msg: str) -> None:
    """The default ``notify``: a library caller who did not ask hears nothing."""


# The hint for judgment files taken as runs (`agree --runs r1 r2 a.qrels b.qrels`).
_RUNS_HINT = ("judgment files after --runs are read as runs: put them first, or end the "
              "run list with --")


@dataclass(frozen=True, kw_only=True)
class AgreeOptions:
    """What ``relkit agree`` takes besides the judgments, with its defaults.

    ``threshold`` binarises at grade >= it (default: the scale's); ``runs`` are run
    files evaluated under each assessor's qrels with ``measure``; ``scale`` the declared
    relevance scale of files; ``gold`` the gold assessor; ``repeats`` what a pair judged
    twice by one assessor becomes (error, first, last, majority); ``replicates`` and
    ``seed`` the bootstrap's; ``interval`` normal or t; ``fmt`` the report format;
    ``output`` a file the report will be written to, checked before the work.
    """

    threshold: int | None = None
    runs: Sequence[Path] = ()
    fmt: str = "text"
    scale: str | None = None
    gold: str | None = None
    repeats: str = "error"
    measure: str = "nDCG@10"
    replicates: int = 1000
    seed: int = 0
    interval: str = "normal"
    output: Path | None = None


@dataclass(frozen=True)
class AgreeReport:
    """The analysis (with its effect on conclusions, if runs were given) and its text."""

    analysis: Analysis
    text: str


def _check(o: AgreeOptions) -> tuple[ReportFormat, RelevanceScale | None]:
    """Every option checked before the judgments are read: the report format and the
    declared scale."""
    from relkit.corpora.types import get_scale
    from relkit.judging.agreement.frame import AgreementError
    from relkit.judging.agreement.report import FORMATS
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import option_value

    with option_value("--format"):
        report = FORMATS.lookup(o.fmt)    # an unknown name fails before any work
    with option_value("--scale"):
        declared = get_scale(o.scale) if o.scale is not None else None
    if o.runs:
        from relkit.metrics.evaluator import resolve

        with option_value("--measure"):
            resolve([o.measure])
        for p in o.runs:  # before the work, not after it; a failure (exit 1), named as typed
            if not p.is_file():
                raise AgreementError(f"--runs {p}: {not_a_file(p)}")
    if o.output is not None:
        check_output(o.output)
    check_values(o)
    return report, declared


def flag(option: str) -> str:
    """The CLI's spelling of an option (``--interval``): the default ``spell``."""
    return option


def keyword(option: str) -> str:
    """The Python keyword of a CLI option (``--interval`` -> ``interval``)."""
    return option.removeprefix("--").replace("-", "_")


def check_values(o: AgreeOptions, spell: Callable[[str], str] = flag) -> None:
    """The values of the analysis's own options (``repeats``, ``replicates``,
    ``interval``), checked before the judgments are read; both agree flows (``relkit
    agree`` and :func:`relkit.agree`) call it, so they take the same values. ``spell``
    names an option as the caller typed it (the CLI's flag, or a Python keyword)."""
    from relkit.judging.agreement.ci import DISTRIBUTIONS
    from relkit.judging.agreement.frame import REPEATS

    if o.repeats not in REPEATS:
        raise OptionError(spell("--repeats"), f"expected one of {', '.join(REPEATS)}; "
                          f"got {o.repeats!r}")
    if o.replicates < 0:
        raise OptionError(spell("--replicates"), f"must be >= 0; got {o.replicates!r}")
    if o.interval not in DISTRIBUTIONS:
        raise OptionError(spell("--interval"), f"expected one of "
                          f"{', '.join(DISTRIBUTIONS)}; got {o.interval!r}")


def _from_files(files: Sequence[Path], declared: RelevanceScale | None,
                threshold: int | None, notify: Notify
                ) -> tuple[pd.DataFrame, RelevanceScale, str | None]:
    """The long frame of judgment files, its scale (declared or inferred) and gold."""
    from relkit.judging.agreement.frame import drop_negative, infer_scale, read_files

    frame = read_files(files)
    for note in frame.attrs.get("notes", []):
        notify(note)
    frame, dropped = drop_negative(frame, declared)
    if dropped:
        notify("dropped judgments with negative codes (not relevance grades, e.g. TREC's "
               "-2 = broken link): " + ", ".join(f"{n:,} with {g}" for g, n in
                                                 dropped.items()))
    if declared is not None:
        scale = declared
    else:
        scale = infer_scale(frame["grade"], threshold)
        notify(f"scale inferred from the grades seen: {list(scale.values)} "
               "(declare it with --scale)")
    gold = (str(frame.loc[frame["is_gold"], "assessor"].iat[0]) if frame["is_gold"].any()
            else None)
    return frame, scale, gold


def _from_db(db: str | None, declared: RelevanceScale | None, runs: bool
             ) -> tuple[pd.DataFrame, RelevanceScale, str | None]:
    """The database's judgments, its scale (or the declared one) and gold."""
    from relkit.judging.agreement.frame import AgreementError
    from relkit.judging.agreement.store import from_store
    from relkit.metrics.core.errors import RelkitError

    try:
        frame, scale, gold = from_store(db)
    except RelkitError as exc:
        if not runs or db is not None:
            raise
        # `agree --runs r1.txt r2.txt a.qrels b.qrels` took the judgments for runs
        raise AgreementError(f"{exc} ({_RUNS_HINT})") from None
    return frame, declared if declared is not None else scale, gold


def ratings_of(frame: pd.DataFrame, scale: RelevanceScale, o: AgreeOptions, *,
               hint: bool = False, spell: Callable[[str], str] = flag) -> Ratings:
    """The ratings to analyse: the threshold on the scale, two assessors or more (both
    agree flows; ``hint``: the judgments may have been taken for runs)."""
    from relkit.judging.agreement.frame import AgreementError, Ratings

    if o.threshold is not None and o.threshold not in scale:
        raise AgreementError(f"{spell('--threshold')} {o.threshold} is not a grade of the "
                             f"{scale.name!r} scale ({', '.join(map(str, scale.values))})")
    ratings = Ratings.from_frame(frame, scale, o.repeats)  # type: ignore[arg-type]
    if len(ratings.assessors) < 2:
        raise AgreementError(f"agreement needs two or more assessors; found "
                             f"{', '.join(ratings.assessors) or 'none'}"
                             f"{f' ({_RUNS_HINT})' if hint else ''}")
    return ratings


def agree(judgments: Sequence[Path] | None = None, *, db: str | None = None,
          options: AgreeOptions | None = None, notify: Notify = _quiet,
          progress: Progress | None = None) -> AgreeReport:
    """Agreement between assessors: kappa, alpha, AC1 with CIs; overlap; effect on rankings.

    Parameters
    ----------
    judgments
        Qrels per assessor (file stem = assessor) or CSV/TSV long tables; without
        any, the judging database ``db`` (a path or URL; default ``$RELKIT_DB``).
    options
        :class:`AgreeOptions` (default: the CLI's defaults).
    notify
        Receives each note for the user (one line, no prefix).
    progress
        ``progress(done, total, label)`` before each step (reading, each level of the
        analysis, the runs, the rendering; ``label`` names it) and after the last.

    Returns
    -------
    AgreeReport
        The analysis and its rendered text in ``options.fmt``.

    Raises
    ------
    OptionError
        An option value it cannot take.
    RelkitError
        Judgments it cannot read or use (fewer than two assessors, a grade off the scale).
    """
    o = options or AgreeOptions()
    report, declared = _check(o)
    total = 4 + bool(o.runs)
    done = 0

    def step(label: str) -> None:
        nonlocal done
        if progress is not None:
            progress(done, total, label)
        done += 1

    step("reading the judgments")
    if judgments:
        frame, scale, found_gold = _from_files(judgments, declared, o.threshold, notify)
    else:
        frame, scale, found_gold = _from_db(db, declared, bool(o.runs))
    gold = o.gold
    if gold is None and found_gold is not None:
        gold = found_gold
        notify(f"agreement with gold is reported against {gold!r} (the gold "
               f"{'column' if judgments else 'table'}; --gold NAME chooses another assessor)")
    ratings = ratings_of(frame, scale, o, hint=bool(o.runs and judgments))
    notify(f"{len(frame):,} judgments by {len(ratings.assessors)} assessors on "
           f"{len(ratings):,} items")
    loaded = None
    if o.runs:
        from relkit.metrics.data import Run
        from relkit.pooling.depth import run_name

        loaded = {run_name(p): Run.read(p) for p in o.runs}
    result = analyse_ratings(ratings, o, gold, loaded, step=step)
    if result.graded.icc_dropped:
        notify(f"ICC: {result.graded.icc_dropped:,} of {len(ratings):,} items were not "
               "judged by every assessor and were left out (ICC needs complete ratings)")
    step(f"rendering the {report.name} report")
    text = report.render(result)
    step("report rendered")
    return AgreeReport(result, text)


def analyse_ratings(ratings: Ratings, o: AgreeOptions, gold: str | None,
                    runs: Mapping[str, Any] | None,
                    step: Callable[[str], None] | None = None) -> Analysis:
    """The analysis of both agree flows: every statistic with ``o``'s bootstrap and
    intervals, and with ``runs`` (name -> Run) the effect on conclusions (``o.measure``).
    ``step(label)`` is called before each stage (for a progress bar)."""
    from relkit.judging.agreement.analysis import Options, analyse

    result = analyse(ratings, o.threshold, gold=gold, opts=Options(
        replicates=o.replicates, seed=o.seed, interval=o.interval), step=step)
    if runs:
        from relkit.judging.agreement.ir import effect

        if step is not None:
            step(f"effect on conclusions: {len(runs)} runs under each assessor's qrels")

        result.effect = effect(ratings, runs, o.measure, o.threshold)
    return result


def agree_workers(labels: Sequence[Path] | None = None, *, db: str | None = None,
                  gold: str | None = None, method: str = "dawid-skene", fmt: str = "text",
                  seed: int = 0, include_automatic: bool = False,
                  output: Path | None = None, notify: Notify = _quiet) -> str:
    """``relkit agree --workers``: per worker, labels and accuracy against gold and the
    ``method``'s aggregate (docs/crowd.md); the report's text in ``fmt``.

    The labels are ``labels`` (files), else the database's judgments (automatic
    assessors counted as workers only with ``include_automatic``). ``output`` is checked
    writable before the work.
    """
    from relkit.judging.crowd.agree import workers_text
    from relkit.judging.crowd.errors import CrowdError
    from relkit.judging.crowd.methods import METHODS

    try:
        METHODS.lookup(method)   # a bad option value is a usage error (exit 2), early
    except CrowdError as exc:
        raise OptionError("--method", str(exc)) from None
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    stored = None
    if not labels:
        from relkit.judging.agreement.store import from_store

        # automatic assessors are not crowd workers unless asked (as in export qrels)
        frame, _, found = from_store(db, automatic=include_automatic)
        stored = (frame, found)
    text, notes = workers_text(labels, stored, gold, method, fmt, seed)
    for note in notes:
        notify(note)
    return text
