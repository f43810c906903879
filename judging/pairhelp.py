"""``--pair-strategy`` of ``relkit judge --pairs`` and ``relkit serve --pairs``: its help
and its check.

The names are written out here so that ``--help`` does not load the strategies (numpy,
Bradley–Terry); tests/test_pairs_workflow.py checks they are the registry's
(:func:`relkit.pooling.pairs.names`).
"""

from __future__ import annotations

NAMES = ("adaptive", "all-pairs", "top-k")
PAIR_STRATEGY_HELP = ("With --pairs: which pair comes next, one of " + ", ".join(NAMES)
                      + " (docs/preferences.md); top-k needs the topic's grades first")


def check_pair_strategy(name: str) -> None:
    """A name the registry does not know is a usage error (did you mean), exit 2."""
    if name in NAMES:
        return
    import typer  # (not at the top: `relkit judge`'s fast entry reads NAMES without it)

    from relkit.pooling.errors import PoolingError
    from relkit.pooling.pairs import get

    try:
        get(name)
    except PoolingError as exc:
        raise typer.BadParameter(str(exc), param_hint="--pair-strategy") from None
