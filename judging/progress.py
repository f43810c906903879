"""Where a project stands and what is left to settle: status, adjudicate, disagreements.

Each opens the database named by ``--db`` (or ``$RELKIT_DB``, else ``relkit.db`` in the
working directory), does one unit of work, and prints data on stdout and diagnostics on
stderr.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal, get_args

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
    from relkit.judging.store.reports import status as get_status

    if fmt not in get_args(Fmt):
        raise typer.BadParameter(f"expected one of {', '.join(get_args(Fmt))}",
                                 param_hint="--format")
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    store = _read(db)
    from relkit.judging.store.access.identity import who

    me = who(store)
    # An assessor sees their own progress only: their row, and their topics counting
    # their own items and grades, not everyone's (on PostgreSQL the database hides the
    # others' rows anyway); no automatic judges' grades.
    st = get_status(store, only=me.name if me.assessor else None)
    if me.assessor:
        st = type(st)(topics=st.topics, assessors=st.assessors, automatic=[])
    text = _status_text(st, fmt)
    halted = _stops(store)
    if me.assessor:
        halted = [x for x in halted if x.assessor == me.name]
    if halted and fmt == "json":
        text = text[:-2] + ',\n  "stopped": ' + json.dumps(
            [asdict(x) for x in halted]) + "\n}"
    elif halted:
        # Adaptive topics whose stopping rule said stop (short of their budget).
        rows = [["stopped", "assessor", "pool", "rule", "judged", "budget"],
                *[[x.topic, x.assessor, x.pool, x.rule, str(x.judged), str(x.budget)]
                  for x in halted]]
        if fmt == "tsv":
            text += "\n\n" + "\n".join("\t".join(r) for r in rows)
        else:
            width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
            text += "\n\n" + "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width,
                                                                               strict=True))
                                        .rstrip() for r in rows)
    prefs = _preferences(store, me.name if me.assessor else None)
    if prefs and fmt == "json":
        text = text[:-2] + ',\n  "preferences": ' + json.dumps(prefs) + "\n}"
    elif prefs:
        # Pairs answered per topic (relkit judge --pairs), against all the pool's pairs:
        # what all-pairs asks; top-k and adaptive stop earlier (the strategy is the
        # screen's choice, not stored).
        rows = [["preferences", "assessor", "answered", "all_pairs"],
                *[[p["topic"], p["assessor"], str(p["answered"]), str(p["all_pairs"])]
                  for p in prefs]]
        text += "\n\n" + _table(rows, fmt)
    text = _with_cal(store, text, fmt, me.name if me.assessor else None)
    if output is not None:
        with open_output(output) as fp:
            fp.write(text + "\n")
        return
    typer.echo(text)


def _table(rows: list[list[str]], fmt: str) -> str:
    if fmt == "tsv":
        return "\n".join("\t".join(r) for r in rows)
    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)).rstrip()
                     for r in rows)


def _preferences(store: Any, only: str | None) -> list[dict[str, Any]]:
    """Preference progress per topic and assessor, only if the database holds any
    preference (so the status of a project without them stays as it was)."""
    from sqlalchemy import select
    from sqlmodel import col

    from relkit.judging.store.tables import PreferenceRow

    with store.read() as s:
        if s.execute(select(col(PreferenceRow.id)).limit(1)).first() is None:
            return []
    from relkit.judging.store.preferences import topic_progress
    from relkit.pooling.pool import natural

    got = [{"topic": t, "assessor": who, "answered": n, "all_pairs": total}
           for (who, t), (n, total) in topic_progress(store).items()
           if (only is None or who == only) and (n or total)]
    return sorted(got, key=lambda p: (natural(p["topic"]), p["assessor"]))


def _with_cal(store: Any, text: str, fmt: str, only: str | None) -> str:
    """``text`` plus, when a pool is ``cal``, each cal topic's review (judged, relevant
    found, the stopping rule's state and recall estimate); unchanged otherwise."""
    if not _has_cal(store):
        return text
    from relkit.judging.store.calstatus import cal_standing

    cal = [x for x in cal_standing(store) if only is None or x.assessor == only]
    if not cal:
        return text
    if fmt == "json":
        return text[:-2] + ',\n  "cal": ' + json.dumps([asdict(x) for x in cal]) + "\n}"
    rows = [["cal topic", "assessor", "pool", "judged", "relevant", "rule", "recall_est",
             "state"],
            *[[x.topic, x.assessor, x.pool, str(x.judged), str(x.relevant), x.rule or "-",
               "-" if x.recall is None else f"{x.recall:.2f}", x.state] for x in cal]]
    return text + "\n\n" + _table(rows, fmt)


def _has_cal(store: Any) -> bool:
    """Any cal pool? (Read from the pools' parameters: only then the strategies load.)"""
    from sqlalchemy import select

    from relkit.judging.store.tables import PoolRow

    with store.read() as s:
        params = s.execute(select(PoolRow).with_only_columns(  # type: ignore[call-overload]
            PoolRow.params_json)).scalars()
        return any('"strategy": "cal"' in (p or "") for p in params)


def _stops(store: Any) -> list[Any]:
    """The stopping rules' verdicts, if any pool has a rule (only then the strategies load)."""
    from sqlalchemy import select

    from relkit.judging.store.tables import PoolRow

    with store.read() as s:
        params = s.execute(select(PoolRow).with_only_columns(  # type: ignore[call-overload]
            PoolRow.params_json)).scalars()
        if not any('"stop"' in (p or "") for p in params):
            return []
    from relkit.judging.store.adaptive import stops

    return stops(store)


def _status_text(st: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"topics": [asdict(t) for t in st.topics],
                           "assessors": [asdict(a) for a in st.assessors],
                           "automatic": [asdict(a) for a in st.automatic]}, indent=2)
    sep = "\t" if fmt == "tsv" else "  "

    def num(x: float | None, spec: str) -> str:
        return "-" if x is None else format(x, spec)

    # done + skipped + pending = items; "later" items are part of pending.
    rows = [["assessor", "topics", "items", "done", "skipped", "pending", "later", "per_hour",
             "median_dwell_s"]]
    rows += [[a.assessor, str(a.topics), str(a.items), str(a.done), str(a.skipped),
              str(a.pending), str(a.later), num(a.per_hour, ".1f"),
              num(a.median_dwell_s, ".1f")] for a in st.assessors]
    rows += [[]]
    rows += [["topic", "assessors", "items", "done", "skipped", "grades"]]
    rows += [[t.topic, str(t.assessors), str(t.items), str(t.done), str(t.skipped),
              " ".join(f"{g}:{n}" for g, n in sorted(t.grade_counts.items())) or "-"]
             for t in st.topics]
    if st.automatic:  # apart from the people: imported, not judged (relkit judges)
        rows += [[], ["automatic", "topics", "judgments", "grades"]]
        rows += [[a.assessor, str(a.topics), str(a.judgments),
                  " ".join(f"{g}:{n}" for g, n in a.grade_counts.items()) or "-"]
                 for a in st.automatic]
    if fmt == "tsv":
        return "\n".join(sep.join(r) for r in rows)
    blocks: list[list[list[str]]] = [[]]
    for r in rows:
        if r:
            blocks[-1].append(r)
        else:
            blocks.append([])
    out = []
    for block in blocks:
        widths = [max(len(r[i]) for r in block if i < len(r)) for i in range(len(block[0]))]
        out += [sep.join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
                for r in block]
        out.append("")
    return "\n".join(out).rstrip()


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
