"""The click-model interface, and the evaluation of Chuklin et al. (2015), ch. 5.

A model maps a page of results (pair codes) and its clicks to two ``(sessions, ranks)``
arrays: the *conditional* click probability ``P(C_r = 1 | C_1..C_{r-1})`` (whose logs sum
to the log-likelihood of the session) and the *marginal* ``P(C_r = 1)`` (used for
perplexity, which judges each rank on its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray

FloatArray = npt.NDArray[np.float64]
# Probabilities are clipped away from 0 and 1 before a log: one impossible click (a
# second click under the cascade model) costs log(1e-10), not -inf.
EPS = 1e-10


class ClickModel:
    """Base class: per-pair parameters (arrays over pair codes) and per-rank ones.

    Attributes
    ----------
    params
        Parameter name -> array. Names in :attr:`per_pair` are indexed by pair code
        (:attr:`queries`, :attr:`docs`); the others are per rank (or scalars).
    counts
        Impressions of each pair in the training data.
    trace
        Log-likelihood of the training data after each EM iteration (EM models).
    """

    name: ClassVar[str] = ""
    per_pair: ClassVar[tuple[str, ...]] = ()
    # A pair never seen in training takes this value of each per-pair parameter.
    default: float = 0.5

    def __init__(self) -> None:
        self.params: dict[str, FloatArray] = {}
        self.counts: IntArray = np.zeros(0, dtype=np.int64)
        self.queries: npt.NDArray[np.object_] = np.zeros(0, dtype=object)
        self.docs: npt.NDArray[np.object_] = np.zeros(0, dtype=object)
        self.max_rank = 0
        self.trace: list[float] = []

    def fit(self, data: ClickData, *, iterations: int = 50, seed: int = 0) -> ClickModel:
        """Estimate the parameters from ``data`` (``iterations``/``seed``: EM models)."""
        self.queries, self.docs, self.max_rank = data.queries, data.docs, data.max_rank
        self.counts = np.bincount(data.pair[data.shown], minlength=data.n_pairs)
        self._fit(data, iterations, np.random.default_rng(seed))
        return self

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        raise NotImplementedError

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        """(conditional, marginal) click probabilities, each ``pair.shape``.

        ``pair`` holds this model's pair codes; ``-1`` (or ``len(queries)``) takes the
        default of each per-pair parameter.
        """
        raise NotImplementedError

    def pp(self, name: str, pair: IntArray) -> FloatArray:
        """Per-pair parameter ``name`` at each code of ``pair`` (``-1``: the default)."""
        ext = np.append(self.params[name], self.default)
        return ext[np.where(pair < 0, len(ext) - 1, pair)]

    def recode(self, data: ClickData) -> IntArray:
        """``data``'s pair codes in this model's codes (unknown pairs and gaps: -1)."""
        if data.queries is self.queries and data.docs is self.docs:
            return data.pair
        import pandas as pd  # deferred: only when a model meets another log's codes

        index = pd.MultiIndex.from_arrays([self.queries.astype(str), self.docs.astype(str)])
        mine = index.get_indexer(pd.MultiIndex.from_arrays(
            [data.queries.astype(str), data.docs.astype(str)]))
        ext = np.append(np.asarray(mine, dtype=np.int64), -1)
        return ext[np.where(data.pair < 0, len(ext) - 1, data.pair)]


@dataclass
class Evaluation:
    """Log-likelihood and perplexity of a model on a log (Chuklin et al., ch. 5).

    Attributes
    ----------
    log_likelihood
        Mean over sessions of ``sum_r ln P(C_r = c_r | C_<r)`` (natural log).
    perplexity
        Per rank ``r``: ``2 ** (-(1/N_r) sum_s log2 P(C_r = c_r^s))``, over the ``N_r``
        sessions with a result at rank ``r`` (marginal probabilities). 1 is perfect
        prediction; 2 is a coin.
    sessions
        ``N_r`` per rank.
    """

    log_likelihood: float
    perplexity: list[float]
    sessions: list[int] = field(default_factory=list)

    @property
    def mean_perplexity(self) -> float:
        """The mean of the per-rank perplexities (the book's overall perplexity)."""
        vals = [p for p, n in zip(self.perplexity, self.sessions, strict=True) if n]
        return float(np.mean(vals)) if vals else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {"log_likelihood": self.log_likelihood, "perplexity": self.perplexity,
                "mean_perplexity": self.mean_perplexity, "sessions": self.sessions}


def evaluate(model: ClickModel, data: ClickData) -> Evaluation:
    """Log-likelihood and per-rank perplexity of ``model`` on ``data``."""
    shown, c = data.shown, data.click
    cond, marg = model.probabilities(model.recode(data), c)
    cond = np.clip(cond, EPS, 1 - EPS)
    marg = np.clip(marg, EPS, 1 - EPS)
    ll = np.where(shown, np.where(c, np.log(cond), np.log1p(-cond)), 0.0).sum()
    lg = np.where(shown, np.where(c, np.log2(marg), np.log2(1 - marg)), 0.0)
    n_r = shown.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        perp = np.where(n_r > 0, 2.0 ** (-lg.sum(axis=0) / np.maximum(n_r, 1)), np.nan)
    n = max(data.n_sessions, 1)
    return Evaluation(float(ll / n), [float(x) for x in perp], [int(x) for x in n_r])


def session_log_likelihood(cond: FloatArray, click: BoolArray, shown: BoolArray) -> float:
    """Total ``sum ln P(C_r = c_r | C_<r)`` over sessions (the EM trace)."""
    cond = np.clip(cond, EPS, 1 - EPS)
    return float(np.where(shown, np.where(click, np.log(cond), np.log1p(-cond)), 0.0).sum())
