"""Measure registry. Importing this package is cheap; the tables load on first use."""

from __future__ import annotations

_loaded = False


def load_all() -> None:
    """Register every measure family (trec_eval's table, then relkit's).

    Called by every registry lookup (``get_family``, ``parse_measure``), so
    importing :mod:`relkit.metrics.measures` stays cheap; calling it again does
    nothing.

    Examples
    --------
    >>> from relkit.metrics.measures import load_all
    >>> from relkit.metrics.measures.base import REGISTRY
    >>> load_all()
    >>> list(REGISTRY)[:3], list(REGISTRY)[-2:]
    (['runid', 'num_q', 'num_ret'], ['ndcg_cut_exp', 'judged'])
    """
    global _loaded
    if _loaded:
        return
    _loaded = True
    # textbook imports trec_table first, so registration (= print) order holds
    from relkit.metrics.measures import (
        textbook,  # noqa: F401
        trec_table,  # noqa: F401
    )
