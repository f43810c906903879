"""An option list of one-line rows that builds only the rows it draws.

Textual's ``OptionList`` renders every option when it is mounted (and again on each
resize) to learn its height: with 2,000 judged documents the revise list took
~90 ms of CPU to open, growing with the list. Here every row is one line by
construction (the label has no line break and the list does not wrap), so the
line table is just the indexes, and a row's label is only built, visualised and
rendered when it scrolls into view. Drawing, keys, mouse and the ``OptionSelected``
message are ``OptionList``'s own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from rich.text import Text
from textual.geometry import Size
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from relkit.judging.tui.tcss import default_css
from relkit.metrics.core.borrowed import give_up, missing

WORKAROUND = "the revise list's lazy rows (every row is built when it opens)"
# OptionList's private methods RowList replaces or calls (Textual 8.2).
NEEDS = ("_update_lines", "_get_left_gutter_width", "_scroll_update")


@cache
def lazy_ok() -> bool:
    """Whether Textual still has the private names the lazy rows replace or read (once
    per process; else one warning, and :class:`RowList` is an ``OptionList``)."""
    gone = missing(OptionList, *NEEDS)
    absent = ((f"OptionList.{gone}" if gone else None)
              or ("Option._prompt" if "_prompt" not in vars(Option("")) else None))
    if absent is not None:
        give_up("textual", absent, WORKAROUND)
    return absent is None


def _line_cache_ok(rows: OptionList) -> bool:
    """Whether ``rows`` has Textual's private line table in the shape RowList fills."""
    if missing(getattr(rows, "_line_cache", None), "lines", "index_to_line",
               "heights") is None:
        return True
    give_up("textual", "OptionList._line_cache", WORKAROUND)
    return False


class LazyOption(Option):
    """An option whose prompt is made by ``make`` the first time it is asked for."""

    def __init__(self, make: Callable[[], Text | str], id: str | None = None,
                 disabled: bool = False) -> None:
        if not lazy_ok():   # Textual keeps the prompt elsewhere: made now
            super().__init__(make(), id=id, disabled=disabled)
            self._make: Callable[[], Text | str] | None = None
            return
        super().__init__("", id=id, disabled=disabled)
        self._make = make

    @property
    def prompt(self) -> Text | str:  # type: ignore[override]
        if self._make is not None:
            self._prompt, self._make = self._make(), None
        if not lazy_ok():
            return super().prompt  # type: ignore[return-value]
        return self._prompt  # type: ignore[return-value]


class RowList(OptionList):
    """An ``OptionList`` whose options are all exactly one line (``text-wrap: nowrap``,
    prompts without line breaks; no separators): mounting, resizing and measuring cost
    nothing per row, and only the rows on screen are ever rendered.

    It replaces the two places where ``OptionList`` measures every option
    (``_update_lines`` and ``get_content_height``, the first private to Textual); the
    rest is inherited unchanged. tests/test_tui_frames.py
    (``test_a_rowlist_builds_only_the_rows_on_screen``) checks that a list of 2,000
    rows builds only the rows on screen, when it opens and when it jumps to the end. A
    Textual without the private names (:func:`lazy_ok`) gets ``OptionList``'s own
    measuring, after one warning.
    """

    DEFAULT_CSS = default_css("rowlist.tcss")

    def _update_lines(self) -> None:
        if not (lazy_ok() and _line_cache_ok(self)):
            super()._update_lines()
            return
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        start, n = len(cache.lines), len(self.options)
        if start < n:
            cache.lines.extend((i, 0) for i in range(start, n))
            cache.index_to_line.update(zip(range(start, n), range(start, n), strict=True))
            cache.heights.update(dict.fromkeys(range(start, n), 1))
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        virtual_size = Size(width, n)
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if not lazy_ok():
            return super().get_content_height(container, viewport, width)
        return len(self.options)
