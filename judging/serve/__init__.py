"""``relkit serve``: the judging screens in a web browser, behind sign-in tokens.

:mod:`.server` wraps textual-serve (Textualize's server for Textual apps: xterm.js in
the page, one app process per websocket) with a sign-in page, an Origin check and a
per-address back-off; :mod:`.session` is the process each signed-in browser gets,
running the same :class:`~relkit.judging.tui.app.JudgeApp` (or the lead's app) as
``relkit judge``, for the token's owner only.
"""
