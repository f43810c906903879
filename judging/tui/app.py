"""The judging app, built by a factory so the CLI and the tests build it the same way."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from relkit.judging.tui import keymap, leaks, prefs
from relkit.judging.tui.dwell import MIN_VIEW
from relkit.judging.tui.heap import HeapKeeper, HeapKeptApp
from relkit.judging.tui.outbox import Outbox
from relkit.judging.tui.short import JUDGE_BREAKPOINTS
from relkit.judging.tui.start import FirstView, StoreLoader
from relkit.judging.tui.topics import TopicsScreen

if TYPE_CHECKING:
    # Imported when a topic opens: `relkit judge` draws the topic list before the store
    # is imported (tui/start.py).
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.assign import Store
    from relkit.judging.store.outputs import TopicOut
    from relkit.judging.tui.lightview import LightView


@dataclass(frozen=True)
class Settings:
    keymap_path: Path | None = None
    idle_after: float = 60.0
    clock: Callable[[], float] = field(default=time.monotonic)  # tests drive dwell time
    # Seconds a document must have been on screen before a grade key judges it: about
    # the least time it takes to read a short title (dwell.MIN_VIEW says why).
    min_view: float = MIN_VIEW
    # Where the theme and the reading width are remembered (None: nowhere; the CLI
    # passes prefs.default_path(), tests a temporary file).
    prefs_path: Path | None = None
    # Draw the next document while the grade commits ("saving: ..." until it has). Off:
    # the house rule is that a judgment is committed before the screen moves on, so the
    # default waits for the commit; bench/tui_bench.py measures both.
    draw_ahead: bool = False
    # The cycle collector's full passes only while the assessor reads (heap.HeapKeeper:
    # start-up's objects frozen when a topic opens, a pass once the next document is
    # drawn or input has paused): they were pauses of 70-130 ms on whichever key came
    # first, a grade or a modal. `relkit judge` and `relkit serve` set it; tests leave
    # it off (many apps in one process: frozen objects are never freed).
    idle_gc: bool = False
    # The pairs mode (issue 38, `relkit judge --pairs`): a topic opens the pairs screen
    # (judging/tui/pairs.py), which asks which of two documents is better.
    pairs: bool = False
    # Which pair comes next (`--pair-strategy`): a name in relkit.pooling.pairs.
    pair_strategy: str = "all-pairs"
    # The topic opened at start (`--topic`, resuming): its screen over the topic list.
    topic: str | None = None
    # Adaptive topics' next picks made in a thread while the topic list is on screen
    # (AssessorView.warm: a cal topic's first batch, the pool's features, scikit-learn's
    # import), so that Enter on the topic does not wait seconds for them.
    warm: bool = True


class JudgeApp(HeapKeptApp):
    # Both apps' height classes, then the assessor's (short.py says why).
    CSS_PATH = ["judge.tcss", "short.tcss", "judge-short.tcss"]
    VERTICAL_BREAKPOINTS = JUDGE_BREAKPOINTS
    TITLE = "relkit judge"

    def __init__(self, store: Store | StoreLoader, assessor: str, settings: Settings) -> None:
        """``store``: the store, or (``relkit judge`` on SQLite) the loader that opens it
        in a thread while the topic list, read without it, is on screen."""
        super().__init__()
        leaks.plug()  # closed modals' widgets are freed (leaks.py)
        self.loader: StoreLoader | None = None
        self._store: Store | None = None
        self._view: AssessorView | None = None
        self.first_view: AssessorView | FirstView
        if isinstance(store, StoreLoader):
            self.loader = store
            self.first_view = FirstView(store)
        else:
            self._store = store
            self._view = self.first_view = store.assessor(assessor)
        self._opening = False  # a topic waits for the store (Enter came first)
        self.settings = settings
        self.actions_ = keymap.load(settings.keymap_path, self.first_view.scale())
        # The judgment being saved: outlives the screens, so the CLI sees what a quit or
        # a crash left unsaved.
        self.outbox = Outbox()
        self.pair_outbox = Outbox()  # the pairs mode's answer on its way (pairs.py)
        self._quit_warned: object = None  # the unsaved record the last warning was about
        self.prefs = prefs.load(settings.prefs_path)  # checked now, before any screen
        self.warming: threading.Thread | None = None   # (tests wait for it)
        self._warm_stop = threading.Event()            # a topic opened: warm no more

    def on_mount(self) -> None:
        if self.settings.idle_gc:
            self.keep_heap(HeapKeeper(self.settings.clock))  # started at the first topic
        if self.prefs.theme in self.available_themes:
            self.theme = self.prefs.theme
        # Subscribed after the remembered theme is set: only the assessor's changes are saved.
        self.theme_changed_signal.subscribe(self, self._remember_theme)
        self.push_screen(TopicsScreen(self.first_view, open_first=self.settings.topic))
        if self.loader is not None:
            # After the first frame: the import then takes nothing from drawing it.
            self.call_after_refresh(self.loader.start)
        if self.settings.warm and not self.settings.pairs:
            self.call_after_refresh(self._start_warming)

    def _start_warming(self) -> None:
        # A daemon thread, not a Textual worker: one still fitting never delays the exit.
        self.warming = threading.Thread(target=self._warm, name="relkit-warm", daemon=True)
        self.warming.start()

    def _warm(self) -> None:
        """(The warming thread.) Each adaptive topic's next pick made ahead of its Enter
        (AssessorView.warm), until a topic opens; once the store is open. Anything that
        fails here is only a head start lost: the key that opens the topic says it."""
        try:
            if self.loader is not None:
                while not self.loader.wait(0.5):
                    if self._warm_stop.is_set() or not self.is_running:
                        return
                if self.loader.error is not None:
                    return
                view: object = self.loader.get()[1]
            else:
                view = self.first_view   # (the store's view, given the store)
            warm = getattr(view, "warm", None)
            if warm is not None:
                warm(lambda: self._warm_stop.is_set() or not self.is_running)
        except Exception:  # noqa: BLE001, S110 - the key that opens the topic raises it
            pass

    @property
    def store(self) -> Store:
        if self._store is None:
            assert self.loader is not None
            self._store, self._view = self.loader.get()
        return self._store

    @property
    def view(self) -> AssessorView:
        if self._view is None:
            assert self.loader is not None
            self._store, self._view = self.loader.get()
        return self._view

    def _remember_theme(self, theme: object) -> None:
        path = self.settings.prefs_path
        if path is None or self.theme == self.prefs.theme:
            return
        try:
            self.prefs = prefs.save(path, self.prefs, theme=self.theme)
        except OSError as exc:  # the theme is not worth stopping for: say it, go on
            self.notify(f"The theme is not remembered: cannot write {path} ({exc})",
                        severity="warning")

    def open_topic(self, topic: TopicOut) -> None:
        self._warm_stop.set()   # the keys are the judging screen's from now on
        loader = self.loader
        light: LightView | None = None
        if loader is not None and not loader.ready and not self.settings.pairs:
            # Enter before the store is open: the first document is read without it
            # (a static pool's topic on SQLite; tui/lightview.py), saves wait for it.
            from relkit.judging.tui.lightview import LightView

            light = LightView.open(loader, topic.key)
            if light is not None:
                self.run_worker(self._watch_loader, thread=True, exit_on_error=False)
        if light is None and loader is not None and (not loader.ready
                                                    or loader.error is not None):
            # Enter before the store is open, on a topic the store must read: say so,
            # and open the topic when it is (or end the app if it cannot be opened: the
            # command says why).
            if not self._opening:
                self._opening = True
                if not loader.ready:
                    self.notify("Opening the judging database…", timeout=30)
                self.run_worker(lambda: self._open_when_ready(topic), thread=True,
                                exit_on_error=False)
            return
        from relkit.judging.tui.judge import judge_screen

        s = self.settings
        if self.heap is not None:
            self.heap.start()
        if s.pairs:
            from relkit.judging.store.preferences import PreferenceView
            from relkit.judging.tui.pairs import order_for, pairs_screen

            view = PreferenceView(self.store, self.view.name)
            self.push_screen(pairs_screen(view, topic, self.actions_, self.pair_outbox,
                                          order_for(view, topic.key, s.pair_strategy)))
            return
        # (A LightView answers every call the judging screen makes of the view.)
        jview = self.view if light is None else cast("AssessorView", light)
        self.push_screen(judge_screen(jview, topic, self.actions_, s.idle_after, s.clock,
                                      s.min_view, self.outbox, self.prefs.reading_width,
                                      s.draw_ahead))

    def _open_when_ready(self, topic: TopicOut) -> None:
        """(A worker thread.) Wait for the store, then open ``topic``."""
        if self._store_opened():
            self.call_from_thread(self._opened, topic)

    def _watch_loader(self) -> None:
        """(A worker thread.) The judging screen is open on the light read: if the store
        cannot be opened after all, end the app."""
        self._store_opened()

    def _store_opened(self) -> bool:
        """(A worker thread.) Wait for the store: whether it is open. If it cannot be
        opened, end the app (the command says why, tui/cli.py); False too if the
        assessor quit first."""
        loader = self.loader
        assert loader is not None
        while not loader.wait(0.5):
            if not self.is_running:
                return False  # the assessor quit first
        if loader.error is not None:
            if self.is_running:
                self.call_from_thread(self.exit, None, 1)
            return False
        return True

    def _opened(self, topic: TopicOut) -> None:
        self._opening = False
        self.clear_notifications()
        self.open_topic(topic)

    async def action_quit(self) -> None:
        # Quitting with a judgment still unsaved takes it off the screen: say so once per
        # judgment and quit on the second press (the CLI then tries it once more, or
        # prints it and exits non-zero).
        record = self.outbox.record or self.pair_outbox.record
        if record is not None and self._quit_warned is not record:
            self._quit_warned = record
            why = ("the database is still opening" if self.loader is not None
                   and not self.loader.ready else "the database is unreachable")
            self.notify(f"Your last judgment is NOT saved yet ({why}). "
                        "Quit again to leave anyway: it is tried once more, else printed.",
                        severity="error", timeout=10)
            return
        self.exit()


def make_app(store: Store | StoreLoader, assessor: str,
             settings: Settings | None = None) -> JudgeApp:
    """The app for ``assessor`` on ``store`` or what a :class:`StoreLoader` opens (keymap
    checked now, before any screen)."""
    return JudgeApp(store, assessor, settings or Settings(keymap_path=keymap.default_path(),
                                                          prefs_path=prefs.default_path()))
