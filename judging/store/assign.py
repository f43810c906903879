"""The judging store: a project's collection, pools and assignments.

One :class:`Store` per open database: a :class:`relkit.judging.store.database.Database`
(sessions, collection, pools, assessors) that also shares pools out to assessors
(:meth:`Store.assign`) and opens one assessor's view (:meth:`Store.assessor`,
:class:`relkit.judging.store.assessor.AssessorView`). Adaptive pools are assigned by
:mod:`relkit.judging.store.adaptive`. Reports and exports live in
:mod:`relkit.judging.store.reports`, imports in :mod:`relkit.judging.store.imports`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlmodel import col

from relkit.judging.store.database import Database, bulk_insert, now
from relkit.judging.store.models import AssignIn, AssignSummary, StoreError, validated
from relkit.judging.store.tables import (
    AssignmentItemRow,
    AssignmentRow,
    GoldRow,
    Order,
    PoolEntryRow,
    PoolRow,
    ScaleGradeRow,
    stored,
)

if TYPE_CHECKING:
    from relkit.judging.store.assessor import AssessorView


class Store(Database):
    """A judging database with assignments. Build one with :meth:`open`."""

    def assign(self, assessors: Sequence[str], *, pool: str | None = None,
               topics: Sequence[str] | None = None, overlap: float = 0.0,
               ordering: Order = "docno", seed: int = 0,
               gold: Mapping[tuple[str, str], int] | None = None,
               collection: str | None = None) -> AssignSummary:
        """Share a pool's topics among ``assessors``, with overlap and gold pairs.

        Topics go round-robin, largest first, to the assessor with the fewest
        items so far; then a seeded ``overlap`` fraction of each topic's pairs
        is also given to the next assessor in turn, so those pairs are judged
        twice (for agreement). ``gold`` pairs (known grades, kept out of every
        assessor's view) are added to every assignment of their topic.
        Presentation order per assignment: ``docno`` (NIST practice),
        ``random`` (seeded per assessor and topic) or ``priority``.
        """
        if not assessors:
            raise StoreError("assign: name at least one assessor")
        if not 0.0 <= overlap <= 1.0:
            raise StoreError(f"assign: --overlap must be a fraction in [0, 1]; got {overlap}")
        if overlap > 0 and len(set(assessors)) < 2:
            raise StoreError("assign: overlap needs at least two assessors")
        for a in assessors:
            validated(AssignIn, "assign", assessor=a, topic="-", ordering=ordering, seed=seed)
        machines = sorted(set(assessors) & set(self.assessors(kind="automatic")))
        if machines:
            raise StoreError(f"assign: {', '.join(machines)}: an automatic assessor; its "
                             "judgments are imported (relkit import judgments --kind "
                             "automatic), not judged on screen; nothing was changed")
        with self.write() as s, s.begin():
            c = self.collection_row(s, collection)
            pools = list(s.execute(select(PoolRow).where(col(PoolRow.collection_id) == c.id)
                                .order_by(col(PoolRow.id))).scalars())
            if not pools:
                raise StoreError("assign: no pool imported yet: run `relkit pool ... --db DB`")
            prow = pools[-1] if pool is None else next((p for p in pools if p.name == pool), None)
            if prow is None:
                raise StoreError(f"assign: no pool named {pool!r}; there are "
                                 f"{[p.name for p in pools]}")
            # Imported here, as the assessor's view below: opening a store for an
            # import or a report need not load the pooling strategies.
            from relkit.judging.store import adaptive

            definition = adaptive.Definition.of_pool(prow)
            if definition is not None:
                return adaptive.assign(self, s, prow, definition, assessors, topics, overlap,
                                       ordering, seed, gold)
            tkeys = {i: k for k, i in self.topic_ids(s, c.id).items()}
            dkeys = {i: k for k, i in self.doc_ids(s, c.id).items()}
            by_topic: dict[str, list[tuple[int, float]]] = {}
            for tid, did, prio in s.execute(select(col(PoolEntryRow.topic_id),
                                                   col(PoolEntryRow.document_id),
                                                col(PoolEntryRow.priority))
                                         .where(col(PoolEntryRow.pool_id) == prow.id)):
                by_topic.setdefault(tkeys[tid], []).append((did, prio))
            if topics is not None:
                missing = [t for t in topics if t not in by_topic]
                if missing:
                    raise StoreError(f"assign: topics not in pool {prow.name!r}: {missing[:5]}")
                by_topic = {t: by_topic[t] for t in topics}
            ids = self.ensure_assessors(s, assessors)
            taken = {(a, t) for a, t in s.execute(select(col(AssignmentRow.assessor_id),
                                                      col(AssignmentRow.topic_id)))}
            topic_id = {k: i for i, k in tkeys.items()}
            gold_by_topic: dict[str, list[tuple[str, int]]] = {}
            docid = {k: i for i, k in dkeys.items()}
            for (t, d), g in (gold or {}).items():
                if t not in topic_id or d not in docid:
                    raise StoreError(f"assign: gold pair ({t!r}, {d!r}) is not in the database")
                if g not in {r.value for r in s.execute(select(ScaleGradeRow).where(
                        col(ScaleGradeRow.collection_id) == c.id)).scalars()}:
                    raise StoreError(f"assign: gold grade {g} for ({t!r}, {d!r}) is not on the "
                                     "scale")
                gold_by_topic.setdefault(t, []).append((d, g))
                had = s.execute(select(GoldRow).where(col(GoldRow.topic_id) == topic_id[t],
                                                   col(GoldRow.document_id) == docid[d])
                                ).scalars().first()
                if had is None:
                    s.add(GoldRow(collection_id=stored(c.id), topic_id=topic_id[t],
                                  document_id=docid[d], grade=g))
                elif had.grade != g:
                    # The known grade assessors are checked against: changing it would
                    # rescore every earlier check silently (and it has no history).
                    raise StoreError(f"assign: gold pair ({t!r}, {d!r}) already has grade "
                                     f"{had.grade}; this gold file says {g}; nothing was "
                                     "changed")
            names = list(dict.fromkeys(assessors))
            load = dict.fromkeys(names, 0)
            rng = random.Random(f"overlap:{seed}")
            plan: dict[tuple[str, str], list[tuple[int, float]]] = {}
            overlap_pairs = 0
            for t in sorted(by_topic, key=lambda t: (-len(by_topic[t]), t)):
                entries = sorted(by_topic[t], key=lambda e: dkeys[e[0]])
                first = min(names, key=lambda n: (load[n], names.index(n)))
                plan[(first, t)] = entries
                load[first] += len(entries)
                k = round(overlap * len(entries))
                if k:
                    second = names[(names.index(first) + 1) % len(names)]
                    plan[(second, t)] = sorted(rng.sample(entries, k), key=lambda e: dkeys[e[0]])
                    load[second] += k
                    overlap_pairs += k
            n_items = n_gold = 0
            conn = s.connection()
            for (a, t), entries in plan.items():
                if (ids[a], topic_id[t]) in taken:
                    raise StoreError(f"assign: {a!r} is already assigned topic {t!r}; "
                                     "nothing was changed")
                have = {e[0] for e in entries}
                extra = [(docid[d], 0.0) for d, _ in gold_by_topic.get(t, [])
                         if docid[d] not in have]
                n_gold += len(extra)
                ordered = _present(entries + extra, dkeys, ordering, f"{seed}:{a}:{t}")
                arow = AssignmentRow(assessor_id=ids[a], topic_id=topic_id[t], pool_id=prow.id,
                                     ordering=ordering, seed=seed if ordering == "random" else None,
                                     created_at=now())
                s.add(arow)
                s.flush()
                rows = [dict(assignment_id=arow.id, position=i + 1, document_id=d, done=False)
                        for i, d in enumerate(ordered)]
                bulk_insert(conn, AssignmentItemRow, rows)
                n_items += len(rows)
        return AssignSummary(len(names), len(plan), n_items, overlap_pairs, n_gold)

    def assessor(self, name: str) -> AssessorView:
        """The view one assessor works through (:class:`AssessorView`)."""
        from relkit.judging.store.assessor import AssessorView

        return AssessorView(self, name)


def _present(entries: list[tuple[int, float]], dkeys: Mapping[int, str], ordering: str,
             seed: str) -> list[int]:
    """Presentation order of one assignment's documents (ids): see :mod:`relkit.pooling.order`."""
    from relkit.pooling.order import present

    return present(entries, ordering, docno=lambda d: dkeys[d], seed=seed)
