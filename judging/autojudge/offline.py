"""The judging database's side of ``--backend supervised``: the humans' grades and the
pool's text in, the pairs it can grade out (see :mod:`relkit.judging.autojudge.supervised`)."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlmodel import col

from relkit.judging.autojudge.backend import Request
from relkit.judging.autojudge.supervised import SupervisedBackend
from relkit.judging.store.assign import Store
from relkit.judging.store.caltext import pool_texts
from relkit.judging.store.models import StoreError
from relkit.judging.store.reports import export_qrels
from relkit.judging.store.tables import PoolRow

SHOWN = 5   # topics named in the "not graded" line


def supervised_backend(store: Store, pool: str, requests: list[Request], level: int,
                       seed: int, say: Callable[[str], None]
                       ) -> tuple[SupervisedBackend, list[Request]]:
    """The backend, trained on the humans' (adjudicated) grades, and the requests it can
    grade; one line on stderr for the pairs it cannot. Raises :class:`StoreError` when no
    topic has a human-judged relevant document to learn from."""
    human = {(t, d): g for t, d, g in export_qrels(store, "adjudicated", unjudged=False)}
    with store.read() as s:
        c = store.collection_row(s)
        pool_id = s.execute(select(col(PoolRow.id)).where(
            col(PoolRow.collection_id) == c.id, col(PoolRow.name) == pool)).scalar_one()
        assert c.id is not None   # a stored row
        texts = pool_texts(s, pool_id, c.id)
    # A judgment of a document whose text the database does not hold (imported with
    # --add-missing) would teach the model that an empty document has that grade.
    blind = [k for k in human if not (texts.docs.get(k[1]) or "").strip()]
    if blind:
        say(f"relkit: supervised: {len(blind):,} of {len(human):,} human judgments are of "
            "documents with no text in the pool, not learned from")
        human = {k: g for k, g in human.items() if k not in set(blind)}
    backend = SupervisedBackend(texts, human, level=level, seed=seed)
    if not backend.learnable():
        relevant = sum(1 for g in human.values() if g >= level)
        raise StoreError(f"the supervised judge has nothing to learn from: {len(human):,} "
                         f"human judgments, {relevant:,} of a relevant document (grade >= "
                         f"{level}) on a topic with text; judge some pairs first "
                         "(`relkit judge`, `relkit import judgments`); nothing was graded")
    keep = [r for r in requests if backend.gradable(r.topic, r.doc)]
    if len(keep) < len(requests):
        left = sorted({r.topic for r in requests} - backend.learnable())
        named = ", ".join(left[:SHOWN]) + (f" and {len(left) - SHOWN:,} more"
                                          if len(left) > SHOWN else "")
        why = (f"topics with no human-judged relevant document to learn from: {named}"
               if left else "judged pairs whose topic has no other judgment to learn from")
        say(f"relkit: supervised: {len(requests) - len(keep):,} of {len(requests):,} pairs "
            f"not graded ({why})")
    return backend, keep
