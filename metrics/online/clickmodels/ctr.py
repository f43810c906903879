"""The random click model and the click-through-rate models (counting).

Chuklin, Markov & de Rijke (2015), sections 3.1-3.2; estimates in section 4.1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


class RandomClickModel(ClickModel):
    r"""Random click model (RCM, section 3.1) with a fixed click probability.

    .. math:: P(C_u = 1) = \rho

    Nothing is estimated: ``rho`` is 0.5 unless set (the reference of ch. 5: its
    perplexity is 2 at every rank, on any log). :class:`GCTR` is the fitted RCM.
    """

    name = "random"

    def __init__(self, rho: float = 0.5) -> None:
        super().__init__()
        self.rho = rho

    def fixed_params(self) -> dict[str, FloatArray]:
        """The parameters, which no log changes (every engine's fit)."""
        return {"rho": np.array([self.rho])}

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        self.params = self.fixed_params()

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        p = np.full(pair.shape, float(self.params.get("rho", [self.rho])[0]))
        return p, p


class GCTR(ClickModel):
    r"""Global click-through rate (the RCM's maximum-likelihood estimate, section 4.1.1).

    .. math:: P(C_u = 1) = \rho, \qquad
              \hat\rho = \frac{\sum_s \sum_{u \in s} c_u^{(s)}}{\sum_s |s|}
    """

    name = "gctr"

    def from_counts(self, clicks: Any, shown: int) -> None:
        """The estimate from the log's clicks and shown results (every engine's)."""
        self.params = {"rho": np.array([clicks / max(shown, 1)])}

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        shown = data.shown
        self.from_counts(data.click[shown].sum(), int(shown.sum()))

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        p = np.full(pair.shape, float(self.params["rho"][0]))
        return p, p


class RCTR(ClickModel):
    r"""Rank-based click-through rate (section 3.2.1).

    .. math:: P(C_r = 1) = \rho_r, \qquad
              \hat\rho_r = \frac{\sum_s c_r^{(s)}}{\#\{s : \text{rank } r \text{ shown}\}}
    """

    name = "rctr"

    def from_counts(self, shown: IntArray, clicks: IntArray) -> None:
        """The estimate from results shown and clicked per rank (every engine's)."""
        rho = np.where(shown > 0, clicks / np.maximum(shown, 1), self.default)
        self.params = {"rho": rho.astype(np.float64)}

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        shown = data.shown
        self.from_counts(shown.sum(axis=0), (data.click & shown).sum(axis=0))

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        p = np.broadcast_to(self.params["rho"][: pair.shape[1]], pair.shape).astype(np.float64)
        return p, p


class DCTR(ClickModel):
    r"""Document-based click-through rate (section 3.2.2), per query-document pair.

    .. math:: P(C_u = 1) = \rho_{uq}, \qquad
              \hat\rho_{uq} = \frac{\sum_{s \in S_{uq}} c_u^{(s)}}{|S_{uq}|}

    A pair not seen in training takes the global CTR.
    """

    name = "dctr"
    per_pair = ("alpha",)

    def from_counts(self, clicks: FloatArray | IntArray) -> None:
        """The estimate from each pair's clicks and :attr:`counts` (every engine's)."""
        self.default = float(clicks.sum() / max(int(self.counts.sum()), 1))
        self.params = {"alpha": np.where(self.counts > 0, clicks / np.maximum(self.counts, 1),
                                         self.default)}

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        shown = data.shown
        p = data.pair[shown]
        self.from_counts(np.bincount(p, weights=data.click[shown], minlength=data.n_pairs))

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        p = self.pp("alpha", pair)
        return p, p
