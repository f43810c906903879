"""What every layer shares, at the bottom of the bottom layer.

:mod:`.errors` (the :class:`~.errors.RelkitError` base and the input errors),
:mod:`.params` (parameter specs and their one message style), :mod:`.registry`
(named objects of one kind and the one "did you mean"), :mod:`.progress` (the
progress bar). These modules import nothing of relkit's but each other, and
nothing heavy at import time (the CLI's root imports :mod:`.registry` before any
command), so any module of any layer may use them.
"""
