"""The server's side of :mod:`.limits`: which sessions may start, what each may send,
and ending them all when the server stops.

A mixin of :class:`relkit.judging.serve.server.RelkitServer` (kept apart from sign-in:
this is about what a signed-in browser costs, not who it is).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from aiohttp import WSMessage, WSMsgType, web

from relkit.judging.serve.keys import KeyCounter
from relkit.judging.serve.limits import (
    BINARY,
    BINARY_CODE,
    FULL_CODE,
    MAX_MESSAGE,
    START_BURST,
    START_EVERY,
    STARTS_CODE,
    STOPPING,
    STOPPING_CODE,
    TOO_FAST,
    TOO_FAST_CODE,
    TOO_MANY_STARTS,
    KeyMeter,
    Resizer,
    Seat,
    Seats,
    log,
    memory,
    mib,
)

# What ends aiohttp's ``async for`` over a websocket: the browser has gone.
LEFT = (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED)

if TYPE_CHECKING:
    from relkit.judging.serve.warm import WarmAppService


class SessionLimits:
    """Seats (sessions per token and in all), the key meter, the end of every session."""

    sessions: dict[web.WebSocketResponse, tuple[str, str]]

    def __init__(self, per_token: int, total: int) -> None:
        self.seats = Seats(per_token, total)
        self.meters: dict[str, KeyMeter] = {}   # per token: its sessions share one

    def meter(self, key: str) -> KeyMeter:
        if key not in self.meters:
            self.meters[key] = KeyMeter()
        return self.meters[key]

    async def seat_for(self, websocket: web.WebSocketResponse, key: str,
                       name: str) -> Seat | None:
        """A seat for ``name``'s new session, or None: then the websocket (open, so the
        page can show why) is closed with the reason and the refusal logged. Each
        session given a seat is a start of its token's (:class:`KeyMeter`)."""
        got = await self.seats.take(key, name)
        if isinstance(got, Seat):
            if self.meter(key).starts.take(1):
                return got
            self.seats.release(got)
            log(f"refused a session of {name}: more than {START_BURST} started with this "
                f"token, one every {START_EVERY:g} s after that")
            await self.refuse(websocket, name, STARTS_CODE, TOO_MANY_STARTS)
            return None
        code, reason = got
        if code == STOPPING_CODE:
            await self.refuse(websocket, name, code, reason)
            return None
        n = len(self.seats.open) if code == FULL_CODE else \
            sum(s.key == key for s in self.seats.open)
        where = "on the server" if code == FULL_CODE else "with this token"
        log(f"refused a session of {name}: {n} already open {where} (at most "
            f"{self.seats.total if code == FULL_CODE else self.seats.per_token})")
        await self.refuse(websocket, name, code, reason)
        return None

    async def refuse(self, websocket: web.WebSocketResponse, who: str, code: int,
                     reason: str) -> None:
        """Close with the reason, and wait for the browser's answer (no process is
        held meanwhile; returning first would close the connection under the close
        frame: a client sees 1006)."""
        await self._close(websocket, who, code, reason)

    def seated(self, seat: Seat, websocket: web.WebSocketResponse,
               service: WarmAppService) -> None:
        """How :meth:`end_all` ends this session: the browser told, the process stopped."""

        async def end() -> None:
            self.sessions.pop(websocket, None)
            self.leaving(seat)
            log(f"session of {seat.name} ended: the server is stopping{self.used(seat)}")
            asyncio.ensure_future(self._close(websocket, seat.name, STOPPING_CODE, STOPPING))
            await service.stop()

        seat.end = end

    def leaving(self, seat: Seat) -> None:
        """The session's browser has gone: its process's memory, read while it lives."""
        if not seat.ending:
            seat.ending = True
            got = memory(seat.pid)
            seat.peak = got[1] if got else None

    @staticmethod
    def used(seat: Seat | None) -> str:
        return f" (its process used at most {mib(seat.peak)})" if seat and seat.peak else ""

    async def end_all(self) -> None:
        """End every open session (the server is stopping): their processes are gone
        within :data:`~.limits.QUIT_GRACE` seconds, whatever they were doing; no seat
        is given from now on (a sign-in waiting for its turn or for a seat gets none)."""
        self.seats.closed = True
        ends = [seat.end() for seat in list(self.seats.open) if seat.end is not None]
        await asyncio.gather(*ends, return_exceptions=True)

    async def relay(self, websocket: web.WebSocketResponse, app_service: Any,
                    key: str = "", first: WSMessage | None = None) -> None:
        """textual-serve's loop over the page's messages (its ``_process_messages``;
        ``first``: one already read), metered: every message against its token's
        :class:`KeyMeter` (its bytes, and at least one key: more for the events its keys
        make, :class:`.keys.KeyCounter`), resizes clamped and paced (:class:`Resizer`).
        Past the limits, or on a binary message, the session ends with a reason; a
        message that is not textual-serve's protocol is charged, then dropped. Closing
        does not wait for the browser's answer: the caller stops the process at once."""
        meter, counter = self.meter(key), KeyCounter()
        resize = Resizer(app_service.set_terminal_size)
        name = getattr(app_service, "name", "?")
        try:
            async for message in _messages(first, websocket):
                if message.type == WSMsgType.ERROR:
                    # aiohttp refused it (over MAX_MESSAGE: close code 1009) and closed
                    exc = message.data
                    app_service.why = (f": a message over {MAX_MESSAGE // 1024} KiB from "
                                       "the page" if getattr(exc, "code", None) == 1009
                                       else f": {exc}")
                    return
                if message.type != WSMsgType.TEXT:   # (textual-serve's page sends JSON)
                    app_service.why = ": a binary message from the page"
                    asyncio.ensure_future(self._close(websocket, name, BINARY_CODE, BINARY))
                    return
                raw: str = message.data
                kind, data = None, None
                with contextlib.suppress(ValueError, TypeError, IndexError, KeyError,
                                         RecursionError):
                    envelope = json.loads(raw)
                    kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
                stdin = data if kind == "stdin" and isinstance(data, str) else ""
                keys = counter.feed(stdin)
                why = (": an in-band resize in its keys (no browser sends one)"
                       if keys is None else
                       "" if meter.allow(len(raw.encode("utf-8", "replace")), keys) else
                       ": keys came faster than the limits (docs/serve.md)")
                if why:
                    app_service.why = why
                    asyncio.ensure_future(self._close(websocket, name, TOO_FAST_CODE, TOO_FAST))
                    return
                if stdin:
                    await app_service.send_bytes(stdin.encode("utf-8"))
                elif kind == "resize" and isinstance(data, dict):
                    with contextlib.suppress(KeyError, TypeError, ValueError, OverflowError):
                        await resize(int(data["width"]), int(data["height"]))
                elif kind == "ping":
                    await websocket.send_json(["pong", data])
                elif kind == "blur":
                    await app_service.blur()
                elif kind == "focus":
                    await app_service.focus()
        finally:
            resize.cancel()

    async def _close(self, websocket: web.WebSocketResponse, name: str, code: int = 4001,
                     reason: str = "") -> None:
        raise NotImplementedError  # RelkitServer's


async def _messages(first: WSMessage | None,
                    websocket: web.WebSocketResponse) -> AsyncIterator[WSMessage]:
    """``first`` (read while the process started), then the websocket's messages, as
    aiohttp's ``async for`` gives them (ending when the browser has gone)."""
    if first is not None:
        if first.type in LEFT:
            return
        yield first
    async for message in websocket:
        yield message
