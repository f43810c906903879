"""Answers to trec_eval's preference formats and to graded qrels.

Which documents are *not relevant* (trec_eval's level 0; used by the
``prefs_avgjg_Rnonrel`` measures): for one assessor (or, for graded qrels, all of
them), a document that was in a ``neither`` answer and never preferred to another nor
called ``equal`` to one. Every other document is relevant.

* ``prefs`` (``relkit eval -R prefs``): one judgment group (JG) per assessor, one
  judgment sub-group (JSG) per answer, named ``a<line>`` after the answer's line. In an
  answer's JSG the preferred document gets level 2 and the other 1 (0 if not relevant);
  ``equal`` gives both 1; ``neither`` gives each its class level (0, or 1 for a document
  relevant by its other answers). trec_eval closes each JG transitively, so the file says
  exactly what the answers say; an assessor's cycle is refused by trec_eval (and relkit)
  when evaluating, so it is reported here (see ``relkit prefs report``).
* ``qrels_prefs`` (``relkit eval -R qrels_prefs``): ``qid assessor docno level``, one
  complete ranking per assessor. Documents called ``equal`` share a level; a not-relevant
  document is 0; any other is 1 + the highest level among the documents it was preferred
  to (a longest chain). This keeps every answer and adds order between documents the
  assessor never compared. A cycle has no such levels and is refused.
* ``qrels`` (graded, every measure): per topic, the Bradley–Terry scores of all answers
  (:mod:`relkit.metrics.prefs.bt`); a not-relevant document is 0, the relevant ones are cut
  into ``levels`` equal-width bins of theta between their lowest and highest score:
  :math:`g = 1 + \\min(L - 1, \\lfloor L(\\theta - \\theta_{min})/(\\theta_{max} -
  \\theta_{min})\\rfloor)`, all 1 when their scores are equal. Iteration column ``0``.
"""

from __future__ import annotations

from collections.abc import Sequence

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.prefs.answers import Answer, by_topic

__all__ = ["nonrelevant", "to_prefs", "to_qrels", "to_qrels_prefs"]


def nonrelevant(answers: Sequence[Answer]) -> set[str]:
    """Documents in a ``neither`` answer and never preferred nor ``equal`` (see above)."""
    named = {d for a in answers if a.answer == "neither" for d in (a.left, a.right)}
    good = {a.winner for a in answers if a.winner is not None}
    good |= {d for a in answers if a.answer == "equal" for d in (a.left, a.right)}
    return named - good


def _check_ids(answers: Sequence[Answer]) -> None:
    for a in answers:
        for value in (a.topic_id, a.left, a.right, a.assessor):
            if not value or any(ch.isspace() for ch in value):
                raise RelkitError(f"line {a.line}: id {value!r} contains whitespace, which "
                                  "trec_eval's formats cannot hold")


def _by_assessor(answers: Sequence[Answer]) -> dict[tuple[str, str], list[Answer]]:
    groups: dict[tuple[str, str], list[Answer]] = {}
    for a in answers:
        groups.setdefault((a.topic_id, a.assessor), []).append(a)
    return groups


def to_prefs(answers: Sequence[Answer]) -> str:
    """The answers as a trec_eval prefs file (``qid jg jsg docno level``)."""
    _check_ids(answers)
    lines: list[str] = []
    for (topic, who), group in _by_assessor(answers).items():
        nonrel = nonrelevant(group)
        for k, a in enumerate(group):
            jsg = f"a{a.line or k + 1}"
            base = {d: 0 if d in nonrel else 1 for d in (a.left, a.right)}
            if a.winner is not None:
                base[a.winner] = 2
            for d in (a.left, a.right):
                lines.append(f"{topic} {who} {jsg} {d} {base[d]}")
    return "\n".join(lines) + "\n"


def _chain_levels(topic: str, who: str, group: Sequence[Answer]) -> dict[str, int]:
    docs = list(dict.fromkeys(d for a in group for d in (a.left, a.right)))
    parent = {d: d for d in docs}

    def find(d: str) -> str:
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    for a in group:
        if a.answer == "equal":
            parent[find(a.left)] = find(a.right)
    below: dict[str, set[str]] = {find(d): set() for d in docs}
    for a in group:
        if a.winner is not None and a.loser is not None:
            w, lo = find(a.winner), find(a.loser)
            if w == lo:
                raise RelkitError(f"topic {topic!r}, assessor {who!r}: {a.winner!r} is both "
                                  f"equal to and better than {a.loser!r} (line {a.line}); "
                                  "qrels_prefs needs one ranking per assessor")
            below[w].add(lo)
    nonrel = nonrelevant(group)
    level: dict[str, int] = {}
    visiting: set[str] = set()

    def of(c: str) -> int:
        if c in level:
            return level[c]
        if c in visiting:
            raise RelkitError(f"topic {topic!r}, assessor {who!r}: the answers go round in a "
                              f"cycle through {c!r}; qrels_prefs needs one ranking per "
                              "assessor (the prefs format keeps the answers as they are)")
        visiting.add(c)
        value = 0 if c in nonrel else 1 + max((of(x) for x in below[c]), default=0)
        visiting.discard(c)
        level[c] = value
        return value

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(docs) + 100))
    try:
        return {d: of(find(d)) for d in docs}
    finally:
        sys.setrecursionlimit(limit)


def to_qrels_prefs(answers: Sequence[Answer]) -> str:
    """The answers as qrels read by ``-R qrels_prefs`` (``qid assessor docno level``)."""
    _check_ids(answers)
    lines: list[str] = []
    for (topic, who), group in _by_assessor(answers).items():
        for d, lv in _chain_levels(topic, who, group).items():
            lines.append(f"{topic} {who} {d} {lv}")
    return "\n".join(lines) + "\n"


def graded(answers: Sequence[Answer], levels: int = 3) -> dict[str, dict[str, int]]:
    """``{topic: {doc: grade}}`` from Bradley–Terry scores (the rule above)."""
    from relkit.metrics.prefs.bt import fit_bt

    if levels < 1:
        raise RelkitError(f"levels must be at least 1, not {levels}")
    out: dict[str, dict[str, int]] = {}
    for topic, group in by_topic(answers).items():
        fit = fit_bt(group)
        nonrel = nonrelevant(group)
        theta = fit.scores()
        rel = [theta[d] for d in fit.docs if d not in nonrel]
        lo, hi = (min(rel), max(rel)) if rel else (0.0, 0.0)
        grades: dict[str, int] = {}
        for d in fit.docs:
            if d in nonrel:
                grades[d] = 0
            elif hi - lo <= 1e-9:
                grades[d] = 1
            else:
                grades[d] = 1 + min(levels - 1, int(levels * (theta[d] - lo) / (hi - lo)))
        out[topic] = grades
    return out


def to_qrels(answers: Sequence[Answer], levels: int = 3) -> str:
    """Graded qrels (``qid 0 docno grade``) from Bradley–Terry scores."""
    _check_ids(answers)
    return "".join(f"{t} 0 {d} {g}\n" for t, grades in graded(answers, levels).items()
                   for d, g in grades.items())
