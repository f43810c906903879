"""Two browser tabs of one person on one document (`relkit serve`, real headless Chromium):
the second save is kept, as the newest version, and its tab says what it replaced.

The tester's report, item 16: ann had D105 open twice, saved 1 in one tab and 3 in the
other, and nothing said the document had been judged meanwhile. Each tab is its own app
process on the same database; the Pilot tests of the same app are in
tests/test_tui_two_sessions.py.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relkit.judging.store.assign import Store
from relkit.judging.store.tokens import issue
from serve_helpers import chrome, drawn, grade, judged, page_now, press, served, sign_in
from store_helpers import make_project

READ = 1.2  # longer than Settings.min_view (1 s): a key typed sooner is dropped by design


@pytest.mark.slow  # two real Chromiums: seconds
def test_two_tabs_of_ann_the_second_save_says_what_it_replaced(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    token = issue(store, "ann")
    store.close()
    with served(db, tmp_path) as server:
        tabs = [chrome(), chrome()]
        try:
            for tab in tabs:
                sign_in(tab, server.url, token)
                time.sleep(READ)
                press(tab, "\ue007")  # Enter: ann's first topic, its first document
                drawn(tab, "d04")
            time.sleep(READ)
            one, two = tabs
            grade(one, "1", lambda: judged(db, "ann") == [("007", "d04", 1)], "tab 1's 1")
            since = page_now(two)  # tab 2 still shows d04 as not judged yet
            grade(two, "3", lambda: judged(db, "ann") == [("007", "d04", 3)], "tab 2's 3")
            drawn(two, "meanwhile", since)
            drawn(two, "both are in its history", since)
        finally:
            for tab in tabs:
                tab.quit()
    view = Store.open(db).assessor("ann")
    assert [(h.grade, h.version, h.source) for h in view.history("007", "d04")] == [
        (1, 1, "tui"), (3, 2, "tui")]
