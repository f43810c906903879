"""The server's side of :mod:`.limits`: which sessions may start, what each may send,
and ending them all when the server stops.

A mixin of :class:`relkit.judging.serve.server.RelkitServer` (kept apart from sign-in:
this is about what a signed-in browser costs, not who it is).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from relkit.judging.serve.limits import (
    FULL_CODE,
    MAX_MESSAGE,
    STOPPING,
    STOPPING_CODE,
    TOO_FAST,
    TOO_FAST_CODE,
    KeyMeter,
    Seat,
    Seats,
    log,
    memory,
    mib,
)

if TYPE_CHECKING:
    from relkit.judging.serve.warm import WarmAppService


class SessionLimits:
    """Seats (sessions per token and in all), the key meter, the end of every session."""

    sessions: dict[web.WebSocketResponse, tuple[str, str]]

    def __init__(self, per_token: int, total: int) -> None:
        self.seats = Seats(per_token, total)

    async def seat_for(self, websocket: web.WebSocketResponse, key: str,
                       name: str) -> Seat | None:
        """A seat for ``name``'s new session, or None: then the websocket (open, so the
        page can show why) is closed with the reason and the refusal logged."""
        got = await self.seats.take(key, name)
        if isinstance(got, Seat):
            return got
        code, reason = got
        n = len(self.seats.open) if code == FULL_CODE else \
            sum(s.key == key for s in self.seats.open)
        where = "on the server" if code == FULL_CODE else "with this token"
        log(f"refused a session of {name}: {n} already open {where} (at most "
            f"{self.seats.total if code == FULL_CODE else self.seats.per_token})")
        with contextlib.suppress(Exception):
            await websocket.close(code=code, message=reason.encode()[:123])
        return None

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
        within :data:`~.limits.QUIT_GRACE` seconds, whatever they were doing."""
        ends = [seat.end() for seat in list(self.seats.open) if seat.end is not None]
        await asyncio.gather(*ends, return_exceptions=True)

    async def _process_messages(self, websocket: web.WebSocketResponse,
                                app_service: Any) -> None:
        """textual-serve's loop over the page's messages, metered (:class:`KeyMeter`):
        past the limits, the session ends with a reason; a message that is not
        textual-serve's protocol is dropped."""
        meter = KeyMeter()
        name = getattr(app_service, "name", "?")
        async for message in websocket:
            if message.type == WSMsgType.ERROR:
                # aiohttp refused it (over MAX_MESSAGE: close code 1009) and closed
                exc = message.data
                app_service.why = (f": a message over {MAX_MESSAGE // 1024} KiB from the page"
                                   if getattr(exc, "code", None) == 1009 else f": {exc}")
                return
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
                kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            except (ValueError, TypeError, IndexError, KeyError):
                continue
            if not meter.allow(data if kind == "stdin" and isinstance(data, str) else "."):
                app_service.why = ": keys came faster than the limits (docs/serve.md)"
                await self._close(websocket, name, TOO_FAST_CODE, TOO_FAST)
                return
            if kind == "stdin" and isinstance(data, str):
                await app_service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    await app_service.set_terminal_size(int(data["width"]),
                                                        int(data["height"]))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await app_service.blur()
            elif kind == "focus":
                await app_service.focus()

    async def _close(self, websocket: web.WebSocketResponse, name: str, code: int = 4001,
                     reason: str = "") -> None:
        raise NotImplementedError  # RelkitServer's
