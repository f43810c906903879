"""``top-k``: a graded pre-filter, then pairwise judgments that order the top k.

After Clarke, Vtyurina and Smucker, "Assessing top-k preferences", ACM TOIS 39(3),
2021: graded (or binary) judgments first remove the documents not worth comparing,
then preference judgments identify and order only the top k of the rest instead of
ordering the whole pool. The pairwise stage here is this module's own variant, a
selection by "king of the hill": for rank r = 1..k, the best remaining document by
grade (then id) is the incumbent, it meets every other remaining document in that order,
and a document judged better replaces it (``equal`` and ``neither`` keep the incumbent);
the one left is rank r. Each pair is asked at most once; a later round reuses earlier
answers (the latest answer on a pair counts). Without grades every document passes
the filter.

Answers: at most sum_{r=1..k} (m - r) for m documents passing the filter, about k·m;
fewer when rounds meet pairs already answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from relkit.metrics.core.params import Param
from relkit.metrics.prefs.answers import Answer
from relkit.pooling.pairs import Pair, PairStrategy, register
from relkit.pooling.pairs._common import answered, by_grade, check_docs


class TopK:
    def __init__(self, k: int, threshold: float) -> None:
        self.k, self.threshold = k, threshold

    def _passing(self, docs: Sequence[str], grades: Mapping[str, float] | None) -> list[str]:
        docs = check_docs(docs)
        if grades is None:
            return sorted(docs)
        return by_grade([d for d in docs if grades.get(d, 0.0) >= self.threshold], grades)

    def _replay(self, docs: Sequence[str], answers: Sequence[Answer],
                grades: Mapping[str, float] | None) -> tuple[list[str], Pair | None]:
        """The top found so far and the first unanswered pair (None: done)."""
        known = answered(answers)
        remaining = self._passing(docs, grades)
        top: list[str] = []
        while remaining and len(top) < self.k:
            king = remaining[0]
            for other in remaining[1:]:
                verdict = known.get((king, other))
                if verdict is None:
                    return top, (king, other)
                if verdict < 0:
                    king = other
            top.append(king)
            remaining.remove(king)
        return top, None

    def next_pair(self, docs: Sequence[str], answers: Sequence[Answer],
                  grades: Mapping[str, float] | None = None) -> Pair | None:
        return self._replay(docs, answers, grades)[1]

    def ranking(self, docs: Sequence[str], answers: Sequence[Answer],
                grades: Mapping[str, float] | None = None) -> list[str]:
        """The top found so far, then the other documents that passed the filter (by
        grade), then those that did not."""
        top, _ = self._replay(docs, answers, grades)
        rest = [d for d in self._passing(docs, grades) if d not in top]
        return top + rest + [d for d in by_grade(list(docs), grades) if d not in top + rest]


def _build(params: dict[str, Any], seed: int) -> TopK:
    return TopK(params["k"], params["threshold"])


register(PairStrategy(
    "top-k", "graded pre-filter, then a king-of-the-hill selection of the top k by pairs",
    "Clarke, Vtyurina & Smucker, Assessing top-k preferences, ACM TOIS 39(3), 2021 "
    "(pairwise stage: this module's selection variant)", "at most sum_{r<=k} (m - r), m "
    "documents passing the filter",
    (Param("k", int, 10, "how many top documents to order", low=1),
     Param("threshold", float, 1.0, "the grade a document needs to pass the pre-filter")),
    _build))
