"""Small screens over the judging screen; each returns a typed result via dismiss."""

from __future__ import annotations

from functools import partial

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from relkit.corpora.types import RelevanceScale
from relkit.judging.store.outputs import ItemOut
from relkit.judging.tui.keymap import Action, grade_key
from relkit.judging.tui.rowlist import LazyOption, RowList
from relkit.judging.tui.safe import cut, safe
from relkit.metrics.core.borrowed import give_up, missing


class NoteScreen(ModalScreen[str | None]):
    """Edit the note on the current document: Enter keeps it, Escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Note on this document (Enter to keep, Esc to cancel)")
            yield Input(value=self.note, placeholder="why this grade?", id="note-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class SkipScreen(ModalScreen[str | None]):
    """Skip a document, with an optional reason: Enter skips, Escape cancels.

    The reason is kept as the judgment's note (the note already written is offered).
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, doc: str, note: str) -> None:
        super().__init__()
        self.doc = doc
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe(f"Skip {self.doc}: set aside, not shown again (r reaches it). "
                              "Reason, optional (Enter skips, Esc cancels)"))
            yield Input(value=self.note, placeholder="why skip? (e.g. not in English)",
                        id="skip-reason")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReviseScreen(ModalScreen[int | None]):
    """Pick one of the topic's judged documents to revise; returns its position."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, judged: list[ItemOut], scale: RelevanceScale) -> None:
        super().__init__()
        self.judged = judged
        self.scale = scale

    def label(self, i: ItemOut) -> Text:
        """One row: position, document, ⚑ ✎ marks (flagged, a note), grade (or why it is
        set aside), title."""
        what = (f"{i.grade} {self.scale.grade(i.grade).label}" if i.grade is not None
                else {"later": "judge later"}.get(i.status or "", i.status or ""))
        if i.status == "skipped" and i.note:
            what += f": {i.note}"  # the reason it was set aside
        # One line each (cut replaces line breaks): the list cuts what its width cannot
        # hold (RowList's CSS).
        marks = ("⚑" if i.flagged else " ") + ("✎" if i.note else " ")  # as the lead's list
        return cut(f"{i.position:>4}. {i.doc} {marks} {what}  {i.title or ''}", 300,
                   pad=False)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Judged: Enter opens one, Esc cancels · ⚑ flagged ✎ note")
            # Rows are labelled when they scroll into view: opening the list costs the
            # same with 20 judged documents or 2,000 (rowlist.py).
            options: list[Option] = [LazyOption(partial(self.label, i), id=str(i.position))
                                     for i in self.judged]
            if not options:
                options.append(Option("(nothing judged yet)", id="none", disabled=True))
            yield RowList(*options, id="judged-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id and event.option.id.isdigit():
            self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Every key, the grades with their definitions; scrolls when the terminal is small."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("question_mark", "close", "Close")]

    def __init__(self, scale: RelevanceScale, actions: list[Action]) -> None:
        super().__init__()
        self.scale = scale
        self.actions_ = actions

    def text(self) -> str:
        lines = ["Esc or ? closes this help · ↑ ↓ PgUp PgDn scroll it", "",
                 "Grades (one key grades, saves and moves on):"]
        for g in self.scale.grades:
            lines.append(f"  {grade_key(g.value)}  {g.label}: {g.definition}")
        lines += ["", "Keys:"]
        for a in self.actions_:
            lines.append(f"  {KEY_NAMES.get(a.key, a.key):<6} {a.description}")
        lines += ["", "Reading the document:"]
        lines += [f"  {k:<13} {what}" for k, what in SCROLL_KEYS]
        lines += ["", "  Ctrl+Q        Quit (asks again if a judgment is not saved yet)"]
        return "\n".join(lines)

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help-scroll"):
            yield Static(safe(self.text()), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


class TopicsHelpScreen(HelpScreen):
    """The topic list's keys and columns, then the judging screen's help."""

    def text(self) -> str:
        lines = ["Esc or ? closes this help · ↑ ↓ PgUp PgDn scroll it", "",
                 "The topic list:",
                 "  ↑ ↓ PgUp PgDn  choose a topic",
                 "  Enter          open it: its next document to judge",
                 "  type a number  jump to that topic",
                 "  q              quit",
                 "",
                 "Each line: the topic, its title, progress (judged / documents), how many "
                 "you gave each grade (grade:count), s: how many you skipped, l: how many "
                 "you put off for later. The list starts on the first topic with something "
                 "left to judge.", "", "In a topic:"]
        return "\n".join(lines) + "\n" + super().text().split("\n", 1)[1]


KEY_NAMES = {"question_mark": "?", "escape": "Esc", "right": "→", "left": "←",
             "slash": "/"}

# The document pane's own keys (Textual's scrolling bindings) and the mouse.
SCROLL_KEYS = (
    ("↑ ↓", "scroll one line"),
    ("PgUp PgDn", "scroll one page"),
    ("Home End", "top, end of the document"),
    ("mouse wheel", "scroll"),
)


def register_styles(app: App[object]) -> None:
    """Parse the modals' widget CSS now, while the assessor reads the first document.

    Textual parses a widget or screen class's ``DEFAULT_CSS`` the first time one is
    mounted, then the whole stylesheet again: three parses on the key that first opened
    the revise list. Registered here with the same source and location, the mount later
    finds it already there and parses nothing (the first open still costs more than
    the next ones: Textual's per-class style caches start empty).
    """
    nodes: list[DOMNode] = [RowList(), Input(), VerticalScroll(), Vertical(), Static(),
                            ModalScreen()]
    if missing(DOMNode, "_get_default_css") is not None:  # Textual's private reader
        give_up("textual", "DOMNode._get_default_css", "parsing the modals' styles ahead")
        return
    for widget in nodes:
        for read_from, css, tie_breaker, scope in widget._get_default_css():
            app.stylesheet.add_source(css, read_from=read_from, is_default_css=True,
                                      tie_breaker=tie_breaker, scope=scope)
    app.stylesheet.reparse()
