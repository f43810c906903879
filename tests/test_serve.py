"""`relkit serve` in a real headless Chromium: sign in, judge with key presses, resume.

Every check reads the database (what was committed) or the server's log; the browser
is Debian's chromium under Selenium, the server a real `relkit serve` process.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relkit.judging.store.tokens import issue
from serve_helpers import (
    chrome,
    drawn,
    grade,
    judged,
    keep_shot,
    page_now,
    plain,
    press,
    served,
    sign_in,
    wait_for_app,
    wait_until,
    ws_screen,
)
from store_helpers import make_project

# Each grade key is pressed only after the document has been on screen for longer than
# Settings.min_view (1 s): a key typed sooner is dropped by design (typed ahead).
READ = 1.2


def judge_in_browser(browser: object, db: str, who: str, grades: list[str],
                     docs: list[str]) -> None:
    """For each document: wait until it is drawn, read, press its grade key, and wait
    until the database holds one more judgment."""
    since = 0.0
    for g, doc in zip(grades, docs, strict=True):
        drawn(browser, doc, since)
        before = len(judged(db, who))
        time.sleep(READ)
        since = page_now(browser)
        grade(browser, g, lambda b=before: len(judged(db, who)) == b + 1,
              f"grade {g} committed")


def project(tmp_path: Path) -> tuple[str, dict[str, str]]:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    from relkit.judging.store.adjudication import register_leads

    register_leads(store, ["lee"])
    toks = {n: issue(store, n) for n in ("ann", "bob", "lee")}
    store.close()
    return db, toks


@pytest.mark.slow  # a real Chromium: seconds
def test_ann_judges_five_reloads_and_carries_on(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, toks["ann"])
            time.sleep(READ)
            press(browser, "\ue007")                 # Enter: the first topic
            judge_in_browser(browser, db, "ann", ["3", "0", "2", "1", "3"],
                             ["d04", "d05", "d06", "d07", "d08"])
            shot = tmp_path / "judging.png"
            browser.save_screenshot(str(shot))
            keep_shot(shot)
            browser.refresh()                          # a reload: a new app process
            wait_for_app(browser)
            time.sleep(READ)
            press(browser, "\ue007")
            judge_in_browser(browser, db, "ann", ["1", "2"], ["d09", "d10"])
        finally:
            browser.quit()
    got = judged(db, "ann")
    # ann's topic 007 pools d04-d11, in docno order: the reload resumed at d09, nothing
    # judged twice, nothing lost
    assert got == [("007", "d04", 3), ("007", "d05", 0), ("007", "d06", 2), ("007", "d07", 1),
                   ("007", "d08", 3), ("007", "d09", 1), ("007", "d10", 2)]
    assert judged(db, "bob") == []
    assert "ann (assessor) signed in" in server.log()


def test_a_token_opens_only_its_owners_screen(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        # ann's token, whatever the request asks for: ann's assignments, never the lead's
        code, out = ws_screen(server.url, toks["ann"], origin=server.url,
                              query="&assessor=bob&lead=lee&role=lead")
        text = plain(out)
        assert code == 101
        assert "assessor ann" in text and "bob" not in text and "lead" not in text
        assert "bond films" in text and "solar power" not in text   # bob's topic
        code, out = ws_screen(server.url, toks["bob"], origin=server.url)
        assert code == 101 and "assessor bob" in plain(out) and "solar power" in plain(out)
        code, out = ws_screen(server.url, toks["lee"], origin=server.url, until=b"lead lee")
        assert code == 101 and "relkit · lead lee" in plain(out)


def test_forged_origin_and_bad_tokens_are_refused(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        # a page on another site opening a websocket to this one, with ann's cookie
        assert ws_screen(server.url, toks["ann"], origin="http://evil.example")[0] == 403
        assert ws_screen(server.url, toks["ann"], origin="null")[0] == 403
        assert ws_screen(server.url, None, origin=server.url)[0] == 403
        wrong = toks["ann"][:-4] + "0000"
        assert ws_screen(server.url, wrong, origin=server.url)[0] == 403
        assert "refused a websocket from 127.0.0.1: Origin http://evil.example" in server.log()
        assert "refused websocket from 127.0.0.1: wrong secret token, a token of ann" \
            in server.log()
        # revoked: refused from the next connection on, and logged with its owner
        from relkit.judging.store.assign import Store
        from relkit.judging.store.tokens import revoke

        store = Store.open(db, create=False)
        revoke(store, "bob")
        store.close()
        assert ws_screen(server.url, toks["bob"], origin=server.url)[0] == 403
        assert "revoked token, a token of bob" in server.log()
        # a sign-in posted from another site is refused before the token is looked at
        import urllib.error
        import urllib.request

        req = urllib.request.Request(server.url + "/signin", data=b"token=x",
                                     headers={"Origin": "http://evil.example"})
        try:
            urllib.request.urlopen(req)
            raise AssertionError("a cross-site sign-in was accepted")
        except urllib.error.HTTPError as exc:
            assert exc.code == 403


@pytest.mark.slow  # a real Chromium: seconds
def test_server_restart_mid_session_ann_carries_on(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, toks["ann"])
            time.sleep(READ)
            press(browser, "\ue007")
            judge_in_browser(browser, db, "ann", ["2", "2"], ["d04", "d05"])
            server.restart()                   # every session's process goes with it
            from selenium.webdriver.common.by import By

            # textual-serve's page says "Session ended." with a Restart button
            wait_until(lambda: browser.execute_script(
                "return document.body.classList.contains('-closed')"), "the page to notice")
            browser.find_element(By.CSS_SELECTOR, ".closed-dialog button").click()
            wait_for_app(browser)              # signed in still: the token is in the cookie
            time.sleep(READ)
            press(browser, "\ue007")
            judge_in_browser(browser, db, "ann", ["1", "0"], ["d06", "d07"])
        finally:
            browser.quit()
    assert judged(db, "ann") == [("007", "d04", 2), ("007", "d05", 2), ("007", "d06", 1),
                                 ("007", "d07", 0)]


@pytest.mark.slow  # a real Chromium: seconds
def test_hostile_document_text_stays_literal_in_the_browser(tmp_path: Path) -> None:
    # tests/test_tui_text.py's project: a title full of escape codes, bidi overrides
    from test_tui_text import ESCAPED_TITLE, RLO
    from test_tui_text import project as hostile

    store = hostile(tmp_path)
    db = str(store.engine.url.database)
    token = issue(store, "ann")
    store.close()
    with served(db, tmp_path) as server:
        code, out = ws_screen(server.url, token, origin=server.url, keys=("\r",))
        assert code == 101
        text = plain(out)
        # the document's own escape codes never reach the browser's terminal: the
        # title's underline+bold+red sequence is not in the bytes, its text is
        assert ESCAPED_TITLE[:15].encode() not in out and "heat pump efficiency" in text
        assert RLO not in out.decode() and "<U+202E>0001 ot 01<U+202E>" in text
        browser = chrome()
        try:
            sign_in(browser, server.url, token)
            time.sleep(READ)
            press(browser, "\ue007")
            time.sleep(1.5)
            shot = tmp_path / "hostile.png"
            browser.save_screenshot(str(shot))
            keep_shot(shot)
        finally:
            browser.quit()


def test_the_page_loads_nothing_from_other_sites(tmp_path: Path) -> None:
    # textual-serve's page asks Google Fonts for its font: that tells Google who judges,
    # and offline it held the first screen back ~2.5 s. The page uses the shipped copy.
    import re
    import urllib.request

    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        req = urllib.request.Request(server.url + "/",
                                     headers={"Cookie": f"relkit_token={toks['ann']}"})
        page = urllib.request.urlopen(req).read().decode()
    assert "textual.js" in page and "RobotoMono" in page
    assert [u for u in re.findall(r"""(?:src|href)=["']([^"']+)""", page)
            if not u.startswith(server.url)] == []


def test_app_processes_draw_at_relkits_frame_rate(tmp_path: Path) -> None:
    # Textual draws a change on the next tick of a timer at TEXTUAL_FPS; textual-serve
    # sets 60, so a grade's next document waited up to 16.7 ms for it before xterm.js
    # waited for the browser's frame too. The warm spares the server starts run faster.
    import os

    from relkit.judging.serve.warm import SERVED_FPS

    db, _ = project(tmp_path)
    with served(db, tmp_path) as server:
        wait_until(lambda: "warm: a browser" in server.log(), "warm spares", 120)
        rates = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if b"relkit.judging.serve.session" not in Path(
                        f"/proc/{pid}/cmdline").read_bytes():
                    continue
                env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if f"RELKIT_DB={db}".encode() in env:
                rates += [e.split(b"=", 1)[1] for e in env if e.startswith(b"TEXTUAL_FPS=")]
    assert SERVED_FPS > 60
    assert rates and set(rates) == {str(SERVED_FPS).encode()}
