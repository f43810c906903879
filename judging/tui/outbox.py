"""The judgment on its way to the database, what the screen says about saves, and the
guard for actions that read the store while a save is pending.

The judging screen sends one judgment at a time and waits for the commit. Until
the commit it sits in the app's :class:`Outbox`, so that whatever ends the app
(a quit, a crash) can still see it: ``relkit judge`` tries it once more on the
way out and, if the database is still away, says exactly what was not saved
and exits non-zero (:func:`relkit.judging.tui.cli.finish`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from relkit.corpora.types import RelevanceScale
from relkit.judging.store.errors import StoreNotOpen

if TYPE_CHECKING:
    from relkit.judging.store.models import JudgmentOut


def unreachable() -> tuple[type[Exception], ...]:
    """What a lost connection looks like from SQLAlchemy (server down, restarted, refusing
    connections, network gone). Anything else is a bug and is left to crash loudly."""
    from sqlalchemy.exc import DBAPIError, OperationalError

    return (OperationalError, DBAPIError)


def __getattr__(name: str) -> Any:
    # ``UNREACHABLE`` (the tuple above) is made on first use: SQLAlchemy is not imported
    # with this module, which `relkit judge`'s first screen needs before the store is.
    if name == "UNREACHABLE":
        return unreachable()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Outbox:
    """At most one judgment sent and not yet committed (``record``: ``AssessorView.record``'s
    keyword arguments)."""

    record: dict[str, Any] | None = None
    attempts: int = 0

    def put(self, record: dict[str, Any]) -> None:
        self.record = record
        self.attempts = 0

    def clear(self) -> None:
        self.record = None
        self.attempts = 0


def what(grade: int | None, status: str | None, scale: RelevanceScale) -> str:
    """A judgment in words: ``2 Highly relevant``, ``skipped``, ``judge later``."""
    if grade is not None:
        return f"{grade} {scale.grade(grade).label}"
    return {"skipped": "skipped", "later": "judge later"}.get(status or "", status or "")


def describe_record(record: dict[str, Any], scale: RelevanceScale) -> str:
    """An unsaved judgment, complete enough to be entered again by hand."""
    extra = ""
    if record.get("flagged"):
        extra += ", flagged"
    if record.get("note"):
        extra += f", note {record['note']!r}"
    return (f"{what(record.get('grade'), record.get('status'), scale)} for document "
            f"{record['doc']} of topic {record['topic']}{extra}")


def acknowledgement(saved: JudgmentOut, scale: RelevanceScale, retried: bool = False) -> str:
    """What the database now holds, as the state line acknowledges it; and, if the save
    replaced a judgment the screen never showed, that one too (:func:`meanwhile`)."""
    flag = ", flagged" if saved.flagged else ""
    return (f"saved: {what(saved.grade, saved.status, scale)}{flag}, {saved.doc}"
            + meanwhile(saved, scale, retried))


# Who else writes a person's judgment (JudgmentEventRow.source), as the notice says it.
_BY = {"tui": "in another session of yours (another tab or terminal)",
       "api": "by another program", "import": "by an import"}


def meanwhile(saved: JudgmentOut, scale: RelevanceScale, retried: bool = False) -> str:
    """The judgment ``saved`` replaced although the screen never showed it (saved since
    the screen read the document), in words; ``""`` if none. The keystroke was saved as
    the newest version; the user is told what it replaced:
    `` — it had been judged 1 Related in another session of yours ... meanwhile; both are
    in its history``. ``retried``: the save was tried before, while the database was
    away; a replaced judgment the same as this one was saved by another session, or by
    that try at an earlier version (the store finds only its try at the version shown
    + 1, and then writes nothing).
    """
    other = saved.meanwhile
    if other is None:
        return ""
    fields = (other.grade, other.status, other.note, other.flagged)
    if retried and fields == (saved.grade, saved.status, saved.note, saved.flagged):
        return (" — saved twice: an earlier try of this save went through as the "
                "connection dropped (or another session saved the same); both are in its "
                "history")
    said = {"skipped": "skipped", "later": "marked judge later"}.get(
        other.status, f"judged {what(other.grade, other.status, scale)}")
    extra = (", flagged" if other.flagged else "") + (
        f", note {other.note[:40] + '…' if len(other.note) > 40 else other.note!r}"
        if other.note else "")
    return (f" — it had been {said}{extra} {_BY.get(other.source, 'elsewhere')} meanwhile; "
            "both are in its history")


F = TypeVar("F", bound=Callable[..., Any])


class Waiting(Protocol):
    """What :func:`reads_store` needs of a screen (the judging screen)."""

    @property
    def pending(self) -> dict[str, Any] | None: ...

    def _unsaved(self, then: str = "") -> None: ...

    def _banner(self, text: str, note: bool = False) -> None: ...


def reads_store(doing: str) -> Callable[[F], F]:
    """For an action that reads the store: it waits for a pending save, and an
    unreachable database is said on the banner instead of crashing the app.

    Waiting is refusing with a note: the action would read the store that the
    pending save cannot reach, and whatever it showed would leave the grade behind.
    """
    def deco(fn: F) -> F:
        @functools.wraps(fn)
        def run(self: Waiting, *args: Any, **kwargs: Any) -> Any:
            if self.pending is not None:
                self._unsaved(f"{doing} waits until it is saved.")
                return None
            try:
                return fn(self, *args, **kwargs)
            except unreachable():
                self._banner(f"Database unreachable: {doing} is not possible now. Every "
                             "judgment acknowledged as saved is saved; try again in a moment.")
                return None
            except StoreNotOpen as exc:  # (relkit judge's first document, drawn before
                self._banner(f"Not possible: {exc}")  # the store: the app then ends)
                return None
        return run  # type: ignore[return-value]
    return deco
