"""Untrusted document text, made safe to put on screen.

Document and topic text come from outside (a crawl, a corpus file): it may
contain Rich/Textual markup (``[bold]``, ``[link=...]``), ANSI escape
sequences, control characters or bidirectional overrides. None of it may be interpreted. So text is
never passed where markup is parsed: it becomes a :class:`rich.text.Text`
built from the plain string (which Rich does not parse), after escape
sequences and control characters are removed and bidirectional overrides are
replaced by a visible mark. Query terms are highlighted by
styling spans of that ``Text``, never by inserting markup.

A query term marks every form of its word: words are compared by the analyzer the
baseline systems index with (:class:`relkit.corpora.systems.analyzer.Analyzer`, its
default Porter stemmer), so "heated" marks "heat" and "heating", "models" marks
"model", and a term is a whole word, never a prefix ("heat" does not mark "heathen").
The query's stop words are the analyzer's too (its English list); words shorter than
three letters are not marked either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text

from relkit.corpora.systems.analyzer import TOKEN, Analyzer
from relkit.corpora.systems.stopwords import ENGLISH

# CSI / OSC / other ESC sequences, then any C0/C1 control character but \n and \t.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069): a
# terminal that honours them draws the text after them reversed or moved ("Trojan
# Source"), so what the assessor reads is not what the document says. They are shown
# as a visible, inert mark instead. (The implicit marks LRM/RLM stay: real right-to-left
# text needs them and they cannot reorder what follows.)
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def clean(text: str | None) -> str:
    """``text`` without escape sequences and control characters (newlines and tabs kept),
    bidirectional overrides shown as ``<U+202E>``."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", _ANSI.sub("", text))
    return _BIDI.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


def cut(text: str | None, width: int, pad: bool = True) -> Text:
    """``text`` made safe, then cut to ``width`` cells with "…" (padded to ``width``).

    Cleaning comes first: cutting raw text could split an escape sequence and leave
    its tail on screen, and would count invisible bytes as width.
    """
    out = safe(text.replace("\n", " ") if text else "")
    out.truncate(width, overflow="ellipsis", pad=pad)
    return out


def _analyzer() -> Analyzer:
    # The systems' default analyzer, without its stop list (see the module's docstring).
    return Analyzer(stopwords=False)


def query_terms(*texts: str | None) -> list[str]:
    """The terms worth highlighting: the stems of the words of three letters or more
    that are not stop words, as the baseline systems' analyzer makes them."""
    words: list[str] = []
    for t in texts:
        for w in TOKEN.findall(clean(t).lower()):
            if len(w) >= 3 and w not in ENGLISH and w not in words:
                words.append(w)
    return list(dict.fromkeys(_analyzer().stems(words)))


def safe(text: str | None, terms: Iterable[str] = (), style: str = "bold reverse") -> Text:
    """A ``Text`` showing ``text`` literally, with every word whose stem is one of
    ``terms`` (:func:`query_terms`) highlighted."""
    out = Text(clean(text))
    wanted = frozenset(t for t in terms if t)
    if wanted and out.plain:
        # Each distinct word is stemmed once (a text repeats its words), then the forms
        # whose stem is a term are marked in one pass, as whole words.
        words = list(set(TOKEN.findall(out.plain.lower())))
        forms = [w for w, t in zip(words, _analyzer().stems(words), strict=True)
                 if t in wanted]
        if forms:
            forms.sort(key=len, reverse=True)  # the longest form first at one place
            out.highlight_regex(re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, forms))
                                           + r")(?![^\W_])", re.IGNORECASE), style)
    return out
