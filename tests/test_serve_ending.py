"""How a served session ends, and what the browser is told: a token revoked while its
session is open, a session that cannot start, signing out.

A real `relkit serve` process; the browser is a headless Chromium (one at a time) or a
bare aiohttp websocket. What the page says is read from its DOM, what the server did
from its log.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from relkit.judging.store.tokens import issue
from serve_helpers import RELKIT, chrome, served, sign_in, wait_until
from test_serve import project
from test_team_rls import Team, team  # noqa: F401 (the fixture)


def _open_until_closed(url: str, token: str, revoke: list[str],
                       timeout: float = 60.0) -> tuple[int | None, str, bool]:
    """A signed-in websocket: once the app's first screen has arrived, run ``revoke`` (a
    command line) and keep reading until the server closes the connection; the close
    code, its reason, and whether the app's screen had arrived before."""
    import aiohttp

    async def main() -> tuple[int | None, str, bool]:
        ws_url = url.replace("http:", "ws:") + "/ws?width=100&height=30"
        async with aiohttp.ClientSession(cookies={"relkit_token": token}) as session:
            ws = await session.ws_connect(ws_url, headers={"Origin": url})
            seen = b""
            while b"relkit \xc2\xb7" not in seen:
                msg = await asyncio.wait_for(ws.receive(), timeout)
                assert msg.type == aiohttp.WSMsgType.BINARY, msg
                seen += msg.data
            # Read while the command runs: aiohttp's client answers the server's pings
            # only inside receive(), and a revoke slower than the heartbeat (15 s; a
            # loaded machine) made the server drop the silent client (1006, not 4001).
            done = asyncio.ensure_future(asyncio.to_thread(
                subprocess.run, revoke, capture_output=True, text=True, timeout=60))
            while True:   # screens may still come; then the server closes
                msg = await asyncio.wait_for(ws.receive(), timeout)
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                aiohttp.WSMsgType.CLOSING):
                    ran = await done
                    assert ran.returncode == 0, ran.stderr
                    return ws.close_code, str(msg.extra or ""), True

    return asyncio.run(main())


def test_revoking_a_token_closes_its_open_session(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        code, reason, screen = _open_until_closed(
            server.url, toks["bob"], [*RELKIT, "token", "revoke", "bob", "--db", db])
        assert screen and code == 4001, (code, reason, server.log())
        assert "revoked" in reason
        wait_until(lambda: "session of bob ended: its token was revoked" in server.log(),
                   "the log line")
        # ann's session is not touched by bob's revocation: it opens and stays
        from serve_helpers import plain, ws_screen

        got, out = ws_screen(server.url, toks["ann"], origin=server.url)
        assert got == 101 and "assessor ann" in plain(out)


@pytest.mark.slow  # a real Chromium
def test_the_page_says_a_revoked_session_ended_and_signs_out(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, toks["ann"])
            done = subprocess.run([*RELKIT, "token", "revoke", "ann", "--db", db],
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            wait_until(lambda: browser.execute_script(
                "return document.body.classList.contains('-closed')"),
                "the page to show the session ended", 60)
            message = browser.find_element(By.CSS_SELECTOR, ".closed-dialog .message").text
            assert "revoked" in message, message
            link = browser.find_element(By.ID, "signout")
            assert link.is_displayed() and link.text == "Sign out"
            link.click()
            wait_until(lambda: browser.find_elements(By.ID, "token"), "the sign-in page")
            assert "relkit_token" not in {c["name"] for c in browser.get_cookies()}
        finally:
            browser.quit()


@pytest.mark.slow  # a real Chromium
def test_signing_out_after_quitting_clears_the_cookie(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    from serve_helpers import press

    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, toks["ann"])
            assert "relkit_token" in {c["name"] for c in browser.get_cookies()}
            import time

            time.sleep(0.5)
            press(browser, "q")                                   # quit the judging screen
            wait_until(lambda: browser.execute_script(
                "return document.body.classList.contains('-closed')"), "Session ended", 60)
            assert browser.find_element(By.CSS_SELECTOR, ".closed-dialog .message").text \
                == "Session ended."
            browser.find_element(By.ID, "signout").click()
            wait_until(lambda: browser.find_elements(By.ID, "token"), "the sign-in page")
            assert "relkit_token" not in {c["name"] for c in browser.get_cookies()}
            browser.refresh()                                      # stays signed out
            assert browser.find_elements(By.ID, "token")
        finally:
            browser.quit()


@pytest.mark.slow  # a real Chromium
def test_someone_without_a_login_is_told_why_not_left_loading(team: Team,  # noqa: F811
                                                              tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    team.store.assign(["dave"], topics=["007"])         # after team init: no login yet
    token = issue(team.store, "dave")
    with served(team.owner, tmp_path) as server:
        browser = chrome()
        try:
            browser.get(server.url)
            browser.find_element(By.ID, "token").send_keys(token)
            browser.find_element(By.ID, "signin").click()
            wait_until(lambda: browser.execute_script(
                "return document.body.classList.contains('-closed')"),
                "the page to say the session cannot start", 60)
            message = browser.find_element(By.CSS_SELECTOR, ".closed-dialog .message").text
            assert "cannot start" in message and "owner" in message, message
        finally:
            browser.quit()
        log = server.log()
    assert log.count("session of dave refused: dave has no database login yet") == 1, log
    assert "Application failed to start" not in log
