"""trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``, ``-m all_prefs``).

Per topic, :mod:`relkit.metrics.trec_eval.prefs_counts` sorts every preference "A over B"
of every judgment group (JG) into fulfilled / possible counts with both
documents retrieved (``ret``), one retrieved (``imp``) or neither
(``notoccur``: possible, never fulfilled). With ``F = ful_ret + ful_imp`` and
``P = poss_ret + poss_imp + notoccur`` (summed over JGs unless said):

=========================== ===================================================
measure (trec_eval source)  value for one topic
=========================== ===================================================
prefs_num_prefs_poss        P (``m_prefs_num_prefs_poss.c``); summary is a sum
prefs_num_prefs_ful         F (``m_prefs_num_prefs_ful.c``); summary is a sum
prefs_num_prefs_ful_ret     ful_ret (``m_prefs_num_prefs_ful_ret.c``); a sum
prefs_simp                  F / P, 0 if P = 0 (``m_prefs_simp.c``)
prefs_pair                  mean over document pairs {i, j} with a preference
                            either way of ``c[i,j] / (c[i,j] + c[j,i])``
                            (``c``: preference counts over JGs); a pair with
                            neither retrieved counts with ratio 0, a pair with
                            one retrieved orients i as the retrieved one
                            (``m_prefs_pair.c``)
prefs_avgjg                 mean over JGs of F_jg / P_jg (JGs with P_jg = 0
                            add 0); 0 unless the sum is > 0 (``m_prefs_avgjg.c``)
prefs_avgjg_Rnonrel         like avgjg, but each JG's nonrelevant count N is
                            made equal to its relevant count R: if R >= N add
                            R - N fulfilled preferences per relevant retrieved
                            doc (``(F + Rret (R-N)) / (P + R (R-N))``), else
                            recount with only the first R nonrelevant docs
                            (``m_prefs_avgjg_Rnonrel.c``)
prefs_simp_ret              ful_ret / poss_ret (``m_prefs_simp_ret.c``)
prefs_pair_ret              prefs_pair over retrieved pairs only
prefs_avgjg_ret             mean over JGs of ful_ret / poss_ret
prefs_avgjg_Rnonrel_ret     avgjg_Rnonrel with R, N counting retrieved docs
                            (the R >= N branch still adds ``num_rel (R-N)`` to
                            the possible count, as the C code does)
prefs_simp_imp              (ful_ret + ful_imp) / (poss_ret + poss_imp)
prefs_pair_imp              prefs_pair ignoring pairs with neither retrieved
prefs_avgjg_imp             mean over JGs of (ful_ret + ful_imp) / (poss_ret + poss_imp)
=========================== ===================================================

Summaries average over topics (``meas_avg.c``) except the three counts. The
``runid`` and ``num_q`` lines appear in the summary only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.data import Run
from relkit.metrics.readers import sources as _sources
from relkit.metrics.trec_eval.prefs_counts import TopicPrefs, count_topic, rnonrel_counts
from relkit.metrics.trec_eval.prefs_read import (
    Prefs,
    prefs_from_qrels,
    prefs_ranking,
    read_prefs,
    read_qrels_prefs,
)
from relkit.metrics.trec_eval.rows import (
    Row,
    div,
    render,
    resolve_measures,
    select_topics,
    seq_sum,
    summary_rows,
)

__all__ = [
    "PREFS_MEASURES", "Prefs", "Row", "evaluate_prefs", "evaluate_prefs_run",
    "prefs_from_qrels", "prefs_ranking", "read_prefs", "read_qrels_prefs", "render",
]

# trec_eval's measure-table order (measures.c), restricted to this mode.
PREFS_MEASURES = (
    "runid", "num_q",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)
NICKNAMES = {
    "all_prefs": PREFS_MEASURES,
    "prefs": PREFS_MEASURES[:8],
}
_COUNTS = {"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret"}


def _pair_means(t: TopicPrefs) -> tuple[float, float, float]:
    """(pair, pair_ret, pair_imp) from the counts matrix, summed in trec_eval's order."""
    c, njr = t.counts, t.num_judged_ret
    top = c[:njr, :njr]
    iu = np.triu_indices(njr, 1)
    fwd, bwd = top[iu], top.T[iu]
    seen = (fwd | bwd) != 0
    ratios_ret = fwd[seen] / (fwd[seen] + bwd[seen])
    # Retrieved i, unretrieved j: ratio is i's share.
    fwd, bwd = c[:njr, njr:].ravel(), c[njr:, :njr].T.ravel()
    seen = (fwd | bwd) != 0
    ratios_imp = fwd[seen] / (fwd[seen] + bwd[seen])
    low = c[njr:, njr:]
    il = np.triu_indices(low.shape[0], 1)
    n_none = int(np.count_nonzero((low[il] | low.T[il]) != 0))
    s_ret = seq_sum(ratios_ret)
    s_imp = seq_sum(np.concatenate((ratios_ret, ratios_imp)))
    n_ret, n_imp = len(ratios_ret), len(ratios_ret) + len(ratios_imp)
    return (s_imp / (n_imp + n_none) if n_imp + n_none else 0.0,
            s_ret / n_ret if n_ret else 0.0,
            s_imp / n_imp if n_imp else 0.0)


def _avg_over_jgs(ratios: list[float], num_jgs: int) -> float:
    # C: sum += ratio per JG, then "if (sum > 0.0) value = sum / num_jgs";
    # a NaN (0/0) ratio poisons the sum and the topic scores 0.
    total = 0.0
    for r in ratios:
        total += r
    return total / num_jgs if total > 0.0 else 0.0


def _rnonrel(t: TopicPrefs, retrieved_only: bool) -> float:
    ratios = []
    for g in t.jgs:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel, g.num_nonrel)
        if r >= n:
            if retrieved_only:
                ful, poss = g.ful_ret, g.poss_ret
            else:
                ful, poss = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur
            ful += g.num_rel_ret * (r - n)
            poss += g.num_rel * (r - n)
        else:
            ful, poss = rnonrel_counts(g, t.num_judged_ret, retrieved_only)
        ratios.append(div(ful, poss))
    return _avg_over_jgs(ratios, len(t.jgs))


def _topic_values(t: TopicPrefs, want: set[str]) -> dict[str, float | int]:
    jgs = t.jgs
    fr = sum(g.ful_ret for g in jgs)
    fi = sum(g.ful_imp for g in jgs)
    pr = sum(g.poss_ret for g in jgs)
    pi = sum(g.poss_imp for g in jgs)
    no = sum(g.notoccur for g in jgs)
    v: dict[str, float | int] = {
        "prefs_num_prefs_poss": pr + pi + no,
        "prefs_num_prefs_ful": fr + fi,
        "prefs_num_prefs_ful_ret": fr,
        "prefs_simp": (fr + fi) / (pr + pi + no) if pr + pi + no else 0.0,
        "prefs_simp_ret": fr / pr if pr else 0.0,
        "prefs_simp_imp": (fr + fi) / (pr + pi) if pr + pi else 0.0,
    }
    n = len(jgs)
    v["prefs_avgjg"] = _avg_over_jgs(
        [(g.ful_ret + g.ful_imp) / p for g in jgs
         if (p := g.poss_ret + g.poss_imp + g.notoccur)], n)
    v["prefs_avgjg_ret"] = _avg_over_jgs([g.ful_ret / g.poss_ret for g in jgs if g.poss_ret], n)
    v["prefs_avgjg_imp"] = _avg_over_jgs(
        [(g.ful_ret + g.ful_imp) / p for g in jgs if (p := g.poss_ret + g.poss_imp)], n)
    if want & {"prefs_pair", "prefs_pair_ret", "prefs_pair_imp"}:
        v["prefs_pair"], v["prefs_pair_ret"], v["prefs_pair_imp"] = _pair_means(t)
    if "prefs_avgjg_Rnonrel" in want:
        v["prefs_avgjg_Rnonrel"] = _rnonrel(t, retrieved_only=False)
    if "prefs_avgjg_Rnonrel_ret" in want:
        v["prefs_avgjg_Rnonrel_ret"] = _rnonrel(t, retrieved_only=True)
    return v


def evaluate_prefs(
    prefs: Prefs,
    ranking: dict[str, list[str]],
    measures: Sequence[str] | None = None,
    *,
    run_id: str = "",
    complete: bool = False,
    missing: str = "error",
) -> list[Row]:
    """Evaluate ranked docnos against preference judgments, as trec_eval does.

    Parameters
    ----------
    prefs
        From :func:`read_prefs`, :func:`read_qrels_prefs` or :func:`prefs_from_qrels`.
    ranking
        Each topic's docnos best first, from :func:`prefs_ranking` (which
        breaks score ties the way this mode does and applies ``-M``).
    measures
        trec_eval ``-m`` names: measures of :data:`PREFS_MEASURES` or the
        nicknames ``all_prefs`` / ``prefs``. ``None`` means ``all_prefs``.
    run_id
        Printed on the ``runid`` line (trec_eval: the last run line's id).
    complete
        ``-c``: judged topics missing from the run are scored (as 0) and
        counted in the averages.
    missing
        Without ``complete``, a judged topic missing from the run is an error
        (``"error"``, trec_eval 10) or ignored (``"skip"``, trec_eval 9.0.8).

    Returns
    -------
    list of Row
        Per-topic rows (topics in ``strcmp`` order), then the ``all`` rows.

    Raises
    ------
    MeasureError
        An unknown measure name.
    EvaluationError
        Inconsistent preferences in a judgment group, a missing topic (see
        ``missing``), or no topic in common.
    """
    want = resolve_measures(measures, PREFS_MEASURES, NICKNAMES, "all_prefs", {}, "prefs")
    topics = select_topics(prefs.query_id, ranking, complete=complete, missing=missing)
    rows_of: dict[str, list[int]] = {}
    for i, qid in enumerate(prefs.query_id):
        rows_of.setdefault(qid, []).append(i)
    names = [m for m in want if m not in ("runid", "num_q")]
    per_topic: list[list[Row]] = []
    for qid, ranked in topics:
        idx = rows_of[qid]
        t = count_topic(qid, [prefs.jg[i] for i in idx], [prefs.jsg[i] for i in idx],
                        [prefs.doc_id[i] for i in idx], prefs.rel_level[idx], ranked)
        values = _topic_values(t, set(names))
        per_topic.append([Row(m, qid, values[m], "int" if m in _COUNTS else "float")
                          for m in names])
    summary = summary_rows(per_topic, want, run_id, len(rows_of), complete)
    return [row for rows in per_topic for row in rows] + summary


def evaluate_prefs_run(
    judgments: Prefs | _sources.Source,
    run: Run,
    measures: Sequence[str] | None = None,
    *,
    rel_format: str = "prefs",
    float32_scores: bool = False,
    max_docs: int | None = None,
    complete: bool = False,
    missing: str = "error",
) -> list[Row]:
    """``trec_eval -R <rel_format> -q <judgments> <run>`` as rows.

    ``judgments`` is a :class:`Prefs` or a source read as ``rel_format``
    (``"prefs"`` or ``"qrels_prefs"``). The run is ranked with
    :func:`prefs_ranking`; ``runid`` is ``run.name``.
    """
    if not isinstance(judgments, Prefs):
        if rel_format == "prefs":
            judgments = read_prefs(judgments)
        elif rel_format == "qrels_prefs":
            judgments = read_qrels_prefs(judgments)
        else:
            raise RelkitError(f"rel_format must be 'prefs' or 'qrels_prefs'; got {rel_format!r}")
    ranking = prefs_ranking(run, float32_scores=float32_scores, max_docs=max_docs)
    return evaluate_prefs(judgments, ranking, measures, run_id=run.name,
                          complete=complete, missing=missing)
