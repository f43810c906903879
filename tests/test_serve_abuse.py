"""`relkit serve` against one browser's worst (issue 33): a real server, real websockets.

Each case counts the server's app processes (its children: :data:`SPARES` at rest)
and reads their memory from /proc: after the case the count is back to the baseline
and every session's process has ended; no process grew past :data:`BOUND`.
Before these limits, one 3.9 MB keystroke message kept a process running after its
browser had gone (past 2.2 GB, and 6 s after SIGTERM), and 20 tabs on one token
started 20 processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from relkit.judging.serve import limits
from serve_helpers import Served, served, wait_until
from test_serve import project

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads processes from /proc")

Shared = tuple[Served, dict[str, str]]
SPARES = 1                 # warm processes at rest: `relkit serve --spares` (WarmPool)
SPARE = ("--spares", str(SPARES))
BOUND = 400 * 2**20        # bytes: a session's process idles at ~80 MiB


def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def children(pid: int) -> dict[int, int]:
    """The live child processes of ``pid`` and their resident memory (bytes)."""
    out = {}
    for p in filter(str.isdigit, os.listdir("/proc")):
        st = _stat(int(p))
        if st is not None and st[0] != "Z" and int(st[1]) == pid:
            out[int(p)] = int(st[21]) * os.sysconf("SC_PAGE_SIZE")
    return out


class Watch:
    """The server's children: every one seen, the most memory any had."""

    def __init__(self, server: Served) -> None:
        assert server.proc is not None
        self.pid = server.proc.pid
        self.server, self.mark = server, len(server.log())
        self.seen: set[int] = set()
        self.peak = 0

    def now(self) -> dict[int, int]:
        got = children(self.pid)
        self.seen |= set(got)
        self.peak = max([self.peak, *got.values()])
        return got

    def log(self) -> str:
        """The server's log since this watch began (one server serves several cases)."""
        return self.server.log()[self.mark:]

    @contextlib.contextmanager
    def sampling(self, every: float = 0.02) -> Iterator[None]:
        """Look at the children every ``every`` s meanwhile, so that :attr:`seen` holds
        each process that lived longer (a Python process lives ~1 s at least)."""
        import threading

        stop = threading.Event()

        def look() -> None:
            while not stop.wait(every):
                self.now()

        thread = threading.Thread(target=look, daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def at_rest(self) -> bool:
        """Only the spares are left: every other process seen has ended."""
        got = self.now()
        return len(got) == SPARES and not [p for p in self.seen - set(got) if alive(p)]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """One server for the cases that leave it at rest (each checks it is, first)."""
    tmp = tmp_path_factory.mktemp("abuse")
    db, toks = project(tmp)
    with served(db, tmp, *SPARE) as server:
        yield server, toks


def rested(server: Served) -> Watch:
    w = Watch(server)
    wait_until(lambda: len(w.now()) == SPARES, "the warm spares", 60)
    return w


async def signed_in(url: str, token: str, *, first_screen: bool = True) -> Any:
    """A websocket as the page opens it; once the app's first screen has arrived (or,
    ``first_screen=False``, at once); ``(session, websocket, close code or None)``."""
    import aiohttp

    session = aiohttp.ClientSession(cookies={"relkit_token": token})
    ws = await session.ws_connect(url.replace("http:", "ws:") + "/ws?width=100&height=30",
                                  headers={"Origin": url}, max_msg_size=0)
    seen = b""
    while first_screen and b"relkit \xc2\xb7" not in seen:
        msg = await asyncio.wait_for(ws.receive(), 60)
        if msg.type != aiohttp.WSMsgType.BINARY:
            return session, ws, ws.close_code, str(msg.extra or "")
        seen += msg.data
    return session, ws, None, ""


async def closed(ws: Any, timeout: float = 60) -> tuple[int | None, str]:
    """Read until the server closes the websocket: its close code and reason."""
    import aiohttp

    while True:
        msg = await asyncio.wait_for(ws.receive(), timeout)
        if msg.type == aiohttp.WSMsgType.CLOSE:      # (the code sent, as the page gets it)
            return int(msg.data), str(msg.extra or "")
        if msg.type in (aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING,
                        aiohttp.WSMsgType.ERROR):
            return ws.close_code, str(msg.extra or "")


def test_an_oversized_message_ends_the_session_and_its_process(shared: Shared) -> None:
    server, toks = shared
    w = rested(server)

    async def main() -> tuple[int | None, str]:
        session, ws, _, _ = await signed_in(server.url, toks["ann"])
        async with session:
            await ws.send_json(["stdin", "1" * 3_900_000])    # the 3.9 MB
            return await closed(ws)

    code, _ = asyncio.run(main())
    assert code == 1009, (code, w.log())                 # message too big
    wait_until(w.at_rest, "the session's process to end", 60)
    assert w.peak < BOUND
    wait_until(lambda: "session of ann ended: a message over 16 KiB from the page" in w.log(),
               "the log line")


def test_a_key_flood_ends_the_session_with_a_reason(shared: Shared) -> None:
    server, toks = shared
    w = rested(server)

    async def main() -> tuple[int | None, str]:
        session, ws, _, _ = await signed_in(server.url, toks["ann"])
        async with session:
            for _ in range(400):                       # 400 x 100 keys, no pause
                if ws.closed:
                    break
                with contextlib.suppress(ConnectionError):
                    await ws.send_json(["stdin", "1" * 100])
            return await closed(ws)

    code, reason = asyncio.run(main())
    assert (code, reason) == (limits.TOO_FAST_CODE, limits.TOO_FAST), w.log()
    wait_until(w.at_rest, "the session's process to end", 60)
    assert w.peak < BOUND
    wait_until(lambda: "session of ann ended: keys came faster" in w.log(),
               "the log line")
    assert "its process used at most" in w.log()          # memory, per session


def session_pid(w: Watch, before: set[int]) -> int:
    """The app process of the one session open: a spare taken (there before), the one
    running the app (its input and output threads: a spare has one thread)."""
    return int(wait_until(lambda: next((p for p in before & set(w.now()) if threads(p) > 1),
                                       None), "the session's process"))


def threads(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return int(next(x for x in f if x.startswith("Threads:")).split()[1])
    except FileNotFoundError:
        return 0


@pytest.mark.slow  # a process stopped and waited out: 3.5 s
def test_a_stuck_process_ends_when_its_browser_leaves(shared: Shared) -> None:
    server, toks = shared
    w = rested(server)
    before = set(w.now())
    stuck: list[int] = []

    async def main() -> None:
        session, ws, _, _ = await signed_in(server.url, toks["ann"])
        async with session:
            stuck.append(session_pid(w, before))
            os.kill(stuck[0], signal.SIGSTOP)    # it does nothing at all now
            await ws.send_json(["stdin", "1"])
            await ws.close()                      # the browser leaves

    try:
        asyncio.run(main())
        wait_until(lambda: not alive(stuck[0]), "the stuck process to end", 30)
        wait_until(w.at_rest, "the count back to the baseline", 60)
        wait_until(lambda: "its process had not ended" in w.log(), "the log line")
    finally:
        for pid in stuck:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow  # a server and a stopped process waited out: 4 s
def test_sigterm_ends_the_server_and_every_process_even_a_stuck_one(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path, *SPARE) as server:
        w = rested(server)
        before = set(w.now())
        stuck: list[int] = []
        assert server.proc is not None
        proc = server.proc

        async def main() -> None:
            session, ws, _, _ = await signed_in(server.url, toks["ann"])
            async with session:
                stuck.append(session_pid(w, before))
                os.kill(stuck[0], signal.SIGSTOP)
                proc.send_signal(signal.SIGTERM)      # the server alone, not its group
                await asyncio.to_thread(proc.wait, 60)

        try:
            asyncio.run(main())
            wait_until(lambda: not [p for p in w.seen if alive(p)],
                       "every app process to end", 30)
        finally:
            for pid in stuck:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        assert "session of ann ended: the server is stopping" in server.log(), server.log()


@pytest.mark.slow  # a server of its own
def test_a_server_killed_outright_takes_its_sessions_with_it(tmp_path: Path) -> None:
    """SIGKILL leaves the server no say: the kernel ends its sessions (their app would
    run on without input for ever: found orphaned after a test run)."""
    db, toks = project(tmp_path)
    with served(db, tmp_path, *SPARE) as server:
        w = rested(server)
        assert server.proc is not None
        proc = server.proc

        async def main() -> None:
            session, ws, _, _ = await signed_in(server.url, toks["lee"])   # a lead's app
            async with session:
                proc.kill()
                await asyncio.to_thread(proc.wait, 60)

        asyncio.run(main())
        wait_until(lambda: not [p for p in w.seen | set(w.now()) if alive(p)],
                   "every app process to end", 30)


@pytest.mark.slow  # 22 sessions asked for, 2 processes
def test_twenty_tabs_on_one_token_get_two_sessions_the_rest_are_told(shared: Shared) -> None:
    server, toks = shared
    w = rested(server)

    async def main() -> list[tuple[int | None, str]]:
        got = []
        for _ in range(20):
            got.append(await signed_in(server.url, toks["ann"]))
        assert len(w.now()) <= SPARES + limits.PER_TOKEN
        out = [(code, reason) for _, _, code, reason in got]
        for session, ws, _, _ in got:
            await ws.close()
            await session.close()
        return out

    outcomes = asyncio.run(main())
    opened = [o for o in outcomes if o[0] is None]
    refused = [o for o in outcomes if o[0] is not None]
    assert len(opened) == limits.PER_TOKEN, outcomes
    assert set(refused) == {(limits.SIGNED_IN_CODE, limits.SIGNED_IN_ELSEWHERE.format(
        n=limits.PER_TOKEN))}, refused
    wait_until(w.at_rest, "the count back to the baseline", 60)
    assert w.peak < BOUND
    log = w.log()
    assert log.count("refused a session of ann: 2 already open with this token") == 18


@pytest.mark.slow  # 50 websockets, 2 sessions
def test_fifty_idle_websockets_fill_the_server_and_no_more(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path, "--max-sessions", "2", *SPARE) as server:
        w = rested(server)
        people = ["ann", "bob", "lee"]   # 2 open (a spare, one cold), then full
        from aiohttp import WSMsgType

        CLOSE = WSMsgType.CLOSE  # noqa: N806

        async def main() -> list[tuple[int | None, str]]:
            got = [await signed_in(server.url, toks[people[i % 3]], first_screen=False)
                   for i in range(50)]
            # the refused ones are closed at once; the open ones draw, then stay idle
            out = []
            for _, ws, _, _ in got:
                first = await asyncio.wait_for(ws.receive(), 60)
                out.append((int(first.data), str(first.extra)) if first.type == CLOSE
                           else (None, ""))
            assert len(w.now()) <= SPARES + 2
            for session, ws, _, _ in got:
                await ws.close()
                await session.close()
            return out

        outcomes = asyncio.run(main())
        assert sum(code is None for code, _ in outcomes) == 2, outcomes
        assert {o for o in outcomes if o[0] is not None} == {
            (limits.FULL_CODE, limits.FULL.format(n=2))}
        wait_until(w.at_rest, "the count back to the baseline", 60)
        assert w.peak < BOUND
        assert server.log().count("refused a session of ") == 48


@pytest.mark.slow  # a real Chromium
def test_the_page_says_why_a_session_was_refused_or_ended(tmp_path: Path) -> None:
    """What the person sees: the refused tab says they are signed in elsewhere; a
    message over the limit (closed by aiohttp, code 1009, no reason) says so too."""
    import threading

    from selenium.webdriver.common.by import By

    from serve_helpers import chrome, wait_for_app

    db, toks = project(tmp_path)
    with served(db, tmp_path, "--max-sessions-per-token", "1", *SPARE) as server:
        holding, release = threading.Event(), threading.Event()

        async def hold() -> None:            # ann's one session, in another "tab"
            session, ws, _, _ = await signed_in(server.url, toks["ann"])
            async with session:
                holding.set()
                while not release.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(ws.receive(), 0.2)   # (answers pings)
                await ws.close()

        other = threading.Thread(target=asyncio.run, args=(hold(),))
        other.start()
        browser = chrome()

        def message() -> str:
            if not browser.execute_script(
                    "return document.body.classList.contains('-closed')"):
                return ""
            return str(browser.find_element(By.CSS_SELECTOR, ".closed-dialog .message").text)

        try:
            assert holding.wait(60)
            browser.get(server.url)
            browser.find_element(By.ID, "token").send_keys(toks["ann"])
            browser.find_element(By.ID, "signin").click()
            said = wait_until(message, "the page to say why", 60)
            assert said == limits.SIGNED_IN_ELSEWHERE.format(n=1), said
            release.set()
            other.join(60)
            wait_until(lambda: "session of ann ended" in server.log(), "the other's end", 60)
            browser.refresh()                                  # Restart
            wait_for_app(browser, 60)
            browser.execute_script("window.__rk.ws.send(JSON.stringify(['stdin', "
                                   "'x'.repeat(arguments[0])]))", limits.MAX_MESSAGE + 1)
            said = wait_until(message, "the page to say why", 60)
            assert said == limits.TOO_BIG, said
        finally:
            release.set()
            browser.quit()
            other.join(60)


@pytest.mark.slow  # a server of its own, ~START_BURST sessions asked for
def test_a_connect_and_close_loop_gets_its_starts_then_waits(tmp_path: Path) -> None:
    """Each websocket is a process (cold once the spares are used: ~1 s of CPU): a
    loop that connects and closes at once gets :data:`~limits.START_BURST` starts (and
    one every START_EVERY s), then is told to wait; a browser gone before its process
    started gets none started cold."""
    db, toks = project(tmp_path)
    with served(db, tmp_path, *SPARE) as server:
        w = rested(server)

        async def main() -> tuple[int, tuple[int | None, str]]:
            for n in range(3 * limits.START_BURST):
                session, ws, _, _ = await signed_in(server.url, toks["ann"],
                                                    first_screen=False)
                async with session:
                    await ws.close()      # at once (the server's own close, if first)
                    if ws.close_code == limits.STARTS_CODE:
                        return n, (ws.close_code, "")
            return n, (None, "")

        with w.sampling():
            accepted, (code, _) = asyncio.run(main())
        assert code == limits.STARTS_CODE and accepted >= limits.START_BURST, w.log()
        wait_until(w.at_rest, "the count back to the baseline", 60)
        log = w.log()
        assert log.count("refused a session of ann: more than") == 1
        assert "session of ann not started: its browser left" in log, log
        assert "ended on an error" not in log
        # the spares handed out, their refills, and any started cold before its
        # browser's close was read: fewer processes than sessions accepted
        assert len(w.seen) < SPARES + accepted, (len(w.seen), log)
