"""Rank correlation between two orderings of the same systems.

Used wherever relkit asks "does this change which system wins?": comparing
systems (``relkit compare``), pool reusability and simulation (``pooling``),
and the effect of assessor disagreement (``relkit.judging.agreement``).

Inputs are two mappings ``system id -> score`` (higher is better) over the same
systems; ids are strings and are matched by name, never by position.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from relkit.metrics.core.errors import RelkitError

Method = Literal["tau", "tau_ap", "tau_ap_sym"]
METHODS: tuple[str, ...] = get_args(Method)


class CorrelationError(RelkitError):
    """The two orderings cannot be compared: they rank different systems, or the
    method is unknown. A ``ValueError``."""


@dataclass(frozen=True)
class Correlation:
    """A rank correlation and how it was obtained.

    Attributes
    ----------
    method : str
        ``"tau"``, ``"tau_ap"`` or ``"tau_ap_sym"`` (see :data:`METHODS`).
    value : float or None
        The coefficient in [-1, 1]; ``None`` when it is undefined (fewer than two
        systems, or every system tied in one ordering).
    n : int
        Number of systems compared.
    discordant : int
        Pairs the two orderings put in opposite order (for ``tau_ap``: in the
        direction of the reference, as counted by the formula).
    reason : str
        Why ``value`` is ``None``; empty otherwise.

    Examples
    --------
    >>> from relkit.metrics.compare.correlation import kendall_tau
    >>> kendall_tau({"bm25": 0.3}, {"bm25": 0.2})
    Correlation(method='tau', value=None, n=1, discordant=0, reason='fewer than two systems')
    """

    method: str
    value: float | None
    n: int
    discordant: int = 0
    reason: str = ""


def _aligned(a: Mapping[str, float], b: Mapping[str, float]) -> list[str]:
    ka, kb = set(a), set(b)
    if ka != kb:
        only_a = sorted(ka - kb)[:3]
        only_b = sorted(kb - ka)[:3]
        raise CorrelationError(
            "the two orderings must rank the same systems; "
            f"only in the first: {only_a or 'none'}, only in the second: {only_b or 'none'}")
    return sorted(ka)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def kendall_tau(a: Mapping[str, float], b: Mapping[str, float]) -> Correlation:
    r"""Kendall's :math:`\tau_b` between two score assignments.

    Parameters
    ----------
    a, b : Mapping[str, float]
        System id -> score (higher is better), over the same systems.

    Returns
    -------
    Correlation
        ``method="tau"``; ``value`` is ``None`` for fewer than two systems or
        when every system is tied in one ordering.

    Raises
    ------
    CorrelationError
        If ``a`` and ``b`` do not score the same systems.

    See Also
    --------
    tau_ap : weighs swaps near the top more.

    Notes
    -----
    .. math::
        \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`C, D` the concordant and discordant pairs, :math:`n_0 = n(n-1)/2`,
    and :math:`n_1, n_2` the pairs tied in the first and second ordering. Without
    ties this is Kendall's original :math:`\tau = (C - D)/n_0`. Equal to
    ``scipy.stats.kendalltau(x, y).statistic`` (variant ``'b'``).

    References
    ----------
    M. G. Kendall, "The treatment of ties in ranking problems", Biometrika 33, 1945.
    E. M. Voorhees, "Variations in relevance judgments and the measurement of
    retrieval effectiveness", IP&M 36(5), 2000 (its use for system orderings).

    Examples
    --------
    Three systems, so three pairs; ``b`` swaps the top two: (2 - 1) / 3.

    >>> from relkit.metrics.compare.correlation import kendall_tau
    >>> a = {"bm25": 0.30, "lm": 0.25, "rand": 0.05}
    >>> b = {"bm25": 0.28, "lm": 0.29, "rand": 0.10}
    >>> tau = kendall_tau(a, b)
    >>> round(tau.value, 4), tau.discordant
    (0.3333, 1)
    """
    ids = _aligned(a, b)
    n = len(ids)
    if n < 2:
        return Correlation("tau", None, n, reason="fewer than two systems")
    x = [a[i] for i in ids]
    y = [b[i] for i in ids]
    conc = disc = tie_x = tie_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx, sy = _sign(x[i] - x[j]), _sign(y[i] - y[j])
            if sx == 0:
                tie_x += 1
            if sy == 0:
                tie_y += 1
            if sx and sy:
                if sx == sy:
                    conc += 1
                else:
                    disc += 1
    n0 = n * (n - 1) // 2
    denom = math.sqrt((n0 - tie_x) * (n0 - tie_y))
    if denom == 0:
        return Correlation("tau", None, n, disc, "every system is tied in one ordering")
    return Correlation("tau", (conc - disc) / denom, n, disc)


def tau_ap(reference: Mapping[str, float], other: Mapping[str, float]) -> Correlation:
    r"""AP rank correlation :math:`\tau_{AP}` of ``other`` against ``reference``.

    Parameters
    ----------
    reference : Mapping[str, float]
        System id -> score: the ordering taken as the truth (best first).
    other : Mapping[str, float]
        System id -> score for the same systems.

    Returns
    -------
    Correlation
        ``method="tau_ap"``; ``value`` is ``None`` for fewer than two systems.

    Raises
    ------
    CorrelationError
        If the two mappings do not score the same systems.

    See Also
    --------
    tau_ap_symmetric : when neither ordering is the reference.

    Notes
    -----
    .. math::
        \tau_{AP} = \frac{2}{N-1} \sum_{i=2}^{N} \frac{C(i)}{i-1} - 1

    where systems are taken in the reference order (best first) and
    :math:`C(i)` counts the systems above position :math:`i` in the reference that
    ``other`` also places above the system at :math:`i`. Swaps near the top cost
    more than swaps near the bottom. Not symmetric: see :func:`tau_ap_symmetric`.

    Ties: the reference order breaks ties by system id (so the result is
    deterministic); a pair tied in ``other`` counts as half concordant.

    References
    ----------
    E. Yilmaz, J. A. Aslam, S. Robertson, "A new rank correlation coefficient for
    information retrieval", SIGIR 2008.

    Examples
    --------
    One swap each, so Kendall's tau is 1/3 both times; swapping the top two systems
    costs more than swapping the bottom two.

    >>> from relkit.metrics.compare.correlation import tau_ap
    >>> ref = {"bm25": 0.30, "lm": 0.25, "rand": 0.05}
    >>> tau_ap(ref, {"bm25": 0.28, "lm": 0.29, "rand": 0.10}).value
    0.0
    >>> tau_ap(ref, {"bm25": 0.30, "lm": 0.05, "rand": 0.25}).value
    0.5
    """
    ids = _aligned(reference, other)
    n = len(ids)
    if n < 2:
        return Correlation("tau_ap", None, n, reason="fewer than two systems")
    order = sorted(ids, key=lambda s: (-reference[s], s))
    total = 0.0
    disc = 0
    for i in range(1, n):
        below = other[order[i]]
        c = 0.0
        for j in range(i):
            d = other[order[j]] - below
            if d > 0:
                c += 1.0
            elif d == 0:
                c += 0.5
            else:
                disc += 1
        total += c / i
    return Correlation("tau_ap", 2.0 * total / (n - 1) - 1.0, n, disc)


def tau_ap_symmetric(a: Mapping[str, float], b: Mapping[str, float]) -> Correlation:
    r"""The symmetric :math:`\tau_{AP}`: the mean of both directions.

    .. math:: \tau_{AP}^{sym}(a, b) = \tfrac12\,(\tau_{AP}(a, b) + \tau_{AP}(b, a))

    Use it when neither ordering is the reference (two assessors' qrels).

    Parameters
    ----------
    a, b : Mapping[str, float]
        System id -> score, over the same systems.

    Returns
    -------
    Correlation
        ``method="tau_ap_sym"``; ``discordant`` is counted in the direction
        ``a`` -> ``b``. ``value`` is ``None`` when either direction is undefined.

    Raises
    ------
    CorrelationError
        If ``a`` and ``b`` do not score the same systems.

    References
    ----------
    Yilmaz, Aslam & Robertson, SIGIR 2008, section 4.

    Examples
    --------
    >>> from relkit.metrics.compare.correlation import tau_ap, tau_ap_symmetric
    >>> a = {"bm25": 0.30, "lm": 0.25, "rand": 0.05}
    >>> b = {"bm25": 0.28, "lm": 0.29, "rand": 0.10}
    >>> tau_ap(a, b).value, tau_ap(b, a).value, tau_ap_symmetric(a, b).value
    (0.0, 0.0, 0.0)
    >>> c = {"bm25": 0.30, "lm": 0.05, "rand": 0.25}
    >>> tau_ap(a, c).value, tau_ap(c, a).value, tau_ap_symmetric(a, c).value
    (0.5, 0.5, 0.5)
    """
    ab, ba = tau_ap(a, b), tau_ap(b, a)
    if ab.value is None or ba.value is None:
        return Correlation("tau_ap_sym", None, ab.n, reason=ab.reason or ba.reason)
    return Correlation("tau_ap_sym", (ab.value + ba.value) / 2, ab.n, ab.discordant)


def rank_correlation(a: Mapping[str, float], b: Mapping[str, float],
                     method: Method = "tau") -> Correlation:
    """The rank correlation ``method`` between two orderings of the same systems.

    Parameters
    ----------
    a, b : Mapping[str, float]
        System id -> score (higher is better); for ``tau_ap``, ``a`` is the
        reference.
    method : {"tau", "tau_ap", "tau_ap_sym"}
        :func:`kendall_tau`, :func:`tau_ap` or :func:`tau_ap_symmetric`.

    Returns
    -------
    Correlation

    Raises
    ------
    CorrelationError
        If ``method`` is unknown, or ``a`` and ``b`` score different systems.

    Examples
    --------
    >>> from relkit.metrics.compare.correlation import rank_correlation
    >>> a = {"bm25": 0.30, "lm": 0.25, "rand": 0.05}
    >>> c = {"bm25": 0.30, "lm": 0.05, "rand": 0.25}
    >>> round(rank_correlation(a, c).value, 4), rank_correlation(a, c, "tau_ap").value
    (0.3333, 0.5)
    >>> rank_correlation(a, {"bm25": 0.1, "lm": 0.2})
    Traceback (most recent call last):
    ...
    relkit.metrics.compare.correlation.CorrelationError: ... only in the first: ['rand'], ...
    """
    if method == "tau":
        return kendall_tau(a, b)
    if method == "tau_ap":
        return tau_ap(a, b)
    if method == "tau_ap_sym":
        return tau_ap_symmetric(a, b)
    raise CorrelationError(f"unknown rank correlation {method!r}; "
                           f"expected one of {', '.join(METHODS)}")
