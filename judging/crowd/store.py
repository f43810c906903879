"""The judging database as crowd labels: every assessor's judged grade is a label."""

from __future__ import annotations

from typing import Any

from relkit.judging.crowd.table import CrowdError, LabelTable


def store_qrels(store: Any, method: str, *, threshold: int | None = None,
                unjudged: bool = True, include_automatic: bool = False,
                **options: Any) -> list[tuple[str, str, int]]:
    """Qrels rows ``(topic, doc, grade)`` aggregated from the store's judgments by ``method``.

    Every assessor's judged grade of a pair is one label (the same judgments
    ``--method majority`` reads). Pooled pairs nobody judged are ``-1`` when
    ``unjudged``; ``threshold`` binarises (grade >= threshold -> 1).
    """
    from relkit.judging.crowd.methods import aggregate
    from relkit.judging.store.reports import UNJUDGED, QrelsRows, store_pairs
    from relkit.pooling.pool import natural

    # Automatic assessors (imported with --kind automatic) are workers only when asked.
    pairs = store_pairs(store, automatic=include_automatic)
    t, d, w, g = [], [], [], []
    for (topic, doc), p in pairs.items():
        for who, grade in p.grades.items():
            t.append(topic)
            d.append(doc)
            w.append(who)
            g.append(grade)
    out = QrelsRows()
    if g:
        agg = aggregate(LabelTable.from_columns(t, d, w, g), method, **options)
        out.extend(agg.rows())
    elif not any(p.pooled for p in pairs.values()):
        raise CrowdError("the database has no judgments to aggregate")
    if unjudged:
        out.extend((topic, doc, UNJUDGED) for (topic, doc), p in pairs.items()
                   if p.pooled and not p.grades)
    if threshold is not None:
        out[:] = [(a, b, int(x >= threshold) if x != UNJUDGED else x) for a, b, x in out]
    out.sort(key=lambda r: (natural(r[0]), r[1]))
    return out
