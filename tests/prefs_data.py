"""Generated preference answers with planted scores (shared by the preference tests and
bench/prefs_bt.py): Davidson's model with strengths exp(theta) and tie parameter nu."""

from __future__ import annotations

import numpy as np

from relkit.metrics.prefs.answers import Answer


def planted(n_docs: int, n_answers: int, *, nu: float = 0.0, seed: int = 0,
            topic: str = "1", assessors: int = 1) -> tuple[np.ndarray, list[Answer]]:
    """``(theta, answers)``: random pairs, outcomes drawn from the model."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_docs)
    out: list[Answer] = []
    for k in range(n_answers):
        i, j = rng.choice(n_docs, 2, replace=False)
        pi, pj = np.exp(theta[i]), np.exp(theta[j])
        pt = nu * np.sqrt(pi * pj)
        u = rng.random() * (pi + pj + pt)
        ans = "left" if u < pi else "right" if u < pi + pj else "equal"
        out.append(Answer(topic_id=topic, left=f"d{i}", right=f"d{j}", answer=ans,
                          assessor=f"a{k % assessors}", line=k + 2))
    return theta, out
