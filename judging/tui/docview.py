"""The document pane: text wrapped once into lines, only the visible lines drawn.

A ``Static`` holding a 3,000-word document re-wraps all of it on every layout
(to learn its height) and again to draw it: about 100 ms per document on a
laptop, paid between the grade key and the next document. Here a document is
wrapped once per width into :class:`~textual.strip.Strip` lines (the *line
API*), and :meth:`DocView.prepare` does that work for the next document while
the assessor is still reading the current one, so the grade key only swaps a
list of lines and draws one screenful.

Lines are at most ``reading_width`` cells (default 100) and centred: on a 200-column
terminal a line of text 190 cells long is hard to follow back to its start.

Text arrives as :class:`rich.text.Text` built by :func:`relkit.judging.tui.safe.safe`;
nothing here parses markup. Find-in-document matches (:mod:`relkit.judging.tui.find`)
are drawn as styles over the wrapped lines, so a search never re-wraps the document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console, Group
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from relkit.judging.tui.tcss import default_css

READING_WIDTH = 100  # cells; 0: as wide as the pane
# Drawn over the text's own styles (reverse=False: a highlighted query term is drawn
# reversed, which would swap these colours back).
# Truecolour: Textual maps the named ANSI colours through its own palette.
MATCH = Style(color="#000000", bgcolor="#ffe066", reverse=False)
CURRENT = Style(color="#000000", bgcolor="#ff9f1c", bold=True, underline=True, reverse=False)


@dataclass(frozen=True)
class Wrapped:
    """A document's lines at one width; ``key`` says which document they show.

    ``title`` and ``body`` are the highlighted texts they were made from (kept to wrap
    again after a resize, so the grade key never highlights a document twice)."""

    key: str
    width: int
    lines: list[Strip]
    title: Text
    body: Text
    # Rows as drawn (the pane's style applied, padded and centred to ``drawn[0]``
    # cells with style ``drawn[1]``), made ahead for the first screen so the frame
    # after a grade key only copies them (a Strip operation is a few µs: 3 per row).
    drawn: dict[tuple[int, Style], dict[int, Strip]] = field(
        default_factory=dict, compare=False, repr=False)


def wrap(console: Console, key: str, title: Text, body: Text, width: int) -> Wrapped:
    """Wrap ``title`` (bold), a blank line and ``body`` to ``width`` cells."""
    width = max(width, 10)
    heading = title.copy()
    heading.stylize("bold")
    options = console.options.update(width=width, min_width=width, max_width=width,
                                     height=None, no_wrap=False, overflow="fold")
    group = Group(heading, Text(""), body) if heading.plain else body
    rows = console.render_lines(group, options, pad=False, new_lines=False)
    return Wrapped(key, width, [Strip(row) for row in rows], title, body)


class DocView(ScrollView, can_focus=True):
    """A read-only, scrollable document made of pre-wrapped lines."""

    # The gutter is always reserved (docview.tcss says why).
    DEFAULT_CSS = default_css("docview.tcss")

    def __init__(self, *, reading_width: int = READING_WIDTH,
                 id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.reading_width = reading_width
        self._wrapped: Wrapped | None = None
        self._source: tuple[str, Text, Text] | None = None
        self._style: Style | None = None  # during render_lines
        # Find matches per row: (first cell, end cell, is the current match).
        self.marks: dict[int, list[tuple[int, int, bool]]] = {}
        self._when_drawn: list[Callable[[], object]] = []
        self._refocus = False  # hidden while focused (a screen too small: short.py)

    # -- content ---------------------------------------------------------------------
    @property
    def wrap_width(self) -> int:
        """Cells available for text (0 before the first layout)."""
        width = self.scrollable_content_region.width
        return min(width, self.reading_width) if self.reading_width > 0 else width

    def prepare(self, key: str, title: Text, body: Text) -> Wrapped | None:
        """Wrap a document at the current width, ready for :meth:`show`."""
        width = self.wrap_width
        if width <= 0:
            return None
        wrapped = wrap(self.app.console, key, title, body, width)
        style, pane = self.rich_style, self.scrollable_content_region.width
        for row in range(min(len(wrapped.lines), self.scrollable_content_region.height)):
            _drawn(wrapped, row, pane, style)
        return wrapped

    def show(self, key: str, title: Text, body: Text, ready: Wrapped | None = None) -> None:
        """Show a document from the top; ``ready`` is used if it fits the current width."""
        if ready is None or ready.key != key or ready.width != self.wrap_width:
            ready = self.prepare(key, title, body)
        self._source = (key, title, body)
        self.marks = {}
        self._set(ready)
        self.scroll_to(0, 0, animate=False, immediate=True)

    def _set(self, wrapped: Wrapped | None) -> None:
        self._wrapped = wrapped
        lines = wrapped.lines if wrapped else []
        size = Size(wrapped.width if wrapped else 0, len(lines))
        update = getattr(self, "_scroll_update", None)
        if update is not None and self.size and size != self.virtual_size:
            # A new length of text does not move the pane: the scrollbar is updated
            # alone (it asks for a layout itself if it appears or goes), instead of the
            # screen layout a change of ``virtual_size`` asks for (see quiet.py).
            self.set_reactive(DocView.virtual_size, size)
            update(size)
        else:
            self.virtual_size = size
        self.refresh()

    def on_resize(self) -> None:
        if self._source is not None and (self._wrapped is None
                                         or self._wrapped.width != self.wrap_width):
            self._set(self.prepare(*self._source))
            self.post_message(self.Rewrapped())

    def on_hide(self) -> None:
        # Runs before Widget's own handler, which would give the focus to the next
        # widget: nobody has it meanwhile (the screen's keys work without it) ...
        self._refocus = self.has_focus
        if self._refocus:
            self.screen.set_focus(None)

    def on_show(self) -> None:
        # ... and shown again, the scroll keys are the document's, unless the focus
        # has gone somewhere on purpose meanwhile (t: the topic pane).
        if self._refocus and self.screen.focused is None:
            self.focus()
        self._refocus = False

    class Rewrapped(Message):
        """The lines were wrapped again (a resize): find marks must follow them."""

    @property
    def wrapped(self) -> Wrapped | None:
        """The lines on screen now."""
        return self._wrapped

    @property
    def rows(self) -> list[str]:
        """The text of each wrapped line (trailing spaces dropped)."""
        return [line.text.rstrip() for line in self._wrapped.lines] if self._wrapped else []

    @property
    def plain(self) -> str:
        """The text as shown, one line per row (for tests and copy)."""
        return "\n".join(self.rows)

    def when_drawn(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the lines set now are drawn on the terminal.

        ``call_after_refresh`` is not that: a repaint reaches the screen from the
        widget's own idle handler, possibly after the screen's callbacks have run,
        and only a layout is queued at once. Here the callback is queued when the
        compositor asks this pane for its lines, that is in the frame the screen
        writes next. A pane hidden (a window too small to read it: short.py) waits
        until it is shown and drawn: a document nobody could see is not seen. A pane
        shown but with no room is never asked for lines: its callbacks run after the
        screen's next refresh.
        """
        if self.display and self.content_region.height <= 0:
            self.screen.call_after_refresh(callback)
        else:
            self._when_drawn.append(callback)

    # -- find ------------------------------------------------------------------------
    def mark(self, marks: dict[int, list[tuple[int, int, bool]]]) -> None:
        self.marks = marks
        self.refresh()

    def reveal_row(self, row: int) -> None:
        """Scroll so that ``row`` is on screen (a third of the way down if it was not)."""
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if not top <= row < top + height:
            self.scroll_to(y=max(0, row - height // 3), animate=False, immediate=True)

    # -- drawing ---------------------------------------------------------------------
    def render_lines(self, crop: Region) -> list[Strip]:
        # The style is worked out once per draw, not per line (it walks the ancestors).
        self._style = self.rich_style
        if self._when_drawn:
            # Run after this frame is written (the compositor writes it before any
            # queued message is handled).
            for callback in self._when_drawn:
                self.call_later(callback)
            self._when_drawn = []
        try:
            return super().render_lines(crop)
        finally:
            self._style = None

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self._style or self.rich_style
        wrapped = self._wrapped
        row = scroll_y + y
        if wrapped is None or row >= len(wrapped.lines):
            return Strip.blank(width, style)
        marks = self.marks.get(row)
        if not marks:
            return _drawn(wrapped, row, width, style)
        line = wrapped.lines[row].apply_style(style).crop_extend(0, wrapped.width, style)
        for start, end, current in marks:
            hit = _over(line.crop(start, end), CURRENT if current else MATCH)
            line = Strip.join([line.crop(0, start), hit, line.crop(end)])
        return _centre(line, wrapped.width, width, style)


def _centre(line: Strip, text_width: int, width: int, style: Style) -> Strip:
    left = (width - text_width) // 2  # centred when narrower than the pane
    if left > 0:
        line = Strip.join([Strip.blank(left, style), line])
    return line.crop_extend(0, width, style)


def _drawn(wrapped: Wrapped, row: int, width: int, style: Style) -> Strip:
    """Row ``row`` as drawn in a pane ``width`` cells wide with style ``style`` (cached)."""
    cache = wrapped.drawn.get((width, style))
    if cache is None:
        wrapped.drawn.clear()  # another width or theme: the old rows are not drawn again
        cache = wrapped.drawn[(width, style)] = {}
    line = cache.get(row)
    if line is None:
        line = wrapped.lines[row].apply_style(style).crop_extend(0, wrapped.width, style)
        line = cache[row] = _centre(line, wrapped.width, width, style)
    return line


def _over(strip: Strip, style: Style) -> Strip:
    """``strip`` with ``style`` on top of each segment's own style."""
    return Strip([Segment(text, seg_style + style if seg_style else style, control)
                  for text, seg_style, control in strip], strip.cell_length)
