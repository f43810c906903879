"""Generated documentation stays in step with the code."""

from __future__ import annotations

from metrics.reference import measures_markdown
from tests.conftest import ROOT


def test_measure_reference_is_current() -> None:
    current = (ROOT / "docs" / "measures.md").read_text()
    assert current == measures_markdown(), "run: python -m metrics.reference > docs/measures.md"


def test_every_family_documents_a_formula_or_source() -> None:
    import inspect

    from metrics.measures.base import REGISTRY

    for fam in REGISTRY.values():
        if fam.summary in ("runid", "num_q"):
            continue
        doc = fam.doc or inspect.getdoc(fam.compute) or ""
        assert len(doc) > 40, fam.name
