"""``relkit eval``: trec_eval-compatible evaluation from the command line.

Data goes to stdout, diagnostics to stderr. Errors are library exceptions,
printed once, on one line, by the CLI root (:mod:`relkit.judging.cli`).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import (
    IO,
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    get_args,
    get_origin,
    get_type_hints,
)

import typer

from relkit.metrics.core.progress import Bar

if TYPE_CHECKING:  # type names only: pandas is imported by the formats that need it
    import pandas as pd

    from relkit.metrics.evaluator import Evaluator, Result, ZTable
    from relkit.metrics.zeros import ZeroTopics

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


_INT = re.compile(r"-?[0-9]+")
_DEFER = object()


def _leaf(annotation: Any) -> Any:
    """``X`` of ``X`` or ``list[X]``."""
    args = get_args(annotation)
    return args[0] if get_origin(annotation) is list and len(args) == 1 else annotation


def _plain_typer_coercion() -> None:
    """Let typer convert plain ``str``/``int``/``Path``/``bool`` values without pydantic.

    Typer 0.2x builds a pydantic ``TypeAdapter`` for every parameter it processes
    (even an absent ``--help``), and importing pydantic (~0.1 s) costs more than
    evaluating a TREC-sized run. This replaces the builder typer looks up,
    ``typer.core.build_runtime_param``, with one that converts a value whose
    conversion is unambiguous (a ``str``, a decimal integer, a path; an absent
    value) exactly as typer does, and hands anything else to typer's own
    coercion, so typer's results and error messages do not change (a test
    compares both). It applies to the whole process, which is the ``relkit eval``
    command (the CLI root builds its Typer objects before this module is
    imported, so it cannot be done per command). Typer versions without this
    machinery (click's types, fast already) are left alone.
    """
    try:
        import typer.core as core
        from typer._coercion import RuntimeParam
        from typer._param_types import coerce_cli_path
    except ImportError:
        return
    full: Any = getattr(core, "build_runtime_param", None)
    if full is None or getattr(full, "relkit_plain", False):
        return

    class Plain(RuntimeParam):
        # typer's frozen dataclass, plus the descriptor (set in build(); not a
        # dataclass itself: generating one costs ~1 ms at start-up)
        descriptor: Any

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if isinstance(value, (list, tuple)) and self.descriptor.is_list:
                out = [self._one(v, param, ctx) for v in value]
                if all(x is not _DEFER for x in out):
                    return out                 # typer's list adapter returns a list
            else:
                one = self._one(value, param, ctx)
                if one is not _DEFER:
                    return one
            return full(self.descriptor)._coerce_value(value, param=param, ctx=ctx)

        def _one(self, value: Any, param: Any, ctx: Any) -> Any:
            leaf = _leaf(self.annotation)
            if leaf is str and type(value) is str:
                return value
            if leaf is int and type(value) is int:
                return value
            if leaf is int and type(value) is str and _INT.fullmatch(value):
                return int(value)
            if leaf is Path and type(value) is str and value:
                # what typer's path adapter does, given the Path pydantic would build
                return coerce_cli_path(Path(value), self.parameter_info, path_type=Path,
                                       param=param, ctx=ctx)
            return _DEFER

    def build(descriptor: Any) -> Any:
        info = descriptor.parameter_info
        plain = (descriptor.file_annotation is None and info.parser is None
                 and not descriptor.is_tuple and not descriptor.is_ranged
                 and getattr(info, "path_type", None) in (None, Path)
                 and _leaf(descriptor.annotation) in (str, int, Path, bool)
                 and (not descriptor.is_list or _leaf(descriptor.annotation) is not bool))
        if not plain:
            return full(descriptor)
        param = Plain(parameter_info=info, annotation=descriptor.annotation)
        object.__setattr__(param, "descriptor", descriptor)
        return param

    build.relkit_plain = True  # type: ignore[attr-defined]
    build.full = full  # type: ignore[attr-defined]  # typer's own, for the tests
    core.build_runtime_param = build


_plain_typer_coercion()


def _load_zscores(path: Path) -> dict[tuple[str, str], tuple[float, float]]:
    from relkit.metrics.errors import FormatError

    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise FormatError(str(path), number, "4 fields: qid measure mean stddev", raw)
        try:
            table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise FormatError(str(path), number, "numeric mean and stddev", raw) from None
    return table


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
    level: Annotated[int, typer.Option("-l", help="Lowest grade counted as relevant")] = 1,
    max_docs: Annotated[int | None, typer.Option(
        "-M", help="Evaluate only the top M documents of each topic")] = None,
    judged_only: Annotated[bool, typer.Option(
        "-J", help="Drop unjudged documents from the ranking")] = False,
    num_docs: Annotated[int, typer.Option(
        "-N", help="Documents in the collection (utility, fallout)")] = 0,
    zscores: Annotated[Path | None, typer.Option(
        "-Z", help="Z-score file: lines 'qid measure mean stddev'")] = None,
    relformat: Annotated[str, typer.Option(
        "-R", help="Judgment format: qrels, prefs, qrels_prefs, qrels_jg, or prels "
        "(a sampled pool in NIST sample_eval's format: xinfAP, infNDCG, statAP, infAP), "
        "or subtopics (diversity qrels 'topic subtopic docno grade': alpha_nDCG@k, "
        "ERR_IA@k, NRBP, P_IA@k, StRecall@k as ndeval computes them)")]
        = "qrels",
    compat: Annotated[int, typer.Option(
        "--compat", help="10: trec_eval 10 (default); 9: trec_eval 9.0.8 / pytrec_eval")] = 10,
    fmt: Annotated[str, typer.Option(
        "--format", help="trec (default), tsv, csv, json, parquet")] = "trec",
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", help="Write here instead of stdout (needed for parquet)")] = None,
    list_: Annotated[bool, typer.Option(
        "--list-measures", help="List every measure with a one-line description")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", help="No warnings on stderr (topics that score 0 whatever the run)")]
        = False,
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

    With several runs, each run's block of lines starts with its `runid` line. Qrels
    topics without a relevant document (only -1 lines, or no grade >= -l) score 0 for
    every run: a warning says which (--quiet silences it).

    Example: relkit eval -m AP -m nDCG@10 qrels.txt run1.txt run2.txt
    """
    if list_:
        sys.stdout.write(list_measures())
        return
    if qrels is None or not runs:
        raise typer.BadParameter("give a QRELS file and at least one RUN file")
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
    if max_docs is not None and max_docs < 0:
        # Named as typed (-M), not as the Evaluator's max_docs.
        raise typer.BadParameter(f"must be an int >= 0; got {max_docs}", param_hint="'-M'")
    from relkit.metrics.core.options import option_value

    if relformat == "prels":
        from relkit.metrics.estimators import evaluate_prels

        if stdin:
            raise typer.BadParameter("'-' (stdin) is read with -R qrels only; give -R "
                                     "prels files by name")
        sys.stdout.write(evaluate_prels(qrels_path, run_paths, measure or [], per_query=query,
                                        summary=not no_summary, complete=complete,
                                        level=level))
        return
    if relformat == "subtopics":
        from relkit.metrics.diversity_cli import check_options, evaluate_subtopics

        check_options(judged_only=judged_only, num_docs=num_docs, zscores=zscores)
        got = evaluate_subtopics(qrels_path, run_paths, measure or [], query=query,
                                 summary=not no_summary, complete=complete, level=level,
                                 max_docs=max_docs, fmt=fmt)
        if not isinstance(got, str):
            _write_tidy([got], fmt, output)
        elif output is not None:
            output.write_text(got, encoding="utf-8")
        else:
            sys.stdout.write(got)
        return
    if relformat != "qrels":
        from relkit.metrics.trec_eval.modes import REL_FORMATS, run_mode

        if relformat not in REL_FORMATS:
            raise typer.BadParameter(f"must be one of {', '.join(REL_FORMATS)}; got "
                                     f"{relformat!r}", param_hint="'-R'")
        if stdin:
            raise typer.BadParameter(f"'-' (stdin) is read with -R qrels only; give -R "
                                     f"{relformat} files by name")
        sys.stdout.write(run_mode(relformat, qrels_path, run_paths, measure or [], query,
                                  max_docs, summary=not no_summary, complete=complete,
                                  compat=compat, level=level, judged_only=judged_only))
        return
    from relkit.metrics.evaluator import resolve

    with option_value("'-m'"):  # an unknown measure is a usage error, found before any file
        resolve(measure or ["official"], compat)
    with _collector_paused():
        _evaluate(qrels_path, run_paths, measure or ["official"], query=query,
                  no_summary=no_summary, complete=complete, level=level, max_docs=max_docs,
                  judged_only=judged_only, num_docs=num_docs, zscores=zscores, compat=compat,
                  fmt=fmt, output=output, warn=None if quiet else _warn, engine=engine,
                  spark_master=spark_master)


def _warn(msg: str) -> None:
    sys.stderr.write(f"relkit eval: warning: {msg}\n")


# Typer reads the annotations with typing.get_type_hints, evaluating each string
# (``from __future__ import annotations``) several times per command; resolve them
# once here.
eval_cmd.__annotations__ = get_type_hints(eval_cmd, include_extras=True)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector out of the evaluation and the exit.

    Importing numpy and relkit allocates hundreds of thousands of objects; the
    collector's automatic passes over them during the command, and its final pass
    over all of them at interpreter exit, each cost ~25 ms of a ~0.2 s command.
    The evaluation makes no reference cycles worth collecting (its data are numpy
    and Arrow buffers), so the collector is paused while it runs (and restored
    after), and at exit every object is frozen (``gc.freeze``) so the final pass
    skips them; memory is handed back by reference counting and by the exit
    itself. The exit hook runs only when the interpreter ends, so a program that
    calls the CLI in-process is not affected before then.
    """
    global _freeze_at_exit
    if not _freeze_at_exit:
        atexit.register(gc.freeze)
        _freeze_at_exit = True
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_freeze_at_exit = False


def _evaluate(qrels: Path, runs: list[Path], measures: list[str], *, query: bool,
              no_summary: bool, complete: bool, level: int, max_docs: int | None,
              judged_only: bool, num_docs: int, zscores: Path | None, compat: int, fmt: str,
              output: Path | None, warn: Callable[[str], None] | None = None,
              engine: str = "local", spark_master: str | None = None) -> None:
    """The evaluation behind ``relkit eval`` (qrels format), once its options are checked.

    ``warn`` (None: quiet) hears, once, about topics that score 0 for every run.
    ``engine="spark"``: the runs are evaluated in one Spark job
    (:mod:`relkit.metrics.spark`); what is printed is built by the same code.
    """
    from relkit.metrics import _arrow

    # trec output never needs pandas: if a large input brings pyarrow in, spare
    # its optional pandas probe (~0.3 s)
    _arrow.SKIP_PANDAS_PROBE = fmt == "trec"
    from relkit.metrics.data import Qrels
    from relkit.metrics.errors import DuplicateDocumentError
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.trec_eval.format import labelled, lines

    if engine == "spark":
        from relkit.metrics.spark.inputs import read_qrels

        q = read_qrels(qrels, spark_master)     # hdfs://, s3a://: fetched by Spark
    else:
        q = Qrels.read(sys.stdin.buffer if str(qrels) == "-" else qrels)  # '-': stdin
    try:
        ev = Evaluator(q, measures, level=level, judged_only=judged_only,
                       max_docs=max_docs, complete=complete, num_docs=num_docs,
                       compat=compat, engine=engine,   # type: ignore[arg-type]
                       spark_master=spark_master)
    except DuplicateDocumentError as exc:
        from relkit.metrics.subtopics import as_plain_qrels_error

        raise as_plain_qrels_error(q, exc) from None   # subtopic qrels given as plain
    z = _load_zscores(zscores) if zscores else None
    frames = []
    evaluated: set[str] = set()
    run_ids: dict[str, list[str]] = {}
    with contextlib.ExitStack() as stack:
        out: IO[str] = sys.stdout
        if output and fmt == "trec":
            out = stack.enter_context(open(output, "w", encoding="utf-8"))
        pairs = _results(ev, runs, z)
        several = len(runs) > 1
        if ev.engine == "spark":     # all at once; a quoted glob may have become many runs
            pairs = iter(done := list(pairs))
            several = len(done) > 1
        for path, res in pairs:
            evaluated.update(res.topics)
            run_ids.setdefault(res.run_id, []).append(str(path))
            if fmt == "trec":
                block = lines(res, per_query=query, summary=not no_summary,
                              compat=compat, zscores=z is not None)
                # one run: trec_eval's output exactly; several: each block names its run
                out.writelines(labelled(block, res.run_id) if several else block)
            else:
                frames.append(_tidy(res, query, not no_summary))
    if fmt != "trec":
        _write_tidy(frames, fmt, output)
    if warn is not None:
        for msg in _warnings(ev.zero_topics().among(evaluated), run_ids, qrels):
            warn(msg)


def _results(ev: Evaluator, runs: list[Path], z: ZTable | None
             ) -> Iterator[tuple[Path, Result]]:
    """Each run's result, in order: one at a time here, or all from one Spark job."""
    if ev.engine == "spark":
        from relkit.metrics.spark.engine import spark_compute_labelled

        for label, res in spark_compute_labelled(ev, [str(r) for r in runs], z):
            yield Path(label) if "://" not in label else label, res  # type: ignore[misc]
        return
    from relkit.metrics.data import Run

    for path in runs:
        # the bar is closed (and erased) before this run's lines are written
        with Bar(f"evaluating {path}") as bar:
            source = sys.stdin.buffer if str(path) == "-" else path   # '-': stdin
            res = ev.compute(Run.read(source, eval_only=True), z, bar.update)
        yield path, res


def _warnings(zeros: ZeroTopics, run_ids: dict[str, list[str]], qrels: Path) -> Iterator[str]:
    """What ``relkit eval`` says on stderr after the numbers (each at most once)."""
    def some(topics: list[str]) -> str:
        shown = ", ".join(topics[:10])
        return shown + (f", ... ({len(topics) - 10} more)" if len(topics) > 10 else "")

    def count(topics: list[str]) -> tuple[str, str, str]:
        one = len(topics) == 1
        return (f"{len(topics)} topic{'' if one else 's'} of {qrels}", "has" if one else "have",
                "scores" if one else "score")

    if zeros.unjudged:
        n, have, score = count(zeros.unjudged)
        yield (f"{n} {have} no judged document (only -1 lines: pooled, unjudged) and {score} "
               f"0 for every run: {some(zeros.unjudged)}; see docs/trec_eval.md, "
               "'Silent zeros'")
    if zeros.no_relevant:
        n, have, score = count(zeros.no_relevant)
        yield (f"{n} {have} no document graded >= {zeros.level} (-l) and {score} 0 on every "
               f"relevance measure for every run: {some(zeros.no_relevant)}; see "
               "docs/trec_eval.md, 'Silent zeros'")
    for run_id, paths in run_ids.items():
        if len(paths) > 1:
            yield (f"runs {', '.join(paths)} have the same run id {run_id!r}: their results "
                   "carry the same label")


def _tidy(res: Result, per_query: bool, summary: bool) -> pd.DataFrame:
    import pandas as pd

    rows = []
    for m, v, s in zip(res.measures, res.values, res.summary, strict=True):
        if m.output == "runid":   # the run_id column says it on every row
            continue
        if per_query and v is not None:
            for qid, x in zip(res.topics, v, strict=True):
                rows.append((res.run_id, qid, str(m), m.output, x))
        if summary and s is not None:
            rows.append((res.run_id, "all", str(m), m.output, s))
    return pd.DataFrame(rows, columns=["run_id", "query_id", "measure", "trec_name", "value"])


def _write_tidy(frames: list[pd.DataFrame], fmt: str, output: Path | None) -> None:
    import pandas as pd

    df: pd.DataFrame = pd.concat(frames, ignore_index=True)
    if fmt == "parquet":
        if output is None:
            raise typer.BadParameter("--format parquet needs -o FILE")
        # Numbers stay numbers (float64); a measure whose value is text (relstring)
        # keeps it in a `text` column, its `value` left empty.
        numeric = pd.to_numeric(df["value"], errors="coerce")
        words = df["value"].where(numeric.isna() & df["value"].notna())
        df["value"] = numeric.astype("float64")
        if words.notna().any():
            df["text"] = words.astype("string")
        df.to_parquet(output)
        return
    target = output if output else sys.stdout
    if fmt in ("tsv", "csv"):
        df.to_csv(target, sep="\t" if fmt == "tsv" else ",", index=False)
    else:
        import json

        text = json.dumps(df.to_dict(orient="records"), default=float)
        if output:
            Path(output).write_text(text + "\n")
        else:
            sys.stdout.write(text + "\n")
