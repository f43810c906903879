"""``relkit eval``: trec_eval-compatible evaluation from the command line.

Data goes to stdout, diagnostics to stderr. Errors are library exceptions,
printed once, on one line, by the CLI root (:mod:`relkit.judging.cli`).

This module is the command: its options, their checks, and which evaluation
they lead to. The qrels-format evaluation itself is in
:mod:`relkit.metrics.eval_run`, the tidy formats and warnings in
:mod:`relkit.metrics.eval_output`, and the start-up shortcut through typer's
coercion in :mod:`relkit.metrics.typer_coercion`; their names stay importable from
here (``__all__``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Literal, get_args, get_type_hints

import typer

from relkit.metrics.eval_modes import MODE_HELP, check_mode
from relkit.metrics.eval_output import _tidy, _warnings, _write_tidy
from relkit.metrics.eval_run import _collector_paused, _evaluate, _load_zscores, _results
from relkit.metrics.numopt import GRADE, Num
from relkit.metrics.run_names import NameFromFileOption, NamesOption
from relkit.metrics.typer_coercion import _leaf, _plain_typer_coercion

__all__ = [
    "EPILOG", "FORMATS", "Format", "app", "eval_cmd", "list_measures",
    # moved to eval_run, eval_output and typer_coercion; importable from here as before
    "_collector_paused", "_evaluate", "_leaf", "_load_zscores", "_plain_typer_coercion",
    "_results", "_tidy", "_warnings", "_write_tidy",
]
# Not _freeze_at_exit: it is eval_run's state, and a copy here would never change.

# numpy's OpenBLAS starts a thread per core when numpy is imported (~30 ms of a
# 0.2 s command on two cores); evaluation does no linear algebra, so one will do.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

Format = Literal["trec", "tsv", "csv", "json", "parquet"]
FORMATS = get_args(Format)

app = typer.Typer(add_completion=False, no_args_is_help=True)

EPILOG = """Examples:

  relkit eval qrels.txt run.txt                       # trec_eval's official measures

  relkit eval -q -m all_trec -l2 qrels.txt run1 run2  # per topic, grade >= 2 relevant

  relkit eval -m nDCG@10 -m P@5 --format csv qrels.txt run.txt

  relkit eval -R subtopics -m alpha_nDCG@20 -m ERR_IA@20 diversity.qrels run.txt
"""


_plain_typer_coercion()


def list_measures() -> str:
    from relkit.metrics.measures import load_all
    from relkit.metrics.measures.base import REGISTRY
    from relkit.metrics.measures.trec_table import NICKNAMES

    load_all()
    rows = []
    for fam in REGISTRY.values():
        readable = (fam.readable or "").replace("{}", "k")
        params = f"[.{fam.default}]" if fam.default else ""
        origin = "trec_eval" if fam.trec else "relkit"
        rows.append(f"{fam.name + params:<48} {readable:<12} {origin:<9} {fam.description}")
    nick = "\n".join(f"{k:<12} {' '.join(v)}" for k, v in NICKNAMES.items())
    return "\n".join(rows) + "\n\nNicknames:\n" + nick + "\n"


@app.command("eval", epilog=EPILOG)
def eval_cmd(
    # str, not Path: with --engine spark they may be URLs (hdfs://nn/x), which Path
    # would fold to hdfs:/nn/x; the local path makes them Paths straight away
    qrels: Annotated[str | None, typer.Argument(
        help="Qrels file (4 or 3 columns; .gz ok; '-' reads it from stdin)")] = None,
    runs: Annotated[list[str] | None, typer.Argument(
        help="One or more TREC run files ('-' reads one from stdin)")]
        = None,
    measure: Annotated[list[str] | None, typer.Option(
        "-m", "--measure", help="Measure or nickname: P.5,10 / P@5 / nDCG@10 / all_trec. "
        "Repeatable. Default: official")] = None,
    query: Annotated[bool, typer.Option("-q", help="Print per-topic values too")] = False,
    no_summary: Annotated[bool, typer.Option("-n", help="No summary ('all') lines")] = False,
    complete: Annotated[bool, typer.Option(
        "-c", help="Average over all qrels topics (missing ones score 0)")] = False,
    level: Annotated[int, Num("-l", within=GRADE, help="Lowest grade counted as relevant")] = 1,
    max_docs: Annotated[int | None, Num(
        "-M", within="x >= 0", help="Evaluate only the top M documents of each topic")] = None,
    judged_only: Annotated[bool, typer.Option(
        "-J", help="Drop unjudged documents from the ranking")] = False,
    num_docs: Annotated[int, Num(
        "-N", within="x >= 0", help="Documents in the collection (utility, fallout)")] = 0,
    zscores: Annotated[Path | None, typer.Option(
        "-Z", help="Z-score file: lines 'qid measure mean stddev'")] = None,
    relformat: Annotated[str, typer.Option("-R", help=MODE_HELP)] = "qrels",
    smoothing: Annotated[str | None, typer.Option(
        "--smoothing", help="xinfAP's with -R prels: sample_eval (NIST's sample_eval.pl: "
        "eps/3eps, the default) or trec_eval (m_infap.c's eps/2eps; on one stratum "
        "trec_eval's infAP)")] = None,
    compat: Annotated[int, Num(
        "--compat", within="9 <= x <= 10",
        help="10: trec_eval 10 (default); 9: trec_eval 9.0.8 / pytrec_eval")] = 10,
    fmt: Annotated[str, typer.Option(
        "--format", help="trec (default), tsv, csv, json, parquet")] = "trec",
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write here instead of stdout (needed for parquet)")] = None,
    list_: Annotated[bool, typer.Option(
        "--list-measures", help="List every measure with a one-line description")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="No warnings on stderr (topics that score 0 whatever the run)")]
        = False,
    names: NamesOption = None,
    name_from_file: NameFromFileOption = False,
    engine: Annotated[str, typer.Option(
        "--engine", help="local (default) or spark: Apache Spark evaluates the runs (TREC "
        "text or Parquet; local paths, hdfs://, s3a://, globs), the same numbers; "
        "docs/spark.md")] = "local",
    spark_master: Annotated[str | None, typer.Option(
        "--spark-master", help="Spark master URL for --engine spark (local[4], yarn, "
        "k8s://https://HOST:PORT, spark://HOST:PORT; default: the spark-submit session, "
        "else RELKIT_SPARK_MASTER, else local[2])")] = None,
) -> None:
    """Evaluate runs against qrels with trec_eval's exact numbers.

    With several runs, each run's block of lines starts with its `runid` line: the run's
    tag, or its name (--names, --name-from-file) where tags repeat across files. Qrels
    topics without a relevant document (only -1 lines, or no grade >= -l) score 0 for
    every run: a warning says which (--quiet silences it).

    Example: relkit eval -m AP -m nDCG@10 qrels.txt run1.txt run2.txt
    """
    if list_:
        sys.stdout.write(list_measures())
        return
    if qrels is None or not runs:
        raise typer.BadParameter("give a QRELS file and at least one RUN file")
    check_mode(relformat, smoothing)
    if engine != "local" or spark_master is not None:
        from relkit.metrics.spark.options import check_engine

        check_engine(engine, spark_master, relformat=relformat, paths=[qrels, *runs])
    if engine == "local":
        qrels_path, run_paths = Path(qrels), [Path(r) for r in runs]
    else:
        qrels_path, run_paths = qrels, runs     # type: ignore[assignment]  # URLs kept
    if fmt not in FORMATS:
        raise typer.BadParameter(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    stdin = [str(p) for p in (qrels_path, *run_paths)].count("-")
    if stdin > 1:
        raise typer.BadParameter("stdin ('-') can feed the qrels or one run, not "
                                 f"{'both' if str(qrels_path) == '-' else 'two runs'}")
    if compat not in (9, 10):
        raise typer.BadParameter(f"--compat must be 9 or 10; got {compat}")
    from relkit.metrics.run_names import run_labels

    labels = run_labels(run_paths, names, name_from_file)
    if max_docs is not None and max_docs < 0:
        # Named as typed (-M), not as the Evaluator's max_docs.
        raise typer.BadParameter(f"must be an int >= 0; got {max_docs}", param_hint="'-M'")
    from relkit.metrics.core.options import option_value

    if relformat not in ("qrels", "subtopics"):
        from relkit.metrics.eval_modes import evaluate_mode

        evaluate_mode(relformat, qrels_path, run_paths, measure or [], query=query,
                      summary=not no_summary, complete=complete, level=level,
                      max_docs=max_docs, judged_only=judged_only, num_docs=num_docs,
                      zscores=zscores, compat=compat, smoothing=smoothing or "sample_eval",
                      stdin=stdin > 0,
                      fmt=fmt, output=output, labels=labels, warn=None if quiet else _warn)
        return
    if relformat == "subtopics":
        from relkit.metrics.diversity_cli import check_options, evaluate_subtopics

        check_options(judged_only=judged_only, num_docs=num_docs, zscores=zscores)
        got = evaluate_subtopics(qrels_path, run_paths, measure or [], query=query,
                                 summary=not no_summary, complete=complete, level=level,
                                 max_docs=max_docs, fmt=fmt, labels=labels,
                                 warn=None if quiet else _warn)
        if not isinstance(got, str):
            _write_tidy([got], fmt, output)
        elif output is not None:
            output.write_text(got, encoding="utf-8")
        else:
            sys.stdout.write(got)
        return
    from relkit.metrics.evaluator import resolve

    with option_value("'-m'"):  # an unknown measure is a usage error, found before any file
        resolve(measure or ["official"], compat)
    with _collector_paused():
        _evaluate(qrels_path, run_paths, measure or ["official"], query=query,
                  no_summary=no_summary, complete=complete, level=level, max_docs=max_docs,
                  judged_only=judged_only, num_docs=num_docs, zscores=zscores, compat=compat,
                  fmt=fmt, output=output, warn=None if quiet else _warn, engine=engine,
                  spark_master=spark_master, labels=labels)


def _warn(msg: str) -> None:
    sys.stderr.write(f"relkit eval: warning: {msg}\n")


# Typer reads the annotations with typing.get_type_hints, evaluating each string
# (``from __future__ import annotations``) several times per command; resolve them
# once here.
eval_cmd.__annotations__ = get_type_hints(eval_cmd, include_extras=True)
