"""The page's script: textual-serve's own bundle, with xterm.js's renderer chosen.

textual-serve's ``static/js/textual.js`` bundles xterm.js with two renderer addons and
loads both, WebGL then canvas; the last one loaded renders, so every browser draws
with the canvas renderer. relkit serves the same bundle with those two loads replaced
by a choice (:data:`RENDERERS`), and nothing else changed: the protocol, the keys and
the websocket are textual-serve's.

- ``auto`` (the default): the WebGL addon when the browser draws WebGL 2 on a graphics
  card, the canvas addon when it has no WebGL 2, when its WebGL is drawn in software
  (SwiftShader, llvmpipe, ...: there WebGL is far slower than the canvas), or when it
  does not say which (a browser that hides the renderer's name, or gives a constant
  in its place, as Firefox resisting fingerprinting does).
- ``webgl``: the WebGL addon whenever the browser has WebGL 2.
- ``canvas``: textual-serve's behaviour; ``dom``: neither addon (xterm.js's built-in
  DOM renderer).

With WebGL, a lost context later (a GPU reset, too many contexts) falls back to the
canvas addon. The page records what it chose as ``<html data-renderer=...>`` (``webgl``
or ``canvas``; nothing with ``dom`` or textual-serve's own script), for a person helping
an assessor and for the tests.

The choice is ``RELKIT_SERVE_RENDERER`` in the server's environment, else
:data:`DEFAULT_RENDERER`; ``canvas`` serves textual-serve's own script. The bundle is
minified: the two loads are found by their text, with the minifier's module names as
wildcards. When a textual-serve release changes that text, the page keeps
textual-serve's own script (and behaviour).
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

RENDERERS = ("auto", "canvas", "webgl", "dom")
# WebGL where a graphics card draws it (xterm.js's fastest renderer there, VS Code's
# default), the canvas elsewhere. Measured in headless Chromium here (no graphics card:
# WebGL on SwiftShader) WebGL paints far later than the canvas, hence the software check;
# a graphics card's figures cannot be measured on this machine (docs/serve.md).
DEFAULT_RENDERER = "auto"

LOADS = re.compile(
    r"this\.webglAddon=new (?P<gl>[\w$]+)\.WebglAddon,this\.terminal\.loadAddon\(this\."
    r"webglAddon\),this\.canvasAddon=new (?P<cv>[\w$]+)\.CanvasAddon,this\.terminal\."
    r"loadAddon\(this\.canvasAddon\),")

# Renderer names of WebGL drawn by the CPU (Chromium's SwiftShader, Mesa's llvmpipe,
# softpipe and lavapipe, Windows' Basic Render Driver).
SOFTWARE = r"/swiftshader|llvmpipe|softpipe|lavapipe|software|basic render/i"
# A renderer name that names nothing: Firefox resisting fingerprinting says "Mozilla",
# WebKit's masked name is "WebKit WebGL". Unknown: the canvas, as with no name.
NAMELESS = r"/^(mozilla|webkit|webkit webgl)$/i"

# Each is an expression (the constructor is one comma sequence); arrow functions keep
# `this`. PROBE leaves `gl` (a WebGL 2 context, or null) and `name` (the unmasked
# renderer's name, or ''); the probe's context is released before the terminal's own.
_MARK = "const mark=r=>{document.documentElement.dataset.renderer=r};"
_CANVAS = ("const canvas=()=>{this.canvasAddon=new CV.CanvasAddon;"
           "this.terminal.loadAddon(this.canvasAddon);mark('canvas')};")
_PROBE = ("let gl=null,name='';try{gl=document.createElement('canvas').getContext('webgl2');"
          "const info=gl&&gl.getExtension('WEBGL_debug_renderer_info');"
          "if(info)name=String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)||'')}catch(e){}"
          "gl?.getExtension('WEBGL_lose_context')?.loseContext();")
_WEBGL = ("this.webglAddon=new GL.WebglAddon;"
          "this.webglAddon.onContextLoss(()=>{this.webglAddon.dispose();canvas()});"
          "try{this.terminal.loadAddon(this.webglAddon);mark('webgl')}catch(e){canvas()}")
CHOICE = {
    "canvas": "(()=>{" + _MARK + _CANVAS + "canvas()})(),",
    "dom": "",
    "webgl": "(()=>{" + _MARK + _CANVAS + _PROBE + "if(!gl){canvas();return}" + _WEBGL + "})(),",
    "auto": ("(()=>{" + _MARK + _CANVAS + _PROBE
             + "if(!gl||!name||" + NAMELESS + ".test(name)||" + SOFTWARE + ".test(name))"
             + "{canvas();return}"
             + _WEBGL + "})(),"),
}


def bundle_path() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).parent / "static" / "js" / "textual.js"


def renderer() -> str:
    """The renderer pages get: ``RELKIT_SERVE_RENDERER`` when set (the benchmark's
    A/B, or a team that wants one), else :data:`DEFAULT_RENDERER`."""
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
