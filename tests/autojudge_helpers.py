"""Helpers shared by the judges-run tests (chat and supervised backends)."""

from __future__ import annotations


def automatic_grades(db: str, assessor: str = "m1") -> dict[tuple[str, str], int]:
    """``{(topic, doc): grade}`` an automatic assessor has in ``db`` (empty when the
    assessor does not exist; asserts its kind is automatic)."""
    from relkit.judging.store.assign import Store
    from relkit.judging.store.reports import export_qrels

    store = Store.open(db, readonly=True)
    try:
        if assessor not in store.assessors():
            return {}
        assert store.kinds()[assessor] == "automatic"
        return {(t, d): g for t, d, g in export_qrels(store, "assessor", assessor=assessor,
                                                      unjudged=False)}
    finally:
        store.close()
