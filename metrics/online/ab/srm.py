"""Sample-ratio mismatch: do the arms hold the share of units the design asked for?"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from relkit.metrics.online.ab.errors import ABError


@dataclass(frozen=True, kw_only=True)
class SRMResult:
    """The chi-squared goodness-of-fit test of the arms' unit counts.

    Attributes
    ----------
    observed, expected
        Units per arm, counted and expected under the design (same order).
    chi2, df, p
        The statistic, its degrees of freedom (arms - 1) and the p-value.
    """

    arms: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    chi2: float
    df: int
    p: float


def parse_expected(text: str) -> dict[str, float]:
    """``"control=50,treatment=50"`` as ``{"control": 50.0, "treatment": 50.0}``.

    Weights need not sum to 100; they are normalised. Raises :class:`ABError` naming
    the piece that is not ``name=positive number``.
    """
    out: dict[str, float] = {}
    for piece in text.split(","):
        name, sep, value = piece.partition("=")
        name = name.strip()
        try:
            weight = float(value.strip().rstrip("%"))
        except ValueError:
            weight = -1.0
        if not sep or not name or not weight > 0 or name in out:
            raise ABError(f"expected name=weight pairs like control=50,treatment=50; "
                          f"found {piece.strip()!r}")
        out[name] = weight
    if len(out) < 2:
        raise ABError(f"expected at least two arms like control=50,treatment=50; found {text!r}")
    return out


def srm_test(counts: Mapping[str, int], expected: Mapping[str, float]) -> SRMResult:
    r"""Chi-squared test of the observed units per arm against the design's shares.

    .. math::

        \chi^2 = \sum_k \frac{(O_k - E_k)^2}{E_k}, \quad E_k = N\,w_k/\textstyle\sum_j w_j,
        \quad p = P(\chi^2_{K-1} \ge \chi^2).

    A small p (the usual threshold is 0.0005 or 0.001) means the assignment or the
    logging is broken and the experiment's comparisons cannot be trusted. With two
    arms this is the two-sided normal test of a binomial proportion without continuity
    correction (tea-tasting's ``SampleRatio(method="norm", correction=False)``).

    Parameters
    ----------
    counts
        Units per arm, as counted. An arm of the design that has no units counts 0;
        an arm found that the design does not name is an error.
    expected
        The design's weights per arm (``parse_expected``).

    References
    ----------
    R. Kohavi, D. Tang & Y. Xu, *Trustworthy Online Controlled Experiments*,
    Cambridge University Press, 2020, chapter 21 (the 821,588 vs 815,482 example).
    """
    from scipy import stats

    unknown = sorted(set(counts) - set(expected))
    if unknown:
        raise ABError(f"the data has arm(s) {', '.join(map(repr, unknown))} that --expected "
                      f"does not name (it names {', '.join(map(repr, expected))})")
    arms = tuple(expected)
    observed = tuple(int(counts.get(a, 0)) for a in arms)
    total = sum(observed)
    if total == 0:
        raise ABError("no units to check: every arm is empty")
    weight = sum(expected.values())
    exp = tuple(total * expected[a] / weight for a in arms)
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed, exp, strict=True))
    df = len(arms) - 1
    return SRMResult(arms=arms, observed=observed, expected=exp, chi2=float(chi2), df=df,
                     p=float(stats.chi2.sf(chi2, df)))
