"""Judgments in and out of the database: ``export qrels|jsonl|prefs``, ``import judgments``."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from relkit.judging.cliopts import DbOpt, open_output
from relkit.judging.cliopts import read_store as _read
from relkit.judging.cliopts import say as _say
from relkit.metrics.commands.numopt import COUNT, GRADE, SEED, Num

export_app = typer.Typer(help="Write judgments out: qrels or a full JSONL dump.",
                         no_args_is_help=True,
                         epilog="Example: relkit export qrels --db project.db -o qrels.txt")
import_app = typer.Typer(help="Bring outside judgments into the database.",
                         no_args_is_help=True,
                         epilog="Example: relkit import judgments ann.qrels bob.qrels "
                                "--db project.db")


@export_app.command("qrels")
def export_qrels(
    db: str | None = DbOpt,
    method: str = typer.Option("majority", help="majority, mean, assessor, primary, "
                               "adjudicated; crowd aggregation: wawa, dawid-skene, glad, mace"),
    assessor: str | None = typer.Option(None, help="The assessor (for assessor/primary)"),
    threshold: int | None = Num(None, within=GRADE, help="Binarise: grade >= threshold -> 1"),
    unjudged: bool = typer.Option(True, "--unjudged/--no-unjudged",
                                  help="Write pooled-but-unjudged pairs as -1"),
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
    quiet: bool = typer.Option(False, "--quiet", help="No warning about disagreements "
                               "settled by the majority rule"),
    include_automatic: bool = typer.Option(False, "--include-automatic", help="Count "
                                           "automatic assessors' grades as a human's "
                                           "(default: humans only)"),
    labels: list[Path] | None = typer.Option(
        None, "--labels", help="Aggregate this label file (repeatable) instead of the "
        "database: a CSV/TSV with worker, topic, doc, label columns (the TREC 2010 crowd "
        "file as it ships) or a qrels file per worker; methods majority, wawa, "
        "dawid-skene, glad, mace"),
    max_iter: int | None = Num(None, "--max-iter", within=COUNT, help="Most EM "
                                        "iterations (dawid-skene, glad: 100; mace: 50)"),
    tol: float | None = Num(None, "--tol", within="x >= 0", help="EM convergence "
                                     "tolerance (dawid-skene, glad: 1e-5; mace: none)"),
    seed: int = Num(0, "--seed", within=SEED, help="Random starts' seed (mace)"),
) -> None:
    """Write qrels from the judgments.

    Methods: majority (the most frequent grade; a tie goes to the lower grade), mean
    (rounded half up), assessor (one assessor's grades), primary (the assessor's grade,
    else the others' majority), adjudicated (the lead's grade where there is one, else
    the majority as above; a warning counts the disagreements settled that way).
    Automatic assessors (imported with --kind automatic) count only with
    --include-automatic, or as the one --assessor named.
    Crowd aggregation (every assessor's grade is one worker's label; docs/crowd.md):
    wawa (majority weighted by agreement with it), dawid-skene (Dawid & Skene 1979),
    glad (Whitehill et al. 2009), mace (Hovy et al. 2013); with --labels FILE they
    read a label file instead of the database.

    Example: relkit export qrels --method majority --threshold 2 -o qrels.txt
    """
    from relkit.judging.crowd.methods import METHODS as CROWD
    from relkit.judging.store.reports import METHODS, write_qrels
    from relkit.judging.store.reports import export_qrels as run

    known = [*METHODS, *(m for m in CROWD if m not in METHODS)]
    if method not in known or (labels and method not in CROWD):
        allowed = list(CROWD) if labels else known
        raise typer.BadParameter(f"expected one of {', '.join(allowed)}"
                                 f"{' (with --labels)' if labels else ''}; got {method!r}",
                                 param_hint="--method")
    opts = {"max_iter": max_iter, "tol": tol, "seed": seed}
    if labels:
        from relkit.judging.crowd.files import read_labels
        from relkit.judging.crowd.methods import aggregate
        from relkit.judging.store.reports import QrelsRows

        read = read_labels(labels)
        seen = [int(c) for c in read.table.classes]
        if threshold is not None and threshold not in seen:
            raise typer.BadParameter(f"{threshold} is not a label of "
                                     f"{', '.join(map(str, labels))} "
                                     f"({', '.join(map(str, seen))})", param_hint="--threshold")
        for note in read.notes:
            _say(f"relkit: {note}")
        agg = aggregate(read.table, method, **opts)
        from relkit.pooling.pool import natural

        rows = QrelsRows(sorted(((t, d, g if threshold is None else int(g >= threshold))
                                 for t, d, g in agg.rows()),
                                key=lambda r: (natural(r[0]), r[1])))
    else:
        from relkit.judging.store.access.identity import check_export

        store = _read(db)
        check_export(store, method, assessor)  # an assessor exports only their own grades
        sc = store.scale()
        if threshold is not None and threshold not in sc.values:
            raise typer.BadParameter(f"{threshold} is not a grade of the {sc.name!r} scale "
                                     f"({', '.join(map(str, sc.values))})",
                                     param_hint="--threshold")
        if method not in METHODS:
            from relkit.judging.crowd.store import store_qrels

            rows = store_qrels(store, method, threshold=threshold,  # type: ignore[assignment]
                               unjudged=unjudged, include_automatic=include_automatic, **opts)
        else:
            rows = run(store, method, assessor=assessor,  # type: ignore[arg-type]
                       threshold=threshold, unjudged=unjudged,
                       include_automatic=include_automatic)
    if output is None:
        write_qrels(rows, sys.stdout)
    else:
        with open_output(output) as fp:
            write_qrels(rows, fp)
        _say(f"relkit: wrote {len(rows)} qrels lines to {output}")
    if method == "adjudicated" and rows.settled and not quiet:
        n, ties = rows.settled, rows.ties_low
        _say(f"relkit export qrels: warning: {n} disagreement{'s' if n != 1 else ''} "
             f"without a lead's grade {'were' if n != 1 else 'was'} settled by majority "
             f"({ties} tie{'s' if ties != 1 else ''} given the lower grade); adjudicate "
             "them first (relkit disagreements; relkit judge --lead NAME) or pass --quiet")


@export_app.command("jsonl")
def export_jsonl(
    db: str | None = DbOpt,
    output: Path | None = typer.Option(None, "-o", "--output", help="File (default stdout)"),
) -> None:
    """Dump every pair with its pools, provenance, judgments and their history, and the
    final grade with its history (adjudication, adjudication_history); then every
    preference with its note, flag and history ("record": "preference").

    Example: relkit export jsonl -o judgments.jsonl
    """
    from relkit.judging.store.access.identity import refuse_assessor
    from relkit.judging.store.reports import write_jsonl

    store = _read(db)
    refuse_assessor(store, "export jsonl")
    if output is None:
        write_jsonl(store, sys.stdout)
        return
    with open_output(output) as fp:
        n = write_jsonl(store, fp)
    _say(f"relkit: wrote {n} records to {output}")


@import_app.command("judgments")
def import_judgments(
    files: list[Path] = typer.Argument(..., help="Qrels per assessor (stem = assessor) or "
                                       "a CSV/TSV with assessor, topic, doc, grade"),
    db: str | None = DbOpt,
    add_missing: bool = typer.Option(False, help="Add unknown topics/documents (no text)"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or summary"),
    assessor: str | None = typer.Option(None, help="The assessor of every judgment in the "
                                        "files (default: a qrels file's stem, a table's "
                                        "assessor column)"),
    kind: str = typer.Option("human", help="human, or automatic (an LLM or other "
                             "automatic judge: kept apart from humans in status and exports)"),
) -> None:
    """Import judgments, all or nothing; they mark the assessors' assigned items done.

    Example: relkit import judgments alice.qrels bob.qrels

    Example: relkit import judgments umbrela.qrels --assessor umbrela --kind automatic
    """
    from relkit.judging.importfiles import ImportRequest, import_files, summary_line
    from relkit.judging.owner import owner_store

    done = import_files(ImportRequest(files=files, add_missing=add_missing, quiet=quiet,
                                      assessor=assessor, kind=kind),
                        open_store=lambda: owner_store(db, "import judgments"), say=_say)
    if not quiet:
        _say(summary_line(done))


@export_app.command("prefs")
def export_prefs(
    db_arg: str | None = typer.Argument(None, metavar="[DB]", help="The judging database "
                                        "(or --db)", show_default=False),
    db: str | None = DbOpt,
    output: Path | None = typer.Option(None, "--answers", help="Answers file to write (TSV: "
                                       "topic_id, left, right, answer, assessor)"),
    to: str | None = typer.Option(None, "--to", help="Also (or instead) write trec_eval's "
                                  "prefs or qrels_prefs format, or graded qrels from "
                                  "Bradley-Terry scores: prefs, qrels_prefs or qrels "
                                  "(as relkit prefs convert)"),
    dest: Path | None = typer.Option(None, "-o", "--output", help="With --to: write "
                                          "here (default: stdout)"),
    levels: int = Num(3, "--levels", within="x >= 1", help="With --to qrels: grades above 0 "
                      "(bins of the Bradley-Terry scores)"),
) -> None:
    """Write the current preference answers (relkit judge --pairs): as an answers file
    (--answers), or converted for relkit eval -R prefs / -R qrels_prefs / plain qrels
    (--to; the same output as relkit prefs convert on the answers file).

    Example: relkit export prefs project.db --answers answers.tsv

    Example: relkit export prefs project.db --to prefs -o prefs.txt
    """
    from relkit.judging.store.access.identity import refuse_assessor
    from relkit.judging.store.preferences import write_answers

    if db_arg is not None and db is not None and db_arg != db:
        raise typer.BadParameter(f"two databases given: {db_arg} and --db {db}",
                                 param_hint="DB")
    if dest is not None and to is None:
        raise typer.BadParameter("-o is where --to's output goes: give --to too "
                                 "(the answers file is --answers)", param_hint="-o")
    if output is None and to is None:
        raise typer.BadParameter("say what to write: --answers FILE, --to FORMAT, or both",
                                 param_hint="--answers/--to")
    from relkit.metrics.prefs.cli import FORMATS

    if to is not None and to not in FORMATS:
        raise typer.BadParameter(f"expected one of {', '.join(FORMATS)}; got {to!r}",
                                 param_hint="--to")
    from relkit.metrics.core.errors import check_outputs

    check_outputs((output, "--answers"), (dest, "-o"))    # before the work
    store = _read(db_arg if db_arg is not None else db)
    refuse_assessor(store, "export prefs")
    import io

    buf = io.StringIO()
    n = write_answers(store, buf)  # refused before the file is opened
    text = None
    if to is not None:
        from relkit.judging.store.models import StoreError
        from relkit.metrics.prefs.answers import read_answers
        from relkit.metrics.prefs.cli import render

        if n == 0:
            raise StoreError("no preference answers to convert yet (relkit judge --pairs)")
        # Read back as the answers file: the same lines, so the same output as
        # relkit prefs convert on it (trec_eval's sub-groups are named by line).
        text = render(read_answers(buf.getvalue()), to, levels, "the database's answers")
    if output is not None:
        with open_output(output, "--answers") as fp:
            fp.write(buf.getvalue())
        _say(f"relkit: wrote {n} answer{'s' if n != 1 else ''} to {output}")
    if text is not None:
        if dest is None:
            sys.stdout.write(text)
        else:
            with open_output(dest, "-o") as fp:
                fp.write(text)
            _say(f"relkit: wrote {n} answer{'s' if n != 1 else ''} as {to} to {dest}")
