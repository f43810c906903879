"""What a grade in a qrels file means: the one rule for ``-1`` (and any negative grade).

A negative grade means **pooled, not judged** (trec_eval's convention, and what
``relkit export qrels`` writes for a pooled pair nobody has graded yet): the
document is in the pool, but no assessor said whether it is relevant. It is
neither relevant nor non-relevant: Judged@k does not count it, infAP and bpref
treat it as unjudged, relevance measures treat it as not relevant (it is below
every level). A grade of 0 or more is a judgment.

Every command reads grades through this module (``relkit eval``,
``pool-coverage``, ``pool-simulate``, the prels of sampled pools), so the rule
lives in one place. A collection whose negative grades mean something else (such
as Cranfield's -1, "of no interest") is read the same way: convert it first if
you want those documents counted as judged non-relevant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

NOT_JUDGED = -1
"""The grade written for a pooled document without a judgment."""


@overload
def is_judged(grade: int) -> bool: ...
@overload
def is_judged(grade: NDArray[np.int64]) -> NDArray[np.bool_]: ...
def is_judged(grade: int | NDArray[np.int64]) -> bool | NDArray[np.bool_]:
    """True for a grade that is a judgment (0 or more); False for "pooled, not judged".

    Parameters
    ----------
    grade : int or numpy.ndarray
        A qrels grade, or an array of them (how ``relkit eval`` reads a qrels).

    Returns
    -------
    bool or numpy.ndarray
        Whether it is a judgment (elementwise for an array).

    Examples
    --------
    >>> from relkit.metrics.readers.grades import is_judged
    >>> [is_judged(g) for g in (-2, -1, 0, 3)]
    [False, False, True, True]
    """
    return grade >= 0


def relevance(grade: int) -> int:
    """The grade a judging strategy learns from: a pooled-not-judged document teaches
    "not relevant" (0), a judgment its own grade.

    Parameters
    ----------
    grade : int
        A qrels grade.

    Returns
    -------
    int
        ``grade`` if it is a judgment, else 0.

    Examples
    --------
    >>> from relkit.metrics.readers.grades import relevance
    >>> relevance(-1), relevance(2)
    (0, 2)
    """
    return grade if grade >= 0 else 0
