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
        from relkit.metrics.online.clickmodels.chain import (
            distinct_pages,
            e_step,
            fixed_counts,
            log0,
        )

        n_p = data.n_pairs
        alpha = rng.uniform(0.4, 0.6, n_p)
        t1, t2, t3 = (float(x) for x in rng.uniform(0.4, 0.6, 3))
        blocks = distinct_pages(data)
        n_pair = fixed_counts(blocks, lambda b: b.shown, n_p)
        n_click = fixed_counts(blocks, lambda b: b.click, n_p)
        n_tail = fixed_counts(blocks, lambda b: b.tail, n_p)
        pre_skip = fixed_counts(blocks, lambda b: b.pre & ~b.click, n_p)
        pre_click = fixed_counts(blocks, lambda b: b.pre & b.click, n_p)
        last_obs = np.zeros(n_p)
        for b in blocks:
            last_obs += np.bincount(b.l_pair[b.l_obs], b.weight[b.l_obs], n_p + 1)[:n_p]
        n_skip = float(pre_skip.sum())   # examined, unclicked, went on: tau_1 seen
        # Z is counted at the clicks whose continuation is observed
        n_alpha = n_pair + pre_click + last_obs
        self.trace = []
        for _ in range(iterations + 1):
            a_ext = np.append(alpha, 0.0)
            kappa = t2 * (1 - alpha) + t3 * alpha
            ll = (n_click @ log0(alpha) + pre_skip @ log0(1 - alpha)
                  + n_skip * float(log0(np.array(t1))) + pre_click @ log0(kappa))
            # above the last click the user went on: P(Z = 1) = alpha tau_3 / kappa
            z_pre = pre_click * alpha * t3 / np.maximum(kappa, 1e-300)
            a_sub = np.zeros(n_p + 1)
            z_last = np.zeros(n_p + 1)
            go = exam_obs = z1_on = z1_all = z0_on = z0_all = 0.0
            for pg in blocks:
                a = a_ext[pg.pair]
                al = a_ext[pg.l_pair]
                post = e_step(pg, a, t1, np.where(pg.has, t2 * (1 - al) + t3 * al, 1.0))
                ll += post.log_t
                a_sub += np.bincount(pg.pair.ravel(), (post.exam * a).ravel(), n_p + 1)
                go += post.go
                exam_obs += post.exam_obs
                # at the last click: P(Z = z, went on | C) and P(Z = z | C)
                o = pg.l_obs
                al, on, inv = al[o], post.on[o], post.inv[o]
                z1o, z0o = al * t3 * on, (1 - al) * t2 * on
                z1 = z1o + al * (1 - t3) * inv
                z_last += np.bincount(pg.l_pair[o], z1, n_p + 1)
                z1_on += float(z1o.sum())
                z0_on += float(z0o.sum())
                z1_all += float(z1.sum())
                z0_all += float((z0o + (1 - al) * (1 - t2) * inv).sum())
            self.trace.append(float(ll))
            if len(self.trace) > iterations:
                break
            num = n_click + alpha * n_tail - a_sub[:n_p] + z_pre + z_last[:n_p]
            alpha = np.where(n_alpha > 0, num / np.maximum(n_alpha, 1e-300), alpha)
            zp1 = float(z_pre.sum())
            zp0 = float(pre_click.sum()) - zp1
            if n_skip + exam_obs > 0:
                t1 = (n_skip + go) / (n_skip + exam_obs)
            if zp1 + z1_all > 0:
                t3 = (zp1 + z1_on) / (zp1 + z1_all)
            if zp0 + z0_all > 0:
                t2 = (zp0 + z0_on) / (zp0 + z0_all)
        self.params = {"alpha": alpha, "tau": np.array([t1, t2, t3])}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        t1, t2, t3 = (float(x) for x in self.params["tau"])
        return chain_probabilities(a, t2 * (1 - a) + t3 * a, t1, pair >= 0, click)
