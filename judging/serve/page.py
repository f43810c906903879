"""The page's script: textual-serve's own bundle, with xterm.js's renderer chosen.

textual-serve's ``static/js/textual.js`` bundles xterm.js with two renderer addons and
loads both, WebGL then canvas; the last one loaded renders, so every browser draws
with the canvas renderer. relkit serves the same bundle with those two loads replaced
by a choice (:data:`RENDERERS`), and nothing else changed: the protocol, the keys and
the websocket are textual-serve's. ``webgl`` uses the WebGL addon when the browser
has WebGL 2 and falls back to the canvas addon when it has not, or when the WebGL
context is lost later (a GPU reset, too many contexts); ``dom`` loads neither
(xterm.js's built-in DOM renderer); ``canvas`` is textual-serve's behaviour.

The choice is ``RELKIT_SERVE_RENDERER`` in the server's environment; without it the
page loads textual-serve's own script. The bundle is minified: the two loads are found
by their text, with the minifier's module names as wildcards. When a textual-serve
release changes that text, the page keeps textual-serve's own script (and behaviour).
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

RENDERERS = ("canvas", "webgl", "dom")
# textual-serve's, kept: measured in headless Chromium (software drawing) the WebGL
# renderer paints far later and the DOM one ~2 ms sooner but clips the last column
# (docs/serve.md, bench/serve_bench.py --ab-renderer). The page then loads
# textual-serve's script itself, unchanged.
DEFAULT_RENDERER = "canvas"

LOADS = re.compile(
    r"this\.webglAddon=new (?P<gl>[\w$]+)\.WebglAddon,this\.terminal\.loadAddon\(this\."
    r"webglAddon\),this\.canvasAddon=new (?P<cv>[\w$]+)\.CanvasAddon,this\.terminal\."
    r"loadAddon\(this\.canvasAddon\),")

# An expression (the constructor is one comma sequence); arrow functions keep `this`.
CHOICE = {
    "canvas": "this.canvasAddon=new CV.CanvasAddon,this.terminal.loadAddon(this.canvasAddon),",
    "dom": "",
    "webgl": (
        "(()=>{const canvas=()=>{this.canvasAddon=new CV.CanvasAddon;"
        "this.terminal.loadAddon(this.canvasAddon)};"
        "let gl=null;try{gl=document.createElement('canvas').getContext('webgl2')}"
        "catch(e){}"
        "if(!gl){canvas();return}"
        "gl.getExtension('WEBGL_lose_context')?.loseContext();"
        "this.webglAddon=new GL.WebglAddon;"
        "this.webglAddon.onContextLoss(()=>{this.webglAddon.dispose();canvas()});"
        "try{this.terminal.loadAddon(this.webglAddon)}catch(e){canvas()}})(),"),
}


def bundle_path() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).parent / "static" / "js" / "textual.js"


def renderer() -> str:
    """The renderer pages get: ``RELKIT_SERVE_RENDERER`` when set (the benchmark's
    A/B), else :data:`DEFAULT_RENDERER`."""
    got = os.environ.get("RELKIT_SERVE_RENDERER", DEFAULT_RENDERER)
    return got if got in RENDERERS else DEFAULT_RENDERER


@lru_cache(maxsize=4)
def script(choice: str) -> tuple[str, str] | None:
    """(the bundle with ``choice``'s renderer, a short hash of it), or None when the
    installed bundle does not have the expected text (the page keeps textual-serve's)."""
    text = bundle_path().read_text(encoding="utf-8")
    m = LOADS.search(text)
    if m is None or len(LOADS.findall(text)) != 1:
        return None
    new = CHOICE[choice].replace("GL.", m["gl"] + ".").replace("CV.", m["cv"] + ".")
    out = text[:m.start()] + new + text[m.end():]
    return out, hashlib.sha256(out.encode()).hexdigest()[:12]
