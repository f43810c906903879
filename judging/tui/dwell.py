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
