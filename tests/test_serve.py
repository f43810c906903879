"""`relkit serve` in a real headless Chromium: sign in, judge with key presses, resume.

Every check reads the database (what was committed) or the server's log; the browser
is Debian's chromium under Selenium, the server a real `relkit serve` process.
"""

from __future__ import annotations

import time
from pathlib import Path

from serve_helpers import chrome, judged, press, served, sign_in, wait_for_app, wait_until
from store_helpers import make_project

from relkit.judging.tokens import issue

# Each grade key is pressed only after the document has been on screen for longer than
# Settings.min_view (0.2 s): a key typed sooner is dropped by design (typed ahead).
READ = 0.5


def judge_in_browser(browser: object, db: str, who: str, grades: list[str]) -> None:
    """Press each grade key and wait until the database holds one more judgment."""
    for g in grades:
        before = len(judged(db, who))
        time.sleep(READ)
        press(browser, g)
        wait_until(lambda b=before: len(judged(db, who)) == b + 1, f"grade {g} committed")


def project(tmp_path: Path) -> tuple[str, dict[str, str]]:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    from relkit.judging.adjudication import register_leads

    register_leads(store, ["lee"])
    toks = {n: issue(store, n) for n in ("ann", "bob", "lee")}
    store.close()
    return db, toks


def test_ann_judges_five_reloads_and_carries_on(tmp_path: Path) -> None:
    db, toks = project(tmp_path)
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, toks["ann"])
            time.sleep(READ)
            press(browser, "\ue007")                 # Enter: the first topic
            judge_in_browser(browser, db, "ann", ["3", "0", "2", "1", "3"])
            browser.save_screenshot(str(tmp_path / "judging.png"))
            browser.refresh()                          # a reload: a new app process
            wait_for_app(browser)
            time.sleep(READ)
            press(browser, "\ue007")
            judge_in_browser(browser, db, "ann", ["1", "2"])
        finally:
            browser.quit()
    got = judged(db, "ann")
    # ann's topic 007 pools d04-d11, in docno order: the reload resumed at d09, nothing
    # judged twice, nothing lost
    assert got == [("007", "d04", 3), ("007", "d05", 0), ("007", "d06", 2), ("007", "d07", 1),
                   ("007", "d08", 3), ("007", "d09", 1), ("007", "d10", 2)]
    assert judged(db, "bob") == []
    assert "ann (assessor) signed in" in server.log()
