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

Speed: each assessor's view keeps one :class:`Picker`, which keeps one
:class:`_Driver` per topic (the strategy's state and the last history id it has
seen); a next-item call reads only history rows newer than that (one indexed range
query, usually empty), so the full replay happens once per topic and session.
``bench/store_bench.py`` times both.

This module reads ``pool_entry`` (the runs' ranks) to let the strategy choose;
only the chosen document's id leaves it, so provenance still never reaches an
assessor's screen.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import and_, func, insert
from sqlalchemy import select as _select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from relkit.judging.store.connection import WAL
from relkit.judging.store.database import Database, DocLookup, now
from relkit.judging.store.models import (
    Assigned,
    AssignSummary,
    PoolEntryIn,
    PoolSummary,
    StoreError,
)
from relkit.judging.store.tables import (
    AssessorRow,
    AssignmentItemRow,
    AssignmentRow,
    DocumentRow,
    JudgmentEventRow,
    PoolEntryRow,
    PoolRow,
    TopicRow,
)
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.build import split_budget
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.pool import natural
from relkit.pooling.stopping import parse_stop
from relkit.pooling.strategies import get

KEY = "adaptive"
# SQLModel declares columns as their Python types (str, int | None), which no
# overload of sqlalchemy's select() accepts in a chained query; untyped here.
select: Any = _select


@dataclass(frozen=True)
class Definition:
    """What, besides the candidates, an adaptive pool needs to replay exactly."""

    strategy: str
    params: dict[str, Any]
    seed: int = 0
    budget: int | None = None          # judgments per topic
    total: int | None = None           # or a global budget split across topics
    level: int = 1                     # lowest relevant grade (the scale's threshold)
    max_grade: int = 1                 # full gain (graded strategies)
    stop: str | None = None            # a stopping rule: knee, target, target:T

    def validated(self) -> Definition:
        s = get(self.strategy)
        if s.kind != "adaptive":
            raise PoolingError(f"{self.strategy!r} is a static strategy, not adaptive")
        if (self.budget is None) == (self.total is None):
            raise PoolingError("an adaptive pool needs a budget: give --budget (per topic) "
                               "or --total (split across topics), not both")
        for what, v in (("budget", self.budget), ("total", self.total)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise PoolingError(f"The '{what}' parameter of adaptive pooling must be an "
                                   f"int >= 1; got {v!r}")
        rule = parse_stop(self.stop)
        return Definition(self.strategy, s.validate(self.params), self.seed, self.budget,
                          self.total, self.level, self.max_grade,
                          None if rule is None else str(rule))

    def quotas(self, sizes: Mapping[str, int]) -> dict[str, int]:
        """Documents to pick per topic: the budget, never more than the candidates."""
        if self.total is not None:
            return split_budget(self.total, sizes)
        assert self.budget is not None
        return {t: min(self.budget, n) for t, n in sizes.items()}

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if out["stop"] is None:
            del out["stop"]  # a pool without a rule keeps the digest it had before rules
        return out

    @classmethod
    def of_pool(cls, row: PoolRow) -> Definition | None:
        """The definition stored with a pool (None: a static pool)."""
        params = json.loads(row.params_json or "{}")
        spec = params.get(KEY) if isinstance(params, dict) else None
        return None if spec is None else cls(**spec)


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


# -- the next document ------------------------------------------------------------------------
@dataclass
class _Driver:
    """One topic's strategy state in one view, and how far into the history it is."""

    pool: AdaptivePool
    docs: frozenset[str]
    last_id: int = 0
    seen: set[str] = field(default_factory=set)


def candidates(s: Session, pool_id: int, topic_id: int, topic: str) -> Candidates:
    """The runs' ranked lists of one topic, rebuilt from the pool's provenance."""
    lists: dict[str, list[tuple[int, str]]] = {}
    for doc, prov in s.execute(
            select(DocumentRow.key, PoolEntryRow.provenance_json)
            .join(DocumentRow, DocumentRow.id == PoolEntryRow.document_id)
            .where(PoolEntryRow.pool_id == pool_id, PoolEntryRow.topic_id == topic_id)):
        for run, rank in json.loads(prov):
            lists.setdefault(run, []).append((rank, doc))
    ranked = {r: [d for _, d in sorted(v)] for r, v in sorted(lists.items())}
    return Candidates({topic: ranked}, {topic: {}})


class Picker:
    """The documents the strategies pick for one assessor, topic by topic.

    An :class:`relkit.judging.store.assessor.AssessorView` makes one for its adaptive
    topics; it keeps each topic's strategy state (:class:`_Driver`) between calls.
    """

    def __init__(self, db: Database, assessor_id: int, assessor: str,
                 collection_id: int) -> None:
        self.db = db
        self.assessor_id = assessor_id
        self.assessor = assessor
        self.collection_id = collection_id
        self._drivers: dict[str, _Driver] = {}
        self._texts: dict[int, Any] = {}

    def _with_text(self, s: Session, prow: PoolRow, cands: Candidates) -> Candidates:
        """``cands`` with the pool's text (read once per pool and view: the cal
        strategy's features are fitted on it once)."""
        from relkit.judging.store.caltext import pool_texts

        assert prow.id is not None
        text = self._texts.get(prow.id)
        if text is None:
            text = self._texts[prow.id] = pool_texts(s, prow.id, prow.collection_id)
        return Candidates(cands.lists, cands.scores, cands.depth, text=text)

    def _driver(self, s: Session, a: Assigned, topic: str) -> _Driver:
        drv = self._drivers.get(topic)
        if drv is None:
            prow = s.get(PoolRow, a.pool_id)
            assert prow is not None
            d = Definition.of_pool(prow)
            if d is None:
                raise StoreError(f"pool {prow.name!r} is not adaptive")
            cands = candidates(s, a.pool_id, a.topic_id, topic)
            if d.strategy == "cal":   # it reads the text: the pool's, from the database
                cands = self._with_text(s, prow, cands)
            pool = AdaptivePool(d.strategy, cands, d.params, seed=d.seed, level=d.level,
                                max_grade=d.max_grade, stop=d.stop)
            drv = _Driver(pool, frozenset(cands.provenance(topic)))
            self._drivers[topic] = drv
        # Only judgments newer than the last one seen: usually none (an index probe).
        rows = s.execute(
            select(JudgmentEventRow.id, DocumentRow.key, JudgmentEventRow.status,
                   JudgmentEventRow.grade)
            .join(DocumentRow, DocumentRow.id == JudgmentEventRow.document_id)
            .where(JudgmentEventRow.assessor_id == self.assessor_id,
                   JudgmentEventRow.topic_id == a.topic_id,
                   col(JudgmentEventRow.id) > drv.last_id)
            .order_by(JudgmentEventRow.id)).all()
        for hid, doc, status, grade in rows:
            drv.last_id = hid
            if doc in drv.seen or doc not in drv.docs:
                continue  # a revision (first writes steer), or an imported non-candidate
            drv.seen.add(doc)
            drv.pool.next(topic)  # as when it was shown: keeps the generators in step
            if status == "judged":
                drv.pool.record(topic, doc, grade)
            else:
                drv.pool.skip(topic, doc)
        return drv

    def stopped(self, a: Assigned, topic: str) -> tuple[str, int] | None:
        """The stopping rule's verdict on a primary assignment: (why, judgments) or None."""
        if a.follows_id is not None:
            return None  # overlap assessors follow the primary's sequence
        with self.db.read() as s:
            pool = self._driver(s, a, topic).pool
            why = pool.stopped(topic)
            return None if why is None else (why, pool.stopped_after(topic) or 0)

    def standing(self, a: Assigned, topic: str) -> Any:
        """The topic's :class:`relkit.pooling.adaptive.Standing` after the primary's
        judgments so far (replayed; nothing written)."""
        with self.db.read() as s:
            return self._driver(s, a, topic).pool.standing(topic)

    def upcoming(self, a: Assigned, topic: str) -> tuple[str, str | None, str] | None:
        """(id, title, text) of the document the strategy offers after its current pick
        whatever that one's grade, when known (:meth:`AdaptivePool.upcoming`): the judging
        screen prepares it while the assessor reads. Reads only; None for an overlap
        assessor or when the next pick depends on the grade."""
        if a.follows_id is not None:
            return None
        with self.db.read() as s:
            pool = self._driver(s, a, topic).pool
            doc = pool.upcoming(topic)
            if doc is None:
                return None
            row = s.execute(select(DocumentRow.title, DocumentRow.text).where(
                DocumentRow.collection_id == self.collection_id,
                DocumentRow.key == doc)).first()
        return None if row is None else (doc, row[0], row[1] or "")

    def _followed(self, s: Session, a: Assigned, n: int, topic: str) -> str | None:
        """The overlap assessor's (n+1)-th document: a sampled position of the primary's."""
        own = s.get(AssignmentRow, a.assignment_id)
        primary = s.get(AssignmentRow, a.follows_id)
        assert own is not None and primary is not None and primary.quota is not None
        rng = random.Random(f"follow:{own.seed}:{self.assessor}:{topic}")
        wanted = sorted(rng.sample(range(1, primary.quota + 1), min(a.total, primary.quota)))
        if n >= len(wanted):
            return None
        return s.execute(select(DocumentRow.key)
                         .join(AssignmentItemRow,
                               AssignmentItemRow.document_id == DocumentRow.id)
                         .where(AssignmentItemRow.assignment_id == primary.id,
                                AssignmentItemRow.position == wanted[n])).scalar()

    def next_position(self, a: Assigned, topic: str) -> int | None:
        """Position of the document the strategy offers next, its item created if new.

        None when the assignment has picked its quota, or (overlap assessor) the
        primary has not been shown the next sampled document yet. Idempotent: with
        no judgment in between, two calls give the same position.
        """
        for _ in range(2):  # a second try only if another session inserted concurrently
            with self.db.read() as s:
                n = s.execute(select(func.count()).select_from(AssignmentItemRow).where(
                    AssignmentItemRow.assignment_id == a.assignment_id)).scalar_one()
                if n >= a.total:
                    return None
                if a.follows_id is None:
                    pool = self._driver(s, a, topic).pool
                    doc = pool.next(topic)
                    pool.ahead(topic)  # cal: the next batch trains while this is read
                else:
                    doc = self._followed(s, a, n, topic)
                if doc is None:
                    return None
                # The document's id and, if it was picked before, its position: one query.
                did, pos = s.execute(
                    select(DocumentRow.id, AssignmentItemRow.position)
                    .outerjoin(AssignmentItemRow, and_(
                        col(AssignmentItemRow.document_id) == col(DocumentRow.id),
                        col(AssignmentItemRow.assignment_id) == a.assignment_id))
                    .where(DocumentRow.collection_id == self.collection_id,
                           DocumentRow.key == doc)).one()
                if pos is not None:
                    return int(pos)  # picked before and not judged yet
            try:
                self._add_item(a.assignment_id, n + 1, did)
                return n + 1
            except IntegrityError:
                continue
        raise StoreError(f"topic {topic!r}: could not add the next document (another "
                         "session keeps adding items to this assignment)")


    def _add_item(self, assignment_id: int, position: int, document_id: int) -> None:
        """Write a picked document's item, committed without waiting for the disk.

        The item is derived (the pick is a pure function of the committed history, so
        a lost one is picked again, at the same position), and its commit is on the
        judging screen's path from a grade key to the next document: SQLite commits it
        with ``synchronous=NORMAL`` (no fsync; the next judgment's ``FULL`` commit
        fsyncs the write-ahead log with this row in it, so an item a judgment refers to
        is on disk with the judgment), PostgreSQL with ``synchronous_commit = off``
        (the same: a later synchronous commit flushes the log up to itself). A process
        killed after this commit keeps the row either way; only an OS crash or a power
        cut can lose it, and then nothing is lost (it is picked again).
        """
        with self.db.writer.connect() as conn:
            lite = conn.dialect.name == "sqlite"
            # NORMAL is safe only in WAL mode (in rollback-journal mode a power cut could
            # corrupt the file): a connection that did not get WAL commits it fully.
            fast = lite and bool(conn.connection.info.get(WAL, False))
            raw: Any = conn.connection.dbapi_connection
            try:
                if fast:   # only outside a transaction: before the BEGIN, back after it
                    raw.execute("PRAGMA synchronous = NORMAL")
                with conn.begin():
                    if not lite:
                        conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
                    conn.execute(_ADD_ITEM, dict(assignment_id=assignment_id,
                                                 position=position, document_id=document_id,
                                                 done=False))
            finally:
                if fast:
                    try:
                        raw.execute("PRAGMA synchronous = FULL")
                    except BaseException:
                        # Never back in the pool at NORMAL: a later judgment would
                        # commit on it without an fsync.
                        conn.invalidate()
                        raise


_ADD_ITEM = insert(AssignmentItemRow)  # values as parameters (Core: no unit of work)


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
