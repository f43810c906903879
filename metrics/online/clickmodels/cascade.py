"""The cascade model and the simplified DBN (counting estimates).

Chuklin, Markov & de Rijke (2015), sections 3.4 and 3.8.1; estimates in section 4.1.
Both are the DBN of :mod:`.dbn` with continuation ``gamma = 1`` (and, for the cascade
model, satisfaction ``sigma = 1``), so they share its probabilities.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray
from relkit.metrics.online.clickmodels.dbn import dbn_probabilities


def _last_click(data: ClickData) -> IntArray:
    """0-based rank of each session's last click; the last shown rank when no click."""
    r = data.max_rank
    idx = np.arange(r)
    last_click = np.where(data.click & data.shown, idx, -1).max(axis=1)
    last_shown = np.where(data.shown, idx, -1).max(axis=1)
    return np.asarray(np.where(last_click >= 0, last_click, last_shown), dtype=np.int64)


class Cascade(ClickModel):
    r"""Cascade model (CM, section 3.4): scan top-down, stop at the first click.

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad P(A_r = 1) = \alpha_{uq},
        \quad E_1 = 1, \quad P(E_{r+1} = 1 \mid E_r = 1, C_r) = 1 - C_r

    Estimate (section 4.1): ``alpha_uq`` = clicks / examinations, where the results up to
    and including the first click are examined (all of them when there is no click).
    Clicks after the first one are impossible under the model: they are ignored by the
    estimate and cost ``ln 1e-10`` each in the log-likelihood.
    """

    name = "cascade"
    per_pair = ("alpha",)

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        idx = np.arange(data.max_rank)
        first = np.where(data.click & data.shown, idx, data.max_rank).min(axis=1)
        examined = data.shown & (idx[None, :] <= first[:, None])
        p = data.pair[examined]
        self.from_counts(np.bincount(p, minlength=data.n_pairs),
                         np.bincount(p, weights=data.click[examined], minlength=data.n_pairs))

    def from_counts(self, examined: IntArray, clicks: FloatArray | IntArray) -> None:
        """The estimate from each pair's examinations and clicks (every engine's)."""
        self.params = {"alpha": np.where(examined > 0, clicks / np.maximum(examined, 1),
                                         self.default)}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        a = self.pp("alpha", pair)
        return dbn_probabilities(a, np.ones_like(a), 1.0, pair >= 0, click)


class SDBN(ClickModel):
    r"""Simplified DBN (SDBN, section 3.8.1): the DBN with continuation ``gamma = 1``.

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad P(A_r = 1) = \alpha_{uq},
        \quad P(S_r = 1 \mid C_r = 1) = \sigma_{uq}, \\
        E_1 = 1, \quad E_{r+1} = 1 \Leftrightarrow E_r = 1 \wedge S_r = 0

    Estimates by counting (section 4.1.4), with ``l`` the rank of the last click: the
    results at ranks ``<= l`` were examined, the user was satisfied at ``l``:

    .. math::
        \hat\alpha_{uq} = \frac{\sum_s c_u}{\sum_s [r_u \le l]}, \qquad
        \hat\sigma_{uq} = \frac{\sum_s [r_u = l]}{\sum_s c_u}

    A session with no click examined every result (with ``gamma = 1`` a user who is never
    satisfied reads to the end).
    """

    name = "sdbn"
    per_pair = ("alpha", "sigma")

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        last = _last_click(data)
        idx = np.arange(data.max_rank)
        examined = data.shown & (idx[None, :] <= last[:, None])
        clicked = data.click & data.shown
        p, n_p = data.pair, data.n_pairs
        n_exam = np.bincount(p[examined], minlength=n_p)
        n_click = np.bincount(p[clicked], minlength=n_p)
        n_last = np.bincount(p[clicked & (idx[None, :] == last[:, None])], minlength=n_p)
        self.from_counts(n_exam, n_click, n_last)

    def from_counts(self, n_exam: IntArray, n_click: IntArray, n_last: IntArray) -> None:
        """The estimates from each pair's examinations, clicks and last clicks (every
        engine's)."""
        self.params = {
            "alpha": np.where(n_exam > 0, n_click / np.maximum(n_exam, 1), self.default),
            "sigma": np.where(n_click > 0, n_last / np.maximum(n_click, 1), self.default),
        }

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        return dbn_probabilities(self.pp("alpha", pair), self.pp("sigma", pair), 1.0,
                                 pair >= 0, click)
