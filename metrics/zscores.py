"""trec_eval ``-Z``: per-topic values as z-scores against a table of (mean, sd).

The table maps (topic, measure) to the mean and standard deviation the value is
standardised with; an entry it lacks, or sd 0 with a value other than the mean, gives
trec_eval's ``-1000000``. Reading the table from its file is the CLI's
(:mod:`relkit.metrics.eval.run`).
"""

from __future__ import annotations

import numpy as np

ZTable = dict[tuple[str, str], tuple[float, float]]
MISSING_Z = -1000000.0


def _zscore(table: ZTable, topics: list[str], name: str, v: np.ndarray) -> np.ndarray:
    out = np.empty(len(v))
    for i, (qid, x) in enumerate(zip(topics, v.tolist(), strict=True)):
        entry = table.get((qid, name))
        if entry is None:
            out[i] = MISSING_Z
        elif entry[1]:
            out[i] = (x - entry[0]) / entry[1]
        else:
            out[i] = 0.0 if x == entry[0] else MISSING_Z
    return out
