"""Dwell time with idle time left out.

The assessor's time on a document counts only while they are active: each
gap between two events (showing the document, a key press, a scroll) counts
in full up to ``idle_after`` seconds and not beyond, so a coffee break in
the middle of a document adds at most ``idle_after``. The clock is injected
so tests can drive it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Seconds a document must be on screen before a grade key counts (``relkit judge
# --min-view``): about the least time it takes to read a short title. At 7-9 characters
# a saccade and 225-250 ms a fixation in silent reading (Rayner 1998, "Eye movements in
# reading and information processing", Psychological Bulletin 124(3):372-422), the
# shortest tenth of Cranfield's titles (42 characters or fewer) takes 5 fixations or more,
# 1.1-1.3 s. A grade sooner than that was given without reading the document: a key
# typed ahead, or the second tap of a double tap (at 200 ms, taps 210-300 ms apart graded
# the next document 9 times in 38 trials; issue 33).
MIN_VIEW = 1.0


class DwellTimer:
    def __init__(self, idle_after: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if idle_after <= 0:
            raise ValueError(f"idle_after must be > 0 seconds; got {idle_after}")
        self.idle_after = idle_after
        self.clock = clock
        self._active = 0.0
        self._last: float | None = None

    def start(self) -> None:
        """A new document is on screen: start from zero."""
        self._active = 0.0
        self._last = self.clock()

    def touch(self) -> None:
        """Any sign of life (a key, a scroll)."""
        now = self.clock()
        if self._last is not None:
            self._active += min(now - self._last, self.idle_after)
        self._last = now

    def elapsed_ms(self) -> int:
        """Active milliseconds so far (including the time up to now, capped)."""
        now = self.clock()
        extra = min(now - self._last, self.idle_after) if self._last is not None else 0.0
        return int(round((self._active + extra) * 1000))
