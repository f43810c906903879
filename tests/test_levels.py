"""Confidence and significance levels out of (0, 1) are refused by the library itself.

Tester: ``--level 1.5`` / ``--alpha 1.5`` went through some commands with exit 0 (a
quantile of 1.25 is NaN: no interval; alpha 1.5: every difference significant). The
options' ranges are declared centrally for the CLI; here the functions behind them
raise, naming the parameter, whoever calls them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from relkit.metrics.core.errors import RelkitError

BAD = [1.5, 1.0, 0.0, -0.1, float("nan"), float("inf"), True]
T = np.array([[30, 5], [4, 20]])
VALUES = np.arange(2.0)


def _calls() -> dict[str, Callable[[Any], object]]:
    from relkit.judging.agreement import ci, icc, multi, pairwise
    from relkit.judging.agreement.analysis import Options
    from relkit.judging.agreement.judges import ranking_effect
    from relkit.metrics.compare.effect import bootstrap_interval, t_interval
    from relkit.metrics.online.interleave.credit import bootstrap_delta

    x = np.array([[0.1, 0.2], [0.4, 0.3], [0.6, 0.9]])
    pats = multi.patterns(np.array([[0, 0], [1, 1], [0, 1], [1, 1]]), 2)
    return {
        "agreement Options": lambda v: Options(level=v),
        "ci.normal": lambda v: ci.normal(0.5, 0.1, v),
        "ci.t": lambda v: ci.t(0.5, 0.1, 10, v),
        "ci.percentile": lambda v: ci.percentile(np.linspace(0, 1, 50), v, 0),
        "pairwise.measure": lambda v: pairwise.measure(pairwise.REGISTRY["cohen_kappa"], T,
                                                       VALUES, level=v, replicates=0),
        "multi.measure": lambda v: multi.measure(multi.REGISTRY["fleiss_kappa"], pats, VALUES,
                                                 level=v, replicates=0),
        "icc": lambda v: icc.icc(np.array([[1.0, 2.0], [2.0, 2.0], [3.0, 4.0]]), v),
        "judges ranking_effect alpha": lambda v: ranking_effect({}, {}, {}, alpha=v),
        "compare t_interval": lambda v: t_interval(x, v),
        "compare bootstrap_interval": lambda v: bootstrap_interval(x, v, 100, 0),
        "interleave bootstrap_delta": lambda v: bootstrap_delta(
            np.array([0, 1]), np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.0, 0.0]),
            np.random.default_rng(0), 10, v),
    }


@pytest.mark.parametrize("name", sorted(_calls()))
def test_out_of_range_levels_raise_naming_the_parameter(name: str) -> None:
    call = _calls()[name]
    for bad in BAD:
        with pytest.raises(RelkitError, match=r"parameter of .* must be a number in \(0, 1\)"):
            call(bad)


@pytest.mark.parametrize("name", sorted(_calls()))
def test_a_level_in_range_still_works(name: str) -> None:
    if name == "judges ranking_effect alpha":
        from relkit.judging.agreement.frame import AgreementError

        with pytest.raises(AgreementError, match="two or more runs"):   # past the check
            _calls()[name](0.05)
        return
    _calls()[name](0.9)


def test_agree_effect_alpha_is_checked() -> None:
    from relkit.judging.agreement.frame import AgreementError
    from relkit.judging.agreement.ir import effect

    with pytest.raises(AgreementError, match="'alpha' parameter of effect"):
        effect(None, {}, alpha=1.5)  # type: ignore[arg-type]
