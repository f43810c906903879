"""The judgment formats of ``relkit eval -R``: one registry, and one way out for all.

:data:`MODES` names every format ``-R`` takes, in the order ``--help`` lists them;
the help text and the error for an unknown ``-R`` are built from it, so a new format
is listed everywhere once it is registered here. The results of prefs,
qrels_prefs, qrels_jg and prels leave through :func:`write_results`: trec_eval's text,
or the tidy table (``run_id, query_id, measure, trec_name, value``) of ``--format
tsv|csv|json|parquet``, to stdout or ``-o``; they are computed whole first, so a bad
run file leaves no output behind. qrels (:mod:`relkit.metrics.eval.run`, which
streams run by run) and subtopics (:mod:`relkit.metrics.eval.diversity`) have their own
paths to the same table (:mod:`relkit.metrics.eval.output`).

Standard library only at import: the CLI builds its help from :data:`MODES`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.registry import Registry

if TYPE_CHECKING:
    from relkit.metrics.inferred.measures import Smoothing
    from relkit.metrics.trec_eval.rows import Row

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


def check_mode(name: str, smoothing: str | None = None) -> None:
    """Raise an ``OptionError`` (exit 2) unless ``name`` is in :data:`MODES` and
    ``smoothing`` (None: not given) is one of xinfAP's, given with ``-R prels`` only.

    >>> check_mode("prels")
    >>> check_mode("prel")
    Traceback (most recent call last):
    ...
    relkit.metrics.core.options.OptionError: Invalid value for '-R': unknown judgment format ...
    """
    from relkit.metrics.core.options import OptionError, option_value

    with option_value("'-R'"):
        MODES.lookup(name)
    from relkit.metrics.inferred.measures import SMOOTHINGS

    if smoothing is None:
        return
    if smoothing not in SMOOTHINGS:
        raise OptionError("'--smoothing'", f"must be one of {', '.join(SMOOTHINGS)}; got "
                          f"{smoothing!r}")
    if name != "prels":
        raise OptionError("'--smoothing'", f"xinfAP's smoothing applies to -R prels, not "
                          f"-R {name}")


def evaluate_mode(mode: str, qrels: Path, runs: Sequence[Path], measures: Sequence[str], *,
                  query: bool, summary: bool, complete: bool, level: int,
                  max_docs: int | None, judged_only: bool, num_docs: int,
                  zscores: Path | None, compat: int, smoothing: str, stdin: bool, fmt: str,
                  output: Path | None, labels: Sequence[str] | None = None,
                  warn: Callable[[str], None] | None = None) -> None:
    """``relkit eval -R prefs|qrels_prefs|qrels_jg|prels``, options already checked by the
    CLI: evaluate, then write in ``fmt`` to ``output`` or stdout. ``labels`` (``--names``,
    ``--name-from-file``) replace the runs' tags; ``warn`` is told of a tag several runs
    share."""
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
        text, rows, ids = prels_results(qrels, runs, measures, query=query, summary=summary,
                                        complete=complete, level=level, max_docs=max_docs,
                                        smoothing=smoothing,   # type: ignore[arg-type]
                                        labels=labels)
    else:
        text, rows, ids = trec_mode_results(mode, qrels, runs, measures, query=query,
                                            summary=summary, complete=complete, level=level,
                                            max_docs=max_docs, compat=compat,
                                            judged_only=judged_only, labels=labels)
    write_results(text, rows, fmt, output)
    if warn is not None:
        warn_shared(ids, runs, warn)


def warn_shared(ids: Sequence[str], runs: Sequence[Path | str],
                warn: Callable[[str], None]) -> None:
    """Tell ``warn`` of each run id (``ids``, one per run) that several ``runs`` carry:
    the warning plain ``relkit eval`` gives."""
    from relkit.metrics.eval.output import shared_run_ids

    files: dict[str, list[str]] = {}
    for run_id, path in zip(ids, runs, strict=True):
        files.setdefault(run_id, []).append(str(path))
    for msg in shared_run_ids(files):
        warn(msg)


def refuse(mode: str, **given: bool) -> None:
    """Refuse, as a usage error naming the option, each option ``given`` that ``mode``
    has no use for (``refuse("prels", **{"-J": True})``)."""
    from relkit.metrics.core.options import OptionError

    for option, on in given.items():
        if on:
            raise OptionError(f"'{option}'", f"{option} does not apply to -R {mode}")


def prels_results(prels: Path, runs: Sequence[Path], measures: Sequence[str], *,
                  query: bool, summary: bool, complete: bool, level: int,
                  max_docs: int | None, smoothing: Smoothing,
                  labels: Sequence[str] | None = None
                  ) -> tuple[str, list[TidyRow], list[str]]:
    """``-R prels``: trec_eval's text, the tidy rows (:mod:`relkit.metrics.inferred.estimators`)
    and each run's id (its label if ``labels``, else its tag)."""
    from dataclasses import replace

    from relkit.metrics.core.options import option_value
    from relkit.metrics.inferred.estimators import check_names, estimate_prels, prels_text

    with option_value("'-m'"):   # an unknown estimator: a usage error, before any file
        check_names(measures)
    got = estimate_prels(prels, runs, measures, complete=complete, level=level,
                         smoothing=smoothing, depth=max_docs)   # None: each its reference's
    if labels is not None:
        got = [replace(r, run_id=name) for r, name in zip(got, labels, strict=True)]
    rows = [(r.run_id, *row) for r in got for row in r.rows(query, summary)]
    return (prels_text(got, per_query=query, summary=summary), rows,
            [r.run_id for r in got])


def trec_mode_results(mode: str, qrels: Path, runs: Sequence[Path], measures: Sequence[str],
                      *, query: bool, summary: bool, complete: bool, level: int,
                      max_docs: int | None, compat: int, judged_only: bool,
                      labels: Sequence[str] | None = None
                      ) -> tuple[str, list[TidyRow], list[str]]:
    """``-R prefs|qrels_prefs|qrels_jg``: trec_eval's text, the tidy rows and each run's
    id (its label if ``labels``, else its tag)."""
    from relkit.metrics.trec_eval.modes import mode_results, mode_text

    got = mode_results(mode, qrels, runs, measures, query, max_docs, summary=summary,
                       complete=complete, compat=compat, level=level,
                       judged_only=judged_only)
    if labels is not None:
        got = [(name, [_relabel(r, name) for r in rs])
               for (_, rs), name in zip(got, labels, strict=True)]
    rows = [(run_id, r.query_id, r.measure, r.measure, float(r.value))
            for run_id, rs in got for r in rs if r.kind != "str"]   # runid: in every row
    return mode_text(got), rows, [run_id for run_id, _ in got]


def _relabel(row: Row, name: str) -> Row:
    """``row`` with ``name`` on it if it is the ``runid`` line (as plain eval's relabel)."""
    return row._replace(value=name) if row.measure == "runid" and row.kind == "str" else row


def write_results(text: str, rows: Sequence[TidyRow], fmt: str, output: Path | None) -> None:
    """Write one evaluation's results: ``text`` for ``--format trec``, else the tidy
    table of ``rows``; to ``output`` (whole, or not at all) or stdout."""
    if fmt == "trec":
        if output is None:
            sys.stdout.write(text)
            return
        from relkit.metrics.core.atomic import write_text

        write_text(output, text)   # check_output(output) ran before the work
        return
    import pandas as pd

    from relkit.metrics.eval.output import _write_tidy

    _write_tidy([pd.DataFrame(list(rows), columns=TIDY_COLUMNS)], fmt, output)
