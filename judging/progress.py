"""Where a project stands and what is left to settle: status, adjudicate, disagreements.

Each opens the database named by ``--db`` (or ``$RELKIT_DB``, else ``relkit.db`` in the
working directory), does one unit of work, and prints data on stdout and diagnostics on
stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import typer

from relkit.judging.cliopts import DbOpt, open_output
from relkit.judging.cliopts import open_store as _open
from relkit.judging.cliopts import read_store as _read
from relkit.judging.cliopts import say as _say
from relkit.metrics.commands.tableopts import TableFormat, TableOutput

app = typer.Typer(no_args_is_help=True)

Fmt = Literal["text", "tsv", "json"]


@app.command()
def status(db: str | None = DbOpt,
           fmt: str = typer.Option("text", "--format", help="text, tsv or json"),
           output: Path | None = typer.Option(None, "-o", "--output",
                                              help="File (default stdout)")) -> None:
    """Progress per topic and per assessor, judgments per hour, median dwell time.

    Example: relkit status --db team.db
    """
    from relkit.judging.statusview import check_format, status_report

    check_format(fmt)
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    text = status_report(_read(db), fmt)
    if output is not None:
        with open_output(output) as fp:
            fp.write(text + "\n")
        return
    typer.echo(text)


@app.command()
def adjudicate(
    topic: str, doc: str, grade: int,
    db: str | None = DbOpt,
    lead: str | None = typer.Option(None, help="The lead recording the final grade "
                                    "(default: the lead relkit acts for: their login or "
                                    "$RELKIT_USER)"),
    note: str | None = typer.Option(
        None, help="The reason (default: a decided pair keeps its reason; an undecided "
        "one gets none); needed when a decided pair's grade changes"),
) -> None:
    """Record a lead's final grade for a pair the assessors disagreed on.

    A decided pair's grade changes only with --note, the reason for the change; the
    decision replaced stays in the pair's history (`relkit export jsonl`:
    adjudication_history). Without --note the pair keeps its reason: its own grade again
    changes nothing. With --note and its own grade, the reason alone is replaced.

    Example: relkit adjudicate 7 doc123 2 --lead carol --note "narrative says so"
    """
    from relkit.judging.store.access.identity import check_acts_as, who
    from relkit.judging.store.decisions import ReasonRequired
    from relkit.judging.store.decisions import adjudicate as run

    store = _open(db)
    if lead is None:
        me = who(store)
        if me.role != "lead":
            store.close()
            raise typer.BadParameter("name the lead recording the grade"
                                     + (f" ({me.name}, {me.via}, is an assessor)"
                                        if me.name else ""), param_hint="--lead")
        lead = str(me.name)
    check_acts_as(store, lead, f"adjudicate --lead {lead}")
    try:
        got = run(store, lead, topic, doc, grade, note)
    except ReasonRequired as exc:
        raise typer.BadParameter(
            f"topic {topic} document {doc} has the final grade {exc.old_grade}: give the "
            f"reason for changing it from {exc.old_grade} to {grade}; nothing was changed",
            param_hint="--note") from None
    where = f"topic {topic} document {doc}"
    if not got:
        _say(f"relkit: {where} has the final grade {grade} "
             + ("already (its reason kept)" if note is None else "with this reason already")
             + ": nothing changed")
    elif got.old_grade is None:
        _say(f"relkit: adjudicated {where}: grade {grade}")
    elif got.old_grade != grade:
        _say(f"relkit: adjudicated {where}: final grade changed from {got.old_grade} to "
             f"{grade} (the old one stays in its history)")
    else:
        _say(f"relkit: adjudicated {where}: final grade {grade} kept, its reason replaced "
             "(the old one stays in its history)")


@app.command()
def disagreements(
    db: str | None = DbOpt,
    fmt: TableFormat = "tsv",
    output: TableOutput = None,
    include_automatic: bool = typer.Option(False, "--include-automatic", help="Count "
                                           "automatic assessors' grades (default: humans "
                                           "only)"),
) -> None:
    """List pairs that assessors graded differently (TSV: topic, doc, grades, adjudication).

    Not yet adjudicated: '-' (null in JSON). Automatic assessors count only with
    --include-automatic.

    Example: relkit disagreements --db team.db --format csv -o disagreements.csv
    """
    from relkit.judging.store.access.identity import refuse_assessor
    from relkit.judging.store.reports import disagreements as run
    from relkit.metrics.core.tables import check_table_options, write_table

    check_table_options(fmt, output)
    store = _read(db)
    refuse_assessor(store, "relkit disagreements")
    rows = [[d.topic, d.doc, " ".join(f"{a}={g}" for a, g in sorted(d.grades.items())),
             d.adjudicated] for d in run(store, include_automatic)]
    write_table(["topic", "doc", "grades", "adjudicated"], rows, fmt, output, missing="-")
