"""What one browser may cost the server: its messages, its keys, its sessions, its process.

Every signed-in browser gets an app process (~80 MiB) and a database connection, and
everything it sends becomes work in that process. Before these limits one assessor's
3.9 MB keystroke message kept a process running after the browser had gone, grew it
past 2.2 GB and outlived the server's SIGTERM, and 20 tabs on one token starved the
machine (issue 33). So, at the websocket, before anything reaches a process:

- a message from the page is at most :data:`MAX_MESSAGE` bytes (aiohttp refuses a
  longer one as it reads its header, close code 1009: the page says why);
- keys are metered per token, all its sessions together (:class:`KeyMeter`: a
  reconnect does not refill it): a burst of :data:`KEY_BURST`, then :data:`KEY_RATE`
  a second, a key being an event the app makes of the input (:mod:`.keys`), and every
  message at least one; input bytes likewise (:data:`BYTE_BURST`, :data:`BYTE_RATE`,
  every message's whole text). A person's typing, a held key, a mouse sweep and a
  paste are far below; past either, the session is ended with :data:`TOO_FAST`;
- sessions started are metered per token (:data:`START_BURST`, then one every
  :data:`START_EVERY` seconds: each start is a process), past that refused with
  :data:`TOO_MANY_STARTS`; at most :data:`COLD_STARTS` processes start at once on the
  server when no warm one is ready (:mod:`.warm`);
- the terminal's size is kept within :data:`WIDTHS` x :data:`HEIGHTS`, and resizes
  beyond :data:`RESIZE_BURST`, then :data:`RESIZE_RATE` a second, wait (the latest
  size is applied when the meter allows: a dragged window edge is not refused);
- sessions are counted per token and in all (:class:`Seats`): one more is refused
  with a reason the page shows (:data:`SIGNED_IN_ELSEWHERE`, :data:`FULL`);
- a session's process is told to quit when its browser leaves (or the server stops)
  and killed if it has not ended :data:`QUIT_GRACE` seconds later, whatever it is
  doing (:mod:`.warm`); once the server is stopping no session starts.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

MAX_MESSAGE = 16 * 1024   # bytes in one websocket message from the page
KEY_BURST = 2000          # keys at once (then KEY_RATE a second)
KEY_RATE = 200            # keys a second, sustained
BYTE_BURST = 64 * 1024    # input bytes at once (a few long pastes)
BYTE_RATE = 16 * 1024     # input bytes a second, sustained
QUIT_GRACE = 1.5          # seconds a process has to quit before it is killed
START_BURST = 10          # sessions started with one token at once (reloads), then
START_EVERY = 6.0         # one every this many seconds (10 a minute)
COLD_STARTS = 2           # processes starting at once when no warm spare is ready
SPARES = 2                # warm spares kept by default (`relkit serve --spares`)
WIDTHS, HEIGHTS = (20, 400), (5, 200)   # the terminal's size, columns x rows
RESIZE_BURST, RESIZE_RATE = 5, 2.0      # resizes at once, then a second (the rest wait)
PER_TOKEN = 2             # sessions open at once with one token (two tabs: docs/serve.md)
TOTAL = 32                # sessions open at once on the server

# Close codes (4000-4999: the application's) and the reasons the page shows (at most
# 123 bytes: a websocket close reason's room).
TOO_FAST_CODE, SIGNED_IN_CODE, FULL_CODE, STOPPING_CODE = 4002, 4003, 4004, 4005
STARTS_CODE = 4006
BINARY_CODE = 1003        # (the protocol's "cannot accept this type of data")
TOO_FAST = ("Keys came faster than anyone types (a stuck key or a script?): this session "
            "has ended. Press Restart.")
SIGNED_IN_ELSEWHERE = ("You are already signed in in another tab ({n} at most): use that "
                       "one, or close it and press Restart.")
FULL = ("The server is full ({n} sessions open): try again in a few minutes, or tell "
        "the project's owner.")
TOO_MANY_STARTS = ("Too many sessions started with your token in the last minutes: wait a "
                   "minute, then press Restart.")
BINARY = "The page sent a binary message, which it never does: this session has ended."
STOPPING = "The server is stopping: every grade you saw saved is kept. Press Restart later."
# What the page says when aiohttp itself refused a message that is too long (1009: it
# closes before relkit's code sees the message, with no reason).
TOO_BIG = (f"The page sent a message of over {MAX_MESSAGE // 1024} KiB (a huge paste?): "
           "this session has ended. Press Restart.")

def clamp(value: int, bounds: tuple[int, int]) -> int:
    """``value`` within ``bounds`` (a terminal's width or height: :data:`WIDTHS`...)."""
    return max(bounds[0], min(bounds[1], value))


class Bucket:
    """A token bucket: ``burst`` at once, refilled at ``rate`` a second."""

    def __init__(self, burst: float, rate: float, clock: Callable[[], float]) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self.level, self.at = float(burst), clock()

    def take(self, n: float) -> bool:
        """Take ``n``; False (nothing taken) when the bucket holds less."""
        now = self.clock()
        self.level = min(self.burst, self.level + (now - self.at) * self.rate)
        self.at = now
        if n > self.level:
            return False
        self.level -= n
        return True


class KeyMeter:
    """One token's keys and input bytes against :data:`KEY_BURST`/:data:`KEY_RATE`
    and :data:`BYTE_BURST`/:data:`BYTE_RATE` (its sessions together), and its session
    starts against :data:`START_BURST`/:data:`START_EVERY`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.keys = Bucket(KEY_BURST, KEY_RATE, clock)
        self.bytes = Bucket(BYTE_BURST, BYTE_RATE, clock)
        self.starts = Bucket(START_BURST, 1.0 / START_EVERY, clock)

    def allow(self, nbytes: int, keys: int) -> bool:
        """Whether a message of ``nbytes`` bytes making ``keys`` events may pass (it is
        charged at least one key: a message costs work even when it makes none)."""
        return self.bytes.take(nbytes) and self.keys.take(max(1, keys))


class Resizer:
    """Applies the page's terminal sizes, clamped to :data:`WIDTHS` x :data:`HEIGHTS`,
    at most :data:`RESIZE_BURST` at once and then :data:`RESIZE_RATE` a second (each
    is a layout of the whole screen in the app); one that comes faster waits, and
    only the latest of those is applied, when the meter allows."""

    def __init__(self, apply: Callable[[int, int], Awaitable[None]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.apply, self.bucket = apply, Bucket(RESIZE_BURST, RESIZE_RATE, clock)
        self.waiting: tuple[int, int] = (0, 0)
        self.later: asyncio.Task[None] | None = None

    async def __call__(self, width: int, height: int) -> None:
        size = clamp(width, WIDTHS), clamp(height, HEIGHTS)
        if self.later is None and self.bucket.take(1):
            await self.apply(*size)
            return
        self.waiting = size
        if self.later is None:
            self.later = asyncio.ensure_future(self._later())

    async def _later(self) -> None:
        while True:
            await asyncio.sleep(1.0 / RESIZE_RATE)
            if self.bucket.take(1):
                break
        self.later = None
        await self.apply(*self.waiting)

    def cancel(self) -> None:
        if self.later is not None:
            self.later.cancel()


@dataclass(eq=False)
class Seat:
    """One session: its token's key, its person, and its process once it has one."""

    key: str
    name: str
    pid: int | None = None
    ending: bool = False     # its browser has gone (or it is being ended): quitting
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    end: Callable[[], Awaitable[None]] | None = None   # ends it (the server stopping)
    peak: int | None = None  # its process's peak resident memory, bytes, near its end


class Seats:
    """The open sessions, at most ``per_token`` per token and ``total`` in all.

    A session holds its seat until its process has ended (memory and a database
    connection are the process's), so a reload, whose old session is still ending, may
    wait up to :data:`QUIT_GRACE` (and a little) for that seat instead of being refused.
    """

    def __init__(self, per_token: int = PER_TOKEN, total: int = TOTAL) -> None:
        self.per_token, self.total = per_token, total
        self.open: list[Seat] = []
        self.closed = False   # the server is stopping: no seat from now on

    def refusal(self, key: str) -> tuple[int, str] | None:
        """Why one more session with token ``key`` may not start (close code, reason)."""
        if self.closed:
            return STOPPING_CODE, STOPPING
        if sum(s.key == key for s in self.open) >= self.per_token:
            return SIGNED_IN_CODE, SIGNED_IN_ELSEWHERE.format(n=self.per_token)
        if len(self.open) >= self.total:
            return FULL_CODE, FULL.format(n=self.total)
        return None

    async def take(self, key: str, name: str) -> Seat | tuple[int, str]:
        """A seat for token ``key``, or why not; waits first for sessions that are
        ending (a reload) when those would make room."""
        why = self.refusal(key)
        if why is not None and why[0] != STOPPING_CODE:
            ending = [s for s in self.open
                      if s.ending and (s.key == key or why[0] == FULL_CODE)]
            if ending:
                await asyncio.wait([asyncio.ensure_future(s.ended.wait()) for s in ending],
                                   timeout=QUIT_GRACE + 1.0)
                why = self.refusal(key)
        if why is not None:
            return why
        seat = Seat(key, name)
        self.open.append(seat)
        return seat

    def release(self, seat: Seat) -> None:
        if seat in self.open:
            self.open.remove(seat)
        seat.ended.set()


def log(msg: str) -> None:
    """One line on the server's log (stderr)."""
    sys.stderr.write(f"relkit serve: {msg}\n")
    sys.stderr.flush()


def memory(pid: int | None) -> tuple[int, int] | None:
    """(resident, peak resident) bytes of process ``pid`` (Linux's /proc), or None."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            got = dict(line.split(":", 1) for line in f if line.startswith(("VmRSS",
                                                                             "VmHWM")))
        return (int(got["VmRSS"].split()[0]) * 1024, int(got["VmHWM"].split()[0]) * 1024)
    except (OSError, KeyError, ValueError):
        return None


def mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB"
