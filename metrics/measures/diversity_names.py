"""The diversity families' names, without the families: is this name a diversity measure?

:func:`relkit.metrics.names.parse_measure` asks it of every measure name (a diversity
measure needs subtopic qrels), so ``relkit eval -m map`` would import the diversity
families (two dataclasses, ~3 ms of start-up) only to learn that ``map`` is not one.
:data:`HEADS` spells them out; tests/test_eval_argv.py checks it against
:mod:`relkit.metrics.measures.diversity` (its registry's names and ndeval's aliases).
"""

from __future__ import annotations

import re

# ir_measures' names (the registry's), ndeval's spellings, and ir_measures' MAP_IA.
HEADS = frozenset({
    "alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA",
    "StRecall",
    "alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "MAP-IA", "P-IA", "strec",
    "MAP_IA",
})
NAME = re.compile(r"(?P<head>[A-Za-z][\w-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>\S+))?")


def is_diversity(name: str) -> bool:
    """Whether ``name`` (any spelling) names a diversity family.

    >>> from relkit.metrics.measures.diversity_names import is_diversity
    >>> is_diversity("alpha_nDCG@20"), is_diversity("strec@5"), is_diversity("nDCG@20")
    (True, True, False)
    """
    m = NAME.fullmatch(name.strip())
    return m is not None and m["head"] in HEADS
