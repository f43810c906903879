"""BMI's batch sizes: how many documents the classifier picks between retrainings.

The batch size starts at 1 and after each batch grows by ten percent, rounded up::

    B_1 = 1,    B_{k+1} = B_k + ceil(B_k / 10)

so 1, 2, 3, 4, ..., 10, 11, 13, 15, ...: early on the model is retrained after
every judgment, later (when it changes little per judgment) after many.

Reference: G. V. Cormack and M. R. Grossman, "Autonomy and reliability of
continuous active learning for technology-assisted review", arXiv:1504.06868
(2015), Figure 1 (AutoTAR; the BMI of the TREC Total Recall track), step 7:
"Increase B by ceil(B/10)".
"""

from __future__ import annotations


def grow(b: int) -> int:
    """The batch size after a batch of ``b`` documents: ``b + ceil(b / 10)``."""
    if b < 1:
        raise ValueError(f"a batch holds at least one document; got {b}")
    return b + -(-b // 10)


def sizes(n: int) -> list[int]:
    """The first ``n`` batch sizes (``[1, 2, 3, ...]``)."""
    out, b = [], 1
    for _ in range(n):
        out.append(b)
        b = grow(b)
    return out
