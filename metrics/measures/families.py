"""The measure families, in one ordered list: the registry's order is this list's.

The order is trec_eval's print order (``-m all_trec`` prints in it), then relkit's
additions; ``--list-measures`` and docs/measures.md list in it too. Each table module
only declares its families (``FAMILIES``); nothing is registered by importing one, so
the order does not depend on which module happens to be imported first.
:data:`relkit.metrics.measures.base.REGISTRY` imports this module on first use.
"""

from __future__ import annotations

from relkit.metrics.measures import compat, cwl, ebu, err, textbook, trec_table
from relkit.metrics.measures.base import REGISTRY, register

TABLES = (
    trec_table,   # trec_eval's own families, in its print order
    textbook,     # relkit's textbook additions (F, E, fallout..., CG/DCG, Judged@k)
    err,          # ERR, ERR@k
    ebu,          # EBU (ERR's user model)
    cwl,          # the C/W/L framework's user models (INST, INSQ, RBP, BPM...)
    compat,       # compatibility
)

for _table in TABLES:
    register(*_table.FAMILIES)

# trec_eval's set and cutoff measures get micro averages too (textbook's formulas).
for _name, _micro in textbook.MICRO.items():
    object.__setattr__(REGISTRY[_name], "micro", _micro)
