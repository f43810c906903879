"""The lead's adjudication screen: every case with all the assessors left, a key settles it.

Opened with ``relkit judge --lead NAME`` by a registered lead only
(:func:`relkit.judging.store.adjudication.check_lead`): unlike the assessor's screens
it shows every assessor's grade, note, flag and dwell time for a pair, side by
side. The lead decides against the same words as the assessors: the topic pane
and the highlighted document of the judging screen
(:class:`~relkit.judging.tui.topicpane.TopicPane`, :class:`~relkit.judging.tui.docview.DocView`)
and the scale with its definitions under them.

A digit records the final grade with the reason in the reason field and moves
to the next pair without one. On a decided pair another grade asks first, with the
reason for the change (:class:`~relkit.judging.tui.lead_modals.ChangeDecisionScreen`;
Esc changes nothing); every change is kept in the pair's decision history
(:mod:`relkit.judging.store.decisions`), and the same grade and reason again is no change.
Filters narrow the list (undecided, disagreements, flagged, noted, the review queue of
everything flagged or noted, one topic, the pairs two assessors both judged). A final
grade is acknowledged once committed; if the database cannot be reached it is kept,
retried every second and saved once when the database is back, and quitting first
warns (:mod:`relkit.judging.tui.lead_saving`); nothing crashes.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from relkit.judging.store.adjudication import Case, Filter, Kind, assessor_pairs, cases
from relkit.judging.store.assign import Store
from relkit.judging.store.models import TopicOut
from relkit.judging.store.reports import document_text, topic_text
from relkit.judging.tui import lead_render as render
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.heap import HeapKeeper, HeapKeptApp
from relkit.judging.tui.lead_modals import LEAD_ACTIONS
from relkit.judging.tui.lead_saving import LeadSaving
from relkit.judging.tui.leaks import Footer, plug
from relkit.judging.tui.legend import Legend
from relkit.judging.tui.outbox import UNREACHABLE, Outbox
from relkit.judging.tui.safe import query_terms, safe
from relkit.judging.tui.short import LEAD_BREAKPOINTS, LEAD_TINY_BELOW, too_small, waits
from relkit.judging.tui.topicpane import TopicPane, bar_text


class LeadApp(LeadSaving, HeapKeptApp):
    # Both apps' height classes, then the lead's (short.py says why).
    CSS_PATH = ["lead.tcss", "short.tcss", "lead-short.tcss"]
    VERTICAL_BREAKPOINTS = LEAD_BREAKPOINTS
    TITLE = "relkit judge --lead"

    def __init__(self, store: Store, lead: str, idle_gc: bool = False) -> None:
        super().__init__()
        plug()  # closed modals' widgets are freed (leaks.py)
        # Full garbage collections only while the lead reads (see JudgeApp's Settings).
        self.idle_gc = idle_gc
        self.store = store
        self.lead = lead
        self.scale = store.scale()
        self.every: list[Case] = []   # every case in the database
        self.shown: list[Case] = []   # those the filter keeps, in list order
        self.filter = Filter()
        self.case: Case | None = None  # the one on screen
        self._topic: str | None = None  # whose statement the topic pane holds
        # A reason typed for a final grade refused (decided meanwhile elsewhere): kept.
        self._typed: tuple[str, str, str] | None = None
        # The final grade being saved: outlives a quit, so the CLI sees what is unsaved
        # (lead_saving.py).
        self.outbox = Outbox()
        self._quit_warned: object = None  # the unsaved decision the last warning was about
        for g in self.scale.values:
            if 0 <= g <= 9:
                self.bind(str(g), f"decide({g})", description=f"final {g}", show=False)
        for a in LEAD_ACTIONS:
            self.bind(a.key, a.name, description=a.short or a.description, show=bool(a.short))
        self.bind("escape", "leave_reason", show=False)

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static("", id="head")
        yield OptionList(id="pairs")
        yield Static("", id="status")
        yield Static("", id="opinions")
        with Horizontal(id="decision"):
            yield Static("", id="final")
            yield Input(placeholder="e to write one (optional)", id="reason")
        yield Static("", id="topic-title")
        yield Static("", id="topic-more")
        yield DocView(id="doc")
        yield Static(too_small(LEAD_TINY_BELOW), id="too-small")
        yield Legend(self.scale, id="scale")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#status").display = False
        self.reload()
        if self.idle_gc:
            keeper = HeapKeeper()
            self.keep_heap(keeper)
            self.call_after_refresh(keeper.start)  # once the first screen is built

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_topic)

    def _fit_topic(self) -> None:
        for pane in self.query(TopicPane):
            pane.fit(self.query_one("#topic-title").size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return not waits(self.screen, action)  # too small to read the document (short.py)

    def _status(self, text: str, error: bool = False) -> None:
        pending = self.pending_text()  # a final grade not saved yet is always said
        if pending and pending not in text:
            text, error = (f"{text}\n{pending}" if text else pending), True
        status = self.query_one("#status", Static)
        status.update(safe(text))
        status.set_class(error, "error")
        status.display = bool(text)

    def _head(self) -> None:
        open_ = sum(not c.decided for c in self.shown)
        self.query_one("#head", Static).update(safe(
            f"relkit · lead {self.lead} · {open_} of {len(self.shown)} undecided · showing: "
            f"{self.filter.describe()} · ? help"))

    # -- the list --------------------------------------------------------------------
    def reload(self, select: tuple[str, str] | None = None, pin: bool = False) -> None:
        """Read the cases again and show those the filter keeps; ``select`` one of them
        (``pin``: shown even if the filter no longer keeps it, until the next reload)."""
        try:
            self.every = cases(self.store)
        except UNREACHABLE:
            self._status("Database unreachable: the list of pairs is not up to date.",
                         error=True)
            return
        if self.query_one("#status").has_class("error"):
            self._status("")  # the database answers again
        ol = self.query_one("#pairs", OptionList)
        keep = ol.highlighted or 0
        self.shown = [c for c in self.every
                      if self.filter.keeps(c) or (pin and (c.topic, c.doc) == select)]
        ol.clear_options()
        ol.add_options([Option(render.row(c)) for c in self.shown])
        self._head()
        if not self.shown:
            self._empty()
        else:
            keys = [(c.topic, c.doc) for c in self.shown]
            ol.highlighted = (keys.index(select) if select in keys
                              else min(keep, len(self.shown) - 1))
            self.show_case(ol.highlighted)
        if not isinstance(self.focused, Input):
            ol.focus()

    def _empty(self) -> None:
        self.case = None
        what = ("No case matches: " + self.filter.describe() + ". x clears the filters."
                if self.every else "Nothing to settle: no disagreements, flags or notes yet.")
        self.query_one("#opinions", Static).update(safe(what))
        self.query_one("#reason", Input).value = ""
        self.query_one("#decision").display = False
        self._topic = None
        self.query_one("#topic-title", Static).update("")
        for pane in self.query(TopicPane):
            pane.remove()
        self.query_one("#topic-more").display = False
        self.query_one(DocView).show("", Text(), Text())

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id == "pairs":
            self.show_case(event.option_index)

    # -- one case --------------------------------------------------------------------
    def show_case(self, index: int) -> None:
        c = self.shown[index]
        try:
            topic = topic_text(self.store, c.topic)
            row = document_text(self.store, c.doc)
        except UNREACHABLE:
            self._status("Database unreachable: cannot show this pair now.", error=True)
            return
        self.case = c
        self.query_one("#decision").display = True
        title, description, narrative = topic or (None, None, None)
        terms = query_terms(title)
        self.query_one("#opinions", Static).update(render.opinions(c, self.scale))
        self.query_one("#final", Static).update(render.final(c, self.scale))
        typed = self._typed
        self.query_one("#reason", Input).value = (
            typed[2] if typed is not None and typed[:2] == (c.topic, c.doc) else c.reason)
        if self._topic != c.topic:
            self._topic = c.topic
            shown = TopicOut(c.topic, title, description, narrative, 0, 0, {})
            self.query_one("#topic-title", Static).update(bar_text(shown))
            for old in self.query(TopicPane):
                old.remove()
            marker = self.query_one("#topic-more", Static)
            self.mount(TopicPane(shown, terms, marker), before=marker)
            self.call_after_refresh(self._fit_topic)
        doc_title, text = row or (None, "(this document's text is not in the database)")
        self.query_one(DocView).show(c.doc, safe(f"{c.doc}  {doc_title or ''}", terms),
                                     safe(text, terms))

    # -- deciding --------------------------------------------------------------------
    async def action_decide(self, grade: int) -> None:
        c = self.case
        if c is None:
            return
        if self.outbox.record is not None:  # one decision at a time (lead_saving.py)
            self._status("Not now: the final grade before is not saved yet (it is retried every "
                         "second).",
                         error=True)
            return
        reason = self.query_one("#reason", Input).value.strip()
        if c.final is not None and grade != c.final:
            # A decided pair's grade changes only when confirmed, with the reason for
            # the change (a stray digit used to replace it and keep the old reason).
            from relkit.judging.tui.lead_modals import ChangeDecisionScreen

            label = self.scale.grade
            what = (f"{c.topic}/{c.doc} from {c.final} {label(c.final).label} to {grade} "
                    f"{label(grade).label}")

            async def done(why: str | None) -> None:
                if why is None:
                    self._status(f"Cancelled: {c.topic}/{c.doc} keeps its final grade "
                                 f"{c.final}.")
                else:
                    await self._save(c, grade, why)

            from relkit.judging.store.decisions import decision_history

            history = [f"{h.recorded_at:%Y-%m-%d %H:%M} {h.lead}: "
                       + (f"{h.old_grade} -> {h.grade}" if h.old_grade is not None
                          else f"{h.grade}") + (f" ({h.note})" if h.note else "")
                       for h in decision_history(self.store, c.topic, c.doc)]
            self.push_screen(ChangeDecisionScreen(what, c.reason, "" if reason == c.reason
                                                  else reason, history), done)
            return
        if (grade, reason) == (c.final, c.reason):  # the same decision: nothing to save
            self._status(f"Unchanged: {c.topic}/{c.doc} has the final grade {grade} already.")
            return
        await self._save(c, grade, reason)

    def _advance(self, after: Case, was: int) -> bool:
        """Highlight the next pair shown without a final grade (wrapping round), if any.

        ``was`` is where ``after`` stood: when the filter drops it once decided
        (undecided only), the next pair has moved up into its place.
        """
        keys = [(c.topic, c.doc) for c in self.shown]
        start = keys.index((after.topic, after.doc)) + 1 if (after.topic, after.doc) in keys \
            else was
        order = list(range(start, len(self.shown))) + list(range(0, start))
        nxt = next((i for i in order if not self.shown[i].decided), None)
        if nxt is not None:
            self.query_one("#pairs", OptionList).highlighted = nxt
        return nxt is not None

    def action_reason(self) -> None:
        if self.case is not None:
            self.query_one("#reason", Input).focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "reason" or self.case is None:
            return
        c = self.case
        self.query_one("#pairs", OptionList).focus()
        if waits(self.screen, "decide"):  # the window too small to read the pair: as the key
            self._status(too_small(LEAD_TINY_BELOW), error=True)
            return
        if c.final is not None and event.value.strip() != c.reason:
            # A decided pair: the new reason is saved with its final grade at once.
            await self.action_decide(c.final)
        elif event.value.strip():
            self._status("Reason ready: the final grade key saves it with the grade.")

    def action_leave_reason(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#pairs", OptionList).focus()

    # -- filters ---------------------------------------------------------------------
    def _refilter(self, f: Filter) -> None:
        self.filter = f
        keep = (self.case.topic, self.case.doc) if self.case else None
        self.reload(select=keep)

    def action_undecided(self) -> None:
        self._refilter(Filter(self.filter.kind, not self.filter.undecided, self.filter.topic,
                              self.filter.pair))

    def action_kind(self, kind: Kind) -> None:
        again = "all" if self.filter.kind == kind else kind
        self._refilter(Filter(again, self.filter.undecided, self.filter.topic,  # type: ignore[arg-type]
                              self.filter.pair))

    def action_clear(self) -> None:
        self._refilter(Filter())

    def action_topic_filter(self) -> None:
        from relkit.judging.tui.lead_modals import TopicFilterScreen

        topics = list(dict.fromkeys(c.topic for c in self.every))

        def done(topic: str | None) -> None:
            if topic is None:
                return
            if topic and topic not in topics:
                self._status(f"No pair to settle in topic {topic}: the filter is unchanged.",
                             error=True)
                return
            self._status("")
            f = self.filter
            self._refilter(Filter(f.kind, f.undecided, topic or None, f.pair))

        self.push_screen(TopicFilterScreen(self.filter.topic, topics), done)

    def action_pair_filter(self) -> None:
        from relkit.judging.tui.lead_modals import PairFilterScreen

        def done(pair: tuple[str, str] | None | bool) -> None:
            if pair is None:
                return
            f = self.filter
            self._refilter(Filter(f.kind, f.undecided, f.topic,
                                  pair if isinstance(pair, tuple) else None))

        self.push_screen(PairFilterScreen(assessor_pairs(self.every)), done)

    # -- the rest --------------------------------------------------------------------
    def action_topic(self) -> None:
        for pane in self.query(TopicPane):
            pane.toggle()
            self.query_one("#scale").display = not pane.expanded
            if not pane.expanded:
                self.query_one("#pairs", OptionList).focus()

    def action_page(self) -> None:
        # The document without leaving the list (Tab reaches every scroll key).
        doc = self.query_one(DocView)
        if doc.scroll_y >= doc.max_scroll_y:
            doc.scroll_home(animate=False)
        else:
            doc.scroll_page_down(animate=False)

    def action_definitions(self) -> None:
        self.query_one(Legend).toggle_class("flip")  # the scale's other form (short.py)

    def action_help(self) -> None:
        from relkit.judging.tui.lead_modals import LeadHelpScreen

        self.push_screen(LeadHelpScreen(self.scale))
