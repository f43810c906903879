"""Updating a line of text without laying the whole screen out again.

``Static.update`` asks for a layout of the screen on every call: Textual cannot
know whether the new text changes the widget's size. After a grade four such
lines change (position, progress, state, banner) and the layout, with the whole
screen drawn again, was most of the time between the commit and the next document
on screen (about half of it on the 2-core development machine). Here the size
is worked out first: text on one row that fits the widget keeps an auto height;
text of the same cell length keeps an auto width. Only then is the layout skipped,
and text that did not change is not touched at all.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

# The plain text each widget last received, and its cell length.
_Shown = tuple[str, int]


def set_text(widget: Static, content: Text | str) -> None:
    """Show ``content`` in ``widget``, with a layout only if its size can change."""
    plain = content.plain if isinstance(content, Text) else content
    before: _Shown | None = getattr(widget, "_relkit_shown", None)
    if before is not None and before[0] == plain and _same_styles(widget.content, content):
        return  # the same text, the same styles: nothing to draw
    cells = cell_len(plain)
    widget._relkit_shown = (plain, cells)  # type: ignore[attr-defined]
    layout = before is None or not _same_size(widget, before, plain, cells)
    try:
        widget.update(content, layout=layout)
    except TypeError:  # a Textual before Static.update(layout=...): always a layout
        widget.update(content)


def _same_styles(old: object, new: Text | str) -> bool:
    if isinstance(new, Text):
        return isinstance(old, Text) and old.spans == new.spans and old.style == new.style
    return old == new


def _same_size(widget: Static, before: _Shown, plain: str, cells: int) -> bool:
    styles = widget.styles
    width = widget.content_size.width
    if width <= 0:
        return False  # not laid out yet
    # No width at all fills the container; only ``auto`` follows the text.
    if (styles.width is not None and styles.width.is_auto
            and (cells != before[1] or "\n" in plain or "\n" in before[0])):
        return False
    if styles.height is not None and styles.height.is_auto:
        # One row before and after: the height stays. (Empty text is no row at all.)
        for text, n in (before, (plain, cells)):
            if not text or "\n" in text or n > width:
                return False
    return True
