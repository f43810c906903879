"""``relkit judges`` as library calls: human and judges' grades in, a rendered report out.

:func:`judges` reads the grades (the judges' files against a qrels file, else the judging
database's automatic assessors against its humans), checks every option before any work
(an impossible value is an :class:`~relkit.metrics.core.options.OptionError` naming it; a
file it cannot use an :class:`~relkit.judging.agreement.frame.AgreementError`), runs
:func:`~relkit.judging.agreement.judges.compare` and renders the report (:func:`render`:
text, tsv or json). It prints nothing: what a user should know besides the report (an
inferred scale, dropped grades) comes back in :attr:`JudgesRun.notes`, said by the CLI
only once nothing can fail.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import not_a_file
from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.agreement.judges import JudgesReport, Pair

FORMATS = ("text", "tsv", "json")
OFF_SCALE = ("error", "drop")


@dataclass(frozen=True, kw_only=True)
class JudgesOptions:
    """What ``relkit judges`` takes besides the grades' sources, with its defaults.

    With the database: ``human`` (that human assessor's grades; default: the adjudicated
    qrels) and ``judge`` (only these automatic assessors). ``scale`` the declared
    relevance scale of files; ``threshold`` binarises at grade >= it for the binary kappa
    (default: the scale's); ``runs`` are ranked by ``measure`` under the human and each
    judge's qrels; ``off_scale`` what a judge's grade off the scale is (error, or drop
    it); ``fmt`` the report format; ``output`` a file the report will be written to,
    checked before the work.
    """

    human: str | None = None
    judge: Sequence[str] = ()
    scale: str | None = None
    threshold: int | None = None
    runs: Sequence[Path] | None = None
    measure: str = "nDCG@10"
    off_scale: str = "error"
    fmt: str = "text"
    output: Path | None = None


@dataclass(frozen=True)
class JudgesRun:
    """The report, its text in the asked format, and what to say besides it."""

    report: JudgesReport
    text: str
    judges: int          # automatic judges compared
    human_grades: int    # human grades they were compared with
    notes: tuple[str, ...] = ()


def _check(files: Sequence[Path], qrels: Path | None, o: JudgesOptions
           ) -> RelevanceScale | None:
    """Every option checked before the grades are read: the declared scale, if any."""
    from relkit.judging.agreement.frame import AgreementError
    from relkit.metrics.core.options import option_value

    if o.off_scale not in OFF_SCALE:
        raise OptionError("--off-scale", f"expected error or drop; got {o.off_scale!r}")
    if o.fmt not in FORMATS:
        raise OptionError("--format", f"expected one of {', '.join(FORMATS)}; got {o.fmt!r}")
    if files and qrels is None:
        raise OptionError("--qrels", "the judges' files are compared with human qrels: give "
                          "--qrels FILE")
    if not files and qrels is not None:
        raise OptionError("--qrels", "needs the judges' files (or leave it out to read the "
                          "database)")
    if files and (o.human is not None or o.judge):
        raise OptionError("--human" if o.human is not None else "--judge",
                          "is for the database (without files)")
    for p in [*files, *([qrels] if qrels else []), *(o.runs or [])]:
        if not p.is_file():
            raise AgreementError(f"{p}: {not_a_file(p)}")
    if o.runs is not None and len(o.runs) == 1:
        raise OptionError("--runs", "ranking systems needs two or more runs")
    from relkit.metrics.evaluator import resolve

    with option_value("--measure"):  # also without --runs: a typo is never silent
        resolve([o.measure])
    if o.output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(o.output)
    if o.scale is None:
        return None
    from relkit.corpora.types import get_scale

    with option_value("--scale"):
        return get_scale(o.scale)


def judges(files: Sequence[Path], qrels: Path | None, db: str | None,
           options: JudgesOptions | None = None) -> JudgesRun:
    """Automatic judges against human grades, rendered as ``options.fmt`` asks.

    Parameters
    ----------
    files : sequence of Path
        The judges' qrels (stem = judge) or CSV/TSV files with assessor, topic, doc,
        grade; empty: the database's automatic assessors.
    qrels : Path or None
        The human grades the files are compared with (with ``files`` only).
    db : str or None
        The judging database (without ``files``).
    options : JudgesOptions, optional

    Returns
    -------
    JudgesRun

    Raises
    ------
    OptionError
        An option's value it cannot take (the CLI's exit status 2).
    AgreementError
        Grades it cannot use (a missing file, no graded pairs, a grade off the scale).
    """
    o = options or JudgesOptions()
    files = list(files)
    declared = _check(files, qrels, o)
    # What is said on stderr besides an error waits until nothing can fail: one problem
    # is one line, never a note followed by the error it led to.
    notes: list[str] = []
    if files:
        assert qrels is not None
        truth, machines, sc = _from_files(qrels, files, declared, o.threshold,
                                          o.off_scale == "drop", notes)
    else:
        truth, machines, sc = _from_store(db, o.human, list(o.judge), declared)
    if o.threshold is not None and o.threshold not in sc:
        raise OptionError("--threshold", f"{o.threshold} is not a grade of the {sc.name!r} "
                          f"scale ({', '.join(map(str, sc.values))})")
    loaded = None
    if o.runs:
        from relkit.metrics.data import Run
        from relkit.pooling.depth import run_name

        loaded = {run_name(p): Run.read(p) for p in o.runs}
    from relkit.judging.agreement.judges import compare

    report = compare(truth, machines, sc, threshold=o.threshold, runs=loaded,
                     measure=o.measure)
    return JudgesRun(report, render(report, o.fmt), len(machines), len(truth), tuple(notes))


def _check_scale(grades: dict[Pair, int], where: dict[Pair, str], sc: RelevanceScale) -> None:
    from relkit.judging.agreement.frame import AgreementError

    for p, g in grades.items():
        if g not in sc:
            raise AgreementError(f"{where[p]}: grade {g} is not on the {sc.name!r} scale "
                                 f"({', '.join(map(str, sc.values))})")


def _check_judge_names(files: list[Path], lines: list[Any]) -> None:
    """Two qrels files whose stems name the same judge: refused before their grades
    read as one judge grading a pair twice."""
    named: dict[str, set[str]] = {}
    for r in lines:
        named.setdefault(str(r.source), set()).add(r.assessor)
    by_judge: dict[str, str] = {}
    for p in files:
        who = named.get(str(p), set())
        if who != {p.stem}:
            continue  # a long CSV/TSV names its assessors in a column
        if p.stem in by_judge:
            raise OptionError("FILES", f"{by_judge[p.stem]} and {p} name the same judge "
                              f"{p.stem!r} (a qrels file's stem names its judge): "
                              "rename one")
        by_judge[p.stem] = str(p)


def _from_files(qrels: Path, files: list[Path], declared: RelevanceScale | None,
                threshold: int | None, drop: bool, notes: list[str]
                ) -> tuple[Any, dict[str, Any], RelevanceScale]:
    """The human grades, each judge's, and the scale (declared, or the human grades');
    what to say on stderr once all went well is appended to ``notes``."""
    from relkit.judging.agreement.frame import AgreementError, infer_scale
    from relkit.judging.agreement.judges import judge_grades
    from relkit.judging.judgment_files import read_judgment_files, read_qrels_file

    human_lines = [r for r in read_qrels_file(qrels) if r.grade >= 0]
    truth = judge_grades(human_lines).get(qrels.stem, {})
    if not truth:
        raise AgreementError(f"{qrels}: no graded pairs in it")
    lines = [r for r in read_judgment_files(files) if r.grade >= 0]
    _check_judge_names(files, lines)
    where = {(r.topic, r.doc): f"{r.source}:{r.line}" for r in human_lines}
    sc = declared
    if sc is None:
        # The reference defines the scale: a judge's stray grade (an LLM answering 10 on
        # a 0-3 scale) must not widen it and change every judge's weights.
        sc = infer_scale(set(truth.values()), threshold)
        notes.append(f"relkit: scale inferred from the human grades: {list(sc.values)} "
                     "(declare it with --scale)")
    scale_name = (f"{sc.name!r} scale" if declared is not None else
                  "scale inferred from the human grades (declare one with --scale)")
    _check_scale(truth, where, sc)
    dropped: dict[str, list[int]] = {}
    kept = []
    for r in lines:
        if r.grade in sc:
            kept.append(r)
        elif drop:
            dropped.setdefault(r.assessor, []).append(r.grade)
        else:
            raise AgreementError(f"{r.source}:{r.line}: grade {r.grade} is not on the "
                                 f"{scale_name} ({', '.join(map(str, sc.values))}); "
                                 "--off-scale drop leaves such pairs out")
    if dropped:
        notes.append("relkit: dropped grades off the scale: " + ", ".join(
            f"{n} {len(g)} (grade {', '.join(map(str, sorted(set(g))))})"
            for n, g in sorted(dropped.items())))
    machines = judge_grades(kept)
    if not machines:
        raise AgreementError("no judgments in the judges' files")
    return truth, dict(sorted(machines.items())), sc


def _from_store(db: str | None, human: str | None, only: list[str],
                declared: RelevanceScale | None) -> tuple[Any, dict[str, Any], RelevanceScale]:
    from relkit.judging.agreement.frame import AgreementError
    from relkit.judging.agreement.store import from_store
    from relkit.judging.store.assign import Store
    from relkit.judging.store.reports import export_qrels

    store = Store.open(db, readonly=True)
    try:
        from relkit.judging.store.access.identity import refuse_assessor

        refuse_assessor(store, "relkit judges")  # the humans' grades: a lead's or the owner's
        kinds = store.kinds()
        machines_known = sorted(n for n, k in kinds.items() if k == "automatic")
        if not machines_known:
            raise AgreementError("no automatic assessors in this database: import one with "
                                 "`relkit import judgments FILE --assessor NAME --kind "
                                 "automatic`")
        for n in only:
            if n not in machines_known:
                raise OptionError("--judge", f"{n}: not an automatic assessor here; they are "
                                  f"{', '.join(machines_known)}")
        if human is not None and kinds.get(human) != "human":
            humans = sorted(n for n, k in kinds.items() if k == "human")
            raise OptionError("--human", f"{human}: not a human assessor here"
                              + (f"; they are {', '.join(humans)}" if humans else ""))
        rows = (export_qrels(store, "assessor", assessor=human, unjudged=False)
                if human is not None else export_qrels(store, "adjudicated", unjudged=False))
        sc = declared or store.scale()
    finally:
        store.close()
    truth = {(t, d): g for t, d, g in rows}
    if not truth:
        raise AgreementError("no human grades in this database yet to compare the judges "
                             "with" + (f" (--human {human} graded nothing)" if human else ""))
    frame, _, _ = from_store(db)
    names = only or machines_known
    machines = {n: {(t, d): int(g) for t, d, g in frame.loc[
        frame["assessor"] == n, ["topic", "doc", "grade"]].itertuples(index=False)}
        for n in names}
    return truth, machines, sc


def _num(x: float | int | None, spec: str = ".4f") -> str:
    return "-" if x is None else format(x, spec) if isinstance(x, float) else str(x)


COLUMNS = ["judge", "items", "kappa", "kappa_linear", "kappa_quadratic", "kappa_binary",
           "alpha_ordinal", "alpha_interval", "shift"]
RANK_COLUMNS = ["tau", "tau_ap", "sig_human", "sig_judge", "lost", "gained", "reversed"]


def table(report: JudgesReport) -> tuple[list[str], list[list[str]]]:
    """The report's rows as text cells (floats to 4 decimals; undefined: '-')."""
    ranked = report.measure is not None
    header = COLUMNS + (RANK_COLUMNS if ranked else [])
    rows = []
    for j in report.judges:
        row = [j.judge, str(j.items)] + [_num(v) for v in (
            j.kappa, j.kappa_linear, j.kappa_quadratic, j.kappa_binary, j.alpha_ordinal,
            j.alpha_interval, j.shift)]
        if ranked:
            r = j.ranking
            assert r is not None
            row += [_num(r.kendall_tau), _num(r.tau_ap)] + [str(n) for n in (
                r.significant_human, r.significant_judge, r.lost, r.gained, r.reversed)]
        rows.append(row)
    return header, rows


def render(report: JudgesReport, fmt: str) -> str:
    """The report as text (aligned table and confusion matrices), tsv or json."""
    if fmt == "json":
        return json.dumps(report.to_dict(), indent=2) + "\n"
    header, rows = table(report)
    if fmt == "tsv":
        # The confusion matrix in one cell: rows (human grades) split by '|'.
        header = [*header, "confusion"]
        rows = [[*r, "|".join(" ".join(map(str, c)) for c in j.confusion)]
                for r, j in zip(rows, report.judges, strict=True)]
        return "".join("\t".join(r) + "\n" for r in [header, *rows])
    n = len(report.judges)
    out = [f"{n} automatic judge{'s' * (n != 1)} against {report.human_pairs:,} human "
           f"grades (scale {report.grades}; binary kappa at grade >= {report.threshold}); "
           "shift = mean(judge - human)"]
    if report.measure is not None:
        out.append(f"systems ranked by {report.measure} over {len(report.systems)} runs; "
                   "tau_AP with the human ordering as reference; significance: two-sided "
                   "paired t-test over topics, alpha 0.05 (lost: significant under the "
                   "humans only; gained: under the judge only; reversed: both, opposite ways)")
    out.append("")
    out += _aligned([header, *rows])
    out += ["", "Confusion matrices (rows: human grade, columns: judge grade)"]
    for j in report.judges:
        out += ["", f"{j.judge} ({j.items:,} pairs)"]
        cells = [["", *map(str, report.grades)]]
        cells += [[str(g), *map(str, c)] for g, c in zip(report.grades, j.confusion,
                                                         strict=True)]
        out += ["  " + line for line in _aligned(cells, right=True)]
    return "\n".join(out) + "\n"


def _aligned(rows: list[list[str]], right: bool = False) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    pad = (lambda c, w: c.rjust(w)) if right else (lambda c, w: c.ljust(w))
    return ["  ".join(pad(c, w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]
