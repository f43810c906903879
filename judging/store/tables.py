"""The judging database: every table, in one module.

SQLModel ``table=True`` classes do not validate their input, so nothing here is
built from user data directly: :mod:`relkit.judging.store.models` validates first, and the
invariants that matter are database constraints as well (unique current
judgment per assessor/topic/document, grades within the collection's scale
through a composite foreign key, status and grade consistent, foreign keys).

The schema is created and upgraded only by Alembic (``judging/store/migrations``);
``SQLModel.metadata`` here is what the migrations are checked against.

Assessor-facing code never reads ``pool_entry`` (provenance, priority) or other
assessors' rows; see :class:`relkit.judging.store.assessor.AssessorView`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKeyConstraint,
    Index,
    String,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

Status = Literal["judged", "skipped", "later"]
STATUSES: tuple[str, ...] = get_args(Status)
Order = Literal["docno", "random", "priority"]
ORDERS: tuple[str, ...] = get_args(Order)
Role = Literal["assessor", "lead"]
ROLES: tuple[str, ...] = get_args(Role)
Kind = Literal["human", "automatic"]
KINDS: tuple[str, ...] = get_args(Kind)
Source = Literal["tui", "api", "import", "adjudication"]
SOURCES: tuple[str, ...] = get_args(Source)


def stored(row_id: int | None) -> int:
    """The id of a row read back or flushed: the database gave it one.

    SQLModel types an autoincrement key ``int | None`` (``None`` until the row is
    stored); this says, for the type checker, that the row has been stored.
    """
    assert row_id is not None, "a stored row has an id"
    return row_id


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class CollectionRow(SQLModel, table=True):
    __tablename__ = "collection"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    scale_name: str
    threshold: int
    created_at: datetime
    # Where the documents come from (a file relkit can index), so `relkit pool --db`
    # can copy the pooled documents' text in later; NULL when documents were given inline.
    docs_source: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    docs_format: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class ScaleGradeRow(SQLModel, table=True):
    """One grade of a collection's relevance scale; judgments reference it."""

    __tablename__ = "scale_grade"
    collection_id: int = Field(foreign_key="collection.id", primary_key=True)
    value: int = Field(primary_key=True)
    label: str
    definition: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))


class TopicRow(SQLModel, table=True):
    __tablename__ = "topic"
    __table_args__ = (UniqueConstraint("collection_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id", index=True)
    key: str
    title: str | None = None
    description: str | None = Field(default=None, sa_column=Column(Text))
    narrative: str | None = Field(default=None, sa_column=Column(Text))


class DocumentRow(SQLModel, table=True):
    """A pooled document's text, copied in so judging needs only the database."""

    __tablename__ = "document"
    __table_args__ = (UniqueConstraint("collection_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id", index=True)
    key: str
    title: str | None = None
    text: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    fields_json: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))


class PoolRow(SQLModel, table=True):
    __tablename__ = "pool"
    __table_args__ = (UniqueConstraint("collection_id", "name"),
                      UniqueConstraint("collection_id", "digest"))
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    name: str
    strategy: str = ""
    params_json: str = "{}"
    digest: str
    created_at: datetime


class PoolEntryRow(SQLModel, table=True):
    """A pooled pair with its provenance and priority: for analysis, never for assessors."""

    __tablename__ = "pool_entry"
    __table_args__ = (UniqueConstraint("pool_id", "topic_id", "document_id"),)
    id: int | None = Field(default=None, primary_key=True)
    pool_id: int = Field(foreign_key="pool.id", index=True)
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    priority: float = 0.0
    provenance_json: str = Field(default="[]", sa_column=Column(Text, nullable=False,
                                                                default="[]"))


class AssessorRow(SQLModel, table=True):
    """A person (``kind="human"``) or an automatic judge (an LLM: ``"automatic"``).

    An automatic assessor's judgments are imported, never made on the judging
    screen; it is never a lead, and exports count it only when asked.
    """

    __tablename__ = "assessor"
    __table_args__ = (CheckConstraint(_in("role", ROLES), name="assessor_role"),
                      CheckConstraint(_in("kind", KINDS), name="assessor_kind"),
                      CheckConstraint("kind = 'human' OR role = 'assessor'",
                                      name="assessor_kind_role"))
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    role: str = "assessor"
    created_at: datetime
    kind: str = Field(default="human", sa_column=Column(
        String, nullable=False, default="human", server_default="human"))


class AssignmentRow(SQLModel, table=True):
    """Which assessor judges which topic, and in which presentation order."""

    __tablename__ = "assignment"
    __table_args__ = (UniqueConstraint("assessor_id", "topic_id"),
                      CheckConstraint(_in("ordering", ORDERS), name="assignment_ordering"),
                      CheckConstraint("quota IS NULL OR quota >= 0", name="assignment_quota"),
                      ForeignKeyConstraint(["follows_id"], ["assignment.id"],
                                           name="fk_assignment_follows"))
    id: int | None = Field(default=None, primary_key=True)
    assessor_id: int = Field(foreign_key="assessor.id", index=True)
    topic_id: int = Field(foreign_key="topic.id")
    pool_id: int = Field(foreign_key="pool.id")
    ordering: str = "docno"
    seed: int | None = None
    created_at: datetime
    # Adaptive pools (judging/store/adaptive.py): items are created as the strategy picks
    # them, up to `quota`; an overlap assessor's assignment `follows` the primary's.
    # Both NULL: a static assignment whose items were all created by `assign`.
    quota: int | None = None
    follows_id: int | None = None


class AssignmentItemRow(SQLModel, table=True):
    """One document in an assignment, at its presentation position.

    ``done`` is kept in the same transaction as the judgment, so the next item
    is an index lookup on (assignment, done, position), not an anti-join.
    """

    __tablename__ = "assignment_item"
    __table_args__ = (UniqueConstraint("assignment_id", "position"),
                      UniqueConstraint("assignment_id", "document_id"),
                      Index("ix_item_next", "assignment_id", "done", "position"))
    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="assignment.id")
    position: int
    document_id: int = Field(foreign_key="document.id")
    done: bool = False


class JudgmentRow(SQLModel, table=True):
    """The current judgment of one assessor on one (topic, document)."""

    __tablename__ = "judgment"
    __table_args__ = (
        UniqueConstraint("assessor_id", "topic_id", "document_id"),
        # A grade must be one of the collection's scale grades (NULL when skipped).
        ForeignKeyConstraint(["collection_id", "grade"],
                             ["scale_grade.collection_id", "scale_grade.value"]),
        CheckConstraint(_in("status", STATUSES), name="judgment_status"),
        CheckConstraint("(status = 'judged' AND grade IS NOT NULL) OR "
                        "(status <> 'judged' AND grade IS NULL)", name="judgment_grade_status"),
        CheckConstraint("dwell_ms >= 0", name="judgment_dwell"),
        Index("ix_judgment_pair", "topic_id", "document_id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    assessor_id: int = Field(foreign_key="assessor.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    grade: int | None = None
    status: str = "judged"
    note: str = ""
    flagged: bool = False
    dwell_ms: int = 0
    version: int = 1
    source: str = "api"
    created_at: datetime
    updated_at: datetime


class JudgmentEventRow(SQLModel, table=True):
    """Append-only history: one row per write of a judgment (triggers forbid edits)."""

    __tablename__ = "judgment_history"
    __table_args__ = (CheckConstraint(_in("source", SOURCES), name="history_source"),
                      Index("ix_history_assessor_topic", "assessor_id", "topic_id", "id"))
    id: int | None = Field(default=None, primary_key=True)
    judgment_id: int = Field(foreign_key="judgment.id", index=True)
    version: int
    assessor_id: int = Field(foreign_key="assessor.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    grade: int | None = None
    status: str
    note: str = ""
    flagged: bool = False
    dwell_ms: int = 0
    source: str = "api"
    recorded_at: datetime


class GoldRow(SQLModel, table=True):
    """A pair with a known grade, mixed into assignments for quality control."""

    __tablename__ = "gold"
    __table_args__ = (UniqueConstraint("topic_id", "document_id"),
                      ForeignKeyConstraint(["collection_id", "grade"],
                                           ["scale_grade.collection_id", "scale_grade.value"]))
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    grade: int


class AdjudicationRow(SQLModel, table=True):
    """A lead's final grade for a pair the assessors disagreed on."""

    __tablename__ = "adjudication"
    __table_args__ = (UniqueConstraint("topic_id", "document_id"),
                      ForeignKeyConstraint(["collection_id", "grade"],
                                           ["scale_grade.collection_id", "scale_grade.value"]))
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    grade: int
    lead_id: int = Field(foreign_key="assessor.id")
    note: str = ""
    updated_at: datetime


class AdjudicationEventRow(SQLModel, table=True):
    """Append-only history of final grades: one row per change (triggers forbid edits).

    ``adjudication`` holds the current decision, which is always the latest row here
    (``relkit db check`` compares them); ``old_grade`` is the grade it replaced (None:
    the pair's first decision, or the decision an upgrade to revision 0007 found).
    """

    __tablename__ = "adjudication_history"
    __table_args__ = (ForeignKeyConstraint(["collection_id", "grade"],
                                           ["scale_grade.collection_id", "scale_grade.value"]),
                      Index("ix_adjudication_history_pair", "topic_id", "document_id", "id"))
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    topic_id: int = Field(foreign_key="topic.id")
    document_id: int = Field(foreign_key="document.id")
    lead_id: int = Field(foreign_key="assessor.id")
    old_grade: int | None = None
    grade: int
    note: str = ""
    recorded_at: datetime


class TokenRow(SQLModel, table=True):
    """A sign-in secret for ``relkit serve`` (``relkit token issue``), one person's.

    Only a salted hash is kept (:mod:`relkit.judging.store.tokens`): ``key`` is the public
    part a token starts with, so a sign-in finds its row without trying every hash.
    A revoked token stays, with ``revoked_at``, so the log can still name its owner.
    """

    __tablename__ = "access_token"
    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)
    assessor_id: int = Field(foreign_key="assessor.id", index=True)
    salt: str
    digest: str
    created_at: datetime
    revoked_at: datetime | None = None


Answer = Literal["left", "right", "equal", "neither"]
ANSWERS: tuple[str, ...] = get_args(Answer)


class PreferenceRow(SQLModel, table=True):
    """One assessor's current answer on one pair of a topic's documents.

    ``left``/``right`` are the sides the documents were shown on; ``answer`` is NULL
    once the answer is undone (the history keeps it). A pair is stored once per
    assessor, whichever side each document was on (``left_id < right_id`` is not
    required: the pair key is the unordered pair, kept as ``low_id``/``high_id``).
    """

    __tablename__ = "preference"
    __table_args__ = (
        UniqueConstraint("assessor_id", "topic_id", "low_id", "high_id"),
        CheckConstraint(f"answer IS NULL OR {_in('answer', ANSWERS)}", name="preference_answer"),
        CheckConstraint("left_id <> right_id", name="preference_two_documents"),
        CheckConstraint("low_id < high_id", name="preference_pair_order"),
        # The key is the shown pair itself (migration 0008): one row, one answer per pair.
        CheckConstraint("(left_id = low_id AND right_id = high_id) OR "
                        "(left_id = high_id AND right_id = low_id)",
                        name="preference_pair_sides"),
        Index("ix_preference_topic", "topic_id", "assessor_id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    collection_id: int = Field(foreign_key="collection.id")
    assessor_id: int = Field(foreign_key="assessor.id")
    topic_id: int = Field(foreign_key="topic.id")
    left_id: int = Field(foreign_key="document.id")
    right_id: int = Field(foreign_key="document.id")
    low_id: int = Field(foreign_key="document.id")
    high_id: int = Field(foreign_key="document.id")
    answer: str | None = None
    note: str = ""
    flagged: bool = False
    version: int = 1
    source: str = "api"
    created_at: datetime
    updated_at: datetime


class PreferenceEventRow(SQLModel, table=True):
    """Append-only history of preferences: one row per write (triggers forbid edits)."""

    __tablename__ = "preference_history"
    __table_args__ = (CheckConstraint(_in("source", SOURCES), name="preference_history_source"),
                      Index("ix_preference_history_assessor_topic", "assessor_id", "topic_id",
                            "id"))
    id: int | None = Field(default=None, primary_key=True)
    preference_id: int = Field(foreign_key="preference.id", index=True)
    version: int
    assessor_id: int = Field(foreign_key="assessor.id")
    topic_id: int = Field(foreign_key="topic.id")
    left_id: int = Field(foreign_key="document.id")
    right_id: int = Field(foreign_key="document.id")
    answer: str | None = None
    note: str = ""
    flagged: bool = False
    source: str = "api"
    recorded_at: datetime
