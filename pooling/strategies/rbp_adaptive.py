r"""RBP residual-driven pooling ("methods B and C" of Moffat, Webber & Zobel 2007).

With :math:`W_{d,s} = (1-p)p^{r_s(d)-1}` a document's weight in run s (0 if
absent), each run keeps its RBP base :math:`b_s = \sum_{judged\ d} W_{d,s}\, g(d)`
(gain g in [0, 1] from the grade) and residual
:math:`e_s = p^{n_s} + \sum_{unjudged\ d} W_{d,s}` (1 before any judgment).
The next document is the unjudged one with the largest
:math:`\sum_s c_s W_{d,s}`, where

* method ``b``: :math:`c_s = e_s` — judge where the runs are still most
  uncertain, so the residuals shrink evenly;
* method ``c``: :math:`c_s = b_s + e_s` — weight each run by the upper bound of
  its RBP, so the runs that may still be best get their uncertainty reduced first
  (the paper's aim: identify the best systems with few judgments).

Method A (a static weight, :math:`c_s = 1`) is the ``rbp`` strategy. Ties: docno.
Reference: Moffat, Webber & Zobel, SIGIR 2007, section 4; the weights above are
our reading of its methods B and C.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import TopicMatrix
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies.rbp import P


class ResidualRBP:
    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        p = params["p"]
        from scipy.sparse import csr_matrix  # sparse: 100 runs x 1,000 docs stays < 1 ms

        self.W = csr_matrix(np.where(m.ranks > 0, (1 - p) * p ** (np.maximum(m.ranks, 1) - 1.0),
                                     0.0))
        self.resid = np.ones(len(m.runs))
        self.base = np.zeros(len(m.runs))
        self.method = params["method"]

    def choose(self, judged: np.ndarray) -> int | None:
        c = self.resid if self.method == "b" else self.base + self.resid
        s = self.W @ c
        s[judged] = -np.inf
        i = int(np.argmax(s)) if len(s) else -1
        return None if i < 0 or s[i] == -np.inf else i

    def update(self, i: int, gain: float, pulled: bool) -> None:
        w = self.W.getrow(i).toarray().ravel()
        self.resid -= w
        self.base += w * gain


register(Strategy(
    "rbp-adaptive", "adaptive",
    (P, Param("method", str, "b", "how runs' residuals weight the documents",
              choices=("b", "c"))),
    "judge where the runs' RBP residuals are largest (methods B and C)",
    "Moffat, Webber & Zobel, SIGIR 2007",
    policy=ResidualRBP,
))
