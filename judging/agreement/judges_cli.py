"""``relkit judges``: automatic judges (LLM assessors) against the human grades.

Its own command next to ``relkit agree``: ``agree`` treats every assessor alike
(all pairs, the group); here one side is the reference (the humans) and each
judge is a row, as the LLMJudge and UMBRELA papers tabulate them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from relkit.corpora.types import SCALES
from relkit.judging.cliopts import DB_HELP
from relkit.metrics.commands.numopt import GRADE, Num

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.agreement.judges import JudgesReport, Pair

app = typer.Typer(no_args_is_help=False)
FORMATS = ("text", "tsv", "json")


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


@app.command()
def judges(
    files: list[Path] | None = typer.Argument(
        None, help="Judges' qrels (stem = judge) or a CSV/TSV with assessor, topic, doc, "
        "grade; with --qrels. Without files: the database's automatic assessors"),
    qrels: Path | None = typer.Option(None, "--qrels", help="The human grades (qrels) the "
                                      "judges' files are compared with"),
    db: str | None = typer.Option(None, "--db", envvar="RELKIT_DB", help=DB_HELP),
    human: str | None = typer.Option(None, help="With the database: this human assessor's "
                                     "grades (default: the humans' qrels as `export qrels "
                                     "--method adjudicated` writes them)"),
    judge: list[str] | None = typer.Option(None, "--judge", help="With the database: only "
                                           "this automatic assessor (repeatable)"),
    scale: str | None = typer.Option(None, help=f"Relevance scale of files ({', '.join(SCALES)}"
                                     "; default: every grade from the lowest to the highest "
                                     "human grade)"),
    threshold: int | None = Num(None, within=GRADE, help="Binarise at grade >= THRESHOLD for the "
                                         "binary kappa (default: the scale's)"),
    runs: list[Path] | None = typer.Option(None, "--runs", help="Run files: rank them under "
                                           "the human and each judge's qrels (tau, tau_AP, "
                                           "significant-pair flips)"),
    measure: str = typer.Option("nDCG@10", help="Measure ranking the runs"),
    off_scale: str = typer.Option("error", "--off-scale", help="A judge's grade off the "
                                  "scale: error, or drop (leave that pair out for that "
                                  "judge, counted on stderr)"),
    fmt: str = typer.Option("text", "--format", help="text, tsv or json"),
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
) -> None:
    """Automatic judges against human grades: kappa, alpha, confusion, shift; tau with runs.

    Per judge, on the pairs both graded: Cohen's kappa (unweighted, linear,
    quadratic, binary at the threshold), Krippendorff's alpha (ordinal,
    interval), the mean grade shift (judge minus human) and the confusion matrix
    (rows: human grade). With --runs: Kendall's tau and tau_AP (human ordering as
    reference) of the systems ranked by --measure, and the system pairs whose
    significance (two-sided paired t-test over topics, alpha 0.05) is lost,
    gained or reversed under the judge's qrels.

    Example: relkit judges llm/*.txt --qrels nist.qrels --format tsv

    Example: relkit judges --db project.db --runs runs/*.txt
    """
    from relkit.judging.agreement.frame import AgreementError
    from relkit.metrics.core.options import option_value

    if off_scale not in ("error", "drop"):
        raise typer.BadParameter(f"expected error or drop; got {off_scale!r}",
                                 param_hint="--off-scale")
    if fmt not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}; got {fmt!r}",
                                 param_hint="--format")
    if files and qrels is None:
        raise typer.BadParameter("the judges' files are compared with human qrels: give "
                                 "--qrels FILE", param_hint="--qrels")
    if not files and qrels is not None:
        raise typer.BadParameter("needs the judges' files (or leave it out to read the "
                                 "database)", param_hint="--qrels")
    if files and (human is not None or judge):
        raise typer.BadParameter("is for the database (without files)",
                                 param_hint="--human" if human is not None else "--judge")
    for p in [*(files or []), *([qrels] if qrels else []), *(runs or [])]:
        if not p.is_file():
            raise AgreementError(f"{p}: no such file")
    if runs is not None and len(runs) == 1:
        raise typer.BadParameter("ranking systems needs two or more runs", param_hint="--runs")
    from relkit.metrics.evaluator import resolve

    with option_value("--measure"):  # also without --runs: a typo is never silent
        resolve([measure])
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    declared = None
    if scale is not None:
        from relkit.corpora.types import get_scale

        with option_value("--scale"):
            declared = get_scale(scale)
    # What is said on stderr besides an error waits until nothing can fail: one problem
    # is one line, never a note followed by the error it led to.
    notes: list[str] = []
    if files:
        assert qrels is not None
        truth, machines, sc = _from_files(qrels, files, declared, threshold,
                                          off_scale == "drop", notes)
    else:
        truth, machines, sc = _from_store(db, human, judge or [], declared)
    if threshold is not None and threshold not in sc:
        raise typer.BadParameter(f"{threshold} is not a grade of the {sc.name!r} scale "
                                 f"({', '.join(map(str, sc.values))})", param_hint="--threshold")
    loaded = None
    if runs:
        from relkit.metrics.data import Run
        from relkit.pooling.depth import run_name

        loaded = {run_name(p): Run.read(p) for p in runs}
    from relkit.judging.agreement.judges import compare

    report = compare(truth, machines, sc, threshold=threshold, runs=loaded, measure=measure)
    text = render(report, fmt)
    for note in notes:
        _say(note)
    _say(f"relkit: {len(machines)} automatic judge{'s' * (len(machines) != 1)} against "
         f"{len(truth):,} human grades")
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        _say(f"relkit: wrote the {fmt} report to {output}")


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
            raise typer.BadParameter(f"{by_judge[p.stem]} and {p} name the same judge "
                                     f"{p.stem!r} (a qrels file's stem names its judge): "
                                     "rename one", param_hint="FILES")
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
                raise typer.BadParameter(f"{n}: not an automatic assessor here; they are "
                                         f"{', '.join(machines_known)}", param_hint="--judge")
        if human is not None and kinds.get(human) != "human":
            humans = sorted(n for n, k in kinds.items() if k == "human")
            raise typer.BadParameter(f"{human}: not a human assessor here"
                                     + (f"; they are {', '.join(humans)}" if humans else ""),
                                     param_hint="--human")
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
