"""``relkit agree``: the agreement report from the judging database or judgment files."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.corpora.types import SCALES
from relkit.judging.cliopts import DB_HELP
from relkit.metrics.commands.numopt import GRADE, SEED, Num

app = typer.Typer(no_args_is_help=True)


def _say(msg: str) -> None:
    sys.stderr.write(msg + "\n")


@app.command()
def agree(
    judgments: list[Path] | None = typer.Argument(
        None, help="Qrels per assessor (stem = assessor) or a CSV/TSV with assessor, topic, "
        "doc, grade; without files, the database (--db)"),
    db: str | None = typer.Option(None, "--db", envvar="RELKIT_DB", help=DB_HELP),
    threshold: int | None = Num(None, within=GRADE, help="Binarise at grade >= THRESHOLD "
                                         "(default: the scale's threshold)"),
    runs: list[Path] | None = typer.Option(None, "--runs", help="Run files: evaluate them "
                                           "under each assessor's qrels (effect on conclusions)"),
    fmt: str = typer.Option("text", "--format", help="text, json, markdown or html"),
    scale: str | None = typer.Option(None, help="Declared relevance scale for files "
                                     f"({', '.join(SCALES)}; default: every grade from "
                                     "the lowest to the highest seen)"),
    gold: str | None = typer.Option(None, help="The assessor whose grades are gold (default: "
                                    "the database's gold pairs, or a long table's gold "
                                    "column, when there are any)"),
    repeats: str = typer.Option("error", help="A pair judged twice by one assessor: error, "
                                "first, last or majority"),
    measure: str = typer.Option("nDCG@10", help="Measure for the effect on conclusions"),
    replicates: int = Num(1000, within="x >= 0", help="Bootstrap replicates (0: none)"),
    seed: int = Num(0, within=SEED, help="Bootstrap seed"),
    interval: str = typer.Option("normal", "--interval", help="Analytic intervals: normal, or "
                                 "t (t with n - 1 df for the coefficients whose reference, "
                                 "irrCAC / Gwet 2014, uses it; normal for the others; ICC: F)"),
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
    workers: bool = typer.Option(False, "--workers", help="Per worker instead: labels, "
                                 "accuracy against gold and against the --method aggregate, "
                                 "the method's skill, Dawid-Skene's confusion diagonal "
                                 "(formats text, tsv, json, markdown; --gold may be a qrels "
                                 "file)"),
    method: str = typer.Option("dawid-skene", "--method", help="The aggregate the workers "
                               "are compared with (--workers): majority, wawa, dawid-skene, "
                               "glad or mace"),
    include_automatic: bool = typer.Option(False, "--include-automatic", help="With "
                                           "--workers on the database: count automatic "
                                           "assessors (--kind automatic) as workers too"),
) -> None:
    """Agreement between assessors: kappa, alpha, AC1 with CIs; overlap; effect on rankings.

    With --workers, a crowd's workers instead (docs/crowd.md).

    Example: relkit agree alice.qrels bob.qrels --threshold 2 --format html -o agree.html
    """
    if include_automatic and (judgments or not workers):
        # it chooses whom the store's workers include: on label files it would do nothing
        _say("relkit agree: error: --include-automatic needs --workers on the judging "
             "database (--db), not label files")
        raise typer.Exit(2)
    if workers:
        from relkit.judging.crowd.agree import workers_text
        from relkit.judging.crowd.errors import CrowdError
        from relkit.judging.crowd.methods import METHODS

        try:
            METHODS.lookup(method)   # a bad option value is a usage error (exit 2), early
        except CrowdError as exc:
            raise typer.BadParameter(str(exc), param_hint="--method") from None

        if output is not None:
            from relkit.metrics.core.errors import check_output

            check_output(output)
        stored = None
        if not judgments:
            from relkit.judging.agreement.store import from_store

            # automatic assessors are not crowd workers unless asked (as in export qrels)
            frame, _, found = from_store(db, automatic=include_automatic)
            stored = (frame, found)
        text, notes = workers_text(judgments, stored, gold, method, fmt, seed)
        for note in notes:
            _say(f"relkit: {note}")
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
            _say(f"relkit: wrote the per-worker {fmt} report to {output}")
        return
    from relkit.corpora.types import get_scale
    from relkit.judging.agreement.analysis import Options, analyse
    from relkit.judging.agreement.frame import (
        REPEATS,
        AgreementError,
        Ratings,
        drop_negative,
        infer_scale,
        read_files,
    )
    from relkit.judging.agreement.report import FORMATS
    from relkit.metrics.core.errors import RelkitError
    from relkit.metrics.core.options import option_value

    with option_value("--format"):
        report = FORMATS.lookup(fmt)    # an unknown name fails before any work
    with option_value("--scale"):
        declared = get_scale(scale) if scale is not None else None
    if runs:
        from relkit.metrics.evaluator import resolve

        with option_value("--measure"):
            resolve([measure])
        for p in runs:  # before the work, not after it; a failure (exit 1), named as typed
            if not p.is_file():
                raise AgreementError(f"--runs {p}: no such file")
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    if repeats not in REPEATS:
        raise typer.BadParameter(f"expected one of {', '.join(REPEATS)}; got {repeats!r}",
                                 param_hint="--repeats")
    if replicates < 0:
        raise typer.BadParameter("must be >= 0", param_hint="--replicates")
    from relkit.judging.agreement.ci import DISTRIBUTIONS

    if interval not in DISTRIBUTIONS:
        raise typer.BadParameter(f"expected one of {', '.join(DISTRIBUTIONS)}; got {interval!r}",
                                 param_hint="--interval")
    found_gold = None
    if judgments:
        frame = read_files(judgments)
        for note in frame.attrs.get("notes", []):
            _say(f"relkit: {note}")
        frame, dropped = drop_negative(frame, declared)
        if dropped:
            _say("relkit: dropped judgments with negative codes (not relevance grades, e.g. "
                 "TREC's -2 = broken link): " + ", ".join(f"{n:,} with {g}" for g, n in
                                                           dropped.items()))
        if declared is not None:
            sc = declared
        else:
            sc = infer_scale(frame["grade"], threshold)
            _say(f"relkit: scale inferred from the grades seen: {list(sc.values)} "
                 "(declare it with --scale)")
        if frame["is_gold"].any():
            found_gold = str(frame.loc[frame["is_gold"], "assessor"].iat[0])
    else:
        from relkit.judging.agreement.store import from_store

        try:
            frame, sc, found_gold = from_store(db)
        except RelkitError as exc:
            if not runs or db is not None:
                raise
            # `agree --runs r1.txt r2.txt a.qrels b.qrels` took the judgments for runs
            raise AgreementError(f"{exc} (judgment files after --runs are read as runs: put "
                                 "them first, or end the run list with --)") from None
        if declared is not None:
            sc = declared
    if gold is None and found_gold is not None:
        gold = found_gold
        _say(f"relkit: agreement with gold is reported against {gold!r} (the gold "
             f"{'column' if judgments else 'table'}; --gold NAME chooses another assessor)")
    if threshold is not None and threshold not in sc:
        raise AgreementError(f"--threshold {threshold} is not a grade of the {sc.name!r} scale "
                             f"({', '.join(map(str, sc.values))})")
    ratings = Ratings.from_frame(frame, sc, repeats)  # type: ignore[arg-type]
    if len(ratings.assessors) < 2:
        hint = (" (judgment files after --runs are read as runs: put them first, or end "
                "the run list with --)" if runs and judgments else "")
        raise AgreementError(f"agreement needs two or more assessors; found "
                             f"{', '.join(ratings.assessors) or 'none'}{hint}")
    _say(f"relkit: {len(frame):,} judgments by {len(ratings.assessors)} assessors on "
         f"{len(ratings):,} items")
    result = analyse(ratings, threshold, gold=gold,
                     opts=Options(replicates=replicates, seed=seed, interval=interval))
    if result.graded.icc_dropped:
        _say(f"relkit: ICC: {result.graded.icc_dropped:,} of {len(ratings):,} items were not "
             "judged by every assessor and were left out (ICC needs complete ratings)")
    if runs:
        from relkit.judging.agreement.ir import effect
        from relkit.metrics.data import Run
        from relkit.pooling.depth import run_name

        loaded = {}
        for p in runs:
            loaded[run_name(p)] = Run.read(p)
        result.effect = effect(ratings, loaded, measure, threshold)
    text = report.render(result)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        _say(f"relkit: wrote the {fmt} report to {output}")
