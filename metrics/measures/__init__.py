"""The measure families. Importing this package is cheap; the tables load on first use.

The registry is :data:`relkit.metrics.measures.base.REGISTRY`; reading it loads the
tables, and so does :func:`load_all`.
"""

from __future__ import annotations


def load_all() -> None:
    """Register every measure family (trec_eval's table, then relkit's).

    Reading the registry loads the tables too, so importing
    :mod:`relkit.metrics.measures` stays cheap; calling it again does nothing.

    Examples
    --------
    >>> from relkit.metrics.measures import load_all
    >>> from relkit.metrics.measures.base import REGISTRY
    >>> load_all()
    >>> list(REGISTRY)[:3], list(REGISTRY)[-2:]
    (['runid', 'num_q', 'num_ret'], ['sdcg', 'compat'])
    """
    from relkit.metrics.measures.base import REGISTRY

    REGISTRY.load()
