"""Adaptive pools in the judging store: the strategy picks each next document.

An adaptive pool (``relkit pool RUN... --strategy bandit --budget 50 --db DB``)
is stored like any pool: every candidate (the runs' top ``depth`` per topic) is a
``pool_entry`` row with its provenance, so every candidate's text is in the
database and the runs' ranked lists can be rebuilt from the database alone. The
pool row's ``params_json`` holds the rest of the definition under ``"adaptive"``
(:class:`Definition`: strategy parameters, seed, budget, relevance level), next
to the depth and the run files' SHA-256.

Assignments on such a pool get no items up front. Each has a ``quota`` (the
topic's budget) and items are created as the strategy picks them, at positions
1, 2, ... in the order picked, so back/forward, the revise list and progress work
as for a static pool.

* **Primary assessor** (the one ``assign`` gives the topic to) drives the
  strategy. Their next document is :meth:`relkit.pooling.adaptive.AdaptivePool.next`
  after replaying their judgments of the topic in history order (history id):
  for each document, its *first* write only — a grade is recorded, a skip or
  judge-later sets the document aside (nothing learned). Later revisions correct
  the qrels but never re-steer picks already made, so the sequence shown is a
  pure function of the append-only history: same seed, same sequence, and a
  reopened session continues it exactly. Skipped and judge-later documents
  count against the budget (the strategy has moved past them); as in a static
  pool, the judge-later ones come round again once the budget is picked and the
  skipped ones stay set aside (the revise list reaches them).
* **Overlap assessors** (``--overlap f``) do not steer: their assignment
  ``follows`` the primary's and gets ``round(f x quota)`` positions of the
  primary's sequence, sampled with a seed per assessor and topic; each becomes
  available once the primary has been shown it. So agreement is measured on
  documents the strategy chose, and a second assessor cannot change the choices.
* Gold pairs and ``--order`` do not apply (the strategy decides what is shown).
* **Stopping rule** (``relkit pool ... --stop knee|target[:T]``, stored in the
  definition): once the primary's judgments meet it, the topic offers no new
  document (the TUI shows the topic complete, short of its budget) and
  ``relkit status`` names the topic, the rule and the judgments it took
  (:func:`stops`). Like the picks, it is a pure function of the history.

The picking itself (:class:`Picker`, one per assessor's view, and its speed) is in
:mod:`relkit.judging.store.picker`, re-exported here.

The picker reads ``pool_entry`` (the runs' ranks) to let the strategy choose;
only the chosen document's id leaves it, so provenance still never reaches an
assessor's screen.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as _select
from sqlmodel import Session, col

# The definition and the picker, re-exported (split from this module; the import
# paths are kept).
from relkit.judging.store.adaptivedef import KEY as KEY
from relkit.judging.store.adaptivedef import Definition as Definition
from relkit.judging.store.database import Database, DocLookup, now
from relkit.judging.store.models import (
    Assigned,
    AssignSummary,
    PoolEntryIn,
    PoolSummary,
    StoreError,
)
from relkit.judging.store.picker import Picker as Picker
from relkit.judging.store.picker import _Driver as _Driver
from relkit.judging.store.picker import candidates as candidates
from relkit.judging.store.tables import (
    AssessorRow,
    AssignmentRow,
    PoolEntryRow,
    PoolRow,
    TopicRow,
)
from relkit.pooling.candidates import Candidates
from relkit.pooling.pool import natural

# SQLModel declares columns as their Python types (str, int | None), which no
# overload of sqlalchemy's select() accepts in a chained query; untyped here.
select: Any = _select


def entries(cands: Candidates) -> list[PoolEntryIn]:
    """Every candidate with its provenance; priority ``1 / best rank`` as depth-k's."""
    out = []
    for t in cands.topics:
        for d, prov in sorted(cands.provenance(t).items()):
            out.append(PoolEntryIn(topic=t, doc=d, priority=1.0 / min(k for _, k in prov),
                                   provenance=tuple(prov)))
    return out


def import_pool(store: Database, cands: Candidates, definition: Definition, *, name: str,
                lookup: DocLookup | None = None, extra: Mapping[str, Any] | None = None,
                source: str = "<runs>") -> PoolSummary:
    """Import an adaptive pool: every candidate (texts copied in) and its definition.

    The relevance level and full-gain grade default to the collection's scale
    (its threshold and its highest grade) when ``definition`` leaves them at 1.
    """
    scale = store.scale()
    d = definition.validated()
    d = Definition(d.strategy, d.params, d.seed, d.budget, d.total,
                   level=scale.threshold, max_grade=max(scale.values), stop=d.stop)
    params = {**dict(extra or {}), KEY: d.to_json()}
    # The digest identifies a pool by its pairs; an adaptive pool over the same
    # candidates as a depth pool (or with another seed) is a different pool.
    salt = json.dumps(d.to_json(), sort_keys=True)
    return store.import_pool(entries(cands), name=name, lookup=lookup, strategy=d.strategy,
                             params=params, source=source, digest_salt=salt)


# -- assign --------------------------------------------------------------------------------
def assign(store: Database, s: Session, prow: PoolRow, definition: Definition,
           assessors: Sequence[str], topics: Sequence[str] | None, overlap: float,
           ordering: str, seed: int, gold: Mapping[tuple[str, str], int] | None
           ) -> AssignSummary:
    """``Store.assign`` for an adaptive pool, inside its transaction (see the module doc)."""
    if gold:
        raise StoreError("assign: gold pairs are not mixed into an adaptive pool (its "
                         "strategy picks every document shown); nothing was changed")
    if ordering != "docno":
        raise StoreError(f"assign: an adaptive pool is shown in its strategy's order; "
                         f"--order {ordering} does not apply")
    sizes = {k: int(n) for k, n in s.execute(
        select(TopicRow.key, func.count()).join(PoolEntryRow, PoolEntryRow.topic_id == TopicRow.id)
        .where(PoolEntryRow.pool_id == prow.id).group_by(TopicRow.key))}
    tids: dict[str, int] = dict(s.execute(select(TopicRow.key, TopicRow.id)
                          .where(TopicRow.collection_id == prow.collection_id)).all())
    quota = definition.quotas(sizes)
    if topics is not None:
        missing = [t for t in topics if t not in quota]
        if missing:
            raise StoreError(f"assign: topics not in pool {prow.name!r}: {missing[:5]}")
        quota = {t: quota[t] for t in topics}
    ids = store.ensure_assessors(s, assessors)
    taken = {(a, t) for a, t in s.execute(select(AssignmentRow.assessor_id,
                                                  AssignmentRow.topic_id))}
    names = list(dict.fromkeys(assessors))
    load = dict.fromkeys(names, 0)
    n_assign = n_items = n_overlap = 0
    for t in sorted(quota, key=lambda t: (-quota[t], natural(t))):
        q = quota[t]
        if q == 0:
            continue  # a global budget left this topic nothing to judge
        first = min(names, key=lambda n: (load[n], names.index(n)))
        plan: list[tuple[str, int, str | None]] = [(first, q, None)]
        k = round(overlap * q)
        if k:
            plan.append((names[(names.index(first) + 1) % len(names)], k, first))
        primary_id = None
        for who, n, follows in plan:
            if (ids[who], tids[t]) in taken:
                raise StoreError(f"assign: {who!r} is already assigned topic {t!r}; "
                                 "nothing was changed")
            assert prow.id is not None
            row = AssignmentRow(assessor_id=ids[who], topic_id=tids[t], pool_id=prow.id,
                                ordering="docno", seed=seed, created_at=now(), quota=n,
                                follows_id=primary_id if follows else None)
            s.add(row)
            s.flush()
            primary_id = primary_id or row.id
            load[who] += n
            n_assign += 1
            n_items += n
        n_overlap += k
    return AssignSummary(len(names), n_assign, n_items, n_overlap, 0, adaptive=True)


# -- stopping rules ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Stopped:
    """A topic whose stopping rule said stop (``relkit status``)."""

    topic: str
    assessor: str
    pool: str
    rule: str
    judged: int          # the primary's judgments when the rule said stop
    budget: int
    reason: str


def primary_assignments(s: Session, pool_ids: list[int]) -> list[Any]:
    """The primary (not following) assignments of ``pool_ids``: (assignment id, assessor
    id, assessor name, topic id, topic key, pool id, quota, collection id) rows."""
    return list(s.execute(
        select(AssignmentRow.id, AssignmentRow.assessor_id, AssessorRow.name,
               AssignmentRow.topic_id, TopicRow.key, AssignmentRow.pool_id,
               AssignmentRow.quota, TopicRow.collection_id)
        .join(AssessorRow, AssessorRow.id == AssignmentRow.assessor_id)
        .join(TopicRow, TopicRow.id == AssignmentRow.topic_id)
        .where(col(AssignmentRow.pool_id).in_(pool_ids),
               col(AssignmentRow.follows_id).is_(None))).all())


def stops(store: Database) -> list[Stopped]:
    """Every primary assignment of an adaptive pool with a stopping rule that has stopped.

    Reads only: each is the replay :class:`Picker` does for the assessor.
    """
    with store.read() as s:
        pools = {p.id: p for p in s.execute(select(PoolRow)).scalars()}
        ruled = {pid: d for pid, p in pools.items()
                 if (d := Definition.of_pool(p)) is not None and d.stop}
        if not ruled:
            return []
        rows = primary_assignments(s, list(ruled))
    out = []
    pickers: dict[int, Picker] = {}
    for aid, who_id, who, tid, topic, pid, quota, cid in rows:
        picker = pickers.setdefault(who_id, Picker(store, who_id, who, cid))
        verdict = picker.stopped(Assigned(tid, aid, quota or 0, pid, True, None), topic)
        if verdict is not None:
            d = ruled[pid]
            out.append(Stopped(topic, who, pools[pid].name, str(d.stop), verdict[1],
                               quota or 0, verdict[0]))
    return sorted(out, key=lambda x: (natural(x.topic), x.assessor))
