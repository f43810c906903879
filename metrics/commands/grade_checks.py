"""Qrels whose grades look as if they run the wrong way: said, never silently used.

relkit reads a higher grade as more relevant. Cranfield's ``cranqrel`` runs the
other way (1 = complete answer ... 4 = minimum interest, -1 = of no interest), and
evaluated as it is, it gives nDCG@10 0.3407 for a run (Cranfield's ``results.txt``)
that scores 0.3760 on the grades turned round: a wrong number, and nothing said.
Nothing in a file says which way its grades run, so :func:`inverted_grades` looks at
how often each is used.

The rule. In a pool human assessors judge, the more relevant a grade, the rarer it
is on the whole: every human-judged qrels here has its lowest relevant grade as its
most used one or close to it (TREC DL 2023: 1403, 625, 697 for 1, 2, 3; trec_eval's
test qrels: 1175, 78, 213, 22, 2 for 1, 2, 3, 4, 6; the sample: 91, 53, 49).
Cranfield's raw file has its grade 1 the *rarest* (128, against 387, 734, 363 for 2,
3, 4), as its best grade should be, and it has no grade 0: its documents of no
interest are -1. So the grades look inverted when

* there are at least :data:`MIN_LEVELS` relevant grades (> 0): with two, the top one
  is often the more frequent (TREC-COVID's 2, "relevant", outnumbers its 1,
  "partially relevant"), so two say nothing;
* there are at least :data:`MIN_RELEVANT` relevant judgments: a hand-made handful
  says nothing either;
* the lowest relevant grade is used strictly less often than every other one;
* grade 0 is used at most once per topic on average (none at all in the raw file).
  Frequencies alone are not enough: lenient automatic judges use their top grades
  freely (6 of the 36 LLM judges' qrels of the LLMJudge challenge on TREC DL 2023 have
  1 as their rarest relevant grade), but a file that writes 0 for "not relevant" is
  written higher-is-better, as TREC's are, and a judged pool holds many non-relevant
  documents per topic (those 36 files: 13 to 42 zeros a topic). Files that run the
  other way come from before that convention (Cranfield's -1, Cleverdon's 5 for "no
  interest") and have no 0 — or one a topic, where a conversion turned Cranfield's
  one -1 line a topic into 0 (``awk '$4==-1{$4=0}'``, the usual TREC conversion).

Binary qrels (Vaswani, NPL, trec_eval's ``qrels.test``) have one relevant grade and
never match. It is a heuristic: it names the file and the counts, and stays a
warning (the numbers are still printed; ``--quiet`` silences it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from relkit.metrics.data import Qrels

# At least this many relevant grades (> 0) before their frequencies say anything.
MIN_LEVELS = 3
# ... and at least this many relevant judgments.
MIN_RELEVANT = 50


def _value_counts(col: Any) -> dict[Any, int]:
    """How often each value of a column occurs (numpy, or Arrow without pandas)."""
    if hasattr(col, "combine_chunks"):
        # An Arrow column (a large file): counted by Arrow itself; ChunkedArray.to_numpy
        # would import pandas, which a large `relkit eval` never loads.
        import pyarrow.compute as pc

        vc = pc.value_counts(col)
        return dict(zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(),
                        strict=True))
    values, counts = np.unique(np.asarray(col), return_counts=True)
    return {v: int(c) for v, c in zip(values.tolist(), counts, strict=True)}


def grade_counts(qrels: Qrels) -> dict[int, int]:
    """How many judgments have each grade, grades ascending."""
    return {int(g): n for g, n in sorted(_value_counts(qrels.column("relevance")).items())}


def _topics(qrels: Qrels) -> int:
    """How many topics ``qrels`` judges."""
    return len(_value_counts(qrels.column("query_id")))


def inverted_grades(qrels: Qrels) -> str | None:
    """One sentence when ``qrels``' grades look as if 1 were the most relevant, else None.

    Parameters
    ----------
    qrels : Qrels
        The judgments as read (``qrels.source`` names the file).

    Returns
    -------
    str or None
        The file, the counts per relevant grade, and what to do.

    Examples
    --------
    >>> from relkit.metrics.data import Qrels
    >>> from relkit.metrics.commands.grade_checks import inverted_grades
    >>> rows = "".join(f"q{i} 0 d{i} {g}\\n" for i, g in enumerate([1] * 10 + [2] * 30 + [3] * 20))
    >>> print(inverted_grades(Qrels.read(rows)))
    <text>: grade 1 is the rarest relevant grade (1: 10, 2: 30, 3: 20) and 0 is used ...
    >>> rows = "".join(f"q{i} 0 d{i} {g}\\n" for i, g in enumerate([1] * 30 + [2] * 10 + [3] * 20))
    >>> inverted_grades(Qrels.read(rows)) is None
    True
    """
    every = grade_counts(qrels)
    counts = {g: n for g, n in every.items() if g > 0}
    if len(counts) < MIN_LEVELS or sum(counts.values()) < MIN_RELEVANT:
        return None
    if every.get(0, 0) > _topics(qrels):   # a judged pool's non-relevant documents
        return None
    low, *rest = sorted(counts)
    if not all(counts[low] < counts[g] for g in rest):
        return None
    shown = ", ".join(f"{g}: {n}" for g, n in sorted(counts.items()))
    return (f"{qrels.source}: grade {low} is the rarest relevant grade ({shown}) and "
            "0 is used at most once a topic, as in files whose grades run the other way: if "
            f"{low} means most relevant here (Cranfield's cranqrel), turn the grades round "
            "first (a collection's grade_map, docs/collections.md); relkit reads higher as "
            "more relevant")
