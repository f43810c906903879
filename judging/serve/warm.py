"""App processes started ahead of time, so a signed-in browser does not wait for Python.

A session's process spends most of its start importing Textual, SQLAlchemy and the
database driver, opening the database and compiling its first queries (about 1 s of
CPU). The server keeps such processes ready (``session --warm FD``; ``relkit serve
--spares``, two by default): each has done
all that and waits on a pipe of its own for whom it serves (it prints one line on
stdout when it is ready). When a browser connects, the server writes the token
owner's role and name into that pipe (never anything from the request) with the
browser's terminal size, and starts the next spare a few seconds later.
textual-serve's :class:`AppService` is used unchanged but for where its process
comes from.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from asyncio.subprocess import PIPE, Process
from collections.abc import Awaitable, Callable

from textual_serve.app_service import AppService

from relkit.judging.serve.limits import COLD_STARTS, QUIT_GRACE, SPARES
from relkit.judging.serve.session import REFUSED
from relkit.metrics.core.borrowed import missing

# Textual draws a changed screen on the next tick of a free-running timer at TEXTUAL_FPS
# (textual-serve sets 60): a grade's next document waits for it, 0-16.7 ms, 8 on
# average, and then waits again in the browser for xterm.js's own animation frame. At
# 240 the first wait is 0-4 ms. The timer ticks only while something is to be drawn,
# so an idle or reading session costs nothing more; an animation (smooth scrolling)
# may draw up to 4x the frames, each a small diff, and the browser still paints at
# most once a frame (xterm.js draws what has arrived). Measured A/B in one run, two
# browsers at once: bench/serve_bench.py --ab-fps 240 (docs/serve.md).
SERVED_FPS = 240


# textual-serve's private names the server uses (textual-serve 1.1): the app process is
# started by relkit's _open_app_process (a warm spare, told its person through a pipe),
# with _build_environment's environment, and stopped through _process/_task/_stdin; the
# routes are added in _make_app. No safe fallback exists (textual-serve's own start
# would run the app for nobody in particular), so `relkit serve` refuses to start
# without them (:func:`missing_internals`) rather than failing in a session.
APP_SERVICE_METHODS = ("_build_environment", "_open_app_process", "send_meta", "stop")
APP_SERVICE_FIELDS = ("_process", "_task", "_stdin", "_download_manager")
SERVER_METHODS = ("_make_app",)


def missing_internals() -> str | None:
    """The first private name of textual-serve that relkit's server needs and the
    installed textual-serve lacks (``AppService._task``...), or ``None``."""
    from textual_serve.server import Server

    gone = missing(AppService, *APP_SERVICE_METHODS)
    if gone is None:
        probe = AppService("", write_bytes=None, write_str=None, close=None,  # type: ignore[arg-type]
                           download_manager=None)  # type: ignore[arg-type]
        gone = missing(probe, *APP_SERVICE_FIELDS)
    if gone is not None:
        return f"AppService.{gone}"
    gone = missing(Server, *SERVER_METHODS)
    return None if gone is None else f"Server.{gone}"


def served_environment(env: dict[str, str], app_env: dict[str, str]) -> dict[str, str]:
    """textual-serve's environment for an app process, at relkit's frame rate
    (:data:`SERVED_FPS`, or ``RELKIT_SERVE_FPS`` when set: the benchmark's A/B), with
    the server's settings for its sessions (``app_env``: the database, the pairs mode).

    The settings go into the child's environment only, never the server's own
    ``os.environ``: a server run in-process (a test, an embedding program) leaves its
    caller's environment as it found it, and a value inherited from the shell never
    decides what a session shows (every setting is always given).
    """
    env["TEXTUAL_FPS"] = os.environ.get("RELKIT_SERVE_FPS", str(SERVED_FPS))
    env.update(app_env)
    return env


class Spare:
    """One warm process, the write end of its identity pipe, and whether it is ready."""

    def __init__(self, process: Process, identity_fd: int) -> None:
        self.process, self.identity_fd = process, identity_fd
        # The spare prints one line on stdout once warm (before textual-serve reads it).
        assert process.stdout is not None
        self.ready: asyncio.Task[bytes] = asyncio.ensure_future(process.stdout.readline())


async def start_spare(env: dict[str, str]) -> Spare:
    r, w = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "relkit.judging.serve.session", "--warm", str(r),
            stdin=PIPE, stdout=PIPE, stderr=PIPE, env=env, pass_fds=(r,))
    finally:
        os.close(r)
    return Spare(process, w)


class Gone(Exception):
    """A session's process is not started: its browser left first, or the server is
    stopping."""


class WarmPool:
    """At most ``size`` spare processes; :meth:`take` hands one out, and ``refill_after``
    seconds later starts the next.

    A spare's warm-up is ~1 s of CPU. Started at once, it would compete with the
    session just handed out (and that person's browser) for the CPU exactly while
    their first screens are drawn; so it waits, and the other spares (a second, by
    default) cover the next sign-ins in the meantime. When no spare is ready a process
    is started cold, at most ``cold`` at once on the server
    (:data:`~.limits.COLD_STARTS`: sign-ins beyond wait their turn rather than share the
    CPU), and not at all once its browser has gone or the pool is closed (:class:`Gone`).
    """

    def __init__(self, size: int = SPARES, refill_after: float = 3.0,
                 cold: int = COLD_STARTS, app_env: dict[str, str] | None = None) -> None:
        self.size, self.refill_after = size, refill_after
        self.app_env = dict(app_env or {})   # (served_environment)
        self.spares: list[asyncio.Task[Spare]] = []
        self._refill: asyncio.TimerHandle | None = None
        self.closed = False
        self.cold = asyncio.Semaphore(cold)

    def fill(self, env: dict[str, str]) -> None:
        self._refill = None
        if self.closed:          # (no spare started while the server stops)
            return
        while len(self.spares) < self.size:
            self.spares.append(asyncio.ensure_future(start_spare(env)))

    async def take(self, env: dict[str, str],
                   gone: Callable[[], bool] = lambda: False) -> Spare:
        """A ready process; ``gone`` says whether its browser has left meanwhile."""
        if self.closed:
            raise Gone("the server is stopping")
        task = self.spares.pop(0) if self.spares else None
        if self._refill is None:      # (a burst of sign-ins does not postpone it)
            self._refill = asyncio.get_running_loop().call_later(self.refill_after,
                                                                 self.fill, env)
        if task is None:
            return await self.start_cold(env, gone)
        spare = await task
        if not await spare.ready:                 # died while warming: start one now
            os.close(spare.identity_fd)
            return await self.start_cold(env, gone)
        return spare

    async def start_cold(self, env: dict[str, str], gone: Callable[[], bool]) -> Spare:
        async with self.cold:
            await asyncio.sleep(0)     # (a close the browser has sent is read first)
            if self.closed:
                raise Gone("the server is stopping")
            if gone():
                raise Gone("its browser left before its process started")
            spare = await start_spare(env)
            await spare.ready          # (its CPU spent: the next cold start may go)
            return spare

    async def warm(self) -> int:
        """Wait until the spares started so far are ready; how many are."""
        spares = [await task for task in list(self.spares)]
        return sum([bool(await spare.ready) for spare in spares])

    async def say_warm(self, log: Callable[[str], None]) -> None:
        """Tell ``log`` once the first spares are ready, or how many died warming;
        nothing when none were asked for (``--spares 0``)."""
        if not self.size:
            return
        n = await self.warm()
        if n == self.size:
            log(f"{n} session{'s' if n != 1 else ''} warm: a browser signing in from now on "
                "gets its screen without waiting for Python to start")
        else:
            log(f"{self.size - n} of {self.size} warm sessions ended while starting ({n} "
                "warm): a sign-in without one starts its own process, about a second "
                "later")

    async def close(self) -> None:
        self.closed = True
        if self._refill is not None:
            self._refill.cancel()
        for task in self.spares:
            spare = await task
            spare.ready.cancel()
            os.close(spare.identity_fd)           # the spare reads EOF and exits
            with contextlib.suppress(ProcessLookupError):
                spare.process.kill()
            await spare.process.wait()
        self.spares.clear()


# What the browser shows (the websocket's close reason, at most 123 bytes) when a
# session may not start, or its process ends without the app saying it quit.
# (One text for every reason, the server's log has the one that applies: no login yet,
# a role the server's login may not take, the database away.)
CANNOT_START = ("Your session cannot start on this database (the server's log says "
                "why). Ask the project's owner.")
STOPPED = "The judging screen stopped on an error (the server's log says why)."


class WarmAppService(AppService):
    """textual-serve's AppService, its process taken from a :class:`WarmPool`.

    ``close`` takes the reason the browser is shown (empty: textual-serve's "Session
    ended."); ``log`` writes one line to the server's log.
    """

    def __init__(self, pool: WarmPool, role: str, name: str,
                 log: Callable[[str], None], **kwargs: object) -> None:
        super().__init__("relkit judge", **kwargs)  # type: ignore[arg-type]
        self.pool, self.role, self.name, self.log = pool, role, name, log
        self.ended = False     # the app said it quit, or the session was refused
        self.refused = False
        self.killed = False    # it did not quit in time (stop)
        self.why = ""          # why the server ended it, for the log (": keys ...")
        self.gone: Callable[[], bool] = lambda: False   # its browser has left (the server's)
        self._stopping: asyncio.Future[None] | None = None

    async def on_meta(self, data: bytes) -> None:
        meta = json.loads(data)
        if meta.get("type") == REFUSED:
            # (relkit.judging.serve.session.refuse): logged here, once, and said to the
            # browser, which would otherwise keep its loading screen
            self.ended = self.refused = True
            self.log(f"session of {self.name} refused: {meta.get('reason')}")
            await self.remote_close(CANNOT_START)  # type: ignore[call-arg]
            return
        if meta.get("type") == "exit":
            self.ended = True
        await super().on_meta(data)

    async def run(self) -> None:
        await super().run()
        if not self.ended and not self.killed:
            # The process ended without the app quitting (a crash; textual-serve has
            # logged its stderr): the browser is told, not left on a dead screen.
            await self.remote_close(STOPPED)  # type: ignore[call-arg]

    async def send_bytes(self, data: bytes) -> bool:
        return await self._bounded(super().send_bytes(data))

    async def send_meta(self, data: dict[str, str | None | int | bool]) -> bool:
        return await self._bounded(super().send_meta(data))

    async def _bounded(self, sending: Awaitable[bool]) -> bool:
        # A process that reads nothing (stopped, or hung) fills its stdin pipe and the
        # write would wait for ever, holding the websocket's messages (the browser's
        # leaving among them) behind it. A live app reads its input at once.
        try:
            return await asyncio.wait_for(sending, QUIT_GRACE)
        except TimeoutError:
            return False

    async def stop(self) -> None:
        """Tell the app to quit and wait for it; kill it :data:`QUIT_GRACE` seconds
        later if it is still running (busy with a burst of keys, hung, stopped): the
        process ends within that of the browser leaving or the server stopping,
        whatever it is doing. Calls at once (the handler, the server stopping) share
        one ending."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        if self._task is None:
            return
        task, process = self._task, self._process
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + QUIT_GRACE
        await self.send_meta({"type": "quit"})          # (bounded: _bounded)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(task), max(0.0, deadline - loop.time()))
        if not task.done() and process is not None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            self.killed = True
            self.log(f"session of {self.name}: its process had not ended "
                     f"{QUIT_GRACE:g} s after it was told to quit; killed")
        await task
        if process is not None:
            await process.wait()
        self._task = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        # The browser's terminal size goes down the pipe with the name: textual's web
        # driver reads it from COLUMNS/ROWS when the app starts, after this.
        env = served_environment(self._build_environment(), self.pool.app_env)
        spare = await self.pool.take(env, lambda: self._stopping is not None or self.gone())
        self._process = spare.process
        assert spare.process.stdin is not None
        self._stdin = spare.process.stdin
        if self._stopping is not None:
            # stopped while its process was on its way (the browser gone, the server
            # stopping, during a cold start): the app never starts for nobody
            self.killed = True
            os.close(spare.identity_fd)
            with contextlib.suppress(ProcessLookupError):
                spare.process.kill()
            return spare.process
        os.write(spare.identity_fd, f"{self.role}\t{self.name}\t{width}\t{height}\n".encode())
        os.close(spare.identity_fd)
        return spare.process
