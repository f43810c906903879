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
  in its place, as Firefox resisting fingerprinting does). Probed once per tab.
- ``webgl``: the WebGL addon whenever the browser has WebGL 2.
- ``canvas``: textual-serve's behaviour; ``dom``: neither addon (xterm.js's built-in
  DOM renderer).

With WebGL, a renderer that cannot start, or a context lost later (a GPU reset, too
many contexts), falls back to the canvas addon. The page records what it draws with as
``<html data-renderer=...>`` (``webgl`` or ``canvas``; nothing with ``dom`` or
textual-serve's own script), for a person helping an assessor and for the tests.

The choice is ``RELKIT_SERVE_RENDERER`` in the server's environment, else
:data:`DEFAULT_RENDERER`; ``canvas`` serves textual-serve's own script. The bundle is
minified: the two loads are found by their text, with the minifier's module names as
wildcards. When a textual-serve release changes that text, the page keeps
textual-serve's own script (and behaviour), after one warning
(:mod:`relkit.metrics.core.borrowed`).
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
# WebKit's masked name is "WebKit WebGL", Firefox's sanitised unknown card "Generic
# Renderer, or similar". Unknown: the canvas, as with no name.
NAMELESS = r"/^(mozilla|webkit|webkit webgl)$|generic renderer/i"

# Each choice is two expressions (the constructor is one comma sequence): one in place
# of the two loads, one after the terminal is opened. Arrow functions keep `this`;
# relkit's names start with rk_ (the minifier's are one or two letters).
# The probe gives the WebGL 2 renderer's name ('' when the browser does not say it, '-'
# without WebGL 2; the unmasked name, else the masked one as Firefox may come to
# offer), once per tab (sessionStorage: a context costs 20-50 ms in software), and
# releases its context before the terminal makes its own.
_MARK = "this.rk_mark=r=>{document.documentElement.dataset.renderer=r};"
_CANVAS = ("this.rk_canvas=()=>{this.canvasAddon=new CV.CanvasAddon;"
           "this.terminal.loadAddon(this.canvasAddon);this.rk_mark('canvas')};")
_PROBE = ("const rk_probe=()=>{let g=null,n='-';try{g=document.createElement('canvas')"
          ".getContext('webgl2');if(g){const i=g.getExtension('WEBGL_debug_renderer_info');"
          "n=String(g.getParameter(i?i.UNMASKED_RENDERER_WEBGL:g.RENDERER)||'')}}catch(e){}"
          "finally{try{g?.getExtension('WEBGL_lose_context')?.loseContext()}catch(e){}}"
          "return n};"
          "let rk_name=null;try{rk_name=sessionStorage.getItem('relkit-webgl')}catch(e){}"
          "if(rk_name===null){rk_name=rk_probe();"
          "try{sessionStorage.setItem('relkit-webgl',rk_name)}catch(e){}}")
# textual-serve loads the addons before it opens the terminal, and xterm.js builds an
# addon's renderer only when it opens, where a failure falls back, silently, to its DOM
# renderer. Loaded just after open (before textual-serve measures the cells and tells
# the server the terminal's size), the WebGL addon builds its renderer in loadAddon, so
# a failure is caught here and the canvas loaded instead; and the page says webgl only
# once it draws with it.
_WEBGL = ("this.rk_webgl&&(()=>{try{this.webglAddon=new GL.WebglAddon;"
          "this.webglAddon.onContextLoss(()=>{this.webglAddon.dispose();this.rk_canvas()});"
          "this.terminal.loadAddon(this.webglAddon);this.rk_mark('webgl')}catch(e){"
          "try{this.webglAddon.dispose()}catch(x){}this.rk_canvas()}})(),")
_SOFT = ("rk_name==='-'||!rk_name||" + NAMELESS + ".test(rk_name)||" + SOFTWARE
         + ".test(rk_name)")
CHOICE = {
    "canvas": ("(()=>{" + _MARK + _CANVAS + "this.rk_canvas()})(),", ""),
    "dom": ("", ""),
    "webgl": ("(()=>{" + _MARK + _CANVAS + _PROBE
              + "if(rk_name==='-')this.rk_canvas();else this.rk_webgl=true})(),", _WEBGL),
    "auto": ("(()=>{" + _MARK + _CANVAS + _PROBE
             + "if(" + _SOFT + ")this.rk_canvas();else this.rk_webgl=true})(),", _WEBGL),
}

OPEN = re.compile(r"this\.terminal\.open\([\w$]+\),")


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
    m, o = LOADS.search(text), OPEN.search(text)
    if (m is None or o is None or len(LOADS.findall(text)) != 1
            or len(OPEN.findall(text)) != 1 or o.start() < m.end()):
        from relkit.metrics.core.borrowed import give_up

        give_up("textual-serve", "the addon loads relkit rewrites in static/js/textual.js",
                "the choice of xterm.js renderer (textual-serve's own script is served)")
        return None
    before, after = (x.replace("GL.", m["gl"] + ".").replace("CV.", m["cv"] + ".")
                     for x in CHOICE[choice])
    out = (text[:m.start()] + before + text[m.end():o.end()] + after + text[o.end():])
    return out, hashlib.sha256(out.encode()).hexdigest()[:12]
