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
    from relkit.judging.agreement.run import AgreeOptions, agree_workers
    from relkit.judging.agreement.run import agree as agreement

    def note(msg: str) -> None:
        _say(f"relkit: {msg}")

    if workers:
        text = agree_workers(judgments, db=db, gold=gold, method=method, fmt=fmt, seed=seed,
                             include_automatic=include_automatic, output=output, notify=note)
        if output is not None:
            output.write_text(text, encoding="utf-8")
        what = "per-worker "
    else:
        from relkit.metrics.core.exitgc import freeze_at_exit
        from relkit.metrics.core.progress import Bar

        opts = AgreeOptions(threshold=threshold, runs=runs or (), fmt=fmt, scale=scale,
                            gold=gold, repeats=repeats, measure=measure,
                            replicates=replicates, seed=seed, interval=interval,
                            output=output)
        # Seconds on a real collection (scipy's import, the bootstrap, the runs): each step
        # named, up to the written file, which the last label names.
        with Bar("reading the judgments", unit="steps") as bar:
            steps = 0

            def progress(done: int, total: int, label: str) -> None:
                nonlocal steps
                steps = total + (output is not None)
                bar.update(done, steps, label)

            text = agreement(judgments, db=db, options=opts, progress=progress,
                             notify=lambda msg: bar.note(f"relkit: {msg}")).text
            if output is not None:
                bar.update(steps - 1, label=f"writing the report to {output}")
                output.write_text(text, encoding="utf-8")
                bar.update(steps, label=f"report written to {output}")
        what = ""
        freeze_at_exit()  # the collector's last pass over scipy's and pandas' objects
    if output is None:
        sys.stdout.write(text)
    else:
        _say(f"relkit: wrote the {what}{fmt} report to {output}")
