r"""Agreement weights of the weighted coefficients, as Gwet (2014) and ``irrCAC`` define them.

:math:`w_{kl}` is the credit a pair of grades k, l earns (1 on the diagonal).
``identity``, ``linear`` and ``quadratic`` come from the declared scale's grade
*values*, :math:`w_{kl} = 1 - |v_k - v_l| / (v_{max} - v_{min})` and its square
(as :func:`relkit.judging.agreement.pairwise.weight_matrix`); ``ordinal``
from the grades' *positions*: :math:`M_{kl} = \binom{|k - l| + 1}{2}`,
:math:`w_{kl} = 1 - M_{kl}/\max M`. Gwet, *Handbook of Inter-Rater
Reliability*, 4th ed., 2014, section 3.4 (``irrCAC.weights.Weights``).
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

Kind = Literal["identity", "linear", "quadratic", "ordinal"]
KINDS: tuple[str, ...] = get_args(Kind)


def matrix(values: np.ndarray, kind: str) -> np.ndarray:
    """The q x q weights of ``kind`` over the declared scale's grade ``values``."""
    v = np.asarray(values, dtype=np.float64)
    q = len(v)
    if kind == "identity" or q < 2:
        return np.eye(q)
    if kind in ("linear", "quadratic"):
        d = np.abs(v[:, None] - v[None, :]) / (v.max() - v.min())
        return 1.0 - (d if kind == "linear" else d ** 2)
    if kind == "ordinal":
        pos = np.arange(q)
        d = np.abs(pos[:, None] - pos[None, :]) + 1
        m = d * (d - 1) / 2
        return 1.0 - m / m.max()
    raise ValueError(f"unknown weights {kind!r}; expected one of {', '.join(KINDS)}")
