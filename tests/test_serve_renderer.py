"""xterm.js's renderer in `relkit serve`'s page: by default (``auto``) WebGL where a
graphics card draws it and the canvas elsewhere; ``RELKIT_SERVE_RENDERER`` chooses
textual-serve's own script (canvas), WebGL (falling back to canvas) or the DOM renderer.

The choice is a rewrite of textual-serve's bundled script (relkit.judging.serve.page);
these tests check the rewrite finds its text in the installed textual-serve, and that
a browser given each choice draws with that renderer and judges as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from relkit.judging.serve import page
from relkit.judging.store.assign import Store
from relkit.judging.store.tokens import issue
from relkit.metrics.core import borrowed
from serve_helpers import Served, chrome, drawn, grade, judged, page_now, press, sign_in, wait_until
from store_helpers import make_project


@pytest.mark.private_api
def test_the_bundle_gets_each_renderer_choice() -> None:
    shipped = page.bundle_path().read_text(encoding="utf-8")
    loads = ("loadAddon(this.webglAddon)", "loadAddon(this.canvasAddon)")
    assert all(shipped.count(x) == 1 for x in loads)
    for choice in page.RENDERERS:
        got = page.script(choice)
        assert got is not None, f"{choice}: textual-serve's bundle has changed"
        text, digest = got
        # nothing else in the bundle changed: the text around the loads and after the
        # terminal's opening is the shipped one
        m, o = page.LOADS.search(shipped), page.OPEN.search(shipped)
        assert m is not None and o is not None and m.end() <= o.start()
        before, after = page.CHOICE[choice]
        assert text.startswith(shipped[:m.start()]) and text.endswith(shipped[o.end():])
        middle = text[m.start():len(text) - (len(shipped) - o.end())]
        assert middle.endswith(shipped[m.end():o.end()] + after.replace(
            "GL.", m["gl"] + ".").replace("CV.", m["cv"] + "."))
        assert len(middle) == len(before.replace("GL.", m["gl"] + ".").replace(
            "CV.", m["cv"] + ".")) + o.end() - m.end() + len(after.replace(
                "GL.", m["gl"] + ".").replace("CV.", m["cv"] + "."))
        webgl, canvas = (text.count(x) for x in loads)
        assert (webgl, canvas) == {"canvas": (0, 1), "webgl": (1, 1), "dom": (0, 0),
                                   "auto": (1, 1)}[choice]
        assert len(digest) == 12


@pytest.mark.private_api
def test_an_unknown_bundle_keeps_textual_serves_script(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "textual.js"
    other.write_text("new Terminal();", encoding="utf-8")
    monkeypatch.setattr(page, "bundle_path", lambda: other)
    monkeypatch.setattr(borrowed, "_given_up", set())
    page.script.cache_clear()
    try:
        with pytest.warns(borrowed.BorrowedInternalWarning,
                          match=r"textual-serve \S+ has no .*renderer") as seen:
            assert page.script("webgl") is None
            assert page.script("auto") is None   # (one warning for all the choices)
        assert len(seen) == 1
    finally:
        page.script.cache_clear()


def test_the_renderer_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RELKIT_SERVE_RENDERER", raising=False)
    assert page.renderer() == page.DEFAULT_RENDERER == "auto"
    monkeypatch.setenv("RELKIT_SERVE_RENDERER", "dom")
    assert page.renderer() == "dom"
    monkeypatch.setenv("RELKIT_SERVE_RENDERER", "ascii-art")
    assert page.renderer() == "auto"


# What each renderer leaves in the page: the canvas addon's four layered canvases, the
# WebGL addon's one unnamed canvas (and the link layer), the DOM renderer's rows of spans.
PROBE = """
const classes = [...document.querySelectorAll('#terminal canvas')].map(c => c.className);
const rows = document.querySelector('#terminal .xterm-rows');
return {canvases: classes, domRows: rows ? rows.children.length : 0,
        script: [...document.scripts].map(s => s.src).filter(s => s)[0],
        chose: document.documentElement.dataset.renderer || null};
"""


# What the page's WebGL probe is told, installed before any script of the page (each a
# block of its own, so that they combine; each sets a flag the tests check, so a spoof
# that did not install fails the test): a graphics card's renderer name (this machine's
# Chromium draws WebGL with SwiftShader), a browser that does not name its renderer, a
# constant name, no WebGL 2 at all, or WebGL 2 for the probe but not for xterm.js's own
# context (its renderer cannot start).
GRAPHICS_CARD = """{
const real = WebGL2RenderingContext.prototype.getParameter;
WebGL2RenderingContext.prototype.getParameter = function (p) {
  if (p === 0x9246) return 'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 ps_5_0)';
  return real.call(this, p);
};
window.__spoofed = (window.__spoofed || 0) + 1;
}"""
NAMELESS = """{
const real = WebGL2RenderingContext.prototype.getExtension;
WebGL2RenderingContext.prototype.getExtension = function (n) {
  return n === 'WEBGL_debug_renderer_info' ? null : real.call(this, n);
};
window.__spoofed = (window.__spoofed || 0) + 1;
}"""
RESISTING = GRAPHICS_CARD.replace("'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 Direct3D11 vs_5_0 "
                                  "ps_5_0)'", "'Mozilla'")
NO_WEBGL2 = """{
const real = HTMLCanvasElement.prototype.getContext;
let calls = 0;
HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
  if (kind === 'webgl2' && (window.__webgl2_after === undefined
                            || ++calls > window.__webgl2_after)) return null;
  return real.call(this, kind, ...rest);
};
window.__spoofed = (window.__spoofed || 0) + 1;
}"""
PROBE_ONLY = "window.__webgl2_after = 1;" + NO_WEBGL2   # the probe's context, not xterm's
# The WebGL addon's context lost for good (as after a GPU reset it cannot recover from).
LOSE = """
const c = [...document.querySelectorAll('#terminal canvas')].find(c => !c.className);
c.getContext('webgl2').getExtension('WEBGL_lose_context').loseContext();
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the module's cases (a start costs seconds of CPU): each case
    loads a new page, with its own page script, and leaves nothing behind
    (:func:`judge_two`): its WebGL contexts, scripts and flags are the new page's."""
    shared = chrome()
    try:
        yield shared
    finally:
        shared.quit()


class Project:
    """A judging project served by ``relkit serve`` with one renderer choice; each case
    judges as an assessor of its own (:meth:`assessor`), so cases share the server and
    still check exactly their own judgments."""

    def __init__(self, db: str, server: Served) -> None:
        self.db, self.server, self.cases = db, server, 0

    def assessor(self) -> tuple[str, str]:
        """A new assessor given topic 007 (d04-d11 in docno order, as ann in
        make_project), and their token."""
        self.cases += 1
        who = f"case{self.cases}"
        store = Store.open(self.db)
        try:
            store.assign([who], topics=["007"], seed=1)
            return who, issue(store, who)
        finally:
            store.close()


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str | None],
                                                                            Project]]:
    """A server per renderer choice (``None``: unset, auto), started on first use with
    ``RELKIT_SERVE_RENDERER`` as given (the server reads it; its pages get the choice)."""
    started: dict[str | None, Project] = {}

    def get(choice: str | None) -> Project:
        if choice not in started:
            d = tmp_path_factory.mktemp(f"renderer-{choice or 'auto'}")
            db = str(d / "p.db")
            make_project(db).close()
            with pytest.MonkeyPatch.context() as env:
                if choice is None:
                    env.delenv("RELKIT_SERVE_RENDERER", raising=False)
                else:
                    env.setenv("RELKIT_SERVE_RENDERER", choice)
                started[choice] = Project(db, Served(db, d / "serve.log"))
        return started[choice]

    try:
        yield get
    finally:
        for project in started.values():
            project.server.stop()


def judge_two(project: Project, browser: Any, page_script: str = "",
              after: Callable[[str, Any], None] | None = None) -> tuple[str, dict[str, Any]]:
    """A new assessor signs in, opens topic 007 and grades d04 2 (d05 comes next); then
    ``after`` runs on the browser; who judged, and what the page draws with."""
    db = project.db
    who, token = project.assessor()
    server = project.server
    added = None
    try:
        if page_script:
            added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                            {"source": page_script})["identifier"]
        sign_in(browser, server.url, token)
        drawn(browser, "Enter opens a topic")
        time.sleep(0.5)
        press(browser, "\ue007")
        drawn(browser, "d04")
        time.sleep(0.5)
        since = page_now(browser)
        grade(browser, "2", lambda: len(judged(db, who)) == 1, "grade 2 committed")
        drawn(browser, "d05", since)
        if after is not None:
            after(who, browser)
        got: dict[str, Any] = browser.execute_script(PROBE)
        got["spoofed"] = browser.execute_script("return window.__spoofed || 0")
        # the size the app started at (the websocket's URL) and the terminal's (the
        # last resize the page sent): one, when the renderer was in place before
        # textual-serve measured the cells
        url, size = browser.execute_script("return [window.__rk.url, window.__rk.size]")
        got["started"] = url.split("width=", 1)[1].split("&", 1)[0]
        got["size"] = str(size["width"]) if size else got["started"]
    finally:
        # the next case's page: without this case's script, its session cookie (the
        # servers share 127.0.0.1, and cookies ignore the port) or its websocket
        if added is not None:
            browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                    {"identifier": added})
        browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
        browser.get("about:blank")
    return who, got


@pytest.mark.slow  # a real Chromium: seconds
@pytest.mark.parametrize("choice", [None, "canvas", "webgl", "dom"])
def test_a_browser_draws_with_the_chosen_renderer_and_judges(
        choice: str | None, projects: Callable[[str | None], Project], browser: Any) -> None:
    project = projects(choice)     # its server's RELKIT_SERVE_RENDERER is the choice
    who, got = judge_two(project, browser)
    assert got["spoofed"] == 0, "another case's page script is still installed"
    assert judged(project.db, who) == [("007", "d04", 2)]
    assert got["started"] == got["size"], got
    if choice == "canvas":   # textual-serve's own script: its canvas renderer wins
        assert got["script"].endswith("/static/js/textual.js")
        assert "xterm-text-layer" in got["canvases"] and got["chose"] is None
    else:
        assert "/relkit/textual.js?v=" in got["script"]
    if choice is None:       # auto: this Chromium's WebGL is SwiftShader: the canvas
        assert "xterm-text-layer" in got["canvases"] and got["chose"] == "canvas"
    if choice == "webgl":    # this Chromium has WebGL 2 (SwiftShader): the WebGL renderer
        assert "xterm-text-layer" not in got["canvases"] and "" in got["canvases"]
        assert got["chose"] == "webgl"
    if choice == "dom":
        assert got["canvases"] == [] and got["domRows"] > 0


@pytest.mark.slow  # a real Chromium: seconds
def test_auto_draws_with_webgl_on_a_graphics_card_and_falls_back_when_it_is_lost(
        projects: Callable[[str | None], Project]) -> None:
    project = projects(None)
    seen: dict[str, Any] = {}

    def lose_then_grade(who: str, browser: Any) -> None:
        seen.update(browser.execute_script(PROBE))
        browser.execute_script(LOSE)
        # xterm.js waits for the context to come back (3 s), then gives up: the canvas
        wait_until(lambda: browser.execute_script(PROBE)["chose"] == "canvas",
                   "the canvas renderer after the WebGL context was lost", 30)
        since = page_now(browser)
        grade(browser, "1", lambda: len(judged(project.db, who)) == 2, "grade 1 committed")
        drawn(browser, "d06", since)

    # a browser of its own: a WebGL context lost for good is the one thing a case does
    # to the browser rather than to its page, so the shared one never sees it
    own = chrome()
    try:
        who, got = judge_two(project, own, GRAPHICS_CARD, lose_then_grade)
    finally:
        own.quit()
    assert got["spoofed"] == 1
    assert seen["chose"] == "webgl" and "xterm-text-layer" not in seen["canvases"]
    assert got["started"] == got["size"], got
    assert seen["domRows"] == 0
    assert got["chose"] == "canvas" and "xterm-text-layer" in got["canvases"]
    assert judged(project.db, who) == [("007", "d04", 2), ("007", "d05", 1)]


@pytest.mark.slow  # a real Chromium: seconds
@pytest.mark.parametrize("case", ["no name", "a constant name", "no WebGL 2",
                                  "WebGL cannot start"])
def test_auto_keeps_the_canvas_when_webgl_is_unknown_or_unavailable(
        case: str, projects: Callable[[str | None], Project], browser: Any) -> None:
    project = projects(None)
    page_script, spoofs = {"no name": (GRAPHICS_CARD + NAMELESS, 2),
                           "a constant name": (RESISTING, 1),
                           "no WebGL 2": (GRAPHICS_CARD + NO_WEBGL2, 2),
                           "WebGL cannot start": (GRAPHICS_CARD + PROBE_ONLY, 2)}[case]
    who, got = judge_two(project, browser, page_script)
    assert got["spoofed"] == spoofs
    assert got["chose"] == "canvas" and "xterm-text-layer" in got["canvases"], got
    assert got["domRows"] == 0, got      # not xterm.js's own fallback, the DOM renderer
    assert judged(project.db, who) == [("007", "d04", 2)]
