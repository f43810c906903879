"""A real `relkit serve` process and real headless Chromium sessions (Selenium) for tests.

Chromium and chromedriver are Debian's (``apt-get install chromium chromium-driver``);
without them the browser tests skip with the reason, unless ``RELKIT_REQUIRE_CHROMIUM``
is set (CI), where that is a failure. The screen is xterm.js drawing on a canvas, so
the tests read what happened from the database, and what is drawn from screenshots
and from the bytes the app sends down the websocket.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

RELKIT = [sys.executable, "-m", "relkit"]
CHROMEDRIVER_NAMES = ("chromedriver",)


def wait_until(check: Callable[[], Any], what: str, timeout: float = 30.0,
               every: float = 0.05) -> Any:
    """Poll ``check`` until it returns something true; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


# The start-up line's address: the local one when a public URL is given too.
LISTENING = re.compile(r"serving the judging screens on (?:\S+ \(listening on )?http://\S*:(\d+)")


class Served:
    """``relkit serve --db DB --port PORT`` in a subprocess; restartable on the same port.

    Without ``port``, the first start is ``--port 0``: the server binds a port the
    system chooses and names it in its start-up line, read here (a port found free
    here and passed on could be taken by another test worker in between); restarts
    then ask for that port again."""

    def __init__(self, db: str, log: Path, port: int | None = None,
                 args: tuple[str, ...] = (), spares: int | None = 1) -> None:
        # One warm spare, not the server's two, unless ``args`` say: most tests sign in
        # once, and each spare never taken was ~1 s of CPU spent for nothing. The
        # benchmarks (spares=None) measure the server as users run it.
        if spares is not None and "--spares" not in args:
            args = (*args, "--spares", str(spares))
        self.db, self.log_path, self.args = db, log, args
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop)
        since = self._log.tell()       # this start's lines (the log is appended to)
        self.proc = subprocess.Popen([*RELKIT, "serve", "--db", self.db, "--port",
                                      str(self.port or 0), *self.args], stdout=self._log,
                                     stderr=self._log, start_new_session=True)

        def up() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"relkit serve exited: {self.log()}")
            if self.port is None:
                with self.log_path.open("rb") as f:
                    f.seek(since)
                    named = LISTENING.search(f.read().decode(errors="replace"))
                if named is None:
                    return False
                self.port = int(named.group(1))
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2):
                return True
            return False

        wait_until(up, "relkit serve to listen")

    def stop(self) -> None:
        """Stop the server and every app process it started (its process group)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None
        self._log.close()

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@contextlib.contextmanager
def served(db: str, tmp_path: Path, *args: str) -> Iterator[Served]:
    """A server (``args``: more options of `relkit serve`), stopped on the way out."""
    s = Served(db, tmp_path / "serve.log", args=args)
    try:
        yield s
    finally:
        s.stop()


def chrome_paths() -> tuple[str, str]:
    exe = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)
    driver = shutil.which("chromedriver")
    if exe is None or driver is None:
        missing = "chromium" if exe is None else "chromium-driver (chromedriver)"
        if os.environ.get("RELKIT_REQUIRE_CHROMIUM"):
            pytest.fail(f"RELKIT_REQUIRE_CHROMIUM is set but {missing} is not installed")
        pytest.skip(f"{missing} not installed (apt-get install chromium chromium-driver)")
    return exe, driver


# Installed in every page before textual-serve's script: records each keydown and each
# websocket message: its text, when the frame in which xterm.js draws it has been
# rendered (``drawn``: the first animation frame's rendering done, not yet on screen) and
# the next animation frame (``painted``: that frame has been shown), so tests wait for a
# screen to be drawn and the benchmark times it.
HOOK = """
window.__rk = {keys: [], msgs: [], sent: [], waiters: []};
document.addEventListener('keydown', e => window.__rk.keys.push(performance.now()), true);
const RealWS = window.WebSocket;
function HookedWS(url, protocols) {
  const ws = protocols === undefined ? new RealWS(url) : new RealWS(url, protocols);
  window.__rk.ws = ws;
  window.__rk.url = String(url);
  ws.addEventListener('open', () => { window.__rk.open = performance.now(); });
  const send = ws.send.bind(ws);
  ws.send = d => {
    if (typeof d === 'string' && d.startsWith('["stdin"')) window.__rk.sent.push(performance.now());
    if (typeof d === 'string' && d.startsWith('["resize"')) window.__rk.size = JSON.parse(d)[1];
    send(d);
  };
  ws.addEventListener('message', ev => {
    const rec = {t: performance.now(), drawn: null, painted: null, text: ''};
    window.__rk.msgs.push(rec);
    const d = ev.data;
    if (typeof d === 'string') rec.text = d;
    else if (d instanceof ArrayBuffer) rec.text = new TextDecoder().decode(d);
    else if (d instanceof Blob) d.text().then(s => { rec.text = s; });
    requestAnimationFrame(() => {
      rec.frame = performance.now();
      // a task posted from the frame's first animation callback runs once that frame's
      // rendering (xterm.js's drawing, style, layout, paint) is done: drawn, not yet shown
      const ch = new MessageChannel();
      ch.port1.onmessage = () => { rec.drawn = performance.now(); };
      ch.port2.postMessage(0);
      requestAnimationFrame(() => {
        rec.painted = performance.now();
        for (const w of window.__rk.waiters.splice(0)) w();
      });
    });
  });
  return ws;
}
HookedWS.prototype = RealWS.prototype;
for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) HookedWS[k] = RealWS[k];
window.WebSocket = HookedWS;
"""

# When the first message at or after page time t whose text has `needle` was painted.
FIND = """
const [t, needle] = arguments;
for (const m of (window.__rk || {msgs: []}).msgs) {
  if (m.t >= t && m.painted !== null && m.text.includes(needle)) return m.painted;
}
return null;
"""


# The same, waited for inside the page (Selenium's async script: one round trip, no
# polling from outside while the key is on its way; the benchmark's way).
WAIT_PAINTED = """
const [t, needle, done] = arguments;
const seek = () => {
  for (const m of window.__rk.msgs) {
    if (m.t >= t && m.painted !== null && m.text.includes(needle)) { done(m.painted); return; }
  }
  window.__rk.waiters.push(seek);
};
seek();
"""

# For the benchmark's breakdown: when that message arrived (before xterm.js drew it),
# and when the frame with xterm.js's drawing of it had been rendered.
ARRIVED = FIND.replace("return m.painted;", "return m.t;")
DRAWN = FIND.replace("return m.painted;", "return m.drawn;")


def page_now(browser: Any) -> float:
    return float(browser.execute_script("return performance.now()"))


def drawn(browser: Any, needle: str, since: float = 0.0, timeout: float = 60.0) -> float:
    """Wait until text ``needle`` has been painted (after page time ``since``); when."""
    return float(wait_until(lambda: browser.execute_script(FIND, since, needle),
                            f"{needle!r} drawn", timeout, every=0.01))


def chrome(size: tuple[int, int] = (1100, 700), flags: tuple[str, ...] = ()) -> Any:
    """A headless Chromium under Selenium (skips without chromium/chromedriver), with
    command-line ``flags`` added (the benchmark's unthrottled browser)."""
    exe, driver = chrome_paths()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = exe
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 "--disable-extensions", f"--window-size={size[0]},{size[1]}", *flags):
        opts.add_argument(flag)
    browser = webdriver.Chrome(options=opts, service=Service(driver))
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    return browser


def sign_in(browser: Any, url: str, token: str, timeout: float = 30.0) -> None:
    """Open the page, sign in, and wait until the app has drawn its first screen."""
    from selenium.webdriver.common.by import By

    browser.get(url)
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.ID, "signin").click()
    wait_for_app(browser, timeout)


def wait_for_app(browser: Any, timeout: float = 30.0) -> None:
    """Until textual-serve's page has received the app's first bytes (``-first-byte``),
    then click into the terminal, as a person would, so that keys go to it."""
    from selenium.webdriver.common.by import By

    wait_until(lambda: browser.execute_script(
        "return document.body.classList.contains('-first-byte')"), "the app's first screen",
        timeout)
    browser.find_element(By.ID, "terminal").click()
    wait_until(lambda: browser.execute_script(
        "return document.activeElement.classList.contains('xterm-helper-textarea')"),
        "the terminal to take the keyboard focus", timeout)


def press(browser: Any, *keys: str) -> None:
    """Real key presses into the page (xterm.js's focused input), one at a time."""
    from selenium.webdriver.common.action_chains import ActionChains

    for key in keys:
        ActionChains(browser).send_keys(key).perform()


def judged(db: str, who: str) -> list[tuple[str, str, int]]:
    """``who``'s current judgments (topic, doc, grade), from the database."""
    from relkit.judging.store.connection import make_engine

    engine = make_engine(db, readonly=True)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(
                "SELECT t.key, d.key, j.grade FROM judgment j "
                "JOIN assessor a ON a.id = j.assessor_id JOIN topic t ON t.id = j.topic_id "
                "JOIN document d ON d.id = j.document_id "
                "WHERE a.name = :who AND j.status = 'judged' ORDER BY j.id"), {"who": who})]
    finally:
        engine.dispose()


def ws_screen(url: str, token: str | None, *, origin: str | None = None, query: str = "",
              until: bytes = b"relkit \xc2\xb7", timeout: float = 20.0,
              keys: tuple[str, ...] = ()) -> tuple[int, bytes]:
    """A raw websocket handshake (aiohttp's client, as textual-serve is aiohttp): the
    HTTP status (101 when upgraded) and the app's screen bytes until ``until`` shows,
    then after each of ``keys`` (sent as the page sends typed text)."""
    import asyncio

    import aiohttp

    async def main() -> tuple[int, bytes]:
        cookies = {"relkit_token": token} if token else {}
        headers = {"Origin": origin} if origin else {}
        ws_url = url.replace("http:", "ws:") + "/ws?width=100&height=30" + query
        async with aiohttp.ClientSession(cookies=cookies) as session:
            try:
                ws = await session.ws_connect(ws_url, headers=headers)
            except aiohttp.WSServerHandshakeError as exc:
                return exc.status, b""
            out = b""
            try:
                while until not in out:
                    msg = await asyncio.wait_for(ws.receive(), timeout)
                    if msg.type != aiohttp.WSMsgType.BINARY:
                        break
                    out += msg.data
                # read a little more (the rest of the screen), after each key
                for key in (None, *keys):
                    if key is not None:
                        await ws.send_json(["stdin", key])
                    with contextlib.suppress(asyncio.TimeoutError):
                        while True:
                            msg = await asyncio.wait_for(ws.receive(), 1.0)
                            if msg.type != aiohttp.WSMsgType.BINARY:
                                break
                            out += msg.data
            finally:
                await ws.close()
            return 101, out

    return asyncio.run(main())


def plain(screen: bytes) -> str:
    """The text of screen bytes: escape sequences (styles, cursor moves) taken out."""
    import re

    return re.sub(r"\x1b\[[0-9;?$<>=]*[a-zA-Z]|\x1b\][^\x07]*\x07", "",
                  screen.decode("utf-8", "replace"))


def keep_shot(shot: Path) -> None:
    """With ``RELKIT_KEEP_SCREENSHOTS=DIR``, copy a screenshot there to look at it."""
    from browser import keep

    keep(shot)


def grade(browser: Any, key: str, committed: Callable[[], bool], what: str,
          timeout: float = 60.0) -> int:
    """Press grade ``key`` until ``committed()``; the number of presses it took.

    As a person would: if the screen says the key was ignored (the document had been
    on screen for less than ``min_view`` when the app read the key; on a loaded machine
    the app can draw later than the page shows), read on and press it again.
    """
    deadline = time.monotonic() + timeout
    presses = 0
    while True:
        since = page_now(browser)
        press(browser, key)
        presses += 1
        while not committed():
            if browser.execute_script(FIND, since, "ignored"):
                time.sleep(0.5)
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.05)
        else:
            return presses
