"""The grading backend protocol: given a topic and a document, return an :class:`Answer`.

A backend is anything with ``name`` (a string that keys its answers in the cache: a
changed backend never reuses another's answers) and ``grade(request)``; a backend whose
answer depends on more than its name (the chat backend: the prompt it sends) also has
``cache_key(request)``, the key of that request's answer. The
HTTP chat-completions client (:class:`relkit.judging.autojudge.chat.ChatBackend`) is one;
an offline one (a local classifier) needs only::

    class MyJudge:
        name = "local:my-classifier"

        def grade(self, request: Request) -> Answer:
            g = ...  # from request.topic_title, request.text...
            return Answer(raw=str(g), grade=g, status="ok")

``grade`` is called from worker threads (up to ``--concurrency`` at once): a backend
that is not thread-safe takes a lock. It returns an answer (parsed or not: an answer
that does not parse is still a paid answer and is stored) or raises
:class:`BackendError` when no answer came (nothing is stored; a re-run asks again).
``fatal=True`` stops the whole run (a refused key, an unknown model): asking again for
other pairs would fail the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from relkit.metrics.core.errors import RelkitError

# The parse status of an answer: "ok" (a grade on the scale), "unparsed" (no grade found
# in the text) or "off_scale" (a grade the scale does not have). Only "ok" answers are
# imported as judgments; the others are counted and listed, never guessed.
STATUSES = ("ok", "unparsed", "off_scale")


@dataclass(frozen=True)
class Request:
    """One pair to grade, with the text a prompt may show."""

    topic: str
    doc: str
    topic_title: str
    topic_description: str
    topic_narrative: str
    text: str


@dataclass(frozen=True)
class Answer:
    """A backend's answer: the raw text, the grade (None unless ``status == "ok"``), and
    the tokens it cost (0 when the backend does not count tokens)."""

    raw: str
    grade: int | None
    status: str
    tokens_in: int = 0
    tokens_out: int = 0


class BackendError(RelkitError):
    """No answer for a pair; ``fatal``: no answer for any pair (stop the run)."""

    def __init__(self, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.fatal = fatal


class Backend(Protocol):
    """What ``relkit judges-run`` calls: see the module docstring."""

    name: str

    def grade(self, request: Request) -> Answer: ...
