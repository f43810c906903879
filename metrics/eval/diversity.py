"""``relkit eval -R subtopics``: diversity measures on subtopic qrels, ndeval's numbers.

The output is trec_eval's layout (``measure<TAB>topic<TAB>value``, ``all`` for the
mean over the evaluated topics) with the measures named as ir_measures names them;
``--format csv|tsv|json|parquet`` gives the same tidy table as plain ``relkit eval``.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.options import option_value
from relkit.metrics.errors import MeasureError

if TYPE_CHECKING:
    import pandas as pd


def check_options(*, judged_only: bool, num_docs: int, zscores: Path | None) -> None:
    """Refuse the options that mean nothing on subtopic qrels (one line, exit 2)."""
    for given, name in ((judged_only, "-J"), (num_docs, "-N"), (zscores is not None, "-Z")):
        if given:
            with option_value(f"'{name}'"):
                raise MeasureError(f"{name} does not apply to -R subtopics (ndeval has no "
                                   "such option)")


def evaluate_subtopics(qrels: Path, runs: Sequence[Path], measures: Sequence[str], *,
                       query: bool, summary: bool, complete: bool, level: int,
                       max_docs: int | None, fmt: str, labels: Sequence[str] | None = None,
                       warn: Callable[[str], None] | None = None) -> str | pd.DataFrame:
    """Evaluate ``runs`` on subtopic qrels: the trec text, or for the other formats the
    tidy table (``run_id, query_id, measure, trec_name, value``) to write.

    ``labels`` (``--names``, ``--name-from-file``) replace the runs' tags; ``warn`` is
    told of a tag several runs share (after the work, before the caller writes).

    Measures default to ndeval's 21 columns; an unknown or non-diversity measure is a
    usage error naming ``-m``.
    """
    from relkit.metrics.data import Run
    from relkit.metrics.diversity.evaluator import DiversityEvaluator
    from relkit.metrics.diversity.subtopics import SubtopicQrels
    from relkit.metrics.measures.diversity import NDEVAL_DEFAULT, parse_diversity
    from relkit.metrics.trec_eval.format import labelled

    names = list(measures) or list(NDEVAL_DEFAULT)
    with option_value("'-m'"):
        for name in names:
            try:
                parse_diversity(name)
            except MeasureError as exc:
                if str(exc).startswith("unknown diversity measure"):
                    raise MeasureError(f"{exc}; -R subtopics takes the diversity measures "
                                       "(alpha_nDCG@k, alpha_DCG@k, ERR_IA@k, nERR_IA@k, "
                                       "NRBP, nNRBP, AP_IA, P_IA@k, StRecall@k)") from None
                raise
    q = SubtopicQrels.read(sys.stdin.buffer if str(qrels) == "-" else qrels)
    ev = DiversityEvaluator(q, names, level=level, max_docs=max_docs, complete=complete)
    blocks: list[str] = []
    rows: list[tuple[str, str, str, str, float]] = []
    ids = []
    for i, path in enumerate(runs):
        source = sys.stdin.buffer if str(path) == "-" else path
        res = ev.compute(Run.read(source, eval_only=True))
        if labels is not None:
            res = dataclasses.replace(res, run_id=labels[i])
        ids.append(res.run_id)
        block = list(_lines(res, query, summary))
        # several runs: each block starts with its runid line, as plain relkit eval's
        blocks.append("".join(block if len(runs) == 1 else labelled(block, res.run_id)))
        for m, v, s in zip(res.measures, res.values, res.summary, strict=True):
            if query:
                rows.extend((res.run_id, t, str(m), m.output, float(x))
                            for t, x in zip(res.topics, v.tolist(), strict=True))
            if summary:
                rows.append((res.run_id, "all", str(m), m.output, s))
    if warn is not None:
        from relkit.metrics.eval.modes import warn_shared

        warn_shared(ids, runs, warn)
    if fmt == "trec":
        return "".join(blocks)
    import pandas as pd

    return pd.DataFrame(rows, columns=["run_id", "query_id", "measure", "trec_name", "value"])


def _lines(res: object, query: bool, summary: bool) -> Iterator[str]:
    from relkit.metrics.diversity.evaluator import DiversityResult
    from relkit.metrics.trec_eval.format import fmt_float, line

    assert isinstance(res, DiversityResult)
    if query:
        for t, qid in enumerate(res.topics):
            for m, v in zip(res.measures, res.values, strict=True):
                yield line(m.output, qid, fmt_float(float(v[t])))
    if summary:
        for m, s in zip(res.measures, res.summary, strict=True):
            yield line(m.output, "all", fmt_float(s))
