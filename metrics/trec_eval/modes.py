"""trec_eval's other judgment formats behind ``relkit eval -R``.

``prefs`` and ``qrels_prefs`` (preference judgments, ``-m all_prefs``) live in
:mod:`relkit.metrics.trec_eval.prefs`; ``qrels_jg`` (judgment groups) in
:mod:`relkit.metrics.trec_eval.jg`.
A qrels topic missing from the run is ignored unless ``complete`` (``-c``),
as in the ordinary qrels mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.data import Run

if TYPE_CHECKING:
    from relkit.metrics.trec_eval.rows import Row

RelFormat = Literal["qrels", "prefs", "qrels_prefs", "qrels_jg"]
REL_FORMATS = get_args(RelFormat)


def mode_results(fmt: str, rel_path: Path, runs: Sequence[Path], measures: Sequence[str],
                 per_query: bool, max_docs: int | None, *, summary: bool = True,
                 complete: bool = False, compat: int = 10, level: int = 1,
                 judged_only: bool = False) -> list[tuple[str, list[Row]]]:
    """Evaluate ``runs`` in a non-qrels mode: each run's ``(run id, rows)``, the rows
    in trec_eval's print order (``-q`` and ``-n`` applied)."""
    from relkit.metrics.trec_eval.jg import evaluate_jg_run, read_qrels_jg
    from relkit.metrics.trec_eval.prefs import evaluate_prefs_run, read_prefs, read_qrels_prefs

    if fmt not in REL_FORMATS:
        raise MeasureError(f"The '-R' option must be one of {', '.join(REL_FORMATS)}; got {fmt!r}")
    wanted = list(measures) or None
    f32 = compat < 10
    if fmt == "qrels_jg":
        jg = read_qrels_jg(rel_path)
    else:
        prefs = read_prefs(rel_path) if fmt == "prefs" else read_qrels_prefs(rel_path)
    out = []
    for path in runs:
        run = Run.read(path)
        if fmt == "qrels_jg":
            rows = evaluate_jg_run(jg, run, wanted, float32_scores=f32, max_docs=max_docs,
                                   relevance_level=level, judged_only=judged_only,
                                   complete=complete, missing="skip")
        else:
            rows = evaluate_prefs_run(prefs, run, wanted, rel_format=fmt, float32_scores=f32,
                                      max_docs=max_docs, complete=complete, missing="skip")
        out.append((run.name, [r for r in rows if (per_query or r.query_id == "all") and
                               (summary or r.query_id != "all")]))
    return out


def mode_text(results: Sequence[tuple[str, Sequence[Row]]]) -> str:
    """trec_eval's text of :func:`mode_results`' results."""
    from relkit.metrics.trec_eval.format import labelled
    from relkit.metrics.trec_eval.rows import render

    out = []
    for run_id, rows in results:
        text = render(rows)
        if len(results) > 1:   # as with qrels: each run's block starts with its runid line
            text = "".join(labelled(text.splitlines(keepends=True), run_id))
        out.append(text)
    return "".join(out)


def run_mode(fmt: str, rel_path: Path, runs: Sequence[Path], measures: Sequence[str],
             per_query: bool, max_docs: int | None, *, summary: bool = True,
             complete: bool = False, compat: int = 10, level: int = 1,
             judged_only: bool = False) -> str:
    """Evaluate ``runs`` in a non-qrels mode; return trec_eval's text."""
    return mode_text(mode_results(fmt, rel_path, runs, measures, per_query, max_docs,
                                  summary=summary, complete=complete, compat=compat,
                                  level=level, judged_only=judged_only))
