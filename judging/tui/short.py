"""Short screens: below 24 rows the document gets the room; too small, the keys wait.

A browser window of 800x600 is a terminal of about 88x21. Laid out as at 80x24,
the topic statement (30% of the screen), the scale with its definitions (six
rows) and, for the lead, the list of pairs (20%) left the assessor one line of
the document and the lead none, while the grade keys still worked.

Textual's vertical breakpoints give every screen a class from its height
(``-tiny``, ``-short`` below :data:`SHORT_BELOW` rows, ``-tall`` from there on; the
layout at 80x24 and up is the one the snapshots hold). On a short screen:

- the scale is one line, each key with its label
  (:class:`~relkit.judging.tui.legend.Legend`; the help, ``?``, has the definitions);
- the assessor's topic statement is one line, the lead's only its title, with the
  marker line saying how much more there is: ``t`` shows it all, as on any screen;
- the lead's list of pairs is two rows (the head line counts them all); the
  assessor's empty banner takes no row.

Lines of document text on screen, before and after, at 80x16 and at 88x21 (the
browser at 800x600): the assessor 0 and 2, now 7 and 12; the lead 0 and 0, now 4
and 9 (tests/test_tui_short.py).

Shorter still (``-tiny``: fewer than three lines of text would be left) the
document gives way to a line saying the window is too small, and the keys that
record a judgment do nothing until it is taller (:func:`waits`): a grade is given
to a document that was read.
"""

from __future__ import annotations

from textual.dom import DOMNode

SHORT_BELOW = 24  # rows; 80x24, the classic terminal, keeps the full layout
# Below these, fewer than three lines of the document would show (the assessor's
# screen has 9 rows besides them, the lead's 12 with two assessors).
JUDGE_TINY_BELOW = 12
LEAD_TINY_BELOW = 15

# For App.VERTICAL_BREAKPOINTS: the class each screen gets from its height.
JUDGE_BREAKPOINTS = [(0, "-tiny"), (JUDGE_TINY_BELOW, "-short"), (SHORT_BELOW, "-tall")]
LEAD_BREAKPOINTS = [(0, "-tiny"), (LEAD_TINY_BELOW, "-short"), (SHORT_BELOW, "-tall")]

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


# Both apps: the legend's two forms (legend.py).
_LEGEND = """
Legend > .brief { display: none; }
Screen.-short Legend > .full { display: none; }
Screen.-short Legend > .brief { display: block; }
"""

# Both apps, too small: the notice instead of the document and the scale. TopicPane and
# the marker have their display set by code (an inline style, which beats any rule):
# they are given no height instead.
_TINY = """
#too-small { display: none; height: 1fr; min-height: 1; content-align: center middle;
             text-style: bold; color: $warning; padding: 0 1; }
Screen.-tiny #too-small { display: block; }
App.-light-mode #too-small { color: $text-primary; }  /* $warning: 1.5 to 1 on light */
Screen.-tiny DocView, Screen.-tiny Legend > Static { display: none; }
Screen.-tiny TopicPane, Screen.-tiny TopicPane.expanded { max-height: 0; }
Screen.-tiny #topic-more { height: 0; }
"""

# The assessor: the statement shrinks to one line (``t`` still gives it 60%); the
# banner takes no row while it has nothing to say (saving.py: a text is an error or a note).
JUDGE = _LEGEND + _TINY + """
Screen.-short #banner { display: none; }
Screen.-short #banner.error, Screen.-short #banner.note { display: block; }
Screen.-short TopicPane { max-height: 1; }
Screen.-short TopicPane.expanded { max-height: 60vh; }
"""

# The lead: the title bar stays, the statement goes behind its marker line; the list
# keeps two rows. ``t`` gives the statement 40% (60% would push its marker line, which
# says how to scroll it and how to go back, off the screen under the lead's 9 other
# rows). Too small: the head line, the pair in the list, the notice.
LEAD = _LEGEND + _TINY + """
Screen.-short TopicPane { max-height: 0; }
Screen.-short TopicPane.expanded { max-height: 40vh; }
Screen.-short #pairs { height: 2; min-height: 2; }
Screen.-tiny #pairs { height: 1; min-height: 1; }
Screen.-tiny #opinions, Screen.-tiny #topic-title { display: none; }
Screen.-tiny #decision { height: 0; }
"""
