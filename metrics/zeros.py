"""Topics that score 0 whatever a run does: said aloud, since trec_eval says nothing.

A topic whose qrels lines are all ``-1`` (pooled, never judged: what ``relkit export
qrels`` writes for a pair nobody graded yet) or whose judged documents are all below the
relevance level has no relevant document. trec_eval averages it in like any other topic,
and every relevance measure on it is 0 for every run: a mean that looks like a result but
comes from the qrels alone. :func:`zero_topics` finds them; the CLI warns once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from relkit.metrics.core.record import Record

if TYPE_CHECKING:
    from relkit.metrics.judged import JudgedTopics


class ZeroTopics(Record, frozen=True):
    """Qrels topics that no run can score on, in trec_eval's topic order.

    Attributes
    ----------
    unjudged : topics with qrels lines, all of them negative (``-1``: pooled, unjudged).
    no_relevant : topics with judged documents, none of them at the relevance level.
    level : the relevance level (``-l``) the second list is about.
    """

    unjudged: list[str]
    no_relevant: list[str]
    level: int

    def __bool__(self) -> bool:
        return bool(self.unjudged or self.no_relevant)

    def among(self, topics: Iterable[str]) -> ZeroTopics:
        """Only those of ``topics`` (the topics an evaluation actually averaged)."""
        keep = set(topics)
        return ZeroTopics([t for t in self.unjudged if t in keep],
                          [t for t in self.no_relevant if t in keep], self.level)


def zero_topics(judged: JudgedTopics, level: int) -> ZeroTopics:
    """The topics of ``judged`` without a relevant document at ``level`` (``-l``).

    Examples
    --------
    >>> from relkit.metrics.data import Qrels
    >>> from relkit.metrics.ranking import JudgedTopics
    >>> q = Qrels.read("1 0 a 2\\n2 0 b -1\\n2 0 c -1\\n3 0 d 0\\n4 0 e 1\\n")
    >>> zero_topics(JudgedTopics.prepare(q), level=1)
    ZeroTopics(unjudged=['2'], no_relevant=['3'], level=1)
    >>> zero_topics(JudgedTopics.prepare(q), level=2).no_relevant
    ['3', '4']
    """
    levels = judged.levels                 # topics x grades: counts of grades >= 0
    judged_any = levels.sum(axis=1) > 0
    relevant = levels[:, max(level, 0):].sum(axis=1) > 0
    unjudged = [t for t, j in zip(judged.topics, judged_any, strict=True) if not j]
    none = [t for t, j, r in zip(judged.topics, judged_any, relevant, strict=True)
            if j and not r]
    return ZeroTopics(unjudged, none, level)
