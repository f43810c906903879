"""How the judging screen moves between a topic's documents: back, forward, the next
unjudged one, undo, and the revise list.

Each move reads the store, so each waits for a pending save and says on the banner when
the database cannot be reached (:func:`~relkit.judging.tui.outbox.reads_store`). A base
of :class:`~relkit.judging.tui.judge.JudgeScreen`, which draws the document a move picks
(``show``); apart from it so that the screen's module holds its layout and drawing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relkit.judging.store.errors import StoreError
from relkit.judging.tui.outbox import reads_store
from relkit.judging.tui.saving import Saving


class Moving(Saving):
    """The judging screen's moves (a base of :class:`~relkit.judging.tui.judge.JudgeScreen`,
    which has the state and draws documents)."""

    _known: bool

    if TYPE_CHECKING:  # drawn by the judging screen
        def show_next_unjudged(self, after: int = 0) -> None: ...

    @reads_store("undoing")
    def action_undo(self) -> None:
        # The saved judgment stays in the history; grading again revises it. What is
        # undone is moving on: the document comes back with its grade on the state line.
        if self.last_saved is None:
            self._banner("Nothing to undo yet on this topic.", note=True)
            return
        self.show(self.last_saved)
        self._banner(f"Back to {self.item.doc if self.item else 'it'}: press its right grade "
                     "(the earlier one stays in the history), or → to leave it.", note=True)

    @reads_store("going back")
    def action_back(self) -> None:
        if self.item is not None and self.item.position > 1:
            self.show(self.item.position - 1)

    @reads_store("moving on")
    def action_forward(self) -> None:
        if self.item is not None and self.item.position < self.item.total:
            try:
                self.show(self.item.position + 1)
            except StoreError:
                # Adaptive pool: the next position is not picked yet; the strategy's
                # next pick is what comes after the last one shown.
                self.show_next_unjudged(after=self.item.position)

    @reads_store("jumping to the next unjudged")
    def action_next_unjudged(self) -> None:
        self.show_next_unjudged(after=self.item.position if self.item else 0)

    @reads_store("revising")
    def action_revise(self) -> None:
        from relkit.judging.tui.modals import ReviseScreen

        self.app.push_screen(ReviseScreen(self.view.judged(self.topic.key), self.view.scale()),
                             self._revise)

    @reads_store("opening that document")
    def _revise(self, position: int | None) -> None:
        if position is not None:
            self.show(position)
            self._known = True  # chosen by name from the list: no key typed ahead at it
