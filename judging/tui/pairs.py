"""The pairs mode of the judging screen (``relkit judge --pairs``): two documents at once.

The topic is shown as on the graded screen (bar and statement); below it the pair,
side by side from :data:`SIDE_BY_SIDE` columns, one above the other below that (``w``
shows one document at a time, either width). Keys: ``1`` left better, ``2`` right
better, ``3`` equal, ``0`` neither relevant; flag, note, undo, help and back to the
topic list on the keymap's keys (f, n, z, ?, Esc by default).

The guarantees are the graded screen's: an answer is committed
(:meth:`relkit.judging.store.preferences.PreferenceView.record`) before the next pair is
drawn; while the database is away the answer waits in the app's ``pair_outbox``, the
screen stays on the pair and retries (``relkit judge`` tries it once more on the way
out, or prints it); every write keeps its history; undo asks the last pair again. The
screen is blind to the systems: it shows document ids, titles and text, never runs,
ranks or other assessors' answers, and which side a document is on comes from the
assignment's seed (:mod:`relkit.judging.pairorder`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, Horizontal
from textual.screen import Screen
from textual.widgets import Static

from relkit.judging.pairorder import DEFAULT, NEEDS_GRADES, Pair, PairOrder, pair_order, to_answers
from relkit.judging.store.models import StoreError, TopicOut
from relkit.judging.store.preferences import PreferenceView
from relkit.judging.tui.docview import DocView, Wrapped
from relkit.judging.tui.keymap import Action
from relkit.judging.tui.leaks import Footer
from relkit.judging.tui.outbox import UNREACHABLE, Outbox
from relkit.judging.tui.safe import query_terms, safe
from relkit.judging.tui.topicpane import TopicPane, bar_text
from relkit.judging.tui.topics import bar

SIDE_BY_SIDE = 120  # columns from which the two documents are side by side
ANSWER_KEYS = {"1": "left", "2": "right", "3": "equal", "0": "neither"}
SAID = {"left": "left better", "right": "right better", "equal": "equal",
        "neither": "neither relevant"}
HELP = "1 left better · 2 right better · 3 equal · 0 neither relevant"
RETRY_SECONDS = 2.0
# The keymap's actions the pairs screen has, with what they do here.
ACTIONS = {"flag": "Flag", "note": "Note", "undo": "Undo", "help": "Help", "topics": "Topics"}
VIEWS = ("both", "left", "right")


class PairsScreen(Screen[None]):
    """Answer one topic's pairs: which of two documents is better."""

    DEFAULT_CSS = """
    PairsScreen #pair { height: 1fr; layout: vertical; }
    PairsScreen #pair.wide { layout: horizontal; }
    PairsScreen DocView.side { height: 1fr; width: 1fr; padding: 0 1;
                        border-top: solid $primary 30%; border-title-style: bold;
                        border-title-color: $foreground; }
    PairsScreen #pair.wide #right { border-left: vkey $primary 30%; }
    PairsScreen #keys { height: 1; color: $text-muted; }
    PairsScreen #pair-state { height: auto; color: $text-accent; }
    PairsScreen #pair-banner { height: auto; }
    PairsScreen #pair-banner.error { background: $error; color: $text; text-style: bold;
                                     padding: 0 1; }
    """

    def __init__(self, prefs: PreferenceView, topic: TopicOut, actions: dict[str, Action],
                 outbox: Outbox, order: PairOrder | None = None) -> None:
        super().__init__()
        self.prefs = prefs
        self.topic = topic
        self.actions_ = actions
        self.outbox = outbox
        self.terms = query_terms(topic.title)
        self.docs = prefs.documents(topic.key)
        self.order = order or order_for(prefs, topic.key, DEFAULT)
        # pair -> (left, right, answer): the current answers the strategy replays over.
        self.answered: dict[frozenset[str], tuple[str, str, str]] = {
            frozenset((p.left, p.right)): (p.left, p.right, p.answer)
            for p in prefs.answers(topic.key) if p.answer is not None}
        self.pair: Pair | None = None
        self.flagged = False
        self.note = ""
        self.ack = ""
        self.done_stack: list[Pair] = []  # this session's answers, for undo
        self.view_mode = "both"
        self._retry: Any = None
        self._highlighted: dict[str, tuple[Text, Text]] = {}
        self._ready: dict[str, Wrapped] = {}  # the next pair's lines, by side

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="topbar"):
            yield Static(bar_text(self.topic), id="topic-title")
            yield Static("", id="progress")
        marker = Static("", id="topic-more")
        yield TopicPane(self.topic, self.terms, marker, id="topic")
        yield marker
        with Container(id="pair"):
            for side in ("left", "right"):
                pane = DocView(reading_width=0, id=side)
                pane.add_class("side")
                yield pane
        yield Static("", id="pair-banner")
        yield Static("", id="pair-state")
        yield Static(HELP, id="keys")
        yield Footer()

    def on_mount(self) -> None:
        self._layout()
        self.show_next()
        self.call_after_refresh(self._fit_topic)

    def on_resize(self) -> None:
        self._layout()
        self.call_after_refresh(self._fit_topic)

    def _fit_topic(self) -> None:
        self.query_one(TopicPane).fit(self.query_one("#topic-title").size.width)

    def _layout(self) -> None:
        self.query_one("#pair").set_class(self.app.size.width >= SIDE_BY_SIDE, "wide")
        self.query_one("#left").display = self.view_mode in ("both", "left")
        self.query_one("#right").display = self.view_mode in ("both", "right")

    # -- showing -----------------------------------------------------------------------
    def next_pair(self, answered: dict[frozenset[str], tuple[str, str, str]]) -> Pair | None:
        return self.order.next_pair(self.docs, to_answers(self.topic.key, answered))

    def show_next(self) -> None:
        self.show(self.next_pair(self.answered))

    def _texts(self, key: str) -> tuple[Text, Text]:
        """A document's highlighted title and text, made once per document (each comes
        back in n-1 pairs)."""
        if key not in self._highlighted:
            title, body = self.prefs.document(key)
            self._highlighted[key] = (safe(title, self.terms), safe(body, self.terms))
        return self._highlighted[key]

    def show(self, pair: Pair | None) -> None:
        self.pair = pair
        self.flagged, self.note = False, ""
        ready, self._ready = self._ready, {}
        for side, key in zip(("left", "right"), pair or (None, None), strict=True):
            pane = self.query_one(f"#{side}", DocView)
            if key is None:
                pane.border_title = ""
                pane.show("", Text(""), Text(""))
                continue
            title, body = self._texts(key)
            pane.border_title = Text(f"{side.upper()}: {safe(key).plain}")
            pane.show(key, title, body, ready.get(side))
        self._refresh_state()
        if pair is not None:
            self.call_after_refresh(self._prepare_next, pair)

    def _prepare_next(self, current: Pair) -> None:
        """While the assessor reads: the pair the next answer most likely brings, read,
        highlighted and wrapped. For all-pairs it does not depend on the answer; top-k and
        adaptive are guessed with ``equal`` (a wrong guess only loses the head start:
        :meth:`DocView.show` checks the document)."""
        if self.pair != current or self.outbox.record is not None:
            return
        try:
            nxt = self.next_pair({**self.answered,
                                  frozenset(current): (*current, "equal")})
            if nxt is None:
                return
            ready = {}
            for side, key in zip(("left", "right"), nxt, strict=True):
                ready[side] = self.query_one(f"#{side}", DocView).prepare(key, *self._texts(key))
        except UNREACHABLE:
            return  # only a head start: the answer key reads it again
        self._ready = {side: w for side, w in ready.items() if w is not None}

    def _refresh_state(self) -> None:
        total = self.order.needed(self.docs)
        done = len(self.answered)
        self.query_one("#progress", Static).update(
            f" {bar(done, total)} {done} / {total} pairs " if total is not None else
            f" {done} answered ({self.order.strategy}) ")
        parts = [self.ack] if self.ack else []
        if self.order.missing is not None:
            parts.append(self.order.missing)
        elif self.pair is None:
            parts.append(("Every pair of this topic is answered" if total is not None else
                          f"{self.order.strategy} needs no more pairs of this topic")
                         + ". z: undo the last · Esc: topic list")
        else:
            if self.flagged:
                parts.append("Flagged")
            if self.note:
                parts.append(f"Note: {self.note}")
        self.query_one("#pair-state", Static).update(Text(" · ".join(parts)))

    def _banner(self, message: str) -> None:
        b = self.query_one("#pair-banner", Static)
        b.update(Text(message))
        b.set_class(bool(message), "error")

    # -- keys --------------------------------------------------------------------------
    def action_switch(self) -> None:
        self.view_mode = VIEWS[(VIEWS.index(self.view_mode) + 1) % len(VIEWS)]
        self._layout()

    def action_answer(self, answer: str) -> None:
        self.answer(answer)

    def answer(self, answer: str) -> None:
        if self.pair is None or self.outbox.record is not None:
            return  # nothing to answer, or the last answer is still on its way
        left, right = self.pair
        record = dict(topic=self.topic.key, left=left, right=right, answer=answer,
                      note=self.note, flagged=self.flagged)
        self.outbox.put(record)
        self._send()

    def _send(self) -> None:
        record = self.outbox.record
        if record is None:
            return
        try:
            saved = self.prefs.record(**record, retry=self.outbox.attempts > 0)
        except UNREACHABLE:
            self.outbox.attempts += 1
            self._banner(f"NOT saved yet: the database is unreachable. Your answer "
                         f"({SAID[record['answer']]}) is kept and tried again every "
                         f"{RETRY_SECONDS:g} s; the next pair comes once it is saved.")
            if self._retry is None:
                self._retry = self.set_interval(RETRY_SECONDS, self._send)
            return
        except StoreError as exc:
            self.outbox.clear()
            self._banner(str(exc))
            return
        self.outbox.clear()
        if self._retry is not None:
            self._retry.stop()
            self._retry = None
        self._banner("")
        pair = (saved.left, saved.right)
        self.answered.pop(frozenset(pair), None)  # re-answered: the latest comes last
        self.answered[frozenset(pair)] = (*pair, record["answer"])
        self.done_stack.append(pair)
        self.ack = f"Saved: {SAID[record['answer']]} ({saved.left} vs {saved.right})"
        self.show_next()

    def action_undo(self) -> None:
        if not self.done_stack or self.outbox.record is not None:
            self.notify("Nothing to undo on this screen")
            return
        pair = self.done_stack.pop()
        try:
            self.prefs.undo(self.topic.key, *pair)
        except UNREACHABLE:
            self.done_stack.append(pair)
            self._banner("Not undone: the database is unreachable; try again")
            return
        self.answered.pop(frozenset(pair), None)
        self.ack = f"Undone: {pair[0]} vs {pair[1]} is asked again"
        self.show(pair)

    def action_flag(self) -> None:
        self.flagged = not self.flagged
        self._refresh_state()

    def action_note(self) -> None:
        from relkit.judging.tui.modals import NoteScreen

        def done(note: str | None) -> None:
            if note is not None:
                self.note = note
                self._refresh_state()

        self.app.push_screen(NoteScreen(self.note), done)

    def action_help(self) -> None:
        keys = " · ".join(f"{self.actions_[name].key} {label}" for name, label in ACTIONS.items()
                          if name in self.actions_)
        self.notify(f"{HELP} · w one document / both · {keys}. A flag or note goes with "
                    "the next answer.", timeout=15)

    def action_topics(self) -> None:
        if self.outbox.record is not None:
            self.notify("Your last answer is not saved yet: wait for it (it is retried)",
                        severity="error")
            return
        self.app.pop_screen()
        refresh = getattr(self.app.screen, "refresh_topics", None)
        if callable(refresh):
            refresh()


def pairs_screen(prefs: PreferenceView, topic: TopicOut, actions: dict[str, Action],
                 outbox: Outbox, order: PairOrder | None = None) -> PairsScreen:
    """A pairs screen bound to the keymap's flag, note, undo, help and topics keys."""
    bindings = [Binding(actions[name].key, name, label, show=True)
                for name, label in ACTIONS.items() if name in actions]
    bindings += [Binding(key, f"answer({answer!r})", SAID[answer], show=False)
                 for key, answer in ANSWER_KEYS.items()]
    bindings.append(Binding("w", "switch", "One/both", show=True))
    cls = type("BoundPairsScreen", (PairsScreen,), {"BINDINGS": bindings})
    return cls(prefs, topic, actions, outbox, order)  # type: ignore[no-any-return]


def order_for(prefs: PreferenceView, topic: str, strategy: str) -> PairOrder:
    """The pair order of ``strategy`` for one topic: the assignment's seed, and for a
    strategy with a graded pre-filter the assessor's own grades of the topic."""
    grades = None
    if strategy in NEEDS_GRADES:
        grades = {j.doc: float(j.grade) for j in prefs.view.judgments(topic)
                  if j.grade is not None}
    return pair_order(strategy, prefs.seed(topic), topic, grades)


def finish_pairs(app: Any) -> int:
    """After the app has ended with an answer unsaved: one more try, else print it (1)."""
    import sys

    from relkit.judging.conventions import error_stream

    record = app.pair_outbox.record
    what = (f"{SAID[record['answer']]} for {record['left']} (left) vs {record['right']} "
            f"(right) of topic {record['topic']}")
    try:
        PreferenceView(app.store, app.view.name).record(**record, retry=True)
        app.pair_outbox.clear()
        sys.stderr.write(f"relkit: saved on the way out: {what}\n")
        return 0
    except (StoreError, *UNREACHABLE) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        error_stream().write(f"relkit: NOT saved: {app.view.name}'s answer {what} "
                             f"({reason}).\nrelkit: the pair is asked again when you "
                             "resume.\n")
        return 1
