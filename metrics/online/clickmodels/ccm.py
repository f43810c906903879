"""The click chain model (CCM), fitted by exact EM.

Guo, Liu, Kannan, Minka, Taylor, Wang & Faloutsos, "Click chain model in web search",
WWW 2009; the point-estimate parameterisation of Chuklin, Markov & de Rijke, *Click
Models for Web Search* (2015), ch. 3 (the original paper infers a Bayesian posterior
of the relevance instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relkit.metrics.online.clickmodels.base import FloatArray
from relkit.metrics.online.clickmodels.chain import Pages, e_step, fixed_counts, log0
from relkit.metrics.online.clickmodels.data import BoolArray, IntArray
from relkit.metrics.online.clickmodels.sums import ChainModel, Sums, Theta


class CCM(ChainModel):
    r"""Click chain model (Guo et al., WWW 2009), EM estimates.

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad
        P(A_r = 1) = \alpha_{uq}, \quad E_1 = 1, \quad
        E_r = 0 \Rightarrow E_{r+1} = 0, \\
        P(E_{r+1} = 1 \mid E_r = 1, C_r = 0) = \tau_1, \quad
        P(E_{r+1} = 1 \mid C_r = 1) = \tau_2 (1 - \alpha_{uq}) + \tau_3 \alpha_{uq}

    EM: the continuation after a click is the mixture ``sum_z P(Z = z) tau_{2+z}`` with
    a latent ``Z ~ Bernoulli(alpha_uq)`` (the result's relevance), so the complete-data
    likelihood has closed-form maxima: ``alpha`` is the mean posterior of ``A`` (every
    impression) and ``Z`` (every click with a result below it), ``tau_1`` the mean
    posterior of going on after an examined, unclicked result, ``tau_2``/``tau_3`` after
    a click with ``Z = 0``/``Z = 1`` (E-step of :mod:`.chain`). Only continuations with
    a result below them are counted. Exact EM: the log-likelihood (:attr:`trace`) never
    decreases. ``params["tau"]`` is ``[tau_1, tau_2, tau_3]``.
    """

    name = "ccm"
    per_pair = ("alpha",)

    fixed_shapes = {"n_pair": "pair", "n_click": "pair", "n_tail": "pair",
                    "pre_skip": "pair", "pre_click": "pair", "last_obs": "pair"}
    sum_shapes = {"log_t": "scalar", "a_sub": "pair", "z_last": "pair", "go": "scalar",
                  "exam_obs": "scalar", "z1_on": "scalar", "z0_on": "scalar",
                  "z1_all": "scalar", "z0_all": "scalar"}

    def start(self, rng: np.random.Generator, n_pairs: int, max_rank: int) -> Theta:
        alpha = rng.uniform(0.4, 0.6, n_pairs)
        t1, t2, t3 = (float(x) for x in rng.uniform(0.4, 0.6, 3))
        return alpha, t1, t2, t3

    def fixed_sums(self, pg: Pages, n_pairs: int, max_rank: int) -> Sums:
        def by_pair(cells: BoolArray) -> FloatArray:
            return fixed_counts([pg], lambda _b: cells, n_pairs)

        o = pg.l_obs
        return {"n_pair": by_pair(pg.shown), "n_click": by_pair(pg.click),
                "n_tail": by_pair(pg.tail), "pre_skip": by_pair(pg.pre & ~pg.click),
                "pre_click": by_pair(pg.pre & pg.click),
                # Z is counted at the clicks whose continuation is observed
                "last_obs": np.bincount(pg.l_pair[o], pg.weight[o], n_pairs + 1)[:n_pairs]}

    def seed(self, fixed: Sums, theta: Theta) -> Sums:
        alpha, t1, t2, t3 = theta
        kappa = t2 * (1 - alpha) + t3 * alpha
        n_skip = float(fixed["pre_skip"].sum())   # examined, unclicked, went on: tau_1 seen
        ll = (fixed["n_click"] @ log0(alpha) + fixed["pre_skip"] @ log0(1 - alpha)
              + n_skip * float(log0(np.array(t1))) + fixed["pre_click"] @ log0(kappa))
        return {"log_t": ll, "a_sub": np.zeros(len(alpha)), "z_last": np.zeros(len(alpha)),
                **dict.fromkeys(("go", "exam_obs", "z1_on", "z0_on", "z1_all", "z0_all"),
                                0.0)}

    def block_sums(self, pg: Pages, theta: Theta, n_pairs: int, max_rank: int) -> Sums:
        alpha, t1, t2, t3 = theta
        a_ext = np.append(alpha, 0.0)
        a = a_ext[pg.pair]
        al = a_ext[pg.l_pair]
        post = e_step(pg, a, t1, np.where(pg.has, t2 * (1 - al) + t3 * al, 1.0))
        # at the last click: P(Z = z, went on | C) and P(Z = z | C)
        o = pg.l_obs
        al, on, inv = al[o], post.on[o], post.inv[o]
        z1o, z0o = al * t3 * on, (1 - al) * t2 * on
        z1 = z1o + al * (1 - t3) * inv
        return {"log_t": post.log_t,
                "a_sub": np.bincount(pg.pair.ravel(), (post.exam * a).ravel(),
                                     n_pairs + 1)[:n_pairs],
                "z_last": np.bincount(pg.l_pair[o], z1, n_pairs + 1)[:n_pairs],
                "go": post.go, "exam_obs": post.exam_obs, "z1_on": float(z1o.sum()),
                "z0_on": float(z0o.sum()), "z1_all": float(z1.sum()),
                "z0_all": float((z0o + (1 - al) * (1 - t2) * inv).sum())}

    def m_step(self, fixed: Sums, theta: Theta, sums: Sums) -> Theta:
        alpha, t1, t2, t3 = theta
        pre_click = fixed["pre_click"]
        n_skip = float(fixed["pre_skip"].sum())
        n_alpha = fixed["n_pair"] + pre_click + fixed["last_obs"]
        kappa = t2 * (1 - alpha) + t3 * alpha
        # above the last click the user went on: P(Z = 1) = alpha tau_3 / kappa
        z_pre = pre_click * alpha * t3 / np.maximum(kappa, 1e-300)
        num = (fixed["n_click"] + alpha * fixed["n_tail"] - sums["a_sub"] + z_pre
               + sums["z_last"])
        alpha = np.where(n_alpha > 0, num / np.maximum(n_alpha, 1e-300), alpha)
        zp1 = float(z_pre.sum())
        zp0 = float(pre_click.sum()) - zp1
        if n_skip + sums["exam_obs"] > 0:
            t1 = (n_skip + sums["go"]) / (n_skip + sums["exam_obs"])
        if zp1 + sums["z1_all"] > 0:
            t3 = (zp1 + sums["z1_on"]) / (zp1 + sums["z1_all"])
        if zp0 + sums["z0_all"] > 0:
            t2 = (zp0 + sums["z0_on"]) / (zp0 + sums["z0_all"])
        return alpha, t1, t2, t3

    def params_of(self, theta: Theta) -> dict[str, Any]:
        alpha, t1, t2, t3 = theta
        return {"alpha": alpha, "tau": np.array([t1, t2, t3])}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        t1, t2, t3 = (float(x) for x in self.params["tau"])
        return chain_probabilities(a, t2 * (1 - a) + t3 * a, t1, pair >= 0, click)
