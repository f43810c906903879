"""`relkit serve --pairs` in a real headless Chromium (issue 38): the pairs screen in the
browser, the same keys and the same commit-before-the-next-pair as in the terminal."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relkit.judging.store.tokens import issue
from serve_helpers import chrome, drawn, keep_shot, page_now, press, served, sign_in, wait_until
from store_helpers import make_project

READ = 1.2


def _answers(db: str) -> list[tuple[str, str, str | None]]:
    from relkit.judging.store.assign import Store
    from relkit.judging.store.preferences import PreferenceView

    store = Store.open(db, create=False)
    try:
        return [(p.left, p.right, p.answer) for p in PreferenceView(store, "ann").answers()]
    finally:
        store.close()


@pytest.mark.slow  # a real Chromium: seconds
def test_ann_answers_pairs_in_the_browser(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    token = issue(store, "ann")
    store.close()
    with served(db, tmp_path, "--pairs") as server:
        browser = chrome((1400, 700))  # wide enough for the side-by-side layout
        try:
            sign_in(browser, server.url, token)
            time.sleep(READ)
            press(browser, "\ue007")                 # Enter: the first topic
            drawn(browser, "2 right better")         # the pairs screen's help line
            since = page_now(browser)
            shot = tmp_path / "pairs.png"
            browser.save_screenshot(str(shot))
            keep_shot(shot)
            for n, key in enumerate(("1", "3"), start=1):
                press(browser, key)
                wait_until(lambda n=n: len(_answers(db)) == n, f"answer {n} committed")
                drawn(browser, "Saved:", since)
                since = page_now(browser)
        finally:
            browser.quit()
    got = _answers(db)
    assert sorted(a for _, _, a in got) == ["equal", "left"]
    assert len({frozenset((left, right)) for left, right, _ in got}) == 2
    assert "ann (assessor) signed in" in server.log()
