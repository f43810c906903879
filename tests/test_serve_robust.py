"""`relkit serve`'s error paths found by review: one line, and nothing stops for good."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from relkit.judging.serve import server as srv
from relkit.judging.serve import session
from relkit.judging.store import tokens


def test_a_database_error_starting_a_session_is_one_line(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """act_as can fail in the database (it is down, say): the session is refused with
    the reason, as for a missing login, not a traceback and a generic browser message."""
    from relkit.judging.store.access import acting

    def down(engine: Any, name: str) -> None:
        raise OperationalError("SET ROLE", {}, Exception("connection refused"))

    said: list[str] = []
    monkeypatch.setattr(acting, "act_as", down)
    monkeypatch.setattr(session, "refuse", said.append)
    assert session.serve(types.SimpleNamespace(engine=None), "assessor", "ann") == 1  # type: ignore[arg-type]
    assert said == ["the database could not start the session of ann (connection refused)"]


def test_the_revocation_watcher_outlives_an_unexpected_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A round that fails for any reason is logged and the next one still runs: a
    revoked token's session is ended after it."""
    rounds: list[str] = []

    def live_keys(store: Any, keys: set[str]) -> set[str]:
        rounds.append("asked")
        if len(rounds) == 1:
            raise RuntimeError("something unexpected")
        return set()                      # the token has been revoked

    closed: list[str] = []
    logged: list[str] = []
    monkeypatch.setattr(tokens, "live_keys", live_keys)
    monkeypatch.setattr(srv, "REVOKE_CHECK", 0.0)
    monkeypatch.setattr(srv, "log", logged.append)

    async def close(websocket: Any, name: str) -> None:
        closed.append(name)

    fake = types.SimpleNamespace(sessions={"ws": ("key", "bob")}, store=None, _close=close)

    async def main() -> None:
        task = asyncio.ensure_future(srv.RelkitServer.watch_revocations(fake))  # type: ignore[arg-type]
        for _ in range(200):
            await asyncio.sleep(0.01)
            if closed:
                break
        task.cancel()

    asyncio.run(main())
    assert rounds[:2] == ["asked", "asked"] and closed == ["bob"], (rounds, logged)
    assert any("something unexpected" in line for line in logged), logged


def test_a_session_opened_while_the_watcher_asks_is_not_taken_for_revoked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The watcher asked about the open sessions' tokens, then ended every open session
    whose token was not in the answer: one opened during the query (50 websockets in a
    row: tests/test_serve_abuse.py) was closed as revoked."""
    closed: list[str] = []
    fake = types.SimpleNamespace(sessions={"ws1": ("K1", "ann")}, store=None)

    def live_keys(store: Any, keys: set[str]) -> set[str]:
        fake.sessions["ws2"] = ("K2", "lee")      # lee signs in meanwhile
        return set(keys)

    async def close(websocket: Any, name: str) -> None:
        closed.append(name)

    fake._close = close
    monkeypatch.setattr(tokens, "live_keys", live_keys)
    monkeypatch.setattr(srv, "REVOKE_CHECK", 0.0)

    async def main() -> None:
        task = asyncio.ensure_future(srv.RelkitServer.watch_revocations(fake))  # type: ignore[arg-type]
        for _ in range(20):
            await asyncio.sleep(0.01)
        task.cancel()

    asyncio.run(main())
    assert closed == [] and set(fake.sessions) == {"ws1", "ws2"}
