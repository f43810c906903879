"""The typed values the store hands back: frozen dataclasses, never ORM rows.

No caller can lazily load something it should not see through them (an assessor view
never carries run names, ranks or other assessors' grades). What the store takes in is
validated by :mod:`.inputs` first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ScaleGradeOut:
    value: int
    label: str
    definition: str


@dataclass(frozen=True)
class TopicOut:
    """An assigned topic as an assessor sees it, with progress."""

    key: str
    title: str | None
    description: str | None
    narrative: str | None
    total: int
    done: int
    grade_counts: dict[int, int]
    skipped: int = 0  # set aside for good (the revise list reaches them)
    later: int = 0    # put off to the end of the topic: still to judge

    @property
    def open(self) -> bool:
        """Whether something is left to judge (a skipped document is set aside)."""
        return self.done + self.skipped < self.total


@dataclass(frozen=True)
class ItemOut:
    """One document to judge: no provenance, priority or other assessors' grades."""

    topic: str
    doc: str
    position: int
    total: int
    title: str | None
    text: str
    grade: int | None
    status: str | None
    note: str
    flagged: bool
    # The judgment's version as read (0: none yet). The judging screen saves with it, so
    # that a save over a judgment it never showed is said (AssessorView.record).
    version: int = 0


@dataclass(frozen=True)
class JudgmentOut:
    topic: str
    doc: str
    assessor: str
    grade: int | None
    status: str
    note: str
    flagged: bool
    dwell_ms: int
    version: int
    source: str
    created_at: datetime
    updated_at: datetime
    # A write given the version its caller had shown (``AssessorView.record``'s
    # ``expected_version``) over a newer one: the judgment it replaced, unseen by the
    # caller (another session of the same person saved it meanwhile); otherwise None.
    meanwhile: JudgmentOut | None = None


@dataclass(frozen=True)
class PoolSummary:
    """What :meth:`relkit.judging.store.database.Database.import_pool` imported."""

    name: str
    entries: int
    topics: int
    new_documents: int


@dataclass(frozen=True)
class AssignSummary:
    """What :meth:`relkit.judging.store.assign.Store.assign` created."""

    assessors: int
    assignments: int
    items: int
    overlap_pairs: int
    gold_items: int
    # An adaptive pool: ``items`` are the quotas (judgments to make); the items
    # themselves are created as the strategy picks them.
    adaptive: bool = False


@dataclass(frozen=True)
class Assigned:
    """One assessor's assignment of one topic, as the assessor's view reads it.

    Internal to the store (the view and :mod:`relkit.judging.store.adaptive` share it);
    it carries ids, never run names or ranks.
    """

    topic_id: int
    assignment_id: int
    total: int                  # items; an adaptive assignment's quota
    pool_id: int = 0
    adaptive: bool = False      # items are created as the strategy picks them
    follows_id: int | None = None
