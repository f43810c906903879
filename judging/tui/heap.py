"""Full garbage collections while the assessor reads, never between a key and the screen.

CPython's cycle collector makes a full pass over every tracked object once the young
generations have been collected often enough, and the pass lands on whatever happens
to allocate at that moment: in the judging app, a key being handled (opening the
revise list or the help, drawing the next document). Measured with ``gc.callbacks``,
every slow modal open of bench/tui_bench.py had a full pass inside and no fast one had;
the passes took 70-130 ms because two Textual leaks kept every closed modal's widgets
alive (judging/tui/leaks.py). With the leaks plugged a pass takes a few milliseconds,
still on a key's path. :class:`HeapKeeper` moves the passes to when nobody waits:

- at the first topic, :func:`gc.freeze` what start-up made (modules, the ORM's and
  Textual's tables, the first screens): no pass ever walks it again;
- automatic full passes are off while the app runs (the oldest generation's threshold
  is set out of reach); the young passes, which walk only recent objects, are unchanged;
- a full pass runs once the screen has drawn what a key asked for (the next document,
  a modal opened or closed: :meth:`HeapKeeper.reading`), when CPython would have run
  one by then (:data:`DRAWN` young passes since the last: its own schedule, so no more
  passes than before, only placed after the frame); after a grade the assessor reads,
  and a grade key is not taken for ``Settings.min_view`` anyway;
- after :data:`IDLE` seconds without a key or a click, a pass runs if anything was
  promoted since the last one; in a session that is never idle (a script),
  :data:`FORCE` young passes force one at the next tick (the bound on how much garbage
  can wait: deferred for 200 grades, a pass took 270 ms, most of it freeing garbage);
- after a full pass, if at least :data:`IMPORTS` modules were imported since the last
  freeze, freeze again: a library imported mid-session (scikit-learn and SciPy at a
  ``cal`` topic's first document, about 94,000 tracked objects) would otherwise be
  walked by every later pass (measured: 110 ms a pass against 16 ms on a random pool).
  What is alive at that moment stays frozen, as at the first topic: at most one
  screen's widgets more that a later pass will not free.

Garbage without reference cycles is freed at once by reference counting, frozen or
not; only cyclic garbage (a closed screen and its widgets) waits for a pass. From
Python 3.14 the collector is incremental and a full pass no longer one pause; the
keeper then only does less, never harm. bench/tui_heap_bench.py compares the passes,
the heap and the RSS with and without the keeper and the plugs.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable

from textual import events
from textual.app import App

IDLE = 0.3     # seconds without input before a full pass may run
DRAWN = 10     # generation-1 passes since the last full one that make one due once the
               # screen is drawn (CPython's own default schedule: threshold2 = 10)
FORCE = 50     # generation-1 passes since the last full one that force it anyway
TICK = 0.1     # seconds between the app's checks (HeapKeeper.tick)
OUT_OF_REACH = 1 << 30  # a generation-2 threshold no session reaches
IMPORTS = 100  # modules imported since the last freeze that make a pass freeze again
               # (scikit-learn with SciPy is about 900; a screen's lazy import a few)


class HeapKeeper:
    """When the cycle collector's full passes run, for one app (start, touched, tick, stop)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last_input = clock()
        self.passes = 0  # full passes run by this keeper (tests and the benchmark read it)
        self._saved: tuple[int, int, int] | None = None
        self._modules = 0  # len(sys.modules) at the last freeze

    @property
    def running(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        """Freeze what exists and take over the full passes (idempotent)."""
        if self._saved is not None:
            return
        gc.freeze()
        self._modules = len(sys.modules)
        self._saved = gc.get_threshold()
        young, middle, _ = self._saved
        gc.set_threshold(young, middle, OUT_OF_REACH)

    def touched(self) -> None:
        """A key or a click came: the assessor is not reading now."""
        self.last_input = self.clock()

    def reading(self) -> bool:
        """The screen shows what the last key asked for: run a pass if CPython would
        have run one by now (:data:`DRAWN`); True if one ran."""
        return self._collect(DRAWN)

    def tick(self) -> bool:
        """Run a full pass if it is due now (idle with anything to sweep, or forced);
        True if one ran."""
        return self._collect(1 if self.clock() - self.last_input >= IDLE else FORCE)

    def _collect(self, due_after: int) -> bool:
        if self._saved is None or not gc.isenabled():
            return False  # not started, or paused for an animation (Textual's scroll)
        if gc.get_count()[2] < due_after:  # generation-1 passes since the last full one
            return False
        gc.collect()
        self.passes += 1
        if len(sys.modules) - self._modules >= IMPORTS:  # a library came in: see above
            gc.freeze()
            self._modules = len(sys.modules)
        return True

    def stop(self) -> None:
        """Give the full passes back to CPython (the frozen objects stay frozen)."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None


class HeapKeptApp(App[None]):
    """An app whose full passes a :class:`HeapKeeper` places, once :meth:`keep_heap` has
    given it one (the judging app, the lead's); without one, CPython's own schedule."""

    heap: HeapKeeper | None = None

    def keep_heap(self, keeper: HeapKeeper) -> None:
        """Check ``keeper`` every :data:`TICK` seconds from now (call once mounted)."""
        self.heap = keeper
        self.set_interval(TICK, keeper.tick)

    async def on_event(self, event: events.Event) -> None:
        if self.heap is not None and isinstance(event, (events.Key, events.MouseDown)):
            self.heap.touched()
        await super().on_event(event)

    def on_unmount(self) -> None:
        if self.heap is not None:
            self.heap.stop()
