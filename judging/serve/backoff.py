"""Failed sign-ins per client address: they slow that address down, one attempt at a time.

After :data:`FREE_FAILURES` failures from one address, each further attempt from it
waits 1, 2, 4... up to :data:`MAX_DELAY` seconds before its token is even looked at.
Two things make that hold against a guesser:

- attempts from one address take turns (:meth:`Backoff.turn`): those sent at once are
  checked one after another, each after its own wait, so parallel requests buy nothing;
  and at most :data:`QUEUE` wait their turn: more are refused at once (:class:`Busy`,
  429), so nobody can queue hours of waits in front of an address's next sign-in;
- a valid token does not wipe the address's failures (it would give anyone holding a
  token of their own three free guesses per sign-in); failures are forgotten only
  :data:`FORGET_AFTER` seconds after the last one.

The server lets a token it has already proven skip the turn (a signed-in person's
reloads and reconnections are not held up by someone guessing from the same address,
e.g. behind one proxy): such a token is no guess.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable

FREE_FAILURES = 3       # failures per address before sign-ins are slowed down
MAX_DELAY = 30.0        # seconds, the longest wait a failing address gets
FORGET_AFTER = 15 * 60  # seconds without a failure after which an address starts afresh
KEEP = 10_000           # addresses remembered at most (the oldest failures go first)
QUEUE = 3               # attempts from one address waiting their turn at most


class Busy(Exception):
    """Too many attempts from one address are already waiting: refused at once.

    Without a limit, a client could queue thousands of attempts (and drop its
    connections: aiohttp does not cancel their handlers) and hold every new sign-in
    from that address, behind a proxy everyone's, for hours.
    """


class Backoff:
    """Failed sign-ins per client address, how long the next attempt waits, and whose
    turn it is.

    Parameters
    ----------
    clock
        Seconds, monotonic (a fake one in tests).
    sleep
        How a turn waits (``asyncio.sleep``; a fake one in tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.clock, self.sleep = clock, sleep
        self.failures: dict[str, tuple[int, float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._waiting: dict[str, int] = {}

    def delay(self, address: str) -> float:
        """How long the next attempt from ``address`` waits (0 while it has few failures)."""
        n, last = self.failures.get(address, (0, 0.0))
        if n and self.clock() - last > FORGET_AFTER:
            del self.failures[address]
            return 0.0
        return 0.0 if n < FREE_FAILURES else min(2.0 ** (n - FREE_FAILURES), MAX_DELAY)

    def failed(self, address: str) -> int:
        """Count a failure from ``address``; its number (within FORGET_AFTER)."""
        self.delay(address)                      # forget an old run of failures first
        if len(self.failures) >= KEEP:
            # many addresses: drop the forgotten ones, and if half of KEEP are still
            # recent, all but the latest half (so this runs once per KEEP / 2 new
            # addresses at the most, not at every failure of a stream of new ones)
            old = self.clock() - FORGET_AFTER
            kept = [(a, f) for a, f in self.failures.items() if f[1] >= old]
            if len(kept) > KEEP // 2:
                kept = sorted(kept, key=lambda af: af[1][1])[-(KEEP // 2):]
            self.failures = dict(kept)
        n = self.failures.get(address, (0, 0.0))[0] + 1
        self.failures[address] = (n, self.clock())
        return n

    @contextlib.asynccontextmanager
    async def turn(self, address: str) -> AsyncIterator[float]:
        """Wait for ``address``'s previous attempts to finish, then for its delay; yields
        the seconds waited for the delay. The attempt is checked (and :meth:`failed`
        called) inside, so the next one's delay counts it. :class:`Busy` when
        :data:`QUEUE` attempts from ``address`` are already waiting."""
        if self._waiting.get(address, 0) >= QUEUE:
            raise Busy(address)
        lock = self._locks.setdefault(address, asyncio.Lock())
        self._waiting[address] = self._waiting.get(address, 0) + 1
        try:
            async with lock:
                wait = self.delay(address)
                if wait:
                    await self.sleep(wait)
                yield wait
        finally:
            self._waiting[address] -= 1
            if not self._waiting[address]:       # nobody queued: keep no lock per address
                del self._waiting[address]
                self._locks.pop(address, None)
