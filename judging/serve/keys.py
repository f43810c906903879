"""How many events the app makes of what a page types: Textual's input parser, mirrored.

The key meter (:mod:`.limits`) charges a session for the work its input makes in its
app process, and that work is one event per what Textual's parser
(``textual._xterm_parser.XTermParser``) makes of the input, not per message or per
escape sequence as the page meant it. Counting every ``ESC [ digits final`` as one
key, as the first meter did, let one 16 KiB message ``ESC [ 1...1 A`` count 1 and
become 16,003 key events, and a bracketed paste holding ESC + 40 characters over and
over count 1 and become 12,540 (issue 33's review). The parser (Textual 8):

- a character other than ESC is one key event, or, inside a bracketed paste, text of
  the paste's one Paste event;
- an ESC starts a sequence that grows by a character until it is recognised (a key, a
  mouse report, a paste's start or end...), or the next ESC comes (then each character
  of it becomes a key event), or it passes :data:`MAX_SEQUENCE` characters (then its
  33 characters become 33 key events). Inside a paste only a paste's end, focus
  reports and in-band resizes are recognised: any other ESC there makes key events of
  up to 33 characters;
- its state (a sequence not finished, a paste not ended) carries over from one
  message to the next.

:class:`KeyCounter` follows this and never counts fewer events than the parser makes
(tests/test_serve_limits.py feeds both the same input, Textual's own key table among
it): a sequence it knows to be one event (:data:`ONE_EVENT`: keys, arrows, mouse
reports) counts 1, any other ESC as every character that can join its sequence, each
ESC inside a paste likewise; it carries the parser's state between messages (a
sequence cut by a message's end is counted there as its characters, and again with
the next message, so splitting a paste's start over two messages hides nothing). An
in-band resize (``ESC [ 48 ; ... t``) would set the app's screen to any size from
the keys, past the limit on resize messages: no browser sends one, and
:meth:`KeyCounter.feed` refuses it.

It looks at each character at most twice, with ``str.find`` and windows of at most
33 characters: linear in the input whatever it holds (a regular expression for
"a paste, up to its end" was quadratic in the number of paste starts without an end).
"""

from __future__ import annotations

import re

ESC = "\x1b"
MAX_SEQUENCE = 32             # textual._xterm_parser._MAX_SEQUENCE_SEARCH_THRESHOLD
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
IN_BAND_RESIZE = "\x1b[48;"   # ... ;height;width;pixel height;pixel width t

# Sequences the parser turns into (at most) one event, and before any of their
# prefixes is recognised as something else: an SGR mouse report; a key with up to two
# numbers (Textual's "extended key" form: one event, without a third, text parameter);
# focus in and out, shift+tab; SS3 arrows and F1-F4.
ONE_EVENT = re.compile(r"\x1b\[<\d{1,4};\d{1,4};\d{1,4}[Mm]"
                       r"|\x1b\[\d{0,3}(?:;\d{1,3})?[u~A-FHP-S]"
                       r"|\x1b\[[IOZ]"
                       r"|\x1bO[A-DFHP-S]")


class KeyCounter:
    """The events one session's app makes of its input so far, message by message
    (at least as many as Textual's parser makes; the parser's state carried over)."""

    def __init__(self) -> None:
        self.paste = False     # inside a bracketed paste
        self.tail = ""         # a sequence the last message's end cut (<= 32 characters)
        self.scanned = 0       # characters looked at: linear in the input (a test's)

    def feed(self, data: str) -> int | None:
        """The events ``data`` (the page's next input) makes at most; None for input no
        browser sends (an in-band resize)."""
        if not data:
            return 0
        data, self.tail = self.tail + data, ""
        n, i, events = len(data), 0, 0
        while i < n:
            j = data.find(ESC, i)
            if j < 0:
                j = n
            self.scanned += j - i
            if not self.paste:
                events += j - i                  # one key a character
            if j == n:
                break
            # the parser's sequence from this ESC: up to the next ESC, at most 33
            nxt = data.find(ESC, j + 1, j + MAX_SEQUENCE + 1)
            stop = nxt if nxt >= 0 else min(n, j + MAX_SEQUENCE + 1)
            seq = data[j:stop]
            self.scanned += len(seq)
            if seq.startswith(IN_BAND_RESIZE) and "t" in seq:
                return None
            cut = nxt < 0 and stop == n and len(seq) <= MAX_SEQUENCE   # may go on
            if self.paste and seq.startswith(PASTE_END):
                self.paste, i = False, j + len(PASTE_END)   # (its Paste: counted at start)
                continue
            if not self.paste and seq.startswith(PASTE_START):
                self.paste, i = True, j + len(PASTE_START)
                events += 1                      # the paste's one Paste event
                continue
            if not self.paste and (m := ONE_EVENT.match(seq)):
                events += 1
                i = j + m.end()
                continue
            events += len(seq)                   # each character a key event, at most
            if cut:                              # (the next message may finish it)
                self.tail = seq
            i = stop
        return events
