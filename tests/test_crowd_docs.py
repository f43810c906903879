"""docs/crowd.md's TREC 2010 table holds what docs/crowd_report.py computes (relkit's columns).

crowd-kit's columns and the timings are measured by the script's ``--peer`` run and
are not re-checked here (minutes, and timings vary); relkit's accuracies, iteration
counts and qrels differences are.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from helpers import ROOT, SHARED

CROWD = SHARED / "corpora" / "trec-rf10-crowd" / "trec-rf10-data.txt"


@pytest.mark.slow
@pytest.mark.skipif(not CROWD.is_file(), reason=f"{CROWD} not found")
def test_the_trec_2010_table_in_the_docs_is_what_the_script_computes() -> None:
    spec = importlib.util.spec_from_file_location("crowd_report", ROOT / "docs" /
                                                  "crowd_report.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows, labels, n_gold = mod.relkit_rows(CROWD)
    doc = (ROOT / "docs" / "crowd.md").read_text(encoding="utf-8")
    assert f"on the {n_gold:,} gold pairs" in doc
    for m, r in rows.items():
        head = f"| {m} | {r['graded']:.4f} | {r['binary']:.4f} | {r['iterations']} | "
        assert head in doc, head
    base = labels["majority"]
    for m in mod.ORDER[1:]:
        lab = labels[m]
        line = (f"| {m} | {int((lab != base).sum()):,} | "
                f"{int(((lab >= 1) != (base >= 1)).sum()):,} |")
        assert line in doc, line


def test_the_docs_name_every_method() -> None:
    from relkit.judging.crowd.methods import METHODS

    doc = Path(ROOT / "docs" / "crowd.md").read_text(encoding="utf-8")
    for m in METHODS:
        assert f"`{m}`" in doc, m
