"""Failed sign-ins, counted per client address and per token: they slow down that
address's, or that token's, next attempts, never a burst of valid ones.

Two counts are kept apart (:class:`Failures`): the failures at one token (its public
key, when the database knows it: a wrong secret or a revoked token), from any address,
and the failures from one address with a key the database does not know (unknown or
malformed). The server puts an attempt in one line only: its token's when the database
knows its key, else its address's; so behind a reverse proxy (one address for all) a
stale cookie failing on every page load holds up only its own token, never the others'
valid sign-ins.
After :data:`FREE_FAILURES` failures of one count, each further attempt it covers waits
1, 2, 4... up to :data:`MAX_DELAY` seconds before its token is even looked at (the
longer wait when both counts are past their free failures). Three things make that
hold against a guesser without holding up people who sign in together (behind a
reverse proxy, all of them from the proxy's one address):

- attempts are checked at the same time only as far as they cannot go past the free
  failures: with ``n`` failures and ``k`` attempts being checked, an address (or a
  token) lets one more be checked at once while ``n + k <`` :data:`FREE_FAILURES`; the
  others wait their turn, in order (:meth:`Backoff.turn`). Eight valid sign-ins at once
  are checked three at a time and all get in; eight guesses at once from a fresh
  address: three are checked, they fail, and the five others are then slowed down;
- past its free failures, an address (or a token) has one attempt checked at a time,
  each after its own wait, so parallel requests buy nothing; at most :data:`QUEUE`
  attempts (the one being checked included) are in line, and more are refused at once
  (:class:`Busy`, 429), so nobody can queue hours of waits in front of an address's next
  sign-in. Before that, at most :data:`WAITING` wait for a free check;
- a valid token does not wipe any failures (it would give anyone holding a token of
  their own three free guesses per sign-in); failures are forgotten only
  :data:`FORGET_AFTER` seconds after the last one.

The server lets a token it has already proven skip the line (a signed-in person's
reloads and reconnections are not held up by someone guessing from the same address,
e.g. behind one proxy): such a token is no guess.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

FREE_FAILURES = 3       # failures (per address, per token) before attempts are slowed down
MAX_DELAY = 30.0        # seconds, the longest wait a failing address or token gets
FORGET_AFTER = 15 * 60  # seconds without a failure after which a count starts afresh
KEEP = 10_000           # addresses (tokens) remembered at most (the oldest failures go first)
QUEUE = 3               # attempts in line for one slowed address (token) at most
WAITING = 100           # attempts waiting for a free check, per address (token), at most


class Busy(Exception):
    """Too many attempts from one address (at one token) are already in line: refused
    at once. ``what`` is "address" or "token".

    Without a limit, a client could queue thousands of attempts (and drop its
    connections: aiohttp does not cancel their handlers) and hold every new sign-in
    from that address, behind a proxy everyone's, for hours.
    """

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(what, limit)
        self.what, self.limit = what, limit


class Failures:
    """Failed sign-ins per address (or per token), and how long the next one waits.

    Parameters
    ----------
    clock
        Seconds, monotonic (a fake one in tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.failures: dict[str, tuple[int, float]] = {}

    def count(self, who: str) -> int:
        """The failures of ``who`` within :data:`FORGET_AFTER` of the last one."""
        n, last = self.failures.get(who, (0, 0.0))
        if n and self.clock() - last > FORGET_AFTER:
            del self.failures[who]
            return 0
        return n

    def delay(self, who: str) -> float:
        """How long the next attempt of ``who`` waits (0 while it has few failures)."""
        n = self.count(who)
        return 0.0 if n < FREE_FAILURES else min(2.0 ** (n - FREE_FAILURES), MAX_DELAY)

    def failed(self, who: str) -> int:
        """Count a failure of ``who``; its number (within FORGET_AFTER)."""
        self.count(who)                          # forget an old run of failures first
        if len(self.failures) >= KEEP:
            # many addresses: drop the forgotten ones, and if half of KEEP are still
            # recent, all but the latest half (so this runs once per KEEP / 2 new
            # addresses at the most, not at every failure of a stream of new ones)
            old = self.clock() - FORGET_AFTER
            kept = [(a, f) for a, f in self.failures.items() if f[1] >= old]
            if len(kept) > KEEP // 2:
                kept = sorted(kept, key=lambda af: af[1][1])[-(KEEP // 2):]
            self.failures = dict(kept)
        n = self.failures.get(who, (0, 0.0))[0] + 1
        self.failures[who] = (n, self.clock())
        return n


@dataclass
class _Line:
    """The attempts of one address (or at one token): how many are being checked (or
    waiting for their delay), and those waiting, in the order they came."""

    checking: int = 0
    waiting: list[asyncio.Event] = field(default_factory=list)


class Backoff:
    """Failed sign-ins per address and per token, how long the next attempt waits, and
    which attempts may be checked now.

    Parameters
    ----------
    clock
        Seconds, monotonic (a fake one in tests).
    sleep
        How a turn waits (``asyncio.sleep``; a fake one in tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        self.sleep = sleep
        self.addresses, self.tokens = Failures(clock), Failures(clock)
        self._lines: dict[tuple[str, str], _Line] = {}

    def delay(self, address: str | None, token: str | None = None) -> float:
        """How long the next attempt from ``address`` (at ``token``) waits."""
        return max(self.addresses.delay(address) if address else 0.0,
                   self.tokens.delay(token) if token else 0.0)

    def failed(self, address: str | None, token: str | None = None) -> tuple[int, int]:
        """Count a failure from ``address`` and at ``token``; their numbers (0 for
        ``None``)."""
        return (self.addresses.failed(address) if address else 0,
                self.tokens.failed(token) if token else 0)

    def _verdict(self, kind: str, who: str, line: _Line, me: asyncio.Event) -> int:
        """0: attempt ``me`` may go as far as ``line`` is concerned; -1: it waits; else
        it is refused, and that is the limit it went past."""
        counts = self.addresses if kind == "address" else self.tokens
        n, place = counts.count(who), line.waiting.index(me)
        if n < FREE_FAILURES:                    # each being checked may still fail
            if place < FREE_FAILURES - n - line.checking:
                return 0
            return WAITING if place >= WAITING else -1
        if line.checking + place >= QUEUE:
            return QUEUE
        return 0 if line.checking == 0 and place == 0 else -1

    @contextlib.asynccontextmanager
    async def turn(self, address: str | None,
                   token: str | None = None) -> AsyncIterator[float]:
        """Wait until this attempt from ``address`` (at ``token``, its public key; either
        ``None``: not in that line) may be checked, then for its delay; yields the
        seconds waited for the delay. The attempt is checked (and :meth:`failed` called)
        inside, so the next ones count it. :class:`Busy` when too many attempts are
        already in line."""
        lines = ([("address", address)] if address else []) + \
            ([("token", token)] if token else [])
        me = asyncio.Event()
        for key in lines:
            self._lines.setdefault(key, _Line()).waiting.append(me)
        checking = False
        try:
            while True:
                verdicts = [self._verdict(k, w, self._lines[k, w], me) for k, w in lines]
                for (kind, _), limit in zip(lines, verdicts, strict=True):
                    if limit > 0:
                        raise Busy(kind, limit)
                if not any(verdicts):
                    break
                me.clear()
                await me.wait()      # an attempt in one of these lines has been checked
            for key in lines:
                line = self._lines[key]
                line.waiting.remove(me)
                line.checking += 1
            checking = True
            wait = self.delay(address, token)
            if wait:
                await self.sleep(wait)
            yield wait
        finally:
            for key in lines:
                line = self._lines[key]
                if checking:
                    line.checking -= 1
                else:
                    line.waiting.remove(me)
                for other in line.waiting:       # their turn may have come
                    other.set()
                if not line.checking and not line.waiting:
                    del self._lines[key]         # nobody in line: keep nothing
