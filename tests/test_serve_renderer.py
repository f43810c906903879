"""xterm.js's renderer in `relkit serve`'s page: textual-serve's (canvas) unless
``RELKIT_SERVE_RENDERER`` chooses WebGL (falling back to canvas) or the DOM renderer.

The choice is a rewrite of textual-serve's bundled script (relkit.judging.serve.page);
these tests check the rewrite finds its text in the installed textual-serve, and that
a browser given each choice draws with that renderer and judges as before.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relkit.judging.serve import page
from relkit.judging.tokens import issue
from serve_helpers import chrome, drawn, grade, judged, page_now, press, served, sign_in
from store_helpers import make_project


def test_the_bundle_gets_each_renderer_choice() -> None:
    shipped = page.bundle_path().read_text(encoding="utf-8")
    loads = ("loadAddon(this.webglAddon)", "loadAddon(this.canvasAddon)")
    assert all(shipped.count(x) == 1 for x in loads)
    for choice in page.RENDERERS:
        got = page.script(choice)
        assert got is not None, f"{choice}: textual-serve's bundle has changed"
        text, digest = got
        # nothing else in the bundle changed: the text around the loads is the shipped one
        m = page.LOADS.search(shipped)
        assert m is not None
        assert text.startswith(shipped[:m.start()]) and text.endswith(shipped[m.end():])
        webgl, canvas = (text.count(x) for x in loads)
        assert (webgl, canvas) == {"canvas": (0, 1), "webgl": (1, 1), "dom": (0, 0)}[choice]
        assert len(digest) == 12


def test_an_unknown_bundle_keeps_textual_serves_script(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "textual.js"
    other.write_text("new Terminal();", encoding="utf-8")
    monkeypatch.setattr(page, "bundle_path", lambda: other)
    page.script.cache_clear()
    try:
        assert page.script("webgl") is None
    finally:
        page.script.cache_clear()


def test_the_renderer_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RELKIT_SERVE_RENDERER", raising=False)
    assert page.renderer() == page.DEFAULT_RENDERER == "canvas"
    monkeypatch.setenv("RELKIT_SERVE_RENDERER", "dom")
    assert page.renderer() == "dom"
    monkeypatch.setenv("RELKIT_SERVE_RENDERER", "ascii-art")
    assert page.renderer() == "canvas"


# What each renderer leaves in the page: the canvas addon's four layered canvases, the
# WebGL addon's one unnamed canvas (and the link layer), the DOM renderer's rows of spans.
PROBE = """
const classes = [...document.querySelectorAll('#terminal canvas')].map(c => c.className);
const rows = document.querySelector('#terminal .xterm-rows');
return {canvases: classes, domRows: rows ? rows.children.length : 0,
        script: [...document.scripts].map(s => s.src).filter(s => s)[0]};
"""


@pytest.mark.slow  # a real Chromium: seconds
@pytest.mark.parametrize("choice", [None, "webgl", "dom"])
def test_a_browser_draws_with_the_chosen_renderer_and_judges(
        choice: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if choice is None:
        monkeypatch.delenv("RELKIT_SERVE_RENDERER", raising=False)
    else:
        monkeypatch.setenv("RELKIT_SERVE_RENDERER", choice)   # the server inherits it
    db = str(tmp_path / "p.db")
    store = make_project(db)
    token = issue(store, "ann")
    store.close()
    with served(db, tmp_path) as server:
        browser = chrome()
        try:
            sign_in(browser, server.url, token)
            drawn(browser, "choose a topic")
            time.sleep(0.5)
            press(browser, "\ue007")
            drawn(browser, "d04")
            time.sleep(0.5)
            since = page_now(browser)
            grade(browser, "2", lambda: len(judged(db, "ann")) == 1, "grade 2 committed")
            drawn(browser, "d05", since)
            got = browser.execute_script(PROBE)
        finally:
            browser.quit()
    assert judged(db, "ann") == [("007", "d04", 2)]
    if choice is None:       # textual-serve's own script: its canvas renderer wins
        assert got["script"].endswith("/static/js/textual.js")
        assert "xterm-text-layer" in got["canvases"]
    else:
        assert "/relkit/textual.js?v=" in got["script"]
    if choice == "webgl":    # this Chromium has WebGL 2 (SwiftShader): the WebGL renderer
        assert "xterm-text-layer" not in got["canvases"] and "" in got["canvases"]
    if choice == "dom":
        assert got["canvases"] == [] and got["domRows"] > 0
