"""What ``relkit eval`` does with its options once they are read: one body, two readers.

The typer command (:mod:`relkit.metrics.eval.cli`, for help pages, completion and every error
click words) and the fast entry (:mod:`relkit.metrics.eval.argv`, which reads a valid
command line without importing typer or click) both call :func:`run_eval`. A value the
command refuses with a usage error is handed to ``bad``: the typer command raises
click's ``BadParameter``; the fast entry gives up (:class:`NotFast`) and the CLI root
runs the typer command instead, which then says it in click's words. Every such check
comes before any output, so giving up loses nothing.

Standard library only at import: ``relkit eval`` imports numpy when it evaluates.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pathlib import Path

    from relkit.metrics.readers.sources import FileName

# numpy's OpenBLAS starts a thread per core when numpy is imported (~30 ms of a
# 0.2 s command on two cores); evaluation does no linear algebra, so one will do.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

FORMATS = ("trec", "tsv", "csv", "json", "parquet")

Bad = Callable[..., NoReturn]   # bad(message, param_hint=None): a usage error


class NotFast(Exception):  # noqa: N818 (not an error: a request to take the typer path)
    """The fast entry gives the command line to the typer command (which words errors)."""


def give_up(message: str, param_hint: str | None = None) -> NoReturn:
    """``bad`` for the fast entry: let the typer command say it."""
    raise NotFast(message)


def list_measures() -> str:
    """``relkit eval --list-measures``: every measure family, then the nicknames."""
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


def warn(msg: str) -> None:
    """A warning of ``relkit eval`` on stderr (``--quiet`` silences them)."""
    sys.stderr.write(f"relkit eval: warning: {msg}\n")


def run_eval(*, qrels: str | None, runs: list[str] | None, measure: list[str] | None,
             query: bool, no_summary: bool, complete: bool, level: int,
             max_docs: int | None, judged_only: bool, num_docs: int,
             zscores: Path | str | None,
             relformat: str, smoothing: str | None, compat: int, fmt: str,
             output: Path | str | None, list_: bool, quiet: bool, names: str | None,
             name_from_file: bool, engine: str, spark_master: str | None, bad: Bad,
             ppi: bool = False, human: Path | None = None, auto: Path | None = None,
             design: str = "simple") -> None:
    """``relkit eval`` with its options' values (see :func:`relkit.metrics.eval.cli.eval_cmd`)."""
    if list_:
        sys.stdout.write(list_measures())
        return
    if ppi or human is not None or auto is not None or design != "simple":
        _ppi(qrels, runs, human=human, auto=auto, design=design, measure=measure,
             level=level, names=names, name_from_file=name_from_file, output=output,
             plain=(relformat == "qrels" and engine == "local" and fmt == "trec"
                    and spark_master is None), ppi=ppi, bad=bad)
        return
    if qrels is None or not runs:
        bad("give a QRELS file and at least one RUN file")
    if relformat != "qrels" or smoothing is not None:   # -R qrels alone is always valid
        from relkit.metrics.eval.modes import check_mode

        check_mode(relformat, smoothing)
    if engine != "local" or spark_master is not None:
        from relkit.metrics.core.engines import engine as engine_named

        spark: Any = engine_named("spark")   # its checks name --engine as typed
        spark.check_eval(engine, spark_master, relformat=relformat, paths=[qrels, *runs])
    qrels_path: FileName | str
    run_paths: list[FileName] | list[str]
    if engine == "local":   # named as pathlib names them (./run is run), without pathlib
        from relkit.metrics.readers.sources import FileName

        qrels_path, run_paths = FileName(qrels), [FileName(r) for r in runs]
    else:
        qrels_path, run_paths = qrels, runs     # URLs kept
    if fmt not in FORMATS:
        bad(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    stdin = [str(p) for p in (qrels_path, *run_paths)].count("-")
    if stdin > 1:
        bad("stdin ('-') can feed the qrels or one run, not "
            f"{'both' if str(qrels_path) == '-' else 'two runs'}")
    if compat not in (9, 10):
        bad(f"--compat must be 9 or 10; got {compat}")
    from relkit.metrics.commands.run_naming import run_labels

    labels = run_labels(run_paths, names, name_from_file)
    if max_docs is not None and max_docs < 0:
        # Named as typed (-M), not as the Evaluator's max_docs.
        bad(f"must be an int >= 0; got {max_docs}", param_hint="'-M'")
    from relkit.metrics.core.options import option_value

    said = None if quiet else warn
    if relformat not in ("qrels", "subtopics"):
        from relkit.metrics.eval.modes import evaluate_mode

        evaluate_mode(relformat, _as_path(qrels_path), [_as_path(r) for r in run_paths],
                      measure or [], query=query,
                      summary=not no_summary, complete=complete, level=level,
                      max_docs=max_docs, judged_only=judged_only, num_docs=num_docs,
                      zscores=_maybe_path(zscores), compat=compat,
                      smoothing=smoothing or "sample_eval", stdin=stdin > 0, fmt=fmt,
                      output=_maybe_path(output), labels=labels, warn=said)
        return
    if relformat == "subtopics":
        from relkit.metrics.eval.diversity import check_options, evaluate_subtopics
        from relkit.metrics.eval.output import _write_tidy

        check_options(judged_only=judged_only, num_docs=num_docs,
                      zscores=_maybe_path(zscores))
        got = evaluate_subtopics(_as_path(qrels_path), [_as_path(r) for r in run_paths],
                                 measure or [], query=query,
                                 summary=not no_summary, complete=complete, level=level,
                                 max_docs=max_docs, fmt=fmt, labels=labels, warn=said)
        if not isinstance(got, str):
            _write_tidy([got], fmt, output)
        elif output is not None:
            _as_path(output).write_text(got, encoding="utf-8")
        else:
            sys.stdout.write(got)
        return
    from relkit.metrics.eval.run import _collector_paused, _evaluate
    from relkit.metrics.evaluator import resolve

    with option_value("'-m'"):  # an unknown measure is a usage error, found before any file
        resolve(measure or ["official"], compat)
    with _collector_paused():
        _evaluate(qrels_path, run_paths, measure or ["official"], query=query,
                  no_summary=no_summary, complete=complete, level=level, max_docs=max_docs,
                  judged_only=judged_only, num_docs=num_docs, zscores=zscores, compat=compat,
                  fmt=fmt, output=output, warn=said, engine=engine,
                  spark_master=spark_master, labels=labels)


def _as_path(path: os.PathLike[str] | str) -> Path:
    """``path`` as a :class:`~pathlib.Path`, for the paths off the fast one (``-R``
    modes, subtopics, ``--ppi``): the fast one names files by text (``path_text``)."""
    from pathlib import Path

    return Path(path)


def _maybe_path(path: os.PathLike[str] | str | None) -> Path | None:
    return None if path is None else _as_path(path)


def _ppi(qrels: str | None, runs: list[str] | None, *, human: Path | None,
         auto: Path | None, design: str, measure: list[str] | None, level: int,
         names: str | None, name_from_file: bool, output: Path | str | None, plain: bool,
         ppi: bool, bad: Bad) -> None:
    """``relkit eval --ppi``: every positional argument is a run (no qrels argument)."""
    if not ppi:
        bad("--human, --auto and --design go with --ppi")
    if human is None or auto is None:
        bad("--ppi needs --human (the sampled human qrels) and --auto (every pooled pair)")
    if not plain:
        bad("--ppi reads TREC qrels and runs locally and prints its own table "
            "(no -R, --engine, --spark-master or --format)")
    paths = [_as_path(p) for p in [*([qrels] if qrels else []), *(runs or [])]]
    if not paths:
        bad("--ppi needs at least one RUN file")
    from relkit.metrics.commands.run_naming import run_labels
    from relkit.metrics.ppi.command import DEFAULT_MEASURES, run_ppi

    run_ppi(paths, human=human, auto=auto, measures=measure or DEFAULT_MEASURES,
            design=design, level=level, labels=run_labels(paths, names, name_from_file),
            output=_maybe_path(output))
