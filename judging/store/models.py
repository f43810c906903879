"""Validating input models and the typed values the store hands back.

``table=True`` models do not validate, so every write goes through one of the
``*In`` models here first (pydantic): a wrong type or a negative dwell time is
rejected before any SQL runs. The read side returns frozen dataclasses, not
ORM rows, so no caller can lazily load something it should not see (an
assessor view never carries run names, ranks or other assessors' grades).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from relkit.judging.store.tables import Order, Status
from relkit.metrics.core.errors import RelkitError


class StoreError(RelkitError):
    """A store operation was refused; the database is unchanged."""


class ChangedMeanwhile(StoreError):
    """A write over a value its caller never showed (another session changed it), refused
    where a screen must not replace what its user never saw (a lead's final grade: the
    one replaced would stay in the history, but the lead decided against another); the
    database is unchanged."""


class _In(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=False)


_M = TypeVar("_M", bound=_In)


class JudgmentIn(_In):
    """One judgment as an assessor (or an import) gives it."""

    topic: str = Field(min_length=1)
    doc: str = Field(min_length=1)
    grade: int | None = None
    status: Status = "judged"
    note: str = ""
    flagged: bool = False
    dwell_ms: int = Field(default=0, ge=0)

    @field_validator("topic", "doc", mode="before")
    @classmethod
    def _ids_are_strings(cls, v: object) -> object:
        # Ids are strings: an int here is a caller bug (it would lose "007"'s zeros).
        if not isinstance(v, str):
            raise ValueError(f"ids are strings; got {type(v).__name__} {v!r}")
        return v

    def model_post_init(self, _ctx: object) -> None:
        if (self.status == "judged") != (self.grade is not None):
            raise ValueError("a judged item needs a grade; a skipped or later one has none "
                             f"(status={self.status!r}, grade={self.grade!r})")


class PoolEntryIn(_In):
    """One pooled pair; provenance is ``[(run_id, rank), ...]``."""

    topic: str = Field(min_length=1)
    doc: str = Field(min_length=1)
    priority: float = 0.0
    provenance: tuple[tuple[str, int], ...] = ()


class AssignIn(_In):
    assessor: str = Field(min_length=1)
    topic: str = Field(min_length=1)
    ordering: Order = "docno"
    seed: int | None = None


def validated(model: type[_M], where: str, **values: object) -> _M:
    """Build ``model`` or raise a one-line :class:`StoreError` naming ``where``."""
    try:
        return model(**values)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "value"
        raise StoreError(f"{where}: {field}: {first['msg']}") from None


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
