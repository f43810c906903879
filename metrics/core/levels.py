"""Confidence levels and significance levels: a number strictly between 0 and 1.

A level of 1.5 gives no interval at all (a quantile of 1.25 is NaN) and an alpha of
1.5 calls every difference significant; neither is a result, so every library
function that takes one checks it here and raises: the check is a
:class:`relkit.metrics.core.params.Param`'s (a float in the open interval (0, 1)),
so the wording is every parameter error's. Standard library only.
"""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.params import Param


def check_unit(owner: str, name: str, value: object,
               error: type[RelkitError] = RelkitError) -> float:
    """``value`` as a float when it is a number in the open interval (0, 1); else ``error``.

    Parameters
    ----------
    owner : str
        What takes it, as the message names it (``"compare"``, ``"agreement"``...).
    name : str
        The parameter (``"level"``, ``"alpha"``).
    value : object
        What was given.
    error : type of RelkitError
        The owner's error class.

    Examples
    --------
    >>> from relkit.metrics.core.levels import check_unit
    >>> check_unit("agreement", "level", 0.9)
    0.9
    >>> check_unit("agreement", "level", 1.5)
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.RelkitError: The 'level' parameter of agreement must be ...
    """
    unit = Param(name, float, None, name, low=0, high=1, open_low=True, open_high=True)
    return float(unit.convert(owner, value, error))
