"""Preferences in ``relkit export jsonl``: every assessor's answer on every pair, with its
note, flag and whole history (the pairs screen's notes and flags are not in the answers
file that ``relkit export prefs`` writes).

One record per stored preference, undone ones too (``answer`` null; their history says
what was undone), after the (topic, document) records and told apart from them by
``"record": "preference"``; a project without preferences gets no such record, so its
export is as before. Sides are the documents' keys as last shown (``left``/``right``);
each history row records its own sides.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from sqlalchemy import select
from sqlalchemy.orm import aliased
from sqlmodel import col

from relkit.judging.store.database import Database
from relkit.judging.store.tables import AssessorRow, DocumentRow, PreferenceEventRow, TopicRow
from relkit.judging.store.tables import PreferenceRow as Pref
from relkit.pooling.pool import natural as _natural


def preference_records(store: Database) -> Iterator[dict[str, object]]:
    """Each preference as an export record, ordered by topic, assessor and pair."""
    with store.read() as s:
        docs = dict(s.execute(select(col(DocumentRow.id), col(DocumentRow.key))).all())
        history: dict[int, list[dict[str, object]]] = defaultdict(list)
        for ev in s.execute(select(PreferenceEventRow)
                            .order_by(col(PreferenceEventRow.id))).scalars():
            history[ev.preference_id].append(
                {"version": ev.version, "left": docs[ev.left_id], "right": docs[ev.right_id],
                 "answer": ev.answer, "note": ev.note, "flagged": ev.flagged,
                 "source": ev.source, "recorded_at": ev.recorded_at.isoformat()})
        who = aliased(AssessorRow)
        rows = s.execute(select(Pref, col(TopicRow.key), col(who.name), col(who.kind))
                         .join(TopicRow, col(TopicRow.id) == col(Pref.topic_id))
                         .join(who, col(who.id) == col(Pref.assessor_id))).all()
    out = []
    for p, topic, name, kind in rows:
        left, right = docs[p.left_id], docs[p.right_id]
        out.append({"record": "preference", "topic": topic, "assessor": name, "kind": kind,
                    "left": left, "right": right, "answer": p.answer, "note": p.note,
                    "flagged": p.flagged, "version": p.version, "source": p.source,
                    "created_at": p.created_at.isoformat(),
                    "updated_at": p.updated_at.isoformat(),
                    "history": history.get(p.id or 0, [])})
    out.sort(key=lambda r: (_natural(str(r["topic"])), str(r["assessor"]),
                            sorted((str(r["left"]), str(r["right"])))))
    yield from out
