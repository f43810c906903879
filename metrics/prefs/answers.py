"""The answers file: one pairwise preference judgment per line.

TSV with a header line ``topic_id<TAB>left<TAB>right<TAB>answer<TAB>assessor``;
``answer`` is ``left`` (left better), ``right`` (right better), ``equal`` or
``neither`` (both not relevant). Ids are strings, kept as written. The judging store's
``relkit export prefs DB --answers OUT.tsv`` writes it; :func:`read_answers` reads it and
refuses, in one line naming file and line, a malformed line, an unknown answer, a pair
of the same document, a second answer by one assessor on one pair (either way round) and
(given the known ids) an unknown topic or document.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from relkit.metrics.core.errors import FormatError
from relkit.metrics.readers import sources as _sources

__all__ = ["ANSWERS", "HEADER", "Answer", "read_answers", "write_answers"]

ANSWERS = ("left", "right", "equal", "neither")
HEADER = ("topic_id", "left", "right", "answer", "assessor")


@dataclass(frozen=True, kw_only=True, slots=True)
class Answer:
    """One assessor's answer on one pair of documents of one topic.

    ``line`` is the 1-based line of the file it came from (0 when built in code).
    """

    topic_id: str
    left: str
    right: str
    answer: str
    assessor: str
    line: int = 0

    @property
    def winner(self) -> str | None:
        """The preferred document, or None for ``equal`` / ``neither``."""
        return self.left if self.answer == "left" else self.right if self.answer == "right" \
            else None

    @property
    def loser(self) -> str | None:
        """The other document of a decisive answer, or None."""
        return self.right if self.answer == "left" else self.left if self.answer == "right" \
            else None

    def key(self) -> tuple[str, str]:
        """The unordered pair, as a sorted tuple (the same for (a, b) and (b, a))."""
        return (self.left, self.right) if self.left <= self.right else (self.right, self.left)

    def oriented(self) -> str:
        """The answer as seen from :meth:`key`'s order (``left`` means key[0] better)."""
        if self.left <= self.right or self.answer in ("equal", "neither"):
            return self.answer
        return "right" if self.answer == "left" else "left"


def read_answers(source: _sources.Source, *,
                 known: Mapping[str, Collection[str]] | None = None) -> list[Answer]:
    """Read an answers file.

    Parameters
    ----------
    source
        A path, open file or literal text (see :mod:`relkit.metrics.readers.sources`).
    known
        Optional ``{topic_id: document ids}`` (a collection's qrels or a pool): a topic
        or document outside it is refused.

    Raises
    ------
    FormatError
        Naming ``file:line`` for a bad header, a line without 5 tab-separated fields,
        an empty id, an answer outside ``left/right/equal/neither``, a pair of one
        document with itself, an assessor's second answer on a pair, or an unknown
        topic/document; or a file with no answers.
    """
    name = _sources.source_name(source)
    text = _sources.read_bytes(source).removeprefix(_sources.BOM).decode("utf-8", "replace")
    out: list[Answer] = []
    header_seen = False
    seen: dict[tuple[str, str, str, str], int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split("\t")
        if not header_seen:
            if tuple(f.strip() for f in fields) != HEADER:
                raise FormatError(name, number, "the header " + "<TAB>".join(HEADER),
                                  repr(raw[:80]))
            header_seen = True
            continue
        if len(fields) != 5:
            raise FormatError(name, number, "5 tab-separated fields: " + " ".join(HEADER),
                              f"{len(fields)} field(s): {raw[:80]!r}")
        topic, left, right, answer, assessor = (f.strip() for f in fields)
        for label, value in (("topic_id", topic), ("left", left), ("right", right),
                             ("assessor", assessor)):
            if not value:
                raise FormatError(name, number, f"a non-empty {label}", "an empty field")
        if answer not in ANSWERS:
            raise FormatError(name, number, "an answer of " + ", ".join(ANSWERS),
                              repr(answer))
        if left == right:
            raise FormatError(name, number, "two different documents",
                              f"{left!r} on both sides")
        if known is not None:
            docs = known.get(topic)
            if docs is None:
                raise FormatError(name, number, "a known topic", f"topic {topic!r}")
            for doc in (left, right):
                if doc not in docs:
                    raise FormatError(name, number, f"a known document of topic {topic!r}",
                                      f"document {doc!r}")
        key = (topic, assessor, min(left, right), max(left, right))
        if key in seen:
            raise FormatError(name, number, "one answer per assessor and pair (the current "
                              "answers, not their history)", f"assessor {assessor!r} on "
                              f"{left!r}, {right!r} of topic {topic!r} again (line {seen[key]})")
        seen[key] = number
        out.append(Answer(topic_id=topic, left=left, right=right, answer=answer,
                          assessor=assessor, line=number))
    if not header_seen:
        raise FormatError(name, None, "the header " + "<TAB>".join(HEADER), "an empty file")
    if not out:
        raise FormatError(name, None, "at least one answer", "only the header")
    return out


def write_answers(answers: Iterable[Answer]) -> str:
    """The answers as the file's text (header first)."""
    lines = ["\t".join(HEADER)]
    lines += ["\t".join((a.topic_id, a.left, a.right, a.answer, a.assessor)) for a in answers]
    return "\n".join(lines) + "\n"


def by_topic(answers: Iterable[Answer]) -> dict[str, list[Answer]]:
    """Answers grouped by topic, topics in first-seen order."""
    out: dict[str, list[Answer]] = {}
    for a in answers:
        out.setdefault(a.topic_id, []).append(a)
    return out
