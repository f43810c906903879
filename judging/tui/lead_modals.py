"""The lead's small screens: pick a topic, pick a pair of assessors, confirm a changed
final grade, the lead's help."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from relkit.corpora.types import RelevanceScale
from relkit.judging.tui.keymap import Action
from relkit.judging.tui.modals import KEY_NAMES, SCROLL_KEYS, HelpScreen
from relkit.judging.tui.safe import cut, safe

# The lead's keys besides the grade digits; the footer shows those with a short label.
LEAD_ACTIONS: tuple[Action, ...] = (
    Action("reason", "e", "Write the reason for the final grade (Enter keeps it; the grade "
           "key saves it with the grade; on a decided pair Enter saves it at once)", "Reason"),
    Action("undecided", "u", "Filter: only pairs without a final grade (again: all)",
           "Undecided"),
    Action("kind('review')", "v", "Filter: the review queue, every flagged or noted pair "
           "(again: all)", "Review"),
    Action("kind('disagreements')", "d", "Filter: disagreements only (again: all)"),
    Action("kind('flagged')", "f", "Filter: flagged pairs only (again: all)"),
    Action("kind('noted')", "n", "Filter: pairs with a note (a skip's reason too)"),
    Action("topic_filter", "g", "Filter: one topic (type its id; empty: every topic)", "Topic"),
    Action("pair_filter", "p", "Filter: pairs two given assessors both judged", "Pair"),
    Action("clear", "x", "Clear every filter"),
    Action("topic", "t", "Whole topic statement (again: back to the document)"),
    Action("definitions", "s", "The grades' definitions under the document: shown or hidden "
           "(shown from 40 rows up)"),
    Action("page", "space", "The document: one page down (at its end: back to the top)"),
    Action("help", "question_mark", "Help: every key", "Help"),
    Action("quit", "q", "Quit", "Quit"),
)


class LeadHelpScreen(HelpScreen):
    """The lead's keys and the scale with its definitions; scrolls when small."""

    def __init__(self, scale: RelevanceScale) -> None:
        super().__init__(scale, list(LEAD_ACTIONS))

    def text(self) -> str:
        lines = ["Esc or ? closes this help · ↑ ↓ PgUp PgDn scroll it", "",
                 "Final grade (one key records it, with the reason written, and moves to the "
                 "next pair without one; on a decided pair another grade asks to confirm, "
                 "with the reason for the change, and the old one stays in the history):"]
        for g in self.scale.grades:
            lines.append(f"  {g.value}  {g.label}: {g.definition}")
        lines += ["", "The list: ↑ ↓ choose a pair; ⚑ someone flagged it, ✎ someone wrote a "
                  "note; s: skipped, l: put off.", "", "Keys:"]
        for a in self.actions_:
            key = KEY_NAMES.get(a.key, a.key.capitalize() if len(a.key) > 1 else a.key)
            lines.append(f"  {key:<6} {a.description}")
        lines += ["  Tab    Next pane: list, reason, document", "",
                  "Reading the document (Tab to it first):"]
        lines += [f"  {k:<13} {what}" for k, what in SCROLL_KEYS]
        return "\n".join(lines)


class TopicFilterScreen(ModalScreen[str | None]):
    """Type a topic id: Enter filters (empty: every topic), Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: str | None, topics: list[str]) -> None:
        super().__init__()
        self.current = current
        self.topics = topics

    def compose(self) -> ComposeResult:
        some = ", ".join(self.topics[:8]) + (" …" if len(self.topics) > 8 else "")
        with Vertical(classes="dialog"):
            yield Static(safe(f"Show one topic's pairs: its id, then Enter (empty: every "
                              f"topic; Esc cancels). Topics with pairs: {some or 'none'}"))
            yield Input(value=self.current or "", placeholder="topic id", id="topic-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class PairFilterScreen(ModalScreen[tuple[str, str] | None | bool]):
    """Pick two assessors; returns the pair, ``False`` for everyone, ``None`` on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__()
        self.pairs = pairs

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Only the pairs two assessors both judged (Enter; Esc cancels)")
            options = [Option("(every assessor)", id="all")]
            options += [Option(cut(f"{a} + {b}", 70, pad=False), id=str(i))
                        for i, (a, b) in enumerate(self.pairs)]
            yield OptionList(*options, id="pair-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        oid = event.option.id or ""
        self.dismiss(self.pairs[int(oid)] if oid.isdigit() else False)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChangeDecisionScreen(ModalScreen[str | None]):
    """Confirm a changed final grade with the reason for the change: Enter saves (a
    reason is needed), Escape cancels and nothing changes.

    The decision replaced stays in the pair's history (``relkit export jsonl``); a stray
    digit on a decided pair no longer replaces it silently.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    # the latest changes shown, a line each (at 80x24 the dialog keeps room for the
    # reason field; `relkit export jsonl` has them all, in full)
    SHOWN = 4

    def __init__(self, what: str, was: str, reason: str,
                 history: Sequence[str] = ()) -> None:
        super().__init__()
        self.what = what      # "1/d0 from 3 Perfectly relevant to 1 Related"
        self.was = was        # the reason given for the grade replaced
        self.reason = reason  # a reason typed already, offered
        self.history = list(history)  # the pair's decisions so far, oldest first

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe(f"Change the final grade of {self.what}? The old decision "
                              "stays in the history." + (f" Its reason: {self.was}"
                                                         if self.was else "")))
            if self.history:
                shown = self.history[-self.SHOWN:]
                more = len(self.history) - len(shown)
                yield Static(safe("Decisions so far" + (f" ({more} earlier not shown)"
                                                        if more else "") + ":\n"
                                  + "\n".join(f"  {cut(line, 56, pad=False)}"
                                              for line in shown)),
                             id="change-history")
            yield Static("Reason for the change (Enter saves it, Esc cancels: nothing "
                         "changes)")
            yield Input(value=self.reason, placeholder="why the new grade?",
                        id="change-reason")
            yield Static("", id="change-needs")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        reason = event.value.strip()
        if not reason:
            self.query_one("#change-needs", Static).update(
                "A changed final grade needs its reason (Esc cancels).")
            return
        self.dismiss(reason)

    def action_cancel(self) -> None:
        self.dismiss(None)
