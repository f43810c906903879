"""The document pane: text wrapped once into lines, only the visible lines drawn.

A ``Static`` holding a 3,000-word document re-wraps all of it on every layout
(to learn its height) and again to draw it: about 100 ms per document on a
laptop, paid between the grade key and the next document. Here a document is
wrapped once per width into :class:`~textual.strip.Strip` lines (the *line
API*), and :meth:`DocView.prepare` does that work for the next document while
the assessor is still reading the current one, so the grade key only swaps a
list of lines and draws one screenful.

Text arrives as :class:`rich.text.Text` built by :func:`relkit.judging.tui.safe.safe`;
nothing here parses markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, Group
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


@dataclass(frozen=True)
class Wrapped:
    """A document's lines at one width; ``key`` says which document they show."""

    key: str
    width: int
    lines: list[Strip]


def wrap(console: Console, key: str, title: Text, body: Text, width: int) -> Wrapped:
    """Wrap ``title`` (bold), a blank line and ``body`` to ``width`` cells."""
    width = max(width, 10)
    heading = title.copy()
    heading.stylize("bold")
    options = console.options.update(width=width, min_width=width, max_width=width,
                                     height=None, no_wrap=False, overflow="fold")
    group = Group(heading, Text(""), body) if heading.plain else body
    rows = console.render_lines(group, options, pad=False, new_lines=False)
    return Wrapped(key, width, [Strip(row) for row in rows])


class DocView(ScrollView, can_focus=True):
    """A read-only, scrollable document made of pre-wrapped lines."""

    # The gutter is always reserved: a scrollbar that appears after the text was
    # wrapped would otherwise hide the end of every line.
    DEFAULT_CSS = """
    DocView { height: 1fr; padding: 0 1; scrollbar-gutter: stable; overflow-x: hidden; }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self._source: tuple[str, Text, Text] | None = None
        self._wrapped: Wrapped | None = None

    # -- content ---------------------------------------------------------------------
    @property
    def wrap_width(self) -> int:
        """Cells available for text (0 before the first layout)."""
        return self.scrollable_content_region.width

    def prepare(self, key: str, title: Text, body: Text) -> Wrapped | None:
        """Wrap a document at the current width, ready for :meth:`show`."""
        width = self.wrap_width
        if width <= 0:
            return None
        return wrap(self.app.console, key, title, body, width)

    def show(self, key: str, title: Text, body: Text, ready: Wrapped | None = None) -> None:
        """Show a document from the top; ``ready`` is used if it fits the current width."""
        self._source = (key, title, body)
        if ready is None or ready.key != key or ready.width != self.wrap_width:
            ready = self.prepare(key, title, body)
        self._set(ready)
        self.scroll_to(0, 0, animate=False, immediate=True)

    def _set(self, wrapped: Wrapped | None) -> None:
        self._wrapped = wrapped
        lines = wrapped.lines if wrapped else []
        self.virtual_size = Size(wrapped.width if wrapped else 0, len(lines))
        self.refresh()

    def on_resize(self) -> None:
        if self._source is not None and (self._wrapped is None
                                         or self._wrapped.width != self.wrap_width):
            self._set(self.prepare(*self._source))

    @property
    def plain(self) -> str:
        """The text as shown, one line per row (for tests and copy)."""
        if self._wrapped is None:
            return ""
        return "\n".join(line.text.rstrip() for line in self._wrapped.lines)

    # -- drawing ---------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self.rich_style
        lines = self._wrapped.lines if self._wrapped else []
        row = scroll_y + y
        if row >= len(lines):
            return Strip.blank(width, style)
        return lines[row].apply_style(style).crop_extend(scroll_x, scroll_x + width, style)
