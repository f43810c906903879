"""How the lead's screen saves a final grade: kept until the database has it.

The lead's decision goes through the assessor's :class:`~relkit.judging.tui.outbox.Outbox`
(one decision at a time): put there before the commit, cleared once the database has
it. If the database cannot be reached, the decision stays there, the status line says
it is NOT saved, and it is tried again every second until it goes through; meanwhile
another final grade waits (the outbox holds one). A retry of a commit whose answer was
lost writes nothing twice: :func:`~relkit.judging.store.decisions.adjudicate` finds the pair
holding that decision already and records no second change.

Quitting with a decision still unsaved warns once and quits on the second press;
``relkit judge --lead`` then tries it once more and, if the database is still away,
prints it and exits 1 (:func:`relkit.judging.tui.cli.finish_lead`), as the assessor's
screen does.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.widgets import OptionList

from relkit.judging.store.adjudication import Case
from relkit.judging.store.decisions import adjudicate
from relkit.judging.store.models import ChangedMeanwhile, StoreError
from relkit.judging.tui.outbox import UNREACHABLE, Outbox

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.store.assign import Store


def describe_decision(record: dict[str, Any], scale: RelevanceScale,
                      reason: bool = True) -> str:
    """A final grade in words, with its reason (complete enough to be entered again by
    hand); ``reason=False``: without it."""
    why = f" (reason: {record['note']})" if reason and record.get("note") else ""
    return (f"final {record['grade']} {scale.grade(record['grade']).label} for "
            f"{record['topic']}/{record['doc']}{why}")


def save_decision(store: Store, lead: str, record: dict[str, Any]) -> bool:
    """Commit ``record`` (an outbox record of the lead's screen); whether it changed
    anything (false: the pair held that decision already, e.g. a try whose answer was
    lost went through)."""
    return bool(adjudicate(store, lead, record["topic"], record["doc"], record["grade"],
                           record["note"], shown=record["shown"]))


class LeadSaving(App[None]):
    """The lead's app's saving (a base of :class:`~relkit.judging.tui.lead.LeadApp`)."""

    store: Store
    lead: str
    scale: RelevanceScale
    outbox: Outbox
    _quit_warned: object
    _typed: tuple[str, str, str] | None
    case: Case | None
    _saving: tuple[Case, int]

    if TYPE_CHECKING:  # the screen's own
        def reload(self, select: tuple[str, str] | None = None, pin: bool = False) -> None: ...
        def _advance(self, after: Case, was: int) -> bool: ...
        def _status(self, text: str, error: bool = False) -> None: ...

    def pending_text(self) -> str:
        """What the status line says while a final grade waits for the database."""
        record = self.outbox.record
        if record is None:
            return ""
        return (f"Database unreachable: {describe_decision(record, self.scale)} is NOT "
                f"saved yet; retrying every second (attempt {self.outbox.attempts}).")

    async def _save(self, c: Case, grade: int, reason: str) -> None:
        if self.outbox.record is not None:
            self._status("Not now: the final grade before is not saved yet (it is retried every "
                         "second).",
                         error=True)
            return
        self.outbox.put(dict(topic=c.topic, doc=c.doc, grade=grade, note=reason,
                             shown=(c.final, c.reason)))
        # where the pair stood, for the highlight to move on from once it is saved
        self._saving = (c, self.query_one("#pairs", OptionList).highlighted or 0)
        await self._attempt()

    async def _attempt(self) -> None:
        record = self.outbox.record
        if record is None:
            return
        what = describe_decision(record, self.scale)
        said = describe_decision(record, self.scale, reason=False)
        said = said[:1].upper() + said[1:]  # "Final 2 ... for 1/d0", as a refusal starts
        pair = (record["topic"], record["doc"])
        retried = self.outbox.attempts > 0
        try:
            # (a thread: a database that does not answer must not freeze the screen)
            await asyncio.to_thread(save_decision, self.store, self.lead, record)
        except ChangedMeanwhile as exc:
            # Another session decided it: the screen replaces only a decision its lead
            # saw. Shown now, with the reason typed here kept.
            # The pair stays on screen (pinned) even if the filter now drops it (decided,
            # under "undecided only"): the key the status line asks for is for this pair.
            self.outbox.clear()
            self._typed = (*pair, record["note"])  # show_case puts it back (it redraws
            self.reload(select=pair, pin=True)     # on the highlight event too)
            now = self.case.final if self.case is not None else None
            grade = record["grade"]
            again = ("to change it (asks for the reason)" if now is not None and now != grade
                     else "to save it")   # (the same grade now: only the reason differs)
            self._status(f"{said} is NOT saved: {exc}; it is shown now. Press {grade} "
                         f"again {again}.", error=True)
            return
        except UNREACHABLE:
            self.outbox.attempts += 1
            self._status("")  # the pending line (pending_text)
            self.set_timer(1.0, self._attempt)
            return
        except StoreError as exc:  # refused (the database is unchanged): say why
            self.outbox.clear()
            self._status(f"{said} is NOT saved: {exc}", error=True)
            return
        self.outbox.clear()
        self._typed = None
        if retried:
            # Saved when the database came back: the lead may be elsewhere by now, so
            # the highlight stays where it is.
            keep = (self.case.topic, self.case.doc) if self.case is not None else None
            self.reload(select=keep)
            self._status(f"saved once the database was back: {what}")
            return
        c, was = self._saving
        self.reload(select=pair)
        done = "" if self._advance(c, was) else " · every pair shown has a final grade"
        self._status(f"saved: {what}{done}")

    async def action_quit(self) -> None:
        # Quitting with a final grade still unsaved takes it off the screen: say so once
        # per decision and quit on the second press (the CLI then tries it once more,
        # or prints it and exits 1).
        record = self.outbox.record
        if record is not None and self._quit_warned is not record:
            self._quit_warned = record
            self.notify("The last final grade is NOT saved yet (the database is unreachable). "
                        "Quit again to leave anyway: it is tried once more, else printed.",
                        severity="error", timeout=10)
            return
        self.exit()
