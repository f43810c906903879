"""Interleaving and multileaving: ``relkit interleave make | analyze``.

:mod:`.methods` (team draft, balanced, probabilistic; team-draft and probabilistic
multileave), :mod:`.optimized` (Radlinski & Craswell's linear programme),
:mod:`.rankings` (runs as matrices of document codes), :mod:`.lists` (the lists file),
:mod:`.credit` and :mod:`.analyze` (credit from clicks, Delta, tests, bootstrap).
Importing the package imports none of them.
"""
