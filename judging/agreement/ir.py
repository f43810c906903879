"""IR practice: overlap of relevant sets, and whether disagreement changes conclusions.

Voorhees (2000) asked whether different assessors' qrels rank systems
differently; these functions answer it for the assessors at hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.judging.agreement.frame import AgreementError, Ratings

if TYPE_CHECKING:
    from relkit.metrics.data import Run

ALPHA = 0.05
MAX_EFFECT_ASSESSORS = 20


def overlaps(binary: Ratings) -> list[dict[str, Any]]:
    r"""Overlap of relevant sets per assessor pair: :math:`|A \cap B| / |A \cup B|`.

    Over the items both judged, A and B the items each found relevant (binary
    ratings, see :meth:`Ratings.binarised`). Undefined (``None`` with a
    reason) when neither found anything relevant. Voorhees, "Variations in
    relevance judgments and the measurement of retrieval effectiveness", IP&M
    36(5), 2000, table 1.
    """
    from relkit.judging.agreement.multi import pair_tables

    out = []
    for (i, j), t in pair_tables(binary.codes, 2).items():
        inter, union = int(t[1, 1]), int(t[1, 1] + t[1, 0] + t[0, 1])
        out.append({"a": binary.assessors[i], "b": binary.assessors[j], "items": int(t.sum()),
                    "relevant_a": int(t[1].sum()), "relevant_b": int(t[:, 1].sum()),
                    "intersection": inter, "union": union,
                    "overlap": inter / union if union else None,
                    "reason": None if union else "neither assessor found anything relevant"})
    return out


def paired_p(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided p of a paired t-test over topics; 1.0 when every difference is 0.

    One small function on purpose: a dedicated significance module can replace it.
    """
    from scipy.stats import ttest_rel

    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    if len(d) < 2 or np.all(d == d[0]):
        return 1.0 if np.all(d == 0) or len(d) < 2 else 0.0
    return float(ttest_rel(x, y).pvalue)


def _qrels(r: Ratings, a: int) -> Any:
    import pandas as pd

    from relkit.metrics.data import Qrels

    ok = r.codes[:, a] >= 0
    frame = pd.DataFrame({"query_id": np.asarray(r.topics, dtype=object)[r.item_topic[ok]],
                          "doc_id": r.item_doc[ok],
                          "relevance": np.asarray(r.scale.values)[r.codes[ok, a]]})
    return Qrels.from_frame(frame, f"<{r.assessors[a]}>")


def effect(r: Ratings, runs: Mapping[str, Run], measure: str = "nDCG@10",
           threshold: int | None = None, alpha: float = ALPHA) -> dict[str, Any]:
    """Evaluate ``runs`` under each assessor's qrels; compare orderings and significance.

    For each assessor pair, on the topics both judged: Kendall's tau and the
    symmetric tau_AP between the system orderings (mean ``measure``), and how
    many system pairs are significantly different (paired t-test over topics,
    ``alpha``) under each, and how many conclusions flip (significant under one
    and not the other, or significant both ways round). A topic a run did not
    retrieve for scores 0 (trec_eval ``-c``). ``alpha`` outside (0, 1):
    :class:`AgreementError`.
    """
    from relkit.metrics.compare.correlation import kendall_tau, tau_ap_symmetric
    from relkit.metrics.core.levels import check_unit
    from relkit.metrics.evaluator import Evaluator

    check_unit("effect", "alpha", alpha, AgreementError)
    if len(runs) < 2:
        raise AgreementError("the effect on conclusions needs two or more runs (--runs)")
    if len(r.assessors) > MAX_EFFECT_ASSESSORS:
        raise AgreementError(f"the effect on conclusions is computed for at most "
                             f"{MAX_EFFECT_ASSESSORS} assessors; got {len(r.assessors)}")
    level = r.scale.threshold if threshold is None else threshold
    per: dict[str, dict[str, dict[str, float]]] = {}   # assessor -> run -> topic -> value
    for col, name in enumerate(r.assessors):
        ev = Evaluator(_qrels(r, col), [measure], level=level)
        per[name] = {}
        for run_name, run in runs.items():
            res = ev.compute(run)
            v = res.values[0]
            per[name][run_name] = {t: (0.0 if res.missing[i] else float(v[i]))
                                   for i, t in enumerate(res.topics)}
    systems = sorted(runs)
    out_pairs = []
    for a, b in combinations(r.assessors, 2):
        ta = {t for s in systems for t in per[a][s]}
        tb = {t for s in systems for t in per[b][s]}
        topics = sorted(ta & tb)
        entry: dict[str, Any] = {"a": a, "b": b, "topics": len(topics)}
        if len(topics) < 2:
            entry["reason"] = "fewer than two topics judged by both"
            out_pairs.append(entry)
            continue

        xa, xb = (np.array([[per[who][s].get(t, 0.0) for t in topics] for s in systems])
                  for who in (a, b))
        ma = dict(zip(systems, xa.mean(axis=1).tolist(), strict=True))
        mb = dict(zip(systems, xb.mean(axis=1).tolist(), strict=True))
        tau, tap = kendall_tau(ma, mb), tau_ap_symmetric(ma, mb)
        sig_a = sig_b = flips = reversals = 0
        for i, j in combinations(range(len(systems)), 2):
            ca = _conclusion(xa[i], xa[j], alpha)
            cb = _conclusion(xb[i], xb[j], alpha)
            sig_a += ca != 0
            sig_b += cb != 0
            flips += ca != cb
            reversals += ca * cb < 0
        entry.update({"kendall_tau": tau.value, "tau_ap": tap.value,
                      "reason": tau.reason or None,
                      "mean_a": ma, "mean_b": mb, "system_pairs": len(systems) * (
                          len(systems) - 1) // 2, "significant_a": sig_a, "significant_b": sig_b,
                      "flips": flips, "reversals": reversals})
        out_pairs.append(entry)
    return {"measure": measure, "alpha": alpha, "test": "paired t-test over topics",
            "systems": systems, "pairs": out_pairs}


def _conclusion(x: np.ndarray, y: np.ndarray, alpha: float) -> int:
    """+1 / -1: x significantly better / worse than y; 0: no significant difference."""
    if paired_p(x, y) >= alpha:
        return 0
    return 1 if float(np.mean(x - y)) > 0 else -1
