"""``relkit eval``: trec_eval-compatible evaluation from the command line.

Data goes to stdout, diagnostics to stderr. Errors are library exceptions,
printed once, on one line, by the CLI root (:mod:`relkit.judging.cli`).

This module is the command: its options and their help. What it does with their
values is :func:`relkit.metrics.eval.command.run_eval`, which the CLI root also
calls straight from the command line (:mod:`relkit.metrics.eval.argv`, without
typer) when the command line is a valid one. The qrels-format evaluation itself is in
:mod:`relkit.metrics.eval.run`, the tidy formats and warnings in
:mod:`relkit.metrics.eval.output`, and the start-up shortcut through typer's
coercion in :mod:`relkit.metrics.eval.typer_coercion`; their names stay importable from
here (``__all__``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, NoReturn, get_type_hints

import typer

from relkit.metrics.commands.numopt import GRADE, Num
from relkit.metrics.commands.run_names import NameFromFileOption, NamesOption
from relkit.metrics.eval.command import FORMATS, list_measures, run_eval
from relkit.metrics.eval.modes import MODE_HELP
from relkit.metrics.eval.typer_coercion import _plain_typer_coercion

__all__ = [
    "EPILOG", "FORMATS", "Format", "app", "eval_cmd", "list_measures",
]
# Not _freeze_at_exit: it is eval_run's state, and a copy here would never change.

# (OPENBLAS_NUM_THREADS=1 before numpy: set by relkit.metrics.eval.command, imported above.)
Format = Literal["trec", "tsv", "csv", "json", "parquet"]  # FORMATS, as a type

app = typer.Typer(add_completion=False, no_args_is_help=True)

EPILOG = """Examples:

  relkit eval qrels.txt run.txt                       # trec_eval's official measures

  relkit eval -q -m all_trec -l2 qrels.txt run1 run2  # per topic, grade >= 2 relevant

  relkit eval -m nDCG@10 -m P@5 --format csv qrels.txt run.txt

  relkit eval -R subtopics -m alpha_nDCG@20 -m ERR_IA@20 diversity.qrels run.txt
"""


_plain_typer_coercion()


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
    ppi: Annotated[bool, typer.Option(
        "--ppi", help="Prediction-powered evaluation: every argument is a run; P@k and "
        "DCG@k estimated from --human (a sample) and --auto (every pooled pair) with "
        "intervals (any measure, AP and nDCG too, with --design topics); "
        "docs/automatic-judges.md")] = False,
    human: Annotated[Path | None, typer.Option(
        "--human", help="With --ppi: human qrels of the sampled pairs")] = None,
    auto: Annotated[Path | None, typer.Option(
        "--auto", help="With --ppi: automatic qrels of every pooled pair")] = None,
    design: Annotated[str, typer.Option(
        "--design", help="With --ppi: how the human sample was drawn: simple (default) "
        "or stratified (by automatic grade) pairs, or topics (whole topics at random, "
        "each judged on all its pooled pairs)")] = "simple",
) -> None:
    """Evaluate runs against qrels with trec_eval's exact numbers.

    With several runs, each run's block of lines starts with its `runid` line: the run's
    tag, or its name (--names, --name-from-file) where tags repeat across files. Qrels
    topics without a relevant document (only -1 lines, or no grade >= -l) score 0 for
    every run: a warning says which (--quiet silences it).

    Example: relkit eval -m AP -m nDCG@10 qrels.txt run1.txt run2.txt
    """
    def bad(message: str, param_hint: str | None = None) -> NoReturn:
        raise typer.BadParameter(message, param_hint=param_hint)

    run_eval(qrels=qrels, runs=runs, measure=measure, query=query, no_summary=no_summary,
             complete=complete, level=level, max_docs=max_docs, judged_only=judged_only,
             num_docs=num_docs, zscores=zscores, relformat=relformat, smoothing=smoothing,
             compat=compat, fmt=fmt, output=output, list_=list_, quiet=quiet, names=names,
             name_from_file=name_from_file, engine=engine, spark_master=spark_master,
             bad=bad, ppi=ppi, human=human, auto=auto, design=design)


# Typer reads the annotations with typing.get_type_hints, evaluating each string
# (``from __future__ import annotations``) several times per command; resolve them
# once here.
eval_cmd.__annotations__ = get_type_hints(eval_cmd, include_extras=True)
