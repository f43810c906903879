"""The HTML ``relkit serve`` sends: its sign-in page, what it adds to textual-serve's
page (the reason a session ended, a way to sign out, the font served locally) and the
headers of both."""

from __future__ import annotations

import json
import re

from relkit.judging.serve.limits import TOO_BIG

SIGNIN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>relkit judge: sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ background: #0c181f; color: #eee; font: 16px/1.5 system-ui, sans-serif;
       display: flex; align-items: center; justify-content: center; height: 100vh;
       margin: 0; }}
form {{ background: #12232d; padding: 2em 2.5em; border-radius: 6px; width: 30em;
        max-width: calc(100vw - 2em); box-sizing: border-box; }}
input {{ width: 100%; font: 15px monospace; padding: .5em; margin: .5em 0 1em;
        box-sizing: border-box; }}
button {{ padding: .6em 2em; background: #5e0ba7; color: #fff; border: 0; font-size: 15px; }}
.error {{ color: #ff8a80; }}
</style></head>
<body><form method="post" action="/signin">
<h1>relkit judge</h1>
<label for="token">Your sign-in token</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus
       required placeholder="rk_...">
{message}
<button type="submit" id="signin">Sign in</button>
</form></body></html>
"""

FONTS_LINK = re.compile(r'<link\s+rel="stylesheet"\s+href="https://fonts\.googleapis\.com[^>]*>')
FONT_FACE = ("<style>@font-face { font-family: 'Roboto Mono'; "
             "src: url('STATIC" "fonts/RobotoMono-VariableFont_wght.ttf') format('truetype'); "
             "font-weight: 100 700; }</style>")

# textual-serve's page shows "Session ended." when the websocket closes; the server
# closes it with a reason when it ends a session itself (a revoked token, a session
# that cannot start, a refused one, keys too fast), and this shows that reason instead;
# a message too long is closed by aiohttp itself (1009, no reason): the page says why.
# Installed before the page's script, so the page's websocket is one of these.
PAGE_SCRIPT = """<script>
(() => {
  const Real = window.WebSocket;
  function Told(url, protocols) {
    const ws = protocols === undefined ? new Real(url) : new Real(url, protocols);
    ws.addEventListener('close', e => {
      const m = document.querySelector('.closed-dialog .message');
      if (e.reason && m) m.textContent = e.reason;
      else if (e.code === 1009 && m) m.textContent = TOO_BIG;
    });
    return ws;
  }
  Told.prototype = Real.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Told[k] = Real[k];
  window.WebSocket = Told;
})();
</script>
<style>
.closed-dialog .intro { flex-direction: column; padding: 0 2em; box-sizing: border-box; }
#signout { color: rgba(255, 255, 255, 0.8); font-family: "Roboto Mono", menlo, monospace; }
</style>
""".replace("TOO_BIG", json.dumps(TOO_BIG))
# Signing out (the cookie lasts 30 days: on a shared computer the next person would be
# signed in): next to "Restart" on the "Session ended." screen.
RESTART = '<button type="button" onClick="refresh()">Restart</button>'
SIGN_OUT = '<a href="BASE/signout" id="signout">Sign out</a>'

# The judging screen takes keys: never inside another site's frame (clickjacking).
HEADERS = {"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'",
           "Referrer-Policy": "same-origin", "Cache-Control": "no-store"}
