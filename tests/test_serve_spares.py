"""`relkit serve --spares N`: the app processes started ahead of sign-ins (warm spares).

A real server process and its children read from /proc; bare websockets, no browser.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from relkit.judging.serve import limits
from serve_helpers import plain, served, wait_until, ws_screen
from test_serve import project
from test_serve_abuse import Watch, children, signed_in, threads


def test_spares_are_started_ahead_as_asked_and_0_starts_each_session_at_sign_in(
        tmp_path: Path) -> None:
    """`--spares N` keeps N app processes started ahead (the log says how many are
    warm); with 0 none is, no line claims one, and a sign-in still gets its screen
    (its process started then)."""
    db, toks = project(tmp_path)
    with served(db, tmp_path, "--spares", "0") as server:
        assert server.proc is not None
        assert not children(server.proc.pid)          # nothing started ahead
        code, out = ws_screen(server.url, toks["ann"], origin=server.url)
        assert code == 101 and "assessor ann" in plain(out)
        assert " warm" not in server.log(), server.log()
    (tmp_path / "one").mkdir()
    with served(db, tmp_path / "one", "--spares", "1") as server:
        wait_until(lambda: "1 session warm: a browser" in server.log(), "the spare", 120)
        assert server.proc is not None and len(children(server.proc.pid)) == 1


def test_spares_that_end_while_warming_are_not_called_warm(tmp_path: Path) -> None:
    """A spare that cannot open its database ends before it is ready: the log counts it
    instead of claiming a warm session."""
    import asyncio

    from relkit.judging.serve.warm import WarmPool

    async def main(db: str) -> list[str]:
        said: list[str] = []
        pool = WarmPool(2)
        pool.fill({**os.environ, "RELKIT_DB": db})
        await pool.say_warm(said.append)
        await pool.close()
        return said

    db, _ = project(tmp_path)
    assert asyncio.run(main(db)) == [
        "2 sessions warm: a browser signing in from now on gets its screen without "
        "waiting for Python to start"]
    assert asyncio.run(main(str(tmp_path / "none.db"))) == [
        "2 of 2 warm sessions ended while starting (0 warm): a sign-in without one starts "
        "its own process, about a second later"]


@pytest.mark.slow  # a server of its own with the default spares
def test_two_sign_ins_at_once_each_get_a_spare_started_before(tmp_path: Path) -> None:
    """The default two spares: two people signing in within the refill's 3 s both get
    a process that was warm before they came (none started cold for them)."""
    db, toks = project(tmp_path)
    with served(db, tmp_path, "--spares", str(limits.SPARES)) as server:
        assert limits.SPARES == 2
        w = Watch(server)
        wait_until(lambda: len(w.now()) == 2 and "2 sessions warm" in server.log(),
                   "the warm spares", 60)
        before = set(w.now())

        async def main() -> set[int]:
            a = await signed_in(server.url, toks["ann"])
            b = await signed_in(server.url, toks["bob"])
            # both sessions' processes run the app (a spare has one thread)
            got = {p for p in set(w.now()) if threads(p) > 1}
            for session, ws, _, _ in (a, b):
                await ws.close()
                await session.close()
            return got

        running = asyncio.run(main())
        assert running == before, (running, before, w.log())
