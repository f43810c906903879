"""Two leaks in Textual 8, plugged from outside: every modal kept its widgets alive.

Each help, note or revise opened and closed left about 2,000 objects alive for the
rest of the session (the widgets' styles and the lines they had drawn). The heap grew
without end, and every full pass of the cycle collector walked it: 5 ms after the first
modal, 130 ms after sixty (bench/tui_bench.py). Both leaks keep dead widgets reachable
from something that lives as long as the app:

- **the footer's keys** (Textualize/textual#6666, open): the footer composes its keys
  again whenever the screen's bindings change (a modal opening or closing) and binds
  each new ``FooterKey`` to its own ``compact`` reactive. The binding is stored on the
  footer and only dropped when ``compact`` changes, which in relkit never happens.
  :class:`Footer` forgets the bindings of removed keys each time it composes, which is
  when the new keys are made;
- **the styles cache's colour pair** (``StylesCache.get_inner_outer``): an
  ``lru_cache(1024)`` on a method written as if it were a class method, so its key is
  the widget's cache itself, and the last 1,024 widgets' caches, with every line they
  drew, stay in it. :func:`plug` replaces it with the same cache keyed on the two
  colours only (the function is pure: it builds two styles from them).

Both read or replace Textual's private parts. tests/test_tui_frames.py counts the live
footer keys and styles caches across modal opens, so an upgrade that moves them fails
there rather than leaking quietly; at run time a moved name switches the plug off with
one warning (:mod:`relkit.metrics.core.borrowed`; tests/test_borrowed.py), and the app
runs as Textual alone would.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from textual.app import ComposeResult
from textual.color import Color
from textual.style import Style
from textual.widgets import Footer as TextualFooter

from relkit.metrics.core.borrowed import give_up

# Where textual.reactive._watch keeps a node's watchers, and the message pump's flags
# of a node on its way out (all private to Textual).
WATCHERS = "__watchers"
CLOSING = ("_closing", "_closed")
FOOTER_PLUG = "the footer's leak plug (closed modals' keys freed)"
CACHE_PLUG = "the styles cache's leak plug (closed modals' widgets freed)"


class Footer(TextualFooter):
    def compose(self) -> ComposeResult:
        if getattr(self, "_relkit_keys", False) and not hasattr(self, WATCHERS):
            # Keys made last time watch ``compact`` here, yet no store: it has moved.
            give_up("textual", f"Footer.{WATCHERS}", FOOTER_PLUG)
        watchers = getattr(self, WATCHERS, None)
        if watchers:
            try:
                for entries in watchers.values():
                    entries[:] = [(node, callback) for node, callback in entries
                                  if not (getattr(node, CLOSING[0])
                                          or getattr(node, CLOSING[1]))]
            except (AttributeError, TypeError, ValueError):  # another shape: left as it is
                give_up("textual", "MessagePump._closing/_closed", FOOTER_PLUG)
        keys = False
        for widget in super().compose():
            keys = keys or type(widget).__name__ == "FooterKey"
            yield widget
        self._relkit_keys = keys


def plug() -> None:
    """Key the styles cache's colour pair on the colours (idempotent; the footer is
    plugged by using :class:`Footer`)."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:
        give_up("textual", "textual._styles_cache.StylesCache", CACHE_PLUG)
        return
    cached: Any = StylesCache.__dict__.get("get_inner_outer")
    if getattr(cached, "relkit_plug", False):
        return  # plugged already
    if not (hasattr(cached, "cache_clear") and hasattr(cached, "__wrapped__")):
        give_up("textual", "an lru_cache on StylesCache.get_inner_outer", CACHE_PLUG)
        return
    compute = cached.__wrapped__  # Textual's own function; its first argument is unused

    @lru_cache(1024)
    def colours(base_background: Color, background: Color) -> tuple[Style, Style]:
        return compute(None, base_background, background)  # type: ignore[no-any-return]

    def get_inner_outer(_: StylesCache, base_background: Color,
                        background: Color) -> tuple[Style, Style]:
        return colours(base_background, background)

    get_inner_outer.relkit_plug = True  # type: ignore[attr-defined]
    cached.cache_clear()  # let go of the widgets' caches it holds already
    setattr(StylesCache, "get_inner_outer", get_inner_outer)  # noqa: B010 (typed as the cache)
