"""The prompt a chat model grades with, and reading a grade back from its answer.

The default prompt follows the structure of UMBRELA's (Upadhyay et al., "UMBRELA: UMbrela
is the (Open-Source Reproduction of the) Bing RELevance Assessor", arXiv:2406.06519, 2024),
itself after Thomas et al., "Large language models can accurately predict searcher
preferences" (SIGIR 2024): the graded scale with a meaning per grade, the query, the
passage, then the steps the model is asked to take (the searcher's intent, how well the
passage matches it, how trustworthy it is) before a final score on a line of its own. The
wording is relkit's own; a published prompt can be used verbatim as a template file.

A template is text with ``str.format`` fields (``{{`` and ``}}`` are literal braces):
:data:`FIELDS` lists them. A field the template names that is not one of them, or a template
without ``{text}`` (the document), is refused with the file (and line), before any
request is made.
"""

from __future__ import annotations

import hashlib
import re
import string
from dataclasses import dataclass
from pathlib import Path

from relkit.judging.autojudge.backend import Answer, Request
from relkit.metrics.core.errors import InputError

FIELDS = {
    "topic": "the topic's id",
    "doc": "the document's id",
    "query": "the topic's title (the query)",
    "title": "the topic's title",
    "description": "the topic's description ('' if none)",
    "narrative": "the topic's narrative ('' if none)",
    "text": "the document's text",
    "scale": "the scale, one line per grade from the highest: 'G = label: definition'",
    "low": "the lowest grade",
    "high": "the highest grade",
}

DEFAULT = """\
You are a search quality rater judging how relevant a passage is to a search query.
Give the passage one integer grade from {low} to {high}:
{scale}

Grade 1 for a passage that is only related to the query. Grade 2 for a passage that \
answers the query but also holds much that is beside it or leaves part of it open. \
Grade 3 for a passage that is entirely about the query and answers it.

Query: {query}
Passage: {text}

Take these steps before you answer.
1. Think about what the searcher behind this query most likely wants.
2. Rate how well the passage's content serves that intent (M).
3. Rate how trustworthy the passage is (T).
4. Weigh M and T and decide the final grade (O).

Answer with the final grade only, on its own line, exactly in this form and with no \
other text: ##final score: G
"""

# "##final score: 2" (UMBRELA's form), any case and spacing; else an answer that is just
# an integer. Anything else is unparsed: never guessed from a number somewhere in a text.
_FINAL = re.compile(r"##\s*final\s+score\s*:?\s*(-?\d+)\b", re.IGNORECASE)
_BARE = re.compile(r"\s*(-?\d+)\s*\.?\s*")


@dataclass(frozen=True)
class Template:
    """A prompt template: its text, where it came from, and its hash (a cache key part)."""

    text: str
    source: str = "<default>"

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]

    @classmethod
    def read(cls, path: Path | None) -> Template:
        """The default (``path`` None) or the file's template, its fields checked."""
        if path is None:
            return cls(DEFAULT)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise InputError(f"{path}: is a directory, not a file") from None
        except UnicodeDecodeError:
            raise InputError(f"{path}: not UTF-8 text") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot open it ({exc.strerror or exc})") from None
        t = cls(text, str(path))
        t.check()
        return t

    def check(self) -> None:
        """Refuse a malformed template or an unknown field (naming the file and line)."""
        if not self.text.strip():
            raise InputError(f"{self.source}: the template is empty")
        named: set[str] = set()
        for n, line in enumerate(self.text.splitlines(), 1):
            try:
                parts = list(string.Formatter().parse(line))
            except ValueError as exc:
                raise InputError(f"{self.source}:{n}: not a template line ({exc}; write "
                                 "{{ and }} for literal braces)") from None
            for _, field, _, _ in parts:
                if field is None:
                    continue
                name = re.split(r"[.\[!:]", field, maxsplit=1)[0]
                if name not in FIELDS:
                    raise InputError(f"{self.source}:{n}: unknown field {{{field}}}; the "
                                     f"fields are {', '.join(FIELDS)}")
                named.add(name)
        if "text" not in named:  # a prompt that never shows the document grades nothing
            raise InputError(f"{self.source}: the template never shows the document: "
                             "put {text} where its text goes")

    def render(self, request: Request, scale: list[tuple[int, str, str]]) -> str:
        """The prompt for ``request``; ``scale`` is (grade, label, definition) per grade."""
        grades = sorted(scale, reverse=True)
        lines = "\n".join(f"{g} = {label}" + (f": {d}" if d else "") for g, label, d in grades)
        return self.text.format(
            topic=request.topic, doc=request.doc, query=request.topic_title,
            title=request.topic_title, description=request.topic_description,
            narrative=request.topic_narrative, text=request.text, scale=lines,
            low=min(g for g, _, _ in scale), high=max(g for g, _, _ in scale))


def parse(raw: str, grades: set[int], tokens_in: int = 0, tokens_out: int = 0) -> Answer:
    """The answer ``raw`` with its grade and parse status (see :data:`..backend.STATUSES`).

    The last ``##final score: G`` line counts (a model may restate the form while
    reasoning); without one, an answer that is only an integer. A grade off the scale
    is ``off_scale``, anything else ``unparsed``: neither is given a grade.
    """
    found = _FINAL.findall(raw)
    value = found[-1] if found else None
    if value is None:
        bare = _BARE.fullmatch(raw)
        value = bare.group(1) if bare else None
    if value is None:
        return Answer(raw, None, "unparsed", tokens_in, tokens_out)
    g = int(value)
    if g not in grades:
        return Answer(raw, None, "off_scale", tokens_in, tokens_out)
    return Answer(raw, g, "ok", tokens_in, tokens_out)
