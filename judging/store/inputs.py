"""Validating input models: every write goes through one of them first.

``table=True`` models (:mod:`.tables`) do not validate, so a write builds one of the
``*In`` models here (pydantic) first: a wrong type or a negative dwell time is rejected
before any SQL runs, as a one-line :class:`~relkit.judging.store.errors.StoreError`
(:func:`validated`). What the store hands back is in :mod:`.outputs`.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from relkit.judging.store.errors import StoreError
from relkit.judging.store.tables import Order, Status


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
