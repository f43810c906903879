"""Reading the judging database back: qrels, a full dump, disagreements, adjudication.

Where a project stands (``relkit status``) is :mod:`relkit.judging.store.standing`, re-exported
here.

These are the researcher's and the lead's views: unlike
:class:`relkit.judging.store.assessor.AssessorView` they see every assessor, the pools'
provenance and the gold grades.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Literal, get_args

from sqlalchemy import select
from sqlmodel import col

from relkit.judging.store.assign import Store

# adjudicate: re-exported, the old import path
from relkit.judging.store.decisions import adjudicate, history_by_pair  # noqa: F401
from relkit.judging.store.models import StoreError
from relkit.judging.store.standing import (  # noqa: F401 (re-exported: the old import path)
    AssessorProgress,
    AutomaticProgress,
    Status,
    TopicProgress,
    status,
)
from relkit.judging.store.tables import (
    AdjudicationRow,
    AssessorRow,
    DocumentRow,
    GoldRow,
    JudgmentEventRow,
    JudgmentRow,
    PoolEntryRow,
    PoolRow,
    TopicRow,
)
from relkit.pooling.pool import natural as _natural

Method = Literal["majority", "mean", "assessor", "primary", "adjudicated"]
METHODS: tuple[str, ...] = get_args(Method)
UNJUDGED = -1


@dataclass
class _Pair:
    grades: dict[str, int] = field(default_factory=dict)
    pooled: bool = False
    adjudicated: int | None = None


def store_pairs(store: Store, automatic: bool | str = True) -> dict[tuple[str, str], _Pair]:
    """Every pooled or judged pair; ``automatic``: whose grades count besides the humans'
    (``True``: every automatic assessor's, ``False``: none, a name: that one's)."""
    pairs: dict[tuple[str, str], _Pair] = defaultdict(_Pair)
    whose = (col(AssessorRow.kind) == "human") if automatic is False else (
        (col(AssessorRow.kind) == "human") | (col(AssessorRow.name) == automatic)
        if isinstance(automatic, str) else None)
    with store.read() as s:
        for t, d in s.execute(select(col(TopicRow.key), col(DocumentRow.key))
                              .join(PoolEntryRow, col(PoolEntryRow.topic_id) == col(TopicRow.id))
                              .join(DocumentRow,
                                    col(DocumentRow.id) == col(PoolEntryRow.document_id))):
            pairs[(t, d)].pooled = True
        for t, d, a, g in s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(AssessorRow.name),
                       col(JudgmentRow.grade))
                .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id))
                .join(AssessorRow, col(AssessorRow.id) == col(JudgmentRow.assessor_id))
                .where(col(JudgmentRow.status) == "judged",
                       *([whose] if whose is not None else []))):
            pairs[(t, d)].grades[a] = g
        for t, d, g in s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(AdjudicationRow.grade))
                .join(TopicRow, col(TopicRow.id) == col(AdjudicationRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(AdjudicationRow.document_id))):
            pairs[(t, d)].adjudicated = g
    return pairs


class QrelsRows(list[tuple[str, str, int]]):
    """Qrels rows ``(topic, doc, grade)``, and what the method had to settle itself.

    A list (every caller that wants rows has them); the counts say how many pairs
    the assessors graded differently got their grade from the majority rule
    (``settled``) instead of a lead, and how many of those were ties broken to the
    lower grade (``ties_low``). ``relkit export qrels`` warns about them for
    ``--method adjudicated``.
    """

    settled: int = 0
    ties_low: int = 0


def _tied(grades: list[int]) -> bool:
    counts = Counter(grades).values()
    return list(counts).count(max(counts)) > 1


def majority(grades: list[int]) -> int:
    """The most frequent grade; a tie goes to the lowest tied grade (the cautious call)."""
    counts = Counter(grades)
    top = max(counts.values())
    return min(g for g, n in counts.items() if n == top)


def mean_rounded(grades: list[int]) -> int:
    """The mean grade rounded half up (2.5 -> 3), not to even as ``round`` would."""
    return math.floor(sum(grades) / len(grades) + 0.5)


def export_qrels(store: Store, method: Method = "majority", *, assessor: str | None = None,
                 threshold: int | None = None, unjudged: bool = True,
                 include_automatic: bool = False) -> QrelsRows:
    """Qrels rows ``(topic, doc, grade)`` from the judgments, sorted by topic and doc.

    ``method``: ``majority`` (ties to the lower grade), ``mean`` (rounded half
    up), ``assessor`` (only ``assessor``'s judgments), ``primary``
    (``assessor``'s grade where they judged, else the majority of the others),
    ``adjudicated`` (the lead's grade where there is one, else the majority, ties
    to the lower grade). ``threshold`` binarises (grade >= threshold -> 1, else
    0). Pooled pairs with no grade under the method are ``-1`` when ``unjudged``
    (the pooled-but-unjudged convention) and left out otherwise.

    The result's ``settled`` and ``ties_low`` count the disagreements (pairs graded
    differently) the majority rule decided, and the ties among them broken low.

    Automatic assessors' grades count only with ``include_automatic`` (or when
    one is the ``assessor`` named): otherwise a machine would vote as a person.
    """
    if method not in METHODS:
        raise StoreError(f"unknown export method {method!r}; expected one of {', '.join(METHODS)}")
    if method in ("assessor", "primary"):
        if assessor is None:
            raise StoreError(f"export method {method!r} needs --assessor NAME")
        if assessor not in store.assessors():
            raise StoreError(f"no assessor named {assessor!r}; there are "
                             f"{', '.join(store.assessors()) or 'none'}")
    out = QrelsRows()
    counted: bool | str = include_automatic or (assessor if assessor is not None else False)
    for (t, d), p in store_pairs(store, counted).items():
        grade: int | None
        if method == "assessor":
            grade = p.grades.get(assessor) if assessor is not None else None
        elif method == "primary":
            grade = p.grades.get(assessor) if assessor is not None else None
            if grade is None and p.grades:
                grade = majority(list(p.grades.values()))
        elif method == "adjudicated" and p.adjudicated is not None:
            grade = p.adjudicated
        elif not p.grades:
            grade = None
        elif method == "mean":
            grade = mean_rounded(list(p.grades.values()))
        else:
            grade = majority(list(p.grades.values()))
            if len(set(p.grades.values())) > 1:       # a disagreement, settled by rule
                out.settled += 1
                out.ties_low += _tied(list(p.grades.values()))
        if grade is None:
            if unjudged and p.pooled:
                out.append((t, d, UNJUDGED))
            continue
        if threshold is not None:
            grade = int(grade >= threshold)
        out.append((t, d, grade))
    out.sort(key=lambda r: (_natural(r[0]), r[1]))
    return out


def write_qrels(rows: list[tuple[str, str, int]], fp: IO[str]) -> None:
    for t, d, g in rows:
        fp.write(f"{t} 0 {d} {g}\n")


def dump(store: Store) -> Iterator[dict[str, object]]:
    """Every pair with full provenance: pools, each judgment with its history, gold."""
    with store.read() as s:
        keys = {}
        for tid, did, t, d in s.execute(
                select(col(TopicRow.id), col(DocumentRow.id), col(TopicRow.key),
                       col(DocumentRow.key))
                .join(PoolEntryRow, col(PoolEntryRow.topic_id) == col(TopicRow.id))
                .join(DocumentRow, col(DocumentRow.id) == col(PoolEntryRow.document_id))
                .union(select(col(TopicRow.id), col(DocumentRow.id), col(TopicRow.key),
                              col(DocumentRow.key))
                       .join(JudgmentRow, col(JudgmentRow.topic_id) == col(TopicRow.id))
                       .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id)))):
            keys[(tid, did)] = (t, d)
        pools: dict[tuple[int, int], list[dict[str, object]]] = defaultdict(list)
        for pname, e in s.execute(select(col(PoolRow.name), PoolEntryRow)
                                  .join(PoolEntryRow,
                                        col(PoolEntryRow.pool_id) == col(PoolRow.id))):
            pools[(e.topic_id, e.document_id)].append(
                {"pool": pname, "priority": e.priority,
                 "provenance": [list(p) for p in json.loads(e.provenance_json)]})
        names = {i: n for i, n in s.execute(select(col(AssessorRow.id), col(AssessorRow.name)))}
        kinds = {i: k for i, k in s.execute(select(col(AssessorRow.id), col(AssessorRow.kind)))}
        history: dict[int, list[dict[str, object]]] = defaultdict(list)
        for ev in s.execute(select(JudgmentEventRow).order_by(col(JudgmentEventRow.id))).scalars():
            history[ev.judgment_id].append(
                {"version": ev.version, "grade": ev.grade, "status": ev.status,
                 "note": ev.note, "flagged": ev.flagged, "dwell_ms": ev.dwell_ms,
                 "source": ev.source, "recorded_at": ev.recorded_at.isoformat()})
        judgments: dict[tuple[int, int], list[dict[str, object]]] = defaultdict(list)
        for j in s.execute(select(JudgmentRow).order_by(col(JudgmentRow.id))).scalars():
            judgments[(j.topic_id, j.document_id)].append(
                {"assessor": names[j.assessor_id], "kind": kinds[j.assessor_id],
                 "grade": j.grade, "status": j.status,
                 "note": j.note, "flagged": j.flagged, "dwell_ms": j.dwell_ms,
                 "version": j.version, "created_at": j.created_at.isoformat(),
                 "updated_at": j.updated_at.isoformat(), "history": history[j.id]})
        gold = {(g.topic_id, g.document_id): g.grade
                for g in s.execute(select(GoldRow)).scalars()}
        adj = {(a.topic_id, a.document_id): {"grade": a.grade, "lead": names[a.lead_id],
                                              "note": a.note}
               for a in s.execute(select(AdjudicationRow)).scalars()}
        decided = history_by_pair(s, names)
    for ids in sorted(keys, key=lambda k: (_natural(keys[k][0]), keys[k][1])):
        t, d = keys[ids]
        yield {"topic": t, "doc": d, "pools": pools.get(ids, []),
               "judgments": judgments.get(ids, []), "gold": gold.get(ids),
               "adjudication": adj.get(ids),
               "adjudication_history": decided.get(ids, [])}


def write_jsonl(store: Store, fp: IO[str]) -> int:
    """The pairs of :func:`dump`, then the preferences
    (:mod:`relkit.judging.store.preference_dump`), one JSON record a line; how many."""
    from itertools import chain

    from relkit.judging.store.preference_dump import preference_records

    n = 0
    for rec in chain(dump(store), preference_records(store)):
        fp.write(json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n")
        n += 1
    return n


@dataclass(frozen=True)
class Disagreement:
    topic: str
    doc: str
    grades: dict[str, int]
    notes: dict[str, str]
    adjudicated: int | None


def disagreements(store: Store, include_automatic: bool = False) -> list[Disagreement]:
    """Pairs that two or more assessors graded differently, with every grade and note.

    Automatic assessors' grades are left out unless ``include_automatic``.
    """
    rows: dict[tuple[str, str], dict[str, tuple[int, str]]] = defaultdict(dict)
    with store.read() as s:
        for t, d, a, g, note in s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(AssessorRow.name),
                       col(JudgmentRow.grade),
                       col(JudgmentRow.note))
                .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id))
                .join(AssessorRow, col(AssessorRow.id) == col(JudgmentRow.assessor_id))
                .where(col(JudgmentRow.status) == "judged",
                       *([] if include_automatic else [col(AssessorRow.kind) == "human"]))):
            rows[(t, d)][a] = (g, note)
    adj = {k: p.adjudicated for k, p in store_pairs(store).items() if p.adjudicated is not None}
    out = [Disagreement(t, d, {a: g for a, (g, _) in v.items()},
                        {a: n for a, (_, n) in v.items() if n}, adj.get((t, d)))
           for (t, d), v in rows.items() if len({g for g, _ in v.values()}) > 1]
    out.sort(key=lambda x: (_natural(x.topic), x.doc))
    return out


def document_text(store: Store, doc: str) -> tuple[str | None, str] | None:
    """A stored document's (title, text), for the lead's view."""
    with store.read() as s:
        row = s.execute(select(col(DocumentRow.title), col(DocumentRow.text))
                        .where(col(DocumentRow.key) == doc)).first()
    return None if row is None else (row[0], row[1])


def topic_text(store: Store, topic: str) -> tuple[str | None, str | None, str | None] | None:
    """A topic's (title, description, narrative), for the lead's view."""
    with store.read() as s:
        c = store.collection_row(s)
        row = s.execute(select(col(TopicRow.title), col(TopicRow.description),
                               col(TopicRow.narrative))
                        .where(col(TopicRow.collection_id) == c.id,
                               col(TopicRow.key) == topic)).first()
    return None if row is None else (row[0], row[1], row[2])
