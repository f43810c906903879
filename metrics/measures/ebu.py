"""Expected browsing utility (EBU, EBU@k): the utility a DBN user gains from a ranking.

Yilmaz, Shokouhi, Craswell & Robertson, "Expected browsing utility for web search
evaluation", CIKM 2010. The user of a dynamic Bayesian network click model with
continuation ``gamma = 1`` (Chapelle & Zhang's DBN, simplified) scans top-down, clicks
a result of grade g with probability ``c(g)``, gains its utility ``R(g)`` and, after the
click, stops with probability ``s(g)``; EBU is the expected total utility.

The paper fits ``c`` and ``s`` per grade on a commercial search log. relkit, which has
no such log to fit, takes them from a simulated user of
:data:`relkit.metrics.online.clickmodels.simulate.PRESETS` (Hofmann, Whiteson & de
Rijke, TOIS 2013; five grades 0-4), chosen by the named parameter ``user``:
``EBU(user=informational)``, ``EBU(user=perfect)@10`` (trec_eval syntax
``ebu.user=informational``, ``ebu_cut.k=10,user=perfect``); the default is
``navigational``. The utility is ERR's mapping ``R(g) = (2^g - 1) / 2^4`` (gdeval's,
:mod:`.err`), so EBU and ERR read the same qrels the same way.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.core.params import Param
from relkit.metrics.measures import err as _err
from relkit.metrics.measures.base import Family
from relkit.metrics.measures.context import Ctx
from relkit.metrics.measures.named import Named, Value, value_of

MAX_GRADE = _err.MAX_GRADE
# The simulated users' click and stop probabilities for grades 0..4 (kept equal to
# simulate.PRESETS, which tests/test_measures_ebu.py checks; not imported, so that
# evaluating a run does not load the click-model package).
USERS: dict[str, tuple[np.ndarray, np.ndarray]] = {
    "perfect": (np.array([0.0, 0.2, 0.4, 0.8, 1.0]), np.array([0.0, 0.0, 0.0, 0.0, 0.0])),
    "navigational": (np.array([0.05, 0.3, 0.5, 0.7, 0.95]),
                     np.array([0.2, 0.3, 0.5, 0.7, 0.9])),
    "informational": (np.array([0.4, 0.6, 0.7, 0.8, 0.9]),
                      np.array([0.1, 0.2, 0.3, 0.4, 0.5])),
}
DEFAULT_USER = "navigational"
CLICK, STOP = USERS[DEFAULT_USER]
UTILITY = (np.exp2(np.arange(MAX_GRADE + 1)) - 1.0) / 2.0 ** MAX_GRADE
_USER = Param("user", str, DEFAULT_USER, "simulated user (click and stop per grade)",
              choices=tuple(USERS))


def _ebu_at(ctx: Ctx, k: int | None, user: str) -> np.ndarray:
    if k is None:
        rel, depth, tid = ctx.rel, ctx.n, ctx.tid
    else:
        first_k = ctx.pos < k
        rel, depth, tid = ctx.rel[first_k], np.minimum(ctx.n, k), ctx.tid[first_k]
    if len(rel) and int(rel.max()) > MAX_GRADE:
        raise _err.grade_error(ctx, None if k is None else first_k,
                               f"EBU's user model has grades up to {MAX_GRADE} (as ERR)")
    g = np.maximum(rel, 0)
    click, stop = USERS[user]
    c, s, u = click[g], stop[g], UTILITY[g]
    offsets = np.concatenate(([0], np.cumsum(depth)))
    after = _err.segment_cumprod(1.0 - c * s, offsets)
    # P(E_r = 1): the product over the rows above (1 at each topic's top)
    exam = np.empty_like(c)
    exam[1:] = after[:-1]
    exam[offsets[:-1][depth > 0]] = 1.0
    return np.bincount(tid, weights=exam * c * u, minlength=ctx.T)


def ebu(ctx: Ctx, value: Value) -> np.ndarray:
    r"""Expected browsing utility over the whole ranking (Yilmaz et al., CIKM 2010).

    .. math:: EBU = \sum_{i=1}^{n} P(E_i)\, c(g_i)\, R(g_i), \qquad
              P(E_1) = 1, \quad P(E_{i+1}) = P(E_i) \bigl(1 - c(g_i)\, s(g_i)\bigr)

    with g_i the grade at rank i (0 when unjudged or negative; a grade above 4 is an
    error), ``R(g) = (2^g - 1) / 2^4`` (ERR's utility), and the click and stop
    probabilities ``c``, ``s`` of the simulated user ``user`` for grades 0-4 (Hofmann,
    Whiteson & de Rijke, TOIS 2013; the paper fits them on a search log instead):
    ``navigational`` (the default) ``c = (.05, .3, .5, .7, .95)``, ``s = (.2, .3, .5,
    .7, .9)``; ``informational`` ``c = (.4, .6, .7, .8, .9)``, ``s = (.1, .2, .3, .4,
    .5)``; ``perfect`` ``c = (0, .2, .4, .8, 1)``, ``s = 0``. Spelled ``EBU``,
    ``EBU(user=informational)``. 0 on an empty ranking.

    Reference: E. Yilmaz, M. Shokouhi, N. Craswell, S. Robertson, "Expected browsing
    utility for web search evaluation", CIKM 2010.
    """
    return _ebu_at(ctx, None, value_of(value, "user"))


def ebu_cut(ctx: Ctx, value: Value) -> np.ndarray:
    r"""EBU@k: expected browsing utility over the first k documents.

    .. math:: EBU@k = \sum_{i=1}^{\min(k, n)} P(E_i)\, c(g_i)\, R(g_i)

    with ``P(E_i)``, ``c``, ``s``, ``R`` and the ``user`` (default ``navigational``) as
    for EBU. Spelled ``EBU@10``, ``EBU(user=perfect)@10``. Reference: Yilmaz et al.,
    CIKM 2010.
    """
    return _ebu_at(ctx, int(value_of(value, "k")), value_of(value, "user"))


# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    Family("ebu", "mean", "float", "named", "", ebu,
           "Expected browsing utility (DBN user: navigational, informational or perfect; "
           "grades up to 4)",
           doc=ebu.__doc__ or "", trec=False, readable="EBU",
           named=Named("EBU", (_USER,))),
    Family("ebu_cut", "mean", "float", "named", "", ebu_cut,
           "Expected browsing utility at k", doc=ebu_cut.__doc__ or "", trec=False,
           readable="EBU", named=Named("EBU", (Param("k", int, 10, "cutoff", 1), _USER),
                                       cutoff="k")),
)
