"""What one browser may cost the server: its messages, its keys, its sessions, its process.

Every signed-in browser gets an app process (~80 MiB) and a database connection, and
everything it sends becomes work in that process. Before these limits one assessor's
3.9 MB keystroke message kept a process running after the browser had gone, grew it
past 2.2 GB and outlived the server's SIGTERM, and 20 tabs on one token starved the
machine (issue 33). So, at the websocket, before anything reaches a process:

- a message from the page is at most :data:`MAX_MESSAGE` bytes (aiohttp refuses a
  longer one as it reads its header, close code 1009: the page says why);
- keys are metered (:class:`KeyMeter`): a burst of :data:`KEY_BURST`, then
  :data:`KEY_RATE` a second; input bytes likewise (:data:`BYTE_BURST`,
  :data:`BYTE_RATE`). A person's typing, a held key, a mouse sweep and a paste are
  far below; past either, the session is ended with :data:`TOO_FAST`;
- sessions are counted per token and in all (:class:`Seats`): one more is refused
  with a reason the page shows (:data:`SIGNED_IN_ELSEWHERE`, :data:`FULL`);
- a session's process is told to quit when its browser leaves (or the server stops)
  and killed if it has not ended :data:`QUIT_GRACE` seconds later, whatever it is
  doing (:mod:`.warm`).
"""

from __future__ import annotations

import asyncio
import re
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
PER_TOKEN = 2             # sessions open at once with one token (two tabs: docs/serve.md)
TOTAL = 32                # sessions open at once on the server

# Close codes (4000-4999: the application's) and the reasons the page shows (at most
# 123 bytes: a websocket close reason's room).
TOO_FAST_CODE, SIGNED_IN_CODE, FULL_CODE, STOPPING_CODE = 4002, 4003, 4004, 4005
TOO_FAST = ("Keys came faster than anyone types (a stuck key or a script?): this session "
            "has ended. Press Restart.")
SIGNED_IN_ELSEWHERE = ("You are already signed in in another tab ({n} at most): use that "
                       "one, or close it and press Restart.")
FULL = ("The server is full ({n} sessions open): try again in a few minutes, or tell "
        "the project's owner.")
STOPPING = "The server is stopping: every grade you saw saved is kept. Press Restart later."
# What the page says when aiohttp itself refused a message that is too long (1009: it
# closes before relkit's code sees the message, with no reason).
TOO_BIG = (f"The page sent a message of over {MAX_MESSAGE // 1024} KiB (a huge paste?): "
           "this session has ended. Press Restart.")

# One key: an escape sequence (CSI, SS3: arrows, function keys, a mouse report) is one
# key, as is a bracketed paste (one Paste event in the app; MAX_MESSAGE bounds it).
_SEQUENCES = re.compile(r"\x1b\[200~.*?\x1b\[201~|\x1b\[[0-?]*[ -/]*[@-~]|\x1bO.|\x1b.",
                        re.DOTALL)


def count_keys(data: str) -> int:
    """The keys in ``data`` as the app will see them: each character, but an escape
    sequence or a bracketed paste counts once."""
    extra = sum(m.end() - m.start() - 1 for m in _SEQUENCES.finditer(data))
    return len(data) - extra


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
    """A session's keys and input bytes against :data:`KEY_BURST`/:data:`KEY_RATE`
    and :data:`BYTE_BURST`/:data:`BYTE_RATE`; :meth:`allow` is O(len(data))."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.keys = Bucket(KEY_BURST, KEY_RATE, clock)
        self.bytes = Bucket(BYTE_BURST, BYTE_RATE, clock)

    def allow(self, data: str) -> bool:
        return self.bytes.take(len(data.encode("utf-8", "replace"))) and \
            self.keys.take(count_keys(data))


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

    def refusal(self, key: str) -> tuple[int, str] | None:
        """Why one more session with token ``key`` may not start (close code, reason)."""
        if sum(s.key == key for s in self.open) >= self.per_token:
            return SIGNED_IN_CODE, SIGNED_IN_ELSEWHERE.format(n=self.per_token)
        if len(self.open) >= self.total:
            return FULL_CODE, FULL.format(n=self.total)
        return None

    async def take(self, key: str, name: str) -> Seat | tuple[int, str]:
        """A seat for token ``key``, or why not; waits first for sessions that are
        ending (a reload) when those would make room."""
        why = self.refusal(key)
        if why is not None:
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
