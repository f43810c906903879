"""Short screens: below 24 rows the document gets the room.

A browser window of 800x600 is a terminal of about 88x21. Laid out as at 80x24,
the topic statement (30% of the screen), the scale with its definitions (six
rows) and, for the lead, the list of pairs (20%) left the assessor one line of
the document and the lead none, while the grade keys still worked.

Textual's vertical breakpoints give every screen the class ``-short`` below
:data:`SHORT_BELOW` rows (``-tall`` from there on; the layout at 80x24 and up is
the one the snapshots hold). On a short screen:

- the scale is one line, each key with its label
  (:class:`~relkit.judging.tui.legend.Legend`; the help, ``?``, has the definitions);
- the assessor's topic statement is one line, the lead's only its title, with the
  marker line saying how much more there is: ``t`` shows it all, as on any screen;
- the lead's list of pairs is two rows (the head line counts them all).

Lines of document text on screen, before and after, at 80x16 and at 88x21 (the
browser at 800x600): the assessor 0 and 2, now 7 and 12; the lead 0 and 0, now 4
and 9 (tests/test_tui_short.py).
"""

from __future__ import annotations

SHORT_BELOW = 24  # rows; 80x24, the classic terminal, keeps the full layout

# For App.VERTICAL_BREAKPOINTS: the class each screen gets from its height.
BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]

# Both apps: the legend's two forms (legend.py).
_LEGEND = """
Legend > .brief { display: none; }
Screen.-short Legend > .full { display: none; }
Screen.-short Legend > .brief { display: block; }
"""

# The assessor: the statement shrinks to one line (``t`` still gives it 60%); the
# banner takes no row while it has nothing to say (saving.py: a text is an error or a note).
JUDGE = _LEGEND + """
Screen.-short #banner { display: none; }
Screen.-short #banner.error, Screen.-short #banner.note { display: block; }
Screen.-short TopicPane { max-height: 1; }
Screen.-short TopicPane.expanded { max-height: 60vh; }
"""

# The lead: the title bar stays, the statement goes behind its marker line; the list
# keeps two rows.
LEAD = _LEGEND + """
Screen.-short TopicPane { max-height: 0; }
Screen.-short TopicPane.expanded { max-height: 60vh; }
Screen.-short #pairs { height: 2; min-height: 2; }
"""
