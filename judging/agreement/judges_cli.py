"""``relkit judges``: automatic judges (LLM assessors) against the human grades.

Its own command next to ``relkit agree``: ``agree`` treats every assessor alike
(all pairs, the group); here one side is the reference (the humans) and each
judge is a row, as the LLMJudge and UMBRELA papers tabulate them. The command parses,
calls :func:`relkit.judging.agreement.judges_report.judges` and prints.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.corpora.types import SCALES
from relkit.judging.agreement.judges_report import JudgesOptions
from relkit.judging.agreement.judges_report import judges as run_judges
from relkit.judging.cliopts import DB_HELP
from relkit.metrics.commands.numopt import GRADE, Num

app = typer.Typer(no_args_is_help=False)


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
    done = run_judges(files or [], qrels, db, JudgesOptions(
        human=human, judge=judge or (), scale=scale, threshold=threshold, runs=runs,
        measure=measure, off_scale=off_scale, fmt=fmt, output=output))
    for note in done.notes:
        _say(note)
    _say(f"relkit: {done.judges} automatic judge{'s' * (done.judges != 1)} against "
         f"{done.human_grades:,} human grades")
    if output is None:
        sys.stdout.write(done.text)
    else:
        output.write_text(done.text, encoding="utf-8")
        _say(f"relkit: wrote the {fmt} report to {output}")
