"""The store's inputs, outputs and errors under their first module path.

The validating input models are in :mod:`.inputs`, the values handed back in
:mod:`.outputs` and the errors in :mod:`.errors`; this module names them all, so code
(and users' code) that imports them from ``relkit.judging.store.models`` keeps working.
"""

from __future__ import annotations

from relkit.judging.store.errors import ChangedMeanwhile, StoreError, StoreNotOpen
from relkit.judging.store.inputs import AssignIn, JudgmentIn, PoolEntryIn, validated
from relkit.judging.store.outputs import (
    Assigned,
    AssignSummary,
    ItemOut,
    JudgmentOut,
    PoolSummary,
    ScaleGradeOut,
    TopicOut,
)

__all__ = [
    "AssignIn", "AssignSummary", "Assigned", "ChangedMeanwhile", "ItemOut", "JudgmentIn",
    "JudgmentOut", "PoolEntryIn", "PoolSummary", "ScaleGradeOut", "StoreError", "StoreNotOpen",
    "TopicOut",
    "validated",
]
