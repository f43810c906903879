"""``relkit status`` for ``cal`` pools: per topic, what the classifier's review has done.

For each primary assignment of a ``cal`` pool (overlap assessors follow it and do
not steer): the documents judged, the relevant ones found, the stopping rule's state
and its recall estimate (the target method's, once its sample is complete; the knee
method has none), from :meth:`relkit.pooling.adaptive.AdaptivePool.standing` after the
replay :class:`relkit.judging.store.adaptive.Picker` does. Reads only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select as _select

from relkit.judging.store.adaptive import Definition, Picker, primary_assignments
from relkit.judging.store.database import Database
from relkit.judging.store.models import Assigned
from relkit.judging.store.tables import PoolRow
from relkit.pooling.pool import natural

# SQLModel declares columns as Python types (see relkit.judging.store.adaptive): untyped.
select: Any = _select


@dataclass(frozen=True)
class CalTopic:
    topic: str
    assessor: str
    pool: str
    judged: int
    relevant: int
    rule: str            # "" without a stopping rule
    recall: float | None
    state: str


def cal_pools(store: Database) -> dict[int, tuple[str, Definition]]:
    """The pools whose strategy is ``cal``: id -> (name, definition)."""
    with store.read() as s:
        out = {}
        for p in s.execute(select(PoolRow)).scalars():
            d = Definition.of_pool(p)
            if d is not None and d.strategy == "cal":
                out[p.id] = (p.name, d)
        return out


def cal_standing(store: Database) -> list[CalTopic]:
    """Every primary assignment of a ``cal`` pool, by topic then assessor."""
    pools = cal_pools(store)
    if not pools:
        return []
    with store.read() as s:
        rows = primary_assignments(s, list(pools))
    out = []
    pickers: dict[int, Picker] = {}
    for aid, who_id, who, tid, topic, pid, quota, cid in rows:
        picker = pickers.setdefault(who_id, Picker(store, who_id, who, cid))
        st = picker.standing(Assigned(tid, aid, quota or 0, pid, True, None), topic)
        out.append(CalTopic(topic, who, pools[pid][0], st.judged, st.relevant, st.rule,
                            st.recall, st.state))
    return sorted(out, key=lambda x: (natural(x.topic), x.assessor))
