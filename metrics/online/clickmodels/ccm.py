"""The click chain model (CCM), fitted by exact EM.

Guo, Liu, Kannan, Minka, Taylor, Wang & Faloutsos, "Click chain model in web search",
WWW 2009; the point-estimate parameterisation of Chuklin, Markov & de Rijke, *Click
Models for Web Search* (2015), ch. 3 (the original paper infers a Bayesian posterior
of the relevance instead).
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


class CCM(ClickModel):
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

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        from relkit.metrics.online.clickmodels.chain import distinct_pages, e_step

        n_p = data.n_pairs
        alpha = rng.uniform(0.4, 0.6, n_p)
        t1, t2, t3 = (float(x) for x in rng.uniform(0.4, 0.6, 3))
        pg = distinct_pages(data)
        w = np.broadcast_to(pg.weight[None, :], pg.pair.shape)
        shown, click = pg.shown, pg.click
        n_pair = np.bincount(pg.pair[shown], w[shown], n_p)
        click_mass = np.bincount(pg.pair[click], w[click], n_p)
        pre_c = click & pg.pre
        pre_s = pg.pre & ~click
        n_pre_skip = float(w[pre_s].sum())   # examined, unclicked, went on: tau_1 seen
        has = pg.last >= 0
        cols = np.flatnonzero(has)
        l_rank = pg.last[has]
        l_obs = pg.later[l_rank, cols]
        cols, l_rank = cols[l_obs], l_rank[l_obs]
        l_pair = pg.pair[l_rank, cols]
        l_w = pg.weight[cols]
        pre_p, pre_w = pg.pair[pre_c], w[pre_c]
        tail_p = pg.pair[pg.tail]
        tail_obs = pg.tail & pg.later
        # Z is counted at the clicks whose continuation is observed
        n_alpha = n_pair + np.bincount(pre_p, pre_w, n_p) + np.bincount(l_pair, l_w, n_p)
        self.trace = []
        for _ in range(iterations + 1):
            a = alpha[pg.pair]
            kappa = t2 * (1 - a) + t3 * a
            post = e_step(pg, a, t1, kappa)
            self.trace.append(post.log_likelihood)
            if len(self.trace) > iterations:
                break
            # above the last click the user went on: P(Z = 1) = alpha tau_3 / kappa
            ap = alpha[pre_p]
            z_pre = pre_w * ap * t3 / (t2 * (1 - ap) + t3 * ap)
            # at the last click: P(Z = z, went on) and P(Z = z, stopped)
            al = alpha[l_pair]
            on, inv = post.on[cols], post.inv[cols]
            z1_on, z0_on = al * t3 * on, (1 - al) * t2 * on
            z1 = z1_on + al * (1 - t3) * inv
            z0 = z0_on + (1 - al) * (1 - t2) * inv
            w_tail = (w - post.exam)[pg.tail] * a[pg.tail]
            num = (click_mass + np.bincount(tail_p, w_tail, n_p) + np.bincount(pre_p, z_pre, n_p)
                   + np.bincount(l_pair, z1, n_p))
            alpha = np.where(n_alpha > 0, num / np.maximum(n_alpha, 1e-300), alpha)
            d1 = n_pre_skip + float(post.exam[tail_obs].sum())
            if d1 > 0:
                t1 = (n_pre_skip + float(post.go.sum())) / d1
            zp1 = float(z_pre.sum())
            zp0 = float(pre_w.sum()) - zp1
            if zp1 + z1.sum() > 0:
                t3 = (zp1 + float(z1_on.sum())) / (zp1 + float(z1.sum()))
            if zp0 + z0.sum() > 0:
                t2 = (zp0 + float(z0_on.sum())) / (zp0 + float(z0.sum()))
        self.params = {"alpha": alpha, "tau": np.array([t1, t2, t3])}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        t1, t2, t3 = (float(x) for x in self.params["tau"])
        return chain_probabilities(a, t2 * (1 - a) + t3 * a, t1, pair >= 0, click)
