"""Screen height decides the layout: below 40 rows the document gets the room; too small,
the keys wait.

The reading area is the product. Laid out as at 120x40, an 80x24 terminal gave the
grade definitions 11 of its 24 rows and the document 3-6 (its title and 2-5 lines;
the median Cranfield document is 13 lines), and a browser window of 800x600 (a
terminal of about 88x21) left the assessor one line of the document and the lead none.

Textual's vertical breakpoints give every screen a class from its height:
``-tiny``, ``-short`` (below :data:`SHORT_BELOW` rows), ``-compact`` (below
:data:`TALL_FROM`) and ``-tall``. Below :data:`TALL_FROM` rows:

- the scale is one line, each key with its label
  (:class:`~relkit.judging.tui.legend.Legend`); the definitions are one key away
  (``d``, again: hidden; the help, ``?``, has them too). From :data:`TALL_FROM` rows
  on they are shown in full under the document (``d`` hides them);
- the assessor's topic statement takes at most three lines at 24 rows and up (a
  Cranfield query, the whole topic, fits at 80 columns), one below that, with the
  marker line saying how much more there is: ``t`` shows it all, as on any screen;
  the lead's statement is behind its title bar and marker line;
- the lead's list of pairs is two rows at 24 (10% of the screen; the head line counts
  them all); the assessor's empty banner takes no row.

Rows of the document at 80x24 (its title, a blank line, its text), before and after:
the assessor 3-6 and 15-18 (13-15 lines of text; fewest under a topic statement of
three lines and its marker); the lead 1 (the title) and 14 (12 lines of text, 11 with
the status line) beside two assessors' grades; at 80x16 the assessor 7 lines of text,
the lead 4 (tests/test_tui_short.py, and a look under tmux on Cranfield).

Shorter still (``-tiny``: fewer than three lines of text would be left) the
document gives way to a line saying the window is too small, and the keys that
record a judgment do nothing until it is taller (:func:`waits`): a grade is given
to a document that was read.

The rules are in short.tcss (both apps), judge-short.tcss and lead-short.tcss, after
each app's own sheet in its ``CSS_PATH``.
"""

from __future__ import annotations

from textual.dom import DOMNode

SHORT_BELOW = 24  # rows; below: one line of topic statement, the lead's list 2 rows
TALL_FROM = 40    # rows; from here on the definitions are shown in full (120x40 and up)
# Below these, fewer than three lines of the document would show (the assessor's
# screen has 9 rows besides them, the lead's 12 with two assessors).
JUDGE_TINY_BELOW = 12
LEAD_TINY_BELOW = 15

# For App.VERTICAL_BREAKPOINTS: the class each screen gets from its height.
JUDGE_BREAKPOINTS = [(0, "-tiny"), (JUDGE_TINY_BELOW, "-short"), (SHORT_BELOW, "-compact"),
                     (TALL_FROM, "-tall")]
LEAD_BREAKPOINTS = [(0, "-tiny"), (LEAD_TINY_BELOW, "-short"), (SHORT_BELOW, "-compact"),
                    (TALL_FROM, "-tall")]

# The actions that record something about the document on screen (a flag or a note
# writes a new version of its judgment too).
RECORDING = frozenset({"grade", "skip", "later", "decide", "flag", "note"})


def too_small(rows: int) -> str:
    return (f"The window is too small to read the document: make it at least {rows} rows "
            "tall. The grade keys wait until then.")


def waits(screen: DOMNode, action: str) -> bool:
    """Whether ``action`` is refused now: it records a judgment on a screen too small
    to read the document."""
    return action in RECORDING and screen.has_class("-tiny")
