"""The judgment formats of ``relkit eval -R``: one registry, and one way out for all.

:data:`MODES` names every format ``-R`` takes, in the order ``--help`` lists them;
the help text and the error for an unknown ``-R`` are built from it, so a new format
is listed everywhere once it is registered here. Every format's results leave
through :func:`write_results`: trec_eval's text, or the tidy table (``run_id,
query_id, measure, trec_name, value``) of ``--format tsv|csv|json|parquet``, to
stdout or ``-o``. The plain qrels evaluation has its own path
(:mod:`relkit.metrics.eval_run`, which streams run by run); the others are computed
whole first, so a bad run file leaves no output behind.

Standard library only at import: the CLI builds its help from :data:`MODES`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry

if TYPE_CHECKING:
    from relkit.metrics.inferred import Smoothing

TidyRow = tuple[str, str, str, str, float]   # run_id, query_id, measure, trec_name, value
TIDY_COLUMNS = ["run_id", "query_id", "measure", "trec_name", "value"]


@dataclass(frozen=True)
class Mode:
    """A judgment format of ``-R``: its name and what the file holds, in a few words."""

    name: str
    description: str


MODES: Registry[Mode] = Registry("judgment format", RelkitError)
MODES.register(
    Mode("qrels", "qrels 'topic iter doc grade' (the default)"),
    Mode("prefs", "trec_eval's preference judgments (-m all_prefs)"),
    Mode("qrels_prefs", "qrels read as preferences (-m all_prefs)"),
    Mode("qrels_jg", "qrels with judgment groups (-m qrels_jg)"),
    Mode("prels", "a sampled pool in NIST sample_eval's format 'topic iter doc stratum "
         "grade': xinfAP, infNDCG, statAP, infAP (docs/pooling.md)"),
    Mode("subtopics", "diversity qrels 'topic subtopic docno grade': alpha_nDCG@k, "
         "ERR_IA@k, NRBP, P_IA@k, StRecall@k as ndeval computes them"),
)
MODE_HELP = "Judgment format: " + "; ".join(f"{m.name}: {m.description}"
                                            for m in MODES.values())


def check_mode(name: str, smoothing: str = "sample_eval") -> None:
    """Raise an ``OptionError`` (exit 2) unless ``name`` is in :data:`MODES` and
    ``smoothing`` is one of xinfAP's, given with ``-R prels`` only.

    >>> check_mode("prels")
    >>> check_mode("prel")
    Traceback (most recent call last):
    ...
    relkit.metrics.core.options.OptionError: Invalid value for '-R': unknown judgment format ...
    """
    from relkit.metrics.core.options import OptionError, option_value

    with option_value("'-R'"):
        MODES.lookup(name)
    from relkit.metrics.inferred import SMOOTHINGS

    if smoothing not in SMOOTHINGS:
        raise OptionError("'--smoothing'", f"must be one of {', '.join(SMOOTHINGS)}; got "
                          f"{smoothing!r}")
    if smoothing != SMOOTHINGS[0] and name != "prels":
        raise OptionError("'--smoothing'", f"xinfAP's smoothing applies to -R prels, not "
                          f"-R {name}")


def evaluate_mode(mode: str, qrels: Path, runs: Sequence[Path], measures: Sequence[str], *,
                  query: bool, summary: bool, complete: bool, level: int,
                  max_docs: int | None, judged_only: bool, num_docs: int,
                  zscores: Path | None, compat: int, smoothing: str, stdin: bool, fmt: str,
                  output: Path | None) -> None:
    """``relkit eval -R prefs|qrels_prefs|qrels_jg|prels``, options already checked by the
    CLI: evaluate, then write in ``fmt`` to ``output`` or stdout."""
    from relkit.metrics.core.options import OptionError

    if stdin:
        raise OptionError("'-'", f"stdin is read with -R qrels and subtopics only; give "
                          f"-R {mode} files by name")
    if fmt == "parquet" and output is None:   # before the work, not after it
        raise OptionError("'--format'", "--format parquet needs -o FILE")
    if output is not None:
        from relkit.metrics.core.errors import check_output

        check_output(output)
    refuse(mode, **{"-Z": zscores is not None})
    if mode == "prels":
        from relkit.metrics.core.options import option_value

        refuse(mode, **{"-J": judged_only, "-N": bool(num_docs)})
        if level < 0:
            with option_value("'-l'"):
                raise RelkitError(f"must be an int >= 0 with -R prels (a negative grade is "
                                  f"a document not sampled); got {level}")
        text, rows = prels_results(qrels, runs, measures, query=query, summary=summary,
                                   complete=complete, level=level, max_docs=max_docs,
                                   smoothing=smoothing)   # type: ignore[arg-type]
    else:
        text, rows = trec_mode_results(mode, qrels, runs, measures, query=query,
                                       summary=summary, complete=complete, level=level,
                                       max_docs=max_docs, compat=compat,
                                       judged_only=judged_only)
    write_results(text, rows, fmt, output)


def refuse(mode: str, **given: bool) -> None:
    """Refuse, as a usage error naming the option, each option ``given`` that ``mode``
    has no use for (``refuse("prels", **{"-J": True})``)."""
    from relkit.metrics.core.options import OptionError

    for option, on in given.items():
        if on:
            raise OptionError(f"'{option}'", f"{option} does not apply to -R {mode}")


def prels_results(prels: Path, runs: Sequence[Path], measures: Sequence[str], *,
                  query: bool, summary: bool, complete: bool, level: int,
                  max_docs: int | None, smoothing: Smoothing) -> tuple[str, list[TidyRow]]:
    """``-R prels``: trec_eval's text and the tidy rows (:mod:`relkit.metrics.estimators`)."""
    from relkit.metrics.core.options import option_value
    from relkit.metrics.estimators import DEPTH, check_names, estimate_prels, prels_text

    with option_value("'-m'"):   # an unknown estimator: a usage error, before any file
        check_names(measures)
    got = estimate_prels(prels, runs, measures, complete=complete, level=level,
                         smoothing=smoothing, depth=DEPTH if max_docs is None else max_docs)
    rows = [(r.run_id, *row) for r in got for row in r.rows(query, summary)]
    return prels_text(got, per_query=query, summary=summary), rows


def trec_mode_results(mode: str, qrels: Path, runs: Sequence[Path], measures: Sequence[str],
                      *, query: bool, summary: bool, complete: bool, level: int,
                      max_docs: int | None, compat: int, judged_only: bool
                      ) -> tuple[str, list[TidyRow]]:
    """``-R prefs|qrels_prefs|qrels_jg``: trec_eval's text and the tidy rows."""
    from relkit.metrics.trec_eval.modes import mode_results, mode_text

    got = mode_results(mode, qrels, runs, measures, query, max_docs, summary=summary,
                       complete=complete, compat=compat, level=level,
                       judged_only=judged_only)
    rows = [(run_id, r.query_id, r.measure, r.measure, float(r.value))
            for run_id, rs in got for r in rs if r.kind != "str"]   # runid: in every row
    return mode_text(got), rows


def write_results(text: str, rows: Sequence[TidyRow], fmt: str, output: Path | None) -> None:
    """Write one evaluation's results: ``text`` for ``--format trec``, else the tidy
    table of ``rows``; to ``output`` (whole, or not at all) or stdout."""
    if fmt == "trec":
        if output is None:
            sys.stdout.write(text)
            return
        _write_whole(output, text)
        return
    import pandas as pd

    from relkit.metrics.eval_output import _write_tidy

    _write_tidy([pd.DataFrame(list(rows), columns=TIDY_COLUMNS)], fmt, output)


def _write_whole(path: Path, text: str) -> None:
    """``text`` into ``path`` through a file beside it, renamed over it once written: a
    failure halfway leaves the old file (or none), never a part of the new one."""
    from relkit.metrics.core.errors import check_output

    check_output(path)
    if path.exists() and not path.is_file():   # /dev/stdout, a pipe: renaming would replace it
        with open(path, "w", encoding="utf-8") as fp:
            fp.write(text)
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
