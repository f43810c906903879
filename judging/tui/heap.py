"""Full garbage collections while the assessor reads, never between a key and the screen.

CPython's cycle collector makes a full pass over every tracked object once the young
generations have been collected often enough, and the pass lands on whatever happens
to allocate at that moment. In the judging app that is a key being handled: opening
the revise list or the help, or drawing the next document. The heap a full pass walks
is mostly Textual's line caches (a ``Strip`` with its ``FIFOCache`` objects per painted
line, 50,000 caches after a few dozen modal opens), so the pass took 70-130 ms, and it
was the whole tail of the modal-open latency (bench/tui_bench.py; measured with
``gc.callbacks``: every slow open had a generation-2 pass inside, no fast one had).

:class:`HeapKeeper` moves those passes to when nobody is waiting:

- at the first topic, :func:`gc.freeze` what start-up made (modules, the ORM's and
  Textual's tables, the first screens): no pass ever walks it again;
- automatic full passes are off while the app runs (the oldest generation's threshold
  is set out of reach); the young passes, which walk only recent objects and take
  about a millisecond, are unchanged;
- a full pass runs once the next document is on screen (:meth:`HeapKeeper.reading`:
  the assessor reads it now, and a grade key is not taken for ``Settings.min_view``
  anyway), and after :data:`IDLE` seconds without a key or a click (a modal read, a
  long document); each time only if young passes have promoted something since the
  last one. Run that often, a pass has one document's garbage to free and takes a few
  milliseconds; deferred for 200 grades it took 270 ms at 3,000 words, because freeing
  the cyclic garbage, not walking the live heap, is most of its cost;
- in a session that is never idle (a script), :data:`FORCE` young passes with promotions
  force one at the next tick (the bound on how much garbage can wait).

Garbage without reference cycles is freed at once by reference counting, frozen or
not; only cyclic garbage (a closed screen and its widgets) waits for the next idle
pass. From Python 3.14 the collector is incremental and its full pass no longer one
pause; the keeper then only does less, never harm.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

IDLE = 0.3     # seconds without input before a full pass may run
FORCE = 50     # generation-1 passes since the last full one that force it anyway
TICK = 0.1     # seconds between the app's checks (HeapKeeper.tick)
OUT_OF_REACH = 1 << 30  # a generation-2 threshold no session reaches


class HeapKeeper:
    """When the cycle collector's full passes run, for one app (start, touched, tick, stop)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last_input = clock()
        self.passes = 0  # full passes run by this keeper (tests and the benchmark read it)
        self._saved: tuple[int, int, int] | None = None

    @property
    def running(self) -> bool:
        return self._saved is not None

    def start(self) -> None:
        """Freeze what exists and take over the full passes (idempotent)."""
        if self._saved is not None:
            return
        gc.freeze()
        self._saved = gc.get_threshold()
        young, middle, _ = self._saved
        gc.set_threshold(young, middle, OUT_OF_REACH)

    def touched(self) -> None:
        """A key or a click came: the assessor is not reading now."""
        self.last_input = self.clock()

    def reading(self) -> bool:
        """The screen shows what the last key asked for: run a pass if one is pending."""
        return self._collect(due=True)

    def tick(self) -> bool:
        """Run a full pass if it is due now (idle, or forced); True if one ran."""
        return self._collect(due=self.clock() - self.last_input >= IDLE)

    def _collect(self, due: bool) -> bool:
        if self._saved is None or not gc.isenabled():
            return False  # not started, or paused for an animation (Textual's scroll)
        pending = gc.get_count()[2]  # generation-1 passes since the last full one
        if pending == 0 or (not due and pending < FORCE):
            return False
        gc.collect()
        self.passes += 1
        return True

    def stop(self) -> None:
        """Give the full passes back to CPython (the frozen objects stay frozen)."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
